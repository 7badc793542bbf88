package peers

import (
	"net/netip"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/sirupsen/logrus"
	"google.golang.org/protobuf/proto"
)

func protoEqual(a, b proto.Message) bool { return proto.Equal(a, b) }

// gobgp makes GoBGP hold exactly the desired peers and ranges, with the
// admin state decided: a held-down static peer is admin down, a held-down
// range is not in GoBGP at all. GoBGP holds no password: a key change never
// touches GoBGP (the dial hook keys what it dials).
func (p *pass) gobgp() {
	for _, id := range p.d.IDs() {
		w := p.d.Peers[id]
		st := p.m.peers[id]
		if st == nil {
			continue
		}
		if w.Cfg.IsDynamic() {
			p.gobgpRange(w, st)
		} else {
			p.gobgpStatic(w, st)
		}
	}
}

// gobgpStatic converges one static peer's GoBGP neighbor.
func (p *pass) gobgpStatic(w Want, st *peer) {
	m := p.m
	log := m.log.WithField("peer", w.Cfg.ID())
	if w.Unresolved() {
		st.heldDown = false // not in GoBGP until its address is learnt (removals took it out)
		return
	}
	force, known := p.observeStatic(w, st)
	why := p.restartNow(w, st) // "": no restart due
	switch {
	case !st.inGoBGP:
		k := actAddNeighbor
		if known {
			k = actReaddNeighbor
		}
		if err := p.act(action{kind: k, peer: w.Cfg, adminDown: w.HeldDown}); err != nil {
			log.WithError(err).Error("cannot add the peer to GoBGP")
			return
		}
		log.WithFields(logrus.Fields{"asn": w.Cfg.ASN, "auth": w.Cfg.Auth().Mode, "held_down": w.HeldDown}).Info("peer added")
	case force || st.heldDown != w.HeldDown:
		if err := p.act(action{kind: actReaddNeighbor, peer: w.Cfg, adminDown: w.HeldDown}); err != nil {
			log.WithError(err).Error("cannot change the peer's admin state in GoBGP")
			return
		}
		switch {
		case w.HeldDown:
			log.WithError(w.Err).Warn("peer held down: its key is not installed (fail closed)")
		case st.heldDown:
			log.Info("key installed: peer no longer held down")
		}
	case why != "":
		// The peer ended the session and dials again.
		st.restarted, st.collided = true, time.Time{}
		if !p.restartNeighbor(w, log) {
			return
		}
		log.Info(why + ": neighbor restarted, not left in GoBGP's 5 s idle hold")
	default:
		if !p.restartStuck(w) {
			return
		}
	}
	st.inGoBGP, st.shape, st.heldDown = true, w.Cfg, w.HeldDown
}

// restartStuck restarts the static peer's neighbor when it is stuck in
// OpenSent (opensent.go), and reports whether it did.
func (p *pass) restartStuck(w Want) bool {
	n, stuck := p.stuckOpenSent(w)
	if !stuck {
		return false
	}
	m := p.m
	log := m.log.WithFields(logrus.Fields{"peer": w.Cfg.ID(), "refused_dials": n,
		"in_opensent": m.now().Sub(m.sess[w.Cfg.Address].since).Round(time.Second).String()})
	if !p.restartNeighbor(w, log) {
		return false
	}
	log.Warn("session stuck in OpenSent: the peer dialed again, so it holds no connection of ours; neighbor restarted to take its next dial")
	return true
}

// restartNeighbor deletes the static peer's neighbor from GoBGP and adds
// it back: a new neighbor has no idle hold and takes the peer's next dial,
// while ours wait restartDialDefer for it (awaitDial). false: GoBGP
// refused (logged).
func (p *pass) restartNeighbor(w Want, log *logrus.Entry) bool {
	p.m.waitForPeer(w.Cfg.Address, restartDialDefer)
	if err := p.act(action{kind: actReaddNeighbor, peer: w.Cfg}); err != nil {
		log.WithError(err).Error("cannot restart the peer's neighbor in GoBGP")
		return false
	}
	return true
}

// restartNow says why the static peer's neighbor, in GoBGP and Idle (not
// administratively) since its session ended, is to be restarted now, ""
// for not: the session ended around the peer's last key change
// (restartAfterKeyChange; once per key change, which clears restarted), or
// it was lost to a connection collision (collisionLost; once per such
// end), and GoBGP's idle hold still runs.
func (p *pass) restartNow(w Want, st *peer) string {
	if w.HeldDown {
		return ""
	}
	return p.m.restartDue(st, p.m.sess[w.Cfg.Address])
}

// The reasons restartDue gives.
const (
	restartKeyChange = "session ended around a key change"
	restartCollision = "session lost to a connection collision (the peer kept its own connection, which GoBGP had closed)"
)

// restartDue is restartNow's rule without the desired state (the session
// event asks it too, kickRestart): the peer's record st and its session s
// (m.mu held).
func (m *Manager) restartDue(st *peer, s *session) string {
	if st == nil || st.heldDown || s == nil || s.state != "idle" || s.adminDown {
		return ""
	}
	now := m.now()
	switch {
	case !st.collided.IsZero() && st.collided.Equal(s.since) && now.Sub(s.since) < gobgpIdleHold:
		return restartCollision
	case !st.keyChanged.IsZero() && !st.restarted && restartAfterKeyChange(s.since, st.keyChanged, now):
		return restartKeyChange
	}
	return ""
}

