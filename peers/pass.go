package peers

import (
	"context"
	"errors"
	"maps"
	"net/netip"
	"sort"
	"strings"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/keys"
	"github.com/authbgp/authbgpd/plugin"
	"github.com/authbgp/authbgpd/tcpsock"
)

// A pass, level-triggered: observe GoBGP (a full pass) and the sockets
// once, compute the desired state from the recorded inputs once
// (desiredOf, pure), diff it against what was observed and what the
// reconciler last applied, and act (apply.go), in stages: keys on the
// listeners (with the guards and the tcp_l3mdev_accept sysctl), then
// GoBGP's neighbors, then the connections. Each stage is planned as a
// value by a pure planner from what the pass observed and what the
// reconciler recorded: the removals and the listener keys (planRemoval,
// planPeerKeys, pass_keys.go), GoBGP (planGoBGP, planUnmanaged), the
// connections (planConn, planConnAO), the stray keys (planStrays,
// planStraysAO), the guards and the sysctl (planGuards, planL3mdev); then
// carried out action by action, each outcome recorded. Only ending stale
// sessions (endStale) still decides as it acts. Nothing done once is
// trusted: every pass checks again. /status reports what the last pass
// observed.

// Linux address families as sock_diag reports them.
const (
	afInet  = 2
	afInet6 = 10
)

// peer is the reconciler's record of one configured peer: what it applied
// and what it last observed.
type peer struct {
	cfg *config.Peer
	// shape is the config GoBGP's neighbor or range was built from (nil
	// when GoBGP has none of ours).
	shape *config.Peer
	// secret is our copy of the key on the listeners (nil: none); keyID
	// its keychain key id (-1 when not from a keychain).
	secret keys.Secret
	keyID  int
	// l3 is the l3index (VRF) secret is scoped to (0 none).
	l3 int
	// shared: secret (or ao) is not on the listeners, which carry another
	// interface peer's key for the same address (shareListener).
	shared bool
	// installed: the last install of secret succeeded on every listener.
	installed bool
	err       error
	// heldDown: GoBGP holds the static peer administratively down, or
	// does not have the range (fail closed).
	heldDown bool
	inGoBGP  bool
	// ao is our copy of the TCP-AO set on the listeners (no keys: none).
	ao tcpsock.AOSet
	// aoKernel sums the kernel's TCP_AO_INFO counters of the peer's
	// established connections at the last pass (nil: none seen); aoCurrent
	// the SendID the kernel sends with there (following the peer's
	// RNextKeyID), -1 when unknown.
	aoKernel  *tcpsock.AOInfo
	aoCurrent int
	// obs is what the last pass saw on the sockets.
	obs observation
	// keyChanged is when a pass last changed the peer's TCP-MD5 key in
	// place; restarted whether its Idle neighbor was restarted for that
	// change (restartNow), or needs no restart (we ended its stale
	// session, resetStale).
	keyChanged time.Time
	restarted  bool
	// collided is when the peer's session ended lost to a connection
	// collision (collisionLost): its Idle neighbor is to be restarted
	// (restartDue); zero once restarted or when none.
	collided time.Time
	// prevSecret is the key that change replaced, which established
	// connections keep for rekeyHold (rekeyhold.go; nil: none).
	prevSecret keys.Secret
}

// observation is the observed state of one peer's keys.
type observation struct {
	// by is how installed is known: "kernel" (the keys read back from the
	// sockets through sock_diag matched), "install" (the kernel does not
	// show keys to this process: only the install calls are known to have
	// succeeded); "" before the first pass.
	by string
	// ok: every listener (and established socket) carries the key.
	ok bool
	// drift describes what differed at the last pass ("" none).
	drift string
}

// observedInstalled is what /status and metrics say of st's key: with the
// kernel's view, installed only when the last pass saw it on the sockets.
func (st *peer) observedInstalled() bool {
	return st.installed && (st.obs.by != "kernel" || st.obs.ok)
}

