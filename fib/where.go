package fib

import (
	"net/netip"

	"github.com/authbgp/authbgpd/peerindex"
)

// where is the place of a neighbor's routes: its VRF, that VRF's routing
// table, and for a neighbor on a link (an interface peer) the link's
// ifindex, the device of its link-local next hops.
type where struct {
	VRF   string
	Table uint32 // the table the routes are planned in (desiredOf sets it)
	Link  int    // 0: not on a known link
}

// neighborKey is a session's two ends, unzoned (GoBGP tells a path's
// neighbor and our address without the link-local zone), in the VRF of
// the GoBGP instance that has it: one address may be a neighbor in two
// VRFs.
type neighborKey struct {
	vrf         string
	addr, local netip.Addr
}

// neighbors says where each neighbor's routes go.
type neighbors struct {
	exact  map[neighborKey]where           // by both ends of the session
	byAddr map[peerindex.Neighbor]where    // by the neighbor's address in its VRF, when only one session has it
	names  map[peerindex.Neighbor]struct{} // addresses of more than one session in one VRF
}

// links are the observed answers about devices: ifindex by interface name,
// routing table by VRF name (absent: no such device).
type links struct {
	ifindex map[string]int
	tables  map[string]uint32
}

// devicesOf is what buildNeighbors needs observed: the interfaces of the
// sessions' link-local peers and the VRFs of all peers.
func devicesOf(sn *peerindex.Snapshot, idx *peerindex.Index) (ifnames, vrfs []string) {
	seenIf, seenVRF := map[string]bool{}, map[string]bool{}
	for a := range sn.Sessions {
		if z := a.Addr.Zone(); z != "" && !seenIf[z] {
			seenIf[z] = true
			ifnames = append(ifnames, z)
		}
		if p := peerOf(idx, a); p != nil && p.Config.VRF != "" && !seenVRF[p.Config.VRF] {
			seenVRF[p.Config.VRF] = true
			vrfs = append(vrfs, p.Config.VRF)
		}
	}
	return ifnames, vrfs
}

// peerOf is the configured peer of session a (its address zoned when
// link-local): an interface peer by its interface, else the owner of the
// address in the session's VRF (a range for a dynamic neighbor).
func peerOf(idx *peerindex.Index, a peerindex.Neighbor) *peerindex.Peer {
	if idx == nil {
		return nil
	}
	if p, ok := idx.LinkOwner(a.Addr); ok {
		return p
	}
	return idx.OwnerIn(a.Addr.WithZone(""), a.VRF)
}

// buildNeighbors is where every session's routes go (pure): the VRF of its
// peer in the index and the session's link from lk (the VRF's table is the
// pass's: setTables).
func buildNeighbors(sn *peerindex.Snapshot, idx *peerindex.Index, lk links) neighbors {
	n := neighbors{exact: map[neighborKey]where{}, byAddr: map[peerindex.Neighbor]where{}, names: map[peerindex.Neighbor]struct{}{}}
	for a, s := range sn.Sessions {
		var w where
		if p := peerOf(idx, a); p != nil {
			w.VRF = p.Config.VRF
		}
		if z := a.Addr.Zone(); z != "" {
			w.Link = lk.ifindex[z]
		}
		addr := peerindex.Neighbor{VRF: a.VRF, Addr: a.Addr.WithZone("")}
		if s.Established {
			n.exact[neighborKey{a.VRF, addr.Addr, s.Local.Addr().WithZone("").Unmap()}] = w
		}
		if _, dup := n.byAddr[addr]; dup {
			n.names[addr] = struct{}{}
		}
		n.byAddr[addr] = w
	}
	for a := range n.names {
		delete(n.byAddr, a)
	}
	return n
}

// of is where the paths of neighbor addr (our end local) of vrf's GoBGP
// instance go; false when no session of vrf says.
func (n *neighbors) of(vrf string, addr, local netip.Addr) (where, bool) {
	if w, ok := n.exact[neighborKey{vrf, addr.Unmap(), local.Unmap()}]; ok {
		return w, true
	}
	w, ok := n.byAddr[peerindex.Neighbor{VRF: vrf, Addr: addr.Unmap()}]
	return w, ok
}

// placed is where the routes of neighbor addr of vrf go, by any session
// with it; false when no session places it.
func (n *neighbors) placed(vrf string, addr netip.Addr) (where, bool) {
	if w, ok := n.byAddr[peerindex.Neighbor{VRF: vrf, Addr: addr}]; ok {
		return w, true
	}
	for k, w := range n.exact {
		if k.vrf == vrf && k.addr == addr {
			return w, true
		}
	}
	return where{}, false
}

// equal reports whether n and o place every neighbor alike.
func (n *neighbors) equal(o *neighbors) bool {
	if len(n.exact) != len(o.exact) || len(n.byAddr) != len(o.byAddr) {
		return false
	}
	for k, w := range n.exact {
		if o.exact[k] != w {
			return false
		}
	}
	for k, w := range n.byAddr {
		if v, ok := o.byAddr[k]; !ok || v != w {
			return false
		}
	}
	return true
}