// observeStatic compares GoBGP's view (a full pass) of a static peer with
// the record. force: GoBGP's neighbor must be replaced (it enabled a
// held-down peer, or holds a password); known: GoBGP has the neighbor (so
// adding it back is a re-add).
func (p *pass) observeStatic(w Want, st *peer) (force, known bool) {
	if !p.full {
		return false, st.inGoBGP
	}
	m := p.m
	gp := p.gv.peers[w.Cfg.Address]
	switch {
	case gp == nil:
		if st.inGoBGP {
			m.drift(st, "GoBGP lost the peer: adding it back")
			st.inGoBGP = false
		}
		return false, false
	case !st.inGoBGP:
		return false, !p.gone[w.Cfg.Address]
	case st.heldDown && gp.GetState().GetAdminState() != api.PeerState_DOWN && !gp.GetConf().GetAdminDown():
		m.drift(st, "held-down peer is enabled in GoBGP: holding it down again")
		return true, true
	case len(p.gv.passwords[w.Cfg.Address]) > 0:
		// We never give GoBGP a password: one there would make GoBGP key
		// its dials and listeners behind the reconciler's back.
		m.drift(st, "GoBGP holds a password for the peer: replacing the neighbor with one without")
		return true, true
	}
	return false, true
}

// gobgpRange converges one dynamic range.
func (p *pass) gobgpRange(w Want, st *peer) {
	m := p.m
	log := m.log.WithField("peer", w.Cfg.ID())
	if p.full {
		g, ok := p.gv.dynamic[w.Cfg.Prefix.Masked().String()]
		switch {
		case st.inGoBGP && !w.HeldDown && (!ok || g != groupName(w.Cfg.Prefix)):
			m.drift(st, "GoBGP lost the dynamic range: adding it back")
			p.removeFromGoBGP(st)
		case !st.inGoBGP && ok && !p.dropped[groupName(w.Cfg.Prefix)]:
			if w.HeldDown {
				m.drift(st, "GoBGP accepts sessions from the held-down range: removing it")
			}
			st.inGoBGP = true // ours, from an earlier pass whose record was lost: drop or keep below
		}
	}
	switch {
	case w.HeldDown && st.inGoBGP:
		p.removeFromGoBGP(st)
		log.WithError(w.Err).Warn("dynamic range held down: its key is not installed (fail closed)")
	case w.HeldDown:
	case !st.inGoBGP:
		if err := p.act(action{kind: actAddRange, peer: w.Cfg}); err != nil {
			log.WithError(err).Error("cannot add the dynamic range to GoBGP")
			return
		}
		st.inGoBGP, st.shape = true, w.Cfg
		log.WithFields(logrus.Fields{"prefix": w.Cfg.ID(), "asn": w.Cfg.ASN, "auth": w.Cfg.Auth().Mode}).Info("dynamic neighbor range added")
	default:
		if st.shape == nil {
			st.shape = w.Cfg
		}
	}
	st.heldDown = w.HeldDown
}

// hasSession reports whether a session owned by peer id is Established
// (m.mu held).
func (m *Manager) hasSession(id string) bool {
	for a, s := range m.sess {
		if s.state == "established" && m.peerFor(a) == id {
			return true
		}
	}
	return false
}

// unmanaged deletes (a full pass) GoBGP's neighbors and ranges that no
// config names: dynamic sessions of a configured range are fine; anything
// else did not come from us (the API refuses such requests), so it goes,
// failing closed.
func (p *pass) unmanaged() {
	if !p.full {
		return
	}
	m := p.m
	groups := map[string]netip.Prefix{}
	for _, w := range p.d.Peers {
		if w.Cfg.IsDynamic() {
			groups[groupName(w.Cfg.Prefix)] = w.Cfg.Prefix
		}
	}
	for a, gp := range p.gv.peers {
		if p.isStatic(a) || p.gone[a] || p.dropped[gp.GetConf().GetPeerGroup()] {
			continue
		}
		if pfx, ok := groups[gp.GetConf().GetPeerGroup()]; ok && pfx.Contains(a) {
			continue
		}
		m.log.WithField("peer", a).Warn("reconcile: GoBGP runs a neighbor the config does not name: deleting it")
		if err := p.act(action{kind: actDeleteNeighbor, addr: a}); err != nil {
			m.log.WithError(err).WithField("peer", a).Error("reconcile: cannot delete unmanaged neighbor")
		}
	}
	for pfx, g := range p.gv.dynamic {
		if q, ok := groups[g]; (ok && q.Masked().String() == pfx) || p.dropped[g] {
			continue
		}
		m.log.WithFields(logrus.Fields{"prefix": pfx, "group": g}).Warn("reconcile: GoBGP accepts a dynamic range the config does not name: deleting it")
		if err := p.act(action{kind: actDeleteRange, prefix: pfx, group: g}); err != nil {
			m.log.WithError(err).WithField("prefix", pfx).Error("reconcile: cannot delete unmanaged dynamic range")
		}
	}
}
