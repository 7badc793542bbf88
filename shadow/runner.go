package shadow

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/capture"
	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/metrics"
	"github.com/authbgp/authbgpd/peerindex"
	"github.com/authbgp/authbgpd/status"
)

// logEvery rate-limits diagnosis log lines per remote address.
const logEvery = 10 * time.Second

// Runner is the live shadow checker: AF_PACKET captures feeding Checkers,
// one pair per worker. With several workers the kernel spreads the frames
// over the workers' rings by address pair (capture.OpenFanout), so each
// worker's checker holds all the state of the pairs it owns and the
// workers share nothing on the per-segment path; Reports merges their
// views per address. It is a plugin, started after GoBGP; failing to capture
// (no CAP_NET_RAW) is reported in /status and the log but does not stop
// BGP.
//
// In on-demand mode ([shadow] mode = "on-demand") it runs one checker and
// opens no capture until Demand asks for a peer's segments (ondemand.go).
type Runner struct {
	log      *logrus.Entry
	metrics  *metrics.Metrics
	follow   func(peerID string, keyID int) error
	endStale func(addr netip.Addr, remote netip.AddrPort, why string) error
	chks     []*Checker // one per worker
	ifaces   []string
	port     uint16
	followOn atomic.Bool
	srh      SRHChecker
	mode     config.ShadowMode // ShadowAlways or ShadowOnDemand
	od       *onDemand         // on-demand mode's state; nil in mode always

	capMu     sync.RWMutex       // guards caps (on demand, captures come and go)
	caps      []*capture.Capture // one per worker, nil until Start (on demand: while capturing)
	started   bool               // Start ran (the tick runs)
	wg        sync.WaitGroup     // the workers' loops
	srhMu     sync.Mutex         // srh.Check runs on one goroutine at a time
	statsMu   sync.Mutex         // one pollStats at a time
	statsBase capture.Stats      // final counters of closed on-demand captures (statsMu)
	err       atomic.Value       // string
	truncated atomic.Uint64

	mu      sync.Mutex
	lastLog map[string]time.Time
	supp    map[string]int
	held    map[string]PeerReport  // latest change suppressed by the rate limit
	timers  map[string]*time.Timer // logs held[key] when the interval ends
	stats   capture.Stats
	// followErr is the last follow-peer-rollover refusal logged per peer
	// (so a standing refusal is logged once, not every second).
	followErr map[string]string
	stopTick  chan struct{}
	tickDone  chan struct{}
	hist      history // diagnosis changes per address (history.go)

	// What Apply last applied of the peers manager's snapshots (applyMu):
	// the key told in use per peer ID, the session port per address.
	applyMu  sync.Mutex
	pinned   map[string]int
	sessPort map[netip.Addr]uint16
	snap     atomic.Pointer[peerindex.Snapshot]
}

// SRHChecker verifies the SRv6 SRH HMACs the capture sees (package srv6
// has the keys). Check runs on the capture goroutine only.
type SRHChecker interface {
	// Enabled reports whether any SRv6 HMAC key is configured: only then
	// are SRv6 packets captured.
	Enabled() bool
	Check(src netip.Addr, srh []byte, outgoing bool)
}

// RunnerOptions connect a Runner to the rest of the daemon. All are
// optional.
type RunnerOptions struct {
	// Follow proposes a keychain key a peer is proven to sign with (the
	// peers manager decides, and its next snapshot, Apply, says whether it
	// is in use); nil: follow-peer-rollover cannot act.
	Follow func(peerID string, keyID int) error
	// EndStale ends a session the checker proved stale.
	EndStale func(addr netip.Addr, remote netip.AddrPort, why string) error
	// SRH verifies captured SRHs; nil: SRv6 packets are not looked at.
	SRH SRHChecker
}

// noSRH is the SRHChecker of a daemon without SRv6 HMAC keys.
type noSRH struct{}

func (noSRH) Enabled() bool                  { return false }
func (noSRH) Check(netip.Addr, []byte, bool) {}

