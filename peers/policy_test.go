package peers

import (
	"context"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	api "github.com/osrg/gobgp/v3/api"
)

// policyFake is fakeBGP with GoBGP's policy calls, recorded.
type policyFake struct {
	*fakeBGP
	mu      sync.Mutex
	sets    []*api.RoutingPolicy
	assigns []string // "NAME DIRECTION POLICY,... DEFAULT"
}

func (f *policyFake) SetPolicies(_ context.Context, rp *api.RoutingPolicy) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sets = append(f.sets, rp)
	return nil
}

func (f *policyFake) SetPolicyAssignmentIn(_ context.Context, _ string, a *api.PolicyAssignment) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	var names []string
	for _, p := range a.Policies {
		names = append(names, p.Name)
	}
	f.assigns = append(f.assigns, a.Name+" "+a.Direction.String()+" "+strings.Join(names, ",")+" "+a.DefaultAction.String())
	return nil
}

func (f *policyFake) UpdatePeerGroup(context.Context, *api.PeerGroup) (bool, error) {
	return false, nil
}

const policyPeers = `
[[defined-sets.prefix-sets]]
  prefix-set-name = "blocked"
  [[defined-sets.prefix-sets.prefix-list]]
    ip-prefix = "203.0.113.0/24"
[[policy-definitions]]
  name = "drop"
  [[policy-definitions.statements]]
    [policy-definitions.statements.conditions.match-prefix-set]
      prefix-set = "blocked"
    [policy-definitions.statements.actions]
      route-disposition = "reject-route"
[[peers]]
address = "192.0.2.2"
asn = 65002
import-policy-list = ["drop"]
[[peers]]
address = "192.0.2.3"
asn = 65003
`

// TestPoliciesInPlace: the policies go into GoBGP before the neighbors,
// each neighbor is added with its assignment, and a reload that changes a
// set or an assignment changes them in place (SetPolicies,
// SetPolicyAssignment), never by re-adding a neighbor.
func TestPoliciesInPlace(t *testing.T) {
	c := cfg(t, policyPeers)
	m := New(Options{Config: c, Logger: quietLogger(io.Discard), Sockets: newFakeSockets()})
	b := &policyFake{fakeBGP: newFakeBGP()}
	if err := m.start(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Stop(context.Background()) })
	if len(b.sets) != 1 || len(b.sets[0].Policies) != 1 || b.sets[0].Policies[0].Name != "drop" {
		t.Fatalf("SetPolicies calls %v, want the config's one policy", b.sets)
	}
	ap := b.peer("192.0.2.2").GetApplyPolicy()
	if ap.GetImportPolicy().GetPolicies()[0].GetName() != "drop" || ap.GetExportPolicy().GetDefaultAction() != api.RouteAction_ACCEPT {
		t.Fatalf("192.0.2.2 was added with %v, want import drop", ap)
	}
	calls := len(b.calls)

	// A set changes: the policies again, and the peer using them is
	// re-assigned; the other is left alone.
	next := cfg(t, strings.Replace(policyPeers, "203.0.113.0/24", "203.0.113.0/25", 1))
	if _, err := m.Reload(context.Background(), next); err != nil {
		t.Fatal(err)
	}
	if len(b.sets) != 2 {
		t.Fatalf("SetPolicies calls %d after a set changed, want 2", len(b.sets))
	}
	want := []string{"192.0.2.2 IMPORT drop ACCEPT", "192.0.2.2 EXPORT  ACCEPT"}
	if !slices.Equal(b.assigns, want) {
		t.Fatalf("assignments %q, want %q", b.assigns, want)
	}
	// An assignment changes: only it.
	b.assigns = nil
	next2 := cfg(t, strings.Replace(strings.Replace(policyPeers, "203.0.113.0/24", "203.0.113.0/25", 1),
		"asn = 65003\n", "asn = 65003\nexport-policy-list = [\"drop\"]\ndefault-export-policy = \"reject-route\"\n", 1))
	if _, err := m.Reload(context.Background(), next2); err != nil {
		t.Fatal(err)
	}
	if want := []string{"192.0.2.3 IMPORT  ACCEPT", "192.0.2.3 EXPORT drop REJECT"}; !slices.Equal(b.assigns, want) || len(b.sets) != 2 {
		t.Fatalf("assignments %q (SetPolicies %d), want %q (2)", b.assigns, len(b.sets), want)
	}
	for _, call := range b.calls[calls:] {
		if strings.HasPrefix(call, "add ") || strings.HasPrefix(call, "delete ") {
			t.Errorf("a policy change touched the neighbor: %s", call)
		}
	}
}
