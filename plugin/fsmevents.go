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
// accepted and closed, with the FSM's state then. Each instance (one per
// VRF) has its own hook, so that an event names its neighbor by VRF and
// address. GoBGP logs each of them
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

// neighbor names one instance's neighbor: its VRF ("" the default VRF)
// and its address, unmapped. One address may be a neighbor of two VRFs'
// instances (vrfs.go), so the address alone does not name it.
type neighbor struct {
	vrf  string
	addr netip.Addr
}

// peerNotes remembers, per neighbor, the last NOTIFICATION and the last
// reason its session went down.
type peerNotes struct {
	mu    sync.Mutex
	notif map[neighbor]Notification
	down  map[neighbor]Down
	// malformed, when set, tells the malformed message a down was for.
	malformed *malformedNotes
	// overLimit: a Cease for the prefix limit was sent to the neighbor,
	// and its session has not gone down since (prefixlimit.go).
	overLimit map[neighbor]bool
}

// notification records a NOTIFICATION sent to or received from nb (dir
// "sent" or "received").
func (n *peerNotes) notification(nb neighbor, dir string, code, sub uint8) {
	now := timeNow()
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.notif == nil {
		n.notif = map[neighbor]Notification{}
	}
	n.notif[nb] = Notification{Code: code, Subcode: sub, Direction: dir,
		Text: bgp.NewNotificationErrorCode(code, sub).String(), At: now}
	if dir == "sent" && isPrefixLimit(code, sub) {
		if n.overLimit == nil {
			n.overLimit = map[neighbor]bool{}
		}
		n.overLimit[nb] = true
	}
}

// peerDown records that nb's session left Established, for reason, and
// takes the malformed message that reset it, if one did.
func (n *peerNotes) peerDown(nb neighbor, reason string) {
	now := timeNow()
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.down == nil {
		n.down = map[neighbor]Down{}
	}
	d := Down{Reason: reason, At: now, PrefixLimit: n.overLimit[nb]}
	delete(n.overLimit, nb)
	if n.malformed != nil {
		if m, ok := n.malformed.takeReset(nb, now); ok {
			d.Malformed = &m
		}
	}
	n.down[nb] = d
}

// fsmEventIn is the server.FSMEventHook of vrf's instance: the event's
// neighbor is (vrf, its address). It runs on GoBGP's FSM goroutines and
// must not block.
func (h *Host) fsmEventIn(vrf string) server.FSMEventHook {
	return func(e server.FSMEvent) { h.fsmEvent(vrf, e) }
}

func (h *Host) fsmEvent(vrf string, e server.FSMEvent) {
	addr, err := netip.ParseAddr(e.Neighbor)
	if err != nil {
		return
	}
	nb := neighbor{vrf, addr.Unmap()}
	switch e.Type {
	case server.FSMEventConnectionRefused:
		h.connectionRefused(nb, e.State)
	case server.FSMEventNotificationSent:
		h.notes.notification(nb, "sent", e.Code, e.Subcode)
		if isPrefixLimit(e.Code, e.Subcode) {
			h.overPrefixLimit(nb)
		}
	case server.FSMEventNotificationReceived:
		h.notes.notification(nb, "received", e.Code, e.Subcode)
	case server.FSMEventPeerDown:
		h.notes.peerDown(nb, e.Reason)
	}
}

// RefusalHook is told the neighbor of a connection GoBGP closed: its VRF
// ("" the default VRF; the instance that closed it) and its address.
type RefusalHook func(vrf string, addr netip.Addr)

// OnConnectionRefused sets fn to be told the neighbor whenever
// GoBGP closes a connection that the kernel accepted from a neighbor whose
// session is Established (GoBGP keeps the old session; RFC 4271 collision
// handling). fn is called on GoBGP's FSM goroutine: it must not block or
// call GoBGP.
func (h *Host) OnConnectionRefused(fn RefusalHook) { h.refused.Store(&fn) }

// OnIdleRefusal sets fn to be told the neighbor whenever GoBGP
// closes a connection the neighbor dialed because its own FSM for the
// neighbor is Idle (its idle hold after a session ended): the neighbor,
// refused, now sits in an idle hold of its own. Called like
// OnConnectionRefused's fn: on GoBGP's goroutine, it must not block.
func (h *Host) OnIdleRefusal(fn RefusalHook) { h.idleRefused.Store(&fn) }

// OnOpenSentRefusal sets fn to be told the neighbor whenever GoBGP
// closes a connection the neighbor dialed because its own FSM for the
// neighbor is in OpenSent: it sent its OPEN on another connection and waits
// for the answer (GoBGP does no collision detection there). Once, that is
// a collision; a peer that keeps dialing does not hold that other
// connection. Called like OnConnectionRefused's fn: it must not block.
func (h *Host) OnOpenSentRefusal(fn RefusalHook) { h.openSentRefused.Store(&fn) }

// connectionRefused tells the hook of the FSM's state, if one is set, that
// GoBGP closed a connection nb dialed. In OpenConfirm no hook is told:
// there the refused connection is a collision the other connection is about
// to settle, not a sign of a dead session or of a stuck one.
func (h *Host) connectionRefused(nb neighbor, state bgp.FSMState) {
	var fn *RefusalHook
	switch state {
	case bgp.BGP_FSM_ESTABLISHED:
		fn = h.refused.Load()
	case bgp.BGP_FSM_IDLE:
		fn = h.idleRefused.Load()
	case bgp.BGP_FSM_OPENSENT:
		fn = h.openSentRefused.Load()
	}
	if fn != nil {
		(*fn)(nb.vrf, nb.addr)
	}
}

// LastNotification returns the last NOTIFICATION sent to or received from
// neighbor addr of vrf ("" the default VRF) since the daemon started.
func (h *Host) LastNotification(vrf string, addr netip.Addr) (Notification, bool) {
	h.notes.mu.Lock()
	defer h.notes.mu.Unlock()
	n, ok := h.notes.notif[neighbor{vrf, addr.Unmap()}]
	return n, ok
}

// LastDown returns why the session of neighbor addr of vrf last left
// Established since the daemon started.
func (h *Host) LastDown(vrf string, addr netip.Addr) (Down, bool) {
	h.notes.mu.Lock()
	defer h.notes.mu.Unlock()
	d, ok := h.notes.down[neighbor{vrf, addr.Unmap()}]
	return d, ok
}
