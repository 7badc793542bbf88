package metrics

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// Directions of authbgpd_peer_prefixes: the values of its direction label.
const (
	PrefixesReceived = "received" // in the peer's Adj-RIB-In
	PrefixesAccepted = "accepted" // received and accepted by import policy
	PrefixesSent     = "sent"     // in the peer's Adj-RIB-Out
)

// PeerState is one configured peer (a static address, or a dynamic range
// with its accepted sessions summed) as GoBGP holds it at a scrape.
type PeerState struct {
	Peer     string // the peer's ID: its address, or the range's prefix
	Up       bool   // a session is Established (for a range: at least one)
	Prefixes []FamilyPrefixes
	// Malformed counts the peer's messages GoBGP found malformed, since
	// the daemon started (a range: its current sessions').
	Malformed PeerMalformed
	// MaxPrefixesExceeded counts the sessions closed because the peer
	// sent more prefixes than its max-prefixes (a range: its sessions),
	// since the daemon started.
	MaxPrefixesExceeded uint64
}

// PeerMalformed counts a peer's malformed messages.
type PeerMalformed struct {
	Updates    uint64            // malformed UPDATEs
	ByHandling map[string]uint64 // all malformed messages, by what was done (session-reset, treat-as-withdraw, ...)
	Panics     uint64            // recovered panics of GoBGP's receive path
}

// FamilyPrefixes are a peer's prefix counts in one address family.
type FamilyPrefixes struct {
	Family                   string // ipv4-unicast, ipv6-unicast, ipv4-srpolicy, ipv6-srpolicy
	Received, Accepted, Sent uint64
}

// MalformedHandlings are the values of the handling label of
// authbgpd_peer_malformed_messages_total, each exposed from the first
// scrape (RFC 7606's handlings, and the session reset of RFC 4271).
var MalformedHandlings = []string{"session-reset", "treat-as-withdraw", "attribute-discard", "afi-safi-disable"}

// The malformed messages' counters: cumulative since the daemon started,
// read at each scrape (status.Peer.Malformed).
var (
	malformedUpdatesDesc = prometheus.NewDesc("authbgpd_peer_malformed_updates_total",
		"UPDATEs from the peer that GoBGP found malformed (RFC 7606: treat-as-withdraw, attribute discard, AFI/SAFI disable, or a session reset), since the daemon started.",
		[]string{"peer"}, nil)
	malformedMessagesDesc = prometheus.NewDesc("authbgpd_peer_malformed_messages_total",
		"Messages of any type from the peer that GoBGP found malformed, by what was done: session-reset, treat-as-withdraw, attribute-discard, afi-safi-disable.",
		[]string{"peer", "handling"}, nil)
	receivePanicsDesc = prometheus.NewDesc("authbgpd_peer_receive_panics_total",
		"Messages from the peer whose processing panicked inside GoBGP (a bug: recovered, and only this peer's session was reset), since the daemon started.",
		[]string{"peer"}, nil)
	maxPrefixesExceededDesc = prometheus.NewDesc("authbgpd_peer_max_prefixes_exceeded_total",
		"Sessions closed with a Cease NOTIFICATION, subcode 1 (maximum number of prefixes reached), because the peer sent more prefixes in a family than its max-prefixes (a dynamic range: its sessions), since the daemon started.",
		[]string{"peer"}, nil)
)

// prefixesDesc is authbgpd_peer_prefixes{peer,family,direction}.
var prefixesDesc = prometheus.NewDesc("authbgpd_peer_prefixes",
	"Prefixes of the peer in an address family, by direction: received (Adj-RIB-In), accepted (by import policy), sent (Adj-RIB-Out). A dynamic range sums its sessions. Read from GoBGP at each scrape.",
	[]string{"peer", "family", "direction"}, nil)

// peerCollector refreshes authbgpd_peer_up from read at each scrape (every
// configured peer, 0 or 1; the series of a peer no longer configured go)
// and emits authbgpd_peer_prefixes.
type peerCollector struct{ m *Metrics }

