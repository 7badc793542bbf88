package peers

import (
	"errors"
	"net/netip"

	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/keys"
	"github.com/authbgp/authbgpd/tcpsock"
)

// The key stage of a pass: the peers' keys on the listeners, TCP-MD5 and
// TCP-AO, before GoBGP learns of a peer. Like the other stages it is
// planned as a value: a pure planner (planRemovals, planPeerKeys) turns
// what is desired, the peer's record as it is (keyRec) and what the pass
// observed on the listeners (keyObs) into actions; the stage carries them
// out one by one (carryKeys: act), and recordKey records each outcome in
// the peer's record. A step that changes the record without touching the
// kernel (a key shared with another interface peer's listener key, a key
// not deleted because GoBGP does not listen, a removed peer's record) is an
// action of kind actRecord, which carryKeys records without acting. The
// planner keeps its copy of the record in step with what recordKey will
// make of it (a peer's steps depend on the ones before: a key dropped for
// another scope is then installed as new); only an install's outcome is
// unknown to it, and an install is a peer's last step.

// keyRec is the key stage's planner's copy of a peer's record: what is on
// the listeners for it, and what the pass observed of it so far.
type keyRec struct {
	id         string // the peer's ID (cfg.ID())
	cfg, shape *config.Peer
	inGoBGP    bool
	secret     keys.Secret // read, never changed, by the planner
	keyID, l3  int
	shared     bool
	installed  bool
	ok         bool  // obs.ok
	err        error // the record's
	hasPrev    bool  // prevSecret != nil
	ao         tcpsock.AOSet
	// held is the install failure holding the peer down (m.held).
	held error
}

// keyRecOf is st's keyRec, the record of peer id (m.mu held).
func (m *Manager) keyRecOf(id string, st *peer) keyRec {
	return keyRec{id: id, cfg: st.cfg, shape: st.shape, inGoBGP: st.inGoBGP, secret: st.secret, keyID: st.keyID, l3: st.l3,
		shared: st.shared, installed: st.installed, ok: st.obs.ok, err: st.err, hasPrev: st.prevSecret != nil,
		ao: st.ao, held: m.held[id]}
}

// keyObs is what the key stage's planner knows of the listeners: GoBGP's
// listening port (0: it does not listen), the TCP-MD5 preflight's verdict,
// and, when the kernel shows them (seen, aoSeen), the listeners' keys.
type keyObs struct {
	port      uint16
	preflight error
	seen      bool
	lkeys     []listenerKeyIndex // the TCP-MD5 keys by prefix (seen)
	// md5By are the desired TCP-MD5 secrets by key prefix (seen): one
	// prefix may be a peer's in two VRFs (listenerProblems).
	md5By     map[netip.Prefix][]keys.Secret
	aoSeen    bool
	listeners []tcpsock.SocketKeys // on the BGP port (aoSeen)
	aoObs     []tcpsock.AOSocket
}

// keyObs is what the pass observed of the listeners, for the key stage.
func (p *pass) keyObs() keyObs {
	o := keyObs{port: p.m.port, preflight: p.in.Preflight, seen: p.seen, aoSeen: p.aoSeen, aoObs: p.aoObs}
	if o.port == 0 {
		return o
	}
	if o.seen && o.preflight == nil {
		o.lkeys = p.listenerKeys()
		o.md5By = map[netip.Prefix][]keys.Secret{}
		for _, w := range p.d.Peers {
			if w.Key.Mech == MechMD5 && w.Key.Usable() {
				pfx := mdKey(w.Cfg, w.IfIndex, nil).Prefix
				o.md5By[pfx] = append(o.md5By[pfx], w.Key.MD5)
			}
		}
	}
	if o.aoSeen {
		o.listeners = p.listeners()
	}
	return o
}

