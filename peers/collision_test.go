package peers

import (
	"context"
	"errors"
	"io"
	"net/netip"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"

	"github.com/authbgp/authbgpd/plugin"
)

// TestCollisionLostRestarts: GoBGP, in OpenSent, refuses the peer's dial;
// our connection gets to OpenConfirm or Established and the peer, whose
// BGP Identifier is higher, ends it a moment later (it kept its own
// connection, RFC 4271 6.8). The Idle neighbor is restarted at once, and
// only once, and our dials wait for the peer's. Without the refused dial,
// with a session that was up for longer, one that never got the peer's
// OPEN (two GoBGPs colliding), or a peer with the lower Identifier (it
// would have kept ours: something else ended it), the neighbor is left to
// GoBGP's idle hold.
func TestCollisionLostRestarts(t *testing.T) {
	const addr = "192.0.2.2"
	a := netip.MustParseAddr(addr)
	ev := func(b *fakeBGP, state string, id netip.Addr, at time.Time) {
		st := map[string]api.PeerState_SessionState{"established": api.PeerState_ESTABLISHED, "openconfirm": api.PeerState_OPENCONFIRM,
			"idle": api.PeerState_IDLE, "opensent": api.PeerState_OPENSENT}[state]
		b.setState(addr, st)
		e := plugin.PeerEvent{Peer: a, State: state, Time: at, RouterID: id}
		if state == "established" {
			e.Local, e.Remote = netip.MustParseAddrPort("192.0.2.1:40000"), netip.AddrPortFrom(a, 179)
		}
		b.events <- e
	}
	higher, lower := netip.MustParseAddr("192.0.2.2"), netip.MustParseAddr("192.0.2.0") // ours: 192.0.2.1
	for _, c := range []struct {
		name    string
		refused bool          // GoBGP refused the peer's dial in OpenSent
		reached string        // the state our connection got to ("": OpenSent only)
		id      netip.Addr    // the peer's BGP Identifier
		up      time.Duration // how long it stayed there
		want    int
	}{
		{"lost when Established", true, "established", higher, 2 * time.Millisecond, 1},
		{"lost in OpenConfirm", true, "openconfirm", higher, 2 * time.Millisecond, 1},
		{"no refused dial", false, "established", higher, 2 * time.Millisecond, 0},
		{"up for longer than collisionWindow", true, "established", higher, collisionWindow + 100*time.Millisecond, 0},
		{"the peer's Identifier is lower", true, "openconfirm", lower, 2 * time.Millisecond, 0},
		{"never got the peer's OPEN (two GoBGPs)", true, "", netip.Addr{}, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, b := start(t, cfg(t, twoPeers), newFakeSockets(), io.Discard)
			t0 := time.Now()
			ev(b, "opensent", netip.Addr{}, t0)
			if c.refused {
				m.OpenSentRefused("", a)
			}
			up := time.Now() // after the refusal, as GoBGP's events come
			end := up
			if c.reached != "" {
				ev(b, c.reached, c.id, up)
				end = up.Add(c.up)
			}
			ev(b, "idle", c.id, end)
			waitFor(t, "the end's event", func() bool {
				m.mu.Lock()
				defer m.mu.Unlock()
				s := m.sess[nbr("", a)]
				return s != nil && s.state == "idle" && s.since.Equal(end)
			})
			if c.want == 1 {
				waitFor(t, "the restart", func() bool { return restarts(b, addr) == 1 })
				if err := dial(t, m, addr); !errors.Is(err, errDialDeferred) {
					t.Fatalf("a dial right after the restart: %v (want it deferred for the peer's)", err)
				}
			}
			m.Reconcile(context.Background())
			ev(b, "idle", c.id, end) // GoBGP's new neighbor, Idle
			m.Reconcile(context.Background())
			if n := restarts(b, addr); n != c.want {
				t.Fatalf("%d restarts, want %d: calls %v", n, c.want, b.calls)
			}
		})
	}
}

// TestCollisionLostRule: the refused dial must come before the session was
// up (at most collisionWindow before), and the session must have lasted
// less than collisionWindow.
func TestCollisionLostRule(t *testing.T) {
	var clock time.Time
	m := New(Options{Config: cfg(t, twoPeers), Sockets: newFakeSockets(), Now: func() time.Time { return clock }})
	a, id := netip.MustParseAddr("192.0.2.2"), netip.MustParseAddr("192.0.2.2")
	t0 := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	clock = at(0)
	m.OpenSentRefused("", a)
	for _, c := range []struct {
		name     string
		up, down int // ms
		want     bool
	}{
		{"refused 4 ms before up, down 2 ms after", 4, 6, true},
		{"refused as it came up", 0, 1, true},
		{"refused 999 ms before up", 999, 1000, true},
		{"refused a window before up", 1000, 1001, false},
		{"refused after it came up", -1, 5, false},
		{"up for a window", 4, 1004, false},
	} {
		m.mu.Lock()
		got := m.collisionLost(nbr("", a), id, at(c.up), at(c.down))
		m.mu.Unlock()
		if got != c.want {
			t.Errorf("%s: collisionLost = %v, want %v", c.name, got, c.want)
		}
	}
	if m.collisionLost(nbr("", netip.MustParseAddr("192.0.2.3")), id, at(1), at(2)) {
		t.Error("a peer without refused dials lost a collision")
	}
	for _, other := range []string{"192.0.2.1", "192.0.2.0", "0.0.0.1"} {
		if m.collisionLost(nbr("", a), netip.MustParseAddr(other), at(4), at(6)) {
			t.Errorf("a peer with the Identifier %s, not above ours (192.0.2.1), lost a collision", other)
		}
	}
	if m.collisionLost(nbr("", a), netip.Addr{}, at(4), at(6)) {
		t.Error("a peer whose Identifier is unknown lost a collision")
	}
	if !higherID(netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("9.255.255.255")) || higherID(netip.MustParseAddr("9.255.255.255"), netip.MustParseAddr("10.0.0.1")) {
		t.Error("higherID does not compare as unsigned integers")
	}
}
