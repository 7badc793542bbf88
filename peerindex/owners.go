package peerindex

import (
	"net/netip"
	"slices"
)

// Scope is where one peer is: an interface peer's Interface, else a static
// peer's address as a full-length Prefix, else a dynamic range's Prefix
// (Range: also a full-length one); and its VRF ("" the default one).
type Scope struct {
	Interface string
	Prefix    netip.Prefix
	Range     bool
	VRF       string
}

// Owners answers "which peer owns this address" for a list of scopes, by
// the one rule every subsystem follows (Lookup). Built once, read by any
// number of goroutines; a lookup does not allocate.
type Owners struct {
	vrfs   []string
	static map[Neighbor]int32 // by address in its VRF
	// anyVRF is the static peer of an address whatever its VRF, -1 for an
	// address that is a static peer in more than one VRF (Lookup).
	anyVRF map[netip.Addr]int32
	ranges []rangeOwner // most specific first, in the given order among equals
	ifaces map[string]int32
}

type rangeOwner struct {
	prefix netip.Prefix
	i      int32
}

// NewOwners indexes scopes (their positions are what Lookup returns). A
// scope with neither an interface nor a valid prefix owns nothing. An
// IPv4-mapped address or range counts as its IPv4 one, and a range's host
// bits are ignored. Of two scopes with one address in one VRF, or one
// interface (which a valid config refuses), the first owns it.
func NewOwners(scopes []Scope) *Owners {
	o := &Owners{vrfs: make([]string, len(scopes)), static: make(map[Neighbor]int32, len(scopes)),
		anyVRF: make(map[netip.Addr]int32, len(scopes)), ifaces: map[string]int32{}}
	for i, s := range scopes {
		o.vrfs[i] = s.VRF
		pfx := s.Prefix
		if a := pfx.Addr(); a.Is4In6() && pfx.Bits() >= 96 {
			pfx = netip.PrefixFrom(a.Unmap(), pfx.Bits()-96)
		}
		switch {
		case s.Interface != "":
			if _, dup := o.ifaces[s.Interface]; !dup {
				o.ifaces[s.Interface] = int32(i)
			}
		case !pfx.IsValid():
		case pfx.IsSingleIP() && !s.Range:
			a := pfx.Addr().WithZone("")
			if _, dup := o.static[Neighbor{s.VRF, a}]; !dup {
				o.static[Neighbor{s.VRF, a}] = int32(i)
			}
			if j, dup := o.anyVRF[a]; !dup {
				o.anyVRF[a] = int32(i)
			} else if j >= 0 && o.vrfs[j] != s.VRF {
				o.anyVRF[a] = -1 // in two VRFs: no one address's owner
			}
		default:
			o.ranges = append(o.ranges, rangeOwner{prefix: pfx.Masked(), i: int32(i)})
		}
	}
	slices.SortStableFunc(o.ranges, func(x, y rangeOwner) int { return y.prefix.Bits() - x.prefix.Bits() })
	return o
}

// Lookup returns the position of the scope that owns address a, -1 for
// none, whatever the VRF (the capture and the kernel's drop counters know
// an address, not the VRF it came in on). An address that is a static
// peer in two VRFs (each with its own key) has no owner here: it is
// neither VRF's peer's to judge. Same for a range given in two VRFs. The
// rule is the kernel's choice of key:
//
//   - an IPv6 link-local address zoned with an interface that has an
//     interface peer is that peer's (an unnumbered link is point to point:
//     whatever link-local address the far end uses); an interface peer is
//     found by its interface only, never by an address seen elsewhere;
//   - any other address is looked up without its zone, an IPv4-mapped one
//     as its IPv4 address: the static peer of that address first, else the
//     most specific range containing it (the first given among equally
//     specific ones). So a numbered peer at a link-local address keeps its
//     segments on a link no interface peer claims, as its key (scoped to
//     no interface) does in the kernel.
func (o *Owners) Lookup(a netip.Addr) int { return o.lookup(a, "", true) }

// LookupIn is Lookup for a connection known to be in vrf ("" the default
// VRF): a static peer or range of another VRF owns nothing there. An
// interface peer still owns its link-local addresses (an interface is in
// one VRF).
func (o *Owners) LookupIn(a netip.Addr, vrf string) int { return o.lookup(a, vrf, false) }

func (o *Owners) lookup(a netip.Addr, vrf string, anyVRF bool) int {
	if !a.IsValid() {
		return -1
	}
	if z := a.Zone(); z != "" {
		if i, ok := o.ifaces[z]; ok && a.Is6() && a.IsLinkLocalUnicast() {
			return int(i)
		}
		a = a.WithZone("")
	}
	a = a.Unmap()
	if anyVRF {
		if i, ok := o.anyVRF[a]; ok {
			return int(i)
		}
	} else if i, ok := o.static[Neighbor{vrf, a}]; ok {
		return int(i)
	}
	for k, r := range o.ranges {
		if !r.prefix.Contains(a) || !anyVRF && o.vrfs[r.i] != vrf {
			continue
		}
		if anyVRF && k+1 < len(o.ranges) && o.ranges[k+1].prefix == r.prefix && o.vrfs[o.ranges[k+1].i] != o.vrfs[r.i] {
			return -1 // one range in two VRFs
		}
		return int(r.i)
	}
	return -1
}

// Interface returns the position of the scope of interface name, -1 for none.
func (o *Owners) Interface(name string) int {
	if i, ok := o.ifaces[name]; ok {
		return int(i)
	}
	return -1
}
