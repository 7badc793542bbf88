package fib

import (
	"net/netip"
	"testing"

	"github.com/authbgp/authbgpd/kroute"
)

func TestCompactKeysRoundTrip(t *testing.T) {
	for _, s := range []string{"0.0.0.0/0", "198.51.100.0/25", "203.0.113.7/32", "::/0", "2001:db8:a1::/48", "2001:db8::1/128", "::ffff:0:0/96"} {
		p := netip.MustParsePrefix(s)
		if got := compactPrefix(p).prefix(); got != p {
			t.Errorf("%s: back as %s", p, got)
		}
		k := kroute.Key{Table: 10, Dst: p}
		if got := compactKey(k).key(); got != k {
			t.Errorf("%v: back as %v", k, got)
		}
		pk := pathKey{vrf: 3, pfx: p}
		if got := pk.compact().path(); got != pk {
			t.Errorf("%v: back as %v", pk, got)
		}
	}
	// An IPv4 prefix and the IPv6 one of its mapped form stay apart.
	a, b := compactPrefix(netip.MustParsePrefix("192.0.2.0/24")), compactPrefix(netip.MustParsePrefix("::ffff:192.0.2.0/24"))
	if a == b {
		t.Error("192.0.2.0/24 and ::ffff:192.0.2.0/24 share a key")
	}
}
