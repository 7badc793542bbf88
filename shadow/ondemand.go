package shadow

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/capture"
)

// On-demand mode ([shadow] mode = "on-demand"): Start opens no capture.
// Demand(addr, why) captures addr's segments, and only those (a host
// filter in the kernel, capture.Options.Hosts), for one window
// (on-demand-window) or until on-demand-segments of them were checked,
// whichever comes first; other demands while it runs add their addresses
// to the same capture (capture.SetHosts: no new ring). When the last
// address's capture ends, the capture is closed: no packet socket, no
// ring. An address may be demanded again only a cool-down (one window)
// after its capture ended, so a peer that keeps failing is captured for at
// most half of the time, and only while whoever demands it (the kernel
// drop counters) still sees its drops move.
//
// The checker keeps an address's diagnosis after its capture ended: the
// idle rule (no-traffic after IdleAfter without segments) counts only time
// during which the address was being captured.

const (
	// maxDemands bounds the addresses captured at once (the kernel
	// filter's size grows with them).
	maxDemands = capture.MaxHosts
	// maxEnded bounds the addresses whose last capture end is kept
	// (dynamic ranges may bring any number of addresses over time).
	maxEnded = historyPeers
	// idleAfter is the checker's default IdleAfter, which the Runner
	// applies itself in on-demand mode (see onDemand.effectiveNow).
	idleAfter = 5 * time.Minute
	// maxWhy bounds the reason kept and logged for a demand.
	maxWhy = 200
)

// demand is one address being captured.
type demand struct {
	addr         netip.Addr
	why          string
	since, until time.Time
	limit        int64
	// segs counts the segments of addr checked (the capture goroutine
	// adds to it through onDemand.admit).
	segs atomic.Int64
	// full is set once segs reached limit (the capture of addr ends).
	full atomic.Bool
}

// segments is the number of addr's segments checked so far.
func (d *demand) segments() int64 { return min(d.segs.Load(), d.limit) }

// demandBook is the on-demand bookkeeping: which addresses are being
// captured until when, and when each one's last capture ended (the
// cool-down, and the clock of its diagnosis). It is pure: the caller
// passes the time and guards it (onDemand.mu).
type demandBook struct {
	window   time.Duration
	coolDown time.Duration
	limit    int64 // segments per address and window
	max      int   // addresses at once
	active   map[netip.Addr]*demand
	ended    map[netip.Addr]time.Time
}

func newDemandBook(window time.Duration, limit int) *demandBook {
	b := &demandBook{max: maxDemands, active: map[netip.Addr]*demand{}, ended: map[netip.Addr]time.Time{}}
	b.configure(window, limit)
	return b
}

// configure sets the window (and with it the cool-down) and the segment
// bound of the demands to come.
func (b *demandBook) configure(window time.Duration, limit int) {
	b.window, b.coolDown, b.limit = window, window, int64(limit)
}

// begin starts capturing addr at now, for why, and returns the demand;
// or returns nil and why not: addr is being captured already, its last
// capture ended less than a cool-down ago, or too many addresses are being
// captured.
func (b *demandBook) begin(addr netip.Addr, why string, now time.Time) (*demand, string) {
	addr = addr.Unmap()
	if d := b.active[addr]; d != nil {
		return nil, fmt.Sprintf("being captured already, until %s", d.until.Format(time.RFC3339))
	}
	if end, ok := b.ended[addr]; ok && now.Before(end.Add(b.coolDown)) {
		return nil, fmt.Sprintf("captured until %s: cooling down until %s", end.Format(time.RFC3339), end.Add(b.coolDown).Format(time.RFC3339))
	}
	if len(b.active) >= b.max {
		return nil, fmt.Sprintf("%d addresses are being captured already (at most %d at once)", len(b.active), b.max)
	}
	d := &demand{addr: addr, why: why, since: now, until: now.Add(b.window), limit: b.limit}
	b.active[addr] = d
	return d, ""
}

