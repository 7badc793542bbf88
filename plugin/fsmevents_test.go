package plugin

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/osrg/gobgp/v3/pkg/packet/bgp"
	"github.com/osrg/gobgp/v3/pkg/server"
)

// TestNotesFromFSMEvents: the last NOTIFICATION (both ways) and the last
// down reason are kept per neighbor (IPv4 neighbors also by their
// v4-mapped address), a neighbor being its instance's VRF and its address;
// an event for no address is dropped.
func TestNotesFromFSMEvents(t *testing.T) {
	h := &Host{}
	for _, e := range []server.FSMEvent{
		{Type: server.FSMEventNotificationReceived, Neighbor: "192.0.2.2", State: bgp.BGP_FSM_ESTABLISHED, Code: 6, Subcode: 3},
		{Type: server.FSMEventPeerDown, Neighbor: "192.0.2.2", State: bgp.BGP_FSM_ESTABLISHED, Reason: "notification-received code 6(cease) subcode 3(peer deconfigured)"},
		{Type: server.FSMEventNotificationSent, Neighbor: "2001:db8::2", State: bgp.BGP_FSM_OPENSENT, Code: 4},
		{Type: server.FSMEventNotificationSent, Neighbor: "not-an-address", Code: 6, Subcode: 2},
		{Type: server.FSMEventConnectionRefused, Neighbor: "192.0.2.9", State: bgp.BGP_FSM_ESTABLISHED},
	} {
		h.fsmEventIn("")(e)
	}
	// The same address in VRF blue's instance: a neighbor of its own.
	h.fsmEventIn("blue")(server.FSMEvent{Type: server.FSMEventNotificationSent, Neighbor: "192.0.2.2", State: bgp.BGP_FSM_OPENSENT, Code: 2, Subcode: 1})

	n, ok := h.LastNotification("", netip.MustParseAddr("192.0.2.2"))
	if !ok || n.Code != 6 || n.Subcode != 3 || n.Direction != "received" || n.Text != "code 6(cease) subcode 3(peer deconfigured)" || n.At.IsZero() {
		t.Errorf("192.0.2.2 notification %+v %v", n, ok)
	}
	d, ok := h.LastDown("", netip.MustParseAddr("::ffff:192.0.2.2"))
	if !ok || d.Reason != "notification-received code 6(cease) subcode 3(peer deconfigured)" || d.At.IsZero() {
		t.Errorf("192.0.2.2 down %+v %v", d, ok)
	}
	if n, ok := h.LastNotification("blue", netip.MustParseAddr("192.0.2.2")); !ok || n.Code != 2 || n.Direction != "sent" {
		t.Errorf("192.0.2.2 in VRF blue: notification %+v %v", n, ok)
	}
	if _, ok := h.LastDown("blue", netip.MustParseAddr("192.0.2.2")); ok {
		t.Error("the default VRF's neighbor's down reason is blue's too")
	}
	if n, ok := h.LastNotification("", netip.MustParseAddr("2001:db8::2")); !ok || n.Code != 4 || n.Direction != "sent" {
		t.Errorf("2001:db8::2 notification %+v %v", n, ok)
	}
	if _, ok := h.LastNotification("", netip.MustParseAddr("192.0.2.9")); ok {
		t.Error("an event that is no NOTIFICATION was recorded")
	}
	if _, ok := h.LastDown("", netip.MustParseAddr("2001:db8::2")); ok {
		t.Error("a NOTIFICATION was recorded as a down reason")
	}
}

// TestConnectionRefusedHook: GoBGP's refused connections reach
// OnConnectionRefused's function only for an Established session (GoBGP
// refuses them in OpenConfirm too, where the new connection is a
// collision, not a sign of a dead session), and the Idle and OpenSent
// refusal hooks for those states alone.
func TestConnectionRefusedHook(t *testing.T) {
	h := &Host{}
	refused := func(addr string, st bgp.FSMState) {
		h.fsmEventIn("")(server.FSMEvent{Type: server.FSMEventConnectionRefused, Neighbor: addr, State: st})
	}
	refused("192.0.2.2", bgp.BGP_FSM_ESTABLISHED) // no hook yet: nothing
	var got, idle, openSent []netip.Addr
	var vrfs []string
	h.OnConnectionRefused(func(v string, a netip.Addr) { got, vrfs = append(got, a), append(vrfs, v) })
	h.OnIdleRefusal(func(_ string, a netip.Addr) { idle = append(idle, a) })
	h.OnOpenSentRefusal(func(_ string, a netip.Addr) { openSent = append(openSent, a) })
	refused("192.0.2.2", bgp.BGP_FSM_ESTABLISHED)
	refused("::ffff:192.0.2.3", bgp.BGP_FSM_ESTABLISHED)
	refused("192.0.2.4", bgp.BGP_FSM_OPENCONFIRM)
	refused("192.0.2.5", bgp.BGP_FSM_OPENSENT)
	refused("not-an-address", bgp.BGP_FSM_ESTABLISHED)
	h.fsmEventIn("")(server.FSMEvent{Type: server.FSMEventNotificationSent, Neighbor: "192.0.2.6", State: bgp.BGP_FSM_ESTABLISHED, Code: 6})
	refused("192.0.2.7", bgp.BGP_FSM_IDLE)
	h.fsmEventIn("red")(server.FSMEvent{Type: server.FSMEventConnectionRefused, Neighbor: "192.0.2.2", State: bgp.BGP_FSM_ESTABLISHED})
	want := []netip.Addr{netip.MustParseAddr("192.0.2.2"), netip.MustParseAddr("192.0.2.3"), netip.MustParseAddr("192.0.2.2")}
	if !slices.Equal(got, want) || !slices.Equal(vrfs, []string{"", "", "red"}) {
		t.Fatalf("hook saw %v in %q, want %v in \"\", \"\", red", got, vrfs, want)
	}
	if want := []netip.Addr{netip.MustParseAddr("192.0.2.7")}; !slices.Equal(idle, want) {
		t.Fatalf("the Idle refusal hook saw %v, want %v", idle, want)
	}
	if want := []netip.Addr{netip.MustParseAddr("192.0.2.5")}; !slices.Equal(openSent, want) {
		t.Fatalf("the OpenSent refusal hook saw %v, want %v", openSent, want)
	}
}
