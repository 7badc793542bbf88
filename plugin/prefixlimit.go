package plugin

import (
	"github.com/osrg/gobgp/v3/pkg/packet/bgp"
)

// A neighbor's prefix limit (GoBGP's PrefixLimit, set by peers from
// max-prefixes): when the neighbor holds more prefixes of a family than
// the limit, GoBGP sends it a Cease NOTIFICATION, subcode 1 (Maximum
// Number of Prefixes Reached, RFC 4486), ends the session, and tries it
// again after its idle hold (the carried patch 0030). The Host learns of
// it from that NOTIFICATION's FSM event: it tells OnPrefixLimit's fn, and
// the session's Down says why it ended (Down.PrefixLimit).

// isPrefixLimit reports whether a NOTIFICATION is the prefix limit's
// Cease.
func isPrefixLimit(code, subcode uint8) bool {
	return code == bgp.BGP_ERROR_CEASE && subcode == bgp.BGP_ERROR_SUB_MAXIMUM_NUMBER_OF_PREFIXES_REACHED
}

// OnPrefixLimit sets fn to be told the neighbor (its VRF, "" the default
// VRF's, and its address) whenever GoBGP ends a session because the
// neighbor sent more prefixes than its limit (it sent the Cease, subcode
// 1). Called like OnConnectionRefused's fn: on GoBGP's FSM goroutine, it
// must not block or call GoBGP.
func (h *Host) OnPrefixLimit(fn RefusalHook) { h.prefixLimit.Store(&fn) }

// overPrefixLimit tells OnPrefixLimit's fn, if one is set.
func (h *Host) overPrefixLimit(nb neighbor) {
	if fn := h.prefixLimit.Load(); fn != nil {
		(*fn)(nb.vrf, nb.addr)
	}
}
