package peers

import (
	"net/netip"
	"slices"
	"strings"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/sirupsen/logrus"
	"google.golang.org/protobuf/proto"

	"github.com/authbgp/authbgpd/config"
)

func protoEqual(a, b proto.Message) bool { return proto.Equal(a, b) }

// gobgp makes GoBGP hold exactly the desired peers and ranges, with the
// admin state decided: a held-down static peer is admin down, a held-down
// range is not in GoBGP at all. GoBGP holds no password: a key change never
// touches GoBGP (the dial hook keys what it dials). It observes each peer's
// neighbor (observeNeighbor), plans the stage (planGoBGP, pure) and carries
// the plan out, recording each outcome (actNeighbor).
func (p *pass) gobgp() {
	facts := make([]gobgpFacts, 0, len(p.d.Peers))
	for _, id := range p.d.IDs() {
		if st := p.m.peers[id]; st != nil {
			facts = append(facts, p.observeNeighbor(p.d.Peers[id], st))
		}
	}
	for _, a := range planGoBGP(facts) {
		p.actNeighbor(a)
	}
}

// gobgpFacts is what the GoBGP stage's planner knows of one desired peer:
// its record and what the pass observed of its neighbor or range.
type gobgpFacts struct {
	w Want
	// inGoBGP and heldDown are the record's (peer), once it took in what
	// the pass observed.
	inGoBGP, heldDown bool
	// known (static): GoBGP has a neighbor at the address, so adding it
	// is a re-add; force: GoBGP's neighbor must be replaced (it enabled a
	// held-down peer, or holds a password).
	known, force bool
	// lost (range): GoBGP lost our range: it is dropped and added back.
	lost bool
	// restart (static) says why its Idle neighbor is restarted now
	// (restartNow; "" none); stuck: it is stuck in OpenSent, with refusals
	// of the peer's dials refused there (stuckOpenSent).
	restart  string
	stuck    bool
	refusals int
	// limits (static): GoBGP's neighbor has another prefix limit than
	// the config's (limitsDiffer): updated in place.
	limits bool
}

// actStep is why a stage takes an action, when its kind does not say it
// all: what its outcome records and logs (actNeighbor, actConn).
type actStep uint8

const (
	stepAdd      actStep = iota + 1 // not in GoBGP: added (re-added over a neighbor GoBGP has)
	stepAdmin                       // its admin state changes, or GoBGP's neighbor is replaced; a held-down range goes
	stepRestart                     // its Idle neighbor is restarted (action.why says why)
	stepStuck                       // its neighbor stuck in OpenSent is restarted
	stepRemove                      // taken out of GoBGP (removed, changed, or a range GoBGP lost)
	stepUnsigned                    // a connection without a key is keyed (and its session ended)
	stepRekey                       // a connection is re-keyed in place
	stepLimits                      // its neighbor's prefix limit is updated in place
)

// planGoBGP is the GoBGP stage's plan (pure): for each desired peer, in
// ID order, the actions that bring GoBGP's neighbor or range in line.
func planGoBGP(facts []gobgpFacts) []action {
	var out []action
	for _, f := range facts {
		if f.w.Cfg.IsDynamic() {
			out = append(out, planRange(f)...)
		} else {
			out = append(out, planStatic(f)...)
		}
	}
	return out
}

// planStatic is one static peer's part of planGoBGP.
func planStatic(f gobgpFacts) []action {
	w := f.w
	re := action{kind: actReaddNeighbor, peer: w.Cfg, adminDown: w.HeldDown}
	switch {
	case w.Unresolved(): // not in GoBGP until its address is learnt (removals took it out)
		return nil
	case !f.inGoBGP:
		re.step = stepAdd
		if !f.known {
			re.kind = actAddNeighbor
		}
	case f.force || f.heldDown != w.HeldDown:
		re.step = stepAdmin
	case f.restart != "":
		re.step, re.why = stepRestart, f.restart
	case f.stuck:
		re.step, re.refusals = stepStuck, f.refusals
	case f.limits:
		re.kind, re.step = actUpdateLimits, stepLimits
	default:
		return nil
	}
	return []action{re}
}

// planRange is one dynamic range's part of planGoBGP.
func planRange(f gobgpFacts) []action {
	w := f.w
	var out []action
	in := f.inGoBGP
	if f.lost {
		out = append(out, removeAction(w.Cfg, stepRemove))
		in = false
	}
	switch {
	case w.HeldDown && in:
		out = append(out, removeAction(w.Cfg, stepAdmin))
	case w.HeldDown:
	case !in:
		out = append(out, action{kind: actAddRange, peer: w.Cfg, step: stepAdd})
	}
	return out
}

// removeAction takes c's neighbor or range out of GoBGP (the range's
// sessions are listed when it is carried out: actNeighbor).
func removeAction(c *config.Peer, step actStep) action {
	if c.IsDynamic() {
		return action{kind: actDropRange, peer: c, step: step}
	}
	return action{kind: actDeleteNeighbor, peer: c, vrf: c.VRF, addr: c.Address, step: step}
}

