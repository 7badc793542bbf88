package peers

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/plugin"
)

// Stale sessions. A session is stale when the peer gave it up while our
// kernel kept dropping its NOTIFICATION and FIN (signed with a key we no
// longer hold): GoBGP keeps it Established and turns away every new
// connection from the peer until its hold timer fires. Two inputs say so:
// the shadow checker's proof (EndStale), and GoBGP closing a connection the
// kernel accepted (ConnectionRefused), judged here.

// endStale ends the sessions asked to be ended that still are what was
// asked about (m.mu held: the pass, or the loop's judgeStale). Each asked
// session is observed and judged first (observeStale: for a refusal,
// GoBGP is asked what the session received since its key change), the
// stale ones' resets planned (planStale, pure), then carried out and
// recorded (actStale).
func (p *pass) endStale() {
	m := p.m
	asked := m.stale // what is asked while an action runs waits for the next time
	m.stale = map[neighbor]staleWant{}
	var facts []staleFacts
	for a, w := range asked {
		if f, ok := p.observeStale(a, w); ok {
			facts = append(facts, f)
		}
	}
	for _, a := range planStale(facts) {
		p.actStale(a)
	}
}

// staleFacts is a session judged stale: the established session with
// addr, on its connection remote.
type staleFacts struct {
	nb     neighbor
	remote netip.AddrPort
}

// planStale is the stale sessions' plan (pure): each is reset.
func planStale(facts []staleFacts) []action {
	out := make([]action, 0, len(facts))
	for _, f := range facts {
		out = append(out, action{kind: actResetSession, vrf: f.nb.VRF, addr: f.nb.Addr, remote: f.remote, why: "authbgpd: stale session replaced by a new authenticated connection"})
	}
	return out
}

// observeStale judges the session with addr asked to be ended (w): it is
// stale (ok) when it is still established, ours, and either the shadow
// checker proved it (on the connection w names, if any) or GoBGP turned
// away a new connection the kernel accepted from addr (staleByRefusal).
func (p *pass) observeStale(addr neighbor, w staleWant) (staleFacts, bool) {
	m := p.m
	s := m.sess[addr]
	if s == nil || s.state != "established" || p.peerFor(addr) == "" {
		return staleFacts{}, false // already gone, or not ours
	}
	if !w.proven {
		ok, err := p.staleByRefusal(addr, s)
		if err != nil {
			m.log.WithError(err).Error("cannot end a stale session")
		}
		return staleFacts{nb: addr, remote: s.remote}, ok
	}
	if s.remote.IsValid() && w.remote.IsValid() && s.remote != w.remote {
		return staleFacts{}, false // another session now
	}
	m.log.WithFields(logrus.Fields{"peer": addr, "connection": w.remote, "reason": w.why}).Warn("ending stale session: the shadow checker saw the peer give it up while its connection stopped verifying")
	return staleFacts{nb: addr, remote: s.remote}, true
}

// staleByRefusal judges the established session with addr stale without
// the shadow checker's help. GoBGP turned away a new connection from addr,
// which the kernel accepted: its SYN carried a valid signature under the
// key now installed for addr. If the session was re-keyed in place and has
// received no BGP message since, the peer gave it up when it changed its
// key. A session that received anything since the change is alive (the
// peer signs with the new key on it), so it is left alone; so is one that
// was not re-keyed (a peer restarting with an unchanged key gets GoBGP's
// usual treatment).
func (p *pass) staleByRefusal(addr neighbor, s *session) (bool, error) {
	m := p.m
	if !s.rekeyedConn.IsValid() || s.rekeyedConn != s.remote {
		return false, nil
	}
	if _, st := p.owner(addr); st == nil {
		return false, nil
	}
	remote := s.remote
	rx, err := p.received(addr)
	if err != nil {
		return false, fmt.Errorf("peers: is the session with %s stale: %w", addr, err)
	}
	if m.sess[addr] != s || s.remote != remote || s.state != "established" {
		return false, nil // another session since GoBGP was asked
	}
	log := m.log.WithFields(logrus.Fields{"peer": addr, "connection": s.remote})
	if rx != s.rxAtRekey {
		log.WithField("messages_since_key_change", rx-s.rxAtRekey).Info("GoBGP turned away a new connection from an established peer whose session still carries messages: left alone")
		return false, nil
	}
	log.WithField("reason", "new authenticated connection, nothing received since the key change").Warn("ending stale session: the peer opened a new connection signed with the new key, and its old session has carried no message since the key was changed in place")
	return true, nil
}

// actStale ends the stale established session a.addr, if it is still the
// one judged (another action ran meanwhile): GoBGP resets it, and the
// peer's new connection can come up. It records the outcome.
func (p *pass) actStale(a action) {
	m := p.m
	nb := nbr(a.vrf, a.addr)
	if s := m.sess[nb]; s == nil || s.state != "established" || s.remote != a.remote {
		return // another session since it was judged
	}
	if err := p.act(a); err != nil {
		m.log.WithError(fmt.Errorf("peers: end stale session with %s: %w", nb, err)).Error("cannot end the stale session")
		return
	}
	if s := m.sess[nb]; s != nil && s.remote == a.remote {
		s.rekeyedConn = netip.AddrPort{}
	}
	if _, st := p.owner(nb); st != nil {
		// Our reset, not the peer's: GoBGP holds the neighbor Idle for
		// IdleHoldAfterReset only, and the peer, whose connection GoBGP
		// just turned away, waits out its connect timer. So no restart
		// (restartNow) and no waiting for the peer's dial: ours go first.
		st.restarted = true
	}
	// GoBGP's event of the session going down asks for the next pass: a
	// light one (a full pass per ended session made 100 of them, after a
	// key change, ask GoBGP for all 1,000 neighbors several times,
	// stalling its API behind those answers).
	m.kickSessions()
}

// received returns the number of BGP messages GoBGP has received from addr
// on its current session (asked without m.mu).
func (p *pass) received(addr neighbor) (rx uint64, err error) {
	p.unlocked(func() { rx, err = received(p.ctx, p.m.bgp, addr) })
	return rx, err
}

func received(ctx context.Context, b BGP, addr neighbor) (uint64, error) {
	ps, err := b.ListPeerIn(ctx, addr.VRF, addr.Addr.String())
	if err != nil {
		return 0, err
	}
	for _, p := range ps {
		if a, ok := plugin.NeighborAddr(p); ok && a == addr.Addr {
			return p.GetState().GetMessages().GetReceived().GetTotal(), nil
		}
	}
	return 0, fmt.Errorf("GoBGP does not list %s", addr)
}

// noteRekeyed remembers that the established session s now carries the new
// key, and how many messages it had received by then (after the socket was
// re-keyed: anything counted later passed the new key). Without the count
// the session is not marked, so it is never judged stale by a refusal.
func (p *pass) noteRekeyed(addr neighbor, s *session) {
	s.rekeyedConn = netip.AddrPort{}
	remote := s.remote
	rx, err := p.received(nbr(addr.VRF, remote.Addr()))
	if err != nil {
		p.m.log.WithError(err).WithField("peer", remote.Addr()).Debug("cannot read the session's message count after re-keying it")
		return
	}
	if p.m.sess[addr] != s || s.remote != remote || s.state != "established" {
		return // another session since GoBGP was asked
	}
	s.rekeyedConn, s.rxAtRekey = remote, rx
}
