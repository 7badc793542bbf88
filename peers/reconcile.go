package peers

import (
	"context"
	"fmt"
	"net/netip"
	"sort"
	"strings"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/plugin"
)

// Level-triggered reconciliation. Events (GoBGP's peer events, reloads,
// keychain switches, the shadow checker's proposals) change the desired
// state and act at once, but nothing is trusted after it was done once: on
// every event and on a short timer the manager compares the desired state
// (config + its own decisions) with the observed state — GoBGP's neighbors,
// their passwords and admin state, its dynamic ranges, and the TCP-MD5 keys
// the kernel really holds on this process's BGP sockets — and converges.
// /status reports what the last pass observed.

// Linux address families as sock_diag reports them.
const (
	afInet  = 2
	afInet6 = 10
)

// Observed is what the kernel says about this process's BGP sockets.
type Observed struct {
	// KeysVisible is false when the kernel hides TCP-MD5 keys from this
	// process (no CAP_NET_ADMIN): then Keys are empty and prove nothing.
	KeysVisible bool
	// Sockets are the listeners on the BGP port and the connections to or
	// from it, with the keys the kernel holds on each.
	Sockets []md5auth.SocketKeys
}

// kickReconcile asks for a full pass soon (never blocks).
func (m *Manager) kickReconcile() {
	m.fullKick.Store(true)
	m.kickSessions()
}

// kickSessions asks for a pass soon that need not read GoBGP's view: a
// session changed state, which GoBGP's event already told (never blocks).
// With many neighbors, asking GoBGP for all of them is most of a pass's
// cost; the next full pass (the timer's, at the latest) reads it.
func (m *Manager) kickSessions() {
	select {
	case m.kick <- struct{}{}:
	default:
	}
}

// reconcileLoop runs passes on the timer, on kicks, and when the event
// fan-out dropped events for anyone (a missed event must not be trusted
// away).
func (m *Manager) reconcileLoop(stop, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(m.every)
	defer t.Stop()
	var lastDropped uint64
	var cost time.Duration // of the last pass
	for {
		timer := false
		select {
		case <-stop:
			return
		case <-t.C:
			timer = true
		case a := <-m.refused:
			m.refusedConnection(a)
			continue
		case <-m.kick:
			// Coalesce bursts (a reload, or a thousand sessions coming
			// up, produce many events), and spend at most a tenth of
			// the time on kicked passes: with many neighbors a pass
			// costs tens of milliseconds (GoBGP builds every neighbor's
			// answer; the socket dump). Refused connections are not
			// kept waiting meanwhile.
			wait := time.After(kickDelay(cost))
			for waiting := true; waiting; {
				select {
				case <-stop:
					return
				case a := <-m.refused:
					m.refusedConnection(a)
				case <-wait:
					waiting = false
				}
			}
		}
		lost := false
		if m.dropped != nil {
			if d := m.dropped(); d != lastDropped {
				m.log.WithField("dropped_events", d-lastDropped).Warn("GoBGP peer events were dropped: resynchronising from GoBGP and the sockets")
				lastDropped, lost = d, true
			}
		}
		// A timer pass is full, and answers any full kick pending too;
		// so is a pass after lost events (the session table cannot be
		// trusted).
		full := m.fullKick.Swap(false) || timer || lost
		t0 := time.Now()
		m.reconcilePass(context.Background(), full)
		cost = time.Since(t0)
	}
}

func (m *Manager) refusedConnection(a netip.Addr) {
	if err := m.endIfStale(context.Background(), a); err != nil {
		m.log.WithError(err).Error("cannot end a stale session")
	}
}

// kickDelay is how long a kicked pass waits after the kick, given what the
// last pass cost: 100 ms to coalesce a burst, and 9 times the last cost
// (at most the timer's 2 s) so that passes take at most a tenth of a core.
func kickDelay(cost time.Duration) time.Duration {
	return min(max(100*time.Millisecond, 9*cost), 2*time.Second)
}