// The steps of the key stage: what recordKey makes of an action's outcome.
const (
	stepDropKey   actStep = iota + 20 // the record's TCP-MD5 key goes (deleted from the listeners: actDeleteListenerKey)
	stepDropAO                        // the record's TCP-AO keys go (actDeleteListenerAO)
	stepInstall                       // TCP-MD5 key on the listeners (actSetListenerKey): adopted, or the peer held down
	stepInstallAO                     // TCP-AO keys on the listeners (actSetListenerAO): likewise
	stepKeep                          // the TCP-MD5 key is in place: its key id, its observation
	stepKeepAO                        // the TCP-AO keys are in place: the active key may switch
	stepDrift                         // the listeners were seen to differ (action.why): the install after it puts the keys back
	stepShare                         // the listeners carry another interface peer's key (shareListener)
	stepNoKey                         // nothing to install: the desired state's error stands
	stepUnkeyed                       // the peer is unkeyed
	stepAlgHeld                       // the kernel refuses an algorithm of the peer's keychain: held down
	stepAdopt                         // the record takes the peer's config (GoBGP's neighbor serves it)
	stepChanged                       // the record takes the changed peer's config (GoBGP's neighbor was taken out)
	stepForget                        // the peer is no longer configured: its record goes
)

// removals takes out of GoBGP the peers the config no longer names, with
// their keys, and the GoBGP objects of peers whose BGP settings changed
// (gobgp re-adds them). A changed peer keeps its listener key throughout.
func (p *pass) removals() {
	m := p.m
	o := p.keyObs()
	var plan []action
	for _, id := range m.sortedIDs() {
		plan = planRemoval(plan, m.keyRecOf(id, m.peers[id]), p.d, o)
	}
	p.carryKeys(plan)
}

// planRemoval appends one record's part of the removals (pure): GoBGP's
// neighbor or range goes first, then the keys of a removed peer (the TCP-MD5
// key; TCP-AO keys no record wants are the stray stage's) or of a peer whose
// far end changed address.
func planRemoval(out []action, r keyRec, d Desired, o keyObs) []action {
	w, ok := d.Peers[r.id]
	if keepsNeighbor(r.shape, w, ok) {
		if r.cfg != w.Cfg {
			out = append(out, action{kind: actRecord, peer: w.Cfg, step: stepAdopt})
		}
		return out
	}
	if r.inGoBGP {
		out = append(out, removeAction(r.cfg, stepRemove))
	}
	if ok {
		if r.cfg.Address != w.Cfg.Address { // an interface peer's far end changed address
			out = planDropKey(out, &r, o)
			out = planDropAO(out, &r, o)
		}
		return append(out, action{kind: actRecord, peer: w.Cfg, step: stepChanged})
	}
	out = planDropKey(out, &r, o)
	return append(out, action{kind: actRecord, peer: r.cfg, step: stepForget})
}

// keys puts every keyed peer's key on the listeners where it is not
// (new, changed, failed before, or seen missing or wrong on a listener);
// a failure holds the peer down (m.held) until an install succeeds.
func (p *pass) keys() {
	m := p.m
	o := p.keyObs()
	by := "install"
	if p.seen {
		by = "kernel"
	}
	var plan []action
	for _, id := range p.d.IDs() {
		w := p.d.Peers[id]
		st := m.record(w)
		st.obs.by = by
		plan = planPeerKeys(plan, w, m.keyRecOf(id, st), o)
	}
	p.carryKeys(plan)
	m.publish(false) // the keys now in use, before connections are re-keyed
}

// carryKeys carries out the key stage's plan in order, each action's
// outcome recorded (recordKey); a neighbor's removal is the GoBGP stage's
// (actNeighbor).
func (p *pass) carryKeys(plan []action) {
	m := p.m
	for _, a := range plan {
		if a.kind == actDeleteNeighbor || a.kind == actDropRange {
			if _, ok := p.d.Peers[a.peer.ID()]; ok {
				m.log.WithField("peer", a.peer.ID()).Info("peer changed: re-adding it")
			}
			p.actNeighbor(a)
			continue
		}
		var err error
		if a.kind != actRecord {
			err = p.act(a)
		}
		p.recordKey(m.peers[a.peer.ID()], a, err)
	}
}

