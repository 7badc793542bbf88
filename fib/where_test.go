package fib

import (
	"net/netip"
	"testing"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/peerindex"
)

// TestNeighborsSameAddress: one address a neighbor in blue and in red (two
// GoBGP instances): a path of blue's instance goes to blue, red's to red,
// and one of an instance without that neighbor (the default VRF's)
// nowhere.
func TestNeighborsSameAddress(t *testing.T) {
	cfg, err := config.Parse("fib.toml", []byte(`[global]
asn = 65001
router-id = "192.0.2.1"

[[peers]]
address = "198.51.100.2"
vrf = "blue"
asn = 65010

[[peers]]
address = "198.51.100.2"
vrf = "red"
asn = 65011
`))
	if err != nil {
		t.Fatal(err)
	}
	a, local := netip.MustParseAddr("198.51.100.2"), netip.MustParseAddr("198.51.100.1")
	up := peerindex.Session{Established: true, Local: netip.AddrPortFrom(local, 179), Remote: netip.AddrPortFrom(a, 40000)}
	sn := &peerindex.Snapshot{Sessions: map[peerindex.Neighbor]peerindex.Session{{VRF: "blue", Addr: a}: up, {VRF: "red", Addr: a}: up}}
	n := buildNeighbors(sn, peerindex.New(cfg), links{})
	for _, vrf := range []string{"blue", "red"} {
		if w, ok := n.of(vrf, a, local); !ok || w.VRF != vrf {
			t.Errorf("a path of %s's instance from %s: %+v %v", vrf, a, w, ok)
		}
		if w, ok := n.of(vrf, a, netip.MustParseAddr("203.0.113.1")); !ok || w.VRF != vrf {
			t.Errorf("a path of %s's instance from %s, by address: %+v %v", vrf, a, w, ok)
		}
	}
	if w, ok := n.of("", a, local); ok {
		t.Errorf("a path of the default VRF's instance from %s went to %+v", a, w)
	}
	if _, vrfs := devicesOf(sn, peerindex.New(cfg)); len(vrfs) != 2 {
		t.Errorf("VRFs to observe: %v", vrfs)
	}
}
