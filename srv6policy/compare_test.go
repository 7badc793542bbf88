package srv6policy

import (
	"bytes"
	"fmt"
	"testing"
)

// TestHMACEveryByteCompared changes the 32-byte HMAC field in a single byte
// (every position 0..31, every bit) and checks that each of the three
// verification paths rejects it, for SHA-1 and SHA-256: Key.Verify,
// VerifySRH (Key.verifySRH) and Precomputed.Verify. Linux compares the whole
// 32-byte field (memcmp over SEG6_HMAC_FIELD_LEN), so for SHA-1 the 12
// zero-padding bytes after the 20-byte digest count as well. A comparison
// over half the field, or over the first 20 bytes only, is caught.
func TestHMACEveryByteCompared(t *testing.T) {
	wire := reversed(kaConfig)
	for _, alg := range []Algorithm{SHA1, SHA256} {
		t.Run(alg.String(), func(t *testing.T) {
			k := mustKey(t, 42, alg, kaSecret)
			keys := map[uint32]*Key{42: k}
			mac := k.Sum(nil, kaSource, 2, FlagHMAC, wire)
			if len(mac) != HMACFieldLen {
				t.Fatalf("Sum gave %d bytes", len(mac))
			}
			s, err := EncapSRH(kaConfig, 42)
			if err != nil {
				t.Fatal(err)
			}
			p, err := k.Precompute(kaSource, s)
			if err != nil {
				t.Fatal(err)
			}
			full := p.SRH()
			field := len(full) - HMACFieldLen // offset of the HMAC field in the SRH
			if !bytes.Equal(full[field:], mac) {
				t.Fatalf("SRH HMAC field %x, Sum %x", full[field:], mac)
			}
			// The unchanged HMAC verifies on every path.
			if !k.Verify(mac, kaSource, 2, FlagHMAC, wire) {
				t.Fatal("Verify(good) = false")
			}
			if v, _ := VerifySRH(keys, kaSource, full); v != VerdictValid {
				t.Fatalf("VerifySRH(good) = %v", v)
			}
			if !p.Verify(kaSource, full) {
				t.Fatal("Precomputed.Verify(good) = false")
			}
			for pos := 0; pos < HMACFieldLen; pos++ {
				for _, mask := range []byte{0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0xff} {
					t.Run(fmt.Sprintf("byte%02d/%#02x", pos, mask), func(t *testing.T) {
						bad := bytes.Clone(mac)
						bad[pos] ^= mask
						if k.Verify(bad, kaSource, 2, FlagHMAC, wire) {
							t.Errorf("Key.Verify accepted HMAC byte %d ^ %#02x", pos, mask)
						}
						badSRH := bytes.Clone(full)
						badSRH[field+pos] ^= mask
						if v, _ := VerifySRH(keys, kaSource, badSRH); v != VerdictInvalid {
							t.Errorf("VerifySRH = %v for HMAC byte %d ^ %#02x; want invalid", v, pos, mask)
						}
						if p.Verify(kaSource, badSRH) {
							t.Errorf("Precomputed.Verify accepted HMAC byte %d ^ %#02x", pos, mask)
						}
					})
				}
			}
			// Still valid afterwards (no state left over from failures).
			if !k.Verify(mac, kaSource, 2, FlagHMAC, wire) {
				t.Fatal("Verify(good) = false after the negative cases")
			}
			if v, _ := VerifySRH(keys, kaSource, full); v != VerdictValid {
				t.Fatalf("VerifySRH(good) = %v after the negative cases", v)
			}
			// Truncated fields are not the HMAC (Key.Verify takes the field
			// as given).
			for _, n := range []int{0, 16, 20, HMACFieldLen - 1} {
				if k.Verify(mac[:n], kaSource, 2, FlagHMAC, wire) {
					t.Errorf("Key.Verify accepted the first %d bytes of the HMAC", n)
				}
			}
		})
	}
}
