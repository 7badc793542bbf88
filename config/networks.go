package config

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// Network is one [[networks]] entry: a prefix authbgpd originates (announces
// as its own) into the RIB of its VRF, while it runs, to that VRF's peers.
type Network struct {
	// Prefix is canonical (no host bits set), IPv4 or IPv6.
	Prefix netip.Prefix
	// PrefixEnv names the environment variable prefix was read from
	// (prefix-env, for a prefix that differs per node); "" when prefix is
	// written in the file.
	PrefixEnv string
	// Communities (communities) and LargeCommunities (large-communities)
	// are sent with the prefix, in the order written.
	Communities      []Community
	LargeCommunities []LargeCommunity
	// VRF (vrf) is the VRF whose peers it is announced to; "" the default
	// VRF. Validation requires a peer in it.
	VRF string

	// Line is the line of this entry's [[networks]] header.
	Line int
	m    meta
}

func (n *Network) header() (*meta, *int) { return &n.m, &n.Line }

// LineOf returns the line of key in this [[networks]] entry, or its header's.
func (n *Network) LineOf(key string) int { return n.m.lineOf(key, n.Line) }

// ID names the network in messages and /status: its prefix, and " in VRF
// NAME" outside the default VRF. Two networks of a config never share it.
func (n *Network) ID() string {
	if n.VRF == "" {
		return n.Prefix.String()
	}
	return n.Prefix.String() + " in VRF " + n.VRF
}

// Same reports whether n and o announce the same route: the same prefix,
// VRF and communities.
func (n *Network) Same(o *Network) bool {
	return n.Prefix == o.Prefix && n.VRF == o.VRF &&
		slices.Equal(n.Communities, o.Communities) && slices.Equal(n.LargeCommunities, o.LargeCommunities)
}

// Community is a BGP community (RFC 1997): ASN:VALUE, 16 bits each.
type Community uint32

// The well-known communities a config may name (RFC 1997, RFC 3765).
const (
	CommunityNoExport          Community = 0xFFFFFF01
	CommunityNoAdvertise       Community = 0xFFFFFF02
	CommunityNoExportSubconfed Community = 0xFFFFFF03
)

var wellKnownCommunities = map[string]Community{
	"no-export":           CommunityNoExport,
	"no-advertise":        CommunityNoAdvertise,
	"no-export-subconfed": CommunityNoExportSubconfed,
}

// String is the community as the config writes it: a well-known name, or
// "ASN:VALUE".
func (c Community) String() string {
	for name, v := range wellKnownCommunities {
		if v == c {
			return name
		}
	}
	return strconv.Itoa(int(c>>16)) + ":" + strconv.Itoa(int(c&0xFFFF))
}

// ParseCommunity parses "ASN:VALUE" (each 0..65535) or a well-known name
// (no-export, no-advertise, no-export-subconfed).
func ParseCommunity(s string) (Community, error) {
	if c, ok := wellKnownCommunities[s]; ok {
		return c, nil
	}
	parts, err := splitUints(s, 2, 16)
	if err != nil {
		return 0, fmt.Errorf("%q is not a community (ASN:VALUE, each 0..65535, or no-export, no-advertise, no-export-subconfed)", s)
	}
	return Community(parts[0]<<16 | parts[1]), nil
}

// LargeCommunity is a BGP large community (RFC 8092):
// GLOBAL:LOCAL1:LOCAL2, 32 bits each.
type LargeCommunity struct{ Global, Local1, Local2 uint32 }

// String is "GLOBAL:LOCAL1:LOCAL2".
func (l LargeCommunity) String() string {
	return fmt.Sprintf("%d:%d:%d", l.Global, l.Local1, l.Local2)
}

// ParseLargeCommunity parses "GLOBAL:LOCAL1:LOCAL2" (each 0..4294967295).
func ParseLargeCommunity(s string) (LargeCommunity, error) {
	parts, err := splitUints(s, 3, 32)
	if err != nil {
		return LargeCommunity{}, fmt.Errorf("%q is not a large community (GLOBAL:LOCAL1:LOCAL2, each 0..4294967295)", s)
	}
	return LargeCommunity{uint32(parts[0]), uint32(parts[1]), uint32(parts[2])}, nil
}

// splitUints splits s at ':' into n unsigned decimal numbers of bits bits.
func splitUints(s string, n, bits int) ([]uint32, error) {
	f := strings.Split(s, ":")
	if len(f) != n {
		return nil, fmt.Errorf("want %d fields", n)
	}
	out := make([]uint32, n)
	for i, x := range f {
		if x == "" || x[0] == '+' {
			return nil, fmt.Errorf("bad field %q", x)
		}
		v, err := strconv.ParseUint(x, 10, bits)
		if err != nil {
			return nil, err
		}
		out[i] = uint32(v)
	}
	return out, nil
}

// parseNetworkPrefix parses a [[networks]] prefix: canonical, IPv4 or IPv6
// (not IPv4-mapped).
func parseNetworkPrefix(s string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(s)
	switch {
	case err != nil:
		return netip.Prefix{}, fmt.Errorf("%q is not a prefix (ADDRESS/LENGTH)", s)
	case p.Addr().Is4In6():
		return netip.Prefix{}, fmt.Errorf("%q is IPv4-mapped: write the IPv4 prefix", s)
	case p != p.Masked():
		return netip.Prefix{}, fmt.Errorf("%q has host bits set: write %s", s, p.Masked())
	}
	return p, nil
}

// validateNetworks checks the [[networks]] entries: a prefix each, a VRF
// some peer is in, no prefix twice in a VRF.
func (c *Config) validateNetworks(p *problems) {
	vrfs := map[string]bool{"": true}
	for i := range c.Peers {
		vrfs[c.Peers[i].VRF] = true
	}
	seen := map[string]*Network{}
	for i := range c.Networks {
		n := &c.Networks[i]
		if !n.Prefix.IsValid() {
			if !n.m.isBad("prefix") && !n.m.isBad("prefix-env") {
				missing(p, &n.m, n.Line, "[[networks]]", "prefix")
			}
		}
		if validateVRFName(p, &n.m, n.Line, n.VRF) && !vrfs[n.VRF] {
			p.errorf(n.LineOf("vrf"), "vrf: no [[peers]] entry is in VRF %s: a network is announced to the peers of its VRF", n.VRF)
		}
		if !n.Prefix.IsValid() {
			continue
		}
		id := n.ID()
		if o, dup := seen[id]; dup {
			key := "prefix"
			if n.PrefixEnv != "" {
				key = "prefix-env"
			}
			p.errorf(n.LineOf(key), "%s: duplicate network %s (also at line %d)", key, id, o.Line)
			continue
		}
		seen[id] = n
	}
}

// diffNetworks compares the networks by ID.
func (ch *Changes) diffNetworks(old, new *Config) {
	was := map[string]*Network{}
	for i := range old.Networks {
		was[old.Networks[i].ID()] = &old.Networks[i]
	}
	for i := range new.Networks {
		n := &new.Networks[i]
		o, ok := was[n.ID()]
		switch {
		case !ok:
			ch.NetworksAdded = append(ch.NetworksAdded, n.ID())
		case !o.Same(n):
			ch.NetworksChanged = append(ch.NetworksChanged, n.ID())
		}
		delete(was, n.ID())
	}
	for i := range old.Networks {
		if id := old.Networks[i].ID(); was[id] != nil {
			ch.NetworksRemoved = append(ch.NetworksRemoved, id)
		}
	}
}
