package speaker

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/md5auth/shadow"
	"github.com/authbgp/authbgpd/md5auth/shadow/capture"
	"github.com/authbgp/authbgpd/md5auth/shadow/frame"
	"github.com/authbgp/authbgpd/metrics"
	"github.com/authbgp/authbgpd/plugin"
	"github.com/authbgp/authbgpd/status"
)

// logEvery rate-limits diagnosis log lines per remote address.
const logEvery = 10 * time.Second

// shadowRun is the live shadow checker: an AF_PACKET capture feeding a
// shadow.Checker. It is a plugin, started after GoBGP; failing to capture
// (no CAP_NET_RAW) is reported in /status and the log but does not stop
// BGP.
type shadowRun struct {
	log      *logrus.Entry
	metrics  *metrics.Metrics
	follow   func(peerID string, keyID int) error
	keyIDs   func() map[string]int // the keychain key the peers manager decided, per peer
	endStale func(addr netip.Addr, remote netip.AddrPort, why string) error
	chk      *shadow.Checker
	ifaces   []string
	port     uint16
	followOn atomic.Bool
	srh      *srhVerifier // SRv6 SRH HMACs (srv6.go)

	cap       *capture.Capture
	done      chan struct{}
	err       atomic.Value // string
	truncated atomic.Uint64

	mu       sync.Mutex
	lastLog  map[string]time.Time
	supp     map[string]int
	held     map[string]shadow.PeerReport // latest change suppressed by the rate limit
	timers   map[string]*time.Timer       // logs held[key] when the interval ends
	stats    capture.Stats
	counters map[string]*metrics.PeerCounters
	// followErr is the last follow-peer-rollover refusal logged per peer
	// (so a standing refusal is logged once, not every second).
	followErr map[string]string
	stopTick  chan struct{}
	tickDone  chan struct{}
}

func newShadow(cfg *config.Config, log *logrus.Logger, m *metrics.Metrics, follow func(string, int) error) *shadowRun {
	s := &shadowRun{
		log:       log.WithField("component", "shadow"),
		metrics:   m,
		follow:    follow,
		ifaces:    cfg.Shadow.Interfaces,
		port:      179,
		lastLog:   map[string]time.Time{},
		supp:      map[string]int{},
		held:      map[string]shadow.PeerReport{},
		timers:    map[string]*time.Timer{},
		counters:  map[string]*metrics.PeerCounters{},
		followErr: map[string]string{},
	}
	if cfg.Global.ListenPort > 0 {
		s.port = uint16(cfg.Global.ListenPort)
	}
	s.followOn.Store(cfg.Shadow.FollowPeerRollover)
	s.err.Store("")
	s.srh = newSRHVerifier(cfg, m, s.log)
	s.chk = shadow.New(ShadowPeers(cfg), shadow.Options{
		Port:       s.port,
		OnChange:   s.onChange,
		OnRollover: s.onRollover,
		OnSegment:  s.onSegment,
		OnStale:    s.onStale,
	})
	return s
}

func (s *shadowRun) Name() string { return "shadow" }

func (s *shadowRun) Start(ctx context.Context, _ *plugin.Host) error {
	// With SRv6 HMAC keys configured, SRv6 packets are captured too.
	c, err := capture.Open(capture.Options{Interfaces: s.ifaces, Port: s.port, SRv6: s.srh.enabled()})
	if err != nil {
		s.err.Store(err.Error())
		s.log.WithError(err).Error("shadow checker cannot capture: signatures on the wire are not verified")
		return nil
	}
	s.cap = c
	s.done = make(chan struct{})
	go s.loop()
	s.stopTick, s.tickDone = make(chan struct{}), make(chan struct{})
	go s.tick()
	s.log.WithField("interfaces", s.ifaces).Info("shadow checker capturing BGP segments")
	return nil
}

func (s *shadowRun) Stop(ctx context.Context) error {
	if s.cap == nil {
		return nil
	}
	close(s.stopTick)
	<-s.tickDone
	err := s.cap.Close()
	<-s.done
	s.mu.Lock()
	for k, t := range s.timers {
		t.Stop()
		delete(s.timers, k)
	}
	s.mu.Unlock()
	return err
}