// gobgpView is what GoBGP reports.
type gobgpView struct {
	peers     map[netip.Addr]*api.Peer
	passwords map[netip.Addr]md5auth.Secret
	dynamic   map[string]string // prefix -> group
	err       error
}

func (m *Manager) observeGoBGP(ctx context.Context) gobgpView {
	v := gobgpView{peers: map[netip.Addr]*api.Peer{}, dynamic: map[string]string{}}
	ps, pw, err := m.bgp.PeersAndPasswords(ctx)
	if err != nil {
		v.err = err
		return v
	}
	for _, p := range ps {
		if a, ok := plugin.NeighborAddr(p); ok {
			v.peers[a] = p
		}
	}
	v.passwords = pw
	ds, err := m.bgp.ListDynamicNeighbor(ctx, "")
	if err != nil {
		v.err = err
		return v
	}
	for _, d := range ds {
		if pfx, err := netip.ParsePrefix(d.GetPrefix()); err == nil {
			v.dynamic[pfx.Masked().String()] = d.GetPeerGroup()
		}
	}
	return v
}

// reconcile runs one pass. The observations are made without the lock
// (they may take milliseconds with many sockets); a pass whose
// observations raced with a change of desired state is dropped and redone.
func (m *Manager) reconcile(ctx context.Context) { m.reconcilePass(ctx, true) }

// reconcilePass runs one pass; a pass that is not full does not read
// GoBGP's view (it converges the keys on the sockets, with the sessions the
// events told).
func (m *Manager) reconcilePass(ctx context.Context, full bool) {
	m.mu.Lock()
	if !m.started || m.bgp == nil || m.stop == nil {
		m.mu.Unlock()
		return
	}
	gen, port := m.gen, m.port
	m.mu.Unlock()
	if port == 0 {
		port = 179 // not listening: only dialed sessions, to the peers' BGP port
	}

	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var gv gobgpView
	if full {
		gv = m.observeGoBGP(ctx)
	}
	obs, oerr := m.socks.Observe(port)

	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stop == nil {
		return
	}
	if m.gen != gen {
		m.kickReconcile() // desired state changed meanwhile: look again
		return
	}
	m.passes++
	// Drift is what this pass finds: forget the last pass's first (GoBGP
	// drift is found before the keys are looked at).
	for _, st := range m.peers {
		st.obs.drift = ""
	}
	switch {
	case !full:
		m.connEnds(obs, oerr == nil)
	case gv.err != nil:
		m.log.WithError(gv.err).Warn("reconcile: cannot read GoBGP's peers")
	default:
		m.syncSessions(gv, obs, oerr == nil)
		m.convergeGoBGP(ctx, gv)
	}
	m.convergeKeys(ctx, obs, oerr, port)
	m.retryHeld(ctx)
	for _, st := range m.sortedPeers() {
		if st.cfg.Auth().Mode == config.AuthMD5 {
			m.obs.KeyInstalled(st.cfg.ID(), st.observedInstalled())
		}
	}
	m.convergeSchedule(ctx)
	for _, st := range m.sortedPeers() {
		if st.pending() && len(m.established(st.cfg)) == 0 && !st.heldDown {
			m.syncGoBGP(ctx, st)
		}
	}
}

