package main

import (
	"testing"

	"github.com/authbgp/authbgpd/status"
)

// TestPeerNameScopes: interface and VRF peers are named by what the
// operator configured, with the learnt address, and found by interface.
func TestPeerNameScopes(t *testing.T) {
	for _, tc := range []struct {
		p    status.Peer
		want string
	}{
		{status.Peer{Address: "192.0.2.2"}, "192.0.2.2"},
		{status.Peer{Address: "192.0.2.2", VRF: "blue"}, "192.0.2.2 vrf blue"},
		{status.Peer{Interface: "eth1"}, "eth1 (no neighbor yet)"},
		{status.Peer{Interface: "eth1", Address: "fe80::2%eth1"}, "eth1 (fe80::2%eth1)"},
		{status.Peer{Interface: "eth3", Address: "fe80::2%eth3", VRF: "red"}, "eth3 (fe80::2%eth3) vrf red"},
		{status.Peer{Address: "198.51.100.0/24", Prefix: "198.51.100.0/24", VRF: "blue"}, "198.51.100.0/24 vrf blue"},
	} {
		if got := peerName(tc.p); got != tc.want {
			t.Errorf("peerName(%+v) = %q, want %q", tc.p, got, tc.want)
		}
	}
	st := &status.Status{Peers: []status.Peer{{Interface: "eth1", Address: "fe80::2%eth1"}, {Interface: "eth2", Address: "fe80::2%eth2"}}}
	for _, arg := range []string{"eth2", "fe80::2%eth2"} {
		if p, _ := findPeer(st, arg); p == nil || p.Interface != "eth2" {
			t.Errorf("findPeer(%q) = %+v", arg, p)
		}
	}
	// One address in the default VRF, blue and red (a range in blue too):
	// "VRF/ADDRESS" names one, the address alone the default VRF's first.
	st = &status.Status{Peers: []status.Peer{{Address: "192.0.2.2", ASN: 1}, {Address: "192.0.2.2", VRF: "blue", ASN: 2},
		{Address: "192.0.2.2", VRF: "red", ASN: 3}, {Address: "198.51.100.0/24", Prefix: "198.51.100.0/24", VRF: "blue", ASN: 4},
		{Address: "198.51.100.7", Prefix: "198.51.100.0/24", VRF: "blue", ASN: 4}}}
	for arg, asn := range map[string]uint32{"192.0.2.2": 1, "blue/192.0.2.2": 2, "red/192.0.2.2": 3, "green/192.0.2.2": 0,
		"blue/198.51.100.0/24": 4, "198.51.100.0/24": 4, "red/198.51.100.0/24": 0} {
		var got uint32
		if p, _ := findPeer(st, arg); p != nil {
			got = p.ASN
		}
		if got != asn {
			t.Errorf("findPeer(%q): ASN %d, want %d (0: none)", arg, got, asn)
		}
	}
}
