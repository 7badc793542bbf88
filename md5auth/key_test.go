package md5auth

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"
)

const distinctiveSecret = "Zebra-Quokka-7731"

func TestKeyValidate(t *testing.T) {
	long := strings.Repeat("x", 81)
	cases := []struct {
		name string
		key  Key
		want error
	}{
		{"addr", AddrKey(netip.MustParseAddr("192.0.2.2"), []byte(distinctiveSecret)), nil},
		{"v6", AddrKey(netip.MustParseAddr("2001:db8::2"), []byte(distinctiveSecret)), nil},
		{"prefix", PrefixKey(netip.MustParsePrefix("192.0.2.0/24"), []byte(distinctiveSecret)), nil},
		{"max", AddrKey(netip.MustParseAddr("192.0.2.2"), []byte(long[:80])), nil},
		{"ifindex", Key{Prefix: netip.MustParsePrefix("192.0.2.2/32"), IfIndex: 7, Secret: []byte(distinctiveSecret)}, nil},
		{"any-prefix", PrefixKey(netip.MustParsePrefix("0.0.0.0/0"), []byte(distinctiveSecret)), nil},
		{"too-long", AddrKey(netip.MustParseAddr("192.0.2.2"), []byte(long+distinctiveSecret)), ErrSecretTooLong},
		{"empty", AddrKey(netip.MustParseAddr("192.0.2.2"), nil), ErrEmptySecret},
		{"no-scope", Key{Secret: []byte(distinctiveSecret)}, ErrNoScope},
		{"unspecified", AddrKey(netip.IPv4Unspecified(), []byte(distinctiveSecret)), ErrBadScope},
		{"zone", AddrKey(netip.MustParseAddr("fe80::1%eth0"), []byte(distinctiveSecret)), ErrNoScope},
		{"neg-ifindex", Key{Prefix: netip.MustParsePrefix("192.0.2.2/32"), IfIndex: -1, Secret: []byte(distinctiveSecret)}, ErrBadIfIndex},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.key.Validate()
			if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
				t.Fatalf("Validate = %v, want %v", err, c.want)
			}
			if err != nil {
				if strings.Contains(err.Error(), distinctiveSecret) || strings.Contains(err.Error(), "xxxx") {
					t.Fatalf("error leaks the secret: %v", err)
				}
				if !strings.HasPrefix(err.Error(), "md5auth: key for ") {
					t.Fatalf("error lacks context: %v", err)
				}
			}
		})
	}
}

func TestKeyScopeAndContains(t *testing.T) {
	k := AddrKey(netip.MustParseAddr("::ffff:192.0.2.2"), []byte("k"))
	if k.Scope() != "192.0.2.2" || k.IsPrefix() {
		t.Fatalf("mapped address key: scope %q prefix %v", k.Scope(), k.IsPrefix())
	}
	p := PrefixKey(netip.MustParsePrefix("192.0.2.77/25"), []byte("k"))
	if p.Scope() != "192.0.2.0/25" || !p.IsPrefix() {
		t.Fatalf("prefix key scope %q", p.Scope())
	}
	if !p.Contains(netip.MustParseAddr("::ffff:192.0.2.100")) || p.Contains(netip.MustParseAddr("192.0.2.200")) {
		t.Fatalf("Contains wrong")
	}
	m := PrefixKey(netip.MustParsePrefix("::ffff:192.0.2.0/120"), []byte("k"))
	if m.Scope() != "192.0.2.0/24" {
		t.Fatalf("mapped prefix scope %q", m.Scope())
	}
	v := Key{Prefix: netip.MustParsePrefix("2001:db8::/64"), IfIndex: 3, Secret: []byte("k")}
	if v.Scope() != "2001:db8::/64 ifindex 3" {
		t.Fatalf("scope %q", v.Scope())
	}
}

func TestSecretNeverFormats(t *testing.T) {
	k := AddrKey(netip.MustParseAddr("192.0.2.2"), []byte(distinctiveSecret))
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d"} {
		for _, v := range []any{k, &k, k.Secret, []Key{k}, map[string]Key{"a": k}} {
			out := fmt.Sprintf(verb, v)
			if strings.Contains(out, distinctiveSecret) || strings.Contains(strings.ToLower(out), fmt.Sprintf("%x", distinctiveSecret)) {
				t.Fatalf("%s of %T leaks: %s", verb, v, out)
			}
		}
	}
	if b, _ := k.Secret.MarshalText(); strings.Contains(string(b), distinctiveSecret) {
		t.Fatalf("MarshalText leaks")
	}
}
