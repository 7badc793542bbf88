package peers

import (
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"sort"
	"time"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/keys"
	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/tcpao"
	"github.com/authbgp/authbgpd/tcpsock"
)

// Mechanism names how a peer's TCP segments are authenticated.
type Mechanism string

// The mechanisms a Key can carry. TCP-AO joins them with its master key
// tuples; the reconciler compares and installs Keys, never bare secrets.
const (
	MechNone  Mechanism = ""
	MechMD5   Mechanism = "md5"
	MechTCPAO Mechanism = "tcp-ao"
)

// Key is what a peer's sockets must carry: one mechanism and its material.
// For TCP-MD5 that is one secret and the keychain key it came from.
type Key struct {
	Mech Mechanism
	// MD5 is the TCP-MD5 secret (Mech == MechMD5); nil when the peer is
	// keyed but has no usable key (a keychain whose keys all start later).
	MD5 keys.Secret
	// KeyID is the keychain key id, -1 when the key is not from a keychain.
	KeyID int
	// AO is a TCP-AO peer's set (Mech == MechTCPAO): every MKT of its
	// keychain, and the active key's SendID and RecvID as the current key
	// and RNextKeyID of its connections.
	AO tcpsock.AOSet
}

// Keyed reports whether the peer must be authenticated at all.
func (k Key) Keyed() bool { return k.Mech != MechNone }

// Usable reports whether k has material that can be put on a socket.
func (k Key) Usable() bool {
	switch k.Mech {
	case MechMD5:
		return len(k.MD5) > 0
	case MechTCPAO:
		return len(k.AO.Keys) > 0 && k.AO.Current >= 0
	}
	return false
}

// Equal compares two keys; secrets are compared in constant time.
func (k Key) Equal(o Key) bool {
	return k.Mech == o.Mech && k.KeyID == o.KeyID && k.MD5.Equal(o.MD5) && sameAOSet(k.AO, o.AO)
}

// sameAOSet compares two TCP-AO sets, secrets in constant time.
func sameAOSet(a, b tcpsock.AOSet) bool {
	if a.Prefix != b.Prefix || a.IfIndex != b.IfIndex || a.Current != b.Current || a.RNext != b.RNext || a.AcceptICMPs != b.AcceptICMPs || len(a.Keys) != len(b.Keys) {
		return false
	}
	for i := range a.Keys {
		x, y := a.Keys[i], b.Keys[i]
		if x.Prefix != y.Prefix || x.Alg != y.Alg || x.MACLen != y.MACLen || x.SendID != y.SendID || x.RecvID != y.RecvID ||
			x.ExcludeOptions != y.ExcludeOptions || x.IfIndex != y.IfIndex || !x.Secret.Equal(y.Secret) {
			return false
		}
	}
	return true
}

// cloneAOSet copies s with secrets of its own (the config's stay the
// config's).
func cloneAOSet(s tcpsock.AOSet) tcpsock.AOSet {
	c := s
	c.Keys = make([]tcpsock.AOKey, len(s.Keys))
	for i, k := range s.Keys {
		k.Secret = append(keys.Secret(nil), k.Secret...)
		c.Keys[i] = k
	}
	return c
}

// wipeAOSet clears the secrets of a set made by cloneAOSet.
func wipeAOSet(s tcpsock.AOSet) {
	for _, k := range s.Keys {
		k.Secret.Wipe()
	}
}

// Want is the desired state of one configured peer.
type Want struct {
	Cfg *config.Peer
	Key Key
	// Pin is the accepted proposal (a keychain key id the peer was proven
	// to use) that still rules, ahead of the schedule; -1 when none.
	Pin int
	// HeldDown: the peer must not run (fail closed): its key is not usable
	// or could not be installed, or its scope cannot be used. Err says why.
	HeldDown bool
	Err      error
	// IfIndex is the l3index (VRF device) the peer's keys are scoped to,
	// 0 for none.
	IfIndex int
	// SharesListener names the interface peer whose key the listeners
	// carry for this peer's address ("" when it is this peer's own; see
	// shareListeners).
	SharesListener string
}

