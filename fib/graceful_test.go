package fib

import (
	"context"
	"net/netip"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/authbgp/authbgpd/kroute"
	"github.com/authbgp/authbgpd/peerindex"
	"github.com/authbgp/authbgpd/plugin"
)

var (
	v4uc = &api.Family{Afi: api.Family_AFI_IP, Safi: api.Family_SAFI_UNICAST}
	v6uc = &api.Family{Afi: api.Family_AFI_IP6, Safi: api.Family_SAFI_UNICAST}
)

// grPeer is a neighbor as GoBGP's ListPeer tells it: graceful restart on
// or off, its session state, the families configured and those of its
// Multiprotocol capabilities.
func grPeer(addr string, graceful bool, state api.PeerState_SessionState, configured []*api.Family, remote ...*api.Family) *api.Peer {
	p := &api.Peer{
		Conf:            &api.PeerConf{NeighborAddress: addr},
		State:           &api.PeerState{NeighborAddress: addr, SessionState: state},
		GracefulRestart: &api.GracefulRestart{Enabled: graceful},
	}
	for _, f := range configured {
		p.AfiSafis = append(p.AfiSafis, &api.AfiSafi{Config: &api.AfiSafiConfig{Family: f, Enabled: true},
			// GoBGP's own state, set on the OPEN when both ends restart:
			// never taken for the marker.
			MpGracefulRestart: &api.MpGracefulRestart{State: &api.MpGracefulRestartState{EndOfRibReceived: true}}})
	}
	for _, f := range remote {
		c, _ := anypb.New(&api.MultiProtocolCapability{Family: f})
		p.State.RemoteCap = append(p.State.RemoteCap, c)
	}
	return p
}

func eor(addr string, f *api.Family) eorKey {
	return eorKey{"", netip.MustParseAddr(addr), familyOf(f)}
}

func TestAllEndOfRIB(t *testing.T) {
	up, down := api.PeerState_ESTABLISHED, api.PeerState_ACTIVE
	both := []*api.Family{v4uc, v6uc}
	cases := []struct {
		name string
		ps   []*api.Peer
		seen map[eorKey]bool
		want bool
	}{
		{"no neighbor", nil, nil, true},
		{"not graceful: not waited for", []*api.Peer{grPeer("192.0.2.2", false, down, both, both...)}, nil, true},
		{"graceful, down", []*api.Peer{grPeer("192.0.2.2", true, down, both, both...)}, nil, false},
		{"up, no marker (GoBGP's state says received)", []*api.Peer{grPeer("192.0.2.2", true, up, both, both...)}, nil, false},
		{"up, one family's marker", []*api.Peer{grPeer("192.0.2.2", true, up, both, both...)},
			map[eorKey]bool{eor("192.0.2.2", v4uc): true}, false},
		{"up, both markers", []*api.Peer{grPeer("192.0.2.2", true, up, both, both...)},
			map[eorKey]bool{eor("192.0.2.2", v4uc): true, eor("192.0.2.2", v6uc): true}, true},
		{"a family the neighbor does not carry", []*api.Peer{grPeer("192.0.2.2", true, up, both, v4uc)},
			map[eorKey]bool{eor("192.0.2.2", v4uc): true}, true},
		{"no Multiprotocol capability: IPv4 unicast", []*api.Peer{grPeer("192.0.2.2", true, up, both)},
			map[eorKey]bool{eor("192.0.2.2", v4uc): true}, true},
		{"another neighbor's marker", []*api.Peer{grPeer("192.0.2.2", true, up, []*api.Family{v4uc}, v4uc)},
			map[eorKey]bool{eor("192.0.2.6", v4uc): true}, false},
		{"the same address's marker in another VRF", []*api.Peer{grPeer("192.0.2.2", true, up, []*api.Family{v4uc}, v4uc)},
			map[eorKey]bool{{"blue", netip.MustParseAddr("192.0.2.2"), familyOf(v4uc)}: true}, false},
		{"a link-local neighbor's marker, unzoned", []*api.Peer{grPeer("fe80::2%eth1", true, up, []*api.Family{v6uc}, v6uc)},
			map[eorKey]bool{eor("fe80::2", v6uc): true}, true},
	}
	for _, c := range cases {
		if got := allEndOfRIB(c.ps, c.seen); got != c.want {
			t.Errorf("%s: allEndOfRIB = %v, want %v", c.name, got, c.want)
		}
	}
}

