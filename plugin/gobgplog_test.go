package plugin

import (
	"errors"
	"strings"
	"testing"

	gobgplog "github.com/osrg/gobgp/v3/pkg/log"
	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/redact"
)

// TestGRPCListenFailed: GoBGP's Fatal "failed to listen grpc port" reaches
// waitGRPC with GoBGP's error (logged as Err, ours "error"), scrubbed of
// known secrets; other fatal lines do not.
func TestGRPCListenFailed(t *testing.T) {
	const pw = "grpc-f4tal-secret"
	var buf syncBuffer
	h := &Host{secrets: &redact.Set{}, grpcFatal: make(chan string, 1)}
	h.secrets.Add(pw)
	a := newLogAdapter(newTestLogger(&buf, logrus.InfoLevel, false), h.secrets)
	a.onFatal = h.grpcListenFailed
	a.Fatal("code logic bug", gobgplog.Fields{"Topic": "Peer"})
	select {
	case s := <-h.grpcFatal:
		t.Fatalf("a fatal line about something else reached waitGRPC: %q", s)
	default:
	}
	a.Fatal("failed to listen grpc port", gobgplog.Fields{"Err": errors.New("listen unix /run/" + pw + ".sock: bind: permission denied")})
	select {
	case s := <-h.grpcFatal:
		if !strings.Contains(s, "failed to listen grpc port: listen unix /run/") || !strings.Contains(s, "bind: permission denied") {
			t.Errorf("waitGRPC told %q: GoBGP's error is missing", s)
		}
		if strings.Contains(s, pw) {
			t.Error("waitGRPC was told a known secret")
		}
	default:
		t.Fatal("the gRPC listen failure did not reach waitGRPC")
	}
}
