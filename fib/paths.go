package fib

import (
	"net/netip"

	"github.com/authbgp/authbgpd/plugin"
)

// pathKey is one destination of one VRF's RIB (vrf: an index in the
// pass's vrfs; 0 the default VRF).
type pathKey struct {
	vrf uint16
	pfx netip.Prefix
}

// ckey is a pathKey in 20 bytes (the map key of paths).
type ckey struct {
	vrf uint16
	pfx cpfx
}

func (k pathKey) compact() ckey { return ckey{vrf: k.vrf, pfx: compactPrefix(k.pfx)} }

func (k ckey) path() pathKey { return pathKey{vrf: k.vrf, pfx: k.pfx.prefix()} }

// paths is the reconciler's record of GoBGP's best paths: each VRF's
// destinations' best path (or multipath set), as the last change told it.
// The sets are interned (a full table from one neighbor is one set), so a
// million destinations cost a map entry each.
type paths struct {
	byPrefix map[ckey]uint32 // index in sets
	sets     [][]plugin.BestPathHop
	index    map[setKey]uint32 // sets of up to 4 paths
}

// setKey is a set of up to 4 paths, as a map key.
type setKey struct {
	n int
	h [4]plugin.BestPathHop
}

func newPaths() *paths {
	return &paths{byPrefix: map[ckey]uint32{}, index: map[setKey]uint32{}}
}

// set records pfx's paths (none: pfx has no best path any more).
func (p *paths) set(pfx pathKey, hops []plugin.BestPathHop) {
	if len(hops) == 0 {
		delete(p.byPrefix, pfx.compact())
		return
	}
	p.byPrefix[pfx.compact()] = p.intern(hops)
}

func (p *paths) intern(hops []plugin.BestPathHop) uint32 {
	if len(hops) <= 4 {
		k := setKey{n: len(hops)}
		copy(k.h[:], hops)
		if i, ok := p.index[k]; ok {
			return i
		}
		p.index[k] = uint32(len(p.sets))
	}
	p.sets = append(p.sets, append([]plugin.BestPathHop(nil), hops...))
	return uint32(len(p.sets) - 1)
}

// has reports whether pk has paths.
func (p *paths) has(pk pathKey) bool {
	_, ok := p.byPrefix[pk.compact()]
	return ok
}

// get is pfx's paths (nil: none).
func (p *paths) get(pfx pathKey) []plugin.BestPathHop {
	i, ok := p.byPrefix[pfx.compact()]
	if !ok {
		return nil
	}
	return p.sets[i]
}

// dropVRF forgets every path of vrf (its whole table is told again).
func (p *paths) dropVRF(vrf uint16) {
	for k := range p.byPrefix {
		if k.vrf == vrf {
			delete(p.byPrefix, k)
		}
	}
}

// compact drops the sets no destination uses any more (churn through many
// next hops leaves them behind); the reconciler calls it on a full look.
func (p *paths) compact() {
	if len(p.sets) < 64 {
		return
	}
	used := make(map[uint32]struct{}, len(p.sets))
	for _, i := range p.byPrefix {
		used[i] = struct{}{}
	}
	if 2*len(used) > len(p.sets) {
		return
	}
	q := newPaths()
	for pfx, i := range p.byPrefix {
		q.byPrefix[pfx] = q.intern(p.sets[i])
	}
	*p = *q
}