// loop reads the ring until Close.
func (s *shadowRun) loop() {
	defer close(s.done)
	var tcp frame.TCP
	handle := func(pkt capture.Packet) {
		if pkt.Truncated {
			s.truncated.Add(1)
			return
		}
		err := frame.DecodeTCP(pkt.LinkType, pkt.Data, &tcp)
		if tcp.SRH != nil && (err == nil || errors.Is(err, frame.ErrNotTCP)) {
			s.srh.check(tcp.Src, tcp.SRH, pkt.Outgoing)
		}
		if err != nil {
			return
		}
		s.chk.Check(tcp.Src, tcp.Dst, tcp.SrcPort, tcp.DstPort, tcp.Segment, pkt.Time)
	}
	lastStats := time.Now()
	for {
		err := s.cap.Next(handle)
		if errors.Is(err, capture.ErrClosed) {
			return
		}
		if err != nil {
			s.err.Store(err.Error())
			s.log.WithError(err).Error("shadow capture failed")
			return
		}
		if time.Since(lastStats) > time.Second {
			s.pollStats()
			lastStats = time.Now()
		}
	}
}

// pollStats moves the kernel's drop counts into metrics.
func (s *shadowRun) pollStats() {
	if s.cap == nil {
		return
	}
	st, err := s.cap.Stats()
	if err != nil {
		return
	}
	s.mu.Lock()
	if d := st.Drops - s.stats.Drops; d > 0 {
		s.metrics.AddShadowDrops(d)
	}
	s.stats = st
	s.mu.Unlock()
}

func (s *shadowRun) onSegment(peerID string, r shadow.Result) {
	if r.Outgoing {
		return
	}
	c := s.counters[peerID] // called under the checker's lock: one caller at a time
	if c == nil {
		c = s.metrics.SegmentCounters(peerID)
		s.counters[peerID] = c
	}
	if c == nil {
		return
	}
	switch r.Verdict {
	case shadow.Valid:
		c.Valid.Inc()
	case shadow.BadDigest:
		c.BadDigest.Inc()
	case shadow.Missing:
		c.Missing.Inc()
	case shadow.Unexpected:
		c.Unexpected.Inc()
	}
}

func (s *shadowRun) onChange(r shadow.PeerReport) {
	key := r.Address.String()
	s.mu.Lock()
	now := time.Now()
	if t, ok := s.lastLog[key]; ok && now.Sub(t) < logEvery {
		// Held, not dropped: the latest diagnosis is logged when the
		// interval ends, so the log's last word is the current state.
		s.supp[key]++
		s.held[key] = r
		if s.timers[key] == nil {
			s.timers[key] = time.AfterFunc(t.Add(logEvery).Sub(now), func() { s.flushHeld(key) })
		}
		s.mu.Unlock()
		return
	}
	delete(s.held, key)
	supp := s.supp[key]
	s.lastLog[key], s.supp[key] = now, 0
	s.mu.Unlock()
	f := logrus.Fields{
		"peer": key, "configured": r.PeerID, "diagnosis": r.Diagnosis,
		"valid": r.Received.Valid, "bad_digest": r.Received.BadDigest,
		"missing": r.Received.Missing, "unexpected": r.Received.Unexpected,
	}
	if r.PeerKeyID != nil {
		f["peer_key_id"] = *r.PeerKeyID
	}
	if supp > 0 {
		f["suppressed_changes"] = supp
	}
	e := s.log.WithFields(f)
	msg := "shadow diagnosis: " + explain(r.Diagnosis)
	if r.Diagnosis == shadow.DiagOK {
		e.Info(msg)
	} else {
		e.Warn(msg)
	}
}

// flushHeld logs the change the rate limit held back for key.
func (s *shadowRun) flushHeld(key string) {
	s.mu.Lock()
	r, ok := s.held[key]
	delete(s.held, key)
	delete(s.timers, key)
	s.mu.Unlock()
	if ok {
		s.onChange(r)
	}
}

// explain says in words what a diagnosis means to the operator.
func explain(d string) string {
	switch d {
	case shadow.DiagOK:
		return "ok: the peer signs with our key"
	case shadow.DiagBadDigest:
		return "bad-digest: the peer signs, but not with our key (wrong key on one side)"
	case shadow.DiagMissing:
		return "missing: we require a TCP-MD5 signature and the peer sends none (no password on the peer)"
	case shadow.DiagUnexpected:
		return "unexpected: the peer signs but we hold no key for it (password only on the peer)"
	case shadow.DiagOtherKey:
		return "other-key: the peer signs with another key of our keychain"
	}
	return d
}

