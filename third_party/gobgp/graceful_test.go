package gobgp_test

import (
	"context"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/osrg/gobgp/v3/pkg/server"
	"google.golang.org/protobuf/types/known/anypb"
)

// grNode is a GoBGP server on a loopback address with eBGP neighbors, all
// with graceful restart (RFC 4724) and its N bit (RFC 8538) on IPv4
// unicast: it helps a neighbor that restarts gracefully.
type grNode struct {
	s    *server.BgpServer
	addr string
	port int
}

func grSpeaker(t *testing.T, asn uint32, id, addr string) *grNode {
	t.Helper()
	n := &grNode{s: server.NewBgpServer(server.LoggerOption(quietLogger{})), addr: addr, port: freeTCPPort(t, addr)}
	go n.s.Serve()
	if err := n.s.StartBgp(context.Background(), &api.StartBgpRequest{Global: &api.Global{
		Asn: asn, RouterId: id, ListenPort: int32(n.port), ListenAddresses: []string{addr},
	}}); err != nil {
		t.Fatal(err)
	}
	return n
}

func (n *grNode) peer(t *testing.T, o *grNode, asn uint32) {
	t.Helper()
	fam := &api.Family{Afi: api.Family_AFI_IP, Safi: api.Family_SAFI_UNICAST}
	if err := n.s.AddPeer(context.Background(), &api.AddPeerRequest{Peer: &api.Peer{
		Conf:            &api.PeerConf{NeighborAddress: o.addr, PeerAsn: asn},
		Transport:       &api.Transport{LocalAddress: n.addr, RemotePort: uint32(o.port)},
		Timers:          &api.Timers{Config: &api.TimersConfig{ConnectRetry: 1}},
		GracefulRestart: &api.GracefulRestart{Enabled: true, RestartTime: 60, NotificationEnabled: true},
		AfiSafis: []*api.AfiSafi{{
			Config:            &api.AfiSafiConfig{Family: fam, Enabled: true},
			MpGracefulRestart: &api.MpGracefulRestart{Config: &api.MpGracefulRestartConfig{Enabled: true}},
		}},
	}}); err != nil {
		t.Fatal(err)
	}
}

// state is n's neighbor at addr: established, and NOTIFICATIONs received.
func (n *grNode) state(t *testing.T, addr string) (up bool, notifications uint64) {
	t.Helper()
	if err := n.s.ListPeer(context.Background(), &api.ListPeerRequest{Address: addr}, func(p *api.Peer) {
		up = p.GetState().GetSessionState() == api.PeerState_ESTABLISHED
		notifications = p.GetState().GetMessages().GetReceived().GetNotification()
	}); err != nil {
		t.Fatal(err)
	}
	return up, notifications
}

// has reports whether n's global RIB has prefix.
func (n *grNode) has(t *testing.T, prefix string) bool {
	t.Helper()
	found := false
	if err := n.s.ListPath(context.Background(), &api.ListPathRequest{
		TableType: api.TableType_GLOBAL, Family: &api.Family{Afi: api.Family_AFI_IP, Safi: api.Family_SAFI_UNICAST},
		Prefixes: []*api.TableLookupPrefix{{Prefix: prefix}},
	}, func(d *api.Destination) { found = found || len(d.Paths) > 0 }); err != nil {
		t.Fatal(err)
	}
	return found
}

func waitUntil(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(d); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("not within %v: %s", d, what)
		}
	}
}

// TestStopGraceful checks what patches/0033 is carried for. A (AS 64501)
// has two eBGP neighbors, B and C, all three with graceful restart and
// its N bit. B's route reaches C through A. When A stops:
//   - StopGraceful: C sees A's session end with no NOTIFICATION, and, as
//     A's helper, keeps B's route (stale); A withdrew nothing to C first.
//   - Stop: A sends C a Cease, a Hard Reset with the N bit (RFC 8538), or
//     first B's withdrawal: C drops the route.
func TestStopGraceful(t *testing.T) {
	for _, graceful := range []bool{true, false} {
		name := map[bool]string{true: "StopGraceful", false: "Stop"}[graceful]
		t.Run(name, func(t *testing.T) {
			a := grSpeaker(t, 64501, "192.0.2.1", "127.0.0.1")
			b := grSpeaker(t, 64502, "192.0.2.2", "127.0.0.2")
			c := grSpeaker(t, 64503, "192.0.2.3", "127.0.0.3")
			defer b.s.Stop()
			defer c.s.Stop()
			a.peer(t, b, 64502)
			a.peer(t, c, 64503)
			b.peer(t, a, 64501)
			c.peer(t, a, 64501)
			nlri, _ := anypb.New(&api.IPAddressPrefix{Prefix: "198.51.100.0", PrefixLen: 24})
			origin, _ := anypb.New(&api.OriginAttribute{Origin: 0})
			nh, _ := anypb.New(&api.NextHopAttribute{NextHop: "127.0.0.2"})
			if _, err := b.s.AddPath(context.Background(), &api.AddPathRequest{Path: &api.Path{
				Family: &api.Family{Afi: api.Family_AFI_IP, Safi: api.Family_SAFI_UNICAST},
				Nlri:   nlri, Pattrs: []*anypb.Any{origin, nh},
			}}); err != nil {
				t.Fatal(err)
			}
			waitUntil(t, 30*time.Second, "C has B's route through A", func() bool { return c.has(t, "198.51.100.0/24") })
			_, before := c.state(t, a.addr)
			if graceful {
				a.s.StopGraceful()
			} else {
				a.s.Stop()
			}
			waitUntil(t, 10*time.Second, "C sees A's session end", func() bool { up, _ := c.state(t, a.addr); return !up })
			_, after := c.state(t, a.addr)
			if !graceful {
				waitUntil(t, 10*time.Second, "C drops B's route after A's Stop", func() bool { return !c.has(t, "198.51.100.0/24") })
				return
			}
			if after != before {
				t.Errorf("StopGraceful: C received %d NOTIFICATIONs from A, want none", after-before)
			}
			for end := time.Now().Add(time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
				if !c.has(t, "198.51.100.0/24") {
					t.Fatal("StopGraceful: C, A's helper, dropped B's route: A withdrew it or ended the session as not graceful")
				}
			}
		})
	}
}
