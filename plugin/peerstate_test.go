package plugin

import (
	"net/netip"
	"slices"
	"testing"
	"time"

	gobgplog "github.com/osrg/gobgp/v3/pkg/log"
	"github.com/osrg/gobgp/v3/pkg/packet/bgp"
	"github.com/sirupsen/logrus"
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

func TestNegotiatedFamilies(t *testing.T) {
	if f := NegotiatedFamilies(nil); f != nil {
		t.Errorf("nil state: %v", f)
	}
}

// TestAdvertisedDue: the advertised counts are taken again after 50 times
// their cost, at least every second and at most every 5 minutes.
func TestAdvertisedDue(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		cost, age time.Duration
		due       bool
	}{
		{time.Millisecond, 900 * time.Millisecond, false},
		{time.Millisecond, time.Second, true},
		{2 * time.Second, 99 * time.Second, false},
		{2 * time.Second, 100 * time.Second, true},
		{time.Minute, 4 * time.Minute, false},
		{time.Minute, 5 * time.Minute, true},
	} {
		s := &peerSnapshot{adv: map[advKey]uint64{}, advAt: t0, advCost: c.cost}
		if got := s.advertisedDue(t0.Add(c.age)); got != c.due {
			t.Errorf("cost %v, age %v: due %v, want %v", c.cost, c.age, got, c.due)
		}
	}
	if !(&peerSnapshot{}).advertisedDue(t0) {
		t.Error("no counts yet: not due")
	}
}

// TestConnectionRefusedHook: GoBGP's "Closed an accepted connection" line
// reaches OnConnectionRefused's function only for an Established session
// (GoBGP logs the same line in OpenSent and OpenConfirm, where the new
// connection is a collision, not a sign of a dead session).
func TestConnectionRefusedHook(t *testing.T) {
	h := &Host{}
	h.observe("Closed an accepted connection", gobgplog.Fields{"Topic": "Peer", "Key": "192.0.2.2", "State": "BGP_FSM_ESTABLISHED"}) // no hook yet: nothing
	var got []netip.Addr
	h.OnConnectionRefused(func(a netip.Addr) { got = append(got, a) })
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
	} {
		h.observe(l.msg, gobgplog.Fields{"Topic": "Peer", "Key": l.key, "State": l.state})
	}
	want := []netip.Addr{netip.MustParseAddr("192.0.2.2"), netip.MustParseAddr("192.0.2.3")}
	if !slices.Equal(got, want) {
		t.Fatalf("hook saw %v, want %v", got, want)
	}
}