// With graceful restart, the routes an earlier run left stay until every
// neighbor with graceful restart is back with its End-of-RIB (then the
// ones not sent again go at once), or the restart time.
func TestGracefulTakeover(t *testing.T) {
	for _, synced := range []bool{true, false} {
		s := newScene(t)
		s.r.opts.Graceful, s.r.opts.RestartTime = true, time.Minute
		kept := kroute.Route{Key: kroute.Key{Table: kroute.MainTable, Dst: netip.MustParsePrefix("198.51.100.0/25")}, NextHops: []kroute.NextHop{{Gateway: netip.MustParseAddr("192.0.2.2"), Ifindex: 2}}}
		stale := kroute.Route{Key: kroute.Key{Table: kroute.MainTable, Dst: netip.MustParsePrefix("198.51.100.128/25")}, NextHops: []kroute.NextHop{{Gateway: netip.MustParseAddr("192.0.2.3"), Ifindex: 2}}}
		s.k.routes[kept.Key], s.k.routes[stale.Key] = kept, stale
		s.r.once.Do(func() { s.r.beginErr = s.r.begin(s.now) }) // the scene's clock
		if !s.r.Restarting() {
			t.Fatal("Restarting: false with routes of ours in the kernel")
		}
		peer := grPeer("192.0.2.2", true, api.PeerState_ESTABLISHED, []*api.Family{v4uc}, v4uc)
		s.r.peers = func(context.Context) ([]*api.Peer, error) { return []*api.Peer{peer}, nil }
		s.up("192.0.2.2", "192.0.2.1")
		s.r.Record("", []plugin.BestPathChange{change("198.51.100.0/25", hop("192.0.2.2", "192.0.2.2", "192.0.2.1"))}, true)
		s.now = s.now.Add(time.Second)
		s.r.checkSynced(context.Background(), s.now)
		s.r.runPass(s.now)
		s.want("up, before its End-of-RIB", kept.String(), stale.String())
		if synced {
			s.r.RecordEndOfRIB("", plugin.EndOfRIB{Neighbor: netip.MustParseAddr("192.0.2.2"), Afi: 1, Safi: 1})
		}
		s.now = s.now.Add(time.Second)
		s.r.checkSynced(context.Background(), s.now)
		s.r.runPass(s.now)
		if synced {
			s.want("after its End-of-RIB", kept.String())
			continue
		}
		s.want("no End-of-RIB: within the restart time", kept.String(), stale.String())
		s.pass(time.Minute)
		s.want("no End-of-RIB: after the restart time", kept.String())
	}
}

// Without routes of ours in the kernel, the daemon does not restart with
// its forwarding state; a nil Reconciler ([fib] off) never does.
func TestRestartingNone(t *testing.T) {
	if newScene(t).r.Restarting() {
		t.Error("Restarting: true with no route of ours in the kernel")
	}
	if (*Reconciler)(nil).Restarting() {
		t.Error("a nil Reconciler is restarting")
	}
}

