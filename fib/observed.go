package fib

import (
	"net/netip"

	"github.com/authbgp/authbgpd/kroute"
)

// observed is what the kernel has of our routes, as far as the reconciler
// knows: read whole on a full look, then kept by its own writes and the
// kernel's route notifications. Next-hop sets are interned: a full table
// through one neighbor is one set.
type observed struct {
	routes map[kroute.Key]uint32 // index in sets
	sets   [][]kroute.NextHop
	index  map[nhKey]uint32 // sets of up to 4 next hops
	tables map[uint32]int   // routes per table
}

type nhKey struct {
	n int
	h [4]kroute.NextHop
}

func newObserved() *observed {
	return &observed{routes: map[kroute.Key]uint32{}, index: map[nhKey]uint32{}, tables: map[uint32]int{}}
}

func (o *observed) get(k kroute.Key) (kroute.Route, bool) {
	i, ok := o.routes[k]
	if !ok {
		return kroute.Route{}, false
	}
	return kroute.Route{Key: k, NextHops: o.sets[i]}, true
}

// has reports whether the kernel has k with exactly r's next hops.
func (o *observed) has(r kroute.Route) bool {
	got, ok := o.get(r.Key)
	return ok && got.Equal(r)
}

func (o *observed) put(r kroute.Route) {
	if _, ok := o.routes[r.Key]; !ok {
		o.tables[r.Table]++
	}
	o.routes[r.Key] = o.intern(r.NextHops)
}

func (o *observed) del(k kroute.Key) {
	if _, ok := o.routes[k]; !ok {
		return
	}
	delete(o.routes, k)
	if o.tables[k.Table]--; o.tables[k.Table] <= 0 {
		delete(o.tables, k.Table)
	}
}

func (o *observed) intern(nhs []kroute.NextHop) uint32 {
	if len(nhs) <= 4 {
		k := nhKey{n: len(nhs)}
		copy(k.h[:], nhs)
		if i, ok := o.index[k]; ok {
			return i
		}
		o.index[k] = uint32(len(o.sets))
	}
	o.sets = append(o.sets, append([]kroute.NextHop(nil), nhs...))
	return uint32(len(o.sets) - 1)
}

// keysAt are the keys of ours for dst, one per table that has it.
func (o *observed) keysAt(dst netip.Prefix, fn func(kroute.Key)) {
	for t := range o.tables {
		k := kroute.Key{Table: t, Dst: dst}
		if _, ok := o.routes[k]; ok {
			fn(k)
		}
	}
}
