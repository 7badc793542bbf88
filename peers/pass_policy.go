package peers

import (
	"context"
	"fmt"
	"net/netip"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/osrg/gobgp/v3/pkg/config/ocpolicy"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/status"
)

// Routing policies: the config's [defined-sets] and [[policy-definitions]]
// (gobgpd's schema, GoBGP's types) go into every GoBGP instance with
// GoBGP's SetPolicies (policyDefs, before any neighbor is added, so that
// a neighbor is born with its policies). A neighbor or range gets its
// assignment with it when it is added (api.Peer / api.PeerGroup
// ApplyPolicy: no route passes unfiltered in between); a reload that
// changes an assignment, or a policy or set a peer uses, changes it in
// place with SetPolicyAssignment and a soft reset of the directions that
// changed (assignments): GoBGP re-evaluates the routes it holds (in) and
// sends the peer what the new policy lets through (out), with no session
// reset. Assignments are not part of the neighbor's shape (sameShape), so
// a policy change never re-adds a neighbor.

// policyBGP is what the policy stages need of GoBGP (plugin.Host).
type policyBGP interface {
	SetPolicies(ctx context.Context, rp *api.RoutingPolicy) error
	SetPolicyAssignmentIn(ctx context.Context, vrf string, a *api.PolicyAssignment) error
	UpdatePeerGroup(ctx context.Context, g *api.PeerGroup) (bool, error)
}

// policyRecord is what the policy stages applied (written by the pass).
type policyRecord struct {
	// installed: the policies GoBGP holds (nil: none installed yet).
	installed *config.Policies
	// applied: each neighbor's and range's assignment, by peer ID, and
	// each dynamic session's, by address.
	applied map[string]config.PeerPolicy
}

// apiApplyPolicy is a peer's assignment as GoBGP's neighbor carries it.
func apiApplyPolicy(e config.PeerPolicy) *api.ApplyPolicy {
	return &api.ApplyPolicy{
		ImportPolicy: apiAssignment("", api.PolicyDirection_IMPORT, e.Import, e.DefaultImport),
		ExportPolicy: apiAssignment("", api.PolicyDirection_EXPORT, e.Export, e.DefaultExport),
	}
}

func apiAssignment(name string, dir api.PolicyDirection, names []string, def string) *api.PolicyAssignment {
	a := &api.PolicyAssignment{Name: name, Direction: dir, DefaultAction: api.RouteAction_ACCEPT}
	if def == config.RejectRoute {
		a.DefaultAction = api.RouteAction_REJECT
	}
	for _, n := range names {
		a.Policies = append(a.Policies, &api.Policy{Name: n})
	}
	return a
}

// policyOf is the assignment GoBGP gets for c in the pass's config.
func (p *pass) policyOf(c *config.Peer) *api.ApplyPolicy {
	return apiApplyPolicy(p.in.Config.EffectivePolicy(c))
}

// policyDefs installs the config's defined sets and policies in GoBGP when
// they differ from those installed; it returns the test of which policies
// changed (nil: none), for assignments' soft resets.
func (p *pass) policyDefs() func(string) bool {
	m, cfg := p.m, p.in.Config
	if m.pol.applied == nil {
		m.pol.applied = map[string]config.PeerPolicy{}
	}
	old := m.pol.installed
	if old == &cfg.Policies || old != nil && old.Equal(&cfg.Policies) || old == nil && cfg.Policies.Empty() {
		m.pol.installed = &cfg.Policies
		return nil
	}
	rp, err := ocpolicy.ToAPI(&cfg.Policies.RoutingPolicy)
	if err == nil {
		err = p.act(action{kind: actSetPolicies, pol: &policyAct{rp: rp}})
	}
	if err != nil {
		m.log.WithError(err).Error("cannot install the routing policies in GoBGP")
		p.errs = append(p.errs, err)
		return nil
	}
	m.log.WithField("policies", len(cfg.Policies.PolicyDefinitions)).Info("routing policies installed")
	m.pol.installed = &cfg.Policies
	if old == nil {
		old = &config.Policies{}
	}
	return config.ChangedPolicy(old, &cfg.Policies)
}

