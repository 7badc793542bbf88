package config

import (
	"slices"
	"strings"
	"testing"

	"github.com/osrg/gobgp/v3/pkg/config/oc"
)

// policyDoc is gobgpd's schema as GoBGP's docs/sources/policy.md writes
// it (every defined-set kind, a policy with conditions and actions), and
// two peers that use it.
const policyDoc = `[global]
asn = 65001
router-id = "192.0.2.1"

[[defined-sets.prefix-sets]]
  prefix-set-name = "ps1"
  [[defined-sets.prefix-sets.prefix-list]]
    ip-prefix = "10.33.0.0/16"
    masklength-range = "21..24"
  [[defined-sets.prefix-sets.prefix-list]]
    ip-prefix = "10.50.0.0/16"
[[defined-sets.neighbor-sets]]
  neighbor-set-name = "ns1"
  neighbor-info-list = ["10.0.255.1"]
[[defined-sets.bgp-defined-sets.community-sets]]
  community-set-name = "community1"
  community-list = ["65100:10"]
[[defined-sets.bgp-defined-sets.ext-community-sets]]
  ext-community-set-name = "ecommunity1"
  ext-community-list = ["RT:65100:100"]
[[defined-sets.bgp-defined-sets.large-community-sets]]
  large-community-set-name = "lcommunity1"
  large-community-list = ["65100:100:100"]
[[defined-sets.bgp-defined-sets.as-path-sets]]
  as-path-set-name = "aspath1"
  as-path-list = ["^65100"]

[[policy-definitions]]
  name = "example-policy"
  [[policy-definitions.statements]]
    name = "statement1"
    [policy-definitions.statements.conditions.match-prefix-set]
      prefix-set = "ps1"
      match-set-options = "any"
    [policy-definitions.statements.conditions.match-neighbor-set]
      neighbor-set = "ns1"
      match-set-options = "invert"
    [policy-definitions.statements.conditions.bgp-conditions.match-community-set]
      community-set = "community1"
      match-set-options = "any"
    [policy-definitions.statements.conditions.bgp-conditions.match-ext-community-set]
      ext-community-set = "ecommunity1"
      match-set-options = "any"
    [policy-definitions.statements.conditions.bgp-conditions.match-as-path-set]
      as-path-set = "aspath1"
      match-set-options = "any"
    [policy-definitions.statements.conditions.bgp-conditions.as-path-length]
      operator = "eq"
      value = 2
    [policy-definitions.statements.actions]
      route-disposition = "accept-route"
    [policy-definitions.statements.actions.bgp-actions]
      set-med = "-200"
      [policy-definitions.statements.actions.bgp-actions.set-as-path-prepend]
        as = "65005"
        repeat-n = 5
      [policy-definitions.statements.actions.bgp-actions.set-community]
        options = "add"
        [policy-definitions.statements.actions.bgp-actions.set-community.set-community-method]
          communities-list = ["65100:20"]
  [[policy-definitions.statements]]
    name = "statement2"
[[policy-definitions]]
  name = "tag"
  [[policy-definitions.statements]]
    [policy-definitions.statements.actions.bgp-actions.set-community]
      options = "add"
      [policy-definitions.statements.actions.bgp-actions.set-community.set-community-method]
        communities-list = ["65001:100"]

[[peers]]
address = "192.0.2.2"
asn = 65002
import-policy-list = ["example-policy"]
default-import-policy = "reject-route"
export-policy-list = ["tag"]

[[peers]]
address = "192.0.2.3"
asn = 65003
`

