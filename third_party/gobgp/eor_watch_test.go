package gobgp_test

import (
	"context"
	"net/netip"
	"sync"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/osrg/gobgp/v3/pkg/server"
	"google.golang.org/protobuf/types/known/anypb"
)

// TestWatchBestPathsAndEndOfRIB checks what patches/0034 is carried for:
// a neighbor's End-of-RIB marker is told after the best-path change its
// routes before the marker made, on the same watcher, with the neighbor's
// address and the family.
func TestWatchBestPathsAndEndOfRIB(t *testing.T) {
	a := grSpeaker(t, 64501, "192.0.2.1", "127.0.0.1")
	b := grSpeaker(t, 64502, "192.0.2.2", "127.0.0.2")
	defer a.s.Stop()
	defer b.s.Stop()
	nlri, _ := anypb.New(&api.IPAddressPrefix{Prefix: "198.51.100.0", PrefixLen: 24})
	origin, _ := anypb.New(&api.OriginAttribute{Origin: 0})
	nh, _ := anypb.New(&api.NextHopAttribute{NextHop: "127.0.0.2"})
	if _, err := b.s.AddPath(context.Background(), &api.AddPathRequest{Path: &api.Path{
		Family: &api.Family{Afi: api.Family_AFI_IP, Safi: api.Family_SAFI_UNICAST},
		Nlri:   nlri, Pattrs: []*anypb.Any{origin, nh},
	}}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var events []string // "path" for the prefix's change, "eor" for b's IPv4 marker
	var eor server.EndOfRIB
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := a.s.WatchBestPathsAndEndOfRIB(ctx, func(changes []server.BestPathChange, _ bool) {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range changes {
			if c.Prefix == netip.MustParsePrefix("198.51.100.0/24") && len(c.Paths) > 0 {
				events = append(events, "path")
			}
		}
	}, func(e server.EndOfRIB) {
		mu.Lock()
		defer mu.Unlock()
		if e.Afi == 1 && e.Safi == 1 {
			events, eor = append(events, "eor"), e
		}
	}); err != nil {
		t.Fatal(err)
	}
	a.peer(t, b, 64502)
	b.peer(t, a, 64501)
	waitUntil(t, 30*time.Second, "b's End-of-RIB at a", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return eor.Neighbor.IsValid()
	})
	mu.Lock()
	defer mu.Unlock()
	if len(events) < 2 || events[0] != "path" || events[len(events)-1] != "eor" {
		t.Errorf("the watcher told %v: want b's path before its End-of-RIB", events)
	}
	if eor.Neighbor != netip.MustParseAddr("127.0.0.2") || eor.NeighborLocal != netip.MustParseAddr("127.0.0.1") {
		t.Errorf("End-of-RIB %+v: want neighbor 127.0.0.2, ours 127.0.0.1", eor)
	}
}
