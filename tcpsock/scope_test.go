package tcpsock

import (
	"encoding/binary"
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/authbgp/authbgpd/keys"
	"github.com/authbgp/authbgpd/md5auth"
)

// Portable tests of L3 (VRF) scopes: what the read-back shows of a key's
// scope and how comparisons treat it.

// TestObservedKeyMatchesIgnoresL3Scope: sock_diag does not report a
// TCP-MD5 key's l3index, so a VRF-scoped key read back (unscoped) matches
// the wanted scoped key by address and secret; another secret or address
// does not match.
func TestObservedKeyMatchesIgnoresL3Scope(t *testing.T) {
	p := netip.MustParsePrefix("192.0.2.2/32")
	o := ObservedKey{Prefix: p, Secret: keys.Secret("blue-secret")}
	for _, tc := range []struct {
		name string
		k    md5auth.Key
		want bool
	}{
		{"scoped", md5auth.Key{Prefix: p, IfIndex: 7, Secret: keys.Secret("blue-secret")}, true},
		{"unscoped", md5auth.Key{Prefix: p, Secret: keys.Secret("blue-secret")}, true},
		{"v4-mapped", md5auth.Key{Prefix: netip.MustParsePrefix("::ffff:192.0.2.2/128"), IfIndex: 7, Secret: keys.Secret("blue-secret")}, true},
		{"other secret", md5auth.Key{Prefix: p, IfIndex: 7, Secret: keys.Secret("red-secret")}, false},
		{"secret prefix", md5auth.Key{Prefix: p, IfIndex: 7, Secret: keys.Secret("blue")}, false},
		{"other address", md5auth.Key{Prefix: netip.MustParsePrefix("192.0.2.3/32"), IfIndex: 7, Secret: keys.Secret("blue-secret")}, false},
		{"range", md5auth.Key{Prefix: netip.MustParsePrefix("192.0.2.0/24"), IfIndex: 7, Secret: keys.Secret("blue-secret")}, false},
	} {
		if got := o.Matches(tc.k); got != tc.want {
			t.Errorf("%s: Matches(%v) = %v, want %v", tc.name, tc.k, got, tc.want)
		}
	}
	// A listener holding a scoped and an unscoped key for one address
	// (two keys for the same address, told apart by their secrets): each
	// wanted key is there, whatever its scope, and KeysFor lists both.
	s := SocketKeys{Listening: true, Keys: []ObservedKey{
		{Prefix: p, Secret: keys.Secret("blue-secret")},
		{Prefix: p, Secret: keys.Secret("default-secret")},
		{Prefix: netip.MustParsePrefix("198.51.100.0/24"), Secret: keys.Secret("range")},
	}}
	if !s.Has(md5auth.Key{Prefix: p, IfIndex: 7, Secret: keys.Secret("blue-secret")}) || !s.Has(md5auth.Key{Prefix: p, Secret: keys.Secret("default-secret")}) {
		t.Error("Has: a scoped or the unscoped key is not found")
	}
	if s.Has(md5auth.Key{Prefix: p, IfIndex: 8, Secret: keys.Secret("red-secret")}) {
		t.Error("Has: a key that is not there is found")
	}
	if got := s.KeysFor(netip.MustParsePrefix("::ffff:192.0.2.2/128")); len(got) != 2 {
		t.Errorf("KeysFor(v4-mapped) = %d keys, want 2", len(got))
	}
	if got := s.KeysFor(netip.MustParsePrefix("198.51.100.7/24")); len(got) != 1 {
		t.Errorf("KeysFor(range, unmasked) = %d keys, want 1", len(got))
	}
}

// aoGet encodes a struct tcp_ao_getsockopt for an IPv4 MKT.
func aoGet(addr netip.Prefix, flags byte, ifindex int32, id uint8, secret string) []byte {
	b := make([]byte, aoGetSize)
	binary.NativeEndian.PutUint16(b[0:], afInet)
	a := addr.Addr().As4()
	copy(b[4:8], a[:])
	copy(b[128:], AOAlgHMACSHA1)
	copy(b[192:], secret)
	b[278], b[279], b[280], b[282], b[283] = id, id, byte(addr.Bits()), flags, byte(len(secret))
	binary.NativeEndian.PutUint32(b[284:], uint32(ifindex))
	return b
}

