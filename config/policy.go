package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/osrg/gobgp/v3/pkg/config/ocpolicy"

	"github.com/osrg/gobgp/v3/pkg/config/oc"
)

// Policies are the file's [defined-sets] and [[policy-definitions]]:
// gobgpd's schema, in GoBGP's own types. GoBGP's policy engine evaluates
// them (peers installs them in every GoBGP instance with SetPolicies);
// authbgpd has no policy language of its own.
type Policies struct {
	oc.RoutingPolicy
	// lines: the line of each decoded key and table, by TOML path
	// ("policy-definitions.0.statements.1"), for errors.
	lines map[string]int
}

// Empty reports whether the file defines no set and no policy.
func (p *Policies) Empty() bool {
	d := &p.DefinedSets
	b := &d.BgpDefinedSets
	return len(p.PolicyDefinitions)+len(d.PrefixSets)+len(d.NeighborSets)+len(d.TagSets)+
		len(b.CommunitySets)+len(b.ExtCommunitySets)+len(b.AsPathSets)+len(b.LargeCommunitySets) == 0
}

// Equal reports whether p and q define the same sets and policies.
func (p *Policies) Equal(q *Policies) bool { return p.RoutingPolicy.Equal(&q.RoutingPolicy) }

// Policy returns the policy definition called name, or nil.
func (p *Policies) Policy(name string) *oc.PolicyDefinition {
	for i := range p.PolicyDefinitions {
		if p.PolicyDefinitions[i].Name == name {
			return &p.PolicyDefinitions[i]
		}
	}
	return nil
}

func (p *Policies) line(path ...string) int { return p.lines[strings.Join(path, ".")] }

// The values of default-import-policy and default-export-policy
// (gobgpd's).
const (
	AcceptRoute = string(oc.DEFAULT_POLICY_TYPE_ACCEPT_ROUTE)
	RejectRoute = string(oc.DEFAULT_POLICY_TYPE_REJECT_ROUTE)
)

// PeerPolicy is a peer's (or range's) policy assignment, with gobgpd's
// key names: import-policy-list, default-import-policy,
// export-policy-list, default-export-policy.
type PeerPolicy struct {
	Import        []string
	DefaultImport string // AcceptRoute, RejectRoute; "" = accept-route
	Export        []string
	DefaultExport string
}

// Equal reports whether a and b assign the same.
func (a PeerPolicy) Equal(b PeerPolicy) bool {
	return slices.Equal(a.Import, b.Import) && slices.Equal(a.Export, b.Export) &&
		a.DefaultImport == b.DefaultImport && a.DefaultExport == b.DefaultExport
}

// EBGP reports whether p is an eBGP peer under g (another AS).
func (p *Peer) EBGP(g *Global) bool { return p.ASN != g.ASN }

// EffectivePolicy is the assignment GoBGP gets for p: its keys, with the
// defaults filled in ("" is accept-route), and RFC 8212's rule when
// [global] ebgp-requires-policy is true: an eBGP peer with no import
// (export) policy accepts (sends) nothing.
func (c *Config) EffectivePolicy(p *Peer) PeerPolicy {
	e := PeerPolicy{Import: p.ImportPolicyList, Export: p.ExportPolicyList,
		DefaultImport: p.DefaultImportPolicy, DefaultExport: p.DefaultExportPolicy}
	if e.DefaultImport == "" {
		e.DefaultImport = AcceptRoute
	}
	if e.DefaultExport == "" {
		e.DefaultExport = AcceptRoute
	}
	if c.Global.EBGPRequiresPolicy && p.EBGP(&c.Global) {
		if len(e.Import) == 0 {
			e.DefaultImport = RejectRoute
		}
		if len(e.Export) == 0 {
			e.DefaultExport = RejectRoute
		}
	}
	return e
}

// OC is a as GoBGP's config type.
func (a PeerPolicy) OC() oc.ApplyPolicy {
	return oc.ApplyPolicy{Config: oc.ApplyPolicyConfig{
		ImportPolicyList: a.Import, DefaultImportPolicy: oc.DefaultPolicyType(a.DefaultImport),
		ExportPolicyList: a.Export, DefaultExportPolicy: oc.DefaultPolicyType(a.DefaultExport),
	}}
}

