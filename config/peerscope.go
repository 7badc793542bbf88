package config

import (
	"net/netip"
	"sort"
	"strings"
)

// MaxIfNameLen is the longest interface or VRF device name Linux takes
// (IFNAMSIZ - 1 bytes).
const MaxIfNameLen = 15

// ifNameRule says what validIfName accepts, for messages.
const ifNameRule = `1..15 bytes, no '/', ':' or whitespace, not "." or ".."`

// ScopedID is the ID of the peer named name (an address or a prefix) in
// vrf: name itself in the default VRF, else "VRF/name" ("blue/192.0.2.2",
// "blue/198.51.100.0/24"). Neither '%' (an IPv6 zone: fe80::2%eth1 is an
// interface peer's address in /status) nor ':' (in IPv6 addresses) would
// be unambiguous; a device name has no '/', and the part before the first
// '/' of a default-VRF prefix is an address, never a VRF's name
// (SplitScopedID).
func ScopedID(vrf, name string) string {
	if vrf == "" {
		return name
	}
	return vrf + "/" + name
}

// SplitScopedID is the inverse of ScopedID: the VRF and the name of id
// ("" and id for a default-VRF peer's or an interface peer's ID). A VRF
// is never named like an address (validateVRF).
func SplitScopedID(id string) (vrf, name string) {
	v, rest, ok := strings.Cut(id, "/")
	if !ok || isAddr(v) {
		return "", id // an address, an interface, or a default-VRF prefix
	}
	return v, rest
}

func isAddr(s string) bool { _, err := netip.ParseAddr(s); return err == nil }

// validIfName reports whether Linux would take name as a network device
// name (dev_valid_name): 1..15 bytes, not "." or "..", no '/', ':', NUL
// or whitespace.
func validIfName(name string) bool {
	if name == "" || len(name) > MaxIfNameLen || name == "." || name == ".." {
		return false
	}
	return !strings.ContainsAny(name, "/:\x00 \t\n\v\f\r")
}

// vrfLabel names a VRF in messages: "VRF blue", or "the default VRF".
func vrfLabel(vrf string) string {
	if vrf == "" {
		return "the default VRF"
	}
	return "VRF " + vrf
}

// scopeKey is the key that names the peer: "address", "prefix" or
// "interface".
func (p *Peer) scopeKey() string {
	switch {
	case p.Prefix.IsValid():
		return "prefix"
	case p.Address.IsValid():
		return "address"
	case p.Interface != "":
		return "interface"
	}
	return ""
}

// validatePeerScope checks what names a peer (exactly one of address,
// prefix and interface) and its vrf, and returns the label its errors
// use: "[[peers]]", "[[peers]] ADDRESS-OR-PREFIX" or
// "[[peers]] interface NAME".
func validatePeerScope(p *problems, pr *Peer) string {
	validateVRF(p, pr)
	var set []string
	bad := false
	for _, k := range []string{"address", "prefix", "interface"} {
		if pr.m.isBad(k) {
			bad = true // reported
			continue
		}
		switch {
		case k == "address" && pr.Address.IsValid(),
			k == "prefix" && pr.Prefix.IsValid(),
			k == "interface" && (pr.Interface != "" || pr.m.has("interface")):
			set = append(set, k)
		}
	}
	sort.SliceStable(set, func(i, j int) bool { return pr.LineOf(set[i]) < pr.LineOf(set[j]) })
	switch {
	case len(set) == 0 && bad: // already reported
	case len(set) == 0:
		p.errorf(pr.Line, "[[peers]]: address, prefix or interface is missing (exactly one is required)")
	case len(set) == 2 && !pr.m.has("interface") && pr.Interface == "":
		key, other := set[1], set[0]
		p.errorf(pr.LineOf(key), "%s: set address or prefix, not both (%s is at line %d)", key, other, pr.LineOf(other))
	case len(set) > 1:
		for _, k := range set[1:] {
			p.errorf(pr.LineOf(k), "%s: set one of address, prefix and interface, not more (%s is at line %d)", k, set[0], pr.LineOf(set[0]))
		}
	case set[0] == "address":
		switch {
		case pr.Address.Zone() != "":
			p.errorf(pr.LineOf("address"), "address: %s: zones are not supported (for a peer on a link, set interface = %q instead)", pr.Address, pr.Address.Zone())
		case pr.Address.IsUnspecified() || pr.Address.IsMulticast():
			p.errorf(pr.LineOf("address"), "address: %s is not a unicast address", pr.Address)
		}
		return "[[peers]] " + pr.Address.String()
	case set[0] == "prefix":
		if pr.Prefix.Addr().Zone() != "" {
			p.errorf(pr.LineOf("prefix"), "prefix: %s: zones are not supported", pr.Prefix)
		} else if m := pr.Prefix.Masked(); m != pr.Prefix {
			p.errorf(pr.LineOf("prefix"), "prefix: %s has host bits set (did you mean %s?)", pr.Prefix, m)
		}
		return "[[peers]] " + pr.Prefix.String()
	default:
		return validateInterfaceName(p, pr)
	}
	return "[[peers]]"
}

