package peers

import (
	"context"
	"io"
	"net/netip"
	"strings"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/plugin"
)

// setReceived makes ListPeer report n messages received from a.
func (f *fakeBGP) setReceived(a string, n uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.peers[a]
	if p.State == nil {
		p.State = &api.PeerState{NeighborAddress: a}
	}
	p.State.Messages = &api.Messages{Received: &api.Message{Total: n}}
}

func (f *fakeBGP) resets(a string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		if c == "reset "+a {
			n++
		}
	}
	return n
}

// TestStaleAfterKeyChange: GoBGP turned away a new (kernel-accepted, so
// validly signed) connection from an established peer. The session is ended
// only when it was re-keyed in place and has received nothing since.
func TestStaleAfterKeyChange(t *testing.T) {
	const addr = "192.0.2.2"
	for _, c := range []struct {
		name      string
		rekey     bool
		rxSince   uint64
		wantReset bool
	}{
		{"re-keyed and silent since: ended", true, 0, true},
		{"re-keyed, a keepalive since: kept", true, 1, false},
		{"not re-keyed: kept", false, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newFakeSockets()
			m, b := start(t, cfg(t, twoPeers), s, io.Discard)
			b.setReceived(addr, 7)
			established(b, addr)
			waitFor(t, "established", func() bool { return m.Status()[0].State == "established" })
			if c.rekey {
				if _, err := m.Reload(context.Background(), cfg(t, strings.Replace(twoPeers, "Secret-Alpha", "Secret-Delta", 1))); err != nil {
					t.Fatal(err)
				}
				rekeyedAfterHold(t, s, addr+":40000", "Secret-Delta")
			}
			b.setReceived(addr, 7+c.rxSince)
			m.judgeStale(nbr("", netip.MustParseAddr(addr)))
			if got := b.resets(addr); (got == 1) != c.wantReset {
				t.Fatalf("%d resets, want reset %v: calls %v", got, c.wantReset, b.calls)
			}
			// Once ended, a second refused connection does not reset again.
			m.judgeStale(nbr("", netip.MustParseAddr(addr)))
			if got := b.resets(addr); got > 1 {
				t.Fatalf("%d resets: calls %v", got, b.calls)
			}
		})
	}
}

// rekeyedSession starts a manager whose session with addr (rx messages
// received) is Established and re-keyed in place by a reload, once the
// connection's hold on the replaced key has run out.
func rekeyedSession(t *testing.T, addr string, rx uint64) (*Manager, *fakeBGP) {
	t.Helper()
	s := newFakeSockets()
	m, b := start(t, cfg(t, twoPeers), s, io.Discard)
	b.setReceived(addr, rx)
	established(b, addr)
	waitFor(t, "established", func() bool { return m.Status()[0].State == "established" })
	if _, err := m.Reload(context.Background(), cfg(t, strings.Replace(twoPeers, "Secret-Alpha", "Secret-Delta", 1))); err != nil {
		t.Fatal(err)
	}
	rekeyedAfterHold(t, s, addr+":40000", "Secret-Delta")
	return m, b
}

// TestNoRestartAfterOurStaleReset: a session we ended as stale goes Idle
// right after its key change, but it is our reset (GoBGP's short
// IdleHoldAfterReset), and the peer, turned away, waits out its connect
// timer: no restart, and our dials do not wait for the peer's.
func TestNoRestartAfterOurStaleReset(t *testing.T) {
	const addr = "192.0.2.2"
	m, b := rekeyedSession(t, addr, 7)
	m.judgeStale(nbr("", netip.MustParseAddr(addr)))
	if got := b.resets(addr); got != 1 {
		t.Fatalf("%d resets of the stale session: calls %v", got, b.calls)
	}
	b.setState(addr, api.PeerState_IDLE)
	b.events <- plugin.PeerEvent{Peer: netip.MustParseAddr(addr), State: "idle", Time: time.Now()}
	waitFor(t, "idle", func() bool { return m.Status()[0].State == "idle" })
	m.Reconcile(context.Background())
	m.Reconcile(context.Background())
	if n := restarts(b, addr); n != 0 {
		t.Fatalf("%d restarts after our own reset: calls %v", n, b.calls)
	}
	if err := dial(t, m, addr); err != nil {
		t.Fatalf("a dial after our own reset: %v", err)
	}
}

