package peers

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"syscall"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/tcpsock"
)

// This file is the only code of the peers runtime that changes GoBGP's
// peers, the keys and guards on sockets, or the kernel's settings (the
// tcp_l3mdev_accept sysctl). A pass (pass.go) decides; apply acts, one
// action at a time, and returns the action's error for the pass to record.

// actKind is what an action does.
type actKind uint8

const (
	actSetListenerKey    actKind = iota + 1 // key on every listener of the family
	actDeleteListenerKey                    // a key off every listener
	actSetConnKey                           // re-key one connection in place
	actAddNeighbor                          // AddPeer (a static peer, with its admin state)
	actReaddNeighbor                        // DeletePeer + AddPeer (see readd)
	actDeleteNeighbor                       // DeletePeer
	actAddRange                             // AddPeerGroup + AddDynamicNeighbor
	actDropRange                            // DeleteDynamicNeighbor, its sessions, DeletePeerGroup
	actDeleteRange                          // DeleteDynamicNeighbor of a range no config names
	actResetSession                         // ResetPeer: end a session (unsigned or stale)
	actSetListenerAO                        // a TCP-AO peer's MKTs on every listener of the family
	actDeleteListenerAO                     // a scope's MKTs off every listener
	actSetConnAO                            // a connection's MKTs and RNextKeyID
	actSetGuards                            // the link-local guards on the listeners (scope.go)
	actL3mdevAccept                         // net.ipv4.tcp_l3mdev_accept = 0 (each VRF's GoBGP listens bound to its device)
	actRecord                               // nothing to carry out: a step of the key stage's record alone (recordKey)
	actUpdateLimits                         // UpdatePeer: a static neighbor's prefix limit, in place
	actSetPolicies                          // SetPolicies in every instance: the config's defined sets and policies (pass_policy.go)
	actSetAssignment                        // SetPolicyAssignment (and a range's UpdatePeerGroup), then a soft reset (pass_policy.go)
)

// action is one change the pass decided.
type action struct {
	kind actKind
	peer *config.Peer // the configured peer acted for (nil: unmanaged)
	// key: the socket key (set/delete listener key, set conn key); ao:
	// the TCP-AO set (its Prefix alone for a delete).
	key md5auth.Key
	ao  tcpsock.AOSet
	// adminDown: what GoBGP gets for a static peer.
	adminDown bool
	// addr, group: a neighbor or range no config names, or a session's
	// address (in VRF vrf); local, remote: a connection's ends (local
	// alone: the listener a stray key was seen on).
	vrf           string
	addr          netip.Addr
	prefix, group string
	local, remote netip.AddrPort
	why           string
	// addrs: a dropped range's sessions in the session table.
	addrs []netip.Addr
	// guards: the whole set the listeners must carry (actSetGuards).
	guards []tcpsock.Guard
	// step: why a stage takes the action (what its outcome records);
	// refusals: a stuck OpenSent's refused dials.
	step     actStep
	refusals int
	// pol: the routing policies or the assignment (actSetPolicies,
	// actSetAssignment).
	pol *policyAct
	// quiet: the action re-asserts what the last pass set, which the
	// kernel cannot show back (the guards): not a change, the pass can be
	// steady.
	quiet bool
}

// act applies a outside m.mu and notes its error. Nothing else acts
// meanwhile: only the reconciler's goroutine runs passes.
func (p *pass) act(a action) error {
	var err error
	if !a.quiet {
		p.acts++
	}
	p.done = append(p.done, a)
	p.unlocked(func() { err = p.apply(p.ctx, a) })
	if err != nil && (a.kind >= actAddNeighbor && a.kind <= actDeleteRange || a.kind == actUpdateLimits) {
		p.errs = append(p.errs, err)
	}
	return err
}

// unlocked runs f, the pass's I/O (GoBGP's API, the sockets), with m.mu
// released: the triggers, Status and the API guard answer meanwhile.
func (p *pass) unlocked(f func()) {
	p.m.mu.Unlock()
	defer p.m.mu.Lock()
	f()
}

