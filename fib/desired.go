package fib

import (
	"net/netip"

	"github.com/authbgp/authbgpd/kroute"
	"github.com/authbgp/authbgpd/plugin"
)

// Reasons a wanted route is not in the kernel: short and fixed (metrics'
// labels, /status fib.refused[].reason).
const (
	ReasonNoTable     = "no such table"        // the VRF has no device (or no table)
	ReasonUnresolved  = "next hop unresolved"  // the kernel has no route to the next hop
	ReasonUnreachable = "next hop unreachable" // the kernel refused the route's gateway
	ReasonNoDevice    = "no such device"       // the next hop's device is gone
	ReasonPermission  = "not permitted"        // no CAP_NET_ADMIN
	ReasonKernel      = "kernel error"         // any other refusal
	reasonNoNextHop   = "next hop unresolved"  // the path has no usable next hop
)

// resolveKey asks the kernel how it reaches Addr in Table.
type resolveKey struct {
	Table uint32
	Addr  netip.Addr
}

// resolution is the kernel's answer to a resolveKey: the gateway to use
// (the address itself when it is on a connected network) and the device;
// Err is why there is none ("" when fine).
type resolution struct {
	Hop kroute.NextHop
	Err string
}

// hopMode says how a path's next hop becomes a kernel next hop.
type hopMode uint8

const (
	hopDirect   hopMode = iota + 1 // gw on the neighbor's known link
	hopResolved                    // gw resolved through the kernel's routes (key)
	hopLinkDev                     // link-local gw; the device is the one the kernel reaches the neighbor by (key)
)

// hopPlan is one path's next hop before the kernel's answers.
type hopPlan struct {
	mode hopMode
	gw   netip.Addr
	link int
	key  resolveKey
}

// planHop is how path h, whose neighbor is at w, leaves; false (with a
// reason) when it cannot.
func planHop(h plugin.BestPathHop, w where) (hopPlan, bool) {
	gw := h.LinkLocal
	if !gw.IsValid() && h.Nexthop.Is6() && h.Nexthop.IsLinkLocalUnicast() {
		gw = h.Nexthop
	}
	if gw.IsValid() {
		gw = gw.WithZone("")
		if w.Link != 0 {
			return hopPlan{mode: hopDirect, gw: gw, link: w.Link}, true
		}
		if !h.Neighbor.IsValid() {
			return hopPlan{}, false
		}
		return hopPlan{mode: hopLinkDev, gw: gw, key: resolveKey{w.Table, h.Neighbor.WithZone("").Unmap()}}, true
	}
	nh := h.Nexthop.WithZone("").Unmap()
	if !nh.IsValid() || nh.IsUnspecified() {
		return hopPlan{}, false
	}
	return hopPlan{mode: hopResolved, gw: nh, key: resolveKey{w.Table, nh}}, true
}

// nextHop is the kernel next hop of hp with the kernel's answers res;
// false with the reason when there is none.
func (hp hopPlan) nextHop(res map[resolveKey]resolution) (kroute.NextHop, string) {
	switch hp.mode {
	case hopDirect:
		return kroute.NextHop{Gateway: hp.gw, Ifindex: hp.link}, ""
	case hopLinkDev, hopResolved:
		r, ok := res[hp.key]
		if !ok || r.Err != "" || r.Hop.Ifindex == 0 {
			return kroute.NextHop{}, ReasonUnresolved
		}
		if hp.mode == hopLinkDev {
			return kroute.NextHop{Gateway: hp.gw, Ifindex: r.Hop.Ifindex}, ""
		}
		return r.Hop, ""
	}
	return kroute.NextHop{}, reasonNoNextHop
}

// wanted is what a VRF's destination's best paths want in the kernel: a
// route, none (Want false: withdrawn, or only paths of our own), or a
// route that cannot be (Reason).
type wanted struct {
	Want   bool
	Route  kroute.Route // when Want and Reason == ""
	VRF    string
	Reason string
}

// desiredOf is what the best paths hops of vrf's destination k.Dst want at
// k, in the VRF's table (pure): one route with the next hops of every
// path (ECMP, one multipath route). Paths of our own and paths of
// neighbors no session of the VRF knows (a session gone, its withdrawals
// on their way) want nothing.
func desiredOf(k kroute.Key, vrf string, hops []plugin.BestPathHop, nb *neighbors, res map[resolveKey]resolution) wanted {
	var w wanted
	var nhs [4]kroute.NextHop
	out := nhs[:0]
	for _, h := range hops {
		if h.Local || !h.Neighbor.IsValid() {
			continue
		}
		loc, ok := nb.of(vrf, h.Neighbor, h.NeighborLocal)
		if !ok || loc.VRF != vrf {
			continue
		}
		if loc.Link == 0 && h.Neighbor.IsLinkLocalUnicast() {
			// An interface peer whose link is not known yet (its session
			// is not in the snapshot, or its device not looked up): as a
			// neighbor no session places. Asking the kernel for an
			// unzoned fe80:: would name whichever link it finds first.
			continue
		}
		w.Want, w.VRF = true, vrf
		if k.Table == 0 {
			w.Reason = ReasonNoTable
			return w
		}
		loc.Table = k.Table
		hp, ok := planHop(h, loc)
		if !ok {
			w.Reason = reasonNoNextHop
			continue
		}
		nh, why := hp.nextHop(res)
		if why != "" {
			w.Reason = why
			continue
		}
		out = append(out, nh)
	}
	if !w.Want {
		return w
	}
	if len(out) == 0 {
		if w.Reason == "" {
			w.Reason = reasonNoNextHop
		}
		return w
	}
	w.Reason = ""
	w.Route = kroute.Route{Key: k, NextHops: out}
	w.Route.Normalize()
	return w
}

// needs adds to keys the kernel answers the paths of vrf's destination at
// k need (pure).
func needs(k kroute.Key, vrf string, hops []plugin.BestPathHop, nb *neighbors, keys map[resolveKey]struct{}) {
	for _, h := range hops {
		if h.Local || !h.Neighbor.IsValid() {
			continue
		}
		loc, ok := nb.of(vrf, h.Neighbor, h.NeighborLocal)
		if !ok || loc.VRF != vrf || k.Table == 0 {
			continue
		}
		if loc.Link == 0 && h.Neighbor.IsLinkLocalUnicast() {
			continue // its link not known yet (desiredOf)
		}
		loc.Table = k.Table
		if hp, ok := planHop(h, loc); ok && hp.mode != hopDirect {
			keys[hp.key] = struct{}{}
		}
	}
}