// TestStaleAfterKeyChangeThroughTheHook: ConnectionRefused (what
// plugin.Host calls from GoBGP's log) reaches endIfStale on the
// reconciler's goroutine; a new session clears the mark.
func TestStaleAfterKeyChangeThroughTheHook(t *testing.T) {
	const addr = "192.0.2.2"
	m, b := rekeyedSession(t, addr, 3)
	m.ConnectionRefused("", netip.MustParseAddr(addr))
	waitFor(t, "the stale session reset", func() bool { return b.resets(addr) == 1 })

	// Re-keyed again, the session then ends by itself and a new one comes
	// up (same ends in this fake): a refused connection on the new
	// session is no reason to end it, as it was not re-keyed in place.
	if _, err := m.Reload(context.Background(), cfg(t, strings.Replace(twoPeers, "Secret-Alpha", "Secret-Echo", 1))); err != nil {
		t.Fatal(err)
	}
	b.setState(addr, api.PeerState_ACTIVE)
	b.events <- plugin.PeerEvent{Peer: netip.MustParseAddr(addr), State: "active", Time: time.Now()}
	waitFor(t, "down", func() bool { return m.Status()[0].State != "established" })
	established(b, addr)
	waitFor(t, "established again", func() bool { return m.Status()[0].State == "established" })
	b.setReceived(addr, 3) // as many as when re-keyed: only the new session tells them apart
	m.judgeStale(nbr("", netip.MustParseAddr(addr)))
	if got := b.resets(addr); got != 1 {
		t.Fatalf("%d resets: the new session was ended: calls %v", got, b.calls)
	}
}

// TestKickDelay: kicked passes coalesce for 100 ms, and with costly passes
// (many neighbors) keep to a tenth of the time, never waiting past the
// timer's period.
func TestKickDelay(t *testing.T) {
	for _, c := range []struct{ cost, want time.Duration }{
		{0, 100 * time.Millisecond},
		{5 * time.Millisecond, 100 * time.Millisecond},
		{50 * time.Millisecond, 450 * time.Millisecond},
		{time.Second, 2 * time.Second},
	} {
		if got := kickDelay(c.cost); got != c.want {
			t.Errorf("kickDelay(%v) = %v, want %v", c.cost, got, c.want)
		}
	}
}

// TestSessionEventsKickLightPasses: a session's state change kicks a pass
// that converges the sockets without asking GoBGP for every neighbor (with
// 1,000 of them that was most of the CPU while sessions came up); a reload
// kicks a full one.
func TestSessionEventsKickLightPasses(t *testing.T) {
	l := logrus.New()
	l.SetOutput(io.Discard)
	m := New(Options{Config: cfg(t, twoPeers), Logger: l, Sockets: newFakeSockets(), ReconcileEvery: time.Hour})
	b := newFakeBGP()
	if err := m.start(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Stop(context.Background()) })
	views := func() int { b.mu.Lock(); defer b.mu.Unlock(); return b.views }
	waitFor(t, "the first pass", func() bool { return m.Passes() >= 1 })
	v0, p0 := views(), m.Passes()
	established(b, "192.0.2.2")
	waitFor(t, "a pass after the event", func() bool { return m.Passes() > p0 })
	if views() != v0 {
		t.Fatalf("a session event's pass read GoBGP's view (%d -> %d)", v0, views())
	}
	m.mu.Lock()
	s := m.sess[nbr("", netip.MustParseAddr("192.0.2.2"))]
	up := s != nil && s.state == "established"
	m.mu.Unlock()
	if !up {
		t.Fatal("the event did not reach the session table")
	}
	// Events were lost: the next pass reads GoBGP's view, even if only a
	// session event kicked it.
	v1, p1 := views(), m.Passes()
	b.lost.Add(1)
	b.setState("192.0.2.2", api.PeerState_ACTIVE)
	b.events <- plugin.PeerEvent{Peer: netip.MustParseAddr("192.0.2.2"), State: "active", Time: time.Now()}
	waitFor(t, "a pass after lost events", func() bool { return m.Passes() > p1 })
	if views() == v1 {
		t.Fatal("the pass after lost events did not read GoBGP's view")
	}
	p1 = m.Passes()
	if _, err := m.Reload(context.Background(), cfg(t, strings.Replace(twoPeers, "Secret-Alpha", "Secret-Delta", 1))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a pass after the reload", func() bool { return m.Passes() > p1 && views() > v0 })
}