// expire ends, at now, the captures whose window is over or whose segment
// bound is reached, and returns them (sorted by address).
func (b *demandBook) expire(now time.Time) []*demand {
	var out []*demand
	for a, d := range b.active {
		if !now.Before(d.until) || d.segs.Load() >= d.limit {
			out = append(out, d)
			delete(b.active, a)
			b.end(a, now)
		}
	}
	slices.SortFunc(out, func(x, y *demand) int { return x.addr.Compare(y.addr) })
	return out
}

// abort ends addr's capture at now without its window (the capture could
// not be opened): the cool-down applies as after any capture.
func (b *demandBook) abort(addr netip.Addr, now time.Time) {
	addr = addr.Unmap()
	if _, ok := b.active[addr]; ok {
		delete(b.active, addr)
		b.end(addr, now)
	}
}

// end records that addr's capture ended at now, forgetting the oldest
// record beyond maxEnded.
func (b *demandBook) end(addr netip.Addr, now time.Time) {
	if _, ok := b.ended[addr]; !ok && len(b.ended) >= maxEnded {
		var oldest netip.Addr
		var at time.Time
		for a, t := range b.ended {
			if !oldest.IsValid() || t.Before(at) {
				oldest, at = a, t
			}
		}
		delete(b.ended, oldest)
	}
	b.ended[addr] = now
}

// next is when the first active window ends (zero: none is active).
func (b *demandBook) next() time.Time {
	var t time.Time
	for _, d := range b.active {
		if t.IsZero() || d.until.Before(t) {
			t = d.until
		}
	}
	return t
}

// hosts lists the addresses being captured, sorted.
func (b *demandBook) hosts() []netip.Addr {
	out := make([]netip.Addr, 0, len(b.active))
	for a := range b.active {
		out = append(out, a)
	}
	slices.SortFunc(out, netip.Addr.Compare)
	return out
}

// clock is the time addr's diagnosis is judged at (for the idle rule):
// now while addr is being captured, else the end of its last capture (the
// checker heard nothing since because it did not listen).
func (b *demandBook) clock(addr netip.Addr, now time.Time) time.Time {
	if _, ok := b.active[addr]; ok {
		return now
	}
	if end, ok := b.ended[addr]; ok && end.Before(now) {
		return end
	}
	return now
}

// snapshot is the published view of the active demands that the capture
// goroutine reads without a lock (see onDemand.admit).
type snapshot map[netip.Addr]*demand

// onDemand is a Runner's on-demand state.
type onDemand struct {
	mu      sync.Mutex
	book    *demandBook
	hot     atomic.Pointer[snapshot]
	c       *capture.Capture // open while any address is being captured
	done    chan struct{}    // closed when c's loop returned
	timer   *time.Timer      // ends the next window
	ns      nsPin            // the network namespace Start ran in
	started bool
	stopped bool
	// expire is called (on a new goroutine) when an address's segment
	// bound is reached.
	expire func()
}

// publish makes the capture goroutine see the book's active demands.
func (od *onDemand) publish() {
	m := make(snapshot, len(od.book.active))
	for a, d := range od.book.active {
		m[a] = d
	}
	od.hot.Store(&m)
}

// admit decides whether a captured segment from src to dst is checked: one
// of its ends is being captured and has not reached its segment bound.
// It runs on the capture goroutine for every segment: no lock.
func (od *onDemand) admit(src, dst netip.Addr) bool {
	m := od.hot.Load()
	if m == nil {
		return false
	}
	d := (*m)[src.Unmap()]
	if d == nil {
		if d = (*m)[dst.Unmap()]; d == nil {
			return false
		}
	}
	if d.segs.Load() >= d.limit {
		return false
	}
	if d.segs.Add(1) == d.limit && d.full.CompareAndSwap(false, true) {
		go od.expire()
	}
	return true
}

// DemandStatus is one address being captured on demand.
type DemandStatus struct {
	Address  netip.Addr
	Why      string
	Since    time.Time
	Until    time.Time
	Segments int64 // checked so far (at most on-demand-segments)
}

