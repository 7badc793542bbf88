package fib

import "github.com/authbgp/authbgpd/kroute"

// refusal is a wanted route that is not in the kernel, and why.
type refusal struct {
	path   pathKey    // the VRF's destination whose best paths want it
	Key    kroute.Key // Table 0: the VRF has no table
	VRF    string
	Reason string
	Err    string // the kernel's answer, when it refused
}

// planner turns what keys want into writes (pure: it reads the observed
// routes, never changes them). One planner plans one chunk of a pass; its
// ops are then written together.
type planner struct {
	obs *observed
	// keep are routes left by an earlier run (taken over at start) that
	// are not deleted while the takeover hold lasts.
	keep map[kroute.Key]struct{}
	ops  []kroute.Op
	refs []refusal
}

// plan adds the writes that make the route of ours at k what w (the best
// paths of pk, the VRF whose table k is in) wants: the wanted route
// (written unless the kernel has it exactly), or none (deleted: withdrawn,
// no VRF has the table, or it cannot be: a route whose next hop is gone is
// not left forwarding).
func (p *planner) plan(k kroute.Key, pk pathKey, w wanted) {
	if w.Want && w.Reason != "" {
		p.refs = append(p.refs, refusal{path: pk, Key: k, VRF: w.VRF, Reason: w.Reason})
	}
	if w.Want && w.Reason == "" {
		if !p.obs.has(w.Route) {
			p.ops = append(p.ops, kroute.Op{Route: w.Route})
		}
		return
	}
	if _, kept := p.keep[k]; kept {
		return
	}
	if r, ok := p.obs.get(k); ok {
		p.ops = append(p.ops, kroute.Op{Delete: true, Route: r})
	}
}

func (p *planner) reset() {
	p.ops, p.refs = p.ops[:0], p.refs[:0]
}
