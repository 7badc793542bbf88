package peers

import (
	"fmt"
	"net/netip"

	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/aocount"
	"github.com/authbgp/authbgpd/tcpsock"
)

// TCP-AO peers in a pass. Their MKTs (every key of the keychain) go on the
// listeners like a TCP-MD5 key, before GoBGP learns of the peer; on each
// established connection the pass keeps the MKTs and the RNextKeyID (the
// active key's RecvID, which makes the peer switch to it — our current key
// follows what the peer asks for). GoBGP never gets a password for them;
// what it dials to them gets the MKTs before connect (dial.go).

// aoKeyChanged logs and counts a TCP-AO peer's switch to another active key
// (a schedule's switch time or a reload): the connections' RNextKeyID
// follows in connsAO.
func aoKeyChanged(m *Manager, log *logrus.Entry, id string, w Want) {
	log.WithFields(logrus.Fields{"key_id": w.Key.KeyID, "send_id": w.Key.AO.Current, "recv_id": w.Key.AO.RNext}).Info("TCP-AO key changed: asking the peer to switch (RNextKeyID)")
	m.obs.KeyChanged(id, w.Key.KeyID)
}

// sameMKTs compares the keys of two sets (not the current key or RNext).
func sameMKTs(a, b tcpsock.AOSet) bool {
	a.Current, a.RNext, b.Current, b.RNext = 0, 0, 0, 0
	a.AcceptICMPs, b.AcceptICMPs = false, false
	return sameAOSet(a, b)
}

// aoListenerProblems says what is wrong with set's MKTs on the listeners
// (the observed listeners on the BGP port, their TCP-AO keys in aoObs) of
// its family ("" when each carries exactly them).
func aoListenerProblems(set tcpsock.AOSet, listeners []tcpsock.SocketKeys, aoObs []tcpsock.AOSocket) string {
	v4 := set.Prefix.Addr().Is4()
	for _, l := range listeners {
		if (l.Family == afInet) != v4 {
			continue
		}
		var have []tcpsock.ObservedAOKey
		for _, s := range aoObs {
			if s.Listening && s.Local == l.Local {
				have = s.KeysForScope(set.Prefix, set.L3Index())
			}
		}
		if len(have) != len(set.Keys) {
			return fmt.Sprintf("listener %s has %d TCP-AO keys for %s, want %d", l.Local, len(have), set.Prefix, len(set.Keys))
		}
		for _, k := range set.Keys {
			if !observedHas(have, k) {
				return fmt.Sprintf("listener %s lacks TCP-AO key %d/%d for %s", l.Local, k.SendID, k.RecvID, set.Prefix)
			}
		}
	}
	return ""
}

func observedHas(have []tcpsock.ObservedAOKey, k tcpsock.AOKey) bool {
	for _, o := range have {
		if o.Matches(k) {
			return true
		}
	}
	return false
}

// connsAO keeps every established session of a TCP-AO peer signed: a
// connection without TCP-AO keys is ended (fail closed), one lacking a key
// of the chain or asking for another RNextKeyID is brought in line. Each
// session is judged (observeConnAO), its actions planned (planConnAO,
// pure), and then carried out and recorded (actConnAO).
func (p *pass) connsAO() {
	var facts []aoConnFacts
	p.eachEstablished(func(a neighbor, s *session) { facts = append(facts, p.observeConnAO(a, s)) })
	for _, f := range facts {
		for _, a := range planConnAO(f) {
			p.actConnAO(a)
		}
	}
}

// aoConnFacts is what a pass judged of one established session's
// connection with addr of a TCP-AO peer: set is what it must carry (its
// current key following the peer's RNextKeyID); unsigned: it carries no
// TCP-AO key; differs: it lacks a key of set, or asks for another
// RNextKeyID or ICMP setting.
type aoConnFacts struct {
	nb                neighbor
	local, remote     netip.AddrPort
	set               tcpsock.AOSet
	unsigned, differs bool
}

