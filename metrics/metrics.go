// Package metrics holds authbgpd's Prometheus metrics on a private registry
// (never the global default one), with the Go runtime and process collectors.
//
// The metric names are a contract (docs/CONTRACTS.md); extend, never rename:
//
//	authbgpd_md5_segments_total{peer,verdict}    counter  verdict: valid, bad_digest, missing, unexpected
//	authbgpd_tcpao_segments_total{peer,verdict}  counter  verdict: valid, bad_mac, missing, unknown_key, unexpected, no_handshake
//	authbgpd_peer_up{peer}                       gauge    1 while the session is Established, 0 otherwise (every configured peer, from start)
//	authbgpd_md5_key_installed{peer}             gauge    1 while the peer's TCP-MD5 key is on its sockets
//	authbgpd_shadow_drops_total                  counter  packets the capture dropped before the check
//	authbgpd_srh_hmac_total{key_id,verdict}      counter  verdict: valid, invalid, no_hmac, unknown_key
//	authbgpd_srv6_policy_installed{name}         gauge    1 while the SR policy is installed
//
// and, beyond the contract:
//
//	authbgpd_md5_key_changes_total{peer}         counter
//	authbgpd_config_reloads_total{result}        counter  result: ok, error
//	authbgpd_build_info{version,gobgp,go}        gauge    always 1
//	authbgpd_peer_prefixes{peer,family,direction} gauge   direction: received, accepted, sent (ReadPeers)
//	authbgpd_peer_malformed_updates_total{peer}  counter  malformed UPDATEs from the peer (ReadPeers)
//	authbgpd_peer_malformed_messages_total{peer,handling} counter  handling: session-reset, treat-as-withdraw, attribute-discard, afi-safi-disable
//	authbgpd_peer_receive_panics_total{peer}     counter  recovered panics of GoBGP's receive path
//	authbgpd_peer_max_prefixes_exceeded_total{peer} counter  sessions closed for max-prefixes (Cease/1)
//	authbgpd_shadow_capture_running              gauge    1 while the shadow's capture runs (ReadCaptureRunning)
//	authbgpd_kernel_tcp_md5_drops_total{reason}  counter  the kernel's TcpExt TCPMD5* (ReadKernelDrops)
//	authbgpd_kernel_tcp_ao_algorithm{algorithm}  gauge    1 the kernel accepts the keychain algorithm, 0 it refused it (ReadAOAlgorithms)
//	authbgpd_gobgp_loop_last_answer_age_seconds  gauge    since GoBGP's main loop last answered (ReadGoBGPLoop)
//	authbgpd_gobgp_loop_stalled                  gauge    1 while /healthz and /livez say it is stalled (ReadGoBGPLoop)
//
// Every method is safe for concurrent use, and a nil *Metrics is valid: its
// methods do nothing, so packages can be tested without metrics.
//
// The shadow checker counts every segment. It should take the per-peer
// counters once with SegmentCounters and increment their fields: that costs
// one atomic add and no allocation, with no label lookup.
package metrics

