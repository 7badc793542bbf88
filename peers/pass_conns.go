package peers

import (
	"errors"
	"fmt"
	"net/netip"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/keys"
	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/plugin"
	"github.com/authbgp/authbgpd/tcpsock"
)

// sessions brings the session table in line with GoBGP (a full pass:
// events may have been lost) — except for sessions an event changed after
// GoBGP was asked, which are newer than its view — and takes the
// connection ends of established sessions from the sockets when the events
// did not give them.
func (p *pass) sessions() {
	m := p.m
	if p.full {
		now := m.now()
		for a, gp := range p.gv.peers {
			if s := m.sess[a]; s == nil || !s.since.After(p.gv.at) {
				m.syncSession(a, gp, now)
			}
		}
		for a, s := range m.sess {
			if p.gv.peers[a] == nil && !s.since.After(p.gv.at) {
				s.key.Wipe()
				delete(m.sess, a)
			}
		}
	}
	if p.obs.Sockets == nil {
		return
	}
	for a, s := range m.sess {
		if s.state == "established" && !p.connOpen(s.local, s.remote) {
			if l, r, ok := p.findConn(a); ok {
				s.local, s.remote = l, r
			}
		}
	}
}

// syncSession takes GoBGP's word for the state of the session with a.
func (m *Manager) syncSession(a neighbor, gp *api.Peer, now time.Time) {
	state := plugin.SessionStateName(gp.GetState().GetSessionState())
	s := m.sess[a]
	if s == nil {
		s = &session{since: now, aoRNext: -1}
		m.sess[a] = s
	}
	if was := s.state; was != state {
		s.changed(now)
		if was != "" {
			m.log.WithFields(logrus.Fields{"peer": a, "state": state, "was": was}).Info("BGP session state (resynchronised from GoBGP)")
		}
	}
	s.state, s.adminDown, s.asn = state, gp.GetState().GetAdminState() == api.PeerState_DOWN, gp.GetState().GetPeerAsn()
	if state != "established" {
		s.local, s.remote = netip.AddrPort{}, netip.AddrPort{}
	}
}

func (p *pass) connOpen(local, remote netip.AddrPort) bool {
	if !local.IsValid() || !remote.IsValid() {
		return false
	}
	for _, s := range p.obs.Sockets {
		if !s.Listening && s.Local == local && s.Remote == remote {
			return true
		}
	}
	return false
}

// findConn finds the established BGP connection with a among the sockets
// (its remote address, bound to a's VRF).
func (p *pass) findConn(a neighbor) (local, remote netip.AddrPort, ok bool) {
	for _, s := range p.obs.Sockets {
		if s.Listening || !s.Remote.IsValid() || s.Remote.Addr() != a.Addr || p.connNeighbor(s).VRF != a.VRF {
			continue
		}
		return s.Local, s.Remote, true
	}
	return netip.AddrPort{}, netip.AddrPort{}, false
}

// conns gives every connection of a keyed peer its owner's key: with the
// kernel's view, every connected socket on the BGP port as observed;
// without it, the established sessions as recorded. A connection with
// another key is re-keyed in place (a changed key, or drift); one with no
// key at all is keyed and its session ended (fail closed). The TCP-AO
// peers' connections go first (connsAO). Each connection is judged
// (observedConn, recordedConn), its actions planned (planConn, pure), and
// then carried out and recorded (actConn).
func (p *pass) conns() {
	defer func() {
		for _, s := range p.prev {
			s.Wipe()
		}
	}()
	defer p.endRekeyHolds()
	p.connsAO()
	var facts []connFacts
	if p.seen {
		for _, c := range p.obs.Sockets {
			if !c.Listening && c.Remote.IsValid() && (c.Local.Port() == p.port || c.Remote.Port() == p.port) {
				facts = append(facts, p.observedConn(c))
			}
		}
	} else {
		p.eachEstablished(func(a neighbor, s *session) { facts = append(facts, p.recordedConn(a, s)) })
	}
	for _, f := range facts {
		for _, a := range planConn(f) {
			p.actConn(a)
		}
	}
}