// TestObservedAOKeyScope: TCP_AO_GET_KEYS reports an MKT's L3 scope, and a
// scope read back other than the one wanted is drift (no match).
func TestObservedAOKeyScope(t *testing.T) {
	p := netip.MustParsePrefix("192.0.2.2/32")
	want := AOKey{Prefix: p, Alg: AOAlgHMACSHA1, Secret: keys.Secret("ao"), SendID: 1, RecvID: 1, IfIndex: 7}
	unscoped := want
	unscoped.IfIndex = 0
	for _, tc := range []struct {
		name            string
		flags           byte
		ifindex         int32
		wantIf          int
		scoped, unscope bool // Matches(want), Matches(unscoped)
	}{
		{"scoped to 7", aoKeyfIfindex, 7, 7, true, false},
		{"scoped to 8", aoKeyfIfindex, 8, 8, false, false},
		{"unscoped", 0, 0, 0, false, true},
		// An ifindex without the flag means nothing (the kernel refuses
		// to add one; decode ignores it).
		{"ifindex without flag", 0, 7, 0, false, true},
		// The flag with ifindex 0: the default VRF only, neither.
		{"default VRF only", aoKeyfIfindex, 0, 0, false, false},
	} {
		o, err := decodeAOGet(aoGet(p, tc.flags, tc.ifindex, 1, "ao"))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if o.IfIndex != tc.wantIf || o.Scoped != (tc.flags&aoKeyfIfindex != 0) {
			t.Errorf("%s: decoded IfIndex %d Scoped %v, want %d %v", tc.name, o.IfIndex, o.Scoped, tc.wantIf, tc.flags&aoKeyfIfindex != 0)
		}
		if got := o.Matches(want); got != tc.scoped {
			t.Errorf("%s: Matches(scoped to 7) = %v, want %v", tc.name, got, tc.scoped)
		}
		if got := o.Matches(unscoped); got != tc.unscope {
			t.Errorf("%s: Matches(unscoped) = %v, want %v", tc.name, got, tc.unscope)
		}
	}
	// KeysForScope tells the scopes of one address apart; KeysFor does not.
	var s AOSocket
	for _, b := range [][]byte{aoGet(p, aoKeyfIfindex, 7, 1, "blue"), aoGet(p, 0, 0, 2, "default"), aoGet(p, aoKeyfIfindex, 8, 3, "red")} {
		o, _ := decodeAOGet(b)
		s.Keys = append(s.Keys, o)
	}
	for _, tc := range []struct {
		ifindex int
		id      uint8
	}{{7, 1}, {0, 2}, {8, 3}} {
		got := s.KeysForScope(p, tc.ifindex)
		if len(got) != 1 || got[0].SendID != tc.id {
			t.Errorf("KeysForScope(%s, %d) = %+v, want the MKT %d only", p, tc.ifindex, got, tc.id)
		}
	}
	if len(s.KeysForScope(p, 9)) != 0 || len(s.KeysFor(p)) != 3 {
		t.Errorf("KeysForScope(9) = %d, KeysFor = %d; want 0 and 3", len(s.KeysForScope(p, 9)), len(s.KeysFor(p)))
	}
	if str := want.String(); !strings.Contains(str, "ifindex 7") || strings.Contains(str, "ao\"") {
		t.Errorf("String = %q, want the ifindex and no secret", str)
	}
}

// TestAOSetScoped: a set's scope is its IfIndex or its keys'; keys of two
// scopes in one set are refused.
func TestAOSetScoped(t *testing.T) {
	p := netip.MustParsePrefix("2001:db8::2/128")
	k := func(id uint8, l3 int) AOKey {
		return AOKey{Prefix: p, Alg: AOAlgHMACSHA1, Secret: keys.Secret("s"), SendID: id, RecvID: id, IfIndex: l3}
	}
	for _, tc := range []struct {
		name string
		set  AOSet
		want int
		bad  bool
	}{
		{"unscoped", AOSet{Prefix: p, Keys: []AOKey{k(1, 0), k(2, 0)}}, 0, false},
		{"from the keys", AOSet{Prefix: p, Keys: []AOKey{k(1, 7), k(2, 7)}}, 7, false},
		{"from the set", AOSet{Prefix: p, IfIndex: 7, Keys: []AOKey{k(1, 0), k(2, 7)}}, 7, false},
		{"no keys", AOSet{Prefix: p, IfIndex: 7}, 7, false},
		{"two scopes", AOSet{Prefix: p, Keys: []AOKey{k(1, 7), k(2, 8)}}, 0, true},
		{"set and key differ", AOSet{Prefix: p, IfIndex: 8, Keys: []AOKey{k(1, 7)}}, 0, true},
		{"negative", AOSet{Prefix: p, IfIndex: -1}, 0, true},
	} {
		got, err := tc.set.scoped()
		if tc.bad {
			if !errors.Is(err, ErrAOKey) {
				t.Errorf("%s: scoped() = %v, want ErrAOKey", tc.name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got.IfIndex != tc.want {
			t.Errorf("%s: IfIndex %d, want %d", tc.name, got.IfIndex, tc.want)
		}
		for _, key := range got.Keys {
			if key.IfIndex != tc.want {
				t.Errorf("%s: key %v not scoped to %d", tc.name, key, tc.want)
			}
		}
		if tc.set.Keys != nil && &tc.set.Keys[0] == &got.Keys[0] {
			t.Errorf("%s: scoped() shares the caller's keys", tc.name)
		}
		if tc.want != 0 && !strings.Contains(got.String(), "ifindex 7") {
			t.Errorf("%s: String = %q", tc.name, got.String())
		}
	}
}
