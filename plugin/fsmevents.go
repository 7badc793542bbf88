package plugin

import (
	"net/netip"
	"sync"
	"time"

	"github.com/osrg/gobgp/v3/pkg/packet/bgp"
	"github.com/osrg/gobgp/v3/pkg/server"
)

// What the Host learns from GoBGP's FSM events (the carried patch 0027,
// server.FSMEventOption), which its API does not tell: the last
// NOTIFICATION and down reason per neighbor, and each connection GoBGP
// accepted and closed, with the FSM's state then. GoBGP logs each of them
// too; nothing here reads its log. Only addresses, codes and GoBGP's down
// reasons leave this file: an event carries nothing else.

// Notification is the last BGP NOTIFICATION exchanged with a neighbor, as
// GoBGP's FSM told it (its API keeps none).
type Notification struct {
	Code, Subcode uint8
	// Direction is "sent" or "received".
	Direction string
	// Text names the code and subcode ("code 6(cease) subcode
	// 2(administrative shutdown)").
	Text string
	At   time.Time
}

// Down is why a neighbor's session last left Established, in GoBGP's words
// ("hold-timer-expired", "notification-received code 6(cease) ...").
type Down struct {
	Reason string
	At     time.Time
	// Malformed is the message the neighbor sent that ended the session
	// (GoBGP reset it with a NOTIFICATION), when one did.
	Malformed *MalformedMessage
	// PrefixLimit: GoBGP ended the session because the neighbor sent
	// more prefixes than its limit (a Cease, subcode 1: prefixlimit.go).
	PrefixLimit bool
}

// peerNotes remembers, per neighbor, the last NOTIFICATION and the last
// reason its session went down.
type peerNotes struct {
	mu    sync.Mutex
	notif map[netip.Addr]Notification
	down  map[netip.Addr]Down
	// malformed, when set, tells the malformed message a down was for.
	malformed *malformedNotes
	// overLimit: a Cease for the prefix limit was sent to the neighbor,
	// and its session has not gone down since (prefixlimit.go).
	overLimit map[netip.Addr]bool
}

// notification records a NOTIFICATION sent to or received from addr (dir
// "sent" or "received").
func (n *peerNotes) notification(addr netip.Addr, dir string, code, sub uint8) {
	now := timeNow()
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.notif == nil {
		n.notif = map[netip.Addr]Notification{}
	}
	n.notif[addr] = Notification{Code: code, Subcode: sub, Direction: dir,
		Text: bgp.NewNotificationErrorCode(code, sub).String(), At: now}
	if dir == "sent" && isPrefixLimit(code, sub) {
		if n.overLimit == nil {
			n.overLimit = map[netip.Addr]bool{}
		}
		n.overLimit[addr] = true
	}
}

// peerDown records that addr's session left Established, for reason, and
// takes the malformed message that reset it, if one did.
func (n *peerNotes) peerDown(addr netip.Addr, reason string) {
	now := timeNow()
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.down == nil {
		n.down = map[netip.Addr]Down{}
	}
	d := Down{Reason: reason, At: now, PrefixLimit: n.overLimit[addr]}
	delete(n.overLimit, addr)
	if n.malformed != nil {
		if m, ok := n.malformed.takeReset(addr, now); ok {
			d.Malformed = &m
		}
	}
	n.down[addr] = d
}

// fsmEvent is the server.FSMEventHook: it runs on GoBGP's FSM goroutines
// and must not block.
func (h *Host) fsmEvent(e server.FSMEvent) {
	addr, err := netip.ParseAddr(e.Neighbor)
	if err != nil {
		return
	}
	addr = addr.Unmap()
	switch e.Type {
	case server.FSMEventConnectionRefused:
		h.connectionRefused(addr, e.State)
	case server.FSMEventNotificationSent:
		h.notes.notification(addr, "sent", e.Code, e.Subcode)
		if isPrefixLimit(e.Code, e.Subcode) {
			h.overPrefixLimit(addr)
		}
	case server.FSMEventNotificationReceived:
		h.notes.notification(addr, "received", e.Code, e.Subcode)
	case server.FSMEventPeerDown:
		h.notes.peerDown(addr, e.Reason)
	}
}

// OnConnectionRefused sets fn to be told the neighbor address whenever
// GoBGP closes a connection that the kernel accepted from a neighbor whose
// session is Established (GoBGP keeps the old session; RFC 4271 collision
// handling). fn is called on GoBGP's FSM goroutine: it must not block or
// call GoBGP.
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

// connectionRefused tells the hook of the FSM's state, if one is set, that
// GoBGP closed a connection addr dialed. In OpenConfirm no hook is told:
// there the refused connection is a collision the other connection is about
// to settle, not a sign of a dead session or of a stuck one.
func (h *Host) connectionRefused(addr netip.Addr, state bgp.FSMState) {
	var fn *func(netip.Addr)
	switch state {
	case bgp.BGP_FSM_ESTABLISHED:
		fn = h.refused.Load()
	case bgp.BGP_FSM_IDLE:
		fn = h.idleRefused.Load()
	case bgp.BGP_FSM_OPENSENT:
		fn = h.openSentRefused.Load()
	}
	if fn != nil {
		(*fn)(addr)
	}
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