// inputs snapshots what the triggers recorded (m.mu held).
func (m *Manager) inputs() Inputs {
	return Inputs{Config: m.cfg, Now: m.now(), Proposals: maps.Clone(m.pins), Held: maps.Clone(m.held), Preflight: m.preErr, AOPreflight: m.aoPreErr,
		AOAlgorithms: m.algorithms(), Links: m.links, VRFs: m.vrfs}
}

// pass is one reconciliation pass in progress. It holds m.mu while it
// decides and records, and releases it for each action (act) and each
// question to GoBGP (unlocked): what it reads of m after one may have
// changed (GoBGP's events, a reload's config), so it decides from its own
// snapshot (in, obs, gv) and looks its records up again.
type pass struct {
	m    *Manager
	ctx  context.Context
	in   Inputs
	d    Desired
	full bool
	gv   gobgpView
	obs  Observed
	seen bool // the kernel's view of the keys is there
	// looked: obs lists the sockets (its keys may be hidden); lookAt is
	// when the look began, on the clock of GoBGP's events.
	looked bool
	lookAt time.Time
	// lkeys indexes obs's listeners by key prefix (listenerKeys; nil: not
	// made yet this pass).
	lkeys []listenerKeyIndex
	// aoObs is the kernel's view of the TCP-AO keys (aoSeen: it was read).
	aoObs  []tcpsock.AOSocket
	aoSeen bool
	// aoSeenConns are the TCP-AO connections whose counters this pass
	// read, by peer ID.
	aoSeenConns map[string][]tcpsock.AOSocket
	// port is the BGP port the sockets were looked at on; listenPort
	// GoBGP's listening port (0: it does not listen).
	port, listenPort uint16
	// socks is the pass's look at the sockets, which its actions use.
	socks Look
	// prev holds, for peers whose key this pass changed, the key before.
	prev map[string]keys.Secret
	// deleted are listener key scopes this pass removed; gone the
	// neighbors and dropped the ranges' groups it took out of GoBGP (its
	// view, read before, still shows them).
	deleted map[netip.Prefix]bool
	gone    map[neighbor]bool
	dropped map[string]bool
	errs    []error
	acts    int               // the actions taken (act), quiet ones left out
	done    []action          // the actions carried out, in order (tests read them: passResult)
	statics map[neighbor]bool // the config's static peers (isStatic)
	// vrfByIndex names the VRFs by their device's ifindex (connNeighbor).
	vrfByIndex map[int]string
	// rekeyHeld: a connection keeps a replaced key (rekeyhold.go).
	rekeyHeld bool
	// l3 is what the pass observed of tcp_l3mdev_accept (scope.go).
	l3 l3mdevView
}

// passResult is what a pass tells the loop: the time of the next keychain
// switch, whether it found nothing to do (steady: it may set the timer's
// cadence to idle), and the errors GoBGP answered.
type passResult struct {
	next   time.Time
	steady bool
	err    error
	done   []action // the actions carried out, in order
}

