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
)

// unaryInterceptor guards GoBGP's gRPC API:
//   - requests carrying the Redacted placeholder as a password are refused,
//     and their real passwords are registered with the log scrubber;
//   - AddDynamicNeighbor / DeleteDynamicNeighbor for an unknown peer group
//     (which crash GoBGP) are refused;
//   - every answer has its secrets redacted (RedactProto);
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
	switch r := req.(type) {
	case *api.AddDynamicNeighborRequest:
		if r.GetDynamicNeighbor() == nil {
			return nil, status.Error(codes.InvalidArgument, "nil dynamic neighbor")
		}
		h.pgMu.Lock()
		defer h.pgMu.Unlock()
		if err := h.checkDynamic(ctx, r.DynamicNeighbor.Prefix, r.DynamicNeighbor.PeerGroup); err != nil {
			return nil, grpcError(err)
		}
	case *api.DeleteDynamicNeighborRequest:
		h.pgMu.Lock()
		defer h.pgMu.Unlock()
		if err := h.checkDynamic(ctx, r.Prefix, r.PeerGroup); err != nil {
			return nil, grpcError(err)
		}
	case *api.DeletePeerGroupRequest:
		h.pgMu.Lock()
		defer h.pgMu.Unlock()
	}
	resp, err = handler(ctx, req)
	if m, ok := resp.(proto.Message); ok && m != nil {
		resp = RedactProto(m)
	}
	return resp, err
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
		msg, _ := h.secrets.scrub(fmt.Sprint(r))
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
		m = RedactProto(pm)
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
	}
	return nil
}
