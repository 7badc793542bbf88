package fib

import (
	"errors"
	"slices"
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
	changes := r.changes
	r.changes = nil
	gone, lost, foreign := r.gone, r.lost, r.foreign
	r.gone, r.lost, r.foreign = nil, false, false
	idx, snap, peersAt := r.index, r.snap, r.peersAt
	r.mu.Unlock()

	all := false
	dirty := map[kroute.Key]struct{}{}
	noTable := map[pathKey]struct{}{}
	markKey := func(k kroute.Key) {
		if !all {
			dirty[k] = struct{}{}
		}
	}
	markPath := func(pk pathKey) {
		if t := p.tables[pk.vrf]; t != 0 {
			markKey(kroute.Key{Table: t, Dst: pk.pfx})
		} else {
			noTable[pk] = struct{}{}
		}
	}
	// The peers and the VRFs: where each neighbor's routes go, each VRF's
	// table (a VRF's first best paths ask for its table too).
	linksDirty := peersAt != p.peersAt
	for _, ch := range changes {
		_, fresh := p.vrfID(ch.vrf)
		linksDirty = linksDirty || fresh
	}
	if linksDirty {
		p.peersAt = peersAt
		lk := r.observeLinks(snap, idx, p.vrfs)
		nb := buildNeighbors(snap, idx, lk)
		tablesChanged := p.setTables(lk)
		if tablesChanged || !nb.equal(&p.nb) {
			all = true
		}
		p.nb = nb
	}
	// GoBGP's best paths, per VRF (a VRF's init is its whole table: what
	// was recorded of it goes).
	for _, ch := range changes {
		vrf, _ := p.vrfID(ch.vrf)
		if ch.init {
			p.paths.dropVRF(vrf)
			all = true
		}
		for _, c := range ch.changes {
			pk := pathKey{vrf: vrf, pfx: c.Prefix}
			p.paths.set(pk, c.Paths)
			markPath(pk)
		}
	}
	// The kernel: read whole when due or when a notification was lost,
	// else kept by its notifications of our routes.
	if lost || !now.Before(p.nextLook) {
		if err := r.look(now, markKey); err != nil {
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
			markKey(g.Key)
		}
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
			markKey(k)
		}
		p.keep = nil
	}
	for pk := range p.refused {
		markPath(pk)
	}
	if all {
		r.planAll()
	} else {
		for k := range dirty {
			r.add(k)
		}
		for pk := range noTable {
			r.refuseNoTable(pk)
		}
		r.flush()
	}
	r.publish(now)
}

// vrfID is the index of VRF name in the pass's VRFs; fresh when it is new.
func (p *pass) vrfID(name string) (id uint16, fresh bool) {
	if p.vrfIDs == nil {
		p.vrfIDs, p.vrfs = map[string]uint16{"": 0}, []string{""}
	}
	if id, ok := p.vrfIDs[name]; ok {
		return id, false
	}
	id = uint16(len(p.vrfs))
	p.vrfIDs[name] = id
	p.vrfs = append(p.vrfs, name)
	return id, true
}

// setTables records each VRF's table from lk (0: the VRF has none);
// changed when any differs from before.
func (p *pass) setTables(lk links) (changed bool) {
	if len(p.vrfs) == 0 {
		p.vrfID("")
	}
	tables, owner := map[uint16]uint32{0: kroute.MainTable}, map[uint32]uint16{kroute.MainTable: 0}
	for id, name := range p.vrfs {
		if name == "" {
			continue
		}
		if t := lk.tables[name]; t != 0 && t != kroute.MainTable {
			if _, taken := owner[t]; !taken {
				tables[uint16(id)], owner[t] = t, uint16(id)
			}
		}
	}
	changed = len(tables) != len(p.tables)
	for id, t := range tables {
		if p.tables[id] != t {
			changed = true
		}
	}
	p.tables, p.owner = tables, owner
	return changed
}

