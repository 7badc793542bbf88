package peers

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"time"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/tcpsock"
)

// Scopes: interface ("unnumbered") peers and peers in VRFs. An interface
// peer has no configured address: its IPv6 link-local address is learnt
// from the kernel's neighbor table (the rule of GoBGP's neighbor-interface,
// ndp.Resolve), and the advertiser (ndp, wired by the speaker) sends
// router advertisements on its interface so that the far end learns ours.
// A VRF peer's keys are scoped to the VRF device's ifindex (its l3index),
// and its dials are bound to the device. Both are inputs a pass observes
// (ObserveScopes, outside the lock) and records; ComputeDesired turns them
// into the peer's effective config (the learnt address filled in) and the
// l3index its keys carry. A key that cannot be scoped is never installed
// unscoped: the peer is held down.

// Link is what a pass observed of an interface peer's interface.
type Link struct {
	// Peer is the learnt link-local address of the far end, its zone the
	// interface; invalid while none is known.
	Peer netip.Addr
	// Err is why no address is known (ndp.ErrNoNeighbor, ...) or why the
	// interface cannot be used (missing).
	Err error
	// IfIndex is the interface's index.
	IfIndex int
	// VRF is the VRF device the interface is enslaved to ("" none), and
	// VRFIndex its ifindex.
	VRF      string
	VRFIndex int
	// MasterErr is why the interface's master could not be read.
	MasterErr error
}

// VRF is what a pass observed of a VRF device.
type VRF struct {
	Index int   // the device's ifindex: the l3index keys are scoped to
	Err   error // missing, not a VRF
}

// ScopeObserver reads the kernel's view of interfaces and VRFs (ndp and
// netdev; a fake in tests). Its calls do I/O: a pass makes them before it
// takes the lock.
type ScopeObserver interface {
	Link(ifname string) Link
	VRF(name string) VRF
}

// Advertiser sends router advertisements on the interfaces it is given
// (ndp.Advertiser): so that the far end of an unnumbered link, FRR or
// another authbgpd, learns our link-local address. Set is told the whole
// wanted set each pass and must not block.
type Advertiser interface {
	Set(ifnames []string)
}

// Errors of scoped peers, for errors.Is.
var (
	// ErrNoLinkLocal marks an interface peer whose address is not learnt
	// yet: it is not in GoBGP, and nothing is keyed for it.
	ErrNoLinkLocal = errors.New("the peer's link-local address is not known yet")
	// ErrScope marks a peer whose VRF or interface cannot be used: its
	// keys cannot be scoped, so it is held down (never keyed unscoped).
	ErrScope = errors.New("cannot scope the peer's keys")
)

// unresolvedRetry is how soon a pass looks again for an interface peer's
// address that is not known yet.
const unresolvedRetry = time.Second

// scopeNames lists the interfaces and VRFs cfg's peers name.
func scopeNames(cfg *config.Config) (ifs, vrfs []string) {
	seenIf, seenVRF := map[string]bool{}, map[string]bool{}
	for i := range cfg.Peers {
		p := &cfg.Peers[i]
		if p.Interface != "" && !seenIf[p.Interface] {
			seenIf[p.Interface] = true
			ifs = append(ifs, p.Interface)
		}
		if p.VRF != "" && !seenVRF[p.VRF] {
			seenVRF[p.VRF] = true
			vrfs = append(vrfs, p.VRF)
		}
	}
	return ifs, vrfs
}

// observeScopes asks so (no lock held) about every interface and VRF cfg
// names.
func observeScopes(so ScopeObserver, adv Advertiser, cfg *config.Config) (map[string]Link, map[string]VRF) {
	if cfg == nil {
		return nil, nil
	}
	ifs, vrfs := scopeNames(cfg)
	if adv != nil {
		adv.Set(ifs)
	}
	if so == nil {
		return nil, nil
	}
	links := make(map[string]Link, len(ifs))
	for _, n := range ifs {
		links[n] = so.Link(n)
	}
	vs := make(map[string]VRF, len(vrfs))
	for _, n := range vrfs {
		vs[n] = so.VRF(n)
	}
	return links, vs
}

