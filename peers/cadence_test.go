package peers

import (
	"context"
	"io"
	"net/netip"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/plugin"
)

// startEvery starts a manager whose timer passes every 20 ms while
// anything is to do, and every idle while nothing is.
func startEvery(t *testing.T, conf string, s *fakeSockets, idle time.Duration) (*Manager, *fakeBGP) {
	t.Helper()
	l := logrus.New()
	l.SetOutput(io.Discard)
	m := New(Options{Config: cfg(t, conf), Logger: l, Sockets: s, ReconcileEvery: 20 * time.Millisecond, ReconcileIdleEvery: idle})
	b := newFakeBGP()
	if err := m.start(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Stop(context.Background()) })
	return m, b
}

// passesIn counts the passes in d.
func passesIn(m *Manager, d time.Duration) uint64 {
	n := m.Passes()
	time.Sleep(d)
	return m.Passes() - n
}

// TestIdleCadence: once a timer pass finds nothing to do, the next is
// ReconcileIdleEvery away (at 1,000 peers a pass costs ~130 ms of CPU);
// a pass that acts (here: a light pass after a session event finds a key
// gone from the listeners and puts it back) brings back ReconcileEvery
// until a timer pass is steady again. A peer held down (its key does not
// install) and drift that a pass cannot repair keep ReconcileEvery.
func TestIdleCadence(t *testing.T) {
	s := newFakeSockets()
	s.visible = true
	m, b := startEvery(t, twoPeers, s, time.Hour)
	waitFor(t, "steady", func() bool { return passesIn(m, 100*time.Millisecond) == 0 })
	if n := passesIn(m, 300*time.Millisecond); n != 0 {
		t.Fatalf("%d passes in 300 ms while steady, want 0 (idle cadence 1 h)", n)
	}

	// The key goes from the listeners behind the reconciler's back; a
	// session event's light pass sees it, and puts it back.
	s.mu.Lock()
	delete(s.listener, "192.0.2.2")
	s.mu.Unlock()
	established(b, "192.0.2.2")
	waitFor(t, "the key back", func() bool { k, ok := s.key("192.0.2.2"); return ok && k == "Secret-Alpha" })
	waitFor(t, "steady again", func() bool { return passesIn(m, 100*time.Millisecond) == 0 })

	// Drift that does not go away (the kernel never shows the key): every
	// pass acts, and the timer keeps its 20 ms.
	s.mu.Lock()
	s.hide["192.0.2.2"] = true
	s.mu.Unlock()
	m.kickSessions()
	if n := passesIn(m, 300*time.Millisecond); n < 5 {
		t.Fatalf("%d passes in 300 ms with drift, want the 20 ms cadence", n)
	}
	s.mu.Lock()
	delete(s.hide, "192.0.2.2")
	s.mu.Unlock()
	waitFor(t, "steady after the drift", func() bool { return passesIn(m, 100*time.Millisecond) == 0 })
}

// TestHeldKeepsCadence: a peer held down retries its install at the
// timer's ReconcileEvery, and is released as soon as the key installs.
func TestHeldKeepsCadence(t *testing.T) {
	s := newFakeSockets()
	s.fail["192.0.2.2"] = true
	m, b := startEvery(t, twoPeers, s, time.Hour)
	if n := passesIn(m, 300*time.Millisecond); n < 5 {
		t.Fatalf("%d passes in 300 ms with a peer held down, want the 20 ms cadence", n)
	}
	s.mu.Lock()
	delete(s.fail, "192.0.2.2")
	s.mu.Unlock()
	waitFor(t, "released", func() bool { p := b.peer("192.0.2.2"); return p != nil && !p.Conf.AdminDown })
	waitFor(t, "steady", func() bool { return passesIn(m, 100*time.Millisecond) == 0 })
}

// TestIdleCadenceConfigs: interface and VRF peers (their links and devices
// are polled by each pass) and TCP-AO peers (the kernel's counters per
// connection) keep the timer's ReconcileEvery.
func TestIdleCadenceConfigs(t *testing.T) {
	for _, tc := range []struct {
		name, conf string
		idle       bool
	}{
		{"md5 and ranges", twoPeers, true},
		{"interface peer", "[[peers]]\ninterface = \"eth1\"\nasn = 65002\npassword = \"Secret-Alpha\"\n", false},
		{"vrf peer", "[[peers]]\naddress = \"192.0.2.2\"\nasn = 65002\nvrf = \"blue\"\n", false},
		{"tcp-ao peer", aoConfig(time.Now().Add(time.Hour)), false},
	} {
		if got := idleCadence(cfg(t, tc.conf)); got != tc.idle {
			t.Errorf("%s: idleCadence %v, want %v", tc.name, got, tc.idle)
		}
	}
	if idleCadence(nil) {
		t.Error("idleCadence(nil) is true")
	}
}

