package peers

import (
	"net/netip"
	"sync"
	"time"
)

// Sessions stuck in OpenSent. GoBGP, once its connection to a peer is up,
// sits in OpenSent until the peer's OPEN arrives, and closes every
// connection the peer dials meanwhile: it does no collision detection
// there. When the peer never took that connection (its end was lost: seen
// with FRR holding 1,000 TCP-MD5 keys on one listener, where our handshake
// completed on our side only), GoBGP waits out its OpenSent hold timer,
// about 3 minutes, turning away each dial of the peer, any of which would
// have come up at once. One refused dial is a collision (the peer may hold
// our connection too, and answer on it); a second one in the same OpenSent,
// stuckOpenSentSpan or more after the first (the peer's connect-retry
// later), says the peer holds no connection of ours. The pass then restarts
// the neighbor: the new one is Active and takes the peer's next dial (ours
// wait for it, restartDialDefer).

// stuckOpenSentSpan is the least time between the first and the last dial
// of the peer GoBGP refused in one OpenSent for it to count as stuck: the
// peer dialed again after a retry interval (FRR's least is 1 s), not twice
// in one collision.
const stuckOpenSentSpan = 2 * time.Second

// openSentTable holds the peers' dials GoBGP refused in OpenSent
// (OpenSentRefused), under osMu alone.
type openSentTable struct {
	osMu     sync.Mutex
	openSent map[neighbor]openSentRefusals
}

// openSentRefusals are when GoBGP, in OpenSent, closed the peer's last
// dials (the latest len(at), oldest first; zero times unused).
type openSentRefusals struct {
	at [4]time.Time
}

func (r *openSentRefusals) add(t time.Time) {
	copy(r.at[:], r.at[1:])
	r.at[len(r.at)-1] = t
}

// since returns how many refusals came after t, and the first and last of
// them.
func (r *openSentRefusals) since(t time.Time) (n int, first, last time.Time) {
	for _, a := range r.at {
		if !a.IsZero() && a.After(t) {
			if n == 0 {
				first = a
			}
			n, last = n+1, a
		}
	}
	return n, first, last
}

// OpenSentRefused is told (plugin.Host.OnOpenSentRefusal) that GoBGP, in
// OpenSent, closed a connection addr dialed (to vrf's instance). It
// records it, and asks for a
// pass when the refusals could make a stuck OpenSent (not for a first one:
// 1,000 sessions coming up make hundreds of collisions); it never blocks
// (it runs on GoBGP's FSM goroutine).
func (m *Manager) OpenSentRefused(vrf string, addr netip.Addr) {
	nb := nbr(vrf, addr)
	now := m.now()
	m.osMu.Lock()
	r := m.openSent[nb]
	r.add(now)
	m.openSent[nb] = r
	_, first, _ := r.since(now.Add(-openSentLookBack))
	m.osMu.Unlock()
	if now.Sub(first) >= stuckOpenSentSpan {
		m.kickSessions()
	}
}

// openSentLookBack is how far back OpenSentRefused looks for an earlier
// refusal that, with this one, could make a stuck OpenSent: GoBGP's
// OpenSent hold timer (4 minutes at most), past which it is not stuck but
// over.
const openSentLookBack = 4 * time.Minute

// stuckOpenSent reports whether the static peer's neighbor is in OpenSent
// and stuck there (see above), with how many of the peer's dials GoBGP
// refused in it; it forgets the refusals of states the session has left
// (the pass, m.mu held).
func (p *pass) stuckOpenSent(w Want) (int, bool) {
	m := p.m
	a := nbrOf(w.Cfg)
	m.osMu.Lock()
	defer m.osMu.Unlock()
	r, ok := m.openSent[a]
	if !ok {
		return 0, false
	}
	s := m.sess[a]
	if s == nil {
		delete(m.openSent, a)
		return 0, false
	}
	n, first, last := r.since(s.since)
	switch {
	case n == 0:
		delete(m.openSent, a) // earlier states': the session left them
		return 0, false
	case s.state != "opensent" || w.HeldDown || s.adminDown:
		return n, false
	case last.Sub(first) < stuckOpenSentSpan: // one refusal, or one collision
		return n, false
	}
	delete(m.openSent, a)
	return n, true
}