// apply carries out a, without m.mu: it reads only what the pass
// recorded (its inputs, its look at the sockets) and the action itself.
// Nothing else acts meanwhile (the reconciler's goroutine alone runs
// passes).
func (p *pass) apply(ctx context.Context, a action) error {
	m := p.m
	switch a.kind {
	case actSetListenerKey:
		return p.setListenerKey(a.peer, a.key)
	case actDeleteListenerKey:
		if p.listenPort == 0 {
			return nil
		}
		return p.socks.DeleteListenerKey(a.key)
	case actSetConnKey:
		return p.socks.SetConnKey(a.local, a.remote, a.key)
	case actAddNeighbor:
		ap, err := apiPeer(a.peer, a.adminDown)
		if err != nil {
			return err
		}
		m.markRestarting(ap.GracefulRestart) // graceful.go
		ap.ApplyPolicy = p.policyOf(a.peer)  // born with its policies (pass_policy.go)
		return m.bgp.AddPeerIn(ctx, a.peer.VRF, ap)
	case actReaddNeighbor:
		return m.readd(ctx, a.peer, a.adminDown, p.policyOf(a.peer))
	case actDeleteNeighbor:
		return m.bgp.DeletePeerIn(ctx, a.vrf, a.addr.String())
	case actAddRange:
		return m.addRange(ctx, a.peer, p.policyOf(a.peer))
	case actDropRange:
		return m.dropRange(ctx, a.peer, a.addrs)
	case actDeleteRange:
		return m.bgp.DeleteDynamicNeighbor(ctx, a.prefix, a.group)
	case actResetSession:
		return m.bgp.ResetPeerIn(ctx, a.vrf, a.addr.String(), a.why, false, api.ResetPeerRequest_BOTH)
	case actSetListenerAO, actDeleteListenerAO, actSetConnAO:
		return p.applyAO(a)
	case actSetGuards:
		return p.setGuards(a.guards)
	case actL3mdevAccept:
		return setL3mdevAccept()
	case actRecord:
		return nil
	case actUpdateLimits:
		return m.updateLimits(ctx, a.peer, a.adminDown)
	case actSetPolicies, actSetAssignment:
		return p.applyPolicy(ctx, a)
	}
	return fmt.Errorf("peers: unknown action %d", a.kind)
}

// setListenerKey puts c's key on the listeners.
func (p *pass) setListenerKey(c *config.Peer, k md5auth.Key) error {
	if p.in.Preflight != nil {
		return p.in.Preflight
	}
	if p.listenPort == 0 {
		return nil // GoBGP does not listen: only dialed sockets, keyed by dialKey
	}
	if _, err := p.socks.SetListenerKey(k); err != nil {
		return fmt.Errorf("peers: peer %s (%s:%d): %w", c.ID(), p.in.Config.File, c.Line, err)
	}
	return nil
}

// setGuards puts the link-local guards want on the listeners (the whole
// set: the filter replaces the one before).
func (p *pass) setGuards(want []tcpsock.Guard) error {
	return p.socks.SetListenerGuards(want)
}

// readd replaces a static peer in GoBGP with its admin state. It
// deletes and re-adds the neighbor rather than calling UpdatePeer: GoBGP's
// UpdatePeer (like a DeletePeer of a neighbor it holds a password for)
// first deletes the listener key and then re-installs it, leaving a moment
// in which an unsigned SYN from the peer would be accepted and handed to
// the re-added neighbor. A DeletePeer from the API carries no password, so
// GoBGP leaves our listener key alone, and while the neighbor is gone GoBGP
// closes any connection from its address.
func (m *Manager) readd(ctx context.Context, p *config.Peer, adminDown bool, pol *api.ApplyPolicy) error {
	ap, err := apiPeer(p, adminDown)
	if err != nil {
		return err
	}
	m.markRestarting(ap.GracefulRestart)
	ap.ApplyPolicy = pol
	if err := m.bgp.DeletePeerIn(ctx, p.VRF, p.Address.String()); err != nil {
		return err
	}
	return m.bgp.AddPeerIn(ctx, p.VRF, ap)
}

// updateLimits gives GoBGP the static peer's neighbor with its new prefix
// limit, in place: GoBGP's UpdatePeer changes a neighbor's prefix limits
// without a session reset. Only the limit differs (sameShape), and GoBGP
// holds no password (observeStatic replaces a neighbor that does), so
// UpdatePeer neither deletes nor re-adds the neighbor: the listener keys,
// which readd's comment fears for, are not touched.
func (m *Manager) updateLimits(ctx context.Context, p *config.Peer, adminDown bool) error {
	ap, err := apiPeer(p, adminDown)
	if err != nil {
		return err
	}
	if _, err := m.bgp.UpdatePeerIn(ctx, p.VRF, ap); err != nil {
		return fmt.Errorf("peers: peer %s: update its prefix limit (max-prefixes %d): %w", p.ID(), p.MaxPrefixes, err)
	}
	return nil
}

