package plugin

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"
)

// A VRF's neighbor goes to the VRF's own GoBGP instance (made for it), is
// found there by address afterwards, and the default instance never sees
// it; every listing covers all instances.
func TestVRFInstances(t *testing.T) {
	h := newTestHost(t, Options{ListenPort: -1})
	ctx := context.Background()
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	peer := func(addr string) *api.Peer {
		return &api.Peer{Conf: &api.PeerConf{NeighborAddress: addr, PeerAsn: 65002}, Transport: &api.Transport{PassiveMode: true}}
	}
	// No VRF device is needed without listeners (ListenPort -1).
	if err := h.AddPeerIn(ctx, "blue", peer("198.51.100.2")); err != nil {
		t.Fatal(err)
	}
	if err := h.AddPeerIn(ctx, "", peer("192.0.2.2")); err != nil {
		t.Fatal(err)
	}
	if got := h.VRFs(); fmt.Sprint(got) != "[blue]" {
		t.Fatalf("VRFs = %v", got)
	}
	var inDefault []string
	if err := h.bgp.ListPeer(ctx, &api.ListPeerRequest{}, func(p *api.Peer) { inDefault = append(inDefault, p.Conf.NeighborAddress) }); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(inDefault) != "[192.0.2.2]" {
		t.Errorf("the default instance has %v, want only 192.0.2.2", inDefault)
	}
	all, err := h.ListPeer(ctx, "")
	if err != nil || len(all) != 2 {
		t.Fatalf("ListPeer(all) = %d peers, %v", len(all), err)
	}
	if one, err := h.ListPeer(ctx, "198.51.100.2"); err != nil || len(one) != 1 {
		t.Fatalf("ListPeer(blue's) = %v, %v", one, err)
	}
	if err := h.DeletePeer(ctx, "198.51.100.2"); err != nil {
		t.Fatalf("DeletePeer of blue's neighbor: %v", err)
	}
	if all, _ := h.ListPeer(ctx, ""); len(all) != 1 {
		t.Errorf("after the delete: %d peers", len(all))
	}
}

// One address is a neighbor of two VRFs' instances (and of the default
// one): each listing names each by its VRF, and each call ending in In
// acts on its VRF's neighbor alone; a VRF without an instance is an error,
// never the default VRF's neighbor of that address.
func TestVRFSameAddress(t *testing.T) {
	h := newTestHost(t, Options{ListenPort: -1})
	ctx := context.Background()
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	ch, cancel := h.Subscribe(16)
	defer cancel()
	for _, vrf := range []string{"", "blue", "red"} {
		p := &api.Peer{Conf: &api.PeerConf{NeighborAddress: "192.0.2.2", PeerAsn: 65002}, Transport: &api.Transport{PassiveMode: true}}
		if err := h.AddPeerIn(ctx, vrf, p); err != nil {
			t.Fatal(err)
		}
	}
	vrfsOf := func(ps []*api.Peer) string {
		var out []string
		for _, p := range ps {
			out = append(out, fmt.Sprintf("%q", VRFOf(p)))
		}
		return fmt.Sprint(out)
	}
	all, _, err := h.PeersAndPasswords(ctx)
	if err != nil || vrfsOf(all) != `["" "blue" "red"]` {
		t.Fatalf("PeersAndPasswords: %s, %v", vrfsOf(all), err)
	}
	if one, err := h.ListPeerIn(ctx, "red", "192.0.2.2"); err != nil || vrfsOf(one) != `["red"]` {
		t.Fatalf("ListPeerIn(red) = %s, %v", vrfsOf(one), err)
	}
	if _, err := h.ListPeerIn(ctx, "green", "192.0.2.2"); err == nil {
		t.Fatal("ListPeerIn of a VRF without an instance answered")
	}
	if err := h.DeletePeerIn(ctx, "green", "192.0.2.2"); err == nil {
		t.Fatal("DeletePeerIn of a VRF without an instance deleted something")
	}
	if err := h.DeletePeerIn(ctx, "blue", "192.0.2.2"); err != nil {
		t.Fatal(err)
	}
	if all, _ := h.ListPeer(ctx, ""); vrfsOf(all) != `["" "red"]` {
		t.Fatalf("after deleting blue's: %s", vrfsOf(all))
	}
	for deadline := time.After(5 * time.Second); ; {
		select {
		case ev := <-ch:
			if ev.Deleted {
				if ev.VRF != "blue" {
					t.Fatalf("deleted event in %q, want blue", ev.VRF)
				}
				return
			}
		case <-deadline:
			t.Fatal("no deleted event")
		}
	}
}

// BenchmarkVRFInstance reports what one more VRF costs: the heap of one
// more GoBGP instance (made and started, no listeners, no neighbors).
//
//	go test -run x -bench VRFInstance -benchtime 20x ./plugin/
func BenchmarkVRFInstance(b *testing.B) {
	h := newTestHost(b, Options{ListenPort: -1})
	ctx := context.Background()
	if err := h.Start(ctx); err != nil {
		b.Fatal(err)
	}
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before, goroutines := heap(), runtime.NumGoroutine()
	for i := range b.N {
		if _, err := h.serverIn(ctx, fmt.Sprintf("vrf%d", i)); err != nil {
			b.Fatal(err)
		}
	}
	after := heap()
	b.ReportMetric(float64(after-before)/float64(b.N)/1024, "KiB/vrf")
	b.ReportMetric(float64(runtime.NumGoroutine()-goroutines)/float64(b.N), "goroutines/vrf")
}

// A VRF instance that cannot start (its listener cannot bind to a VRF
// device that does not exist) is an error, and is not tried again for
// vrfRetry: each try leaves GoBGP's Serve goroutine behind.
func TestVRFInstanceFailureNotRetriedAtOnce(t *testing.T) {
	h := newTestHost(t, Options{ListenPort: int32(freePort(t)), ListenAddresses: []string{"127.0.0.1"}})
	ctx := context.Background()
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := h.serverIn(ctx, "nosuchvrf9"); err == nil {
		t.Fatal("an instance bound to a device that does not exist started")
	}
	n := runtime.NumGoroutine()
	for range 5 {
		if _, err := h.serverIn(ctx, "nosuchvrf9"); err == nil {
			t.Fatal("started on a retry")
		}
	}
	if d := runtime.NumGoroutine() - n; d > 0 {
		t.Errorf("5 retries within vrfRetry left %d goroutines more", d)
	}
	if len(h.VRFs()) != 0 {
		t.Errorf("VRFs = %v", h.VRFs())
	}
}

// An instance's peer events can come before AddPeerIn records where its
// neighbor is (and are all that tells of a dynamic neighbor's session):
// its event callback records the neighbor's VRF from the first event on.
// (Its map was made lazily by AddPeerIn once: an event first was a panic,
// a nil map, in 1 of 13 VM runs.)
func TestVRFInstanceEventFirst(t *testing.T) {
	h := newTestHost(t, Options{ListenPort: -1})
	ctx := context.Background()
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	s, err := h.serverIn(ctx, "green")
	if err != nil {
		t.Fatal(err)
	}
	// Straight to the instance, as a dynamic neighbor's session appears:
	// no AddPeerIn, so only its events tell where it is.
	p := &api.Peer{Conf: &api.PeerConf{NeighborAddress: "198.51.100.9", PeerAsn: 65002}, Transport: &api.Transport{PassiveMode: true}}
	if err := s.AddPeer(ctx, &api.AddPeerRequest{Peer: p}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for h.serverOf("198.51.100.9") != s {
		if time.Now().After(deadline) {
			t.Fatal("the instance's peer event did not place its neighbor in VRF green")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