// planPeerKeys appends the actions that put one desired peer's keys where
// w wants them (pure; see keys), from its record r.
func planPeerKeys(out []action, w Want, r keyRec, o keyObs) []action {
	note := func(step actStep) action { return action{kind: actRecord, peer: w.Cfg, step: step} }
	switch {
	case w.Unresolved():
		return append(out, note(stepNoKey)) // removals took its keys off
	case w.HeldDown && errors.Is(w.Err, ErrScope):
		// A key that cannot be scoped is not installed unscoped, and
		// one installed before (a VRF since deleted) goes.
		out = planDropKey(out, &r, o)
		out = planDropAO(out, &r, o)
		return append(out, note(stepNoKey))
	case w.SharesListener != "":
		return append(out, note(stepShare))
	case !w.Key.Keyed():
		out = planDropKey(out, &r, o)
		out = planDropAO(out, &r, o)
		if r.err != nil || r.keyID != -1 || r.installed {
			out = append(out, note(stepUnkeyed))
		}
		return out
	case !w.Key.Usable():
		return append(out, note(stepNoKey))
	case w.HeldDown && errors.Is(w.Err, tcpsock.ErrAOAlgorithm):
		// The kernel refuses an algorithm of its keychain: its MKTs are
		// not installed (the kernel would take some and not the rest), and
		// GoBGP holds it down and its dials are refused (fail closed); the
		// TCP-AO keys its listeners carry from before stay.
		out = planDropKey(out, &r, o)
		return append(out, note(stepAlgHeld))
	case w.Key.Mech == MechTCPAO:
		out = planDropKey(out, &r, o) // one mechanism per peer on a socket
		return planKeysAO(out, w, r, o)
	}
	out = planDropAO(out, &r, o)
	need, drift := needsInstall(w, r, o)
	if !need {
		if r.keyID != w.Key.KeyID || r.ok != r.installed {
			out = append(out, note(stepKeep))
		}
		return out
	}
	if drift != "" {
		out = append(out, action{kind: actRecord, peer: w.Cfg, step: stepDrift, why: drift + ": installing it again"})
	}
	if r.secret != nil && r.l3 != w.IfIndex {
		out = planDropKey(out, &r, o) // another scope: the old key must not stay behind
	}
	return append(out, action{kind: actSetListenerKey, peer: w.Cfg, key: mdKey(w.Cfg, w.IfIndex, w.Key.MD5), step: stepInstall})
}

// needsInstall reports whether w's TCP-MD5 key must be put on the
// listeners, and what the listeners were seen to lack ("" nothing).
func needsInstall(w Want, r keyRec, o keyObs) (bool, string) {
	if r.secret == nil || !r.secret.Equal(w.Key.MD5) || !r.installed || r.held != nil || r.l3 != w.IfIndex {
		return true, ""
	}
	if !o.seen || o.port == 0 || o.preflight != nil {
		return false, ""
	}
	k := mdKey(w.Cfg, r.l3, r.secret)
	if bad := listenerProblems(k, o.md5By[k.Prefix], o.lkeys); bad != "" {
		return true, bad
	}
	return false, ""
}

// planKeysAO is planPeerKeys for a TCP-AO peer: its MKTs go on the
// listeners where they are not.
//
// What is on the listeners is the record's ao (it changes only when an
// install succeeds; a failure holds the peer down in m.held), not installed
// and keyID: those are TCP-MD5's too, and the key stage clears them for a
// TCP-AO peer on every pass (one mechanism per peer). Trusting them
// re-installed every MKT and logged and counted a key change for every
// TCP-AO peer on every pass, and left a rollover uncounted.
func planKeysAO(out []action, w Want, r keyRec, o keyObs) []action {
	if len(r.ao.Keys) > 0 && r.ao.L3Index() != w.Key.AO.L3Index() {
		out = planDropAO(out, &r, o) // another VRF: its keys must not stay on the listeners
	}
	ok := len(r.ao.Keys) > 0 && r.held == nil
	need := !ok || !sameMKTs(r.ao, w.Key.AO)
	drift := ""
	if !need && o.aoSeen && o.port != 0 {
		drift = aoListenerProblems(w.Key.AO, o.listeners, o.aoObs)
		need = drift != ""
	}
	if !need {
		if !r.ok || r.keyID != w.Key.KeyID || !r.installed || r.err != nil || r.ao.Current != w.Key.AO.Current ||
			r.ao.RNext != w.Key.AO.RNext || r.ao.AcceptICMPs != w.Key.AO.AcceptICMPs {
			out = append(out, action{kind: actRecord, peer: w.Cfg, step: stepKeepAO})
		}
		return out
	}
	if drift != "" {
		out = append(out, action{kind: actRecord, peer: w.Cfg, step: stepDrift, why: drift + ": installing them again"})
	}
	return append(out, action{kind: actSetListenerAO, peer: w.Cfg, ao: w.Key.AO, step: stepInstallAO})
}