// observeNeighbor compares GoBGP's view (a full pass) of w's neighbor or
// range with the record st, notes the drift, and returns the planner's
// facts. The record takes in what needs no action: a neighbor GoBGP lost,
// a range of ours from an earlier pass whose record was lost, the admin
// state of a peer that stays as it is.
func (p *pass) observeNeighbor(w Want, st *peer) gobgpFacts {
	if w.Cfg.IsDynamic() {
		return p.observeRange(w, st)
	}
	if w.Unresolved() {
		st.heldDown = false
		return gobgpFacts{w: w}
	}
	f := gobgpFacts{w: w}
	f.force, f.known = p.observeStatic(w, st)
	f.inGoBGP, f.heldDown = st.inGoBGP, st.heldDown
	f.restart = p.restartNow(w, st)
	if f.inGoBGP && !f.force && f.heldDown == w.HeldDown && f.restart == "" {
		// Asked only when nothing else is planned: it forgets the
		// refusals it finds stuck.
		f.refusals, f.stuck = p.stuckOpenSent(w)
	}
	f.limits = f.inGoBGP && limitsDiffer(st.shape, w.Cfg)
	return f
}

// observeRange is observeNeighbor for a dynamic range.
func (p *pass) observeRange(w Want, st *peer) gobgpFacts {
	m := p.m
	f := gobgpFacts{w: w}
	if p.full {
		g := groupName(w.Cfg.VRF, w.Cfg.Prefix)
		pfx, ok := p.gv.dynamic[g]
		switch {
		case st.inGoBGP && !w.HeldDown && (!ok || pfx != w.Cfg.Prefix.Masked().String()):
			m.drift(st, "GoBGP lost the dynamic range: adding it back")
			f.lost = true
		case !st.inGoBGP && ok && !p.dropped[g]:
			if w.HeldDown {
				m.drift(st, "GoBGP accepts sessions from the held-down range: removing it")
			}
			st.inGoBGP = true // ours, from an earlier pass whose record was lost: drop or keep below
		}
	}
	f.inGoBGP, f.heldDown = st.inGoBGP, st.heldDown
	if w.HeldDown || (st.inGoBGP && !f.lost) { // no add planned: the record is the decision
		st.heldDown = w.HeldDown
		if !w.HeldDown && st.shape == nil {
			st.shape = w.Cfg
		}
	}
	return f
}

// actNeighbor carries out one action of the GoBGP stage (or a removal)
// and records its outcome in the peer's record, logging it.
func (p *pass) actNeighbor(a action) {
	m := p.m
	id := a.peer.ID()
	st := m.peers[id]
	log := m.log.WithField("peer", id)
	switch a.step {
	case stepRestart:
		st.restarted, st.collided = true, time.Time{}
		m.waitForPeer(nbrOf(a.peer), restartDialDefer)
	case stepStuck:
		fields := logrus.Fields{"refused_dials": a.refusals}
		if s := m.sess[nbrOf(a.peer)]; s != nil {
			fields["in_opensent"] = m.now().Sub(s.since).Round(time.Second).String()
		}
		log = log.WithFields(fields)
		m.waitForPeer(nbrOf(a.peer), restartDialDefer)
	}
	switch a.kind {
	case actDropRange:
		p.dropped[groupName(a.peer.VRF, a.peer.Prefix)] = true
		a.addrs = p.rangeTable(a.peer)
	case actDeleteNeighbor:
		p.gone[nbrOf(a.peer)] = true
	}
	err := p.act(a)
	switch a.kind {
	case actDropRange, actDeleteNeighbor:
		if err != nil {
			log.WithError(err).Error("cannot remove the peer from GoBGP")
		}
		st.inGoBGP, st.shape = false, nil
		if a.step == stepAdmin {
			log.WithError(p.d.Peers[id].Err).Warn("dynamic range held down: its key is not installed (fail closed)")
		}
		return
	case actAddRange:
		if err != nil {
			log.WithError(err).Error("cannot add the dynamic range to GoBGP")
			return
		}
		st.inGoBGP, st.shape, st.heldDown = true, a.peer, false
		log.WithFields(logrus.Fields{"prefix": id, "asn": a.peer.ASN, "auth": a.peer.Auth().Mode}).Info("dynamic neighbor range added")
		return
	}
	switch a.step {
	case stepAdd:
		if err != nil {
			log.WithError(err).Error("cannot add the peer to GoBGP")
			return
		}
		log.WithFields(logrus.Fields{"asn": a.peer.ASN, "auth": a.peer.Auth().Mode, "held_down": a.adminDown}).Info("peer added")
	case stepAdmin:
		if err != nil {
			log.WithError(err).Error("cannot change the peer's admin state in GoBGP")
			return
		}
		switch {
		case a.adminDown:
			log.WithError(p.d.Peers[id].Err).Warn("peer held down: its key is not installed (fail closed)")
		case st.heldDown:
			log.Info("key installed: peer no longer held down")
		}
	case stepLimits:
		if err != nil {
			log.WithError(err).Error("cannot update the peer's prefix limit in GoBGP")
			return
		}
		log.WithFields(logrus.Fields{"max_prefixes": a.peer.MaxPrefixes, "max_prefixes_warning": a.peer.MaxPrefixesWarning}).Info("prefix limit updated in place (no session reset)")
	case stepRestart, stepStuck:
		if err != nil {
			log.WithError(err).Error("cannot restart the peer's neighbor in GoBGP")
			return
		}
		if a.step == stepRestart {
			log.Info(a.why + ": neighbor restarted, not left in GoBGP's 5 s idle hold")
		} else {
			log.Warn("session stuck in OpenSent: the peer dialed again, so it holds no connection of ours; neighbor restarted to take its next dial")
		}
	}
	st.inGoBGP, st.shape, st.heldDown = true, a.peer, a.adminDown
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
	return p.m.restartDue(st, p.m.sess[nbrOf(w.Cfg)])
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
	gp := p.gv.peers[nbrOf(w.Cfg)]
	switch {
	case gp == nil:
		if st.inGoBGP {
			m.drift(st, "GoBGP lost the peer: adding it back")
			st.inGoBGP = false
		}
		return false, false
	case !st.inGoBGP:
		return false, !p.gone[nbrOf(w.Cfg)]
	case st.heldDown && gp.GetState().GetAdminState() != api.PeerState_DOWN && !gp.GetConf().GetAdminDown():
		m.drift(st, "held-down peer is enabled in GoBGP: holding it down again")
		return true, true
	case len(p.gv.passwords[nbrOf(w.Cfg)]) > 0:
		// We never give GoBGP a password: one there would make GoBGP key
		// its dials and listeners behind the reconciler's back.
		m.drift(st, "GoBGP holds a password for the peer: replacing the neighbor with one without")
		return true, true
	}
	return false, true
}