import (
	"net/http"
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Verdicts of a TCP segment checked by the shadow checker: the values of
// the verdict label of authbgpd_md5_segments_total. They are the key names
// of status.Segments.
const (
	SegmentValid      = "valid"      // signed with the peer's key
	SegmentBadDigest  = "bad_digest" // signed, not with our key
	SegmentMissing    = "missing"    // we have a key, the segment is not signed
	SegmentUnexpected = "unexpected" // signed, and we have no key for the peer
)

// Verdicts of a TCP segment the shadow checker verified for TCP-AO: the
// values of the verdict label of authbgpd_tcpao_segments_total, beside
// SegmentValid, SegmentMissing and SegmentUnexpected. They are the key
// names of status.Segments.
const (
	SegmentBadMAC      = "bad_mac"      // a TCP-AO MAC our key of that KeyID does not give
	SegmentUnknownKey  = "unknown_key"  // a KeyID none of the peer's keys receives
	SegmentNoHandshake = "no_handshake" // the connection began before the capture: no traffic keys
)

// Verdicts of an SRH HMAC check: the values of the verdict label of
// authbgpd_srh_hmac_total.
const (
	HMACValid      = "valid"
	HMACInvalid    = "invalid"
	HMACNoHMAC     = "no_hmac"
	HMACUnknownKey = "unknown_key"
)

// Results of a configuration reload: the values of the result label of
// authbgpd_config_reloads_total.
const (
	ReloadOK    = "ok"
	ReloadError = "error"
)

// MaxSRHKeyIDs bounds the number of key_id label values of
// authbgpd_srh_hmac_total. Key IDs come off the wire (unknown_key), so a
// sender could otherwise create one series per ID it makes up; key IDs seen
// beyond the bound are counted under key_id="other".
const MaxSRHKeyIDs = 256

// OtherKeyID is the key_id label value of SRH HMAC verdicts counted once
// MaxSRHKeyIDs distinct key IDs have been seen.
const OtherKeyID = "other"

// Metrics is the set of authbgpd metrics and the registry that holds them.
type Metrics struct {
	reg     *prometheus.Registry
	handler http.Handler

	segments        *prometheus.CounterVec
	aoSegments      *prometheus.CounterVec
	peerUp          *prometheus.GaugeVec
	keyInstalled    *prometheus.GaugeVec
	keyChanges      *prometheus.CounterVec
	shadowDrops     prometheus.Counter
	srhHMAC         *prometheus.CounterVec
	policyInstalled *prometheus.GaugeVec
	reloads         *prometheus.CounterVec
	buildInfo       *prometheus.GaugeVec

	mu        sync.Mutex
	peers     map[string]*PeerCounters
	aoPeers   map[string]*AOCounters
	srh       map[string]*HMACCounters // by key_id label value
	readPeers func() ([]PeerState, error)
	upPeers   map[string]bool // peer_up series set by the last ReadPeers scrape
	aoKern    aoKernel        // authbgpd_tcp_ao_segments_total (tcpao_kernel.go)
}

// PeerCounters are the children of authbgpd_md5_segments_total for one
// peer, one per verdict. Incrementing a field is the hot path of the shadow
// checker: no label lookup, no allocation.
//
// After DeletePeer the counters are detached from the registry: increments
// still work but are no longer exposed. Take new ones with SegmentCounters
// when the peer is configured again.
type PeerCounters struct {
	Valid      prometheus.Counter
	BadDigest  prometheus.Counter
	Missing    prometheus.Counter
	Unexpected prometheus.Counter
}

// Add adds n to the counter of verdict (one of the Segment* constants) and
// reports whether verdict is known; an unknown verdict counts nothing.
func (c *PeerCounters) Add(verdict string, n uint64) bool {
	ctr := c.counter(verdict)
	if ctr == nil {
		return false
	}
	ctr.Add(float64(n))
	return true
}

func (c *PeerCounters) counter(verdict string) prometheus.Counter {
	switch verdict {
	case SegmentValid:
		return c.Valid
	case SegmentBadDigest:
		return c.BadDigest
	case SegmentMissing:
		return c.Missing
	case SegmentUnexpected:
		return c.Unexpected
	}
	return nil
}

// AOCounters are the children of authbgpd_tcpao_segments_total for one
// peer, one per verdict, used like PeerCounters.
type AOCounters struct {
	Valid       prometheus.Counter
	BadMAC      prometheus.Counter
	Missing     prometheus.Counter
	UnknownKey  prometheus.Counter
	Unexpected  prometheus.Counter
	NoHandshake prometheus.Counter
}

// Add adds n to the counter of verdict (SegmentValid, SegmentBadMAC,
// SegmentMissing, SegmentUnknownKey, SegmentUnexpected,
// SegmentNoHandshake) and reports whether verdict is known.
func (c *AOCounters) Add(verdict string, n uint64) bool {
	var ctr prometheus.Counter
	switch verdict {
	case SegmentValid:
		ctr = c.Valid
	case SegmentBadMAC:
		ctr = c.BadMAC
	case SegmentMissing:
		ctr = c.Missing
	case SegmentUnknownKey:
		ctr = c.UnknownKey
	case SegmentUnexpected:
		ctr = c.Unexpected
	case SegmentNoHandshake:
		ctr = c.NoHandshake
	default:
		return false
	}
	ctr.Add(float64(n))
	return true
}

// HMACCounters are the children of authbgpd_srh_hmac_total for one key ID,
// one per verdict.
type HMACCounters struct {
	Valid      prometheus.Counter
	Invalid    prometheus.Counter
	NoHMAC     prometheus.Counter
	UnknownKey prometheus.Counter
}

// Add adds n to the counter of verdict (one of the HMAC* constants) and
// reports whether verdict is known; an unknown verdict counts nothing.
func (c *HMACCounters) Add(verdict string, n uint64) bool {
	var ctr prometheus.Counter
	switch verdict {
	case HMACValid:
		ctr = c.Valid
	case HMACInvalid:
		ctr = c.Invalid
	case HMACNoHMAC:
		ctr = c.NoHMAC
	case HMACUnknownKey:
		ctr = c.UnknownKey
	default:
		return false
	}
	ctr.Add(float64(n))
	return true
}

// New returns the metrics on a new private registry, with the Go runtime
// and process collectors registered, and authbgpd_build_info set to 1.
// version is authbgpd's version, or its banner "authbgpd V (gobgp G, GO)"
// (`authbgpd version`), which is split into the three labels.
func New(version string) *Metrics {
	m := &Metrics{
		reg:     prometheus.NewRegistry(),
		peers:   make(map[string]*PeerCounters),
		aoPeers: make(map[string]*AOCounters),
		srh:     make(map[string]*HMACCounters),
		segments: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "authbgpd_md5_segments_total",
			Help: "BGP TCP segments checked by the shadow checker, by peer and TCP-MD5 verdict (valid, bad_digest, missing, unexpected).",
		}, []string{"peer", "verdict"}),
		aoSegments: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "authbgpd_tcpao_segments_total",
			Help: "BGP TCP segments of TCP-AO peers (and TCP-AO segments of unkeyed peers) checked by the shadow checker, by peer and TCP-AO verdict (valid, bad_mac, missing, unknown_key, unexpected, no_handshake).",
		}, []string{"peer", "verdict"}),
		peerUp: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "authbgpd_peer_up",
			Help: "Whether the BGP session with the peer is Established (1) or not (0).",
		}, []string{"peer"}),
		keyInstalled: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "authbgpd_md5_key_installed",
			Help: "Whether the peer's TCP-MD5 key is installed on its sockets (1) or not (0).",
		}, []string{"peer"}),
		keyChanges: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "authbgpd_md5_key_changes_total",
			Help: "TCP-MD5 key changes applied to the peer's sockets (configuration changes and keychain rollovers).",
		}, []string{"peer"}),
		shadowDrops: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "authbgpd_shadow_drops_total",
			Help: "Packets the shadow checker's capture dropped before they could be checked.",
		}),
		srhHMAC: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "authbgpd_srh_hmac_total",
			Help: "SRv6 packets whose SRH HMAC the shadow checker verified, by HMAC key ID and verdict (valid, invalid, no_hmac, unknown_key).",
		}, []string{"key_id", "verdict"}),
		policyInstalled: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "authbgpd_srv6_policy_installed",
			Help: "Whether the SR policy is installed in the kernel (1) or not (0).",
		}, []string{"name"}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "authbgpd_config_reloads_total",
			Help: "Configuration reloads, by result (ok, error).",
		}, []string{"result"}),
		buildInfo: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "authbgpd_build_info",
			Help: "Always 1; the labels name the running build: version (authbgpd's), gobgp (the embedded GoBGP's module version), go (the Go toolchain).",
		}, []string{"version", "gobgp", "go"}),
	}
	m.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.segments, m.aoSegments, peerCollector{m}, m.keyInstalled, m.keyChanges, m.shadowDrops,
		m.srhHMAC, m.policyInstalled, m.reloads, m.buildInfo,
	)
	m.buildInfo.WithLabelValues(splitBanner(version)).Set(1)
	// Both results exist from the start, so rate() and alerts on errors
	// work before the first reload.
	m.reloads.WithLabelValues(ReloadOK)
	m.reloads.WithLabelValues(ReloadError)
	m.handler = promhttp.InstrumentMetricHandler(m.reg, promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		Registry:          m.reg,
		ErrorHandling:     promhttp.ContinueOnError,
		EnableOpenMetrics: true,
	}))
	return m
}

