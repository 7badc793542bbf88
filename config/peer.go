package config

import (
	"math"
	"net/netip"
	"slices"
)

// Peer is one [[peers]] entry: a single neighbor (Address), a range of
// dynamic neighbors (Prefix), or an unnumbered neighbor on an interface
// (Interface), exactly one of the three.
type Peer struct {
	Address netip.Addr   // valid for a single neighbor
	Prefix  netip.Prefix // valid for dynamic neighbors
	// Interface (interface) names the link of an unnumbered peer: its IPv6
	// link-local address is learnt at run time from the kernel's neighbor
	// table, as GoBGP's neighbor-interface does. "" for the other peers.
	Interface string
	// VRF (vrf) names the VRF device the peer's sessions are bound to, and
	// whose l3index scopes its keys; "" is the default VRF. An interface
	// peer's interface must be enslaved to it (or to none when it is ""):
	// the kernel knows that, so it is checked at run time, not here.
	VRF string
	ASN uint32

	// Password is the resolved secret when PasswordSource is "password",
	// "password-file" or "password-env"; PasswordRef names the file (as
	// resolved) or the variable.
	Password       Secret
	PasswordSource string
	PasswordRef    string
	// Keychain names a [[keychains]] entry (exclusive with Password*).
	Keychain string

	LocalAddress netip.Addr // invalid when unset
	Passive      bool
	MultihopTTL  uint8
	Families     []Family

	// HoldTime and KeepaliveInterval are the hold-time and
	// keepalive-interval keys, in seconds; 0 when unset (Timers applies
	// the defaults). The session uses the smaller of our hold time and the
	// neighbor's.
	HoldTime          uint16
	KeepaliveInterval uint16

	// GracefulRestart is graceful restart (RFC 4724) on the peer's
	// sessions: its graceful-restart key, else [global]'s;
	// GracefulRestartTime is [global] graceful-restart-time (gr.go).
	GracefulRestart     bool
	GracefulRestartTime uint16

	// MaxPrefixes (max-prefixes) is the most prefixes the peer may send
	// in each of its families (0: no limit); MaxPrefixesWarning
	// (max-prefixes-warning) the percent of it past which a warning is
	// logged (0: none). See prefixlimit.go.
	MaxPrefixes        uint32
	MaxPrefixesWarning uint8

	// The policy assignment, gobgpd's keys (policy.go):
	// import-policy-list, default-import-policy, export-policy-list,
	// default-export-policy ("" when unset: accept-route).
	ImportPolicyList    []string
	DefaultImportPolicy string
	ExportPolicyList    []string
	DefaultExportPolicy string

	// Line is the line of this peer's [[peers]] header.
	Line int
	m    meta
	// tcpao: Keychain names a TCP-AO keychain (set by validation).
	tcpao bool
}

// peerAttrs are the plain attributes of a [[peers]] entry, one row each:
// the key, how it is decoded, and whether two peers differ in it (which a
// reload's Diff reports by the key's name). Adding an attribute is its
// field in Peer and its row here (and, when GoBGP's neighbor carries it,
// its line in peers' neighbor builder). The identity (address, prefix,
// interface) and the key source are decoded and compared on their own.
var peerAttrs = append([]peerAttr{
	{"vrf", func(t *table, p *Peer) { decodeStr(t, "vrf", &p.VRF) }, func(a, b *Peer) bool { return a.VRF == b.VRF }},
	{"asn", func(t *table, p *Peer) { decodeUint(t, "asn", math.MaxUint32, &p.ASN) }, func(a, b *Peer) bool { return a.ASN == b.ASN }},
	{"local-address", func(t *table, p *Peer) { decodeAddr(t, "local-address", &p.LocalAddress) },
		func(a, b *Peer) bool { return a.LocalAddress == b.LocalAddress }},
	{"passive", decodePassive, func(a, b *Peer) bool { return a.Passive == b.Passive }},
	{"multihop-ttl", func(t *table, p *Peer) { decodeUint(t, "multihop-ttl", 255, &p.MultihopTTL) },
		func(a, b *Peer) bool { return a.MultihopTTL == b.MultihopTTL }},
	// The timers compare as the session uses them (Timers: the defaults
	// for the unset ones).
	{"hold-time", func(t *table, p *Peer) { decodeUint(t, "hold-time", math.MaxUint16, &p.HoldTime) },
		func(a, b *Peer) bool { x, _ := a.Timers(); y, _ := b.Timers(); return x == y }},
	{"keepalive-interval", func(t *table, p *Peer) { decodeUint(t, "keepalive-interval", math.MaxUint16, &p.KeepaliveInterval) },
		func(a, b *Peer) bool { _, x := a.Timers(); _, y := b.Timers(); return x == y }},
	{"graceful-restart", decodePeerGracefulRestart, func(a, b *Peer) bool {
		return a.GracefulRestart == b.GracefulRestart && (!a.GracefulRestart || a.GracefulRestartTime == b.GracefulRestartTime)
	}},
	{"families", decodeFamilies, func(a, b *Peer) bool { return slices.Equal(sortedCopy(a.Families), sortedCopy(b.Families)) }},
	{"max-prefixes", func(t *table, p *Peer) { decodeMin1(t, "max-prefixes", math.MaxUint32, &p.MaxPrefixes) },
		func(a, b *Peer) bool { return a.MaxPrefixes == b.MaxPrefixes }},
	{"max-prefixes-warning", func(t *table, p *Peer) { decodeMin1(t, "max-prefixes-warning", 100, &p.MaxPrefixesWarning) },
		func(a, b *Peer) bool { return a.MaxPrefixesWarning == b.MaxPrefixesWarning }},
}, policyAttrs...)

// peerAttr is a row of peerAttrs.
type peerAttr struct {
	key    string
	decode func(t *table, p *Peer)
	same   func(a, b *Peer) bool
}

func decodeStr(t *table, key string, to *string) {
	if s, ok := t.str(key); ok {
		*to = s
	}
}

func decodeUint[T ~uint8 | ~uint16 | ~uint32](t *table, key string, max int64, to *T) {
	if n, ok := t.integer(key, 0, max); ok {
		*to = T(n)
	}
}

func decodeAddr(t *table, key string, to *netip.Addr) {
	if t.has(key) {
		if a, ok := t.addr(key); ok {
			*to = a
		}
	}
}

// decodePassive: a dynamic range only accepts unless it says otherwise.
func decodePassive(t *table, p *Peer) {
	if b, ok := t.boolean("passive"); ok {
		p.Passive = b
	}
	if p.Prefix.IsValid() && !t.meta.has("passive") {
		p.Passive = true
	}
}

// decodeFamilies: the families listed, or the address family's unicast
// (both for an interface peer).
func decodeFamilies(t *table, p *Peer) {
	if t.has("families") {
		fs, _, _ := t.strings("families")
		p.Families = make([]Family, 0, len(fs))
		for _, f := range fs {
			p.Families = append(p.Families, Family(f))
		}
		return
	}
	switch {
	case p.IsInterface():
		// GoBGP's neighbor-interface default (RFC 8950: IPv4 routes
		// over the IPv6 link-local session, extended next hop).
		p.Families = []Family{IPv4Unicast, IPv6Unicast}
	case p.Address.Is6() || (p.Prefix.IsValid() && p.Prefix.Addr().Is6()):
		p.Families = []Family{IPv6Unicast}
	case p.Address.Is4() || (p.Prefix.IsValid() && p.Prefix.Addr().Is4()):
		p.Families = []Family{IPv4Unicast}
	}
}