// eachEstablished calls f for each established session, in address order
// (m.mu held).
func (p *pass) eachEstablished(f func(neighbor, *session)) {
	for _, a := range p.m.sessionAddrs() {
		if s := p.m.sess[a]; s != nil && s.established() {
			f(a, s)
		}
	}
}

// connFacts is what a pass judged of one connection with addr of a keyed
// peer: key is its owner's key; unsigned: it carries none; rekey: it
// carries another.
type connFacts struct {
	nb              neighbor
	local, remote   netip.AddrPort
	key             md5auth.Key
	unsigned, rekey bool
}

// planConn is one connection's actions (pure): an unsigned one is keyed
// and its session ended (fail closed), one with another key re-keyed in
// place.
func planConn(f connFacts) []action {
	set := action{kind: actSetConnKey, vrf: f.nb.VRF, addr: f.nb.Addr, local: f.local, remote: f.remote, key: f.key}
	switch {
	case f.unsigned:
		set.step = stepUnsigned
		return []action{set, {kind: actResetSession, vrf: f.nb.VRF, addr: f.nb.Addr, why: "authbgpd: session without TCP-MD5"}}
	case f.rekey:
		set.step = stepRekey
		return []action{set}
	}
	return nil
}

// owner returns the record of the keyed peer that owns connections with a
// (nil when none, or it has no key on the sockets).
func (p *pass) owner(a neighbor) (string, *peer) {
	id := p.peerFor(a)
	st := p.m.peers[id]
	if st == nil || st.secret == nil {
		return id, nil
	}
	return id, st
}

// observedConn judges one observed connection.
func (p *pass) observedConn(c tcpsock.SocketKeys) connFacts {
	m := p.m
	nb := p.connNeighbor(c)
	a := nb.Addr
	id, st := p.owner(nb)
	if st == nil || p.tookOut(nb, st) {
		return connFacts{} // none of ours, or a session this pass took out of GoBGP
	}
	f := connFacts{nb: nb, local: c.Local, remote: c.Remote, key: connKey(a, st)}
	k, ok := c.KeyFor(a)
	switch {
	case !ok:
		st.obs.ok = false
		m.drift(st, fmt.Sprintf("connection %s-%s carries no TCP-MD5 key: ending it (fail closed)", c.Local, c.Remote))
		f.unsigned = true
	case !st.secret.Equal(k.Secret):
		if p.keepsOldKey(a, st, k.Secret) {
			return connFacts{} // for now (rekeyhold.go)
		}
		if old := p.prev[id]; (old == nil || !old.Equal(k.Secret)) && !st.prevSecret.Equal(k.Secret) {
			st.obs.ok = false
			m.drift(st, fmt.Sprintf("connection %s-%s carries another key: re-keying it in place", c.Local, c.Remote))
		}
		f.rekey = true
	}
	return f
}

// recordedConn judges one established session's connection as the record
// knows it (the kernel hides keys).
func (p *pass) recordedConn(a neighbor, s *session) connFacts {
	id, st := p.owner(a)
	if st == nil {
		return connFacts{}
	}
	if s.key == nil {
		// It came up with the key the listeners carried: the one before
		// this pass's change, if any.
		s.key = append(keys.Secret(nil), st.secret...)
		if old := p.prev[id]; old != nil {
			s.key = append(s.key[:0], old...)
		}
	}
	if !s.key.Equal(st.secret) && !p.keepsOldKey(a.Addr, st, s.key) {
		return connFacts{nb: a, local: s.local, remote: s.remote, key: connKey(a.Addr, st), rekey: true}
	}
	return connFacts{}
}

