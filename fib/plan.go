package fib

import "net/netip"

// refusal is a wanted route that is not in the kernel, and why.
type refusal struct {
	Key    Key
	VRF    string
	Reason string
	Err    string // the kernel's answer, when it refused
}

// planner turns what destinations want into writes (pure: it reads the
// observed routes, never changes them). One planner plans one chunk of a
// pass; its ops are then written together.
type planner struct {
	obs *observed
	// keep are routes left by an earlier run (taken over at start) that
	// are not deleted while the takeover hold lasts.
	keep map[Key]struct{}
	ops  []Op
	refs []refusal
}

// plan adds the writes that make dst's routes of ours what w wants: the
// wanted route in its table (written unless the kernel has it exactly),
// and no route of ours for dst in any other table (nor in its own when it
// cannot be: a route whose next hop is gone is not left forwarding).
func (p *planner) plan(dst netip.Prefix, w wanted) {
	if w.Want && w.Reason != "" {
		p.refs = append(p.refs, refusal{Key: Key{Table: w.Table, Dst: dst}, VRF: w.VRF, Reason: w.Reason})
	}
	install := w.Want && w.Reason == ""
	p.obs.keysAt(dst, func(k Key) {
		if install && k == w.Route.Key {
			return
		}
		if _, kept := p.keep[k]; kept {
			return
		}
		r, _ := p.obs.get(k)
		p.ops = append(p.ops, Op{Delete: true, Route: r})
	})
	if install && !p.obs.has(w.Route) {
		p.ops = append(p.ops, Op{Route: w.Route})
	}
}

func (p *planner) reset() {
	p.ops, p.refs = p.ops[:0], p.refs[:0]
}
