package kdrops

import (
	"encoding/binary"
	"net/netip"
	"testing"
)

func TestKeyEncoding(t *testing.T) {
	for _, c := range []struct {
		key      Key
		wantAddr [16]byte
	}{
		{Key{Addr: netip.MustParseAddr("192.0.2.10"), Reason: BadDigest},
			[16]byte{10: 0xff, 11: 0xff, 12: 192, 13: 0, 14: 2, 15: 10}},
		{Key{Addr: netip.MustParseAddr("2001:db8::a"), Reason: Missing},
			[16]byte{0: 0x20, 1: 0x01, 2: 0x0d, 3: 0xb8, 15: 0x0a}},
		{Key{Addr: netip.MustParseAddr("0.0.0.0"), Reason: AORequired},
			[16]byte{10: 0xff, 11: 0xff}},
		{Key{Addr: netip.MustParseAddr("::"), Reason: Unexpected}, [16]byte{}},
		{Key{Addr: netip.MustParseAddr("fe80::2"), Reason: BadDigest, IfIndex: 7},
			[16]byte{0: 0xfe, 1: 0x80, 15: 2}},
		{Key{Addr: netip.MustParseAddr("febf::1"), Reason: Missing, IfIndex: 0xffffffff},
			[16]byte{0: 0xfe, 1: 0xbf, 15: 1}},
		{Key{Addr: netip.MustParseAddr("fe80::2"), Reason: Missing}, [16]byte{0: 0xfe, 1: 0x80, 15: 2}},
	} {
		b := encodeKey(c.key)
		if [16]byte(b[:16]) != c.wantAddr {
			t.Errorf("encodeKey(%v) addr = % x, want % x", c.key, b[:16], c.wantAddr)
		}
		if r := binary.NativeEndian.Uint32(b[16:]); r != uint32(c.key.Reason) {
			t.Errorf("encodeKey(%v) reason = %d", c.key, r)
		}
		if i := binary.NativeEndian.Uint32(b[20:]); i != c.key.IfIndex {
			t.Errorf("encodeKey(%v) ifindex = %d", c.key, i)
		}
		got, err := decodeKey(b)
		if err != nil || got != c.key {
			t.Errorf("decodeKey(encodeKey(%v)) = %v, %v", c.key, got, err)
		}
		if c.key.Addr.Is4() && !got.Addr.Is4() {
			t.Errorf("decodeKey of %v gave %v, not IPv4", c.key, got.Addr)
		}
	}
	// A v4-mapped address comes back as IPv4, a zone is dropped.
	for in, want := range map[string]string{"::ffff:192.0.2.1": "192.0.2.1", "fe80::1%eth0": "fe80::1"} {
		got, err := decodeKey(encodeKey(Key{Addr: netip.MustParseAddr(in), Reason: BadDigest}))
		if err != nil || got.Addr != netip.MustParseAddr(want) {
			t.Errorf("round trip of %s = %v, %v; want %s", in, got.Addr, err, want)
		}
	}
}

func TestDecodeKeyRejects(t *testing.T) {
	good := encodeKey(Key{Addr: netip.MustParseAddr("192.0.2.1"), Reason: BadDigest})
	for name, mut := range map[string]func(*rawKey){
		"reason 0":        func(b *rawKey) { binary.NativeEndian.PutUint32(b[16:], 0) },
		"reason too big":  func(b *rawKey) { binary.NativeEndian.PutUint32(b[16:], uint32(numReasons)) },
		"reason huge":     func(b *rawKey) { binary.NativeEndian.PutUint32(b[16:], 0x100|uint32(BadDigest)) },
		"ifindex on IPv4": func(b *rawKey) { b[23] = 1 },
		"ifindex on a global IPv6 address": func(b *rawKey) {
			*b = encodeKey(Key{Addr: netip.MustParseAddr("2001:db8::2"), Reason: BadDigest})
			binary.NativeEndian.PutUint32(b[20:], 3)
		},
		"ifindex on fec0::/10": func(b *rawKey) { // site-local, not link-local
			*b = encodeKey(Key{Addr: netip.MustParseAddr("fec0::2"), Reason: BadDigest})
			binary.NativeEndian.PutUint32(b[20:], 3)
		},
		"ifindex on a v4-mapped address": func(b *rawKey) { binary.NativeEndian.PutUint32(b[20:], 3) },
	} {
		b := good
		mut(&b)
		if k, err := decodeKey(b); err == nil {
			t.Errorf("%s: decodeKey = %v, want an error", name, k)
		}
	}
}

func TestKeyString(t *testing.T) {
	if got := (Key{Addr: netip.MustParseAddr("192.0.2.1"), Reason: Missing}).String(); got != "192.0.2.1/missing" {
		t.Errorf("String = %q", got)
	}
	if got := (Key{Addr: netip.MustParseAddr("fe80::2"), Reason: BadDigest, IfIndex: 4}).String(); got != "fe80::2%if4/bad_digest" {
		t.Errorf("String = %q", got)
	}
	if got := (Key{Reason: AOBad}).String(); got != "unknown/ao_bad" {
		t.Errorf("String = %q", got)
	}
}

func FuzzKeyRoundTrip(f *testing.F) {
	f.Add([]byte{192, 0, 2, 1}, uint8(BadDigest))
	f.Add([]byte{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, uint8(Missing))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 198, 51, 100, 7}, uint8(Unexpected))
	f.Fuzz(func(t *testing.T, raw []byte, r uint8) {
		addr, ok := netip.AddrFromSlice(raw)
		if !ok {
			return
		}
		k := Key{Addr: addr, Reason: Reason(r)}
		got, err := decodeKey(encodeKey(k))
		if !k.Reason.Valid() {
			if err == nil {
				t.Fatalf("decodeKey(encodeKey(%v)) accepted reason %d", k, r)
			}
			return
		}
		want := Key{Addr: addr.Unmap(), Reason: k.Reason}
		if err != nil || got != want {
			t.Fatalf("decodeKey(encodeKey(%v)) = %v, %v; want %v", k, got, err, want)
		}
		if addr.Is4() || addr.Is4In6() {
			if !got.Addr.Is4() {
				t.Fatalf("%v came back as %v, not IPv4", addr, got.Addr)
			}
		}
		// Any 24 bytes decode to a key that encodes back to them, or fail.
		var b rawKey
		copy(b[:], raw)
		b[16] = r
		if k2, err := decodeKey(b); err == nil && encodeKey(k2) != b {
			t.Fatalf("encodeKey(decodeKey(% x)) = % x", b, encodeKey(k2))
		}
	})
}