// planAll plans every route a best path wants and every route of ours.
func (r *Reconciler) planAll() {
	p := &r.p
	for ck := range p.paths.byPrefix {
		pk := ck.path()
		if t := p.tables[pk.vrf]; t != 0 {
			r.add(kroute.Key{Table: t, Dst: pk.pfx})
		} else {
			r.refuseNoTable(pk)
		}
	}
	for ck := range p.obs.routes {
		k := ck.key()
		if vrf, ok := p.owner[k.Table]; ok && p.paths.has(pathKey{vrf: vrf, pfx: k.Dst}) {
			continue // planned above
		}
		r.add(k)
	}
	for pk := range p.refused {
		if !p.paths.has(pk) {
			delete(p.refused, pk)
		}
	}
	r.flush()
}

// refuseNoTable records that pk's VRF has no table (no such VRF device):
// its best paths cannot go in.
func (r *Reconciler) refuseNoTable(pk pathKey) {
	p := &r.p
	if desiredOf(kroute.Key{Dst: pk.pfx}, p.vrfs[pk.vrf], p.paths.get(pk), &p.nb, p.res).Want {
		p.refused[pk] = refusal{Key: kroute.Key{Dst: pk.pfx}, VRF: p.vrfs[pk.vrf], Reason: ReasonNoTable}
	} else {
		delete(p.refused, pk)
	}
}

// add puts k in the chunk, which is planned and written when full.
func (r *Reconciler) add(k kroute.Key) {
	r.p.chunk = append(r.p.chunk, k)
	if len(r.p.chunk) >= r.opts.Chunk {
		r.flush()
	}
}

// wantAt is what the best paths want at key k: the paths of the VRF whose
// table k is in (none when no VRF has that table).
func (p *pass) wantAt(k kroute.Key) (pk pathKey, owned bool) {
	vrf, ok := p.owner[k.Table]
	return pathKey{vrf: vrf, pfx: k.Dst}, ok
}

// flush plans the chunk's keys and writes their routes.
func (r *Reconciler) flush() {
	p := &r.p
	if len(p.chunk) == 0 {
		return
	}
	// Observe: the kernel's answers the chunk's next hops need.
	need := map[resolveKey]struct{}{}
	for _, k := range p.chunk {
		if pk, ok := p.wantAt(k); ok {
			needs(k, p.vrfs[pk.vrf], p.paths.get(pk), &p.nb, need)
		}
	}
	for k := range need {
		if _, ok := p.res[k]; !ok {
			p.res[k] = r.resolve(k)
		}
	}
	// Plan (pure).
	p.plan.obs, p.plan.keep = p.obs, p.keep
	p.plan.reset()
	for _, k := range p.chunk {
		var w wanted
		pk, ok := p.wantAt(k)
		if ok {
			delete(p.refused, pk)
			w = desiredOf(k, p.vrfs[pk.vrf], p.paths.get(pk), &p.nb, p.res)
		}
		p.plan.plan(k, pk, w)
	}
	p.chunk = p.chunk[:0]
	for _, ref := range p.plan.refs {
		p.refused[ref.path] = ref
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
			pk, _ := p.wantAt(op.Route.Key)
			p.refused[pk] = refusal{path: pk, Key: op.Route.Key, VRF: p.vrfs[pk.vrf], Reason: reasonOf(err), Err: err.Error()}
		}
	}
}

// look reads the kernel's routes of ours whole and compares them with the
// observed state, in place: changed gets the destinations whose routes
// differ from what the reconciler knew (the observed state then follows
// the kernel's answer).
func (r *Reconciler) look(now time.Time, changed func(kroute.Key)) error {
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
			changed(rt.Key)
		}
	})
	if err != nil {
		return err
	}
	obs.endLook(changed)
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

// observeLinks asks about the devices the sessions' places need, and the
// tables of the VRFs that have best paths.
func (r *Reconciler) observeLinks(sn *peerindex.Snapshot, idx *peerindex.Index, known []string) links {
	lk := links{ifindex: map[string]int{}, tables: map[string]uint32{}}
	ifnames, vrfs := devicesOf(sn, idx)
	for _, v := range known {
		if v != "" && !slices.Contains(vrfs, v) {
			vrfs = append(vrfs, v)
		}
	}
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
		bt := &status.FIBTable{Table: t}
		if id, ok := p.owner[t]; ok {
			bt.VRF = p.vrfs[id]
		}
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
		st.Pending += len(cs.changes)
	}
	r.mu.Unlock()
	r.refusedBy.Store(&refusedCounts{counts: counts})
	r.st.Store(st)
}