// The per-peer policy keys, as peerAttrs decodes and compares them.
var policyAttrs = []peerAttr{
	{"import-policy-list", func(t *table, p *Peer) { decodeList(t, "import-policy-list", &p.ImportPolicyList) },
		func(a, b *Peer) bool { return slices.Equal(a.ImportPolicyList, b.ImportPolicyList) }},
	{"default-import-policy", func(t *table, p *Peer) { decodeStr(t, "default-import-policy", &p.DefaultImportPolicy) },
		func(a, b *Peer) bool { return a.DefaultImportPolicy == b.DefaultImportPolicy }},
	{"export-policy-list", func(t *table, p *Peer) { decodeList(t, "export-policy-list", &p.ExportPolicyList) },
		func(a, b *Peer) bool { return slices.Equal(a.ExportPolicyList, b.ExportPolicyList) }},
	{"default-export-policy", func(t *table, p *Peer) { decodeStr(t, "default-export-policy", &p.DefaultExportPolicy) },
		func(a, b *Peer) bool { return a.DefaultExportPolicy == b.DefaultExportPolicy }},
}

func decodeList(t *table, key string, to *[]string) {
	if t.has(key) {
		*to, _, _ = t.strings(key)
	}
}

// validatePolicies checks the policy sections by building GoBGP's routing
// policy from them (ocpolicy.Check: what the server does on SetPolicies),
// set by set and policy by policy, so that an error is reported at the
// line of what GoBGP refused; and each peer's assignment against them.
func (c *Config) validatePolicies(p *problems) {
	ps := &c.Policies
	if ps.lines == nil {
		ps.lines = map[string]int{}
	}
	sets := c.validateSets(p)
	names := map[string]int{}
	statements := map[string]int{}
	for i := range ps.PolicyDefinitions {
		pd := &ps.PolicyDefinitions[i]
		at := strconv.Itoa(i)
		line := ps.line("policy-definitions", at)
		if l := ps.line("policy-definitions", at, "name"); l > 0 {
			line = l
		}
		if pd.Name == "" {
			p.errorf(line, "[[policy-definitions]]: name is missing")
			continue
		}
		firstOf(p, names, pd.Name, line, "[[policy-definitions]] %s: the name is used twice", pd.Name)
		ok := true
		for j := range pd.Statements {
			st := &pd.Statements[j]
			sat := strconv.Itoa(j)
			sline := ps.line("policy-definitions", at, "statements", sat)
			if st.Name != "" {
				firstOf(p, statements, st.Name, sline, "[[policy-definitions]] %s: statement %s: the name is used twice (GoBGP needs statement names unique across policies)", pd.Name, st.Name)
			}
			ok = checkRefs(p, ps, sets, st, "policy-definitions", at, "statements", sat) && ok
			if !ok {
				continue
			}
			one := *pd
			one.Statements = []oc.Statement{*st}
			if err := ocpolicy.Check(&oc.RoutingPolicy{DefinedSets: ps.DefinedSets, PolicyDefinitions: []oc.PolicyDefinition{one}}, nil); err != nil {
				p.errorf(sline, "[[policy-definitions]] %s: statement %d: %v", pd.Name, j+1, err)
				ok = false
			}
		}
	}
	for i := range c.Peers {
		c.validatePeerPolicy(p, &c.Peers[i])
	}
	if len(p.errs) > 0 {
		return
	}
	// The whole, as the server builds it: what no part showed.
	if err := ocpolicy.Check(&ps.RoutingPolicy, c.assignments()); err != nil {
		line := ps.line("policy-definitions", "0")
		if line == 0 {
			line = 1
		}
		p.errorf(line, "policies: %v", err)
	}
}

// assignments are the peers' assignments by peer ID, as GoBGP gets them.
func (c *Config) assignments() map[string]oc.ApplyPolicy {
	out := make(map[string]oc.ApplyPolicy, len(c.Peers))
	for i := range c.Peers {
		out[c.Peers[i].ID()] = c.EffectivePolicy(&c.Peers[i]).OC()
	}
	return out
}

// setKind is one kind of defined set: its key (under defined-sets), its
// name key, and its members as GoBGP takes them one at a time.
type setKind struct {
	path    []string // under [defined-sets]
	nameKey string
	list    string // the members' key
	each    func(d *oc.DefinedSets) []setOf
}

// setOf is one defined set: its name, and for each member a defined-sets
// holding that member alone (to find the member GoBGP refuses), and the
// set alone.
type setOf struct {
	name    string
	members []oc.DefinedSets
	alone   oc.DefinedSets
}

