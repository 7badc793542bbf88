package fib

import "net/netip"

// observed is what the kernel has of our routes, as far as the reconciler
// knows: read whole on a full look, then kept by its own writes and the
// kernel's route notifications. Next-hop sets are interned: a full table
// through one neighbor is one set.
type observed struct {
	routes map[Key]uint32 // index in sets
	sets   [][]NextHop
	index  map[nhKey]uint32 // sets of up to 4 next hops
	tables map[uint32]int   // routes per table
}

type nhKey struct {
	n int
	h [4]NextHop
}

func newObserved() *observed {
	return &observed{routes: map[Key]uint32{}, index: map[nhKey]uint32{}, tables: map[uint32]int{}}
}

func (o *observed) get(k Key) (Route, bool) {
	i, ok := o.routes[k]
	if !ok {
		return Route{}, false
	}
	return Route{Key: k, NextHops: o.sets[i]}, true
}

// has reports whether the kernel has k with exactly r's next hops.
func (o *observed) has(r Route) bool {
	got, ok := o.get(r.Key)
	return ok && got.Equal(r)
}

func (o *observed) put(r Route) {
	if _, ok := o.routes[r.Key]; !ok {
		o.tables[r.Table]++
	}
	o.routes[r.Key] = o.intern(r.NextHops)
}

func (o *observed) del(k Key) {
	if _, ok := o.routes[k]; !ok {
		return
	}
	delete(o.routes, k)
	if o.tables[k.Table]--; o.tables[k.Table] <= 0 {
		delete(o.tables, k.Table)
	}
}

func (o *observed) intern(nhs []NextHop) uint32 {
	if len(nhs) <= 4 {
		k := nhKey{n: len(nhs)}
		copy(k.h[:], nhs)
		if i, ok := o.index[k]; ok {
			return i
		}
		o.index[k] = uint32(len(o.sets))
	}
	o.sets = append(o.sets, append([]NextHop(nil), nhs...))
	return uint32(len(o.sets) - 1)
}

// keysAt are the keys of ours for dst, one per table that has it.
func (o *observed) keysAt(dst netip.Prefix, fn func(Key)) {
	for t := range o.tables {
		k := Key{Table: t, Dst: dst}
		if _, ok := o.routes[k]; ok {
			fn(k)
		}
	}
}