// learn records a pass's observation of the links (m.mu held): a learnt
// address stays the peer's until another is learnt, as GoBGP's stays from
// its add (a neighbor entry that expires while the session is down does
// not take the peer out of GoBGP).
func (m *Manager) learn(links map[string]Link) map[string]Link {
	out := make(map[string]Link, len(links))
	for n, l := range links {
		switch {
		case l.Peer.IsValid():
			if old, ok := m.learnt[n]; ok && old != l.Peer {
				m.log.WithField("peer", n).WithField("address", l.Peer.String()).WithField("was", old.String()).Warn("interface peer: the far end's link-local address changed")
			} else if !ok {
				m.log.WithField("peer", n).WithField("address", l.Peer.String()).Info("interface peer: learnt the far end's link-local address")
			}
			m.learnt[n] = l.Peer
		case errors.Is(l.Err, ErrNoDevice) || (l.Err == nil && l.MasterErr == nil):
			delete(m.learnt, n) // the interface is gone
		default:
			if old, ok := m.learnt[n]; ok {
				l.Peer = old // kept; Err says what the table shows now
			}
		}
		out[n] = l
	}
	for n := range m.learnt {
		if _, ok := links[n]; !ok {
			delete(m.learnt, n)
		}
	}
	return out
}

// ErrNoDevice marks an interface or VRF device that does not exist (the
// ScopeObserver wraps it).
var ErrNoDevice = errors.New("no such device")

// scoped is p's effective config for a pass (pure): an interface peer
// with its learnt address, and the l3index its keys are scoped to. A peer
// whose scope cannot be used gets an error (it is held down); an interface
// peer whose address is not known yet gets ErrNoLinkLocal and an invalid
// Address.
func scoped(in Inputs, p *config.Peer) (*config.Peer, int, error) {
	where := func() string { return fmt.Sprintf("%s:%d", in.Config.File, p.Line) } // for errors only: this runs per peer per pass
	l3 := 0
	if p.VRF != "" {
		v, ok := in.VRFs[p.VRF]
		switch {
		case !ok:
			return p, 0, fmt.Errorf("peers: peer %s (%s): VRF %q not observed yet: %w", p.ID(), where(), p.VRF, ErrScope)
		case v.Err != nil:
			return p, 0, fmt.Errorf("peers: peer %s (%s): VRF %q: %w: %w", p.ID(), where(), p.VRF, ErrScope, v.Err)
		}
		l3 = v.Index
	}
	if !p.IsInterface() {
		return p, l3, nil
	}
	q := *p
	q.Address = netip.Addr{}
	l, ok := in.Links[p.Interface]
	switch {
	case !ok:
		return &q, l3, fmt.Errorf("peers: peer %s (%s): interface not observed yet: %w", p.ID(), where(), ErrNoLinkLocal)
	case l.MasterErr != nil:
		return &q, l3, fmt.Errorf("peers: peer %s (%s): cannot read the VRF of interface %s: %w: %w", p.ID(), where(), p.Interface, ErrScope, l.MasterErr)
	case l.VRF != p.VRF:
		return &q, l3, fmt.Errorf("peers: peer %s (%s): interface %s is in %s, but the peer's vrf is %s: %w", p.ID(), where(), p.Interface, vrfName(l.VRF), vrfName(p.VRF), ErrScope)
	case !l.Peer.IsValid() && errors.Is(l.Err, ErrNoDevice):
		return &q, l3, fmt.Errorf("peers: peer %s (%s): %w: %w", p.ID(), where(), ErrScope, l.Err)
	case !l.Peer.IsValid():
		err := l.Err
		if err == nil {
			err = errors.New("no neighbor seen")
		}
		return &q, l3, fmt.Errorf("peers: peer %s (%s): %w (router advertisements are sent on %s; waiting for the far end's): %w", p.ID(), where(), ErrNoLinkLocal, p.Interface, err)
	}
	q.Address = l.Peer.WithZone(p.Interface)
	return &q, l3, nil
}

func vrfName(v string) string {
	if v == "" {
		return "the default VRF"
	}
	return "VRF " + v
}