var setKinds = []setKind{
	kindOf([]string{"prefix-sets"}, "prefix-set-name", "prefix-list",
		func(d *oc.DefinedSets) *[]oc.PrefixSet { return &d.PrefixSets },
		func(s *oc.PrefixSet) (string, *[]oc.Prefix) { return s.PrefixSetName, &s.PrefixList }),
	kindOf([]string{"neighbor-sets"}, "neighbor-set-name", "neighbor-info-list",
		func(d *oc.DefinedSets) *[]oc.NeighborSet { return &d.NeighborSets },
		func(s *oc.NeighborSet) (string, *[]string) { return s.NeighborSetName, &s.NeighborInfoList }),
	kindOf([]string{"bgp-defined-sets", "community-sets"}, "community-set-name", "community-list",
		func(d *oc.DefinedSets) *[]oc.CommunitySet { return &d.BgpDefinedSets.CommunitySets },
		func(s *oc.CommunitySet) (string, *[]string) { return s.CommunitySetName, &s.CommunityList }),
	kindOf([]string{"bgp-defined-sets", "ext-community-sets"}, "ext-community-set-name", "ext-community-list",
		func(d *oc.DefinedSets) *[]oc.ExtCommunitySet { return &d.BgpDefinedSets.ExtCommunitySets },
		func(s *oc.ExtCommunitySet) (string, *[]string) { return s.ExtCommunitySetName, &s.ExtCommunityList }),
	kindOf([]string{"bgp-defined-sets", "large-community-sets"}, "large-community-set-name", "large-community-list",
		func(d *oc.DefinedSets) *[]oc.LargeCommunitySet { return &d.BgpDefinedSets.LargeCommunitySets },
		func(s *oc.LargeCommunitySet) (string, *[]string) {
			return s.LargeCommunitySetName, &s.LargeCommunityList
		}),
	kindOf([]string{"bgp-defined-sets", "as-path-sets"}, "as-path-set-name", "as-path-list",
		func(d *oc.DefinedSets) *[]oc.AsPathSet { return &d.BgpDefinedSets.AsPathSets },
		func(s *oc.AsPathSet) (string, *[]string) { return s.AsPathSetName, &s.AsPathList }),
}

// kindOf is the setKind of the sets at(d) of type S, each with a name and
// members of type M (about).
func kindOf[S, M any](path []string, nameKey, list string, at func(*oc.DefinedSets) *[]S, about func(*S) (string, *[]M)) setKind {
	alone := func(s S) oc.DefinedSets {
		var d oc.DefinedSets
		*at(&d) = []S{s}
		return d
	}
	return setKind{path, nameKey, list, func(d *oc.DefinedSets) []setOf {
		out := make([]setOf, 0, len(*at(d)))
		for _, s := range *at(d) {
			name, members := about(&s)
			so := setOf{name: name, alone: alone(s)}
			for i := range *members {
				one := s
				_, m := about(&one)
				*m = (*members)[i : i+1]
				so.members = append(so.members, alone(one))
			}
			out = append(out, so)
		}
		return out
	}}
}

// validateSets checks every defined set with GoBGP (each alone, then the
// member it refuses); it returns the names of each kind's sets, by the
// kind's name key.
func (c *Config) validateSets(p *problems) map[string]map[string]bool {
	ps := &c.Policies
	out := map[string]map[string]bool{}
	if len(ps.DefinedSets.TagSets) > 0 {
		p.errorf(ps.line("defined-sets", "tag-sets", "0"), "tag-sets: GoBGP does not evaluate tag sets (its policies cannot match them)")
	}
	for _, k := range setKinds {
		out[k.nameKey] = map[string]bool{}
		seen := map[string]int{}
		base := append([]string{"defined-sets"}, k.path...)
		for i, s := range k.each(&ps.DefinedSets) {
			at := append(slices.Clone(base), strconv.Itoa(i))
			line := ps.line(at...)
			label := "[[" + strings.Join(base, ".") + "]]"
			if s.name == "" {
				p.errorf(line, "%s: %s is missing", label, k.nameKey)
				continue
			}
			firstOf(p, seen, s.name, line, "%s %s: the name is used twice", label, s.name)
			out[k.nameKey][s.name] = true
			err := ocpolicy.Check(&oc.RoutingPolicy{DefinedSets: s.alone}, nil)
			if err == nil {
				continue
			}
			for j, m := range s.members {
				if e := ocpolicy.Check(&oc.RoutingPolicy{DefinedSets: m}, nil); e != nil {
					member := append(at, k.list, strconv.Itoa(j))
					if l := ps.line(member...); l > 0 {
						line = l
					}
					// A prefix: the key at fault.
					key := "ip-prefix"
					if strings.Contains(e.Error(), "mask") {
						key = "masklength-range"
					}
					if l := ps.line(append(member, key)...); l > 0 {
						line = l
					}
					err = e
					break
				}
			}
			p.errorf(line, "%s %s: %v", label, s.name, err)
		}
	}
	return out
}

