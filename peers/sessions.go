package peers

import (
	"net/netip"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/keys"
	"github.com/authbgp/authbgpd/peerindex"
	"github.com/authbgp/authbgpd/plugin"
)

// neighbor names a session's peer: its address in its VRF (one address
// may be a peer in two VRFs, each VRF a GoBGP instance of its own).
type neighbor = peerindex.Neighbor

// nbr is the neighbor addr (unmapped) of vrf ("" the default VRF).
func nbr(vrf string, addr netip.Addr) neighbor { return neighbor{VRF: vrf, Addr: addr.Unmap()} }

// nbrOf is static peer c's neighbor.
func nbrOf(c *config.Peer) neighbor { return nbr(c.VRF, c.Address) }

// session is what GoBGP's events told about one neighbor (input), plus
// what the reconciler did to its connection.
type session struct {
	state         string
	local, remote netip.AddrPort
	since         time.Time
	adminDown     bool
	asn           uint32
	peerID        netip.Addr // the peer's BGP Identifier from its last OPEN (invalid: none yet)

	// Written by the pass only.
	// key is the secret the reconciler knows the connection carries (the
	// peer's key when the session came up, or what the pass put on it);
	// it is what the pass compares when the kernel hides keys.
	key keys.Secret
	// rekeyedConn is the connection (remote end) re-keyed in place by the
	// last key change, and rxAtRekey the messages GoBGP had received on
	// it by then (see staleByRefusal); zero when not re-keyed.
	rekeyedConn netip.AddrPort
	rxAtRekey   uint64
	// aoRNext is the RNextKeyID the pass set on a TCP-AO connection (the
	// record when the kernel's view is not read); -1 none yet.
	aoRNext int
	// aoICMPs is the accept_icmps the pass set on it with aoRNext.
	aoICMPs bool
}

// changed records that s entered another state at t: a new session (or
// none), so no longer the one a key change re-keyed.
func (s *session) changed(t time.Time) {
	s.since, s.rekeyedConn, s.aoRNext, s.aoICMPs = t, netip.AddrPort{}, -1, false
	s.key.Wipe()
	s.key = nil
}

func (s *session) established() bool {
	return s.state == "established" && s.local.IsValid() && s.remote.IsValid()
}

// sessionTable is the reconciler's session tracking, under m.mu: GoBGP's
// sessions from its events (sess), the sessions to end (stale), the
// kernel's bad-digest drops (badDigest), and what the observers were told
// of each session's connection (told).
type sessionTable struct {
	sess  map[neighbor]*session  // GoBGP's sessions, from its events
	stale map[neighbor]staleWant // sessions to end (proofs and refusals)
	// badDigest: when the kernel last dropped a segment from the address
	// with a bad TCP-MD5 digest (BadDigest; rekeyhold.go). The kernel's
	// drop counters know the address, not its VRF.
	badDigest map[netip.Addr]time.Time
}

// staleWant is a request to end a session: a proof from the shadow checker
// (proven) or a connection GoBGP refused (to be judged by the pass).
type staleWant struct {
	remote netip.AddrPort // the session's peer end; zero: whatever it is
	why    string
	proven bool
}

// watch follows GoBGP's peer events.
func (m *Manager) watch(ch <-chan plugin.PeerEvent) {
	defer close(m.done)
	for ev := range ch {
		m.event(ev)
	}
}

// event records one GoBGP peer event in the session table and asks for a
// pass when a session changed state. It changes nothing else.
func (m *Manager) event(ev plugin.PeerEvent) {
	m.mu.Lock()
	defer m.mu.Unlock()
	nb := nbr(ev.VRF, ev.Peer)
	if ev.Deleted {
		if s := m.sess[nb]; s != nil {
			s.key.Wipe()
		}
		delete(m.sess, nb)
		return
	}
	s := m.sess[nb]
	if s == nil {
		s = &session{aoRNext: -1}
		m.sess[nb] = s
	}
	was, wasSince := s.state, s.since
	if was != ev.State {
		s.changed(ev.Time)
	}
	s.state, s.adminDown, s.asn = ev.State, ev.AdminDown, ev.PeerASN
	if ev.RouterID.IsValid() {
		s.peerID = ev.RouterID
	}
	if ev.Local.IsValid() {
		s.local, s.remote = ev.Local, ev.Remote
	}
	if ev.State != "established" {
		s.local, s.remote = netip.AddrPort{}, netip.AddrPort{}
	}
	// GoBGP deletes a dynamic neighbor (an address that is not a static
	// peer) when its session leaves Established (no graceful restart is
	// configured) and reports only this state change: forget it too, or
	// /status would list it for ever. The pass tells the observers.
	if was == "established" && ev.State != "established" && !m.isStatic(nb) {
		delete(m.sess, nb)
	}
	if m.peerFor(nb) == "" || was == ev.State {
		return
	}
	if (was == "established" || ev.State == "established") && m.log.Logger.IsLevelEnabled(logrus.DebugLevel) {
		// At debug: GoBGP's own "Peer Up" / "Peer Down" lines (component
		// gobgp, the reason included) say it at info; a second info line
		// per session costs CPU (docs/PERFORMANCE.md, "Figures behind the
		// code's comments").
		m.log.WithFields(logrus.Fields{"peer": nb, "state": ev.State}).Debug("BGP session state")
	}
	st := m.peers[m.peerFor(nb)]
	if st != nil && (was == "established" || was == "openconfirm") && m.collisionLost(nb, s.peerID, wasSince, ev.Time) {
		st.collided = ev.Time
	}
	if m.restartDue(st, s) != "" {
		m.kickRestart()
		return
	}
	if was == "established" || ev.State == "idle" {
		m.kickSessions() // a session ended: restarts, stale sessions, a dynamic neighbor gone
		return
	}
	m.kickUp()
}

// isStatic reports whether nb is a configured static peer (m.mu held).
func (m *Manager) isStatic(nb neighbor) bool {
	if id, ok := m.interfaceOwner(m.cfg, nb.Addr); ok {
		return id != ""
	}
	p := m.ownersOf(m.cfg).OwnerIn(nb.Addr, nb.VRF)
	return p != nil && !p.IsDynamic()
}
