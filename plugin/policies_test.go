package plugin

import (
	"context"
	"strings"
	"testing"

	api "github.com/osrg/gobgp/v3/api"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestPolicyWritesRefused: the gRPC API reads policies, defined sets and
// assignments (gobgp policy, gobgp policy prefix, gobgp neighbor X policy)
// but every change of them is refused, naming the config file, whatever
// the guard says.
func TestPolicyWritesRefused(t *testing.T) {
	h := newTestHost(t, Options{ListenPort: -1})
	h.SetAPIGuard(func(context.Context, any) error { return nil })
	ctx := context.Background()
	info := &grpc.UnaryServerInfo{FullMethod: "/apipb.GobgpApi/X"}
	called := 0
	handler := func(context.Context, any) (any, error) { called++; return &api.GetBgpResponse{}, nil }
	for _, req := range []any{
		&api.AddPolicyRequest{}, &api.DeletePolicyRequest{}, &api.SetPoliciesRequest{},
		&api.AddStatementRequest{}, &api.DeleteStatementRequest{},
		&api.AddDefinedSetRequest{}, &api.DeleteDefinedSetRequest{},
		&api.AddPolicyAssignmentRequest{}, &api.DeletePolicyAssignmentRequest{}, &api.SetPolicyAssignmentRequest{},
	} {
		_, err := h.unaryInterceptor(ctx, req, info, handler)
		if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), "config file") {
			t.Errorf("%T: %v, want FailedPrecondition naming the config file", req, err)
		}
	}
	for _, req := range []any{&api.ListPolicyRequest{}, &api.ListDefinedSetRequest{}, &api.ListPolicyAssignmentRequest{}} {
		if _, err := h.unaryInterceptor(ctx, req, info, handler); err != nil {
			t.Errorf("%T: %v, want it read", req, err)
		}
	}
	if called != 3 {
		t.Fatalf("handler called %d times, want the 3 reads", called)
	}
}

// TestPoliciesInEveryInstance: SetPolicies reaches the default instance and
// a VRF's instance made afterwards (before its first neighbor), and a VRF
// neighbor's assignment goes to its own instance, where GoBGP evaluates it
// for an ordinary neighbor (the carried patch 0031).
func TestPoliciesInEveryInstance(t *testing.T) {
	h := newTestHost(t, Options{ListenPort: -1})
	ctx := context.Background()
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	rp := &api.RoutingPolicy{
		DefinedSets: []*api.DefinedSet{{DefinedType: api.DefinedType_PREFIX, Name: "ps", Prefixes: []*api.Prefix{{IpPrefix: "203.0.113.0/24", MaskLengthMin: 24, MaskLengthMax: 24}}}},
		Policies: []*api.Policy{{Name: "drop", Statements: []*api.Statement{{Name: "s",
			Conditions: &api.Conditions{PrefixSet: &api.MatchSet{Name: "ps"}},
			Actions:    &api.Actions{RouteAction: api.RouteAction_REJECT}}}}},
	}
	if err := h.SetPolicies(ctx, rp); err != nil {
		t.Fatal(err)
	}
	peer := &api.Peer{Conf: &api.PeerConf{NeighborAddress: "198.51.100.2", PeerAsn: 65002}, Transport: &api.Transport{PassiveMode: true},
		ApplyPolicy: &api.ApplyPolicy{ImportPolicy: &api.PolicyAssignment{Policies: []*api.Policy{{Name: "drop"}}, DefaultAction: api.RouteAction_ACCEPT}}}
	if err := h.AddPeerIn(ctx, "blue", peer); err != nil {
		t.Fatal(err)
	}
	for vrf, s := range map[string]interface {
		ListPolicy(context.Context, *api.ListPolicyRequest, func(*api.Policy)) error
	}{"default": h.bgp, "blue": h.serverOf("198.51.100.2")} {
		var names []string
		if err := s.ListPolicy(ctx, &api.ListPolicyRequest{}, func(p *api.Policy) { names = append(names, p.Name) }); err != nil || len(names) != 1 || names[0] != "drop" {
			t.Errorf("%s instance's policies: %v, %v; want [drop]", vrf, names, err)
		}
	}
	var got []*api.PolicyAssignment
	err := h.serverOf("198.51.100.2").ListPolicyAssignment(ctx, &api.ListPolicyAssignmentRequest{Name: "198.51.100.2", Direction: api.PolicyDirection_IMPORT},
		func(a *api.PolicyAssignment) { got = append(got, a) })
	if err != nil || len(got) != 1 || len(got[0].Policies) != 1 || got[0].Policies[0].Name != "drop" {
		t.Fatalf("blue's neighbor's import assignment: %v, %v; want drop", got, err)
	}
	a := &api.PolicyAssignment{Name: "198.51.100.2", Direction: api.PolicyDirection_EXPORT, Policies: []*api.Policy{{Name: "drop"}}, DefaultAction: api.RouteAction_REJECT}
	if err := h.SetPolicyAssignmentIn(ctx, "blue", a); err != nil {
		t.Fatalf("SetPolicyAssignment of an ordinary neighbor in its VRF's instance: %v", err)
	}
}