// Unresolved reports an interface peer whose address is not learnt yet:
// GoBGP has no neighbor for it and no socket is keyed for it.
func (w Want) Unresolved() bool { return !w.Cfg.IsDynamic() && !w.Cfg.Address.IsValid() }

// Inputs is everything the desired state depends on. The triggers record
// these; nothing else goes into a pass's decisions.
type Inputs struct {
	Config *config.Config
	Now    time.Time
	// Proposals are the accepted proposals of the shadow checker
	// (follow-peer-rollover): peer ID -> keychain key id.
	Proposals map[string]int
	// Held are the key install failures of earlier passes, per peer ID: a
	// peer stays held down until an install of its key succeeds.
	Held map[string]error
	// Preflight is what makes the kernel's TCP-MD5 unusable here (FIPS,
	// no support); nil when it works.
	Preflight error
	// AOPreflight is what makes TCP-AO unusable here (no CONFIG_TCP_AO,
	// sockets that cannot take TCP-AO keys); nil when it works.
	AOPreflight error
	// AOAlgorithms is the last probe of the TCP-AO algorithms the kernel
	// accepts (at start and each reload): a TCP-AO peer with a key of an
	// algorithm it refused is held down (tcpsock.ErrAOAlgorithm).
	AOAlgorithms tcpsock.AOAlgorithms
	// Links and VRFs are what the pass observed of the interfaces and VRF
	// devices the peers name (scope.go).
	Links map[string]Link
	VRFs  map[string]VRF
}

// Desired is the desired state of every configured peer.
type Desired struct {
	Peers map[string]Want
	// NextSwitch is when a keychain next changes some peer's key (zero
	// when none will): the time of the next pass.
	NextSwitch time.Time
	// Guards are the link-local guards the listeners must carry: for an
	// address two interface peers' far ends share, the owner's interface
	// (shareListeners).
	Guards []tcpsock.Guard
}