// validateInterfaceName checks an interface peer's interface: a name
// Linux takes, and not one that reads as an address or a prefix (it is
// the peer's ID, which must not collide with another peer's).
func validateInterfaceName(p *problems, pr *Peer) string {
	n, line := pr.Interface, pr.LineOf("interface")
	if !validIfName(n) {
		p.errorf(line, "interface: %q is not an interface name (%s)", n, ifNameRule)
		return "[[peers]]"
	}
	if _, err := netip.ParseAddr(n); err == nil {
		p.errorf(line, "interface: %q is an IP address, not an interface name (for a numbered peer, set address = %q)", n, n)
		return "[[peers]]"
	}
	return "[[peers]] interface " + n
}

// validateVRF checks a peer's vrf: a device name Linux takes, not an IP
// address (SplitScopedID), and not "default" (the default VRF is vrf
// unset; iproute2's "ip vrf exec default" means it too, so a device of
// that name would be a trap).
func validateVRF(p *problems, pr *Peer) { validateVRFName(p, &pr.m, pr.Line, pr.VRF) }

// validateVRFName checks the vrf key of a table (m, whose header is at
// line) as validateVRF does, and reports whether it is fine.
func validateVRFName(p *problems, m *meta, line int, vrf string) bool {
	if m.isBad("vrf") || (vrf == "" && !m.has("vrf")) {
		return !m.isBad("vrf")
	}
	line = m.lineOf("vrf", line)
	switch {
	case !validIfName(vrf):
		p.errorf(line, "vrf: %q is not a VRF device name (%s); leave vrf unset for the default VRF", vrf, ifNameRule)
	case vrf == "default":
		p.errorf(line, `vrf: "default": leave vrf unset for the default VRF (a VRF device cannot be called default)`)
	case isAddr(vrf):
		p.errorf(line, "vrf: %q is an IP address, not a VRF device name (a VRF peer's ID, %s, must not read as a default-VRF prefix)", vrf, ScopedID(vrf, "ADDRESS"))
	default:
		return true
	}
	return false
}

// validatePeerIdentity checks pr against the peers before it (seen, by
// ID): one address, range or interface is one peer in a VRF. The same
// address or range in two VRFs is two peers (their IDs differ: ScopedID):
// each VRF has a GoBGP instance of its own, its listeners bound to the
// VRF device, and each peer's key is scoped to its VRF.
func validatePeerIdentity(p *problems, pr *Peer, seen map[string]*Peer) {
	id, key := pr.ID(), pr.scopeKey()
	if id == "" || key == "" {
		return
	}
	if key == "interface" {
		if _, err := netip.ParseAddr(id); err == nil || !validIfName(id) {
			return // refused by validateInterfaceName
		}
	}
	line := pr.LineOf(key)
	o, dup := seen[id]
	if !dup {
		seen[id] = pr
		return
	}
	_, name := SplitScopedID(id)
	oline := o.LineOf(o.scopeKey())
	switch {
	case key == "interface" && o.VRF != pr.VRF:
		p.errorf(line, "interface: duplicate peer %s (also at line %d, in %s; an interface is in one VRF at most)", id, oline, vrfLabel(o.VRF))
	case pr.VRF == "":
		p.errorf(line, "%s: duplicate peer %s (also at line %d)", key, name, oline)
	default:
		p.errorf(line, "%s: duplicate peer %s in %s (also at line %d)", key, name, vrfLabel(pr.VRF), oline)
	}
}

// validateInterfacePeer checks what an interface peer allows: no
// local-address (the session runs from the interface's link-local address,
// which the kernel picks: the embedded GoBGP can neither bind a zoned
// address and announce it as next hop nor bind one without its zone), and
// no multihop (a link-local address is one hop away).
func validateInterfacePeer(p *problems, pr *Peer) {
	if a := pr.LocalAddress; a.IsValid() && !pr.m.isBad("local-address") {
		p.errorf(pr.LineOf("local-address"), "local-address: %s: an interface peer's session runs from %s's own link-local address (the kernel picks it, and it is the next hop we announce); remove local-address", a, pr.Interface)
	}
	if pr.MultihopTTL != 0 && !pr.m.isBad("multihop-ttl") {
		p.errorf(pr.LineOf("multihop-ttl"), "multihop-ttl: %d: an interface peer is directly connected (its IPv6 link-local address is one hop away); remove multihop-ttl", pr.MultihopTTL)
	}
}

// InterfacePeer is the interface peer of interface name (nil when none).
func (c *Config) InterfacePeer(name string) *Peer {
	for i := range c.Peers {
		if p := &c.Peers[i]; p.IsInterface() && p.Interface == name {
			return p
		}
	}
	return nil
}
