package plugin

import (
	"fmt"
	"net/netip"
	"sync"
	"time"

	"github.com/osrg/gobgp/v3/pkg/packet/bgp"
	"github.com/osrg/gobgp/v3/pkg/server"
)

// What GoBGP's receive path found malformed, per neighbor: every message a
// peer sent that failed to decode or validate (RFC 4271 section 6, RFC
// 7606), and every panic the carried GoBGP recovered while it processed
// one (patch 0005, server.ReceiveErrorOption). GoBGP handles them (a
// NOTIFICATION, treat-as-withdraw, an attribute discarded, an AFI/SAFI
// disabled); the Host counts them and keeps the last one, for /status and
// the metrics. Nothing here holds a secret: GoBGP's reasons name lengths,
// types and codes of what the peer sent.

// Handlings of a malformed message (RFC 7606): the values of Malformed's
// ByHandling keys and of the handling label of
// authbgpd_peer_malformed_messages_total.
const (
	HandlingSessionReset     = "session-reset"
	HandlingTreatAsWithdraw  = "treat-as-withdraw"
	HandlingAttributeDiscard = "attribute-discard"
	HandlingAFISAFIDisable   = "afi-safi-disable"
)

// handlingName names GoBGP's ErrorHandling.
func handlingName(h bgp.ErrorHandling) string {
	switch h {
	case bgp.ERROR_HANDLING_ATTRIBUTE_DISCARD:
		return HandlingAttributeDiscard
	case bgp.ERROR_HANDLING_TREAT_AS_WITHDRAW:
		return HandlingTreatAsWithdraw
	case bgp.ERROR_HANDLING_AFISAFI_DISABLE:
		return HandlingAFISAFIDisable
	}
	return HandlingSessionReset
}

// messageName names a BGP message type: "update", "open", "notification",
// "keepalive", "route-refresh", "header" (the header itself was malformed)
// or "type N" for a type BGP does not define.
func messageName(t uint8) string {
	switch t {
	case 0:
		return "header"
	case bgp.BGP_MSG_OPEN:
		return "open"
	case bgp.BGP_MSG_UPDATE:
		return "update"
	case bgp.BGP_MSG_NOTIFICATION:
		return "notification"
	case bgp.BGP_MSG_KEEPALIVE:
		return "keepalive"
	case bgp.BGP_MSG_ROUTE_REFRESH:
		return "route-refresh"
	}
	return fmt.Sprintf("type %d", t)
}

// MalformedMessage is one message a neighbor sent that GoBGP found
// malformed, or whose processing panicked.
type MalformedMessage struct {
	// Message is the message's type (messageName's words).
	Message string
	// Handling is what GoBGP did (Handling* constants).
	Handling string
	// Code and Subcode are the NOTIFICATION the error calls for (the one
	// sent when Handling is session-reset); Text names them.
	Code, Subcode uint8
	Text          string
	// Reason is GoBGP's word for what was malformed ("nexthop length
	// isn't correct"), or the recovered panic's value.
	Reason string
	// Panic, when set, is where a recovered panic was raised.
	Panic string
	At    time.Time
}

// String says what was malformed and what came of it, in one line.
func (m MalformedMessage) String() string {
	if m.Panic != "" {
		return fmt.Sprintf("%s whose processing panicked in %s (%s): %s; the session was reset with %s", m.Message, m.Panic, m.Reason, m.Handling, m.Text)
	}
	return fmt.Sprintf("malformed %s: %s (%s, %s)", m.Message, m.Reason, m.Handling, m.Text)
}

// Malformed counts one neighbor's malformed messages since the daemon
// started.
type Malformed struct {
	// Updates and Other count malformed UPDATEs and malformed messages of
	// other types (OPEN, NOTIFICATION, ..., a bad header, an unknown
	// type).
	Updates, Other uint64
	// ByHandling counts them by what GoBGP did.
	ByHandling map[string]uint64
	// Panics counts the recovered panics among them (each reset its
	// session): bugs in GoBGP a peer's message reached.
	Panics uint64
	// Last is the last one.
	Last MalformedMessage
	// reset is the last one that reset the session, until the session's
	// end takes it (malformedNotes.takeReset).
	reset *MalformedMessage
}

// malformedNotes are the Malformed of every neighbor, fed by GoBGP's
// ReceiveErrorHook on its sessions' receiving goroutines.
type malformedNotes struct {
	mu sync.Mutex
	m  map[neighbor]*Malformed
}

// recordIn is the server.ReceiveErrorHook of vrf's instance: the message's
// neighbor is (vrf, its address). It must not block.
func (n *malformedNotes) recordIn(vrf string) server.ReceiveErrorHook {
	return func(e server.ReceiveError) { n.record(vrf, e) }
}

func (n *malformedNotes) record(vrf string, e server.ReceiveError) {
	addr, err := netip.ParseAddr(e.Neighbor)
	if err != nil {
		return
	}
	nb := neighbor{vrf, addr.Unmap()}
	m := MalformedMessage{
		Message:  messageName(e.MessageType),
		Handling: handlingName(e.Handling),
		Code:     e.Code,
		Subcode:  e.Subcode,
		Text:     bgp.NewNotificationErrorCode(e.Code, e.Subcode).String(),
		Reason:   e.Reason,
		Panic:    e.Panic,
		At:       timeNow(),
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.m == nil {
		n.m = map[neighbor]*Malformed{}
	}
	s := n.m[nb]
	if s == nil {
		s = &Malformed{ByHandling: map[string]uint64{}}
		n.m[nb] = s
	}
	if e.MessageType == bgp.BGP_MSG_UPDATE {
		s.Updates++
	} else {
		s.Other++
	}
	s.ByHandling[m.Handling]++
	if m.Panic != "" {
		s.Panics++
	}
	s.Last = m
	if m.Handling == HandlingSessionReset {
		s.reset = &m
	}
}

// resetWindow is how long after a malformed message that reset a session
// its end (GoBGP's FSMEventPeerDown, which follows within milliseconds) is
// taken to be that message's doing.
const resetWindow = 5 * time.Second

// takeReset returns, and forgets, the malformed message that reset nb's
// session, if one did within resetWindow before at.
func (n *malformedNotes) takeReset(nb neighbor, at time.Time) (MalformedMessage, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	s := n.m[nb]
	if s == nil || s.reset == nil {
		return MalformedMessage{}, false
	}
	r := *s.reset
	s.reset = nil
	if d := at.Sub(r.At); d < 0 || d > resetWindow {
		return MalformedMessage{}, false
	}
	return r, true
}

// Malformed returns what neighbor addr of vrf ("" the default VRF) sent
// that GoBGP found malformed, since the daemon started; false when it sent
// nothing malformed.
func (h *Host) Malformed(vrf string, addr netip.Addr) (Malformed, bool) {
	h.malformed.mu.Lock()
	defer h.malformed.mu.Unlock()
	s := h.malformed.m[neighbor{vrf, addr.Unmap()}]
	if s == nil {
		return Malformed{}, false
	}
	c := *s
	c.reset = nil
	c.ByHandling = make(map[string]uint64, len(s.ByHandling))
	for k, v := range s.ByHandling {
		c.ByHandling[k] = v
	}
	return c, true
}
