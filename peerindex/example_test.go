package peerindex_test

import (
	"fmt"
	"net/netip"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/peerindex"
)

func ExampleIndex_OwnerIn() {
	c, err := config.Parse("r1.toml", []byte(`[global]
asn = 65001
router-id = "192.0.2.1"

# An unnumbered fabric link: the peer's link-local address is learnt.
[[peers]]
interface = "swp1"
asn = 65101

# A tenant's neighbors, in VRF blue.
[[peers]]
prefix = "10.0.0.0/16"
vrf = "blue"
asn = 65010

[[peers]]
address = "10.0.1.5"
vrf = "blue"
asn = 65011
`))
	if err != nil {
		panic(err)
	}
	x := peerindex.New(c)
	for _, q := range []struct{ addr, vrf string }{{"10.0.1.5", "blue"}, {"10.0.7.7", "blue"}, {"10.0.7.7", ""}, {"fe80::2%swp1", ""}} {
		owner := "none"
		if p := x.OwnerIn(netip.MustParseAddr(q.addr), q.vrf); p != nil {
			owner = p.ID
		}
		fmt.Printf("%s in %q: %s\n", q.addr, q.vrf, owner)
	}
	// Output:
	// 10.0.1.5 in "blue": 10.0.1.5
	// 10.0.7.7 in "blue": 10.0.0.0/16
	// 10.0.7.7 in "": none
	// fe80::2%swp1 in "": swp1
}
