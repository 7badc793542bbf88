package gobgp_test

import (
	"context"
	"fmt"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/osrg/gobgp/v3/pkg/server"
	"google.golang.org/protobuf/types/known/anypb"
)

// freeTCPPort is a port nothing listens on at addr now.
func freeTCPPort(t *testing.T, addr string) int {
	t.Helper()
	l, err := net.Listen("tcp", net.JoinHostPort(addr, "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// speaker is a GoBGP server on a loopback address, peering with one other.
func speaker(t *testing.T, id, addr string, port int, peer string, peerPort int) *server.BgpServer {
	t.Helper()
	ctx := context.Background()
	s := server.NewBgpServer(server.LoggerOption(quietLogger{}))
	go s.Serve()
	if err := s.StartBgp(ctx, &api.StartBgpRequest{Global: &api.Global{
		Asn: 64500, RouterId: id, ListenPort: int32(port), ListenAddresses: []string{addr},
	}}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddPeer(ctx, &api.AddPeerRequest{Peer: &api.Peer{
		Conf:      &api.PeerConf{NeighborAddress: peer, PeerAsn: 64500},
		Transport: &api.Transport{LocalAddress: addr, RemotePort: uint32(peerPort)},
		Timers:    &api.Timers{Config: &api.TimersConfig{ConnectRetry: 1}},
	}}); err != nil {
		t.Fatal(err)
	}
	return s
}

// floodAttrs are the attributes every flooded path carries: ORIGIN,
// NEXT_HOP and 900 communities, for an UPDATE of nearly 4 KiB that takes
// its receiver a while to parse.
var floodAttrs = func() []*anypb.Any {
	comms := make([]uint32, 900)
	for j := range comms {
		comms[j] = 64500<<16 | uint32(j)
	}
	origin, _ := anypb.New(&api.OriginAttribute{Origin: 0})
	nh, _ := anypb.New(&api.NextHopAttribute{NextHop: "192.0.2.2"})
	c, _ := anypb.New(&api.CommunitiesAttribute{Communities: comms})
	return []*anypb.Any{origin, nh, c}
}()

// hostPath is the iBGP path to 198.51.100.<i>/32 with floodAttrs and MED
// med (a new MED makes a new path, so each one is sent).
func hostPath(i int, med uint32) *api.Path {
	nlri, _ := anypb.New(&api.IPAddressPrefix{Prefix: fmt.Sprintf("198.51.100.%d", i), PrefixLen: 32})
	m, _ := anypb.New(&api.MultiExitDiscAttribute{Med: med})
	return &api.Path{
		Family: &api.Family{Afi: api.Family_AFI_IP, Safi: api.Family_SAFI_UNICAST},
		Nlri:   nlri, Pattrs: append(slices.Clip(floodAttrs), m),
	}
}

// TestStopBgpWhileUpdatesArrive checks what patches/0003 is carried for:
// StopBgp clears GoBGP's global configuration only once the neighbors it
// deletes are freed. Unpatched, it clears it in the same turn that deletes
// them, while an established session's receiver still reads it for the
// UPDATE in hand (fsmHandler.recvMessageWithError, IsConfederationMember):
// a data race. Here one server stops while its peer floods it with
// UPDATEs, so its receiver is nearly always inside one; under -race
// (make test) the unpatched copy fails this test in most trials.
func TestStopBgpWhileUpdatesArrive(t *testing.T) {
	if !raceEnabled {
		t.Skip("needs -race (make test runs it so): it checks for a data race")
	}
	const trials = 20
	for trial := range trials {
		t.Run(fmt.Sprint(trial), func(t *testing.T) { stopUnderUpdates(t) })
	}
}

func stopUnderUpdates(t *testing.T) {
	ctx := context.Background()
	const a, b = "127.0.0.1", "127.0.0.2"
	pa, pb := freeTCPPort(t, a), freeTCPPort(t, b)
	sa := speaker(t, "192.0.2.1", a, pa, b, pb)
	sb := speaker(t, "192.0.2.2", b, pb, a, pa)
	defer sb.StopBgp(ctx, &api.StopBgpRequest{})

	deadline := time.Now().Add(30 * time.Second)
	for {
		var up bool
		if err := sa.ListPeer(ctx, &api.ListPeerRequest{}, func(p *api.Peer) {
			up = p.GetState().GetSessionState() == api.PeerState_ESTABLISHED
		}); err != nil {
			t.Fatal(err)
		}
		if up {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the two servers did not establish their session in 30 s")
		}
		time.Sleep(50 * time.Millisecond)
	}

	// b announces 20 paths over and over (a new MED each time), from two
	// goroutines: a's receiver always has an UPDATE to parse, and its
	// Adj-RIB-In stays small (StopBgp drops it between deleting the
	// neighbor and clearing the global configuration).
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for med := uint32(0); ; med++ {
				for i := range 10 {
					select {
					case <-stop:
						return
					default:
					}
					p := hostPath(10*g+i+1, med)
					if _, err := sb.AddPath(ctx, &api.AddPathRequest{Path: p}); err != nil {
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	// Until a has received some.
	for deadline := time.Now().Add(10 * time.Second); ; {
		var received uint64
		sa.ListPeer(ctx, &api.ListPeerRequest{}, func(p *api.Peer) {
			received = p.GetState().GetMessages().GetReceived().GetUpdate()
		})
		if received > 50 {
			break
		}
		if time.Now().After(deadline) {
			close(stop)
			wg.Wait()
			t.Fatalf("a received %d UPDATEs in 10 s", received)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := sa.StopBgp(ctx, &api.StopBgpRequest{}); err != nil {
		t.Fatal(err)
	}
	close(stop)
	wg.Wait()
}