// planDropKey appends the removal of r's TCP-MD5 key from the listeners,
// and takes it out of r: a key shared with another peer's listener key,
// or one on listeners GoBGP does not have (port 0) or that the preflight
// found unusable, goes from the record alone. The replaced key kept for
// rekeyHold goes too.
func planDropKey(out []action, r *keyRec, o keyObs) []action {
	if r.secret == nil && !r.hasPrev {
		return out
	}
	a := action{kind: actRecord, peer: r.cfg, step: stepDropKey}
	if r.secret != nil && !r.shared && o.port != 0 && o.preflight == nil {
		a.kind, a.key = actDeleteListenerKey, mdKey(r.cfg, r.l3, r.secret)
	}
	r.hasPrev = false
	if r.secret != nil {
		r.secret, r.keyID, r.installed, r.l3, r.shared = nil, -1, false, 0, false
	}
	return append(out, a)
}

// planDropAO appends the removal of r's TCP-AO keys from the listeners,
// and takes them out of r (a set shared with another peer's, or on
// listeners GoBGP does not have, from the record alone).
func planDropAO(out []action, r *keyRec, o keyObs) []action {
	if len(r.ao.Keys) == 0 {
		return out
	}
	a := action{kind: actRecord, peer: r.cfg, step: stepDropAO, ao: tcpsock.AOSet{Prefix: r.ao.Prefix}}
	if !r.shared && o.port != 0 {
		a.kind = actDeleteListenerAO
	}
	r.ao, r.keyID, r.installed, r.shared = tcpsock.AOSet{}, -1, false, false
	return append(out, a)
}

// recordKey records in st the outcome err of the key stage's action a:
// what the key stage changes in a peer's record, it changes here. A failed
// install holds the peer down (m.held) until an install succeeds; the
// desired state holds it down in this pass (holdFailed, after the stage).
func (p *pass) recordKey(st *peer, a action, err error) {
	m := p.m
	id := a.peer.ID()
	w := p.d.Peers[id]
	log := m.log.WithField("peer", id)
	switch a.step {
	case stepDropKey:
		if err != nil {
			log.WithError(err).Error("cannot delete the peer's listener key")
		}
		if a.kind == actDeleteListenerKey {
			p.deleted[a.key.Prefix] = true
		}
		st.prevSecret.Wipe()
		st.prevSecret = nil
		if st.secret != nil {
			st.shared = false
			st.secret.Wipe()
			st.secret, st.keyID, st.installed, st.l3 = nil, -1, false, 0
		}
	case stepDropAO:
		if err != nil {
			log.WithError(err).Error("cannot delete the peer's TCP-AO keys")
		}
		if !st.shared {
			p.deleted[a.ao.Prefix] = true
		}
		st.shared = false
		wipeAOSet(st.ao)
		st.ao = tcpsock.AOSet{}
		st.keyID, st.installed = -1, false
	case stepInstall:
		p.recordInstall(st, id, w, log, err)
	case stepInstallAO:
		p.recordInstallAO(st, id, w, log, err)
	case stepKeep:
		st.obs.ok, st.keyID = st.installed, w.Key.KeyID
	case stepKeepAO:
		switched := st.ao.Current != w.Key.AO.Current || st.ao.RNext != w.Key.AO.RNext
		st.obs.ok = true
		st.keyID, st.installed, st.err = w.Key.KeyID, true, nil
		st.ao.Current, st.ao.RNext, st.ao.AcceptICMPs = w.Key.AO.Current, w.Key.AO.RNext, w.Key.AO.AcceptICMPs
		if switched {
			aoKeyChanged(m, log, id, w)
		}
	case stepDrift:
		m.drift(st, a.why)
		st.obs.ok = false
	case stepShare:
		p.shareListener(st, w)
	case stepNoKey:
		st.err, st.installed, st.obs.ok = w.Err, false, false
	case stepUnkeyed:
		st.err, st.keyID, st.installed = nil, -1, false
	case stepAlgHeld:
		if st.err == nil || st.err.Error() != w.Err.Error() {
			log.WithError(w.Err).Error("TCP-AO keys not installed: the kernel does not offer an algorithm of the keychain: peer held down (fail closed)")
		}
		st.err, st.installed, st.obs.ok = w.Err, false, false
	case stepAdopt:
		st.cfg = a.peer
	case stepChanged:
		st.cfg, st.shape = a.peer, nil
	case stepForget:
		delete(m.peers, id)
		delete(m.held, id)
		m.obs.PeerRemoved(id)
		log.Info("peer removed")
	}
}

