package plugin

import (
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"time"

	gobgplog "github.com/osrg/gobgp/v3/pkg/log"
	"github.com/osrg/gobgp/v3/pkg/packet/bgp"
	"github.com/sirupsen/logrus"
)

// What the Host learns from GoBGP's log lines, which say things its API
// does not: the last NOTIFICATION and down reason per neighbor, a
// connection GoBGP closed behind an Established session, and a gRPC
// listener that failed. Every line is seen here before the level filter
// (logAdapter.observe) and before redaction, so nothing parsed here may be
// logged or returned as it is: only addresses, codes, GoBGP's reason
// strings and GoBGP's gRPC error (already scrubbed) leave this file.
//
// The messages matched are GoBGP v3.37.0's; TestNotesFromGoBGPLogs,
// TestConnectionRefusedHook and TestGRPCAddressInUse drive them.
const (
	logSentNotification     = "sent notification"
	logReceivedNotification = "received notification"
	logPeerDown             = "Peer Down"
	logClosedAccepted       = "Closed an accepted connection"
)

// Notification is the last BGP NOTIFICATION exchanged with a neighbor, as
// GoBGP logged it (its API keeps none).
type Notification struct {
	Code, Subcode uint8
	// Direction is "sent" or "received".
	Direction string
	// Text names the code and subcode ("code 6(cease) subcode
	// 2(administrative shutdown)").
	Text string
	At   time.Time
}

// Down is why a neighbor's session last left Established, as GoBGP logged
// it ("hold-timer-expired", "notification-received code 6(cease) ...").
type Down struct {
	Reason string
	At     time.Time
	// Malformed is the message the neighbor sent that ended the session
	// (GoBGP reset it with a NOTIFICATION), when one did.
	Malformed *MalformedMessage
}

// peerNotes remembers, per neighbor, the last NOTIFICATION and the last
// reason its session went down. It is fed every GoBGP log line before the
// level filter, so it works whatever the log level.
type peerNotes struct {
	mu    sync.Mutex
	notif map[netip.Addr]Notification
	down  map[netip.Addr]Down
	// malformed, when set, tells the malformed message a down was for.
	malformed *malformedNotes
}

// observe looks at one GoBGP log line. GoBGP logs "sent notification" and
// "received notification" with Code and Subcode (or, for one path, a
// *bgp.MessageError as Data) and "Peer Down" with the Reason, each with
// the neighbor's address as Key.
func (n *peerNotes) observe(msg string, f gobgplog.Fields) {
	var dir string
	switch msg {
	case logSentNotification:
		dir = "sent"
	case logReceivedNotification:
		dir = "received"
	case logPeerDown:
	default:
		return
	}
	key, _ := f["Key"].(string)
	addr, err := netip.ParseAddr(key)
	if err != nil {
		return
	}
	addr = addr.Unmap()
	now := timeNow()
	n.mu.Lock()
	defer n.mu.Unlock()
	if dir == "" {
		if n.down == nil {
			n.down = map[netip.Addr]Down{}
		}
		r, _ := f["Reason"].(string)
		d := Down{Reason: r, At: now}
		if n.malformed != nil {
			if m, ok := n.malformed.takeReset(addr, now); ok {
				d.Malformed = &m
			}
		}
		n.down[addr] = d
		return
	}
	code, ok1 := f["Code"].(uint8)
	sub, ok2 := f["Subcode"].(uint8)
	if e, ok := f["Data"].(*bgp.MessageError); !(ok1 && ok2) && ok {
		code, sub, ok1, ok2 = e.TypeCode, e.SubTypeCode, true, true
	}
	if !ok1 || !ok2 {
		return
	}
	if n.notif == nil {
		n.notif = map[netip.Addr]Notification{}
	}
	n.notif[addr] = Notification{Code: code, Subcode: sub, Direction: dir,
		Text: bgp.NewNotificationErrorCode(code, sub).String(), At: now}
}

// observe sees every GoBGP log line (before the level filter).
func (h *Host) observe(msg string, f gobgplog.Fields) {
	if msg == logClosedAccepted {
		h.connectionRefused(f)
		return
	}
	h.notes.observe(msg, f)
}

// OnConnectionRefused sets fn to be told the neighbor address whenever
// GoBGP closes a connection that the kernel accepted from a neighbor whose
// session is Established (GoBGP keeps the old session; RFC 4271 collision
// handling). fn is called on GoBGP's FSM goroutine with its lock held: it
// must not block or call GoBGP.
func (h *Host) OnConnectionRefused(fn func(netip.Addr)) { h.refused.Store(&fn) }

// OnIdleRefusal sets fn to be told the neighbor address whenever GoBGP
// closes a connection the neighbor dialed because its own FSM for the
// neighbor is Idle (its idle hold after a session ended): the neighbor,
// refused, now sits in an idle hold of its own. Called like
// OnConnectionRefused's fn: on GoBGP's goroutine, it must not block.
func (h *Host) OnIdleRefusal(fn func(netip.Addr)) { h.idleRefused.Store(&fn) }

// OnOpenSentRefusal sets fn to be told the neighbor address whenever GoBGP
// closes a connection the neighbor dialed because its own FSM for the
// neighbor is in OpenSent: it sent its OPEN on another connection and waits
// for the answer (GoBGP does no collision detection there). Once, that is
// a collision; a peer that keeps dialing does not hold that other
// connection. Called like OnConnectionRefused's fn: it must not block.
func (h *Host) OnOpenSentRefusal(fn func(netip.Addr)) { h.openSentRefused.Store(&fn) }

func (h *Host) connectionRefused(f gobgplog.Fields) {
	var fn *func(netip.Addr)
	switch st, _ := f["State"].(string); st {
	case bgp.BGP_FSM_ESTABLISHED.String():
		fn = h.refused.Load()
	case bgp.BGP_FSM_IDLE.String():
		fn = h.idleRefused.Load()
	case bgp.BGP_FSM_OPENSENT.String():
		fn = h.openSentRefused.Load()
	}
	if fn == nil {
		return
	}
	key, _ := f["Key"].(string)
	addr, err := netip.ParseAddr(key)
	if err != nil {
		return
	}
	(*fn)(addr.Unmap())
}

// LastNotification returns the last NOTIFICATION sent to or received from
// addr since the daemon started.
func (h *Host) LastNotification(addr netip.Addr) (Notification, bool) {
	h.notes.mu.Lock()
	defer h.notes.mu.Unlock()
	n, ok := h.notes.notif[addr.Unmap()]
	return n, ok
}

// LastDown returns why addr's session last left Established since the
// daemon started.
func (h *Host) LastDown(addr netip.Addr) (Down, bool) {
	h.notes.mu.Lock()
	defer h.notes.mu.Unlock()
	d, ok := h.notes.down[addr.Unmap()]
	return d, ok
}

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