// Demands lists the addresses being captured on demand, sorted (nil in
// mode always).
func (s *Runner) Demands() []DemandStatus {
	if s.od == nil {
		return nil
	}
	s.od.mu.Lock()
	defer s.od.mu.Unlock()
	var out []DemandStatus
	for _, a := range s.od.book.hosts() {
		d := s.od.book.active[a]
		out = append(out, DemandStatus{Address: a, Why: d.why, Since: d.since, Until: d.until, Segments: d.segments()})
	}
	return out
}

// Demand asks the checker, in on-demand mode, to capture addr's segments
// for one window (on-demand-window; at most on-demand-segments of them are
// checked), why being the reason to log (it must hold no secret). It
// reports whether it did so: false in mode always (everything is captured
// already), before Start or after Stop, for an address that belongs to no
// configured peer, one being captured already (its window is not
// extended), one whose last capture ended less than a cool-down (one
// window) ago, when maxDemands addresses are being captured, or when the
// capture cannot be opened (then the cool-down applies too, and
// CaptureStatus says why). It may be called from any goroutine: the
// capture opens in the network namespace Start was called in.
func (s *Runner) Demand(addr netip.Addr, why string) bool {
	od := s.od
	if od == nil || !addr.IsValid() {
		return false
	}
	addr = addr.Unmap().WithZone("")
	why = cleanWhy(why)
	od.mu.Lock()
	defer od.mu.Unlock()
	if !od.started || od.stopped {
		return false
	}
	if _, ok := s.chks[0].Remote(addr, addr, s.port, 0); !ok {
		s.log.WithField("peer", addr.String()).Debug("shadow: not capturing on demand: the address belongs to no configured peer")
		return false
	}
	now := time.Now()
	d, refusal := od.book.begin(addr, why, now)
	if d == nil {
		s.log.WithField("peer", addr.String()).Debug("shadow: not capturing on demand: " + refusal)
		return false
	}
	od.publish() // before the filter lets the address's frames in
	if err := s.applyHosts(); err != nil {
		od.book.abort(addr, now)
		od.publish()
		s.err.Store(err.Error())
		s.log.WithError(err).WithField("peer", addr.String()).Error("shadow: cannot capture on demand: the peer is not diagnosed")
		return false
	}
	s.err.Store("")
	s.armLocked()
	s.log.WithFields(logrus.Fields{"peer": addr.String(), "until": d.until.UTC().Format(time.RFC3339), "segments": d.limit}).
		Info(fmt.Sprintf("shadow: capturing %s for %s: %s", addr, roundDuration(od.book.window), why))
	return true
}

// cleanWhy makes a demand's reason fit for one log line.
func cleanWhy(why string) string {
	why = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, strings.TrimSpace(why))
	if len(why) > maxWhy {
		why = why[:maxWhy] + "..."
	}
	if why == "" {
		why = "asked for"
	}
	return why
}

