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

// loopTurn is the median time of a GetBgp, one turn of Serve's loop, on a
// server with n passive neighbors (no listener, no dials: nothing but the
// API call moves).
func loopTurn(t *testing.T, n, calls int) time.Duration {
	t.Helper()
	ctx := context.Background()
	s := server.NewBgpServer(server.LoggerOption(quietLogger{}))
	go s.Serve()
	if err := s.StartBgp(ctx, &api.StartBgpRequest{Global: &api.Global{
		Asn: 64500, RouterId: "192.0.2.1", ListenPort: -1,
	}}); err != nil {
		t.Fatal(err)
	}
	defer s.StopBgp(ctx, &api.StopBgpRequest{})
	for i := range n {
		addr := fmt.Sprintf("2001:db8:ff::%x", i+1)
		if err := s.AddPeer(ctx, &api.AddPeerRequest{Peer: &api.Peer{
			Conf:      &api.PeerConf{NeighborAddress: addr, PeerAsn: 64501},
			Transport: &api.Transport{PassiveMode: true},
		}}); err != nil {
			t.Fatalf("add neighbor %s: %v", addr, err)
		}
	}
	d := make([]time.Duration, calls)
	for i := range d {
		start := time.Now()
		if _, err := s.GetBgp(ctx, &api.GetBgpRequest{}); err != nil {
			t.Fatal(err)
		}
		d[i] = time.Since(start)
	}
	slices.Sort(d)
	return d[len(d)/2]
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
	few := loopTurn(t, 10, calls)
	many := loopTurn(t, 1000, calls)
	ratio := float64(many) / float64(few)
	t.Logf("median GetBgp: %v with 10 neighbors, %v with 1,000 (%.1fx)", few, many, ratio)
	if ratio > 5 {
		t.Errorf("a turn of Serve's loop costs %.1fx at 1,000 neighbors what it costs at 10 (%v against %v): is patches/0002 (one incoming channel) still applied?", ratio, many, few)
	}
}
