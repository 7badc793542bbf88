package peerindex_test

import (
	"fmt"
	"net/netip"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/peerindex"
)

func ExampleIndex_OwnerIn() {
	c, err := config.Parse("leaf1.toml", []byte(`[global]
asn = 65001
router-id = "192.0.2.1"

[[peers]] # spine 1, over an unnumbered link
interface = "swp51"
asn = 65100

[[peers]] # tenant red's customers
prefix = "198.51.100.0/24"
vrf = "red"
asn = 65200

[[peers]] # ... and one of them, configured alone
address = "198.51.100.7"
vrf = "red"
asn = 65207
`))
	if err != nil {
		panic(err)
	}
	x := peerindex.New(c)
	for _, q := range []struct{ addr, vrf string }{{"198.51.100.7", "red"}, {"198.51.100.9", "red"}, {"198.51.100.9", ""}, {"fe80::2%swp51", ""}, {"fe80::2%swp52", ""}} {
		owner := "none"
		if p := x.OwnerIn(netip.MustParseAddr(q.addr), q.vrf); p != nil {
			owner = p.ID
		}
		fmt.Printf("%s in %q: %s\n", q.addr, q.vrf, owner)
	}
	// Output:
	// 198.51.100.7 in "red": red/198.51.100.7
	// 198.51.100.9 in "red": red/198.51.100.0/24
	// 198.51.100.9 in "": none
	// fe80::2%swp51 in "": swp51
	// fe80::2%swp52 in "": none
}
