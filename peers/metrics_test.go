package peers

import (
	"testing"

	api "github.com/osrg/gobgp/v3/api"

	"github.com/authbgp/authbgpd/status"
)

func nbr(addr string, state api.PeerState_SessionState, received uint64) *api.Peer {
	return &api.Peer{
		Conf:  &api.PeerConf{NeighborAddress: addr},
		State: &api.PeerState{SessionState: state},
		AfiSafis: []*api.AfiSafi{{State: &api.AfiSafiState{
			Family: &api.Family{Afi: api.Family_AFI_IP, Safi: api.Family_SAFI_UNICAST}, Received: received, Accepted: received,
		}}},
	}
}

// Every configured peer gets an entry (never-up ones too); a range is up
// while one of its sessions is and sums their prefixes.
func TestPeerStates(t *testing.T) {
	st := []status.Peer{
		{Address: "192.0.2.2", State: "active"},
		{Address: "192.0.2.3", State: "established"},
		{Address: "10.9.0.0/24", Prefix: "10.9.0.0/24", State: "listening"},
		{Address: "10.9.0.5", Prefix: "10.9.0.0/24", State: "established"},
		{Address: "10.9.0.6", Prefix: "10.9.0.0/24", State: "idle"},
	}
	nbrs := []*api.Peer{
		nbr("192.0.2.3", api.PeerState_ESTABLISHED, 7),
		nbr("10.9.0.5", api.PeerState_ESTABLISHED, 2),
		nbr("10.9.0.6", api.PeerState_IDLE, 1),
		nbr("198.51.100.9", api.PeerState_ESTABLISHED, 9), // not ours
	}
	got := MetricStates(st, nbrs, func(string, *api.Family) uint64 { return 1 })
	if len(got) != 3 {
		t.Fatalf("%d entries, want 3: %+v", len(got), got)
	}
	want := map[string]struct {
		up            bool
		received, snt uint64
	}{"192.0.2.2": {false, 0, 0}, "192.0.2.3": {true, 7, 1}, "10.9.0.0/24": {true, 3, 1}}
	for _, p := range got {
		w := want[p.Peer]
		var rcv, snt uint64
		for _, f := range p.Prefixes {
			if f.Family != "ipv4-unicast" {
				t.Errorf("%s: family %q", p.Peer, f.Family)
			}
			rcv, snt = rcv+f.Received, snt+f.Sent
		}
		if p.Up != w.up || rcv != w.received || snt != w.snt {
			t.Errorf("%s: up %v received %d sent %d, want %+v", p.Peer, p.Up, rcv, snt, w)
		}
	}
}