// runPass observes, then decides under m.mu and acts outside it (act): the
// triggers, Status, the API guard and GoBGP's events take the lock while
// the pass waits for GoBGP or the kernel.
func (m *Manager) runPass(ctx context.Context, full bool) passResult {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	m.mu.Lock()
	port, listen, cfg := m.port, m.port, m.cfg
	useAO := needs(m.cfg, config.AuthTCPAO) && m.aoPreErr == nil
	m.mu.Unlock()
	links, vrfs := observeScopes(m.scopes, m.adv, cfg)
	l3 := observeL3mdev(vrfs, listen)
	if port == 0 {
		port = 179 // not listening: only dialed sessions, to the peers' BGP port
	}
	var gv gobgpView
	if full {
		gv = m.observeGoBGP(ctx)
	}
	lookAt := time.Now() // the events' clock (plugin), not m.now
	ps := m.socks.Look(port, full)
	obs, oerr := ps.Observe()
	defer wipeObserved(obs)
	aoObs, aoErr := observeAO(ps, useAO)
	defer tcpsock.WipeAO(aoObs)
	zoneObserved(&obs, aoObs)

	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stopping {
		return passResult{}
	}
	m.passes++
	if m.cfg == cfg { // a reload since: the next pass observes its names
		m.links, m.vrfs = m.learn(links), vrfs
	} else {
		l3 = l3mdevView{}
	}
	if oerr != nil {
		m.log.WithError(oerr).Debug("reconcile: cannot observe socket keys")
	}
	if full && gv.err != nil {
		m.log.WithError(gv.err).Warn("reconcile: cannot read GoBGP's peers")
		full = false
	}
	p := &pass{m: m, ctx: ctx, in: m.inputs(), full: full, gv: gv, obs: obs, seen: oerr == nil && obs.KeysVisible,
		looked: oerr == nil, lookAt: lookAt,
		port: port, listenPort: listen, socks: ps, prev: map[string]keys.Secret{}, deleted: map[netip.Prefix]bool{},
		gone: map[neighbor]bool{}, dropped: map[string]bool{}, aoObs: aoObs, aoSeen: aoErr == nil, l3: l3}
	p.run()
	m.lastLook = countsOf(ps)
	return passResult{next: p.nextDue(), steady: p.steady(oerr, useAO), err: errors.Join(p.errs...), done: p.done}
}

// nextDue is when a pass is due next for the pass's own reasons (zero:
// none): the desired state's next keychain switch, or the end of a
// connection's hold on a replaced key (rekeyhold.go).
func (p *pass) nextDue() time.Time {
	next, now := p.d.NextSwitch, p.m.now()
	soonest := func(t time.Time) {
		if t.After(now) && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	for _, st := range p.m.peers {
		if st.prevSecret != nil {
			soonest(st.keyChanged.Add(p.m.rekeyHold))
		}
	}
	return next
}

// steady reports whether the pass found nothing to do (m.mu held): it
// observed the sockets (and, with TCP-AO peers, their TCP-AO keys), took
// no action, got no error from GoBGP, and left no peer held down or
// drifted. (A full pass that could not read GoBGP is a light one.)
func (p *pass) steady(observeErr error, useAO bool) bool {
	if observeErr != nil || (useAO && !p.aoSeen) || p.acts > 0 || len(p.errs) > 0 || len(p.m.held) > 0 {
		return false
	}
	for _, st := range p.m.peers {
		if st.obs.drift != "" {
			return false
		}
	}
	return true
}

// run is the pass's order of work. Keys go on the listeners before GoBGP
// learns of a peer; a key that fails holds the peer down in the same pass.
// The desired state is computed once (desiredOf); the install failures,
// of earlier passes and then of this pass's key stage, hold their peers
// down (holdFailed).
func (p *pass) run() {
	m := p.m
	want := desiredOf(p.in)
	p.d = holdFailed(want, p.in.Held)
	m.keepPins(p.in.Proposals, p.d)
	for _, st := range m.peers {
		st.obs.drift = ""
	}
	p.sessions()
	p.l3mdev()
	p.removals()
	p.keys()
	p.guards()
	p.in.Held = maps.Clone(m.held)
	p.d = holdFailed(want, p.in.Held) // the install failures of this pass hold their peers down now
	p.publishDials()                  // before GoBGP learns of a peer, it can key its dials
	m.publishListeners(p.d)           // before a VRF's instance listens, it can key its listeners
	changed := p.policyDefs()         // before GoBGP learns of a peer, its policies exist
	p.gobgp()
	p.assignments(changed)
	p.unmanaged()
	p.conns()
	p.strays()
	p.straysAO()
	p.endStale()
	p.tell()
}

// keepPins drops the accepted proposals the schedule caught up with (the
// only change a pass makes to an input: it is the pure part's verdict).
func (m *Manager) keepPins(seen map[string]int, d Desired) {
	for id, pin := range seen {
		if w, ok := d.Peers[id]; (!ok || w.Pin != pin) && m.pins[id] == pin {
			delete(m.pins, id)
		}
	}
}

// peerFor is the ID of the pass's config's peer that owns neighbor a (an
// address in its VRF).
func (p *pass) peerFor(a neighbor) string { return p.m.ownersOf(p.in.Config).of(a) }

// connNeighbor is the neighbor of connection c: its remote address in the
// VRF whose device the socket is bound to (GoBGP's VRF instances bind
// their listeners and dials to it; "" the default VRF).
func (p *pass) connNeighbor(c tcpsock.SocketKeys) neighbor {
	if p.vrfByIndex == nil {
		p.vrfByIndex = map[int]string{}
		for name, v := range p.m.vrfs {
			if v.Err == nil && v.Index > 0 {
				p.vrfByIndex[v.Index] = name
			}
		}
	}
	return nbr(p.vrfByIndex[c.IfIndex], c.Remote.Addr())
}

// isStatic reports whether a is a static peer of the pass's config (a set
// made once per pass: config.Peer formats every peer's ID, and a full pass
// asks for each of GoBGP's neighbors; docs/PERFORMANCE.md, "Figures
// behind the code's comments"). A zoned link-local address is an interface peer's, as
// Manager.isStatic says.
func (p *pass) isStatic(a neighbor) bool {
	if id, ok := p.m.interfaceOwner(p.in.Config, a.Addr); ok {
		return id != ""
	}
	if p.statics == nil {
		p.statics = map[neighbor]bool{}
		for i := range p.in.Config.Peers {
			if c := &p.in.Config.Peers[i]; !c.IsDynamic() && !c.IsInterface() {
				p.statics[nbrOf(c)] = true
			}
		}
	}
	return p.statics[a]
}

// sessionAddrs returns the neighbors of the session table in order
// (address, then VRF), for loops that act (the table may change while an
// action runs).
func (t *sessionTable) sessionAddrs() []neighbor {
	out := make([]neighbor, 0, len(t.sess))
	for a := range t.sess {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return lessNeighbor(out[i], out[j]) })
	return out
}