// IDs returns the peer IDs of d, sorted.
func (d Desired) IDs() []string {
	ids := make([]string, 0, len(d.Peers))
	for id := range d.Peers {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// ErrNoValidKey marks a keyed peer whose keychain has no key valid now.
var ErrNoValidKey = errors.New("no key valid now")

// ErrMechanismUnsupported marks a peer whose authentication cannot be put
// on sockets here (TCP-AO without kernel support): it is held down, never
// run unsigned.
var ErrMechanismUnsupported = errors.New("TCP-AO cannot be used here")

// aoKey is a TCP-AO peer's key at now: every MKT of its keychain, the
// active one (the schedule's) as current key and RNextKeyID. Proposals
// do not apply: the kernel follows the peer's RNextKeyID by itself.
func aoKey(cfg *config.Config, p *config.Peer, now time.Time) (Key, int, error) {
	kc := cfg.Keychain(p.Keychain)
	k := Key{Mech: MechTCPAO, KeyID: -1, AO: tcpsock.AOSet{Prefix: scopeOf(p), Current: -1, RNext: -1}}
	if kc == nil {
		return k, -1, noKeyError(cfg, p, now)
	}
	k.AO.AcceptICMPs = kc.AcceptICMPs
	for _, ck := range kc.Keys {
		k.AO.Keys = append(k.AO.Keys, tcpsock.AOKey{Prefix: k.AO.Prefix, Alg: kernelAlg(ck.Algorithm), Secret: ck.Secret,
			SendID: ck.SendID, RecvID: ck.RecvID, ExcludeOptions: !ck.IncludeTCPOptions, MACLen: uint8(ck.MACLen)})
	}
	active, ok := kc.Active(now)
	if !ok {
		return k, -1, noKeyError(cfg, p, now)
	}
	k.KeyID, k.AO.Current, k.AO.RNext = int(active.ID), int(active.SendID), int(active.RecvID)
	return k, -1, nil
}

// kernelAlg is the kernel's name of a config's TCP-AO algorithm
// ("hmac(sha256)" for hmac-sha-256, ...).
func kernelAlg(a string) string {
	if alg, err := tcpao.ParseAlgorithm(a); err == nil {
		return alg.LinuxName()
	}
	return tcpsock.AOAlgHMACSHA1 // config validated it
}

// scopeOf is the peer's address as a prefix, or its range.
func scopeOf(p *config.Peer) netip.Prefix {
	if p.IsDynamic() {
		return p.Prefix.Masked()
	}
	return netip.PrefixFrom(p.Address.WithZone(""), p.Address.BitLen())
}

// ComputeDesired is the pure heart of a pass: which peers run, with which
// key, and which are held down. It does no I/O. It is desiredOf(in) with
// the install failures of earlier passes held down (holdFailed).
func ComputeDesired(in Inputs) Desired { return holdFailed(desiredOf(in), in.Held) }

// desiredOf is the desired state of in without in.Held (pure): a pass
// computes it once, and holds down the failures of earlier passes and then
// of its own key stage with holdFailed.
func desiredOf(in Inputs) Desired {
	d := Desired{Peers: make(map[string]Want, len(in.Config.Peers))}
	for i := range in.Config.Peers {
		p := &in.Config.Peers[i]
		pin, ok := in.Proposals[p.ID()]
		if !ok {
			pin = -1
		}
		q, l3, serr := scoped(in, p)
		w := Want{Cfg: q, Pin: -1, IfIndex: l3}
		var err error
		w.Key, w.Pin, err = wantKey(in.Config, q, in.Now, pin)
		var algErr error
		if w.Key.Mech == MechTCPAO {
			scopeAO(&w.Key.AO, l3)
			algErr = missingAlgorithm(in.Config, q, in.AOAlgorithms)
		}
		switch {
		case serr != nil:
			w.HeldDown, w.Err = true, serr
			if errors.Is(serr, ErrNoLinkLocal) && (d.NextSwitch.IsZero() || in.Now.Add(unresolvedRetry).Before(d.NextSwitch)) {
				d.NextSwitch = in.Now.Add(unresolvedRetry)
			}
		case !w.Key.Keyed():
		case w.Key.Mech == MechMD5 && in.Preflight != nil:
			w.HeldDown, w.Err = true, in.Preflight
		case w.Key.Mech == MechTCPAO && in.AOPreflight != nil:
			w.HeldDown, w.Err = true, fmt.Errorf("peers: peer %s (%s:%d): %w: %w", p.ID(), in.Config.File, p.Line, ErrMechanismUnsupported, in.AOPreflight)
		case algErr != nil:
			// A key the kernel cannot take: its MKTs cannot go on the
			// sockets, and the peer never runs unsigned.
			w.HeldDown, w.Err = true, algErr
		case err != nil:
			w.HeldDown, w.Err = true, err
		}
		d.Peers[p.ID()] = w
		if kc := in.Config.Keychain(p.Keychain); w.Key.Keyed() && kc != nil {
			if t, ok := kc.NextSwitch(in.Now); ok && (d.NextSwitch.IsZero() || t.Before(d.NextSwitch)) {
				d.NextSwitch = t
			}
		}
	}
	d.Guards = shareListeners(d, in.Links)
	return d
}

// holdFailed is d with every keyed peer whose key install failed (held,
// per peer ID: Inputs.Held) held down, for that failure (pure). A peer d
// holds down already keeps its own reason; an unkeyed one has nothing to
// install. d is not changed: a copy is returned when anything is held.
func holdFailed(d Desired, held map[string]error) Desired {
	out, copied := d, false
	for id, err := range held {
		w, ok := d.Peers[id]
		if !ok || err == nil || w.HeldDown || !w.Key.Keyed() {
			continue
		}
		if !copied {
			out.Peers, copied = maps.Clone(d.Peers), true
		}
		w.HeldDown, w.Err = true, err
		out.Peers[id] = w
	}
	return out
}

// shareListeners handles interface peers whose far ends use the same
// link-local address (fe80::2 on eth1 and on eth2), in the same VRF: a
// listener's keys are per address and l3index, so it can carry the key of
// only one of them. The first by ID owns the listener's key; the others
// are keyed on their own sockets only (GoBGP dials them, and the dial hook
// keys those), and their connections to our listeners fail the owner's
// key: they fail closed, never unsigned.
//
// A host on a non-owner's link that holds the owner's key would pass the
// listeners' check as that link's peer, so the listeners carry a guard for
// each shared address (tcpsock.Guard): its segments are taken only from the
// owner's interface. The guards are returned, in ID order.
func shareListeners(d Desired, links map[string]Link) []tcpsock.Guard {
	type scope struct {
		a  netip.Addr
		l3 int
	}
	owner := map[scope]string{}
	var guards []tcpsock.Guard
	guarded := map[scope]bool{}
	for _, id := range d.IDs() {
		w := d.Peers[id]
		if !w.Cfg.IsInterface() || w.Unresolved() || !w.Key.Keyed() {
			continue
		}
		s := scope{w.Cfg.Address.WithZone(""), w.IfIndex}
		o, ok := owner[s]
		if !ok {
			owner[s] = id
			continue
		}
		w.SharesListener = o
		d.Peers[id] = w
		if !guarded[s] {
			guarded[s] = true
			guards = append(guards, tcpsock.Guard{Addr: s.a, IfIndex: links[d.Peers[o].Cfg.Interface].IfIndex})
		}
	}
	return guards
}

// wantKey resolves p's key at now: the schedule of cfg, unless an accepted
// proposal (pin) names a newer key of the same keychain that the schedule
// has not reached yet. A pin the schedule caught up with, or whose key
// left the keychain, is dropped (keptPin -1).
func wantKey(cfg *config.Config, p *config.Peer, now time.Time, pin int) (k Key, keptPin int, err error) {
	switch p.Auth().Mode {
	case config.AuthNone:
		return Key{KeyID: -1}, -1, nil
	case config.AuthTCPAO:
		return aoKey(cfg, p, now)
	}
	if kc := cfg.Keychain(p.Keychain); kc != nil && pin >= 0 {
		if sched := kc.Schedule(); sched.Ahead(now, pin) {
			return Key{Mech: MechMD5, MD5: kc.Keys[sched.Active(now, pin)].Secret, KeyID: pin}, pin, nil
		}
	}
	s, id, ok := cfg.PeerKey(p, now)
	if !ok {
		return Key{Mech: MechMD5, KeyID: -1}, -1, noKeyError(cfg, p, now)
	}
	return Key{Mech: MechMD5, MD5: s, KeyID: id}, -1, nil
}

// noKeyError says why a keychain peer has no key, and when its first key
// starts if one will.
func noKeyError(cfg *config.Config, p *config.Peer, now time.Time) error {
	kc := cfg.Keychain(p.Keychain)
	if kc == nil {
		return fmt.Errorf("peers: peer %s (%s:%d): keychain %q does not exist: %w", p.ID(), cfg.File, p.Line, p.Keychain, ErrNoValidKey)
	}
	if t, ok := kc.NextSwitch(now); ok {
		return fmt.Errorf("peers: peer %s (%s:%d): keychain %q has no key valid now (its first key starts at %s): %w", p.ID(), cfg.File, p.Line, p.Keychain, t.UTC().Format(time.RFC3339), ErrNoValidKey)
	}
	return fmt.Errorf("peers: peer %s (%s:%d): keychain %q has no key valid now: %w", p.ID(), cfg.File, p.Line, p.Keychain, ErrNoValidKey)
}

// mdKey is the md5auth key (address or prefix scope) of p for secret,
// scoped to the VRF with ifindex l3 (0: none). A link-local address loses
// its zone: the kernel's keys carry none (the interface's listener and the
// dial's bound device tell interfaces apart).
func mdKey(p *config.Peer, l3 int, secret keys.Secret) md5auth.Key {
	var k md5auth.Key
	if p.IsDynamic() {
		k = md5auth.PrefixKey(p.Prefix, secret)
	} else {
		k = md5auth.AddrKey(p.Address.WithZone(""), secret)
	}
	k.IfIndex = l3
	return k
}

// scopeAO scopes a TCP-AO set's keys to the VRF with ifindex l3, and takes
// the zone off a link-local scope.
func scopeAO(s *tcpsock.AOSet, l3 int) {
	s.Prefix = netip.PrefixFrom(s.Prefix.Addr().WithZone(""), s.Prefix.Bits())
	s.IfIndex = l3
	for i := range s.Keys {
		s.Keys[i].Prefix = s.Prefix
		s.Keys[i].IfIndex = l3
	}
}