func (c peerCollector) Describe(ch chan<- *prometheus.Desc) {
	c.m.peerUp.Describe(ch)
	ch <- prefixesDesc
	ch <- malformedUpdatesDesc
	ch <- malformedMessagesDesc
	ch <- receivePanicsDesc
	ch <- maxPrefixesExceededDesc
}

func (c peerCollector) Collect(ch chan<- prometheus.Metric) {
	c.m.mu.Lock()
	read := c.m.readPeers
	c.m.mu.Unlock()
	if read == nil {
		c.m.peerUp.Collect(ch)
		return
	}
	peers, err := read()
	if err != nil {
		// The last known values stay; the scrape reports the error.
		c.m.peerUp.Collect(ch)
		ch <- prometheus.NewInvalidMetric(prefixesDesc, err)
		return
	}
	c.m.syncPeerUp(peers)
	c.m.peerUp.Collect(ch)
	for _, p := range peers {
		for _, f := range p.Prefixes {
			ch <- prometheus.MustNewConstMetric(prefixesDesc, prometheus.GaugeValue, float64(f.Received), p.Peer, f.Family, PrefixesReceived)
			ch <- prometheus.MustNewConstMetric(prefixesDesc, prometheus.GaugeValue, float64(f.Accepted), p.Peer, f.Family, PrefixesAccepted)
			ch <- prometheus.MustNewConstMetric(prefixesDesc, prometheus.GaugeValue, float64(f.Sent), p.Peer, f.Family, PrefixesSent)
		}
		mf := p.Malformed
		ch <- prometheus.MustNewConstMetric(malformedUpdatesDesc, prometheus.CounterValue, float64(mf.Updates), p.Peer)
		ch <- prometheus.MustNewConstMetric(receivePanicsDesc, prometheus.CounterValue, float64(mf.Panics), p.Peer)
		ch <- prometheus.MustNewConstMetric(maxPrefixesExceededDesc, prometheus.CounterValue, float64(p.MaxPrefixesExceeded), p.Peer)
		for _, h := range MalformedHandlings {
			ch <- prometheus.MustNewConstMetric(malformedMessagesDesc, prometheus.CounterValue, float64(mf.ByHandling[h]), p.Peer, h)
		}
	}
}

// syncPeerUp sets authbgpd_peer_up of every peer in peers and deletes the
// series of peers set before that are not in peers any more.
func (m *Metrics) syncPeerUp(peers []PeerState) {
	m.mu.Lock()
	defer m.mu.Unlock()
	seen := make(map[string]bool, len(peers))
	for _, p := range peers {
		seen[p.Peer] = true
		m.peerUp.WithLabelValues(p.Peer).Set(b2f(p.Up))
	}
	for id := range m.upPeers {
		if !seen[id] {
			m.peerUp.DeleteLabelValues(id)
		}
	}
	m.upPeers = seen
}

// ReadPeers makes authbgpd_peer_up{peer} and
// authbgpd_peer_prefixes{peer,family,direction} read the configured peers'
// state with read at every scrape (call it once): every configured peer
// then has peer_up from the first scrape, 0 until it is Established, and a
// peer removed from the config loses its series. SetPeerUp still works
// between scrapes.
func (m *Metrics) ReadPeers(read func() ([]PeerState, error)) error {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.readPeers != nil {
		return errors.New("metrics: ReadPeers called twice")
	}
	m.readPeers = read
	return nil
}

// ReadCaptureRunning makes authbgpd_shadow_capture_running read running
// at every scrape (call it once, when [shadow] is on): 1 while the shadow
// checker's capture runs, 0 when it could not start (no CAP_NET_RAW, no
// such interface).
func (m *Metrics) ReadCaptureRunning(running func() bool) error {
	if m == nil {
		return nil
	}
	return m.reg.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "authbgpd_shadow_capture_running",
		Help: "Whether the shadow checker's packet capture is running (1) or not (0: no CAP_NET_RAW, no such interface); absent when [shadow] is off.",
	}, func() float64 { return b2f(running()) }))
}
