package plugin

import (
	"context"
	"errors"
	"fmt"

	api "github.com/osrg/gobgp/v3/api"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/authbgp/authbgpd/redact"
)

// unaryInterceptor guards GoBGP's gRPC API:
//   - requests carrying the redaction placeholder as a password are refused,
//     and their real passwords are registered with the log scrubber;
//   - AddDynamicNeighbor / DeleteDynamicNeighbor for an unknown peer group
//     are refused with ErrNoPeerGroup (GoBGP refuses them too, since 0026);
//   - every answer has its secrets redacted (redact.Proto);
//   - a panic in the handler (GoBGP converting a path it cannot represent,
//     for instance) becomes an Internal error instead of killing the
//     process (panics on GoBGP's own goroutines cannot be caught).
func (h *Host) unaryInterceptor(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
	defer h.recoverGRPC(info.FullMethod, &err)
	if m, ok := req.(proto.Message); ok {
		if err := h.acceptSecrets(m); err != nil {
			return nil, status.Error(codes.InvalidArgument, err.Error())
		}
	}
	if err := h.guardAPI(ctx, req); err != nil {
		return nil, err
	}
	switch r := req.(type) {
	case *api.AddDynamicNeighborRequest:
		if r.GetDynamicNeighbor() == nil {
			return nil, status.Error(codes.InvalidArgument, "nil dynamic neighbor")
		}
		if err := h.checkDynamic(ctx, r.DynamicNeighbor.Prefix, r.DynamicNeighbor.PeerGroup); err != nil {
			return nil, grpcError(err)
		}
	case *api.DeleteDynamicNeighborRequest:
		if err := h.checkDynamic(ctx, r.Prefix, r.PeerGroup); err != nil {
			return nil, grpcError(err)
		}
	}
	resp, err = handler(ctx, req)
	if m, ok := resp.(proto.Message); ok && m != nil {
		resp = redact.Proto(m)
	}
	return resp, err
}

// APIGuard decides whether a request on GoBGP's gRPC API may run. It is
// asked about every request (unary and streamed) before GoBGP sees it; a
// non-nil error refuses the request with codes.FailedPrecondition and the
// error's text. It must be safe for concurrent use.
type APIGuard func(ctx context.Context, req any) error

// SetAPIGuard installs g (the peers manager, which owns every peer the
// config names). Until a guard is set, requests that change peers, peer
// groups, dynamic neighbors or the global configuration are refused with
// codes.Unavailable.
func (h *Host) SetAPIGuard(g APIGuard) { h.guard.Store(&g) }

// ChangesPeers reports whether req, a GoBGP API request, creates, changes,
// enables, disables, resets or deletes a peer, peer group or dynamic
// neighbor, or starts or stops BGP.
func ChangesPeers(req any) bool {
	switch req.(type) {
	case *api.AddPeerRequest, *api.UpdatePeerRequest, *api.DeletePeerRequest,
		*api.EnablePeerRequest, *api.DisablePeerRequest, *api.ResetPeerRequest, *api.ShutdownPeerRequest,
		*api.AddPeerGroupRequest, *api.UpdatePeerGroupRequest, *api.DeletePeerGroupRequest,
		*api.AddDynamicNeighborRequest, *api.DeleteDynamicNeighborRequest,
		*api.StartBgpRequest, *api.StopBgpRequest:
		return true
	}
	return false
}

func (h *Host) guardAPI(ctx context.Context, req any) error {
	if err := refusePolicyChange(req); err != nil { // policies.go
		return err
	}
	g := h.guard.Load()
	if g == nil {
		if ChangesPeers(req) {
			return status.Error(codes.Unavailable, "authbgpd is starting: peers cannot be changed yet")
		}
		return nil
	}
	if err := (*g)(ctx, req); err != nil {
		msg, _ := h.secrets.Scrub(err.Error())
		h.log.WithField("component", "grpc").Warn("gRPC request refused: " + msg)
		return status.Error(codes.FailedPrecondition, msg)
	}
	return nil
}

func grpcError(err error) error {
	switch {
	case errors.Is(err, ErrNoPeerGroup):
		return status.Error(codes.NotFound, err.Error())
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return status.FromContextError(err).Err()
	}
	return status.Error(codes.InvalidArgument, err.Error())
}

// streamInterceptor redacts every message GoBGP streams out (ListPeer,
// ListPeerGroup, ListDynamicNeighbor, WatchEvent, ...) and checks streamed
// requests like unary ones.
func (h *Host) streamInterceptor(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) (err error) {
	defer h.recoverGRPC(info.FullMethod, &err)
	return handler(srv, &redactingStream{ServerStream: ss, h: h})
}

func (h *Host) recoverGRPC(method string, err *error) {
	if r := recover(); r != nil {
		msg, _ := h.secrets.Scrub(fmt.Sprint(r))
		h.log.WithField("method", method).Errorf("plugin: gRPC handler panicked: %s", msg)
		*err = status.Errorf(codes.Internal, "%s: internal error (panic in GoBGP)", method)
	}
}

type redactingStream struct {
	grpc.ServerStream
	h *Host
}

func (s *redactingStream) SendMsg(m any) error {
	if pm, ok := m.(proto.Message); ok && pm != nil {
		m = redact.Proto(pm)
	}
	return s.ServerStream.SendMsg(m)
}

func (s *redactingStream) RecvMsg(m any) error {
	if err := s.ServerStream.RecvMsg(m); err != nil {
		return err
	}
	if pm, ok := m.(proto.Message); ok && pm != nil {
		if err := s.h.acceptSecrets(pm); err != nil {
			return status.Error(codes.InvalidArgument, err.Error())
		}
		if err := s.h.guardAPI(s.Context(), pm); err != nil {
			return err
		}
	}
	return nil
}
