package peers

import (
	"maps"
	"testing"

	api "github.com/osrg/gobgp/v3/api"

	"github.com/authbgp/authbgpd/status"
)

func apiNbr(addr string, state api.PeerState_SessionState, received uint64) *api.Peer {
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
		apiNbr("192.0.2.3", api.PeerState_ESTABLISHED, 7),
		apiNbr("10.9.0.5", api.PeerState_ESTABLISHED, 2),
		apiNbr("10.9.0.6", api.PeerState_IDLE, 1),
		apiNbr("198.51.100.9", api.PeerState_ESTABLISHED, 9), // not ours
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

// A peer's malformed messages become its counters; a range sums its
// sessions'; a peer that sent none has zeros.
func TestPeerStatesMalformed(t *testing.T) {
	st := []status.Peer{
		{Address: "192.0.2.2", State: "established", Malformed: &status.Malformed{Updates: 2, Panics: 1,
			ByHandling: map[string]uint64{"treat-as-withdraw": 1, "session-reset": 1}}},
		{Address: "192.0.2.3", State: "established"},
		{Address: "10.9.0.0/24", Prefix: "10.9.0.0/24", State: "listening"},
		{Address: "10.9.0.5", Prefix: "10.9.0.0/24", State: "established", Malformed: &status.Malformed{Updates: 1,
			ByHandling: map[string]uint64{"session-reset": 1}}},
		{Address: "10.9.0.6", Prefix: "10.9.0.0/24", State: "idle", Malformed: &status.Malformed{Other: 1, Panics: 1,
			ByHandling: map[string]uint64{"session-reset": 1}}},
	}
	got := map[string]malformedView{}
	for _, p := range MetricStates(st, nil, nil) {
		got[p.Peer] = malformedView{p.Malformed.Updates, p.Malformed.Panics, p.Malformed.ByHandling["session-reset"], p.Malformed.ByHandling["treat-as-withdraw"]}
	}
	want := map[string]malformedView{
		"192.0.2.2":   {2, 1, 1, 1},
		"192.0.2.3":   {},
		"10.9.0.0/24": {1, 1, 2, 0},
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: %+v, want %+v", id, got[id], w)
		}
	}
}

// A configured peer's prefix-limit count (a range's: its sessions') is its
// counter; the sessions of a range add nothing (they show the range's);
// a peer without one has 0.
func TestPeerStatesMaxPrefixesExceeded(t *testing.T) {
	lim := &status.PrefixLimit{MaxPrefixes: 3, Exceeded: 2}
	st := []status.Peer{
		{Address: "192.0.2.2", State: "idle", PrefixLimit: &status.PrefixLimit{MaxPrefixes: 5, Exceeded: 1}},
		{Address: "192.0.2.3", State: "established"},
		{Address: "10.9.0.0/24", Prefix: "10.9.0.0/24", State: "listening", PrefixLimit: lim},
		{Address: "10.9.0.5", Prefix: "10.9.0.0/24", State: "established", PrefixLimit: lim},
		{Address: "10.9.0.6", Prefix: "10.9.0.0/24", State: "established", PrefixLimit: lim},
	}
	got := map[string]uint64{}
	for _, p := range MetricStates(st, nil, nil) {
		got[p.Peer] = p.MaxPrefixesExceeded
	}
	if want := map[string]uint64{"192.0.2.2": 1, "192.0.2.3": 0, "10.9.0.0/24": 2}; !maps.Equal(got, want) {
		t.Errorf("counts %v, want %v", got, want)
	}
}

// malformedView is a comparable view of metrics.PeerMalformed.
type malformedView struct{ updates, panics, reset, withdraw uint64 }