// lessNeighbor orders neighbors by address, then VRF.
func lessNeighbor(a, b neighbor) bool {
	if a.Addr != b.Addr {
		return a.Addr.Less(b.Addr)
	}
	return a.VRF < b.VRF
}

// sortedIDs returns the IDs of the reconciler's records in order.
func (m *Manager) sortedIDs() []string {
	ids := make([]string, 0, len(m.peers))
	for id := range m.peers {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// sorted returns the reconciler's records in ID order.
func (m *Manager) sorted() []*peer {
	ids := m.sortedIDs()
	out := make([]*peer, 0, len(ids))
	for _, id := range ids {
		out = append(out, m.peers[id])
	}
	return out
}

// drift records and logs a difference between desired and observed state.
func (m *Manager) drift(st *peer, what string) {
	if st.obs.drift == "" || !strings.Contains(st.obs.drift, what) {
		m.log.WithFields(logrus.Fields{"peer": st.cfg.ID(), "drift": what}).Warn("reconcile: observed state differs from the config")
	}
	if st.obs.drift == "" {
		st.obs.drift = what
	} else if !strings.Contains(st.obs.drift, what) {
		st.obs.drift += "; " + what
	}
}

// shareListener records w's key for a peer whose listener scope another
// interface peer owns (shareListeners): its connections are keyed with it
// (the dial hook, conns), the listeners carry the owner's.
func (p *pass) shareListener(st *peer, w Want) {
	if !st.shared {
		// Not deleted: the listeners' key for this scope is the owner's now
		// (installed over it, same address and l3index).
		p.m.log.WithFields(logrus.Fields{"peer": w.Cfg.ID(), "owner": w.SharesListener, "address": w.Cfg.Address.WithZone("").String()}).
			Warn("interface peer: another interface's peer has the same link-local address, and a listener holds one key per address: the listeners carry the other's key, so this peer's connections to us fail it (fail closed) and its session comes up by our dial")
	}
	st.shared = true
	st.secret.Wipe()
	wipeAOSet(st.ao)
	st.secret, st.ao, st.l3 = nil, tcpsock.AOSet{}, w.IfIndex
	switch w.Key.Mech {
	case MechMD5:
		st.secret = append(keys.Secret(nil), w.Key.MD5...)
	case MechTCPAO:
		st.ao = cloneAOSet(w.Key.AO)
	}
	st.keyID, st.installed, st.err, st.obs.ok = w.Key.KeyID, w.Key.Usable(), w.Err, w.Key.Usable() && w.Err == nil
}

// keepsNeighbor reports whether GoBGP's neighbor or range built from
// shape (nil: none) serves w (ok: w's peer is desired): otherwise the removals
// take it out of GoBGP, and the GoBGP stage adds it back.
func keepsNeighbor(shape *config.Peer, w Want, ok bool) bool {
	return ok && (shape == nil || sameShape(shape, w.Cfg))
}

// sameShape reports whether GoBGP's object for a can serve b: the same BGP
// settings and the same mechanism (switching authentication on or off, or
// between TCP-MD5 and TCP-AO, re-adds the peer: an established socket
// cannot change mechanism).
func sameShape(a, b *config.Peer) bool {
	if a == b {
		// One config's peer (configs are never changed once loaded):
		// every pass asks this of every peer, and building two GoBGP
		// objects to compare is costly (docs/PERFORMANCE.md, "Figures
		// behind the code's comments").
		return true
	}
	if a.ID() != b.ID() || a.Auth().Mode != b.Auth().Mode {
		return false
	}
	if a.IsDynamic() {
		x, e1 := apiPeerGroup(a)
		y, e2 := apiPeerGroup(b)
		return e1 == nil && e2 == nil && protoEqual(x, y)
	}
	x, e1 := apiPeer(a, false)
	y, e2 := apiPeer(b, false)
	// A static neighbor's prefix limit changes in place (limitsDiffer).
	return e1 == nil && e2 == nil && protoEqual(withoutLimits(x), withoutLimits(y))
}

// record returns the reconciler's record of w's peer, made if new.
func (m *Manager) record(w Want) *peer {
	st := m.peers[w.Cfg.ID()]
	if st == nil {
		st = &peer{cfg: w.Cfg, keyID: -1, aoCurrent: -1}
		m.peers[w.Cfg.ID()] = st
	}
	st.cfg = w.Cfg
	return st
}

// wipeObserved clears the secrets read back from the kernel.
func wipeObserved(o Observed) {
	for _, s := range o.Sockets {
		for _, k := range s.Keys {
			k.Secret.Wipe()
		}
	}
}

// gobgpView is what GoBGP reports.
type gobgpView struct {
	// at is when GoBGP was asked: a session state an event recorded
	// later is newer than this view.
	at        time.Time
	peers     map[neighbor]*api.Peer
	passwords map[neighbor]keys.Secret
	dynamic   map[string]string // group -> prefix (one prefix may be a range of two VRFs)
	err       error
}

func (m *Manager) observeGoBGP(ctx context.Context) gobgpView {
	v := gobgpView{at: m.now(), peers: map[neighbor]*api.Peer{}, passwords: map[neighbor]keys.Secret{}, dynamic: map[string]string{}}
	ps, pw, err := m.bgp.PeersAndPasswords(ctx)
	if err != nil {
		v.err = err
		return v
	}
	for i, p := range ps {
		if a, ok := plugin.NeighborAddr(p); ok {
			nb := nbr(plugin.VRFOf(p), a)
			v.peers[nb] = p
			if i < len(pw) {
				v.passwords[nb] = pw[i]
			}
		}
	}
	ds, err := m.bgp.ListDynamicNeighbor(ctx, "")
	if err != nil {
		v.err = err
		return v
	}
	for _, d := range ds {
		if pfx, err := netip.ParsePrefix(d.GetPrefix()); err == nil {
			v.dynamic[d.GetPeerGroup()] = pfx.Masked().String()
		}
	}
	return v
}
