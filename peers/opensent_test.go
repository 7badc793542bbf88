package peers

import (
	"context"
	"io"
	"net/netip"
	"sync/atomic"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"

	"github.com/authbgp/authbgpd/plugin"
)

// TestStuckOpenSent: GoBGP, in OpenSent, refuses the peer's dials. One
// refusal, or two within stuckOpenSentSpan, is a collision: left alone. A
// second one stuckOpenSentSpan after the first, in the same OpenSent,
// restarts the neighbor once, and its dials then wait for the peer's;
// refusals from before the session entered OpenSent, or a session that
// left it, restart nothing.
func TestStuckOpenSent(t *testing.T) {
	const addr = "192.0.2.2"
	a := netip.MustParseAddr(addr)
	for _, c := range []struct {
		name    string
		gaps    []time.Duration // refusals, after the session entered OpenSent
		before  bool            // one more refusal before it entered OpenSent
		leaves  bool            // the session leaves OpenSent before the pass
		restart bool
	}{
		{name: "one refusal: a collision", gaps: []time.Duration{time.Second}},
		{name: "two in one collision", gaps: []time.Duration{time.Second, time.Second + stuckOpenSentSpan/2}},
		{name: "the peer dialed again", gaps: []time.Duration{time.Second, time.Second + stuckOpenSentSpan}, restart: true},
		{name: "again, and again", gaps: []time.Duration{time.Second, 6 * time.Second, 11 * time.Second}, restart: true},
		{name: "the first before this OpenSent", gaps: []time.Duration{time.Second + stuckOpenSentSpan}, before: true},
		{name: "an earlier state's, then the peer dialed again", gaps: []time.Duration{time.Second, time.Second + stuckOpenSentSpan}, before: true, restart: true},
		{name: "left OpenSent", gaps: []time.Duration{time.Second, time.Second + stuckOpenSentSpan}, leaves: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, b := start(t, cfg(t, twoPeers), newFakeSockets(), io.Discard)
			clock := fakeClock(m)
			now := func() time.Time { return time.Unix(0, clock.Load()) }
			event := func(state string, ps api.PeerState_SessionState) {
				b.setState(addr, ps)
				b.events <- plugin.PeerEvent{Peer: a, State: state, Time: now()}
				waitFor(t, state, func() bool { return m.Status()[0].State == state })
			}
			event("active", api.PeerState_ACTIVE)
			if c.before {
				m.OpenSentRefused("", a)
			}
			clock.Add(int64(time.Second))
			event("opensent", api.PeerState_OPENSENT)
			t0 := now()
			for _, g := range c.gaps {
				clock.Store(t0.Add(g).UnixNano())
				m.OpenSentRefused("", netip.MustParseAddr("::ffff:"+addr))
			}
			if c.leaves {
				event("openconfirm", api.PeerState_OPENCONFIRM)
			}
			m.Reconcile(context.Background())
			m.Reconcile(context.Background())
			want := 0
			if c.restart {
				want = 1
			}
			if n := restarts(b, addr); n != want {
				t.Fatalf("%d restarts, want %d: calls %v", n, want, b.calls)
			}
			if c.restart {
				if err := dial(t, m, addr); err == nil {
					t.Fatal("the restarted neighbor's dial did not wait for the peer's")
				}
			}
		})
	}
}

// TestOpenSentRefusedKicks: a first refused dial (a collision: 1,000
// sessions coming up make hundreds) asks for no pass; one that comes
// stuckOpenSentSpan or more after an earlier one does.
func TestOpenSentRefusedKicks(t *testing.T) {
	var clock atomic.Int64
	clock.Store(time.Now().UnixNano())
	m := New(Options{Config: cfg(t, twoPeers), Sockets: newFakeSockets(), Now: func() time.Time { return time.Unix(0, clock.Load()) }})
	a := netip.MustParseAddr("192.0.2.2")
	m.OpenSentRefused("", a)
	clock.Add(int64(stuckOpenSentSpan / 2))
	m.OpenSentRefused("", a)
	if len(m.kick) != 0 {
		t.Fatal("a collision's refused dials asked for a pass")
	}
	clock.Add(int64(stuckOpenSentSpan / 2))
	m.OpenSentRefused("", a)
	if len(m.kick) != 1 {
		t.Fatal("a refused dial stuckOpenSentSpan after the first asked for no pass")
	}
}
