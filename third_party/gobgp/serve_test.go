package gobgp_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/osrg/gobgp/v3/pkg/log"
	"github.com/osrg/gobgp/v3/pkg/server"
)

// quietLogger drops GoBGP's log lines: 1,000 "Add a peer configuration"
// lines say nothing here.
type quietLogger struct{}

func (quietLogger) Panic(string, log.Fields) {}
func (quietLogger) Fatal(string, log.Fields) {}
func (quietLogger) Error(string, log.Fields) {}
func (quietLogger) Warn(string, log.Fields)  {}
func (quietLogger) Info(string, log.Fields)  {}
func (quietLogger) Debug(string, log.Fields) {}
func (quietLogger) SetLevel(log.LogLevel)    {}
func (quietLogger) GetLevel() log.LogLevel   { return log.PanicLevel }

// passiveServer is a server with n passive neighbors (no listener, no
// dials: nothing moves but API calls).
func passiveServer(t *testing.T, n int) *server.BgpServer {
	t.Helper()
	ctx := context.Background()
	s := server.NewBgpServer(server.LoggerOption(quietLogger{}))
	go s.Serve()
	if err := s.StartBgp(ctx, &api.StartBgpRequest{Global: &api.Global{
		Asn: 64500, RouterId: "192.0.2.1", ListenPort: -1,
	}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.StopBgp(ctx, &api.StopBgpRequest{}) })
	for i := range n {
		addr := fmt.Sprintf("2001:db8:ff::%x", i+1)
		if err := s.AddPeer(ctx, &api.AddPeerRequest{Peer: &api.Peer{
			Conf:      &api.PeerConf{NeighborAddress: addr, PeerAsn: 64501},
			Transport: &api.Transport{PassiveMode: true},
		}}); err != nil {
			t.Fatalf("add neighbor %s: %v", addr, err)
		}
	}
	return s
}

// median of d (sorted in place).
func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}

// settled waits until every neighbor of s has left Idle: each FSM's first
// state change is a message through Serve's loop, and 1,000 of them still
// arriving would be measured as the loop's cost.
func settled(t *testing.T, s *server.BgpServer, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		active := 0
		if err := s.ListPeer(context.Background(), &api.ListPeerRequest{}, func(p *api.Peer) {
			if p.GetState().GetSessionState() == api.PeerState_ACTIVE {
				active++
			}
		}); err != nil {
			t.Fatal(err)
		}
		if active == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d passive neighbors Active after 30 s", active, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// loopTurns is the median time of a GetBgp, one turn of Serve's loop, on
// each of the servers, measured in turns: one call to each server, then the
// next. Other work on the machine (go test runs packages side by side)
// then falls on both medians alike; measured one server after the other, a
// busy second made the ratio 5.2x on CI with nothing wrong in Serve.
func loopTurns(t *testing.T, calls int, servers ...*server.BgpServer) []time.Duration {
	t.Helper()
	d := make([][]time.Duration, len(servers))
	for i := range d {
		d[i] = make([]time.Duration, calls)
	}
	for c := range calls {
		for i, s := range servers {
			start := time.Now()
			if _, err := s.GetBgp(context.Background(), &api.GetBgpRequest{}); err != nil {
				t.Fatal(err)
			}
			d[i][c] = time.Since(start)
		}
	}
	medians := make([]time.Duration, len(servers))
	for i := range d {
		medians[i] = median(d[i])
	}
	return medians
}

// TestServeTurnIndependentOfPeers checks what patches/0002 is carried for:
// a turn of GoBGP's Serve loop (here a GetBgp) costs about the same with
// 1,000 neighbors as with 10. Unpatched, Serve selects over a channel per
// neighbor each turn, and the turn at 1,000 costs 20-40 times the turn at
// 10 (about 0.3 ms against 10 us on this machine); with one channel for
// every neighbor's messages, about the same.
func TestServeTurnIndependentOfPeers(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts 1,000 neighbors")
	}
	const calls = 400
	fewServer, manyServer := passiveServer(t, 10), passiveServer(t, 1000)
	settled(t, fewServer, 10)
	settled(t, manyServer, 1000)
	m := loopTurns(t, calls, fewServer, manyServer)
	few, many := m[0], m[1]
	ratio := float64(many) / float64(few)
	t.Logf("median GetBgp: %v with 10 neighbors, %v with 1,000 (%.1fx)", few, many, ratio)
	if ratio > 5 {
		t.Errorf("a turn of Serve's loop costs %.1fx at 1,000 neighbors what it costs at 10 (%v against %v): is patches/0002 (one incoming channel) still applied?", ratio, many, few)
	}
}

// TestListPeerLetsOtherCallsIn checks what patches/0004 is carried for: a
// listing of every neighbor does not hold GoBGP's loop for its whole
// length. While one goroutine lists 1,000 neighbors back to back, the
// median GetBgp must wait under a fifth of the median listing. Unpatched,
// ListPeer converts every neighbor in one turn of Serve, and a GetBgp
// waits about half a listing; with 50 a turn, about a fortieth.
func TestListPeerLetsOtherCallsIn(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts 1,000 neighbors")
	}
	s := passiveServer(t, 1000)
	ctx := context.Background()
	list := func() time.Duration {
		start := time.Now()
		n := 0
		if err := s.ListPeer(ctx, &api.ListPeerRequest{}, func(*api.Peer) { n++ }); err != nil {
			t.Fatal(err)
		}
		if n != 1000 {
			t.Fatalf("ListPeer listed %d of 1,000 neighbors", n)
		}
		return time.Since(start)
	}
	listings := make([]time.Duration, 0, 64)
	for range 5 {
		listings = append(listings, list())
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				listings = append(listings, list())
			}
		}
	}()
	calls := make([]time.Duration, 200)
	for i := range calls {
		start := time.Now()
		if _, err := s.GetBgp(ctx, &api.GetBgpRequest{}); err != nil {
			t.Fatal(err)
		}
		calls[i] = time.Since(start)
		time.Sleep(time.Millisecond)
	}
	close(stop)
	<-done
	l, c := median(listings), median(calls)
	t.Logf("median ListPeer of 1,000 neighbors %v; median GetBgp during listings %v (%.3f of a listing)", l, c, float64(c)/float64(l))
	if c > l/5 {
		t.Errorf("a GetBgp waited %v (median) behind listings of %v: ListPeer holds Serve for a whole listing (is patches/0004 still applied?)", c, l)
	}
}