func TestPolicyGobgpdSchema(t *testing.T) {
	c := mustParse(t, policyDoc)
	ps := &c.Policies
	if len(ps.DefinedSets.PrefixSets) != 1 || len(ps.DefinedSets.PrefixSets[0].PrefixList) != 2 ||
		ps.DefinedSets.PrefixSets[0].PrefixList[0].MasklengthRange != "21..24" {
		t.Fatalf("prefix sets: %+v", ps.DefinedSets.PrefixSets)
	}
	b := &ps.DefinedSets.BgpDefinedSets
	if b.CommunitySets[0].CommunityList[0] != "65100:10" || b.LargeCommunitySets[0].LargeCommunitySetName != "lcommunity1" ||
		b.AsPathSets[0].AsPathList[0] != "^65100" || b.ExtCommunitySets[0].ExtCommunityList[0] != "RT:65100:100" {
		t.Fatalf("bgp defined sets: %+v", b)
	}
	st := ps.PolicyDefinitions[0].Statements[0]
	if st.Conditions.MatchNeighborSet.MatchSetOptions != oc.MATCH_SET_OPTIONS_RESTRICTED_TYPE_INVERT ||
		st.Conditions.BgpConditions.AsPathLength.Value != 2 || st.Actions.BgpActions.SetAsPathPrepend.RepeatN != 5 ||
		st.Actions.RouteDisposition != oc.ROUTE_DISPOSITION_ACCEPT_ROUTE ||
		!slices.Equal(st.Actions.BgpActions.SetCommunity.SetCommunityMethod.CommunitiesList, []string{"65100:20"}) {
		t.Fatalf("statement: %+v", st)
	}
	// gobgpd's default: no route-disposition is "none" (go on).
	if d := ps.PolicyDefinitions[0].Statements[1].Actions.RouteDisposition; d != oc.ROUTE_DISPOSITION_NONE {
		t.Fatalf("statement2 route-disposition %q, want none", d)
	}
	got := c.EffectivePolicy(&c.Peers[0])
	want := PeerPolicy{Import: []string{"example-policy"}, DefaultImport: RejectRoute, Export: []string{"tag"}, DefaultExport: AcceptRoute}
	if !got.Equal(want) {
		t.Fatalf("effective policy %+v, want %+v", got, want)
	}
	// RFC 8212: with ebgp-requires-policy, an eBGP peer without a
	// policy takes and sends nothing.
	if w := c.PolicyWarnings(); len(w) != 1 || w[0].Line != 78 || !strings.Contains(w[0].Msg, "192.0.2.3") {
		t.Fatalf("policy warnings %v, want one at line 78 for 192.0.2.3", w)
	}
	c2 := mustParse(t, strings.Replace(policyDoc, `router-id = "192.0.2.1"`, "router-id = \"192.0.2.1\"\nebgp-requires-policy = true", 1))
	if e := c2.EffectivePolicy(&c2.Peers[1]); e.DefaultImport != RejectRoute || e.DefaultExport != RejectRoute {
		t.Fatalf("ebgp-requires-policy: %+v, want reject-route both ways", e)
	}
	if e := c2.EffectivePolicy(&c2.Peers[0]); e.DefaultExport != AcceptRoute {
		t.Fatalf("ebgp-requires-policy with an export policy: %+v, want its default accept-route", e)
	}
	if w := c2.PolicyWarnings(); len(w) != 0 {
		t.Fatalf("warnings with ebgp-requires-policy: %v", w)
	}
}

