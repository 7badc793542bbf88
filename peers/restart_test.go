package peers

import (
	"context"
	"errors"
	"io"
	"net/netip"
	"strings"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"

	"github.com/authbgp/authbgpd/internal/testlog"
	"github.com/authbgp/authbgpd/plugin"
)

// TestRestartAfterKeyChangeRule: an Idle neighbor is restarted only while
// GoBGP's idle hold still runs and the key change was less than a hold
// away from the session's end, on either side.
func TestRestartAfterKeyChangeRule(t *testing.T) {
	t0 := time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	for _, c := range []struct {
		name                string
		ended, rekeyed, now float64
		want                bool
	}{
		{"ended after the change (the peer reset it)", 1, 0, 1.1, true},
		{"ended before the change (its Cease came first)", 0, 0.1, 0.2, true},
		{"ended 4.9 s after the change", 4.9, 0, 5, true},
		{"ended 5 s after the change: not its end", 5, 0, 5.1, false},
		{"ended 5 s before the change", 0, 5, 4.9, false},
		{"the hold has run out", 0, 0.1, 5, false},
		{"the hold nearly out", 0, 0.1, 4.99, true},
	} {
		if got := restartAfterKeyChange(at(c.ended), at(c.rekeyed), at(c.now)); got != c.want {
			t.Errorf("%s: restartAfterKeyChange = %v, want %v", c.name, got, c.want)
		}
	}
	if restartAfterKeyChange(time.Time{}, t0, t0) || restartAfterKeyChange(t0, time.Time{}, t0) {
		t.Error("a zero time restarts")
	}
}

// TestRestartAfterKeyChange: the peer ends the session when its key
// changes (as FRR does); the neighbor, Idle, is deleted and added again at
// once, keyed by the new key, and only once per key change. An Idle
// neighbor without a key change, or one held down, is left alone.
func TestRestartAfterKeyChange(t *testing.T) {
	const addr = "192.0.2.2"
	readds := func(b *fakeBGP) int { return restarts(b, addr) }
	idle := func(b *fakeBGP) {
		b.setState(addr, api.PeerState_IDLE)
		b.events <- plugin.PeerEvent{Peer: netip.MustParseAddr(addr), State: "idle", Time: time.Now()}
	}
	for _, order := range []string{"the end first", "the key first"} {
		t.Run(order, func(t *testing.T) {
			s := newFakeSockets()
			m, b := start(t, cfg(t, twoPeers), s, io.Discard)
			established(b, addr)
			waitFor(t, "established", func() bool { return m.Status()[0].State == "established" })
			reload := func() {
				if _, err := m.Reload(context.Background(), cfg(t, strings.Replace(twoPeers, "Secret-Alpha", "Secret-Delta", 1))); err != nil {
					t.Fatal(err)
				}
			}
			if order == "the end first" {
				idle(b)
				waitFor(t, "idle", func() bool { return m.Status()[0].State == "idle" })
				m.Reconcile(context.Background())
				if n := readds(b); n != 0 {
					t.Fatalf("restarted before any key change: calls %v", b.calls)
				}
				reload()
			} else {
				reload()
				m.Reconcile(context.Background())
				if n := readds(b); n != 0 {
					t.Fatalf("an Established session restarted by its key change: calls %v", b.calls)
				}
				idle(b)
			}
			waitFor(t, "the restart", func() bool { return readds(b) == 1 })
			if v, _ := s.key(addr); v != "Secret-Delta" {
				t.Fatalf("listener key %q when restarted", v)
			}
			if b.peer(addr).Conf.AdminDown {
				t.Fatal("restarted admin down")
			}
			// The peer dials again: the new neighbor's first dial waits.
			if err := dial(t, m, addr); !errors.Is(err, errDialDeferred) {
				t.Fatalf("a dial right after the restart: %v", err)
			}
			// Still Idle, more passes: no second restart.
			idle(b)
			m.Reconcile(context.Background())
			m.Reconcile(context.Background())
			if n := readds(b); n != 1 {
				t.Fatalf("%d restarts for one key change: calls %v", n, b.calls)
			}
			noUpdatePeer(t, b)
		})
	}
	t.Run("no key change", func(t *testing.T) {
		m, b := start(t, cfg(t, twoPeers), newFakeSockets(), io.Discard)
		established(b, addr)
		waitFor(t, "established", func() bool { return m.Status()[0].State == "established" })
		idle(b)
		waitFor(t, "idle", func() bool { return m.Status()[0].State == "idle" })
		m.Reconcile(context.Background())
		if n := readds(b); n != 0 {
			t.Fatalf("restarted without a key change: calls %v", b.calls)
		}
	})
	t.Run("stays in the hold once it has run out", func(t *testing.T) {
		m, b := start(t, cfg(t, twoPeers), newFakeSockets(), io.Discard)
		established(b, addr)
		waitFor(t, "established", func() bool { return m.Status()[0].State == "established" })
		clock := fakeClock(m) // UnixNano, read by the passes
		idle(b)
		waitFor(t, "idle", func() bool { return m.Status()[0].State == "idle" })
		clock.Add(int64(gobgpIdleHold + time.Second))
		if _, err := m.Reload(context.Background(), cfg(t, strings.Replace(twoPeers, "Secret-Alpha", "Secret-Delta", 1))); err != nil {
			t.Fatal(err)
		}
		m.Reconcile(context.Background())
		if n := readds(b); n != 0 {
			t.Fatalf("restarted after the hold ran out: calls %v", b.calls)
		}
	})
}