// Registry returns the private registry holding the metrics.
func (m *Metrics) Registry() *prometheus.Registry {
	if m == nil {
		return nil
	}
	return m.reg
}

// Handler serves the registry in the Prometheus exposition formats. A nil
// *Metrics serves 404.
func (m *Metrics) Handler() http.Handler {
	if m == nil {
		return http.NotFoundHandler()
	}
	return m.handler
}

// SetPeerUp sets authbgpd_peer_up{peer}.
func (m *Metrics) SetPeerUp(peer string, up bool) {
	if m == nil {
		return
	}
	m.peerUp.WithLabelValues(peer).Set(b2f(up))
}

// SetKeyInstalled sets authbgpd_md5_key_installed{peer}. The peer's
// authbgpd_md5_key_changes_total starts at 0 then, so increase() sees its
// first change.
func (m *Metrics) SetKeyInstalled(peer string, installed bool) {
	if m == nil {
		return
	}
	m.keyInstalled.WithLabelValues(peer).Set(b2f(installed))
	m.keyChanges.WithLabelValues(peer)
}

// KeyChanged counts one TCP-MD5 key change of peer in
// authbgpd_md5_key_changes_total.
func (m *Metrics) KeyChanged(peer string) {
	if m == nil {
		return
	}
	m.keyChanges.WithLabelValues(peer).Inc()
}