// TestIdleCadenceActs: a timer pass at the idle cadence that acts (GoBGP
// lost a neighbor, which the pass adds again: no drift on the sockets, no
// peer held) is followed by another after ReconcileEvery, not after the
// idle cadence, which checks that its action held.
func TestIdleCadenceActs(t *testing.T) {
	const idle = 300 * time.Millisecond
	s := newFakeSockets()
	s.visible = true
	m, b := startEvery(t, twoPeers, s, idle)
	waitFor(t, "steady", func() bool { return passesIn(m, 100*time.Millisecond) == 0 })
	b.mu.Lock()
	delete(b.peers, "192.0.2.3")
	b.mu.Unlock()
	waitFor(t, "the neighbor added again", func() bool { return b.peer("192.0.2.3") != nil })
	if n := passesIn(m, idle/2); n == 0 {
		t.Fatalf("no pass within %v of a timer pass that acted, want one after 20 ms", idle/2)
	}
}

// TestPassSteady: each thing a pass can find to do makes it not steady.
func TestPassSteady(t *testing.T) {
	m, _ := start(t, cfg(t, twoPeers), newFakeSockets(), io.Discard)
	m.mu.Lock()
	defer m.mu.Unlock()
	base := func() *pass { return &pass{m: m, full: true, aoSeen: true} }
	if !base().steady(nil, true) {
		t.Fatal("a full pass that found nothing is not steady")
	}
	for name, p := range map[string]*pass{
		"acted":      {m: m, full: true, aoSeen: true, acts: 1},
		"gobgp said": {m: m, full: true, aoSeen: true, errs: []error{io.EOF}},
		"tcp-ao":     {m: m, full: true},
	} {
		if p.steady(nil, true) {
			t.Errorf("%s: steady", name)
		}
	}
	if base().steady(io.EOF, false) {
		t.Error("a pass that could not observe the sockets is steady")
	}
	if !(&pass{m: m, full: true}).steady(nil, false) {
		t.Error("without TCP-AO peers, the TCP-AO observation counts")
	}
	m.held["192.0.2.2"] = io.EOF
	if base().steady(nil, false) {
		t.Error("a peer held down: steady")
	}
	delete(m.held, "192.0.2.2")
	for _, st := range m.peers {
		st.obs.drift = "key missing"
		break
	}
	if base().steady(nil, false) {
		t.Error("drift: steady")
	}
}

// TestIdleCadenceKeptForScopes: with a VRF peer (its device is polled by
// each pass) the timer keeps ReconcileEvery although every pass is steady.
func TestIdleCadenceKeptForScopes(t *testing.T) {
	s := newFakeSockets()
	s.visible = true
	m, _ := startEvery(t, twoPeers+"[[peers]]\naddress = \"192.0.2.4\"\nasn = 65004\nvrf = \"blue\"\n", s, time.Hour)
	if n := passesIn(m, 300*time.Millisecond); n < 5 {
		t.Fatalf("%d passes in 300 ms with a VRF peer, want the 20 ms cadence", n)
	}
}

// TestNextFull: the timer's next full pass after each kind of pass.
func TestNextFull(t *testing.T) {
	now := time.Unix(1000, 0)
	due := now.Add(time.Second) // set by an earlier pass
	const every, idle = 2 * time.Second, 5 * time.Minute
	for _, tc := range []struct {
		name                string
		full, steady, allow bool
		want                time.Time
	}{
		{"full, steady", true, true, true, now.Add(idle)},
		{"full, steady, config polls", true, true, false, now.Add(every)},
		{"full, acted", true, false, true, now.Add(every)},
		{"light, steady", false, true, true, due},
		{"light, acted", false, false, true, due},
	} {
		if got := nextFull(due, now, tc.full, tc.steady, tc.allow, every, idle); !got.Equal(tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got.Sub(now), tc.want.Sub(now))
		}
	}
	late := now.Add(idle) // the timer at the idle cadence
	if got := nextFull(late, now, false, false, true, every, idle); !got.Equal(now.Add(every)) {
		t.Errorf("light pass that acted, timer idle: %v, want %v", got.Sub(now), every)
	}
	if got := nextFull(late, now, false, true, true, every, idle); !got.Equal(late) {
		t.Errorf("steady light pass, timer idle: %v, want it left at %v", got.Sub(now), idle)
	}
	if got := nextFull(due, now, true, true, true, every, time.Second); !got.Equal(now.Add(every)) {
		t.Errorf("idle cadence shorter than the timer's: %v, want %v", got.Sub(now), every)
	}
}