// addRange gives GoBGP a dynamic range: its peer group, then the range.
func (m *Manager) addRange(ctx context.Context, p *config.Peer, pol *api.ApplyPolicy) error {
	g, err := apiPeerGroup(p)
	if err != nil {
		return err
	}
	m.markRestarting(g.GracefulRestart)
	g.ApplyPolicy = pol
	if err := m.bgp.AddPeerGroupIn(ctx, p.VRF, g); err != nil {
		return fmt.Errorf("peers: dynamic range %s: %w", p.ID(), err)
	}
	if err := m.bgp.AddDynamicNeighbor(ctx, &api.DynamicNeighbor{Prefix: p.Prefix.String(), PeerGroup: g.Conf.PeerGroupName}); err != nil {
		_ = m.bgp.DeletePeerGroup(ctx, g.Conf.PeerGroupName)
		return fmt.Errorf("peers: dynamic range %s: %w", p.ID(), err)
	}
	return nil
}

// dropRange removes a range from GoBGP: the range first (so that no new
// sessions come), then the sessions GoBGP accepted through it (table: those
// the session table owned to it when the pass decided, and those GoBGP
// lists in its peer group), then its group. GoBGP leaves such sessions
// running when the range goes, and refuses to delete their peer group
// ("neighbor X is in use"): a removed or held-down range would keep its
// sessions, unseen in /status, and its group, so that adding the range
// back fails.
func (m *Manager) dropRange(ctx context.Context, p *config.Peer, table []netip.Addr) error {
	group := groupName(p.VRF, p.Prefix)
	var errs []error
	if err := m.bgp.DeleteDynamicNeighbor(ctx, p.Prefix.String(), group); err != nil {
		errs = append(errs, err)
	}
	for _, a := range m.rangeSessions(ctx, p, table) {
		if err := m.bgp.DeletePeerIn(ctx, p.VRF, a.String()); err != nil {
			m.log.WithError(err).WithField("peer", a.String()).Debug("dynamic neighbor already gone")
			continue
		}
		m.log.WithFields(logrus.Fields{"peer": a.String(), "prefix": p.ID()}).Info("session from the range closed")
	}
	if err := m.bgp.DeletePeerGroup(ctx, group); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("peers: remove dynamic range %s: %w", p.ID(), err)
	}
	return nil
}

// rangeTable lists the sessions of the session table that range c owns
// (m.mu held).
func (p *pass) rangeTable(c *config.Peer) []netip.Addr {
	var out []netip.Addr
	for _, a := range p.m.sessionAddrs() {
		if a.VRF == c.VRF && c.Prefix.Contains(a.Addr) && !p.isStatic(a) && p.rangeOwns(c, a.Addr) {
			out = append(out, a.Addr)
		}
	}
	return out
}