// SegmentCounters returns the authbgpd_md5_segments_total counters of peer,
// creating its four series (at 0) the first time. The result is cached:
// every call for the same peer returns the same *PeerCounters until
// DeletePeer. On a nil *Metrics it returns counters that go nowhere.
func (m *Metrics) SegmentCounters(peer string) *PeerCounters {
	if m == nil {
		return discardPeer
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.peers[peer]; ok {
		return c
	}
	c := &PeerCounters{
		Valid:      m.segments.WithLabelValues(peer, SegmentValid),
		BadDigest:  m.segments.WithLabelValues(peer, SegmentBadDigest),
		Missing:    m.segments.WithLabelValues(peer, SegmentMissing),
		Unexpected: m.segments.WithLabelValues(peer, SegmentUnexpected),
	}
	m.peers[peer] = c
	return c
}

// TCPAOSegmentCounters returns the authbgpd_tcpao_segments_total counters
// of peer, creating its six series (at 0) the first time, cached like
// SegmentCounters until DeletePeer. On a nil *Metrics it returns counters
// that go nowhere.
func (m *Metrics) TCPAOSegmentCounters(peer string) *AOCounters {
	if m == nil {
		return discardAO
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.aoPeers[peer]; ok {
		return c
	}
	c := &AOCounters{
		Valid:       m.aoSegments.WithLabelValues(peer, SegmentValid),
		BadMAC:      m.aoSegments.WithLabelValues(peer, SegmentBadMAC),
		Missing:     m.aoSegments.WithLabelValues(peer, SegmentMissing),
		UnknownKey:  m.aoSegments.WithLabelValues(peer, SegmentUnknownKey),
		Unexpected:  m.aoSegments.WithLabelValues(peer, SegmentUnexpected),
		NoHandshake: m.aoSegments.WithLabelValues(peer, SegmentNoHandshake),
	}
	m.aoPeers[peer] = c
	return c
}

// AddSegments adds n to authbgpd_md5_segments_total{peer,verdict}. verdict
// is one of the Segment* constants; an unknown verdict counts nothing (and
// AddSegments reports false). Per-segment callers should use
// SegmentCounters instead.
func (m *Metrics) AddSegments(peer, verdict string, n uint64) bool {
	return m.SegmentCounters(peer).Add(verdict, n)
}

// DeletePeer removes every series labelled with peer (segments, peer_up,
// key_installed, key_changes, TCP-AO segments) when the peer is
// deconfigured, and forgets its cached SegmentCounters and
// TCPAOSegmentCounters.
func (m *Metrics) DeletePeer(peer string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	delete(m.peers, peer)
	delete(m.aoPeers, peer)
	m.segments.DeletePartialMatch(prometheus.Labels{"peer": peer})
	m.aoSegments.DeletePartialMatch(prometheus.Labels{"peer": peer})
	m.mu.Unlock()
	m.peerUp.DeleteLabelValues(peer)
	m.keyInstalled.DeleteLabelValues(peer)
	m.keyChanges.DeleteLabelValues(peer)
	m.deleteTCPAOKernel(peer)
}

// AddShadowDrops adds n to authbgpd_shadow_drops_total (packets the capture
// ring dropped, as the kernel reports them).
func (m *Metrics) AddShadowDrops(n uint64) {
	if m == nil {
		return
	}
	m.shadowDrops.Add(float64(n))
}

// SRHCounters returns the authbgpd_srh_hmac_total counters of keyID,
// creating its four series (at 0) the first time, cached like
// SegmentCounters. Past MaxSRHKeyIDs distinct key IDs, new IDs share the
// counters of key_id="other".
func (m *Metrics) SRHCounters(keyID uint32) *HMACCounters {
	if m == nil {
		return discardHMAC
	}
	label := strconv.FormatUint(uint64(keyID), 10)
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.srh[label]; ok {
		return c
	}
	if len(m.srh) >= MaxSRHKeyIDs {
		label = OtherKeyID
		if c, ok := m.srh[label]; ok {
			return c
		}
	}
	c := &HMACCounters{
		Valid:      m.srhHMAC.WithLabelValues(label, HMACValid),
		Invalid:    m.srhHMAC.WithLabelValues(label, HMACInvalid),
		NoHMAC:     m.srhHMAC.WithLabelValues(label, HMACNoHMAC),
		UnknownKey: m.srhHMAC.WithLabelValues(label, HMACUnknownKey),
	}
	m.srh[label] = c
	return c
}

// AddSRHHMAC adds n to authbgpd_srh_hmac_total{key_id,verdict}. verdict is
// one of the HMAC* constants; an unknown verdict counts nothing (and
// AddSRHHMAC reports false). For packets without an HMAC TLV there is no
// key ID: count them under key ID 0.
func (m *Metrics) AddSRHHMAC(keyID uint32, verdict string, n uint64) bool {
	return m.SRHCounters(keyID).Add(verdict, n)
}

// DeleteSRHKey removes the authbgpd_srh_hmac_total series of keyID (a key
// that was deconfigured) and forgets its cached counters.
func (m *Metrics) DeleteSRHKey(keyID uint32) {
	if m == nil {
		return
	}
	label := strconv.FormatUint(uint64(keyID), 10)
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.srh[label]; !ok {
		return
	}
	delete(m.srh, label)
	m.srhHMAC.DeletePartialMatch(prometheus.Labels{"key_id": label})
}

// SetPolicyInstalled sets authbgpd_srv6_policy_installed{name}.
func (m *Metrics) SetPolicyInstalled(name string, installed bool) {
	if m == nil {
		return
	}
	m.policyInstalled.WithLabelValues(name).Set(b2f(installed))
}

// DeletePolicy removes the authbgpd_srv6_policy_installed series of name.
func (m *Metrics) DeletePolicy(name string) {
	if m == nil {
		return
	}
	m.policyInstalled.DeleteLabelValues(name)
}

// ConfigReloaded counts a configuration reload in
// authbgpd_config_reloads_total: result "ok" when err is nil, else "error".
func (m *Metrics) ConfigReloaded(err error) {
	if m == nil {
		return
	}
	if err != nil {
		m.reloads.WithLabelValues(ReloadError).Inc()
		return
	}
	m.reloads.WithLabelValues(ReloadOK).Inc()
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Counters handed out by a nil *Metrics: registered nowhere.
var (
	discardPeer = &PeerCounters{
		Valid:      prometheus.NewCounter(prometheus.CounterOpts{Name: "discard"}),
		BadDigest:  prometheus.NewCounter(prometheus.CounterOpts{Name: "discard"}),
		Missing:    prometheus.NewCounter(prometheus.CounterOpts{Name: "discard"}),
		Unexpected: prometheus.NewCounter(prometheus.CounterOpts{Name: "discard"}),
	}
	discardAO = &AOCounters{
		Valid:       prometheus.NewCounter(prometheus.CounterOpts{Name: "discard"}),
		BadMAC:      prometheus.NewCounter(prometheus.CounterOpts{Name: "discard"}),
		Missing:     prometheus.NewCounter(prometheus.CounterOpts{Name: "discard"}),
		UnknownKey:  prometheus.NewCounter(prometheus.CounterOpts{Name: "discard"}),
		Unexpected:  prometheus.NewCounter(prometheus.CounterOpts{Name: "discard"}),
		NoHandshake: prometheus.NewCounter(prometheus.CounterOpts{Name: "discard"}),
	}
	discardHMAC = &HMACCounters{
		Valid:      prometheus.NewCounter(prometheus.CounterOpts{Name: "discard"}),
		Invalid:    prometheus.NewCounter(prometheus.CounterOpts{Name: "discard"}),
		NoHMAC:     prometheus.NewCounter(prometheus.CounterOpts{Name: "discard"}),
		UnknownKey: prometheus.NewCounter(prometheus.CounterOpts{Name: "discard"}),
	}
)
