package plugin

import (
	"fmt"
	"strings"

	"github.com/sirupsen/logrus"
)

// The one GoBGP log line the Host looks at: GoBGP's Fatal "failed to
// listen grpc port". GoBGP's gRPC server listens on a goroutine of its own
// that New cannot wait for, and neither v3 nor v4 tells of the failure
// other than by that log line (v4 logs it at Error). No decision depends
// on its text: New probes the address first (probeGRPCAddr), and
// waitGRPC, which dials the API until it answers, fails New with or
// without the line (after its 5 s) when nothing listens; the line only
// makes that failure immediate and gives it GoBGP's reason. What the Host
// learns of peers (NOTIFICATIONs, downs, refused connections) comes from
// GoBGP's FSM events (fsmevents.go), not from its log.

// grpcListenFailed passes GoBGP's Fatal "failed to listen grpc port" (its
// gRPC server could not listen, logged from a goroutine of its own) to
// waitGRPC, with GoBGP's error. f are the fields as logged: our names,
// redacted.
func (h *Host) grpcListenFailed(msg string, f logrus.Fields) {
	if !strings.Contains(msg, "grpc") {
		return
	}
	s := msg
	if e, ok := f[fieldName("Err")]; ok {
		s = fmt.Sprintf("%s: %v", msg, e)
	}
	select {
	case h.grpcFatal <- s:
	default:
	}
}