// guards puts the desired link-local guards on the listeners (planGuards)
// and records the outcome (recordGuards).
func (p *pass) guards() {
	m := p.m
	for _, a := range planGuards(p.d.Guards, m.guardsSet, m.guarded, p.listenPort, p.full) {
		p.recordGuards(a.guards, p.act(a))
	}
}

// planGuards is the guard stage's plan (pure): the desired guards want
// go on the listeners every full pass while there are or were any (set:
// the last ones put there; guarded: there are some), as the filter cannot
// be read back, and on a light pass when they changed. None when GoBGP
// does not listen (listenPort 0).
func planGuards(want, set []tcpsock.Guard, guarded bool, listenPort uint16, full bool) []action {
	same := slices.Equal(want, set)
	if listenPort == 0 || (len(want) == 0 && !guarded) || (!full && same) {
		return nil
	}
	return []action{{kind: actSetGuards, guards: want, quiet: same}}
}

// recordGuards records the outcome of putting the guards want on the
// listeners. When they cannot be put there, the peers that share another's
// listener key are held down (fail closed): GoBGP refuses connections for
// an administratively down neighbor, so a host on their link holding the
// owner's key is not taken for them.
func (p *pass) recordGuards(want []tcpsock.Guard, err error) {
	m := p.m
	if err == nil {
		if !slices.Equal(want, m.guardsSet) {
			m.log.WithField("guards", len(want)).Info("reconcile: link-local guards on the listeners: a shared far-end address is taken only from its owner's interface")
		}
		m.guardsSet, m.guarded = slices.Clone(want), len(want) > 0
		for id, w := range p.d.Peers {
			if w.SharesListener != "" && errors.Is(m.held[id], errGuard) {
				delete(m.held, id)
			}
		}
		return
	}
	for id, w := range p.d.Peers {
		if w.SharesListener == "" {
			continue
		}
		herr := fmt.Errorf("peers: peer %s (%s:%d): its far end's address %s is also peer %s's, and the listeners cannot be guarded to tell the two interfaces apart: %w: %w",
			id, m.cfg.File, w.Cfg.Line, w.Cfg.Address.WithZone(""), w.SharesListener, errGuard, err)
		if m.held[id] == nil {
			m.log.WithError(herr).Error("peer held down (fail closed)")
		}
		m.held[id] = herr
		if st := m.peers[id]; st != nil {
			st.err, st.obs.ok = herr, false
		}
	}
}

// l3mdevView is what a pass observed of the tcp_l3mdev_accept sysctl
// (observeL3mdev): it is on while VRF peers are configured (on), or it
// could not be read (err). The zero value: nothing to do.
type l3mdevView struct {
	on  bool
	err error
}

// planL3mdev is the sysctl's plan (pure): turn tcp_l3mdev_accept off when
// VRF peers are configured and it was seen on (each VRF's GoBGP instance
// listens bound to its VRF device, beside the default VRF's listener).
func planL3mdev(v l3mdevView) []action {
	if !v.on {
		return nil
	}
	return []action{{kind: actL3mdevAccept}}
}

// l3mdev turns tcp_l3mdev_accept off where the pass saw it on
// (planL3mdev), and records and logs the outcome.
func (p *pass) l3mdev() {
	m := p.m
	if p.l3.err != nil {
		m.log.WithError(p.l3.err).Warn("reconcile: cannot read net.ipv4.tcp_l3mdev_accept: the VRFs' GoBGP instances may not listen")
	}
	for _, a := range planL3mdev(p.l3) {
		if err := p.act(a); err != nil {
			m.log.WithError(err).Error("reconcile: VRF peers are configured, but net.ipv4.tcp_l3mdev_accept is 1 and cannot be set to 0: a VRF's GoBGP instance cannot listen beside the default VRF's")
			continue
		}
		if !m.l3mdevSet {
			m.log.Info("reconcile: VRF peers are configured: set net.ipv4.tcp_l3mdev_accept = 0 so each VRF's GoBGP instance listens in its VRF alone")
		}
		m.l3mdevSet = true
	}
}

// errGuard marks a peer held down because the listeners' guard is missing.
var errGuard = errors.New("link-local guard not installed")