// NewRunner makes the live checker of x's peers (and x's config's
// [shadow]), with the segment series of its keyed peers at 0; Start (a
// plugin method) opens the capture.
func NewRunner(x *peerindex.Index, log *logrus.Logger, m *metrics.Metrics, o RunnerOptions) *Runner {
	cfg := x.Config()
	s := &Runner{
		log:       log.WithField("component", "shadow"),
		metrics:   m,
		follow:    o.Follow,
		endStale:  o.EndStale,
		srh:       o.SRH,
		ifaces:    cfg.Shadow.Interfaces,
		port:      179,
		lastLog:   map[string]time.Time{},
		supp:      map[string]int{},
		held:      map[string]PeerReport{},
		timers:    map[string]*time.Timer{},
		followErr: map[string]string{},
	}
	if cfg.Global.ListenPort > 0 {
		s.port = uint16(cfg.Global.ListenPort)
	}
	s.followOn.Store(cfg.Shadow.FollowPeerRollover)
	s.err.Store("")
	if s.srh == nil {
		s.srh = noSRH{}
	}
	peers := PeersOf(x)
	workers, idle := cfg.Shadow.WorkerCount(), time.Duration(0)
	s.mode = config.ShadowAlways
	if cfg.Shadow.EffectiveMode() == config.ShadowOnDemand {
		// One ring and checker for the few peers demanded at a time;
		// the Runner applies the idle rule itself, counting only the
		// time an address was being captured (demandClocks).
		s.mode, workers, idle = config.ShadowOnDemand, 1, -1
		s.od = &onDemand{book: newDemandBook(cfg.Shadow.Window(), cfg.Shadow.SegmentLimit()), ns: noNS}
		s.od.expire = s.expireDemands
	}
	for range workers {
		// Each checker's segment counters are its own (OnSegment runs
		// under its lock); the series behind them are shared.
		counters := &segmentCounters{md5: map[string]*metrics.PeerCounters{}, ao: map[string]*metrics.AOCounters{}}
		s.chks = append(s.chks, New(peers, Options{
			Port:       s.port,
			OnChange:   s.onChange,
			OnRollover: s.onRollover,
			OnSegment:  func(peerID string, r Result) { s.onSegment(counters, peerID, r) },
			OnStale:    s.onStale,
			IdleAfter:  idle,
		}))
	}
	s.segmentSeries(x)
	return s
}

// Workers is the number of capture rings and checkers: running once
// started (one if the kernel could not spread the capture), configured
// before.
func (s *Runner) Workers() int {
	s.capMu.RLock()
	defer s.capMu.RUnlock()
	if s.caps != nil {
		return len(s.caps)
	}
	return len(s.chks)
}

// Mode is the Runner's mode: config.ShadowAlways or config.ShadowOnDemand
// (fixed when it is made).
func (s *Runner) Mode() config.ShadowMode { return s.mode }

func (s *Runner) Name() string { return "shadow" }

// Start implements plugin.Service: it starts the captures (or, on demand,
// the tick that ends demanded windows).
func (s *Runner) Start(ctx context.Context) error {
	if s.od != nil {
		// On demand: no capture now (Demand opens one). SRv6 packets
		// are not captured (their HMACs are not verified).
		s.startOnDemand()
		s.startTick()
		return nil
	}
	// With SRv6 HMAC keys configured, SRv6 packets are captured too.
	o := capture.Options{Interfaces: s.ifaces, Port: s.port, SRv6: s.srh.Enabled()}
	caps, err := capture.OpenFanout(o, len(s.chks))
	if errors.Is(err, capture.ErrFanout) {
		// A kernel without classic BPF fanout or unique group ids: one
		// ring still checks every segment, on one CPU.
		s.log.WithError(err).WithField("workers", len(s.chks)).Warn("shadow checker cannot spread the capture over several rings: running one worker")
		caps, err = capture.OpenFanout(o, 1)
	}
	if err != nil {
		s.err.Store(err.Error())
		s.log.WithError(err).Error("shadow checker cannot capture: signatures on the wire are not verified")
		return nil
	}
	s.capMu.Lock()
	s.caps = caps
	s.capMu.Unlock()
	for i, c := range caps {
		s.wg.Go(func() { s.loop(c, s.chks[i]) })
	}
	s.startTick()
	s.log.WithFields(logrus.Fields{"interfaces": s.ifaces, "workers": len(caps)}).Info("shadow checker capturing BGP segments")
	return nil
}

// startTick starts the once-a-second re-reading of standing facts (tick).
func (s *Runner) startTick() {
	s.started = true
	s.stopTick, s.tickDone = make(chan struct{}), make(chan struct{})
	go s.tick()
}

func (s *Runner) Stop(ctx context.Context) error {
	if !s.started {
		return nil
	}
	s.started = false
	close(s.stopTick)
	<-s.tickDone
	if s.od != nil {
		s.stopOnDemand()
	}
	s.capMu.RLock()
	caps := s.caps
	s.capMu.RUnlock()
	var errs []error
	for _, c := range caps {
		errs = append(errs, c.Close())
	}
	s.wg.Wait()
	s.mu.Lock()
	for k, t := range s.timers {
		t.Stop()
		delete(s.timers, k)
	}
	s.mu.Unlock()
	return errors.Join(errs...)
}