// TestPolicyErrors: each bad policy input is an error at its line,
// naming the key (GoBGP's own build of the policy finds the bad values).
func TestPolicyErrors(t *testing.T) {
	for _, tc := range []struct {
		name, from, to string
		line           int
		want           string
	}{
		{"unknown key in a set", `prefix-set-name = "ps1"`, "prefix-set-name = \"ps1\"\n  prefix-sett = 1", 7, `unknown key "prefix-sett" in [[defined-sets.prefix-sets]]`},
		{"unknown key deep", `route-disposition = "accept-route"`, "route-disposition = \"accept-route\"\n      disposition = 1", 52, `unknown key "disposition"`},
		{"bad prefix", `ip-prefix = "10.50.0.0/16"`, `ip-prefix = "10.50.0.0/33"`, 11, "[[defined-sets.prefix-sets]] ps1:"},
		{"bad masklength-range", `masklength-range = "21..24"`, `masklength-range = "21-24"`, 9, "[[defined-sets.prefix-sets]] ps1:"},
		{"bad community", `community-list = ["65100:10"]`, "community-list = [\n  \"65100:10\",\n  \"[\"]", 19, "community1"},
		{"missing set", `prefix-set = "ps1"`, `prefix-set = "ps9"`, 33, `prefix-set: "ps9": no such set`},
		{"bad enum", `match-set-options = "invert"`, `match-set-options = "all"`, 37, "match-set-options: \"all\""},
		{"wrong type", `repeat-n = 5`, `repeat-n = "5"`, 56, "repeat-n: expected integer, got string"},
		{"missing policy", `export-policy-list = ["tag"]`, `export-policy-list = ["tag", "nope"]`, 76, `export-policy-list: "nope": no such policy`},
		{"bad default", `default-import-policy = "reject-route"`, `default-import-policy = "reject"`, 75, `default-import-policy: "reject"`},
		{"duplicate policy", `name = "tag"`, `name = "example-policy"`, 64, "the name is used twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(policyDoc, tc.from) {
				t.Fatalf("the document has no %q", tc.from)
			}
			_, err := parseTest(t, "r1.toml", strings.Replace(policyDoc, tc.from, tc.to, 1))
			if err == nil {
				t.Fatal("no error")
			}
			for _, e := range Errors(err) {
				if strings.Contains(e.Msg, tc.want) {
					if e.Line != tc.line {
						t.Errorf("%s: at line %d, want %d", e, e.Line, tc.line)
					}
					return
				}
			}
			t.Errorf("errors %v: none says %q", err, tc.want)
		})
	}
}

// TestPolicyDiff: check --diff names the peers whose policies change, and
// their change is in place (no session reset).
func TestPolicyDiff(t *testing.T) {
	old := mustParse(t, policyDoc)
	for _, tc := range []struct {
		name, from, to string
		want           map[string]string
		sections       bool
	}{
		{"assignment", `default-import-policy = "reject-route"`, `default-import-policy = "accept-route"`, map[string]string{"192.0.2.2": "import"}, false},
		{"a set an import policy uses", `ip-prefix = "10.50.0.0/16"`, `ip-prefix = "10.51.0.0/16"`, map[string]string{"192.0.2.2": "import"}, true},
		{"an export policy", `communities-list = ["65001:100"]`, `communities-list = ["65001:200"]`, map[string]string{"192.0.2.2": "export"}, true},
		{"a peer gets one", "address = \"192.0.2.3\"\nasn = 65003", "address = \"192.0.2.3\"\nasn = 65003\nexport-policy-list = [\"tag\"]", map[string]string{"192.0.2.3": "export"}, false},
		{"nothing", `asn = 65003`, `asn = 65003`, map[string]string{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			next := mustParse(t, strings.Replace(policyDoc, tc.from, tc.to, 1))
			ch := Diff(old, next)
			if len(ch.PolicyPeers) != len(tc.want) || ch.RoutingPolicy != tc.sections {
				t.Fatalf("policy peers %v (sections %v), want %v (%v)", ch.PolicyPeers, ch.RoutingPolicy, tc.want, tc.sections)
			}
			for id, d := range tc.want {
				if ch.PolicyPeers[id] != d {
					t.Fatalf("policy peers %v, want %v", ch.PolicyPeers, tc.want)
				}
			}
			p := NewPreview(old, next)
			for _, c := range p.Changed {
				if c.Reset {
					t.Errorf("preview: %+v resets the session", c)
				}
			}
			if len(tc.want) > 0 && !slices.ContainsFunc(p.Other, func(s string) bool { return strings.Contains(s, "soft reset, no session reset") }) {
				t.Errorf("preview's other lines %q do not say the soft reset", p.Other)
			}
			if ch.Empty() != (len(tc.want) == 0 && !tc.sections) {
				t.Errorf("Empty() = %v", ch.Empty())
			}
		})
	}
}
