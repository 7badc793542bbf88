package peers

import (
	"net/netip"
	"time"

	"github.com/authbgp/authbgpd/keys"
)

// Established connections and a TCP-MD5 key change. Most routers end a
// session themselves when its password changes (FRR sends a Cease at
// once), signed with the old key. Re-keyed in place first, our connection
// would drop that NOTIFICATION and its FIN, and GoBGP would keep the dead
// session, turning the peer's new connection away, until the stale-session
// judge ends it (refused.go): seconds more. So a connection keeps the key
// the change replaced for rekeyHold, unless the peer shows that it signs
// with another key already — the kernel dropped a segment from it with a
// bad digest (dropwatch, BadDigest) — and is re-keyed then. A peer that
// re-keys its socket in place instead (no reset) loses at most rekeyHold
// of segments to our old key, which TCP sends again.

// rekeyHold is how long an established connection keeps the key a change
// replaced, waiting for the peer to reset the session or to move first
// (Manager.rekeyHold, which tests shorten).
const rekeyHold = 2 * time.Second

// movedBefore: a bad-digest drop from the peer this long before the key
// change still says that the peer signs with another key (it changed
// first).
const movedBefore = 10 * time.Second

// keepOldKey reports whether an established connection carrying the key
// replaced at changed keeps it at now: for hold after the change, unless
// the kernel's last bad-digest drop from the peer (lastBad, zero: none)
// came no earlier than movedBefore before the change.
func keepOldKey(changed, lastBad, now time.Time, hold time.Duration) bool {
	if changed.IsZero() || now.Sub(changed) >= hold {
		return false
	}
	return lastBad.IsZero() || lastBad.Before(changed.Add(-movedBefore))
}

// keepsOldKey reports whether the connection with a, which carries key
// (m.mu held), keeps it for now: key is the one st's change replaced, and
// keepOldKey says so.
func (p *pass) keepsOldKey(a netip.Addr, st *peer, key keys.Secret) bool {
	if st.prevSecret == nil || !st.prevSecret.Equal(key) {
		return false
	}
	if keepOldKey(st.keyChanged, p.m.badDigest[a.WithZone("")], p.m.now(), p.m.rekeyHold) {
		p.rekeyHeld = true
		return true
	}
	return false
}

// endRekeyHolds publishes whether the pass left a connection on a replaced
// key (for BadDigest), and forgets the replaced keys whose hold has run
// out (the pass has re-keyed their connections) and bad-digest drops too
// old to matter (m.mu held).
func (p *pass) endRekeyHolds() {
	p.m.rekeyHeld = p.rekeyHeld
	now := p.m.now()
	for _, st := range p.m.peers {
		if st.prevSecret != nil && now.Sub(st.keyChanged) >= p.m.rekeyHold {
			st.prevSecret.Wipe()
			st.prevSecret = nil
		}
	}
	for a, t := range p.m.badDigest {
		if now.Sub(t) >= movedBefore+p.m.rekeyHold {
			delete(p.m.badDigest, a)
		}
	}
}

// BadDigest records that the kernel dropped a segment from addr (a
// configured peer's) whose TCP-MD5 signature did not verify, and asks for
// a pass when a connection is keeping a replaced key: the peer signs with
// another key, so its connection follows at once.
func (m *Manager) BadDigest(addr netip.Addr) {
	m.mu.Lock()
	m.badDigest[addr.Unmap().WithZone("")] = m.now()
	held := m.rekeyHeld
	m.mu.Unlock()
	if held {
		m.kickSessions()
	}
}
