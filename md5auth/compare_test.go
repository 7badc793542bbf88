package md5auth

import (
	"bytes"
	"fmt"
	"net/netip"
	"testing"
)

// TestSignatureEveryByteCompared signs a segment, then changes its
// signature in a single byte (every byte position 0..15, every bit of each
// byte): Check and CheckSignature must reject every such signature, for
// IPv4 and IPv6. A comparison that looks at only part of the 16 bytes (say
// the first 8-byte word) would accept some of them.
func TestSignatureEveryByteCompared(t *testing.T) {
	key := []byte("every-byte-counts")
	for _, fam := range []struct{ name, src, dst string }{
		{"v4", "192.0.2.1", "192.0.2.2"},
		{"v6", "2001:db8::1", "2001:db8::2"},
	} {
		t.Run(fam.name, func(t *testing.T) {
			src, dst := netip.MustParseAddr(fam.src), netip.MustParseAddr(fam.dst)
			d := NewDigester()
			seg := buildSegment(md5Opt(make([]byte, DigestLen)), []byte("keepalive-ish payload"))
			sig, err := SignatureOf(seg)
			if err != nil || len(sig) != DigestLen {
				t.Fatalf("SignatureOf = %x, %v", sig, err)
			}
			good, err := d.Sum(nil, src, dst, seg, key)
			if err != nil {
				t.Fatal(err)
			}
			copy(sig, good) // sig aliases seg: the segment is now signed
			if v, err := d.Check(src, dst, seg, key); err != nil || v != Valid {
				t.Fatalf("signed segment: Check = %v, %v; want valid", v, err)
			}
			if v, err := d.CheckSignature(src, dst, seg, good, key); err != nil || v != Valid {
				t.Fatalf("signed segment: CheckSignature = %v, %v; want valid", v, err)
			}
			for pos := 0; pos < DigestLen; pos++ {
				for bit := 0; bit < 8; bit++ {
					mask := byte(1) << bit
					t.Run(fmt.Sprintf("byte%02d/bit%d", pos, bit), func(t *testing.T) {
						// In the segment, through Check.
						bad := bytes.Clone(seg)
						s, _ := SignatureOf(bad)
						s[pos] ^= mask
						if v, err := d.Check(src, dst, bad, key); err != nil || v != Invalid {
							t.Errorf("signature byte %d ^ %#02x: Check = %v, %v; want invalid", pos, mask, v, err)
						}
						// As a separate signature, through CheckSignature.
						badSig := bytes.Clone(good)
						badSig[pos] ^= mask
						if v, err := d.CheckSignature(src, dst, seg, badSig, key); err != nil || v != Invalid {
							t.Errorf("signature byte %d ^ %#02x: CheckSignature = %v, %v; want invalid", pos, mask, v, err)
						}
					})
				}
				// A whole-byte change (all bits at once) too.
				badSig := bytes.Clone(good)
				badSig[pos] ^= 0xff
				if v, _ := d.CheckSignature(src, dst, seg, badSig, key); v != Invalid {
					t.Errorf("signature byte %d ^ 0xff: CheckSignature = %v; want invalid", pos, v)
				}
			}
			// The good signature still checks after all that (the
			// Digester's state is not disturbed by failed checks).
			if v, _ := d.Check(src, dst, seg, key); v != Valid {
				t.Fatalf("after the negative cases: Check = %v; want valid", v)
			}
			// Wrong lengths: a prefix or an extension of the right
			// signature is not the signature.
			for _, s := range [][]byte{nil, good[:8], good[:15], append(bytes.Clone(good), 0)} {
				if v, _ := d.CheckSignature(src, dst, seg, s, key); v != Invalid {
					t.Errorf("%d-byte signature: CheckSignature = %v; want invalid", len(s), v)
				}
			}
		})
	}
}