// planConnAO is one TCP-AO connection's actions (pure).
func planConnAO(f aoConnFacts) []action {
	switch {
	case f.unsigned:
		return []action{{kind: actResetSession, vrf: f.nb.VRF, addr: f.nb.Addr, why: "authbgpd: session without TCP-AO"}}
	case f.differs:
		return []action{{kind: actSetConnAO, vrf: f.nb.VRF, addr: f.nb.Addr, local: f.local, remote: f.remote, ao: f.set}}
	}
	return nil
}

// observeConnAO judges the established session s with a, and records the
// kernel's counters of its connection (aoSeenConns).
func (p *pass) observeConnAO(a neighbor, s *session) aoConnFacts {
	m := p.m
	st := m.peers[p.peerFor(a)]
	if st == nil || len(st.ao.Keys) == 0 || p.tookOut(a, st) {
		return aoConnFacts{}
	}
	f := aoConnFacts{nb: a, local: s.local, remote: s.remote, set: st.ao}
	f.set.Current = -1 // our current key follows the peer's RNextKeyID
	set := f.set
	if !p.aoSeen {
		f.differs = s.aoRNext != set.RNext || s.aoICMPs != set.AcceptICMPs
		return f
	}
	c, ok := p.aoConn(s)
	if ok && c.HasInfo {
		if p.aoSeenConns == nil {
			p.aoSeenConns = map[string][]tcpsock.AOSocket{}
		}
		p.aoSeenConns[st.cfg.ID()] = append(p.aoSeenConns[st.cfg.ID()], c)
	}
	switch {
	case !ok && !p.lookSaw(s):
		// A connection newer than the look, or closed before it
		// (GoBGP's event not yet recorded): nothing to judge. The
		// event asked for the pass that looks at it.
	case !ok:
		st.obs.ok = false
		m.drift(st, fmt.Sprintf("connection %s-%s carries no TCP-AO key: ending it (fail closed)", s.local, s.remote))
		f.unsigned = true
	case len(c.KeysFor(set.Prefix)) != len(set.Keys) ||
		(c.HasInfo && (int(c.Info.RNext) != set.RNext || c.Info.AcceptICMPs != set.AcceptICMPs)):
		f.differs = true
	}
	return f
}

// actConnAO carries out one action of connsAO and records its outcome: the
// session's connection, if it is still the one, carries set's RNextKeyID.
func (p *pass) actConnAO(a action) {
	err := p.act(a)
	log := p.m.log.WithField("peer", nbr(a.vrf, a.addr))
	if a.kind == actResetSession {
		if err != nil {
			log.WithError(err).Debug("reconcile: reset of the unsigned session")
		}
		return
	}
	log = p.m.log.WithFields(logrus.Fields{"peer": nbr(a.vrf, a.addr), "connection": a.remote})
	if err != nil {
		log.WithError(err).Warn("could not set the session's TCP-AO keys in place")
		return
	}
	s := p.m.sess[nbr(a.vrf, a.addr)]
	if s == nil || s.local != a.local || s.remote != a.remote {
		return // another session since the action began: the next pass looks at it
	}
	s.aoRNext, s.aoICMPs = a.ao.RNext, a.ao.AcceptICMPs
	log.WithFields(logrus.Fields{"rnext_key_id": a.ao.RNext, "accept_icmps": a.ao.AcceptICMPs}).Info("established session's TCP-AO keys set in place (RNextKeyID)")
}

// tookOut reports whether this pass took a's session out of GoBGP (its
// neighbor or range deleted, e.g. to be re-added on TCP-AO after TCP-MD5).
// The session's record and the sockets observed at the start of the pass
// still show the connection GoBGP has closed since; "ending" it would reset
// the neighbor just added instead, and GoBGP then holds that one Idle for
// IdleHoldAfterReset, closing every connection of the peer.
func (p *pass) tookOut(a neighbor, st *peer) bool {
	return p.gone[a] || (st.cfg.IsDynamic() && p.dropped[groupName(st.cfg.VRF, st.cfg.Prefix)])
}

