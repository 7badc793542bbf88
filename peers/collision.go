package peers

import (
	"net/netip"
	"time"
)

// Sessions lost to a connection collision. When both routers dial at once,
// RFC 4271 (6.8) keeps the connection dialed by the router with the higher
// BGP Identifier. GoBGP does no such detection in OpenSent: it closes the
// peer's connection (OpenSentRefused) and goes on with its own. A peer
// that does the detection (FRR) and has the higher Identifier keeps the
// connection GoBGP closed and ends ours, as soon as it reads our OPEN on
// it (GoBGP then is in OpenConfirm, or just Established). Both are gone;
// the peer dials again about a second later, and GoBGP, Idle for its 5 s
// hold (gobgpIdleHold), turns that dial away: the session waits 5-12 s
// more (the hold, the peer's connect timer, our dials deferred for the
// refused peer, PeerIdleHold). At 1,000 peers a few such collisions as the
// peer starts are the last sessions up.
//
// Such an end is recognisable: the session left OpenConfirm or
// Established for Idle less than collisionWindow after it got there, GoBGP
// had refused a dial of the peer's in OpenSent at most collisionWindow
// before, and the peer's Identifier (from its OPEN) is higher than ours.
// The event records it (collisionLost), and the next pass restarts the
// neighbor (restartDue) as after a key change: the new one has no idle
// hold and takes the peer's next dial, while ours wait for it
// (restartDialDefer). Of two GoBGPs that collide, each closes the other's
// connection on accepting it, before any OPEN is read: neither learns the
// other's Identifier, and neither neighbor is restarted.

// collisionWindow bounds both how long a session lost to a collision was
// in OpenConfirm or Established and how long before that GoBGP refused the
// peer's dial (milliseconds at 1,000 peers).
const collisionWindow = time.Second

// collisionLost reports whether nb's session, in OpenConfirm or
// Established from up to down, with the peer's BGP Identifier peerID,
// ended as a collision the peer resolved for its own connection (m.mu
// held: it takes osMu).
func (m *Manager) collisionLost(nb neighbor, peerID netip.Addr, up, down time.Time) bool {
	if up.IsZero() || down.Sub(up) >= collisionWindow || !higherID(peerID, m.cfg.Global.RouterID) {
		return false
	}
	m.osMu.Lock()
	r, ok := m.openSent[nb]
	m.osMu.Unlock()
	if !ok {
		return false
	}
	n, first, _ := r.since(up.Add(-collisionWindow))
	return n > 0 && !first.After(up)
}

// higherID reports whether BGP Identifier a is higher than b, compared as
// 4-octet unsigned integers (RFC 4271 6.8); false when either is not an
// IPv4 address.
func higherID(a, b netip.Addr) bool {
	return a.Is4() && b.Is4() && a.Compare(b) > 0
}