// TestRestartedNeighborDialsAfterTheDeferral: a restarted neighbor's dials
// wait for the peer's own dial for restartDialDefer, then go out (a dial
// that waited, awaitDial, is not refused: TestDialWaitsOutTheDeferral);
// the neighbor is restarted once per key change, whether the peer
// connected or is passive: a second restart would cut a dial that has
// just gone out.
func TestRestartedNeighborDialsAfterTheDeferral(t *testing.T) {
	const addr = "192.0.2.2"
	for _, connected := range []bool{false, true} {
		t.Run(map[bool]string{false: "the peer is passive", true: "the peer connected"}[connected], func(t *testing.T) {
			m, b := start(t, cfg(t, twoPeers), newFakeSockets(), io.Discard)
			clock := fakeClock(m)
			established(b, addr)
			waitFor(t, "established", func() bool { return m.Status()[0].State == "established" })
			if _, err := m.Reload(context.Background(), cfg(t, strings.Replace(twoPeers, "Secret-Alpha", "Secret-Delta", 1))); err != nil {
				t.Fatal(err)
			}
			b.setState(addr, api.PeerState_IDLE)
			b.events <- plugin.PeerEvent{Peer: netip.MustParseAddr(addr), State: "idle", Time: time.Unix(0, clock.Load())}
			waitFor(t, "the restart", func() bool { return restarts(b, addr) == 1 })
			b.setState(addr, api.PeerState_ACTIVE) // the new neighbor, as GoBGP reports it
			b.events <- plugin.PeerEvent{Peer: netip.MustParseAddr(addr), State: "active", Time: time.Unix(0, clock.Load())}
			if connected {
				b.setState(addr, api.PeerState_OPENSENT)
				b.events <- plugin.PeerEvent{Peer: netip.MustParseAddr(addr), State: "opensent", Time: time.Unix(0, clock.Load()),
					Local: netip.MustParseAddrPort("192.0.2.1:179"), Remote: netip.MustParseAddrPort("192.0.2.2:40001")}
			}
			waitFor(t, "the events", func() bool {
				return m.Status()[0].State == map[bool]string{false: "active", true: "opensent"}[connected]
			})
			clock.Add(int64(restartDialDefer - 100*time.Millisecond))
			if err := dial(t, m, addr); !errors.Is(err, errDialDeferred) {
				t.Fatalf("a dial before the deferral ended: %v", err)
			}
			clock.Add(int64(200 * time.Millisecond))
			if err := dial(t, m, addr); err != nil {
				t.Fatalf("a dial after the deferral: %v", err)
			}
			for range 3 {
				if !connected {
					b.setState(addr, api.PeerState_ACTIVE) // still dialing, as GoBGP reports it
				}
				clock.Add(int64(restartDialDefer))
				m.Reconcile(context.Background())
			}
			if n := restarts(b, addr); n != 1 {
				t.Fatalf("%d restarts for one key change, want 1: calls %v", n, b.calls)
			}
		})
	}
}