// TestPassStats: the loop counts its full and light passes and their
// time (authbgpd_reconcile_passes_total, ..._pass_seconds_total).
func TestPassStats(t *testing.T) {
	s := newFakeSockets()
	m, b := startEvery(t, "[[peers]]\naddress = \"192.0.2.2\"\nasn = 65002\npassword = \"Stats-Key\"\n", s, time.Hour)
	m.Reconcile(context.Background())
	if st := m.PassStats(); st.Full.Passes == 0 || st.Full.Seconds <= 0 {
		t.Fatalf("after a full pass: %+v", st)
	}
	light := m.PassStats().Light.Passes
	established(b, "192.0.2.2")
	waitFor(t, "a light pass after the session event", func() bool { return m.PassStats().Light.Passes > light })
	if st := m.PassStats(); st.Light.Seconds <= 0 {
		t.Fatalf("light passes without their time: %+v", st)
	}
}

// TestSessionsComingUpCoalesce: a burst of sessions coming up (each
// through Active, OpenSent, OpenConfirm, Established) makes one light pass
// about upDelay after it, not one per kickDelay (1,000 sessions coming up
// made ~20 passes of ~17 ms each); a session that ends gets its pass
// within kickDelay (a restart or a stale session may be due), and cuts a
// pending wait for sessions coming up short.
func TestSessionsComingUpCoalesce(t *testing.T) {
	s := newFakeSockets()
	s.visible = true
	m, b := startEvery(t, twoPeers, s, time.Hour)
	waitFor(t, "steady", func() bool { return passesIn(m, 100*time.Millisecond) == 0 })
	ev := func(addr, state string) {
		e := plugin.PeerEvent{Peer: netip.MustParseAddr(addr), State: state, Time: time.Now()}
		if state == "established" {
			e.Local, e.Remote = netip.MustParseAddrPort("192.0.2.1:179"), netip.AddrPortFrom(e.Peer, 40000)
		}
		b.events <- e
	}
	up := func() {
		for _, st := range []string{"active", "opensent", "openconfirm", "established"} {
			for _, a := range []string{"192.0.2.2", "192.0.2.3"} {
				ev(a, st)
				time.Sleep(20 * time.Millisecond)
			}
		}
	}
	p0 := m.Passes()
	t0 := time.Now()
	up() // 8 events over ~160 ms
	if n := m.Passes() - p0; n != 0 {
		t.Fatalf("%d passes within %v of sessions coming up, want none before upDelay", n, time.Since(t0))
	}
	waitFor(t, "the pass for sessions coming up", func() bool { return m.Passes() > p0 })
	if d := time.Since(t0); d < upDelay(0) {
		t.Fatalf("the pass came %v after the first event, before upDelay %v", d, upDelay(0))
	}
	if n := passesIn(m, 300*time.Millisecond); n != 0 {
		t.Fatalf("%d more passes after the burst's pass, want none", n)
	}

	// A session that ends: its pass comes within kickDelay.
	p1 := m.Passes()
	t1 := time.Now()
	ev("192.0.2.2", "idle")
	waitFor(t, "the pass for a session that ended", func() bool { return m.Passes() > p1 })
	if d := time.Since(t1); d >= upDelay(0) { // a kick for sessions coming up waits upDelay at least
		t.Fatalf("the pass for a session that ended came after %v, want about kickDelay %v", d, kickDelay(0))
	}

	// Sessions coming up, then one ending: the wait is cut to kickDelay.
	p2 := m.Passes()
	t2 := time.Now()
	ev("192.0.2.2", "active")
	time.Sleep(50 * time.Millisecond)
	ev("192.0.2.3", "idle")
	waitFor(t, "the pass", func() bool { return m.Passes() > p2 })
	if d := time.Since(t2); d >= upDelay(0) {
		t.Fatalf("the pass came %v after a session ended during the wait, want about kickDelay", d)
	}
}
