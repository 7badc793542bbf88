//go:build linux

package e2e

// Networks of its own (issue 44 items 1 and 5): authbgpd, its router ID and
// one prefix from the environment, announces two [[networks]] (IPv4 and
// IPv6, with communities) over TCP-MD5 to FRR; FRR shows them with their
// communities. A reload withdraws one and announces another in place: FRR
// sees both, and its sessions are not reset. The kernel gets FRR's prefix
// from [fib], never ours.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/status"
)

const netsPassword = "networks-md5-key"

// netsConf is authbgpd's config for TestNetworksToFRR: its router ID from
// NODE_IP, the given [[networks]].
func netsConf(networks string) string {
	c := abConf{ASN: 65100, Peers: []abPeer{
		{addr: "192.0.2.2", asn: 65102, src: "password-file", ref: "pw"},
		{addr: "2001:db8:1::2", asn: 65102, src: "password-file", ref: "pw"},
	}, Tail: networks}
	return strings.Replace(c.String(), `router-id = "192.0.2.1"`, `router-id-env = "NODE_IP"`, 1)
}

const netsBefore = `
[[networks]]
prefix = "198.51.100.0/24"
communities = ["65100:100", "no-export"]
large-communities = ["65100:1:2"]

[[networks]]
prefix-env = "NODE_PREFIX6"
communities = ["65100:600"]
`

const netsAfter = `
[[networks]]
prefix = "203.0.113.128/25"
communities = ["65100:200"]

[[networks]]
prefix-env = "NODE_PREFIX6"
communities = ["65100:600"]
`