// restarts counts the DeletePeer+AddPeer pairs of addr.
func restarts(b *fakeBGP, addr string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for i, c := range b.calls {
		if c == "delete "+addr && i+1 < len(b.calls) && b.calls[i+1] == "add "+addr {
			n++
		}
	}
	return n
}

// TestRekeyOfAClosedConnection: a session whose connection closed before
// the pass could re-key it (the peer reset it when its key changed) is no
// warning; a connection that vanished while its session is still
// Established is.
func TestRekeyOfAClosedConnection(t *testing.T) {
	const addr = "192.0.2.2"
	for _, ended := range []bool{true, false} {
		t.Run(map[bool]string{true: "the session ended", false: "the session stands"}[ended], func(t *testing.T) {
			s := newFakeSockets()
			var logs testlog.Buffer
			m, b := start(t, cfg(t, twoPeers), s, &logs)
			established(b, addr)
			waitFor(t, "established", func() bool { return m.Status()[0].State == "established" })
			s.mu.Lock()
			s.connGone = true
			if ended {
				s.onConnKey = func() {
					m.event(plugin.PeerEvent{Peer: netip.MustParseAddr(addr), State: "idle", Time: time.Now()})
				}
			}
			s.mu.Unlock()
			if _, err := m.Reload(context.Background(), cfg(t, strings.Replace(twoPeers, "Secret-Alpha", "Secret-Delta", 1))); err != nil {
				t.Fatal(err)
			}
			time.Sleep(testRekeyHold) // the connection keeps the old key until then
			m.Reconcile(context.Background())
			warned := strings.Contains(logs.String(), "could not re-key the session's connection in place")
			if warned == ended {
				t.Fatalf("warned %v, the session ended %v: logs\n%s", warned, ended, logs.String())
			}
		})
	}
}

// TestRestartBeforeThePeerDials: the pass that restarts a neighbor whose
// session ended around its key change comes within restartKickDelay of
// the end, however costly the last pass was (kickDelay grows with it, to
// 2 s at 1,000 peers after a reload that changed 100 keys): the peer dials
// again about 2 s after the end, and GoBGP, Idle, would turn it away.
func TestRestartBeforeThePeerDials(t *testing.T) {
	const addr = "192.0.2.2"
	s := newFakeSockets()
	m, b := start(t, cfg(t, twoPeers), s, io.Discard)
	established(b, addr)
	waitFor(t, "established", func() bool { return m.Status()[0].State == "established" })
	s.mu.Lock()
	s.look = 250 * time.Millisecond // kickDelay: 9 x 250 ms, capped at 2 s
	s.mu.Unlock()
	if _, err := m.Reload(context.Background(), cfg(t, strings.Replace(twoPeers, "Secret-Alpha", "Secret-Delta", 1))); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	b.setState(addr, api.PeerState_IDLE)
	b.events <- plugin.PeerEvent{Peer: netip.MustParseAddr(addr), State: "idle", Time: time.Now()}
	waitFor(t, "the restart", func() bool { return restarts(b, addr) == 1 })
	// At most: a pass under way (250 ms), restartKickDelay, the pass that
	// restarts (250 ms); well under kickDelay's 2 s.
	if d := time.Since(t0); d > 1500*time.Millisecond {
		t.Fatalf("the neighbor was restarted %v after its session ended, want within restartKickDelay and two passes (%v + 2 x 250 ms)", d, restartKickDelay)
	}
	t.Logf("restarted %v after the session ended", time.Since(t0).Round(time.Millisecond))
}
