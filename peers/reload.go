package peers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/authbgp/authbgpd/config"
)

// ErrNeedsRestart is returned by Reload for changes that cannot be applied
// to a running speaker (ASN, router ID, listen port or addresses), with
// ErrReloadRefused.
var ErrNeedsRestart = errors.New("change needs a restart")

// Reload records a new, already validated config and waits for the pass
// that applies it: removed peers go (with their keys), added peers come, a
// changed key is switched in place without resetting the session, other
// peer changes re-add the peer in GoBGP (which resets the session, as BGP
// requires). Unchanged peers are not touched. Global changes that need a
// restart, and TCP-AO keys of an algorithm the kernel does not offer,
// reject the whole reload (ErrReloadRefused) and keep the running config.
//
// The error joins what GoBGP refused and, for peers whose key changed,
// why the new key cannot be used (the peer is then held down).
func (m *Manager) Reload(ctx context.Context, next *config.Config) (config.Changes, error) {
	return m.ReloadPlan(ctx, m.Plan(next))
}

// Plan diffs next against the running config: the plan of a reload to
// next (its preview, and what ReloadPlan applies). It probes the kernel's
// TCP-AO algorithms again (aoalgs.go), records the answer as the passes'
// input, and lists in the plan's Refused every key of next whose algorithm
// the kernel refused, as ReloadPlan will.
func (m *Manager) Plan(next *config.Config) config.Plan {
	algs := m.probeAlgorithms()
	m.mu.Lock()
	m.recordAlgorithms(algs)
	cur := m.cfg
	readds := m.readds(next)
	m.mu.Unlock()
	pl := config.PlanReload(cur, next)
	pl.Refused = algorithmRefusals(next, algs)
	pl.Readds = readds
	return pl
}

// readds lists, in ID order, the peers whose GoBGP neighbor or range a pass
// with next would take out of GoBGP and put back, or change the admin
// state of (m.mu held): the pass's own planners (keepsNeighbor for the
// removals, planGoBGP), run with next's desired state against the records
// of what the passes applied, as a light pass would (without GoBGP's view,
// or the restarts its events call for), acting on nothing.
func (m *Manager) readds(next *config.Config) []string {
	in := m.inputs()
	in.Config = next
	d := holdFailed(desiredOf(in), in.Held)
	var out []string
	for _, id := range d.IDs() {
		st := m.peers[id]
		if st == nil || !st.inGoBGP {
			continue
		}
		w := d.Peers[id]
		f := gobgpFacts{w: w, inGoBGP: keepsNeighbor(st.shape, w, true), heldDown: st.heldDown}
		f.limits = f.inGoBGP && limitsDiffer(st.shape, w.Cfg) // in place: not a re-add
		if !f.inGoBGP || slices.ContainsFunc(planGoBGP([]gobgpFacts{f}), func(a action) bool { return a.kind != actUpdateLimits }) {
			out = append(out, id)
		}
	}
	return out
}

// ReloadPlan is Reload of pl.New with the changes pl has diffed (the
// speaker diffs a reload once, for its preview and for everything that
// applies it). A plan made from another config than the one running
// (a reload in between: the speaker runs them one at a time) is diffed
// again, against the running one.
func (m *Manager) ReloadPlan(ctx context.Context, pl config.Plan) (config.Changes, error) {
	next := pl.New
	m.mu.Lock()
	ch := pl.Changes
	if pl.Old != m.cfg {
		ch = config.Diff(m.cfg, next)
	}
	restart := ch.Refusals(m.cfg, next)
	kernel := algorithmRefusals(next, m.algorithms()) // Plan's probe
	if len(restart)+len(kernel) > 0 {
		m.mu.Unlock()
		var msgs []string
		for _, e := range restart {
			msgs = append(msgs, e.Error())
		}
		for _, r := range kernel {
			msgs = append(msgs, r.Message)
		}
		if len(restart) > 0 {
			return ch, fmt.Errorf("peers: reload rejected: %s: %w (%w)", strings.Join(msgs, "; "), ErrNeedsRestart, ErrReloadRefused)
		}
		return ch, fmt.Errorf("peers: reload rejected: %s: %w", strings.Join(msgs, "; "), ErrReloadRefused)
	}
	m.preflight(next)
	m.cfg = next
	m.mu.Unlock()
	errs := []error{m.pass(ctx)}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, pc := range ch.Changed {
		if st := m.peers[pc.ID]; st != nil && pc.KeyChanged && errors.Is(st.err, ErrNoValidKey) {
			errs = append(errs, st.err)
		}
	}
	return ch, errors.Join(errs...)
}