func (m *Manager) sortedPeers() []*peer {
	ids := make([]string, 0, len(m.peers))
	for id := range m.peers {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := make([]*peer, 0, len(ids))
	for _, id := range ids {
		out = append(out, m.peers[id])
	}
	return out
}

// syncSessions brings the session table in line with GoBGP (events may
// have been lost) and takes connection ends from the sockets.
func (m *Manager) syncSessions(gv gobgpView, obs Observed, obsOK bool) {
	now := m.now()
	for a, p := range gv.peers {
		state := plugin.SessionStateName(p.GetState().GetSessionState())
		s := m.sess[a]
		if s == nil {
			s = &session{since: now}
			m.sess[a] = s
		}
		was := s.state
		if was != state {
			s.changed(now)
			if was != "" {
				m.log.WithFields(logrus.Fields{"peer": a, "state": state, "was": was}).Info("BGP session state (resynchronised from GoBGP)")
			}
		}
		s.state, s.adminDown, s.asn = state, p.GetState().GetAdminState() == api.PeerState_DOWN, p.GetState().GetPeerAsn()
		if state != "established" {
			s.local, s.remote = netip.AddrPort{}, netip.AddrPort{}
		} else if obsOK {
			m.connEnd(obs, a, s)
		}
		if was != state {
			m.tellSession(m.peerFor(a), a, was, state, s.remote)
		}
	}
	for a, s := range m.sess {
		if gv.peers[a] == nil {
			m.tellSession(m.peerFor(a), a, s.state, "idle", netip.AddrPort{})
			delete(m.sess, a)
		}
	}
}

// connEnds takes from the sockets the connection ends of established
// sessions whose event did not give them (or whose connection closed).
func (m *Manager) connEnds(obs Observed, obsOK bool) {
	if !obsOK {
		return
	}
	for a, s := range m.sess {
		if s.state == "established" {
			m.connEnd(obs, a, s)
		}
	}
}

// connEnd takes the ends of established session s with a from the sockets
// when the ones it has are not an open connection.
func (m *Manager) connEnd(obs Observed, a netip.Addr, s *session) {
	if m.connOpen(obs, s.local, s.remote) {
		return
	}
	if l, r, ok := m.findConn(obs, a); ok {
		s.local, s.remote = l, r
	}
}

func (m *Manager) connOpen(obs Observed, local, remote netip.AddrPort) bool {
	if !local.IsValid() || !remote.IsValid() {
		return false
	}
	for _, s := range obs.Sockets {
		if !s.Listening && s.Local == local && s.Remote == remote {
			return true
		}
	}
	return false
}

// findConn finds the established BGP connection with a among the sockets.
func (m *Manager) findConn(obs Observed, a netip.Addr) (local, remote netip.AddrPort, ok bool) {
	for _, s := range obs.Sockets {
		if s.Listening || !s.Remote.IsValid() || s.Remote.Addr() != a {
			continue
		}
		return s.Local, s.Remote, true
	}
	return netip.AddrPort{}, netip.AddrPort{}, false
}

// convergeGoBGP makes GoBGP hold exactly the configured peers and ranges,
// with the passwords and admin state the manager decided.
func (m *Manager) convergeGoBGP(ctx context.Context, gv gobgpView) {
	groups := map[string]*peer{}
	for _, st := range m.sortedPeers() {
		cp := st.cfg
		if cp.IsDynamic() {
			groups[groupName(cp.Prefix)] = st
			if st.heldDown {
				if _, ok := gv.dynamic[cp.Prefix.Masked().String()]; ok {
					m.drift(st, "GoBGP accepts sessions from the held-down range: removing it")
					m.dropRange(ctx, st)
				}
				continue
			}
			if g, ok := gv.dynamic[cp.Prefix.Masked().String()]; !ok || g != groupName(cp.Prefix) {
				m.drift(st, "GoBGP lost the dynamic range: adding it back")
				m.dropRange(ctx, st)
				delete(m.peers, cp.ID())
				if err := m.addPeer(ctx, cp, st); err != nil {
					m.log.WithError(err).WithField("peer", cp.ID()).Error("reconcile: cannot restore dynamic range")
				}
			}
			continue
		}
		gp := gv.peers[cp.Address]
		switch {
		case gp == nil:
			m.drift(st, "GoBGP lost the peer: adding it back")
			if err := m.readd(ctx, st, st.heldDown); err != nil {
				m.log.WithError(err).WithField("peer", cp.ID()).Error("reconcile: cannot restore peer")
				continue
			}
			st.gobgpSecret = st.secret
		case st.heldDown && gp.GetState().GetAdminState() != api.PeerState_DOWN && !gp.GetConf().GetAdminDown():
			m.drift(st, "held-down peer is enabled in GoBGP: holding it down again")
			if err := m.readd(ctx, st, true); err != nil {
				m.log.WithError(err).WithField("peer", cp.ID()).Error("reconcile: cannot hold peer down")
				continue
			}
			st.gobgpSecret = st.secret
		default:
			got := gv.passwords[cp.Address]
			if !st.gobgpSecret.Equal(got) {
				// GoBGP holds a password we did not give it: treat it
				// as stale, so it is replaced before GoBGP can dial or
				// re-key a listener with it.
				m.drift(st, "GoBGP holds another password for the peer: replacing it")
				st.gobgpSecret = append(md5auth.Secret(nil), got...)
				if string(got) == "" && st.secret == nil {
					st.gobgpSecret = nil
				}
			}
		}
	}
	// Neighbors no config names: dynamic sessions of a configured range
	// are fine; anything else did not come from us (the API refuses such
	// requests): remove it, failing closed.
	for a, gp := range gv.peers {
		if m.peers[a.String()] != nil {
			continue
		}
		if st := groups[gp.GetConf().GetPeerGroup()]; st != nil && st.cfg.Prefix.Contains(a) {
			continue
		}
		m.log.WithField("peer", a).Warn("reconcile: GoBGP runs a neighbor the config does not name: deleting it")
		if err := m.bgp.DeletePeer(ctx, a.String()); err != nil {
			m.log.WithError(err).WithField("peer", a).Error("reconcile: cannot delete unmanaged neighbor")
		}
	}
	for pfx, g := range gv.dynamic {
		if st := groups[g]; st != nil && st.cfg.Prefix.Masked().String() == pfx {
			continue
		}
		m.log.WithFields(logrus.Fields{"prefix": pfx, "group": g}).Warn("reconcile: GoBGP accepts a dynamic range the config does not name: deleting it")
		if err := m.bgp.DeleteDynamicNeighbor(ctx, pfx, g); err != nil {
			m.log.WithError(err).WithField("prefix", pfx).Error("reconcile: cannot delete unmanaged dynamic range")
		}
	}
}

// dropRange removes a range from GoBGP (sessions and group too).
func (m *Manager) dropRange(ctx context.Context, st *peer) {
	name := groupName(st.cfg.Prefix)
	_ = m.bgp.DeleteDynamicNeighbor(ctx, st.cfg.Prefix.String(), name)
	m.dropRangeSessions(ctx, st.cfg)
	_ = m.bgp.DeletePeerGroup(ctx, name)
	m.gen++
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

// convergeKeys compares the keys on the sockets with the decided keys and
// converges: missing or wrong listener keys are installed again (a failure
// holds the peer down), keys nobody configured are deleted, established
// connections get their owner's key in place, and a connection of a keyed
// peer that carries no key at all is ended.
func (m *Manager) convergeKeys(ctx context.Context, obs Observed, oerr error, port uint16) {
	peers := m.sortedPeers()
	if oerr != nil {
		for _, st := range peers {
			st.obs.by, st.obs.ok = "install", st.installed
		}
		m.log.WithError(oerr).Debug("reconcile: cannot observe socket keys")
		return
	}
	if !obs.KeysVisible {
		for _, st := range peers {
			st.obs.by, st.obs.ok = "install", st.installed
		}
		return
	}
	var listeners, conns []md5auth.SocketKeys
	for _, s := range obs.Sockets {
		switch {
		case s.Listening && m.port != 0 && s.Local.Port() == m.port:
			listeners = append(listeners, s)
		case !s.Listening && s.Remote.IsValid():
			// Every connected socket (dialing, established, closing):
			// all must carry their owner's key.
			conns = append(conns, s)
		}
	}
	m.convergeListeners(ctx, peers, listeners)
	m.convergeConns(ctx, conns, port)
}

// convergeListeners installs again a peer's key missing or wrong on a
// listener, and deletes listener keys that no configured peer owns (left
// by GoBGP or by a removed peer).
func (m *Manager) convergeListeners(ctx context.Context, peers []*peer, listeners []md5auth.SocketKeys) {
	wanted := map[netip.Prefix]bool{}
	for _, st := range peers {
		if st.secret != nil {
			wanted[key(st.cfg, st.secret).Prefix] = true
		}
	}
	for _, st := range peers {
		st.obs.by, st.obs.ok = "kernel", st.installed
		if st.secret == nil || st.heldDown || m.port == 0 || m.preErr != nil {
			continue
		}
		if bad := m.listenerProblems(st, listeners); bad != "" {
			m.drift(st, bad+": installing it again")
			st.obs.ok = false
			if err := m.installListeners(st.cfg, st.secret); err != nil {
				st.err, st.installed = err, false
				m.obs.KeyInstalled(st.cfg.ID(), false)
				m.log.WithError(err).WithField("peer", st.cfg.ID()).Error("TCP-MD5 key not installed: peer held down (fail closed)")
				m.holdDown(ctx, st)
			}
		}
	}
	for _, l := range listeners {
		for _, k := range l.Keys {
			if wanted[k.Prefix] {
				continue
			}
			m.log.WithFields(logrus.Fields{"listener": l.Local, "scope": k.Prefix}).Warn("reconcile: listener carries a TCP-MD5 key no configured peer owns: deleting it")
			if err := m.socks.DeleteListenerKey(m.port, md5auth.Key{Prefix: k.Prefix, Secret: k.Secret}); err != nil {
				m.log.WithError(err).WithField("scope", k.Prefix).Error("reconcile: cannot delete stray listener key")
			}
		}
	}
}

// convergeConns gives every connection of a keyed peer on BGP port port
// its owner's key: a connection with another key is re-keyed in place,
// one with none is keyed and its session ended (fail closed).
func (m *Manager) convergeConns(ctx context.Context, conns []md5auth.SocketKeys, port uint16) {
	for _, c := range conns {
		if c.Local.Port() != port && c.Remote.Port() != port {
			continue
		}
		a := c.Remote.Addr()
		st := m.peers[m.peerFor(a)]
		if st == nil || st.secret == nil {
			continue
		}
		k, ok := c.KeyFor(a)
		switch {
		case !ok:
			st.obs.ok = false
			m.drift(st, fmt.Sprintf("connection %s-%s carries no TCP-MD5 key: ending it (fail closed)", c.Local, c.Remote))
			if err := m.socks.SetConnKey(c.Local, c.Remote, md5auth.AddrKey(a, st.secret)); err != nil {
				m.log.WithError(err).WithField("peer", a).Warn("reconcile: cannot key the unsigned connection")
			}
			if err := m.bgp.ResetPeer(ctx, a.String(), "authbgpd: session without TCP-MD5", false, api.ResetPeerRequest_BOTH); err != nil {
				m.log.WithError(err).WithField("peer", a).Debug("reconcile: reset of the unsigned session")
			}
		case !st.secret.Equal(k.Secret):
			st.obs.ok = false
			m.drift(st, fmt.Sprintf("connection %s-%s carries another key: re-keying it in place", c.Local, c.Remote))
			if err := m.socks.SetConnKey(c.Local, c.Remote, md5auth.AddrKey(a, st.secret)); err != nil {
				m.log.WithError(err).WithField("peer", a).Warn("reconcile: cannot re-key the connection")
			}
		}
	}
}

// observedInstalled is what /status and metrics say of st's key: with the
// kernel's view, installed only when the last pass saw it on the sockets.
func (st *peer) observedInstalled() bool {
	return st.installed && (st.obs.by != "kernel" || st.obs.ok)
}

// listenerProblems says what is wrong with st's key on the listeners of
// its family ("" when every one carries exactly the decided key).
func (m *Manager) listenerProblems(st *peer, listeners []md5auth.SocketKeys) string {
	want := key(st.cfg, st.secret).Prefix
	v4 := want.Addr().Is4()
	n := 0
	for _, l := range listeners {
		if (l.Family == afInet) != v4 {
			continue
		}
		n++
		found := false
		for _, k := range l.Keys {
			if k.Prefix != want {
				continue
			}
			found = true
			if !st.secret.Equal(k.Secret) {
				return fmt.Sprintf("listener %s carries another key for %s", l.Local, want)
			}
		}
		if !found {
			return fmt.Sprintf("listener %s has no key for %s", l.Local, want)
		}
	}
	// n == 0: no listener of the peer's family (listen-addresses names
	// none), so only dialed sockets carry the key: nothing to check here.
	return ""
}

// retryHeld tries again to install the key of peers held down because an
// install failed (the failure may have been transient).
func (m *Manager) retryHeld(ctx context.Context) {
	if m.preErr != nil {
		return
	}
	for _, st := range m.sortedPeers() {
		if !st.heldDown || st.err == nil {
			continue
		}
		secret, keyID, keyed, err := m.decide(m.cfg, st.cfg, st)
		if !keyed || err != nil {
			continue
		}
		if err := m.installListeners(st.cfg, secret); err != nil {
			m.log.WithError(err).WithField("peer", st.cfg.ID()).Debug("reconcile: key still cannot be installed; peer stays held down")
			continue
		}
		m.log.WithField("peer", st.cfg.ID()).Info("reconcile: TCP-MD5 key installed after an earlier failure")
		m.changeKey(ctx, st, secret, keyID, "reconcile")
	}
}

// convergeSchedule applies a keychain switch the timer missed.
func (m *Manager) convergeSchedule(ctx context.Context) {
	for _, st := range m.sortedPeers() {
		if st.cfg.Keychain == "" || st.heldDown {
			continue
		}
		secret, keyID, _, err := m.decide(m.cfg, st.cfg, st)
		if err != nil || (keyID == st.keyID && string(secret) == string(st.secret)) {
			continue
		}
		m.changeKey(ctx, st, secret, keyID, "keychain schedule (reconcile)")
	}
}

// EndStale ends the established session with addr whose peer end is
// remote, when the shadow checker saw the peer give it up: its segments on
// that connection stopped verifying and it opened a new connection with a
// valid signature. GoBGP would otherwise keep the dead session (the peer's
// NOTIFICATION and FIN, signed with the old key, were dropped by our
// kernel) and close every new connection until its hold timer fires.
func (m *Manager) EndStale(addr netip.Addr, remote netip.AddrPort, why string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.sess[addr]
	if s == nil || s.state != "established" || (s.remote.IsValid() && s.remote != remote) {
		return nil // already gone, or another session now
	}
	id := m.peerFor(addr)
	if id == "" {
		return nil
	}
	m.log.WithFields(logrus.Fields{"peer": addr, "connection": remote, "reason": why}).Warn("ending stale session: the peer reconnected with a valid TCP-MD5 signature while its old connection stopped verifying")
	return m.resetStale(context.Background(), addr, s)
}

// resetStale ends the stale established session s with addr (m.mu held):
// GoBGP resets it, and the peer's new connection can come up.
func (m *Manager) resetStale(ctx context.Context, addr netip.Addr, s *session) error {
	if err := m.bgp.ResetPeer(ctx, addr.String(), "authbgpd: stale session replaced by a new authenticated connection", false, api.ResetPeerRequest_BOTH); err != nil {
		return fmt.Errorf("peers: end stale session with %s: %w", addr, err)
	}
	s.rekeyedConn = netip.AddrPort{}
	m.gen++
	m.kickReconcile()
	return nil
}

// Passes returns the number of reconciliation passes done (tests).
func (m *Manager) Passes() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.passes
}

// Reconcile runs one pass now (tests, and callers that need the observed
// state to be fresh).
func (m *Manager) Reconcile(ctx context.Context) { m.reconcile(ctx) }