// actConn carries out one action of the connections and records its
// outcome. A re-keyed connection that carries a's established session
// marks the session re-keyed (see staleByRefusal).
func (p *pass) actConn(a action) {
	m := p.m
	err := p.act(a)
	nb := nbr(a.vrf, a.addr)
	switch {
	case a.kind == actResetSession:
		if err != nil {
			m.log.WithError(err).WithField("peer", a.addr).Debug("reconcile: reset of the unsigned session")
		}
		return
	case a.step == stepUnsigned:
		if err != nil {
			m.log.WithError(err).WithField("peer", a.addr).Warn("reconcile: cannot key the unsigned connection")
		}
		return
	}
	if err != nil {
		if s := m.sess[nb]; errors.Is(err, tcpsock.ErrSocketNotFound) && (s == nil || s.state != "established" || s.remote != a.remote) {
			// The session ended meanwhile (the peer resets it when its
			// own key changes): nothing left to re-key.
			m.log.WithError(err).WithField("peer", a.addr).Debug("the session's connection closed before it was re-keyed")
			return
		}
		m.log.WithError(err).WithField("peer", a.addr).Warn("could not re-key the session's connection in place; it will recover on reconnect")
		return
	}
	s := m.sess[nb]
	if s == nil || s.state != "established" || s.local != a.local || s.remote != a.remote {
		return
	}
	s.key.Wipe()
	s.key = append(keys.Secret(nil), a.key.Secret...)
	p.noteRekeyed(nb, s)
	m.log.WithFields(logrus.Fields{"peer": a.addr, "connection": a.remote}).Info("established session re-keyed in place")
}

// strays deletes listener keys that no configured peer owns (left by
// GoBGP or by a removed peer): planStrays.
func (p *pass) strays() {
	m := p.m
	if !p.seen || m.port == 0 {
		return
	}
	wanted := map[netip.Prefix]bool{}
	for _, st := range m.peers {
		if st.secret != nil {
			wanted[mdKey(st.cfg, st.l3, st.secret).Prefix] = true
		}
	}
	for _, a := range planStrays(p.listeners(), wanted, p.deleted) {
		m.log.WithFields(logrus.Fields{"listener": a.local, "scope": a.key.Prefix}).Warn("reconcile: listener carries a TCP-MD5 key no configured peer owns: deleting it")
		if err := p.act(a); err != nil {
			m.log.WithError(err).WithField("scope", a.key.Prefix).Error("reconcile: cannot delete stray listener key")
		}
		p.deleted[a.key.Prefix] = true
	}
}

// planStrays is the plan of strays (pure): the TCP-MD5 keys on the
// observed listeners whose scope no record wants and this pass did not
// delete already, each scope once (action.local: the listener it was seen
// on).
func planStrays(listeners []tcpsock.SocketKeys, wanted, deleted map[netip.Prefix]bool) []action {
	var out []action
	done := map[netip.Prefix]bool{}
	for _, l := range listeners {
		for _, k := range l.Keys {
			if wanted[k.Prefix] || deleted[k.Prefix] || done[k.Prefix] {
				continue
			}
			done[k.Prefix] = true
			out = append(out, action{kind: actDeleteListenerKey, local: l.Local, key: md5auth.Key{Prefix: k.Prefix, Secret: k.Secret}})
		}
	}
	return out
}

// tell tells the observers what the pass found: each keyed peer's key as
// observed, and (the snapshot) the keys in use and the sessions.
func (p *pass) tell() {
	m := p.m
	p.tellAO()
	for _, st := range m.sorted() {
		if st.cfg.Auth().Mode != config.AuthNone {
			m.obs.KeyInstalled(st.cfg.ID(), st.observedInstalled())
		}
	}
	m.publish(true)
}

// connKey is st's TCP-MD5 key for its connection with a (a link-local a
// loses its zone: the socket is the interface's).
func connKey(a netip.Addr, st *peer) md5auth.Key {
	k := md5auth.AddrKey(a.WithZone(""), st.secret)
	k.IfIndex = st.l3
	return k
}
