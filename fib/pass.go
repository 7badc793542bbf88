package fib

import (
	"errors"
	"net/netip"
	"sort"
	"time"

	"github.com/authbgp/authbgpd/kroute"
	"github.com/authbgp/authbgpd/peerindex"
	"github.com/authbgp/authbgpd/status"
)

// runPass is one pass: take the recorded inputs, observe what they need,
// plan the writes (pure, desired.go and plan.go) chunk by chunk, write
// each chunk in one batch, and record the outcomes.
func (r *Reconciler) runPass(now time.Time) {
	r.count.passes.Add(1)
	p := &r.p
	r.mu.Lock()
	changes, initial := r.changes, r.initial
	r.changes, r.initial = nil, false
	gone, lost, foreign := r.gone, r.lost, r.foreign
	r.gone, r.lost, r.foreign = nil, false, false
	idx, snap, peersAt := r.index, r.snap, r.peersAt
	r.mu.Unlock()

	all := false
	dirty := map[netip.Prefix]struct{}{}
	mark := func(pfx netip.Prefix) {
		if !all {
			dirty[pfx] = struct{}{}
		}
	}
	// GoBGP's best paths.
	if initial {
		p.paths, all = newPaths(), true
	}
	for _, cs := range changes {
		for _, c := range cs {
			p.paths.set(c.Prefix, c.Paths)
			mark(c.Prefix)
		}
	}
	// The kernel: read whole when due or when a notification was lost,
	// else kept by its notifications of our routes.
	if lost || !now.Before(p.nextLook) {
		if err := r.look(now, mark); err != nil {
			p.lastErr = err.Error()
			r.log.WithError(err).Warn("fib: reading the kernel's routes of ours failed; retried at the next look")
		} else {
			foreign, gone = true, nil
			p.paths.compact()
		}
	}
	// Routes of ours gone: those the kernel still had as we know them (a
	// notification of an older version, or of our own delete, is not).
	for _, g := range gone {
		cur, ok := p.obs.get(g.Key)
		if ok && (len(g.NextHops) == 0 || cur.Matches(g)) {
			p.obs.del(g.Key)
			mark(g.Key.Dst)
		}
	}
	// The peers: where each neighbor's routes go.
	if peersAt != p.peersAt {
		p.peersAt = peersAt
		nb := buildNeighbors(snap, idx, r.observeLinks(snap, idx))
		if !nb.equal(&p.nb) {
			all = true
		}
		p.nb = nb
	}
	// Next hops resolved through routes that changed.
	if foreign && len(p.res) > 0 {
		for k, old := range p.res {
			if nw := r.resolve(k); nw != old {
				p.res[k] = nw
				all = true
			}
		}
	}
	if p.keep != nil && !now.Before(p.keepEnd) {
		for k := range p.keep {
			mark(k.Dst)
		}
		p.keep = nil
	}
	for dst := range p.refused {
		mark(dst)
	}
	if all {
		r.planAll()
	} else {
		r.planSome(dirty)
	}
	r.publish(now)
}

// planAll plans every destination with a best path or a route of ours.
func (r *Reconciler) planAll() {
	p := &r.p
	for pfx := range p.paths.byPrefix {
		r.add(pfx)
	}
	seen := map[netip.Prefix]struct{}{}
	for k := range p.obs.routes {
		if _, ok := p.paths.byPrefix[k.Dst]; ok {
			continue
		}
		if _, ok := seen[k.Dst]; ok {
			continue
		}
		seen[k.Dst] = struct{}{}
		r.add(k.Dst)
	}
	for dst := range p.refused {
		if _, ok := p.paths.byPrefix[dst]; !ok {
			delete(p.refused, dst)
		}
	}
	r.flush()
}

func (r *Reconciler) planSome(dirty map[netip.Prefix]struct{}) {
	for pfx := range dirty {
		r.add(pfx)
	}
	r.flush()
}

// add puts pfx in the chunk, which is planned and written when full.
func (r *Reconciler) add(pfx netip.Prefix) {
	r.p.chunk = append(r.p.chunk, pfx)
	if len(r.p.chunk) >= r.opts.Chunk {
		r.flush()
	}
}

// flush plans the chunk's destinations and writes their routes.
func (r *Reconciler) flush() {
	p := &r.p
	if len(p.chunk) == 0 {
		return
	}
	// Observe: the kernel's answers the chunk's next hops need.
	need := map[resolveKey]struct{}{}
	for _, pfx := range p.chunk {
		needs(p.paths.get(pfx), &p.nb, need)
	}
	for k := range need {
		if _, ok := p.res[k]; !ok {
			p.res[k] = r.resolve(k)
		}
	}
	// Plan (pure).
	p.plan.obs, p.plan.keep = p.obs, p.keep
	p.plan.reset()
	for _, pfx := range p.chunk {
		delete(p.refused, pfx)
		p.plan.plan(pfx, desiredOf(pfx, p.paths.get(pfx), &p.nb, p.res))
	}
	p.chunk = p.chunk[:0]
	for _, ref := range p.plan.refs {
		p.refused[ref.Key.Dst] = ref
	}
	// Act: one batch.
	ops := p.plan.ops
	if len(ops) == 0 {
		return
	}
	if cap(p.errs) < len(ops) {
		p.errs = make([]error, len(ops))
	}
	errs := p.errs[:len(ops)]
	clear(errs)
	r.opts.Kernel.Write(ops, errs)
	r.record(ops, errs)
}

