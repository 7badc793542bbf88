package kroute

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// Protocol is the route protocol (rtm_protocol) of every route of ours:
// RTPROT_BGP, `proto bgp` in iproute2's rt_protos, as FRR and BIRD use.
const Protocol = 186

// Metric is the priority (RTA_PRIORITY, `metric`) of every route of ours:
// FRR's for BGP, so that an operator's route with a lower metric wins.
const Metric = 20

// MainTable is the kernel's main routing table (the default VRF's).
const MainTable = 254

// Key names one route of ours: a destination in a table.
type Key struct {
	Table uint32
	Dst   netip.Prefix // masked, unzoned
}

func (k Key) String() string { return fmt.Sprintf("%s table %d", k.Dst, k.Table) }

// NextHop is one way out of a route.
type NextHop struct {
	// Gateway is the next router: an IPv4 or IPv6 address, unzoned. An
	// IPv6 gateway of an IPv4 destination is an RFC 8950 next hop
	// (RTA_VIA). A link-local gateway needs Ifindex.
	Gateway netip.Addr
	// Ifindex is the output device; 0 lets the kernel find it (the
	// gateway must then be on a connected network of the table).
	Ifindex int
}

func (n NextHop) String() string {
	if n.Ifindex == 0 {
		return "via " + n.Gateway.String()
	}
	return fmt.Sprintf("via %s dev #%d", n.Gateway, n.Ifindex)
}

// Compare orders next hops (by gateway, then device): a Route's next hops
// are kept sorted so that two routes compare with slices.Equal.
func (n NextHop) Compare(o NextHop) int {
	if c := n.Gateway.Compare(o.Gateway); c != 0 {
		return c
	}
	return cmp.Compare(n.Ifindex, o.Ifindex)
}

// Route is one route of ours: a destination in a table with one next hop,
// or several (ECMP, one multipath route). NextHops are sorted and without
// repeats (Normalize).
type Route struct {
	Key
	NextHops []NextHop
}

// Normalize sorts r's next hops and drops repeats, so that routes that
// forward alike are Equal.
func (r *Route) Normalize() {
	slices.SortFunc(r.NextHops, NextHop.Compare)
	r.NextHops = slices.Compact(r.NextHops)
}

// Equal reports whether r and o are the same route (both normalized).
func (r Route) Equal(o Route) bool { return r.Key == o.Key && slices.Equal(r.NextHops, o.NextHops) }

func (r Route) String() string {
	var b strings.Builder
	b.WriteString(r.Key.String())
	for _, n := range r.NextHops {
		b.WriteByte(' ')
		b.WriteString(n.String())
	}
	return b.String()
}