func TestNetworksToFRR(t *testing.T) {
	testenv.RequireRoot(t)
	testenv.RequireBinary(t, "bgpd", "/usr/lib/frr")
	tp := netns.New(t, "nets")
	me, peer := tp.Add("ab"), tp.Add("frr")
	tp.Link(me, "eth0", []string{"192.0.2.1/30", "2001:db8:1::1/64"}, peer, "eth0", []string{"192.0.2.2/30", "2001:db8:1::2/64"})
	// FRR is passive: authbgpd dials at its start, no collision to settle.
	frrConf := fmt.Sprintf(`frr defaults traditional
hostname nets
log stdout informational
!
router bgp 65102
 bgp router-id 192.0.2.2
 no bgp default ipv4-unicast
 no bgp ebgp-requires-policy
 no bgp network import-check
 neighbor 192.0.2.1 remote-as 65100
 neighbor 192.0.2.1 password %[1]s
 neighbor 192.0.2.1 passive
 neighbor 2001:db8:1::1 remote-as 65100
 neighbor 2001:db8:1::1 password %[1]s
 neighbor 2001:db8:1::1 passive
 address-family ipv4 unicast
  neighbor 192.0.2.1 activate
  network 203.0.113.0/26
 exit-address-family
 address-family ipv6 unicast
  neighbor 2001:db8:1::1 activate
 exit-address-family
!
`, netsPassword)
	frr := startBgpd(t, tp, peer, "frr-nets", frrConf)
	frr.waitVty(t)
	a := StartAuthbgpd(t, tp, me, netsConf(netsBefore), AuthbgpdOptions{
		Files: map[string]string{"pw": netsPassword + "\n"},
		Env:   []string{"NODE_IP=192.0.2.77", "NODE_PREFIX6=2001:db8:77::/48"},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// FRR sends 203.0.113.0/26 on the IPv4 session, nothing on the IPv6 one.
	for addr, n := range map[string]int{"192.0.2.2": 1, "2001:db8:1::2": 0} {
		if err := WaitSession(ctx, a, netip.MustParseAddr(addr), n); err != nil {
			t.Fatal(err)
		}
	}
	if st := a.Status(); st.RouterID != "192.0.2.77" {
		t.Errorf("router ID %s, want NODE_IP's 192.0.2.77", st.RouterID)
	}

	t.Run("announced", func(t *testing.T) {
		waitFRRRoute(t, frr, "ipv4", "198.51.100.0/24", "65100:100 no-export", "65100:1:2", "192.0.2.1")
		waitFRRRoute(t, frr, "ipv6", "2001:db8:77::/48", "65100:600", "", "2001:db8:1::1")
		waitNetworks(t, a, []status.Network{{Prefix: "198.51.100.0/24", Announced: true}, {Prefix: "2001:db8:77::/48", Announced: true}})
	})
	t.Run("not in the kernel", func(t *testing.T) {
		// [fib] is on: FRR's prefix goes in, ours never.
		waitKernelRoutes(t, me, 10*time.Second, "FRR's prefix in authbgpd's kernel, none of its own networks",
			[]string{"203.0.113.0/26 via 192.0.2.2 dev eth0 proto bgp metric 20"})
	})

	t.Run("reload in place", func(t *testing.T) {
		before := frrConnections(t, frr)
		if before[0] < 1 || before[2] < 1 {
			t.Fatalf("FRR counts no established connection: %v", before)
		}
		a.Reload(netsConf(netsAfter))
		waitFRRRoute(t, frr, "ipv4", "203.0.113.128/25", "65100:200", "", "192.0.2.1")
		waitFor(t, 10*time.Second, "FRR sees 198.51.100.0/24 withdrawn", func() error {
			if out := frrRouteJSON(t, frr, "ipv4", "198.51.100.0/24"); strings.Contains(out, `"paths"`) {
				return fmt.Errorf("still there: %s", tail(out, 300))
			}
			return nil
		})
		waitNetworks(t, a, []status.Network{{Prefix: "203.0.113.128/25", Announced: true}, {Prefix: "2001:db8:77::/48", Announced: true}})
		if after := frrConnections(t, frr); !slices.Equal(after, before) {
			t.Errorf("FRR's sessions were reset by the reload: connections established/dropped %v -> %v", before, after)
		}
		waitKernelRoutes(t, me, 5*time.Second, "still none of its own networks in the kernel",
			[]string{"203.0.113.0/26 via 192.0.2.2 dev eth0 proto bgp metric 20"})
	})
}

// frrRouteJSON is FRR's `show bgp AFI unicast PREFIX json`.
func frrRouteJSON(t testing.TB, f *FRR, afi, prefix string) string {
	out, err := f.Vtysh(context.Background(), fmt.Sprintf("show bgp %s unicast %s json", afi, prefix))
	if err != nil {
		t.Fatalf("vtysh: %v: %s", err, out)
	}
	return out
}

// waitFRRRoute waits until FRR holds prefix from authbgpd with the
// communities (and large communities) as FRR writes them, and the next hop.
func waitFRRRoute(t testing.TB, f *FRR, afi, prefix, communities, large, nextHop string) {
	t.Helper()
	waitFor(t, 15*time.Second, "FRR holds "+prefix+" with "+communities, func() error {
		out := frrRouteJSON(t, f, afi, prefix)
		var r struct {
			Paths []struct {
				Community struct {
					String string `json:"string"`
				} `json:"community"`
				LargeCommunity struct {
					String string `json:"string"`
				} `json:"largeCommunity"`
				Nexthops []struct {
					IP string `json:"ip"`
				} `json:"nexthops"`
				AsPath struct {
					String string `json:"string"`
				} `json:"aspath"`
			} `json:"paths"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			return fmt.Errorf("%v: %s", err, tail(out, 300))
		}
		if len(r.Paths) != 1 {
			return fmt.Errorf("%d paths: %s", len(r.Paths), tail(out, 300))
		}
		p := r.Paths[0]
		if p.Community.String != communities || p.LargeCommunity.String != large || len(p.Nexthops) == 0 || p.Nexthops[0].IP != nextHop || p.AsPath.String != "65100" {
			return fmt.Errorf("path: %s", tail(out, 600))
		}
		return nil
	})
}

// waitNetworks waits until /status networks is want.
func waitNetworks(t testing.TB, a *Authbgpd, want []status.Network) {
	t.Helper()
	waitFor(t, 10*time.Second, "/status networks", func() error {
		s, err := a.TryStatus()
		if err != nil {
			return err
		}
		if !slices.Equal(s.Networks, want) {
			return fmt.Errorf("%+v", s.Networks)
		}
		return nil
	})
}

// frrConnections are FRR's connectionsEstablished and connectionsDropped
// of both neighbors.
func frrConnections(t testing.TB, f *FRR) []float64 {
	var out []float64
	for _, addr := range []string{"192.0.2.1", "2001:db8:1::1"} {
		n, err := f.neighbor(netip.MustParseAddr(addr))
		if err != nil {
			t.Fatal(err)
		}
		est, _ := n["connectionsEstablished"].(float64)
		drop, _ := n["connectionsDropped"].(float64)
		out = append(out, est, drop)
	}
	return out
}
