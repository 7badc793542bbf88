package plugin

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	api "github.com/osrg/gobgp/v3/api"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// The gRPC door: peer-changing requests reach GoBGP only when the guard
// lets them; before a guard is set they are refused; a refusal is
// FailedPrecondition with the guard's (scrubbed) text, unary and streamed.
func TestAPIGuard(t *testing.T) {
	h := newTestHost(t, Options{ListenPort: -1})
	ctx := context.Background()
	info := &grpc.UnaryServerInfo{FullMethod: "/apipb.GobgpApi/AddPeer"}
	const pw = "guard-secret-pw"
	called := 0
	handler := func(ctx context.Context, req any) (any, error) { called++; return &api.GetBgpResponse{}, nil }
	add := &api.AddPeerRequest{Peer: &api.Peer{Conf: &api.PeerConf{NeighborAddress: "192.0.2.2", AuthPassword: pw}}}

	if _, err := h.unaryInterceptor(ctx, add, info, handler); status.Code(err) != codes.Unavailable || called != 0 {
		t.Fatalf("before a guard: %v (handler called %d)", err, called)
	}
	if _, err := h.unaryInterceptor(ctx, &api.GetBgpRequest{}, info, handler); err != nil || called != 1 {
		t.Fatalf("read-only request before a guard: %v", err)
	}
	var seen []any
	h.SetAPIGuard(func(_ context.Context, req any) error {
		seen = append(seen, req)
		if _, ok := req.(*api.AddPeerRequest); ok {
			return errors.New("192.0.2.2 is configured in r1.toml; password " + pw)
		}
		return nil
	})
	_, err := h.unaryInterceptor(ctx, add, info, handler)
	if status.Code(err) != codes.FailedPrecondition || called != 1 {
		t.Fatalf("refused request: %v (handler called %d)", err, called)
	}
	if !strings.Contains(err.Error(), "r1.toml") || strings.Contains(err.Error(), pw) {
		t.Fatalf("refusal must name the file and never a secret: %v", err)
	}
	if _, err := h.unaryInterceptor(ctx, &api.DisablePeerRequest{Address: "192.0.2.2"}, info, handler); err != nil || called != 2 {
		t.Fatalf("allowed request: %v", err)
	}
	if len(seen) != 2 {
		t.Fatalf("guard asked %d times, want 2", len(seen))
	}
	// Streamed requests (RecvMsg) go through the guard too.
	rs := &redactingStream{ServerStream: &recvStream{msg: add}, h: h.Host}
	if err := rs.RecvMsg(&api.AddPeerRequest{}); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("streamed request: %v", err)
	}
	if strings.Contains(h.logs.String(), pw) {
		t.Fatalf("secret in logs:\n%s", h.logs.String())
	}
	for _, r := range []any{&api.AddPeerRequest{}, &api.UpdatePeerRequest{}, &api.DeletePeerRequest{}, &api.EnablePeerRequest{},
		&api.AddPeerGroupRequest{}, &api.DeletePeerGroupRequest{}, &api.UpdatePeerGroupRequest{},
		&api.AddDynamicNeighborRequest{}, &api.DeleteDynamicNeighborRequest{}, &api.StopBgpRequest{}, &api.StartBgpRequest{}} {
		if !ChangesPeers(r) {
			t.Errorf("ChangesPeers(%T) = false", r)
		}
	}
	if ChangesPeers(&api.ListPeerRequest{}) || ChangesPeers(&api.AddPathRequest{}) {
		t.Error("read-only / path requests do not change peers")
	}
}

// recvStream delivers one message to RecvMsg.
type recvStream struct {
	grpc.ServerStream
	msg *api.AddPeerRequest
}

func (r *recvStream) RecvMsg(m any) error {
	*(m.(*api.AddPeerRequest)) = api.AddPeerRequest{Peer: r.msg.Peer}
	return nil
}
func (r *recvStream) Context() context.Context { return context.Background() }

// The gRPC API on a unix socket: only the daemon's user may connect.
func TestGRPCUnixSocket(t *testing.T) {
	path := t.TempDir() + "/gobgp.sock"
	h := newTestHost(t, Options{ListenPort: -1, GRPCAddr: "unix://" + path})
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 || st.Mode()&os.ModeSocket == 0 {
		t.Fatalf("socket mode %v, want a 0600 socket", st.Mode())
	}
	c := grpcClient(t, "unix://"+path)
	if _, err := c.GetBgp(context.Background(), &api.GetBgpRequest{}); err != nil {
		t.Fatalf("GetBgp over the unix socket: %v", err)
	}
	_ = h
}
