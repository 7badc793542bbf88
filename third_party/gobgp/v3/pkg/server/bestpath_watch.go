package server

import (
	"context"
	"errors"
	"net"
	"net/netip"

	"github.com/osrg/gobgp/v3/internal/pkg/table"
	"github.com/osrg/gobgp/v3/pkg/packet/bgp"
)

// BestPathChange is one destination's change of best path in the global
// RIB, as a program that installs routes into a forwarding table needs it:
// IPv4 and IPv6 unicast only, in plain values.
type BestPathChange struct {
	Prefix netip.Prefix
	// Paths is the destination's best path now, or with multipath
	// (Global.UseMultiplePaths) its set of equal best paths; empty when the
	// destination has no best path any more.
	Paths []BestPathHop
}

// BestPathHop is one best path of a BestPathChange.
type BestPathHop struct {
	// Nexthop is the path's next hop (NEXT_HOP, or MP_REACH_NLRI's first).
	Nexthop netip.Addr
	// LinkLocal is MP_REACH_NLRI's link-local next hop (RFC 2545), when
	// the path has one.
	LinkLocal netip.Addr
	// Neighbor is the address of the neighbor the path came from, and
	// NeighborLocal ours on that session (both unzoned); both invalid for
	// a path of our own (Local).
	Neighbor, NeighborLocal netip.Addr
	// Local: the path was originated here (AddPath, the API).
	Local bool
}

// WatchBestPaths calls fn with the changes of best paths in the global RIB:
// first (init true) every destination that has a best path, then each
// change, in order, on one goroutine of its own, until ctx is done. fn may
// take its time: changes wait in the watcher's unbounded queue, never in
// the server's loop. Call it after StartBgp.
func (s *BgpServer) WatchBestPaths(ctx context.Context, fn func(changes []BestPathChange, init bool)) error {
	return s.WatchBestPathsAndEndOfRIB(ctx, fn, nil)
}

// EndOfRIB is an End-of-RIB marker (RFC 4724 section 2) a neighbor sent:
// its initial routes of the family have all been received.
type EndOfRIB struct {
	// Neighbor is the neighbor's address, NeighborLocal ours on the
	// session (both unzoned).
	Neighbor, NeighborLocal netip.Addr
	// Afi and Safi are the family's (bgp.AFI_IP, bgp.SAFI_UNICAST, ...).
	Afi  uint16
	Safi uint8
}

// WatchBestPathsAndEndOfRIB is WatchBestPaths that also calls eor (when
// not nil) with every End-of-RIB marker the neighbors send, on the same
// goroutine, in order with fn: by the time eor is told a neighbor's marker
// for a family, fn has been told every change of best path its routes
// before the marker made. A program that keeps a forwarding table across
// a graceful restart removes the stale routes then, not before the
// neighbor's routes have reached it (GoBGP's own End-of-RIB state may read
// received before: when both ends restart it is set on the OPEN).
func (s *BgpServer) WatchBestPathsAndEndOfRIB(ctx context.Context, fn func(changes []BestPathChange, init bool), eor func(EndOfRIB)) error {
	if fn == nil {
		return errors.New("nil function")
	}
	if s.active() != nil {
		return errors.New("the server is not started")
	}
	opts := []watchOption{watchBestPath(true)}
	if eor != nil {
		opts = append(opts, watchEor(false))
	}
	w := s.watch(opts...)
	go func() {
		defer w.Stop()
		init := true
		for {
			select {
			case ev := <-w.Event():
				if e, ok := ev.(*watchEventEor); ok {
					if eor != nil && e.PeerInfo != nil {
						afi, safi := bgp.RouteFamilyToAfiSafi(e.Family)
						eor(EndOfRIB{Neighbor: addrOf(e.PeerInfo.Address), NeighborLocal: addrOf(e.PeerInfo.LocalAddress), Afi: afi, Safi: safi})
					}
					continue
				}
				msg, ok := ev.(*watchEventBestPath)
				if !ok {
					continue
				}
				var changes []BestPathChange
				if len(msg.MultiPathList) > 0 {
					changes = make([]BestPathChange, 0, len(msg.MultiPathList))
					for _, paths := range msg.MultiPathList {
						if c, ok := bestPathChange(paths...); ok {
							changes = append(changes, c)
						}
					}
				} else {
					changes = make([]BestPathChange, 0, len(msg.PathList))
					for _, p := range msg.PathList {
						if c, ok := bestPathChange(p); ok {
							changes = append(changes, c)
						}
					}
				}
				fn(changes, init)
				init = false
			case <-ctx.Done():
				return
			}
		}
	}()
	return nil
}

// bestPathChange is paths (of one destination) as a BestPathChange; false
// for a family other than IPv4 and IPv6 unicast.
func bestPathChange(paths ...*table.Path) (BestPathChange, bool) {
	if len(paths) == 0 || paths[0] == nil {
		return BestPathChange{}, false
	}
	var pfx netip.Prefix
	switch n := paths[0].GetNlri().(type) {
	case *bgp.IPAddrPrefix:
		pfx = prefixOf(n.Prefix, n.Length, true)
	case *bgp.IPv6AddrPrefix:
		pfx = prefixOf(n.Prefix, n.Length, false)
	default:
		return BestPathChange{}, false
	}
	if !pfx.IsValid() {
		return BestPathChange{}, false
	}
	c := BestPathChange{Prefix: pfx}
	for _, p := range paths {
		if p == nil || p.IsWithdraw {
			continue
		}
		h := BestPathHop{Nexthop: addrOf(p.GetNexthop()), Local: p.IsLocal()}
		for _, a := range p.GetPathAttrs() {
			if m, ok := a.(*bgp.PathAttributeMpReachNLRI); ok && m.LinkLocalNexthop.IsLinkLocalUnicast() {
				h.LinkLocal = addrOf(m.LinkLocalNexthop)
			}
		}
		if src := p.GetSource(); src != nil && !h.Local {
			h.Neighbor, h.NeighborLocal = addrOf(src.Address), addrOf(src.LocalAddress)
		}
		c.Paths = append(c.Paths, h)
	}
	return c, true
}

func addrOf(ip net.IP) netip.Addr {
	if v4 := ip.To4(); v4 != nil {
		return netip.AddrFrom4([4]byte(v4))
	}
	a, _ := netip.AddrFromSlice(ip)
	return a
}

func prefixOf(ip net.IP, bits uint8, v4 bool) netip.Prefix {
	a := addrOf(ip)
	if v4 != a.Is4() {
		return netip.Prefix{}
	}
	p, err := a.Prefix(int(bits))
	if err != nil {
		return netip.Prefix{}
	}
	return p
}
