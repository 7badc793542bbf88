package plugin

import (
	"context"
	"net/netip"
	"sync"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"
)

func TestPeerEventFromAPI(t *testing.T) {
	p := &api.Peer{
		Conf:      &api.PeerConf{NeighborAddress: "::ffff:192.0.2.2"},
		State:     &api.PeerState{NeighborAddress: "::ffff:192.0.2.2", SessionState: api.PeerState_OPENSENT, AdminState: api.PeerState_UP, PeerAsn: 65002, RouterId: "198.51.100.7"},
		Transport: &api.Transport{LocalAddress: "192.0.2.1", LocalPort: 179, RemotePort: 40000},
	}
	now := time.Now()
	ev, ok := peerEventFromAPI(p, "", now)
	want := PeerEvent{
		Peer: netip.MustParseAddr("192.0.2.2"), State: "opensent",
		Local:  netip.MustParseAddrPort("192.0.2.1:179"),
		Remote: netip.MustParseAddrPort("192.0.2.2:40000"),
		Time:   now, PeerASN: 65002, RouterID: netip.MustParseAddr("198.51.100.7"),
	}
	if !ok || ev != want {
		t.Fatalf("got %+v, want %+v", ev, want)
	}
	// Before OPENSENT GoBGP reports net.IP(nil).String() == "<nil>" and
	// zero ports.
	p.State.SessionState, p.State.AdminState = api.PeerState_ACTIVE, api.PeerState_DOWN
	p.Transport = &api.Transport{LocalAddress: "<nil>"}
	p.State.RouterId = "0.0.0.0" // no OPEN received yet
	ev, _ = peerEventFromAPI(p, "", now)
	if ev.State != "active" || !ev.AdminDown || ev.Local.IsValid() || ev.Remote.IsValid() || ev.RouterID.IsValid() {
		t.Fatalf("got %+v", ev)
	}
	for s, n := range map[api.PeerState_SessionState]string{
		api.PeerState_IDLE: "idle", api.PeerState_CONNECT: "connect", api.PeerState_OPENCONFIRM: "openconfirm",
		api.PeerState_ESTABLISHED: "established", api.PeerState_UNKNOWN: "unknown",
	} {
		if got := SessionStateName(s); got != n {
			t.Errorf("SessionStateName(%v) = %q", s, got)
		}
	}
	if _, ok := peerEventFromAPI(&api.Peer{}, "", now); ok {
		t.Fatal("event without an address accepted")
	}
}

// TestFanOutSlowSubscriber: a subscriber that never reads loses events
// (counted) without delaying publication or the other subscribers; cancel
// and Stop race with publication safely (run with -race).
func TestFanOutSlowSubscriber(t *testing.T) {
	h := newTestHost(t, Options{ListenPort: -1})
	stuck, cancelStuck := h.Subscribe(2)
	fast, cancelFast := h.Subscribe(16)
	defer cancelFast()

	const n = 1000
	a := netip.MustParseAddr("192.0.2.9")
	got := make(chan int)
	go func() {
		c := 0
		for range fast {
			c++
		}
		got <- c
	}()
	start := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < n/4; i++ {
				h.ev.publish(PeerEvent{Peer: a, State: "active"})
				if i%16 == 0 {
					time.Sleep(time.Millisecond) // let the fast reader keep up
				}
			}
		}()
	}
	// Subscribe/cancel churn during publication.
	for i := 0; i < 50; i++ {
		_, c := h.Subscribe(0)
		c()
	}
	wg.Wait()
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("publication took %v", d)
	}
	if len(stuck) != 2 {
		t.Fatalf("stuck subscriber holds %d events, want its buffer (2)", len(stuck))
	}
	if h.DroppedEvents() < n-2 {
		t.Fatalf("dropped %d, want at least %d", h.DroppedEvents(), n-2)
	}
	cancelStuck()
	if err := h.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	c := <-got // fast's channel is closed by Stop
	if c == 0 {
		t.Fatal("fast subscriber got nothing")
	}
	t.Logf("fast subscriber got %d of %d, dropped in total %d", c, n, h.DroppedEvents())
	// After Stop: publication is a no-op, Subscribe returns a closed channel.
	h.ev.publish(PeerEvent{Peer: a, State: "idle"})
	ch, c2 := h.Subscribe(1)
	if _, ok := <-ch; ok {
		t.Fatal("Subscribe after Stop: channel open")
	}
	c2()
}