// checkRefs reports each set a statement names that no [defined-sets]
// entry defines (GoBGP's "not found ... set"), at the naming key's line.
func checkRefs(p *problems, ps *Policies, sets map[string]map[string]bool, st *oc.Statement, at ...string) bool {
	cd := &st.Conditions
	bc := &cd.BgpConditions
	ok := true
	ref := func(name, kind string, path ...string) {
		if name == "" || sets[kind][name] {
			return
		}
		line := ps.line(append(slices.Clone(at), path...)...)
		if line == 0 {
			line = ps.line(at...)
		}
		p.errorf(line, "%s: %q: no such set (%s)", path[len(path)-1], name, strings.TrimSuffix(kind, "-name"))
		ok = false
	}
	ref(cd.MatchPrefixSet.PrefixSet, "prefix-set-name", "conditions", "match-prefix-set", "prefix-set")
	ref(cd.MatchNeighborSet.NeighborSet, "neighbor-set-name", "conditions", "match-neighbor-set", "neighbor-set")
	ref(bc.MatchCommunitySet.CommunitySet, "community-set-name", "conditions", "bgp-conditions", "match-community-set", "community-set")
	ref(bc.MatchExtCommunitySet.ExtCommunitySet, "ext-community-set-name", "conditions", "bgp-conditions", "match-ext-community-set", "ext-community-set")
	ref(bc.MatchLargeCommunitySet.LargeCommunitySet, "large-community-set-name", "conditions", "bgp-conditions", "match-large-community-set", "large-community-set")
	ref(bc.MatchAsPathSet.AsPathSet, "as-path-set-name", "conditions", "bgp-conditions", "match-as-path-set", "as-path-set")
	return ok
}

// validatePeerPolicy checks a peer's policy keys: the policies it names
// exist, once each, and its defaults are gobgpd's values.
func (c *Config) validatePeerPolicy(p *problems, pr *Peer) {
	label := "[[peers]] " + pr.ID()
	for _, l := range []struct {
		key   string
		names []string
	}{{"import-policy-list", pr.ImportPolicyList}, {"export-policy-list", pr.ExportPolicyList}} {
		seen := map[string]bool{}
		for _, n := range l.names {
			switch {
			case c.Policies.Policy(n) == nil:
				p.errorf(pr.m.lineOf(l.key, pr.Line), "%s: %s: %q: no such policy ([[policy-definitions]] name)", label, l.key, n)
			case seen[n]:
				p.errorf(pr.m.lineOf(l.key, pr.Line), "%s: %s: %q is listed twice", label, l.key, n)
			}
			seen[n] = true
		}
	}
	for _, d := range []struct{ key, v string }{{"default-import-policy", pr.DefaultImportPolicy}, {"default-export-policy", pr.DefaultExportPolicy}} {
		if d.v != "" && d.v != AcceptRoute && d.v != RejectRoute {
			p.errorf(pr.m.lineOf(d.key, pr.Line), "%s: %s: %q: must be %q or %q", label, d.key, d.v, AcceptRoute, RejectRoute)
		}
	}
}

// PolicyWarnings are what `authbgpd check` warns about, while
// ebgp-requires-policy is false: each eBGP peer with neither an import nor
// an export policy (RFC 8212 would have it accept and send nothing). They
// are not among Warnings (a reload does not repeat them).
func (c *Config) PolicyWarnings() []Warning {
	if c.Global.EBGPRequiresPolicy {
		return nil
	}
	p := &problems{file: c.File}
	for i := range c.Peers {
		pr := &c.Peers[i]
		if pr.EBGP(&c.Global) && len(pr.ImportPolicyList) == 0 && len(pr.ExportPolicyList) == 0 {
			p.warnf(pr.Line, "[[peers]] %s: an eBGP peer with neither import-policy-list nor export-policy-list accepts and sends every route; RFC 8212 says it should take and send none (set [global] ebgp-requires-policy = true for that)", pr.ID())
		}
	}
	return p.warns
}

