package tcpsock

import (
	"encoding/binary"
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/authbgp/authbgpd/keys"
)

var aoAlgs = []struct {
	name   string
	digest int
}{
	{AOAlgHMACSHA1, 20}, {AOAlgAESCMAC, 16}, {AOAlgHMACSHA224, 28}, {AOAlgHMACSHA256, 32}, {AOAlgHMACSHA384, 48}, {AOAlgHMACSHA512, 64},
}

// TestAOKeyAlgorithmsAndMACLengths: every kernel algorithm name is taken,
// others not; a MAC length is 0 (the default) or 4..16 (the kernel's
// limit in a SYN), never past the digest.
func TestAOKeyAlgorithmsAndMACLengths(t *testing.T) {
	base := AOKey{Prefix: netip.MustParsePrefix("192.0.2.2/32"), Secret: keys.Secret("AO-Alg-Key"), SendID: 1, RecvID: 1}
	for _, a := range aoAlgs {
		for _, c := range []struct {
			n  uint8
			ok bool
		}{{0, true}, {3, false}, {4, true}, {12, true}, {16, true}, {17, false}, {20, false}, {255, false}} {
			k := base
			k.Alg, k.MACLen = a.name, c.n
			err := k.Validate()
			if (err == nil) != c.ok || err != nil && !errors.Is(err, ErrAOKey) {
				t.Errorf("%s, MAC length %d: %v, want ok %v", a.name, c.n, err, c.ok)
			}
			if err != nil && strings.Contains(err.Error(), "AO-Alg-Key") {
				t.Fatal("secret in the error")
			}
		}
	}
	for _, bad := range []string{"", "hmac(md5)", "cmac(aes)", "hmac-sha-256", "HMAC(SHA256)"} {
		k := base
		k.Alg = bad
		if err := k.Validate(); !errors.Is(err, ErrAOKey) {
			t.Errorf("algorithm %q: %v", bad, err)
		}
	}
}

// TestEncodeAOAddMACLen: alg_name and maclen (byte 205) go to the kernel
// as given; maclen 0 stays 0 (the kernel's 12).
func TestEncodeAOAddMACLen(t *testing.T) {
	for _, a := range aoAlgs {
		for _, n := range []uint8{0, 4, 16} {
			var b [aoAddSize]byte
			k := AOKey{Prefix: netip.MustParsePrefix("192.0.2.2/32"), Alg: a.name, Secret: keys.Secret("k"), SendID: 2, RecvID: 3, MACLen: n}
			if err := encodeAOAdd(&b, afInet, k, false, false); err != nil {
				t.Fatal(err)
			}
			if alg := strings.TrimRight(string(b[128:192]), "\x00"); alg != a.name || b[205] != n || b[203] != 2 || b[204] != 3 {
				t.Errorf("%s/%d: alg %q, maclen %d", a.name, n, alg, b[205])
			}
		}
	}
}

// TestDecodeAOGetMACLen: maclen (byte 281) is read back, and Matches
// compares it (the kernel's 12 is the config's 0).
func TestDecodeAOGetMACLen(t *testing.T) {
	b := make([]byte, aoGetSize)
	binary.NativeEndian.PutUint16(b[0:], afInet)
	copy(b[4:8], []byte{192, 0, 2, 2})
	copy(b[128:], AOAlgHMACSHA256)
	copy(b[192:], "Get-Key")
	b[278], b[279], b[280], b[281], b[283] = 1, 1, 32, 16, 7
	o, err := decodeAOGet(b)
	if err != nil {
		t.Fatal(err)
	}
	if o.MACLen != 16 || o.Alg != AOAlgHMACSHA256 {
		t.Fatalf("decoded %+v", o)
	}
	k := AOKey{Prefix: netip.MustParsePrefix("192.0.2.2/32"), Alg: AOAlgHMACSHA256, Secret: keys.Secret("Get-Key"), SendID: 1, RecvID: 1, MACLen: 16}
	if !o.Matches(k) {
		t.Fatal("same key does not match")
	}
	k.MACLen = 12
	if o.Matches(k) {
		t.Fatal("a 12-byte key matches the kernel's 16-byte one")
	}
	o.MACLen, k.MACLen = 12, 0
	if !o.Matches(k) {
		t.Fatal("the kernel's 12 does not match the default 0")
	}
	k.Alg = AOAlgHMACSHA512
	if o.Matches(k) {
		t.Fatal("another algorithm matches")
	}
}
