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
