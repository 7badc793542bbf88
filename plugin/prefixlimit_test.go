package plugin

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/osrg/gobgp/v3/pkg/packet/bgp"
	"github.com/osrg/gobgp/v3/pkg/server"
)

// TestPrefixLimitNotes: the Cease, subcode 1, GoBGP sends tells
// OnPrefixLimit's fn and marks the session's next end as the prefix
// limit's; another Cease sent, or one received, does neither.
func TestPrefixLimitNotes(t *testing.T) {
	h := &Host{}
	var told []netip.Addr
	h.OnPrefixLimit(func(_ string, a netip.Addr) { told = append(told, a) })
	ev := func(typ server.FSMEventType, addr string, code, sub uint8) {
		h.fsmEvent("", server.FSMEvent{Type: typ, Neighbor: addr, State: bgp.BGP_FSM_ESTABLISHED, Code: code, Subcode: sub, Reason: "r"})
	}
	down := func(addr string) Down {
		ev(server.FSMEventPeerDown, addr, 0, 0)
		d, _ := h.LastDown("", netip.MustParseAddr(addr))
		return d
	}
	ev(server.FSMEventNotificationSent, "192.0.2.2", bgp.BGP_ERROR_CEASE, bgp.BGP_ERROR_SUB_MAXIMUM_NUMBER_OF_PREFIXES_REACHED)
	if !down("192.0.2.2").PrefixLimit {
		t.Error("the end after the prefix limit's Cease is not marked")
	}
	if down("192.0.2.2").PrefixLimit {
		t.Error("the next end is marked too")
	}
	ev(server.FSMEventNotificationSent, "192.0.2.3", bgp.BGP_ERROR_CEASE, bgp.BGP_ERROR_SUB_ADMINISTRATIVE_SHUTDOWN)
	ev(server.FSMEventNotificationReceived, "192.0.2.4", bgp.BGP_ERROR_CEASE, bgp.BGP_ERROR_SUB_MAXIMUM_NUMBER_OF_PREFIXES_REACHED)
	if down("192.0.2.3").PrefixLimit || down("192.0.2.4").PrefixLimit {
		t.Error("another Cease sent, or the peer's own prefix limit, is marked")
	}
	if want := []netip.Addr{netip.MustParseAddr("192.0.2.2")}; !slices.Equal(told, want) {
		t.Errorf("OnPrefixLimit told %v, want %v", told, want)
	}
}