// rangeSessions lists the neighbors GoBGP accepted through range p: table
// (see rangeTable), and those GoBGP lists in p's peer group.
func (m *Manager) rangeSessions(ctx context.Context, p *config.Peer, table []netip.Addr) []netip.Addr {
	group := groupName(p.VRF, p.Prefix)
	seen := map[netip.Addr]bool{}
	var out []netip.Addr
	add := func(a netip.Addr) {
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	for _, a := range table {
		add(a)
	}
	ps, err := m.bgp.ListPeer(ctx, "")
	if err != nil {
		m.log.WithError(err).WithField("prefix", p.ID()).Warn("cannot list the range's sessions")
	}
	for _, gp := range ps {
		if gp.GetConf().GetPeerGroup() != group {
			continue
		}
		if a, err := netip.ParseAddr(gp.GetConf().GetNeighborAddress()); err == nil {
			add(a.Unmap())
		}
	}
	return out
}

// rangeOwns reports whether a session with a belongs to range c: c is the
// most specific range of the pass's config containing a, or c is no longer
// configured (a removed range's sessions are its own still).
func (p *pass) rangeOwns(c *config.Peer, a netip.Addr) bool {
	if p.in.Config.Peer(c.ID()) == nil {
		return true
	}
	return p.peerFor(nbr(c.VRF, a)) == c.ID()
}

// applyAO carries out a TCP-AO socket action.
func (p *pass) applyAO(a action) error {
	if p.in.AOPreflight != nil {
		return p.in.AOPreflight
	}
	switch a.kind {
	case actSetListenerAO:
		if p.listenPort == 0 {
			return nil
		}
		if _, err := p.socks.SetListenerAO(a.ao); err != nil {
			return fmt.Errorf("peers: peer %s (%s:%d): %w", a.peer.ID(), p.in.Config.File, a.peer.Line, err)
		}
		return nil
	case actDeleteListenerAO:
		if p.listenPort == 0 {
			return nil
		}
		return p.socks.DeleteListenerAO(a.ao.Prefix)
	}
	return p.socks.SetConnAO(a.local, a.remote, a.ao)
}

// errAONotLooked is the TCP-AO observation of a pass that did not read it:
// no TCP-AO peer is configured, or TCP-AO does not work here.
var errAONotLooked = errors.New("TCP-AO keys not read: no TCP-AO peer, or TCP-AO unusable here")

// observeAO reads the TCP-AO keys of the look's sockets when use (TCP-AO
// peers are configured and TCP-AO works here).
func observeAO(l Look, use bool) ([]tcpsock.AOSocket, error) {
	if !use {
		return nil, errAONotLooked
	}
	return l.ObserveAO()
}

// lookCounts is how often a pass walked /proc/self/fd and dumped
// sock_diag (a tcpsock.Scan's; zero for a fake).
type lookCounts struct{ walks, dumps int }

func countsOf(l Look) lookCounts { return lookCounts{walks: l.Walks(), dumps: l.Dumps()} }

// dialKey is the dial hook (plugin.Host.OnDial): vrf's GoBGP instance is
// about to dial neighbor. It puts on the socket the key the last pass
// decided for the neighbor in that VRF (m.dials: it computes nothing; the
// same address in another VRF is another peer, with its own key), before
// connect: a TCP-MD5 key,
// or the TCP-AO MKTs with the current key and RNextKeyID. Anything else
// refuses the dial (no SYN leaves): a neighbor the pass has no decision
// for, a held-down peer, a key the kernel refuses. A dial deferred for the
// peer's own (waitForPeer) first waits the deferral out (awaitDial). The
// outcome is kept for /status (auth.dial_error). It runs on GoBGP's connect
// goroutine, never under m.mu (the pass may be calling GoBGP).
func (m *Manager) dialKey(ctx context.Context, vrf string, addr netip.Addr, remote netip.AddrPort, c syscall.RawConn) error {
	neighbor := nbr(vrf, addr)
	if err := m.awaitDial(ctx, neighbor); err != nil {
		return err
	}
	m.dialMu.Lock()
	defer m.dialMu.Unlock()
	d, ok := m.dials[neighbor]
	var err error
	switch {
	case ok && d.refuse == nil && m.deferDial(neighbor):
		m.log.WithField("peer", d.id).Debug("dial deferred: waiting for the peer's own dial")
		return fmt.Errorf("peers: dial to peer %s: %w", d.id, errDialDeferred)
	case !ok:
		err = fmt.Errorf("peers: dial to %s: %w: no static peer of the config has that address in %s", remote, ErrDialRefused, vrfName(vrf))
	case d.refuse != nil:
		err = fmt.Errorf("peers: dial to peer %s: %w: %w", d.id, ErrDialRefused, d.refuse)
	case d.mech == MechNone: // an unkeyed peer: nothing to set
	default:
		if d.mech == MechMD5 {
			err = m.socks.DialMD5(c, remote, d.md5)
		} else {
			err = m.socks.DialAO(c, remote, d.ao)
		}
		if err != nil {
			err = fmt.Errorf("peers: dial to peer %s: key not set, not connecting (fail closed): %w", d.id, err)
		}
	}
	m.dialNoted(neighbor, d.id, err)
	return err
}

// applyPolicy carries out actSetPolicies and actSetAssignment
// (pass_policy.go): GoBGP's policies, or an assignment and the soft reset
// of its established sessions in the directions that changed.
func (p *pass) applyPolicy(ctx context.Context, a action) error {
	pb, ok := p.m.bgp.(policyBGP)
	if !ok {
		return errors.New("peers: GoBGP here cannot take routing policies")
	}
	pa := a.pol
	if a.kind == actSetPolicies {
		return pb.SetPolicies(ctx, pa.rp)
	}
	if pa.group != nil {
		if _, err := pb.UpdatePeerGroup(ctx, pa.group); err != nil {
			return err
		}
	}
	for _, addr := range pa.addrs {
		name := addr.String()
		for _, as := range pa.assignments(name) {
			if err := pb.SetPolicyAssignmentIn(ctx, pa.vrf, as); err != nil {
				return err
			}
		}
		if pa.established[addr] {
			if err := p.m.bgp.ResetPeerIn(ctx, pa.vrf, name, "", true, pa.dir); err != nil {
				return fmt.Errorf("peers: soft reset of %s: %w", name, err)
			}
		}
	}
	return nil
}