// record is the one place the outcomes of a batch are kept.
func (r *Reconciler) record(ops []kroute.Op, errs []error) {
	p := &r.p
	for i, op := range ops {
		err := errs[i]
		switch {
		case err == nil && op.Delete, op.Delete && errors.Is(err, kroute.ErrNotFound):
			p.obs.del(op.Route.Key)
			r.count.written.Add(1)
		case err == nil:
			p.obs.put(op.Route)
			r.count.written.Add(1)
		case op.Delete:
			p.lastErr = err.Error()
			r.log.WithError(err).Warn("fib: a route of ours could not be removed; retried on the next look")
		default:
			r.count.refused.Add(1)
			p.refused[op.Route.Dst] = refusal{Key: op.Route.Key, VRF: p.nb.vrfs[op.Route.Table], Reason: reasonOf(err), Err: err.Error()}
		}
	}
}

// look reads the kernel's routes of ours whole and compares them with the
// observed state, in place: changed gets the destinations whose routes
// differ from what the reconciler knew (the observed state then follows
// the kernel's answer).
func (r *Reconciler) look(now time.Time, changed func(netip.Prefix)) error {
	r.count.looks.Add(1)
	start := time.Now()
	r.p.nextLook = now.Add(r.opts.Look)
	obs := r.p.obs
	obs.startLook()
	var nhs [4]kroute.NextHop
	err := r.opts.Kernel.Each(func(rt kroute.Route) {
		if len(rt.NextHops) <= len(nhs) {
			rt.NextHops = append(nhs[:0], rt.NextHops...)
		}
		rt.Normalize()
		if obs.seen(rt) {
			changed(rt.Dst)
		}
	})
	if err != nil {
		return err
	}
	obs.endLook(func(k kroute.Key) { changed(k.Dst) })
	obs.compact()
	// A look costs in the number of routes (about 1.5 s at a million):
	// at most 1% of the time goes to looking.
	if spent := time.Since(start); 100*spent > r.opts.Look {
		r.p.nextLook = now.Add(100 * spent)
	}
	r.p.lastLook, r.p.lastErr = now, ""
	return nil
}

// resolve asks the kernel how it reaches k.Addr in k.Table.
func (r *Reconciler) resolve(k resolveKey) resolution {
	nh, err := r.opts.Kernel.Resolve(k.Table, k.Addr)
	if err != nil {
		return resolution{Err: err.Error()}
	}
	return resolution{Hop: nh}
}

// observeLinks asks about the devices the sessions' places need.
func (r *Reconciler) observeLinks(sn *peerindex.Snapshot, idx *peerindex.Index) links {
	lk := links{ifindex: map[string]int{}, tables: map[string]uint32{}}
	ifnames, vrfs := devicesOf(sn, idx)
	for _, name := range ifnames {
		if i, err := r.opts.Devices.IfIndex(name); err == nil {
			lk.ifindex[name] = i
		}
	}
	for _, name := range vrfs {
		if t, err := r.opts.Devices.VRFTable(name); err == nil && t != 0 {
			lk.tables[name] = t
		}
	}
	return lk
}

// publish makes the pass's outcome the Status readers see.
func (r *Reconciler) publish(now time.Time) {
	p := &r.p
	st := &status.FIB{Tables: []status.FIBTable{}, Refused: []status.FIBRefusal{}, LastError: p.lastErr}
	r.mu.Lock()
	if st.LastError == "" {
		st.LastError = r.watchErr
	}
	r.mu.Unlock()
	if !p.lastLook.IsZero() {
		st.LastLook = p.lastLook.UTC().Format(time.RFC3339)
	}
	byTable := map[uint32]*status.FIBTable{}
	table := func(t uint32) *status.FIBTable {
		if bt, ok := byTable[t]; ok {
			return bt
		}
		bt := &status.FIBTable{Table: t, VRF: p.nb.vrfs[t]}
		byTable[t] = bt
		return bt
	}
	table(kroute.MainTable)
	for t, n := range p.obs.tables {
		table(t).Routes = n
	}
	refs := make([]refusal, 0, len(p.refused))
	counts := map[[2]string]int{}
	for _, ref := range p.refused {
		refs = append(refs, ref)
		counts[[2]string{ref.VRF, ref.Reason}]++
		if ref.Key.Table != 0 {
			table(ref.Key.Table).Refused++
		}
	}
	sort.Slice(refs, func(i, j int) bool {
		if refs[i].Key.Table != refs[j].Key.Table {
			return refs[i].Key.Table < refs[j].Key.Table
		}
		return refs[i].Key.Dst.Addr().Less(refs[j].Key.Dst.Addr()) || (refs[i].Key.Dst.Addr() == refs[j].Key.Dst.Addr() && refs[i].Key.Dst.Bits() < refs[j].Key.Dst.Bits())
	})
	stamp := now.UTC().Format(time.RFC3339)
	for i, ref := range refs {
		if i == 100 {
			break
		}
		since := stamp
		if old := r.st.Load(); old != nil {
			for _, o := range old.Refused {
				if o.Prefix == ref.Key.Dst.String() && o.Table == ref.Key.Table {
					since = o.Since
				}
			}
		}
		st.Refused = append(st.Refused, status.FIBRefusal{VRF: ref.VRF, Table: ref.Key.Table, Prefix: ref.Key.Dst.String(), Reason: ref.Reason, Error: ref.Err, Since: since})
	}
	for _, bt := range byTable {
		st.Tables = append(st.Tables, *bt)
	}
	sort.Slice(st.Tables, func(i, j int) bool { return st.Tables[i].Table < st.Tables[j].Table })
	r.mu.Lock()
	for _, cs := range r.changes {
		st.Pending += len(cs)
	}
	r.mu.Unlock()
	r.refusedBy.Store(&refusedCounts{counts: counts})
	r.st.Store(st)
}
