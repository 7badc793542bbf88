package config

import (
	"math"
	"net/netip"
)

func (d *decoder) peers(rt *table, c *Config) {
	c.Peers = appendTables(c.Peers, rt, "peers", "[[peers]]", Peer{}, d.peer)
}

// peer decodes one [[peers]] entry.
func (d *decoder) peer(t *table, p *Peer) {
	if t.has("address") {
		if a, ok := t.addr("address"); ok {
			p.Address = a
		}
	}
	if s, ok := t.str("prefix"); ok {
		pfx, err := netip.ParsePrefix(s)
		if err != nil {
			t.invalid("prefix", "%q is not a prefix (e.g. 192.0.2.0/24)", s)
		} else {
			if pfx.Addr().Is4In6() && pfx.Bits() >= 96 {
				pfx = netip.PrefixFrom(pfx.Addr().Unmap(), pfx.Bits()-96)
			}
			p.Prefix = pfx
		}
	}
	if s, ok := t.str("interface"); ok {
		p.Interface = s
	}
	if s, ok := t.str("vrf"); ok {
		p.VRF = s
	}
	if n, ok := t.integer("asn", 0, math.MaxUint32); ok {
		p.ASN = uint32(n)
	}
	// At most one key source: report the second and later ones.
	sources := d.exclusive(t, SourcePassword, SourcePasswordFile, SourcePasswordEnv, SourceKeychain)
	if len(sources) > 0 {
		if sources[0] == SourceKeychain {
			p.Keychain, _ = t.str(SourceKeychain)
		} else {
			p.Password, p.PasswordSource, p.PasswordRef = d.secret(t, SourcePassword, sources[:1])
		}
	}
	if t.has("local-address") {
		if a, ok := t.addr("local-address"); ok {
			p.LocalAddress = a
		}
	}
	if b, ok := t.boolean("passive"); ok {
		p.Passive = b
	}
	if p.Prefix.IsValid() && !t.meta.has("passive") {
		p.Passive = true // dynamic neighbors only accept
	}
	if n, ok := t.integer("multihop-ttl", 0, 255); ok {
		p.MultihopTTL = uint8(n)
	}
	if n, ok := t.integer("hold-time", 0, math.MaxUint16); ok {
		p.HoldTime = uint16(n)
	}
	if n, ok := t.integer("keepalive-interval", 0, math.MaxUint16); ok {
		p.KeepaliveInterval = uint16(n)
	}
	if t.has("families") {
		fs, _, _ := t.strings("families")
		p.Families = make([]Family, 0, len(fs))
		for _, f := range fs {
			p.Families = append(p.Families, Family(f))
		}
	} else {
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
}
