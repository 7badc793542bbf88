package plugin

import (
	"net/netip"
	"testing"
	"time"

	"github.com/osrg/gobgp/v3/pkg/packet/bgp"
	"github.com/osrg/gobgp/v3/pkg/server"
)

// The Host counts every malformed message GoBGP reports per neighbor (IPv4
// neighbors also by their v4-mapped address), keeps the last, and gives the
// one that reset a session to that session's end, within resetWindow only.
func TestMalformedNotes(t *testing.T) {
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	defer func(f func() time.Time) { timeNow = f }(timeNow)
	timeNow = func() time.Time { return now }

	var h Host
	h.notes.malformed = &h.malformed
	h.malformed.recordIn("")(server.ReceiveError{Neighbor: "::ffff:192.0.2.2", MessageType: bgp.BGP_MSG_UPDATE, Code: 3, Subcode: 5,
		Handling: bgp.ERROR_HANDLING_TREAT_AS_WITHDRAW, Reason: "nexthop length isn't correct"})
	h.malformed.recordIn("")(server.ReceiveError{Neighbor: "192.0.2.2", MessageType: 255, Code: 1, Subcode: 3,
		Handling: bgp.ERROR_HANDLING_SESSION_RESET, Reason: "unknown message type"})
	h.malformed.recordIn("")(server.ReceiveError{Neighbor: "192.0.2.2", MessageType: bgp.BGP_MSG_UPDATE, Code: 3,
		Handling: bgp.ERROR_HANDLING_SESSION_RESET, Reason: "panic: runtime error: index out of range [3] with length 3",
		Panic: "github.com/osrg/gobgp/v3/internal/pkg/table.UpdatePathAttrs4ByteAs (message.go:208)"})
	h.malformed.recordIn("")(server.ReceiveError{Neighbor: "not an address"})

	a := netip.MustParseAddr("192.0.2.2")
	m, ok := h.Malformed("", a)
	if !ok || m.Updates != 2 || m.Other != 1 || m.Panics != 1 ||
		m.ByHandling[HandlingSessionReset] != 2 || m.ByHandling[HandlingTreatAsWithdraw] != 1 {
		t.Fatalf("Malformed = %+v, %v", m, ok)
	}
	if l := m.Last; l.Message != "update" || l.Handling != HandlingSessionReset || l.Text != "code 3(update) subcode 0(undefined)" || l.At != now {
		t.Errorf("last %+v", l)
	}
	m.ByHandling[HandlingSessionReset] = 99 // a copy
	if m, _ := h.Malformed("", a); m.ByHandling[HandlingSessionReset] != 2 {
		t.Error("Malformed returned the Host's own map")
	}
	if _, ok := h.Malformed("", netip.MustParseAddr("192.0.2.3")); ok {
		t.Error("a neighbor that sent nothing malformed has Malformed")
	}
	if _, ok := h.Malformed("blue", a); ok {
		t.Error("the same address in VRF blue (another instance's neighbor) has the default VRF's Malformed")
	}

	// The session's end, 10 ms later, was that reset.
	now = now.Add(10 * time.Millisecond)
	h.notes.peerDown(neighbor{"", a}, "notification-sent code 3(update) subcode 0(undefined)")
	d, _ := h.LastDown("", a)
	want := "update whose processing panicked in github.com/osrg/gobgp/v3/internal/pkg/table.UpdatePathAttrs4ByteAs (message.go:208) " +
		"(panic: runtime error: index out of range [3] with length 3): session-reset; the session was reset with code 3(update) subcode 0(undefined)"
	if d.Malformed == nil || d.Malformed.String() != want {
		t.Errorf("down %+v, want malformed %q", d, want)
	}
	// The next end is not: the reset was taken.
	h.notes.peerDown(neighbor{"", a}, "hold-timer-expired")
	if d, _ := h.LastDown("", a); d.Malformed != nil {
		t.Errorf("a later end took the reset again: %+v", d.Malformed)
	}
	// A reset longer than resetWindow before the end is not its cause.
	h.malformed.recordIn("")(server.ReceiveError{Neighbor: "192.0.2.2", MessageType: bgp.BGP_MSG_UPDATE, Code: 3, Subcode: 1,
		Handling: bgp.ERROR_HANDLING_SESSION_RESET, Reason: "withdrawn route length exceeds message length"})
	now = now.Add(resetWindow + time.Second)
	h.notes.peerDown(neighbor{"", a}, "hold-timer-expired")
	if d, _ := h.LastDown("", a); d.Malformed != nil {
		t.Errorf("a reset %v before the end was taken as its cause: %+v", resetWindow+time.Second, d.Malformed)
	}
}