// assignments brings each neighbor's and range's assignment in GoBGP in
// line with the config, in place, after the GoBGP stage; changed is
// policyDefs' answer.
func (p *pass) assignments(changed func(string) bool) {
	m := p.m
	added := map[string]bool{}
	for _, a := range p.done {
		if a.peer != nil && (a.kind == actAddNeighbor || a.kind == actReaddNeighbor || a.kind == actAddRange) {
			added[a.peer.ID()] = true
		}
	}
	for _, id := range p.d.IDs() {
		w := p.d.Peers[id]
		st := m.peers[id]
		if st == nil || !st.inGoBGP || w.Unresolved() {
			delete(m.pol.applied, id)
			continue
		}
		want := p.in.Config.EffectivePolicy(w.Cfg)
		if added[id] {
			m.pol.applied[id] = want
			continue
		}
		had, ok := m.pol.applied[id]
		if !ok { // ours from before a restart of the record: GoBGP has what it was added with
			m.pol.applied[id] = want
			continue
		}
		in, out := !samePolicyDir(had.Import, want.Import, had.DefaultImport, want.DefaultImport, changed),
			!samePolicyDir(had.Export, want.Export, had.DefaultExport, want.DefaultExport, changed)
		if !in && !out {
			continue
		}
		if err := p.reassign(w.Cfg, want, in, out); err != nil {
			m.log.WithError(err).WithField("peer", id).Error("cannot change the peer's policies in GoBGP")
			p.errs = append(p.errs, err)
			continue
		}
		m.pol.applied[id] = want
	}
	for id := range m.pol.applied {
		if _, ok := p.d.Peers[id]; !ok {
			delete(m.pol.applied, id) // removed from the config
		}
	}
}

// samePolicyDir reports whether one direction's assignment is the same,
// and none of its policies changed.
func samePolicyDir(had, want []string, hadDef, wantDef string, changed func(string) bool) bool {
	if hadDef != wantDef || len(had) != len(want) {
		return false
	}
	for i := range had {
		if had[i] != want[i] || (changed != nil && changed(want[i])) {
			return false
		}
	}
	return true
}

// policyAct is what actSetPolicies and actSetAssignment carry out
// (apply.go's applyPolicy).
type policyAct struct {
	rp *api.RoutingPolicy // actSetPolicies
	// actSetAssignment: a range's group (nil for a neighbor), the
	// neighbors to assign (the neighbor, or the range's sessions), those
	// established (soft-reset in dir), and the assignment.
	vrf         string // the peer's VRF: its instance
	group       *api.PeerGroup
	addrs       []netip.Addr
	established map[netip.Addr]bool
	dir         api.ResetPeerRequest_SoftResetDirection
	want        config.PeerPolicy
}

// assignments are the import and export assignments of neighbor name.
func (pa *policyAct) assignments(name string) []*api.PolicyAssignment {
	return []*api.PolicyAssignment{
		apiAssignment(name, api.PolicyDirection_IMPORT, pa.want.Import, pa.want.DefaultImport),
		apiAssignment(name, api.PolicyDirection_EXPORT, pa.want.Export, pa.want.DefaultExport),
	}
}

// reassign changes c's assignment in GoBGP (its neighbor's, or its range's
// group and each of its sessions') and soft-resets the directions that
// changed on the established sessions.
func (p *pass) reassign(c *config.Peer, want config.PeerPolicy, in, out bool) error {
	m := p.m
	pa := &policyAct{vrf: c.VRF, addrs: []netip.Addr{c.Address}, established: map[netip.Addr]bool{}, want: want, dir: api.ResetPeerRequest_BOTH}
	if c.IsDynamic() {
		g, err := apiPeerGroup(c)
		if err != nil {
			return err
		}
		g.ApplyPolicy = apiApplyPolicy(want)
		pa.group, pa.addrs = g, p.rangeTable(c)
	}
	switch {
	case in && !out:
		pa.dir = api.ResetPeerRequest_IN
	case out && !in:
		pa.dir = api.ResetPeerRequest_OUT
	}
	for _, a := range pa.addrs {
		if s := m.sess[nbr(c.VRF, a)]; s != nil && s.state == "established" {
			pa.established[a] = true
		}
	}
	if err := p.act(action{kind: actSetAssignment, peer: c, pol: pa}); err != nil {
		return fmt.Errorf("peers: policies of %s: %w", c.ID(), err)
	}
	m.log.WithFields(map[string]any{"peer": c.ID(), "import": in, "export": out, "soft_reset_sessions": len(pa.established)}).
		Info("peer's policies changed in place (soft reset, no session reset)")
	return nil
}

// policyStatus is c's assignment for /status (nil when the config has no
// policy and no ebgp-requires-policy: every peer takes and sends all).
func policyStatus(c *config.Config, p *config.Peer) *status.RoutingPolicy {
	if c == nil || c.Policies.Empty() && !c.Global.EBGPRequiresPolicy {
		return nil
	}
	e := c.EffectivePolicy(p)
	return &status.RoutingPolicy{Import: nonNil(e.Import), DefaultImport: e.DefaultImport, Export: nonNil(e.Export), DefaultExport: e.DefaultExport}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
