package config

import (
	"net/netip"
)

func (d *decoder) peers(rt *table, c *Config) {
	c.Peers = appendTables(c.Peers, rt, "peers", "[[peers]]", Peer{}, d.peer)
}

// peer decodes one [[peers]] entry: its identity, its key source, then
// every attribute of peerAttrs.
func (d *decoder) peer(t *table, p *Peer) {
	decodeAddr(t, "address", &p.Address)
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
	decodeStr(t, "interface", &p.Interface)
	// At most one key source: report the second and later ones.
	sources := d.exclusive(t, SourcePassword, SourcePasswordFile, SourcePasswordEnv, SourceKeychain)
	if len(sources) > 0 {
		if sources[0] == SourceKeychain {
			p.Keychain, _ = t.str(SourceKeychain)
		} else {
			p.Password, p.PasswordSource, p.PasswordRef = d.secret(t, SourcePassword, sources[:1])
		}
	}
	for _, a := range peerAttrs {
		a.decode(t, p)
	}
}