// pollStats moves the kernel's drop counts, summed over the rings (and the
// on-demand captures closed already), into metrics.
func (s *Runner) pollStats() {
	s.statsMu.Lock()
	defer s.statsMu.Unlock()
	s.capMu.RLock()
	caps := s.caps
	s.capMu.RUnlock()
	if caps == nil && s.od == nil {
		return
	}
	st := s.statsBase
	for _, c := range caps {
		cs, err := c.Stats()
		if err != nil {
			return
		}
		st.Add(cs)
	}
	s.mu.Lock()
	if st.Drops > s.stats.Drops {
		s.metrics.AddShadowDrops(st.Drops - s.stats.Drops)
	}
	s.stats = st
	s.mu.Unlock()
}

// segmentCounters is one checker's cache of the peers' segment series.
type segmentCounters struct {
	md5 map[string]*metrics.PeerCounters
	ao  map[string]*metrics.AOCounters
}

// onSegment counts r in the peer's series (TCP-AO verdicts in
// authbgpd_tcpao_segments_total); counters is the calling checker's own
// cache (it is called under that checker's lock).
func (s *Runner) onSegment(counters *segmentCounters, peerID string, r Result) {
	if r.Outgoing {
		return
	}
	if r.AO {
		c := counters.ao[peerID]
		if c == nil {
			c = s.metrics.TCPAOSegmentCounters(peerID)
			counters.ao[peerID] = c
		}
		switch r.Verdict {
		case Valid:
			c.Valid.Inc()
		case BadMAC:
			c.BadMAC.Inc()
		case Missing:
			c.Missing.Inc()
		case UnknownKey:
			c.UnknownKey.Inc()
		case Unexpected:
			c.Unexpected.Inc()
		case NoHandshake:
			c.NoHandshake.Inc()
		}
		return
	}
	c := counters.md5[peerID]
	if c == nil {
		c = s.metrics.SegmentCounters(peerID)
		counters.md5[peerID] = c
	}
	if c == nil {
		return
	}
	switch r.Verdict {
	case Valid:
		c.Valid.Inc()
	case BadDigest:
		c.BadDigest.Inc()
	case Missing:
		c.Missing.Inc()
	case Unexpected:
		c.Unexpected.Inc()
	}
}

func (s *Runner) onChange(r PeerReport) {
	key := r.Address.String()
	s.hist.add(key, r.Diagnosis, time.Now())
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
	if r.Interface != "" {
		f["interface"] = r.Interface
	}
	if r.VRF != "" {
		f["vrf"] = r.VRF
	}
	if r.TCPAO {
		f["bad_mac"], f["unknown_key"], f["no_handshake"] = r.Received.BadMAC, r.Received.UnknownKey, r.Received.NoHandshake
		delete(f, "bad_digest")
	}
	if len(r.KeyIDs) > 0 {
		f["key_ids"] = keyIDsText(r.KeyIDs)
	}
	if r.PeerKeyID != nil {
		f["peer_key_id"] = *r.PeerKeyID
	}
	if supp > 0 {
		f["suppressed_changes"] = supp
	}
	e := s.log.WithFields(f)
	msg := "shadow diagnosis: " + explain(r.Diagnosis)
	if r.Diagnosis == DiagOK {
		e.Info(msg)
	} else {
		e.Warn(msg)
	}
}

// flushHeld logs the change the rate limit held back for key.
func (s *Runner) flushHeld(key string) {
	s.mu.Lock()
	r, ok := s.held[key]
	delete(s.held, key)
	delete(s.timers, key)
	s.mu.Unlock()
	if ok {
		s.onChange(r)
	}
}

// explain says in words what a diagnosis means to the operator
// ("code: meaning", from Diagnoses; the code alone when it says it all).
func explain(d string) string {
	for _, x := range Diagnoses {
		if x.Code == d && x.Meaning != "" {
			return d + ": " + x.Meaning
		}
	}
	return d
}

// keyIDsText lists TCP-AO KeyID pairs as "1/2:40 2/2:3" (KeyID/RNextKeyID:segments).
func keyIDsText(l []KeyIDCount) string {
	var b []byte
	for i, k := range l {
		if i > 0 {
			b = append(b, ' ')
		}
		b = fmt.Appendf(b, "%d/%d:%d", k.KeyID, k.RNextKeyID, k.Segments)
	}
	return string(b)
}