// policyKeys are the peer keys a reload applies in place (a soft reset).
var policyKeys = []string{"import-policy-list", "default-import-policy", "export-policy-list", "default-export-policy"}

// InPlace reports whether every change of the peer applies without a
// session reset: its key (switched in place), its policies (a soft reset:
// route refresh in, a new UPDATE out), and a static peer's prefix limit
// (GoBGP updates a neighbor's limit in place; a dynamic range's re-adds
// the range).
func (pc *PeerChange) InPlace() bool {
	for _, f := range pc.Fields {
		switch {
		case f == "auth" || f == "secret", slices.Contains(policyKeys, f):
		case slices.Contains(prefixLimitFields, f) && pc.New != nil && !pc.New.IsDynamic():
		default:
			return false
		}
	}
	return true
}

// PolicyChanges names the peers (by ID) of new whose policies a reload
// from old changes: their assignment, or a policy (or a set it uses) they
// are assigned. Each is "import", "export" or "import, export": the
// directions GoBGP soft-resets.
func PolicyChanges(old, new *Config) map[string]string {
	out := map[string]string{}
	changed := ChangedPolicy(&old.Policies, &new.Policies)
	olds := map[string]*Peer{}
	for i := range old.Peers {
		olds[old.Peers[i].ID()] = &old.Peers[i]
	}
	for i := range new.Peers {
		np := &new.Peers[i]
		op := olds[np.ID()]
		if op == nil {
			continue
		}
		oe, ne := old.EffectivePolicy(op), new.EffectivePolicy(np)
		var dirs []string
		if !slices.Equal(oe.Import, ne.Import) || oe.DefaultImport != ne.DefaultImport || slices.ContainsFunc(ne.Import, changed) {
			dirs = append(dirs, "import")
		}
		if !slices.Equal(oe.Export, ne.Export) || oe.DefaultExport != ne.DefaultExport || slices.ContainsFunc(ne.Export, changed) {
			dirs = append(dirs, "export")
		}
		if len(dirs) > 0 {
			out[np.ID()] = strings.Join(dirs, ", ")
		}
	}
	return out
}

// ChangedPolicy reports, for a policy name, whether its definition
// differs between old and new, or a set it names does.
func ChangedPolicy(old, new *Policies) func(string) bool {
	oldSets, newSets := setsByName(&old.DefinedSets), setsByName(&new.DefinedSets)
	return func(name string) bool {
		op, np := old.Policy(name), new.Policy(name)
		if op == nil || np == nil || !op.Equal(np) {
			return true
		}
		for _, st := range np.Statements {
			for _, ref := range statementRefs(&st) {
				if oldSets[ref] != newSets[ref] {
					return true
				}
			}
		}
		return false
	}
}

// setsByName renders each defined set, by "KIND NAME", for comparison.
func setsByName(d *oc.DefinedSets) map[string]string {
	out := map[string]string{}
	for _, k := range setKinds {
		for _, s := range k.each(d) {
			out[k.nameKey+" "+s.name] = fmt.Sprintf("%+v", s.alone)
		}
	}
	return out
}

// statementRefs are the sets a statement names, as setsByName keys them.
func statementRefs(st *oc.Statement) []string {
	cd := &st.Conditions
	bc := &cd.BgpConditions
	return []string{
		"prefix-set-name " + cd.MatchPrefixSet.PrefixSet,
		"neighbor-set-name " + cd.MatchNeighborSet.NeighborSet,
		"community-set-name " + bc.MatchCommunitySet.CommunitySet,
		"ext-community-set-name " + bc.MatchExtCommunitySet.ExtCommunitySet,
		"large-community-set-name " + bc.MatchLargeCommunitySet.LargeCommunitySet,
		"as-path-set-name " + bc.MatchAsPathSet.AsPathSet,
	}
}

// policyLines are the preview's lines of the policy changes: the
// sections, then each peer whose policies change, by ID.
func (ch *Changes) policyLines() []string {
	var out []string
	if ch.RoutingPolicy {
		out = append(out, "[defined-sets] / [[policy-definitions]] changed")
	}
	ids := make([]string, 0, len(ch.PolicyPeers))
	for id := range ch.PolicyPeers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		out = append(out, fmt.Sprintf("peer %s: policies change (%s): applied in place with a soft reset, no session reset", id, ch.PolicyPeers[id]))
	}
	return out
}