// recordHeld records whether the install of peer id's keys (what) failed
// (err): a failure holds the peer down (m.held: fail closed) until an
// install succeeds, which releases it. It reports the failure.
func (p *pass) recordHeld(st *peer, id, what string, err error) bool {
	m := p.m
	log := m.log.WithField("peer", id)
	if err != nil {
		if m.held[id] == nil || m.held[id].Error() != err.Error() {
			log.WithError(err).Error(what + " not installed: peer held down (fail closed)")
		} else {
			log.WithError(err).Debug("reconcile: " + what + " still cannot be installed; peer stays held down")
		}
		m.held[id] = err
		st.err, st.installed, st.obs.ok = err, false, false
		return true
	}
	if m.held[id] != nil {
		log.Info("reconcile: " + what + " installed after an earlier failure")
		delete(m.held, id)
	}
	return false
}

// recordInstall records the outcome err of putting w's TCP-MD5 key on the
// listeners: adopted, or the peer held down (fail closed).
func (p *pass) recordInstall(st *peer, id string, w Want, log *logrus.Entry, err error) {
	m := p.m
	if p.recordHeld(st, id, "TCP-MD5 key", err) {
		return
	}
	changed := st.secret != nil && (!st.secret.Equal(w.Key.MD5) || st.keyID != w.Key.KeyID)
	if changed {
		p.prev[id] = st.secret
		st.keyChanged, st.restarted = m.now(), false
		st.prevSecret.Wipe()
		st.prevSecret = nil
		if w.Pin < 0 { // a peer proven on the newer key has moved already
			st.prevSecret = append(keys.Secret(nil), st.secret...)
		}
		log.WithFields(logrus.Fields{"key_id": w.Key.KeyID, "reason": why(w, st)}).Info("TCP-MD5 key changed in place")
	} else {
		st.secret.Wipe()
	}
	st.secret = append(keys.Secret(nil), w.Key.MD5...)
	st.keyID, st.installed, st.err, st.l3 = w.Key.KeyID, true, nil, w.IfIndex
	// What the kernel was seen to hold stands until the next pass looks
	// again; an install not prompted by drift is trusted until then.
	st.obs.ok = st.obs.drift == ""
	if changed {
		m.obs.KeyChanged(id, st.keyID)
	}
}

// recordInstallAO records the outcome err of putting w's TCP-AO keys on the
// listeners: adopted, or the peer held down (fail closed).
func (p *pass) recordInstallAO(st *peer, id string, w Want, log *logrus.Entry, err error) {
	m := p.m
	if p.recordHeld(st, id, "TCP-AO keys", err) {
		return
	}
	// The active key changes: its SendID and RecvID (unique in a chain).
	switched := len(st.ao.Keys) > 0 && (st.ao.Current != w.Key.AO.Current || st.ao.RNext != w.Key.AO.RNext)
	wipeAOSet(st.ao)
	st.ao = cloneAOSet(w.Key.AO)
	st.keyID, st.installed, st.err = w.Key.KeyID, true, nil
	st.obs.ok = st.obs.drift == ""
	if switched {
		aoKeyChanged(m, log, id, w)
	}
}

// why names what changed a key (for the log).
func why(w Want, st *peer) string {
	switch {
	case w.Pin >= 0:
		return "peer proven on a newer key"
	case w.Cfg.Keychain != "" && w.Key.KeyID != st.keyID:
		return "keychain switch"
	}
	return "config"
}