func (s *Runner) onRollover(peerID string, keyID int) {
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
func (s *Runner) tick() {
	defer close(s.tickDone)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-s.stopTick:
			return
		case <-t.C:
			s.FollowProven()
		}
	}
}

// FollowProven proposes every proven newer key that is not in use yet
// (the Runner does so every second; call it after a reload so that a
// proof made while following was off counts at once).
func (s *Runner) FollowProven() {
	if !s.followOn.Load() || s.follow == nil {
		return
	}
	inUse := s.snapshot()
	done := map[string]bool{}
	for _, r := range s.reports(time.Now()) {
		if r.ProvenKeyID == nil || done[r.PeerID] {
			continue
		}
		if id, ok := inUse.KeyID(r.PeerID); ok && id == *r.ProvenKeyID {
			continue
		}
		done[r.PeerID] = true
		s.propose(r.PeerID, *r.ProvenKeyID)
	}
}

// propose hands the peers manager, which decides, a key the peer is proven
// to use. The checker pins it when the manager's snapshot says it is
// installed (Apply: the manager publishes it in the pass it waits for).
func (s *Runner) propose(peerID string, keyID int) {
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
	s.log.WithFields(logrus.Fields{"peer": peerID, "key_id": keyID}).Info("follow-peer-rollover: switched to the key the peer is proven to use")
}

// onStale ends a session the checker proved stale (off the checker's
// goroutine: it touches GoBGP).
func (s *Runner) onStale(peerID string, addr netip.Addr, port uint16) {
	if s.endStale == nil {
		return
	}
	go func() {
		why := fmt.Sprintf("segments of the session's connection (peer port %d) stopped verifying and %s opened a new connection signed with our key (or with the key a recent reload replaced)", port, addr)
		if err := s.endStale(addr, netip.AddrPortFrom(addr, port), why); err != nil {
			s.log.WithError(err).WithField("peer", addr).Error("cannot end the stale session")
		}
	}()
}

// Reload gives the checker the new peers and keys, once the peers manager
// has applied x's config: it makes the keyed peers' segment series exist and,
// off the caller's goroutine, acts on a proof made while
// follow-peer-rollover was off (FollowProven). The keychain keys the
// peers manager uses stay pinned as Apply last pinned them (the manager
// publishes each key it installs, a new peer's before this Reload: see
// Checker.SetPeers); nothing is pinned twice.
//
// In on-demand mode the new on-demand-window and on-demand-segments apply
// to the demands to come (the mode itself changes at the next restart).
func (s *Runner) Reload(x *peerindex.Index) {
	cfg := x.Config()
	s.followOn.Store(cfg.Shadow.FollowPeerRollover)
	if s.od != nil {
		s.od.mu.Lock()
		s.od.book.configure(cfg.Shadow.Window(), cfg.Shadow.SegmentLimit())
		s.od.mu.Unlock()
	}
	peers := PeersOf(x)
	for _, c := range s.chks {
		c.SetPeers(peers)
	}
	s.mu.Lock()
	s.followErr = map[string]string{}
	s.mu.Unlock()
	s.segmentSeries(x)
	go s.FollowProven()
}

// segmentSeries makes every keyed peer's authbgpd_md5_segments_total (a
// TCP-AO peer's authbgpd_tcpao_segments_total) series exist at 0 (when the
// Runner is made and at each reload: not during a scrape, whose collectors
// run concurrently).
func (s *Runner) segmentSeries(x *peerindex.Index) {
	for _, p := range x.Peers() {
		switch p.Mode {
		case config.AuthMD5:
			s.metrics.SegmentCounters(p.ID)
		case config.AuthTCPAO:
			s.metrics.TCPAOSegmentCounters(p.ID)
		}
	}
}