// roundDuration rounds d for a log line: to the second from 10 s on, to
// the tenth of a second below.
func roundDuration(d time.Duration) time.Duration {
	if d >= 10*time.Second {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}

// applyHosts makes the capture match the book's active addresses: opens
// it (in the namespace Start ran in) for the first, changes its host set
// for the others, closes it when none is left. od.mu is held.
func (s *Runner) applyHosts() error {
	od := s.od
	hosts := od.book.hosts()
	switch {
	case len(hosts) == 0:
		s.closeOnDemand()
		return nil
	case od.c != nil:
		return od.c.SetHosts(hosts)
	}
	// One ring is plenty for a few peers' segments.
	o := capture.Options{Interfaces: s.ifaces, Port: s.port, Hosts: hosts}
	var c *capture.Capture
	if err := od.ns.do(func() (err error) { c, err = capture.Open(o); return err }); err != nil {
		return err
	}
	done := make(chan struct{})
	od.c, od.done = c, done
	s.capMu.Lock()
	s.caps = []*capture.Capture{c}
	s.capMu.Unlock()
	chk := s.chks[0]
	s.wg.Go(func() {
		defer close(done)
		s.loop(c, chk)
	})
	return nil
}

// closeOnDemand closes the on-demand capture, if open, and waits for its
// loop, keeping its final counters. od.mu is held.
func (s *Runner) closeOnDemand() {
	od := s.od
	if od.c == nil {
		return
	}
	c, done := od.c, od.done
	od.c, od.done = nil, nil
	err := c.Close()
	<-done
	s.statsMu.Lock()
	st, _ := c.Stats()
	s.capMu.Lock()
	s.caps = nil
	s.capMu.Unlock()
	s.statsBase.Add(st)
	s.statsMu.Unlock()
	if err != nil {
		s.log.WithError(err).Warn("shadow: closing the on-demand capture")
	}
}

// armLocked sets the timer to the end of the next window. od.mu is held.
func (s *Runner) armLocked() {
	od := s.od
	if od.timer != nil {
		od.timer.Stop()
		od.timer = nil
	}
	next := od.book.next()
	if next.IsZero() {
		return
	}
	od.timer = time.AfterFunc(max(time.Until(next), 0), s.expireDemands)
}

// expireDemands ends the captures whose window is over or whose segment
// bound is reached, narrows or closes the capture, and logs each end with
// the address's diagnosis.
func (s *Runner) expireDemands() {
	od := s.od
	od.mu.Lock()
	if od.stopped {
		od.mu.Unlock()
		return
	}
	now := time.Now()
	ended := od.book.expire(now)
	if len(ended) > 0 {
		if err := s.applyHosts(); err != nil {
			// The filter still lets the ended addresses in; admit
			// does not check their segments any more.
			s.log.WithError(err).Warn("shadow: cannot narrow the on-demand capture")
		}
		od.publish()
	}
	s.armLocked()
	od.mu.Unlock()
	if len(ended) == 0 {
		return
	}
	reps := map[netip.Addr]PeerReport{}
	for _, r := range s.reports(now) {
		reps[r.Address] = r
	}
	for _, d := range ended {
		diag := DiagNoTraffic
		if r, ok := reps[d.addr]; ok {
			diag = r.Diagnosis
		}
		took := now.Sub(d.since)
		f := logrus.Fields{"peer": d.addr.String(), "segments": d.segments(), "diagnosis": diag}
		what := ""
		if d.segs.Load() >= d.limit {
			what = " (segment limit)"
		}
		s.log.WithFields(f).Info(fmt.Sprintf("shadow: capture of %s ended after %s, %d segments%s: diagnosis %s", d.addr, roundDuration(took), d.segments(), what, diag))
	}
}

// startOnDemand starts on-demand mode (Start): no capture yet.
func (s *Runner) startOnDemand() {
	od := s.od
	ns, err := pinNS()
	if err != nil {
		s.log.WithError(err).Warn("shadow: cannot pin the network namespace: on-demand captures open in the namespace of whoever asks")
	}
	od.mu.Lock()
	od.ns, od.started = ns, true
	od.mu.Unlock()
	s.log.WithFields(logrus.Fields{"window": od.book.window.String(), "segments": od.book.limit, "interfaces": s.ifaces}).
		Info("shadow checker on demand: no capture until a peer's kernel drops ask for one")
}

// stopOnDemand ends every on-demand capture (Stop).
func (s *Runner) stopOnDemand() {
	od := s.od
	od.mu.Lock()
	defer od.mu.Unlock()
	od.stopped = true
	if od.timer != nil {
		od.timer.Stop()
		od.timer = nil
	}
	for _, a := range od.book.hosts() {
		od.book.abort(a, time.Now())
	}
	od.publish()
	s.closeOnDemand()
	od.ns.close()
}

// demandClocks returns, for the idle rule, the time each address seen by
// the checker is judged at (see demandBook.clock), or nil outside
// on-demand mode.
func (s *Runner) demandClocks(reps []PeerReport, now time.Time) []time.Time {
	if s.od == nil {
		return nil
	}
	s.od.mu.Lock()
	defer s.od.mu.Unlock()
	out := make([]time.Time, len(reps))
	for i, r := range reps {
		out[i] = s.od.book.clock(r.Address, now)
	}
	return out
}