// unmanaged deletes (a full pass) GoBGP's neighbors and ranges that no
// config names (planUnmanaged), failing closed.
func (p *pass) unmanaged() {
	if !p.full {
		return
	}
	m := p.m
	for _, a := range planUnmanaged(p.d, p.gv, p.isStatic, p.gone, p.dropped) {
		if a.kind == actDeleteNeighbor {
			m.log.WithField("peer", a.addr).Warn("reconcile: GoBGP runs a neighbor the config does not name: deleting it")
			if err := p.act(a); err != nil {
				m.log.WithError(err).WithField("peer", a.addr).Error("reconcile: cannot delete unmanaged neighbor")
			}
			continue
		}
		m.log.WithFields(logrus.Fields{"prefix": a.prefix, "group": a.group}).Warn("reconcile: GoBGP accepts a dynamic range the config does not name: deleting it")
		if err := p.act(a); err != nil {
			m.log.WithError(err).WithField("prefix", a.prefix).Error("reconcile: cannot delete unmanaged dynamic range")
		}
	}
}

// planUnmanaged is the plan of unmanaged (pure): GoBGP's neighbors (gv,
// a full pass's view) that neither are static peers (static) nor came
// through a desired range, and its ranges that no desired range is, in
// address and prefix order. Dynamic sessions of a configured range are
// fine; anything else did not come from us (the API refuses such
// requests). What this pass took out of GoBGP already (gone, dropped) is
// left alone.
func planUnmanaged(d Desired, gv gobgpView, static func(neighbor) bool, gone map[neighbor]bool, dropped map[string]bool) []action {
	groups := map[string]netip.Prefix{}
	for _, w := range d.Peers {
		if w.Cfg.IsDynamic() {
			groups[groupName(w.Cfg.VRF, w.Cfg.Prefix)] = w.Cfg.Prefix
		}
	}
	var nbrs, ranges []action
	for a, gp := range gv.peers {
		if static(a) || gone[a] || dropped[gp.GetConf().GetPeerGroup()] {
			continue
		}
		if pfx, ok := groups[gp.GetConf().GetPeerGroup()]; ok && pfx.Contains(a.Addr) {
			continue
		}
		nbrs = append(nbrs, action{kind: actDeleteNeighbor, vrf: a.VRF, addr: a.Addr})
	}
	for g, pfx := range gv.dynamic {
		if q, ok := groups[g]; (ok && q.Masked().String() == pfx) || dropped[g] {
			continue
		}
		ranges = append(ranges, action{kind: actDeleteRange, prefix: pfx, group: g})
	}
	slices.SortFunc(nbrs, func(x, y action) int {
		if c := x.addr.Compare(y.addr); c != 0 {
			return c
		}
		return strings.Compare(x.vrf, y.vrf)
	})
	slices.SortFunc(ranges, func(x, y action) int { return strings.Compare(x.prefix, y.prefix) })
	return append(nbrs, ranges...)
}