// Apply makes the checkers follow sn, the peers manager's snapshot of the
// keys in use and the sessions (the manager publishes one each time they
// change, and the speaker hands it here at once): a peer's installed
// keychain key is pinned once for each key in turn (Checker.Pin: it holds
// across reloads, and waits for a peer the checker is not given yet), and
// each established session's connection is the one judged for staleness
// (Checker.SetSession; port 0 once it is not established or gone).
// FollowProven reads the last one applied.
func (s *Runner) Apply(sn *peerindex.Snapshot) {
	s.applyMu.Lock()
	defer s.applyMu.Unlock()
	if s.pinned == nil {
		s.pinned, s.sessPort = map[string]int{}, map[netip.Addr]uint16{}
	}
	for id, k := range sn.Keys {
		if was, ok := s.pinned[id]; !k.Installed || ok && was == k.KeyID {
			continue
		}
		s.pinned[id] = k.KeyID
		if k.KeyID >= 0 {
			for _, c := range s.chks {
				c.Pin(id, k.KeyID)
			}
		}
	}
	for id := range s.pinned {
		if _, ok := sn.Keys[id]; !ok {
			delete(s.pinned, id) // a peer added again is pinned again
		}
	}
	sessions := sessionsByAddr(sn)
	for a, ss := range sessions {
		var port uint16
		if ss.Established {
			port = ss.Remote.Port()
		}
		if was, ok := s.sessPort[a]; !ok && port == 0 || ok && was == port {
			continue
		}
		s.sessPort[a] = port
		s.setSession(a, port)
	}
	for a := range s.sessPort {
		if _, ok := sessions[a]; !ok {
			delete(s.sessPort, a)
			s.setSession(a, 0)
		}
	}
	s.snap.Store(sn)
}

// sessionsByAddr are sn's sessions by address, as the capture knows a
// segment: the sessions of an address that is a neighbor in two VRFs are
// left out (neither is the checker's to judge: peerindex.Owners.Lookup
// gives such an address no owner).
func sessionsByAddr(sn *peerindex.Snapshot) map[netip.Addr]peerindex.Session {
	out := make(map[netip.Addr]peerindex.Session, len(sn.Sessions))
	two := map[netip.Addr]bool{}
	for nb, ss := range sn.Sessions {
		if _, dup := out[nb.Addr]; dup {
			two[nb.Addr] = true
		}
		out[nb.Addr] = ss
	}
	for a := range two {
		delete(out, a)
	}
	return out
}

// snapshot is the last snapshot Apply was given.
func (s *Runner) snapshot() *peerindex.Snapshot {
	if sn := s.snap.Load(); sn != nil {
		return sn
	}
	return peerindex.Empty
}

// setSession tells the checkers the remote port of addr's session.
func (s *Runner) setSession(addr netip.Addr, port uint16) {
	for _, c := range s.chks {
		c.SetSession(addr, port)
	}
}

// reports merges the workers' reports (see MergeReports). In on-demand
// mode it applies the idle rule itself, by each address's own clock (see
// demandClocks): an address not captured any more keeps the diagnosis its
// last capture ended with.
func (s *Runner) reports(now time.Time) []PeerReport {
	var out []PeerReport
	if len(s.chks) == 1 {
		out = s.chks[0].Reports(now)
	} else {
		lists := make([][]PeerReport, len(s.chks))
		for i, c := range s.chks {
			lists[i] = c.Reports(now)
		}
		out = MergeReports(lists...)
	}
	for i, at := range s.demandClocks(out, now) {
		r := &out[i]
		if !r.Last.IsZero() && at.Sub(r.Last) > idleAfter {
			r.Diagnosis, r.PeerKeyID, r.ProvenKeyID = DiagNoTraffic, nil, nil
		}
	}
	return out
}

// Reports returns the checker's reports by address.
func (s *Runner) Reports() map[string]PeerReport {
	out := map[string]PeerReport{}
	for _, r := range s.reports(time.Now()) {
		r.History = s.hist.get(r.Address.String())
		out[r.Address.String()] = r
	}
	return out
}

// CaptureStatus is the capture part of /status. In on-demand mode Running
// and Workers describe the capture of the moment (none: false, 0), the
// counters add up every capture since Start, and Demands lists the
// addresses being captured.
func (s *Runner) CaptureStatus() *status.Capture {
	s.pollStats()
	s.mu.Lock()
	st := s.stats
	s.mu.Unlock()
	ifs := s.ifaces
	if ifs == nil {
		ifs = []string{}
	}
	s.capMu.RLock()
	running, workers := s.caps != nil, len(s.caps)
	s.capMu.RUnlock()
	c := &status.Capture{
		Running: running, Workers: workers, Interfaces: ifs, Packets: st.Packets, Drops: st.Drops,
		Truncated: s.truncated.Load(), Error: s.err.Load().(string), Mode: string(s.Mode()),
	}
	for _, d := range s.Demands() {
		c.OnDemand = append(c.OnDemand, status.CaptureDemand{Address: d.Address.String(), Why: d.Why,
			Since: d.Since.UTC().Format(time.RFC3339), Until: d.Until.UTC().Format(time.RFC3339), Segments: d.Segments})
	}
	return c
}
