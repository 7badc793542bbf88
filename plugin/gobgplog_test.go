package plugin

import (
	"errors"
	"net/netip"
	"slices"
	"strings"
	"testing"

	gobgplog "github.com/osrg/gobgp/v3/pkg/log"
	"github.com/osrg/gobgp/v3/pkg/packet/bgp"
	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/redact"
)

// TestNotesFromGoBGPLogs: the last NOTIFICATION (both ways, both shapes
// GoBGP logs) and the last down reason are kept per neighbor, whatever
// the log level.
func TestNotesFromGoBGPLogs(t *testing.T) {
	l := logrus.New()
	l.SetLevel(logrus.ErrorLevel) // Warn and Info lines are not printed, but seen
	h := &Host{log: l}
	a := newLogAdapter(l, nil)
	a.observe = h.notes.observe
	a.Warn("received notification", gobgplog.Fields{"Topic": "Peer", "Key": "192.0.2.2", "Code": uint8(6), "Subcode": uint8(3), "Data": []byte{}})
	a.Info("Peer Down", gobgplog.Fields{"Topic": "Peer", "Key": "192.0.2.2", "State": "BGP_FSM_ESTABLISHED", "Reason": "notification-received code 6(cease) subcode 3(peer deconfigured)"})
	a.Warn("sent notification", gobgplog.Fields{"Topic": "Peer", "Key": "2001:db8::2", "Data": &bgp.MessageError{TypeCode: 4, SubTypeCode: 0}})
	a.Warn("sent notification", gobgplog.Fields{"Topic": "Peer", "Key": "not-an-address", "Code": uint8(6), "Subcode": uint8(2)})
	a.Info("Add a peer configuration", gobgplog.Fields{"Key": "192.0.2.9"})

	n, ok := h.LastNotification(netip.MustParseAddr("192.0.2.2"))
	if !ok || n.Code != 6 || n.Subcode != 3 || n.Direction != "received" || n.Text != "code 6(cease) subcode 3(peer deconfigured)" || n.At.IsZero() {
		t.Errorf("192.0.2.2 notification %+v %v", n, ok)
	}
	d, ok := h.LastDown(netip.MustParseAddr("::ffff:192.0.2.2"))
	if !ok || d.Reason != "notification-received code 6(cease) subcode 3(peer deconfigured)" {
		t.Errorf("192.0.2.2 down %+v %v", d, ok)
	}
	if n, ok := h.LastNotification(netip.MustParseAddr("2001:db8::2")); !ok || n.Code != 4 || n.Direction != "sent" {
		t.Errorf("2001:db8::2 notification %+v %v", n, ok)
	}
	if _, ok := h.LastNotification(netip.MustParseAddr("192.0.2.9")); ok {
		t.Error("a line that is no NOTIFICATION was recorded")
	}
	if _, ok := h.LastDown(netip.MustParseAddr("2001:db8::2")); ok {
		t.Error("a NOTIFICATION was recorded as a down reason")
	}
}

// TestConnectionRefusedHook: GoBGP's "Closed an accepted connection" line
// reaches OnConnectionRefused's function only for an Established session
// (GoBGP logs the same line in OpenSent and OpenConfirm, where the new
// connection is a collision, not a sign of a dead session), and the Idle
// and OpenSent refusal hooks for those states alone.
func TestConnectionRefusedHook(t *testing.T) {
	h := &Host{}
	h.observe("Closed an accepted connection", gobgplog.Fields{"Topic": "Peer", "Key": "192.0.2.2", "State": "BGP_FSM_ESTABLISHED"}) // no hook yet: nothing
	var got, idle, openSent []netip.Addr
	h.OnConnectionRefused(func(a netip.Addr) { got = append(got, a) })
	h.OnIdleRefusal(func(a netip.Addr) { idle = append(idle, a) })
	h.OnOpenSentRefusal(func(a netip.Addr) { openSent = append(openSent, a) })
	for _, l := range []struct {
		msg   string
		key   string
		state string
	}{
		{"Closed an accepted connection", "192.0.2.2", "BGP_FSM_ESTABLISHED"},
		{"Closed an accepted connection", "::ffff:192.0.2.3", "BGP_FSM_ESTABLISHED"},
		{"Closed an accepted connection", "192.0.2.4", "BGP_FSM_OPENCONFIRM"},
		{"Closed an accepted connection", "192.0.2.5", "BGP_FSM_OPENSENT"},
		{"Closed an accepted connection", "not-an-address", "BGP_FSM_ESTABLISHED"},
		{"accepted conn is closed to avoid be blocked", "192.0.2.6", ""},
		{"Closed an accepted connection", "192.0.2.7", "BGP_FSM_IDLE"},
	} {
		h.observe(l.msg, gobgplog.Fields{"Topic": "Peer", "Key": l.key, "State": l.state})
	}
	want := []netip.Addr{netip.MustParseAddr("192.0.2.2"), netip.MustParseAddr("192.0.2.3")}
	if !slices.Equal(got, want) {
		t.Fatalf("hook saw %v, want %v", got, want)
	}
	if want := []netip.Addr{netip.MustParseAddr("192.0.2.7")}; !slices.Equal(idle, want) {
		t.Fatalf("the Idle refusal hook saw %v, want %v", idle, want)
	}
	if want := []netip.Addr{netip.MustParseAddr("192.0.2.5")}; !slices.Equal(openSent, want) {
		t.Fatalf("the OpenSent refusal hook saw %v, want %v", openSent, want)
	}
}

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