func (s *shadowRun) onRollover(peerID string, keyID int) {
	if !s.followOn.Load() || s.follow == nil {
		s.log.WithFields(logrus.Fields{"peer": peerID, "peer_key_id": keyID}).Warn("peer proven on a newer keychain key; follow-peer-rollover is off")
		return
	}
	// Off the capture goroutine: switching keys touches GoBGP.
	go s.propose(peerID, keyID)
}

// tick re-reads the checker's standing facts every second: a peer proven
// on a newer key is proposed to the peers manager for as long as it stays
// proven and follow-peer-rollover is on (so switching the option on by a
// reload acts on a proof made while it was off).
func (s *shadowRun) tick() {
	defer close(s.tickDone)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-s.stopTick:
			return
		case <-t.C:
			s.followProven()
		}
	}
}

// followProven proposes every proven newer key that is not in use yet.
func (s *shadowRun) followProven() {
	if !s.followOn.Load() || s.follow == nil {
		return
	}
	var inUse map[string]int
	if s.keyIDs != nil {
		inUse = s.keyIDs()
	}
	done := map[string]bool{}
	for _, r := range s.chk.Reports(time.Now()) {
		if r.ProvenKeyID == nil || done[r.PeerID] {
			continue
		}
		if id, ok := inUse[r.PeerID]; ok && id == *r.ProvenKeyID {
			continue
		}
		done[r.PeerID] = true
		s.propose(r.PeerID, *r.ProvenKeyID)
	}
}

// propose hands the peers manager, which decides, a key the peer is proven
// to use.
func (s *shadowRun) propose(peerID string, keyID int) {
	err := s.follow(peerID, keyID)
	s.mu.Lock()
	last := s.followErr[peerID]
	if err != nil {
		s.followErr[peerID] = err.Error()
	} else {
		delete(s.followErr, peerID)
	}
	s.mu.Unlock()
	if err != nil {
		if err.Error() != last {
			s.log.WithError(err).WithField("peer", peerID).Warn("follow-peer-rollover: key not switched")
		}
		return
	}
	s.chk.Pin(peerID, keyID)
	s.log.WithFields(logrus.Fields{"peer": peerID, "key_id": keyID}).Info("follow-peer-rollover: switched to the key the peer is proven to use")
}

// onStale ends a session the checker proved stale (off the checker's
// goroutine: it touches GoBGP).
func (s *shadowRun) onStale(peerID string, addr netip.Addr, port uint16) {
	if s.endStale == nil {
		return
	}
	go func() {
		why := fmt.Sprintf("segments of the session's connection (peer port %d) stopped verifying and %s opened a new connection signed with our key", port, addr)
		if err := s.endStale(addr, netip.AddrPortFrom(addr, port), why); err != nil {
			s.log.WithError(err).WithField("peer", addr).Error("cannot end the stale session")
		}
	}()
}

// reload gives the checker the new peers and keys.
func (s *shadowRun) reload(cfg *config.Config) {
	s.followOn.Store(cfg.Shadow.FollowPeerRollover)
	s.chk.SetPeers(ShadowPeers(cfg))
	s.srh.setKeys(cfg, s.log)
	s.mu.Lock()
	s.followErr = map[string]string{}
	s.mu.Unlock()
}

// reports returns the checker's reports by address.
func (s *shadowRun) reports() map[string]shadow.PeerReport {
	out := map[string]shadow.PeerReport{}
	for _, r := range s.chk.Reports(time.Now()) {
		out[r.Address.String()] = r
	}
	return out
}

// status is the capture part of /status.
func (s *shadowRun) status() *status.Capture {
	s.pollStats()
	s.mu.Lock()
	st := s.stats
	s.mu.Unlock()
	ifs := s.ifaces
	if ifs == nil {
		ifs = []string{}
	}
	return &status.Capture{
		Running: s.cap != nil, Interfaces: ifs, Packets: st.Packets, Drops: st.Drops,
		Truncated: s.truncated.Load(), Error: s.err.Load().(string),
	}
}
