package fib

import (
	"github.com/authbgp/authbgpd/kroute"
)

// observed is what the kernel has of our routes, as far as the reconciler
// knows: read whole on a full look, then kept by its own writes and the
// kernel's route notifications. Next-hop sets are interned: a full table
// through one neighbor is one set.
type observed struct {
	routes map[okey]obsEntry
	look   uint32 // the current look (compare)
	sets   [][]kroute.NextHop
	index  map[nhKey]uint32 // sets of up to 4 next hops
	tables map[uint32]int   // routes per table
}

// obsEntry is one route of ours: its next hops (an index in sets) and the
// look that last saw it.
type obsEntry struct {
	set, look uint32
}

type nhKey struct {
	n int
	h [4]kroute.NextHop
}

func newObserved() *observed {
	return &observed{routes: map[okey]obsEntry{}, index: map[nhKey]uint32{}, tables: map[uint32]int{}}
}

func (o *observed) get(k kroute.Key) (kroute.Route, bool) {
	e, ok := o.routes[compactKey(k)]
	if !ok {
		return kroute.Route{}, false
	}
	return kroute.Route{Key: k, NextHops: o.sets[e.set]}, true
}

// has reports whether the kernel has k with exactly r's next hops.
func (o *observed) has(r kroute.Route) bool {
	got, ok := o.get(r.Key)
	return ok && got.Equal(r)
}

func (o *observed) put(r kroute.Route) {
	k := compactKey(r.Key)
	if _, ok := o.routes[k]; !ok {
		o.tables[r.Table]++
	}
	o.routes[k] = obsEntry{set: o.intern(r.NextHops), look: o.look}
}

// startLook begins a comparison with the kernel's routes read whole: seen
// marks each, and endLook removes those not seen.
func (o *observed) startLook() { o.look++ }

// seen records that the kernel has r (normalized); changed when the
// observed state did not say so.
func (o *observed) seen(r kroute.Route) (changed bool) {
	set := o.intern(r.NextHops)
	k := compactKey(r.Key)
	e, ok := o.routes[k]
	if !ok {
		o.tables[r.Table]++
	}
	o.routes[k] = obsEntry{set: set, look: o.look}
	return !ok || e.set != set
}

// endLook removes the routes the look did not see, calling gone for each.
func (o *observed) endLook(gone func(kroute.Key)) {
	for k, e := range o.routes {
		if e.look != o.look {
			o.del(k.key())
			gone(k.key())
		}
	}
}

// compact drops the next-hop sets no route uses any more.
func (o *observed) compact() {
	if len(o.sets) < 64 {
		return
	}
	used := make(map[uint32]struct{}, len(o.sets))
	for _, e := range o.routes {
		used[e.set] = struct{}{}
	}
	if 2*len(used) > len(o.sets) {
		return
	}
	q := newObserved()
	q.look = o.look
	for k, e := range o.routes {
		q.routes[k] = obsEntry{set: q.intern(o.sets[e.set]), look: e.look}
	}
	q.tables = o.tables
	*o = *q
}

func (o *observed) del(k kroute.Key) {
	ck := compactKey(k)
	if _, ok := o.routes[ck]; !ok {
		return
	}
	delete(o.routes, ck)
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