// An interface peer's End-of-RIB ends nothing while its link is not known
// (its paths want nothing yet, desiredOf), nor a neighbor's while no
// session places it: the takeover hold waits for the snapshot too.
func TestPlacedAll(t *testing.T) {
	ll, num := netip.MustParseAddr("fe80::2"), netip.MustParseAddr("192.0.2.2")
	peers := []*api.Peer{
		grPeer("fe80::2%eth1", true, api.PeerState_ESTABLISHED, []*api.Family{v6uc}, v6uc),
		grPeer("192.0.2.2", true, api.PeerState_ESTABLISHED, []*api.Family{v4uc}, v4uc),
		grPeer("192.0.2.9", false, api.PeerState_ESTABLISHED, []*api.Family{v4uc}, v4uc), // not graceful: not waited for
	}
	nb := neighbors{exact: map[neighborKey]where{}, byAddr: map[peerindex.Neighbor]where{}}
	if placedAll(peers, &nb) {
		t.Error("placedAll with no neighbor placed")
	}
	nb.byAddr[peerindex.Neighbor{Addr: num}] = where{}
	nb.exact[neighborKey{addr: ll, local: netip.MustParseAddr("fe80::1")}] = where{}
	if placedAll(peers, &nb) {
		t.Error("placedAll with the interface peer's link unknown")
	}
	nb.exact[neighborKey{addr: ll, local: netip.MustParseAddr("fe80::1")}] = where{Link: 3}
	if !placedAll(peers, &nb) {
		t.Error("placedAll false with both placed, the link known")
	}
}

// A path from an interface peer whose link is not known yet wants
// nothing: never a route through whichever link the kernel finds first
// for an unzoned fe80:: address.
func TestLinkLocalNeighborLinkUnknown(t *testing.T) {
	ll := netip.MustParseAddr("fe80::2")
	nb := neighbors{exact: map[neighborKey]where{}, byAddr: map[peerindex.Neighbor]where{{Addr: ll}: {}}}
	k := kroute.Key{Table: kroute.MainTable, Dst: netip.MustParsePrefix("198.51.100.128/25")}
	h := plugin.BestPathHop{Nexthop: ll, Neighbor: ll, NeighborLocal: netip.MustParseAddr("fe80::1")}
	res := map[resolveKey]resolution{{Table: kroute.MainTable, Addr: ll}: {Hop: kroute.NextHop{Ifindex: 9}}}
	if w := desiredOf(k, "", []plugin.BestPathHop{h}, &nb, res); w.Want {
		t.Errorf("link unknown: %+v, want nothing", w)
	}
	nb.byAddr[peerindex.Neighbor{Addr: ll}] = where{Link: 3}
	if w := desiredOf(k, "", []plugin.BestPathHop{h}, &nb, res); !w.Want || w.Reason != "" || w.Route.NextHops[0].Ifindex != 3 {
		t.Errorf("link known: %+v, want via its link (3)", w)
	}
}

// The neighbor's End-of-RIB before the peers' snapshot says where it is:
// the routes of the earlier run stay until it does.
func TestGracefulTakeoverWaitsForPlace(t *testing.T) {
	s := newScene(t)
	s.r.opts.Graceful, s.r.opts.RestartTime = true, time.Minute
	stale := kroute.Route{Key: kroute.Key{Table: kroute.MainTable, Dst: netip.MustParsePrefix("198.51.100.128/25")}, NextHops: []kroute.NextHop{{Gateway: netip.MustParseAddr("192.0.2.3"), Ifindex: 2}}}
	s.k.routes[stale.Key] = stale
	s.r.once.Do(func() { s.r.beginErr = s.r.begin(s.now) })
	peer := grPeer("192.0.2.2", true, api.PeerState_ESTABLISHED, []*api.Family{v4uc}, v4uc)
	s.r.peers = func(context.Context) ([]*api.Peer, error) { return []*api.Peer{peer}, nil }
	s.r.RecordEndOfRIB("", plugin.EndOfRIB{Neighbor: netip.MustParseAddr("192.0.2.2"), Afi: 1, Safi: 1})
	for range 2 {
		s.now = s.now.Add(time.Second)
		s.r.checkSynced(context.Background(), s.now)
		s.r.runPass(s.now)
	}
	s.want("End-of-RIB, no session in the snapshot yet", stale.String())
	s.up("192.0.2.2", "192.0.2.1")
	for range 2 {
		s.now = s.now.Add(time.Second)
		s.r.checkSynced(context.Background(), s.now)
		s.r.runPass(s.now)
	}
	s.want("placed: the stale route goes")
}