// lookSaw reports whether the pass's look saw session s's connection:
// the session came up before the look began and, when the look listed the
// sockets, its connection is among them. A connection the look did not
// see cannot be judged unsigned from it.
func (p *pass) lookSaw(s *session) bool {
	if s.since.After(p.lookAt) {
		return false
	}
	if !p.looked {
		return true
	}
	for _, c := range p.obs.Sockets {
		if !c.Listening && c.Local == s.local && c.Remote == s.remote {
			return true
		}
	}
	return false
}

// aoConn finds the observed TCP-AO state of session s's connection.
func (p *pass) aoConn(s *session) (tcpsock.AOSocket, bool) {
	for _, c := range p.aoObs {
		if !c.Listening && c.Local == s.local && c.Remote == s.remote {
			return c, true
		}
	}
	return tcpsock.AOSocket{}, false
}

// straysAO deletes listener MKTs of scopes no TCP-AO peer owns
// (planStraysAO).
func (p *pass) straysAO() {
	m := p.m
	if !p.aoSeen || m.port == 0 {
		return
	}
	wanted := map[netip.Prefix]bool{}
	for _, st := range m.peers {
		if len(st.ao.Keys) > 0 {
			wanted[st.ao.Prefix] = true
		}
	}
	for _, a := range planStraysAO(p.aoObs, m.port, wanted, p.deleted) {
		m.log.WithFields(logrus.Fields{"listener": a.local, "scope": a.ao.Prefix}).Warn("reconcile: listener carries TCP-AO keys no configured peer owns: deleting them")
		if err := p.act(a); err != nil {
			m.log.WithError(err).WithField("scope", a.ao.Prefix).Error("reconcile: cannot delete stray TCP-AO keys")
		}
	}
}

// planStraysAO is the plan of straysAO (pure): the MKTs on the observed
// listeners on port whose scope no record wants and this pass did not
// delete already, each scope once (action.local: the listener it was seen
// on).
func planStraysAO(obs []tcpsock.AOSocket, port uint16, wanted, deleted map[netip.Prefix]bool) []action {
	var out []action
	done := map[netip.Prefix]bool{}
	for _, s := range obs {
		if !s.Listening || s.Local.Port() != port {
			continue
		}
		for _, k := range s.Keys {
			if wanted[k.Prefix] || deleted[k.Prefix] || done[k.Prefix] {
				continue
			}
			done[k.Prefix] = true
			out = append(out, action{kind: actDeleteListenerAO, local: s.Local, ao: tcpsock.AOSet{Prefix: k.Prefix}})
		}
	}
	return out
}

// tellAO records, for every TCP-AO peer, the kernel's counters and current
// key of its connections, and tells the observers how much they grew.
func (p *pass) tellAO() {
	m := p.m
	if !p.aoSeen {
		return
	}
	seen := map[[2]netip.AddrPort]bool{}
	for _, st := range m.sorted() {
		if len(st.ao.Keys) == 0 {
			continue
		}
		id := st.cfg.ID()
		var sum tcpsock.AOInfo
		var d aocount.Counts
		st.aoKernel, st.aoCurrent = nil, -1
		for _, c := range p.aoSeenConns[id] {
			k := [2]netip.AddrPort{c.Local, c.Remote}
			seen[k] = true
			sum.Counts = sum.Counts.Add(c.Info.Counts)
			d = d.Add(c.Info.Counts.Delta(m.aoLast[k].Counts))
			m.aoLast[k] = c.Info
			st.aoCurrent = int(c.Info.Current)
		}
		if len(p.aoSeenConns[id]) > 0 {
			st.aoKernel = &sum
		}
		m.obs.AOKernel(id, d)
	}
	for k := range m.aoLast {
		if !seen[k] {
			delete(m.aoLast, k)
		}
	}
}
