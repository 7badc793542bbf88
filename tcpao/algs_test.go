package tcpao

import (
	"bytes"
	"crypto/hmac"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"
)

// macLens are the MAC lengths tried for alg: the shortest, the default, 16
// (the longest Linux takes) and the whole digest.
func macLens(alg Algorithm) []int {
	return []int{MinMACLen, MACLen, 16, alg.DigestSize()}
}

// referenceKDF is RFC 5926 §3.1's KDF written out from the text, with the
// output length of the whole PRF (as Linux's tcp_v4_ao_calc_key and
// tcp_v6_ao_calc_key set it): PRF(K, 1 || "TCP-AO" || context ||
// bits), K the secret for an HMAC, for AES-128-CMAC the secret when it
// has 16 bytes, else AES-CMAC(0^128, secret).
func referenceKDF(alg Algorithm, secret []byte, c Context) []byte {
	var in bytes.Buffer
	in.WriteByte(1)
	in.WriteString("TCP-AO")
	s, d := c.Src.Addr().Unmap(), c.Dst.Addr().Unmap()
	in.Write(s.AsSlice())
	in.Write(d.AsSlice())
	for _, v := range []any{c.Src.Port(), c.Dst.Port(), c.SrcISN, c.DstISN} {
		binary.Write(&in, binary.BigEndian, v)
	}
	size := 16 // AES-128-CMAC's block
	if alg != AESCMAC {
		size = referenceHashes[alg]().Size()
	}
	binary.Write(&in, binary.BigEndian, uint16(8*size))
	if alg == AESCMAC {
		k := secret
		if len(k) != 16 {
			z, _ := cmacSum(make([]byte, 16), secret)
			k = z[:]
		}
		out, _ := cmacSum(k, in.Bytes())
		return out[:]
	}
	h := hmac.New(referenceHashes[alg], secret)
	h.Write(in.Bytes())
	return h.Sum(nil)
}

func TestDigestSizes(t *testing.T) {
	for alg, want := range map[Algorithm]int{HMACSHA1: 20, AESCMAC: 16, HMACSHA224: 28, HMACSHA256: 32, HMACSHA384: 48, HMACSHA512: 64, 0: 0, firstInvalid: 0} {
		if got := alg.DigestSize(); got != want || alg.TrafficKeyLen() != want {
			t.Errorf("%s: DigestSize %d, TrafficKeyLen %d, want %d", alg, got, alg.TrafficKeyLen(), want)
		}
	}
}

// TestKDFEveryAlgorithm: DeriveTrafficKey is the reference KDF for every
// algorithm, IPv4 and IPv6, secrets of 1..80 bytes (16 and others for
// AES-128-CMAC), and the four traffic keys of a connection differ.
func TestKDFEveryAlgorithm(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, alg := range algs {
		for _, n := range []int{1, 13, 14, 16, 20, 64, 80} {
			for _, v6 := range []bool{false, true} {
				seg := randSegment(r, segSpec{v6: v6, flags: 0x02})
				c := Context{Src: netip.AddrPortFrom(seg.Src, 40000), Dst: netip.AddrPortFrom(seg.Dst, 179), SrcISN: r.Uint32(), DstISN: r.Uint32()}
				secret := randBytes(r, n)
				got, err := DeriveTrafficKey(alg, secret, c)
				if err != nil {
					t.Fatalf("%s, %d-byte secret: %v", alg, n, err)
				}
				if want := referenceKDF(alg, secret, c); !bytes.Equal(got, want) {
					t.Fatalf("%s, %d-byte secret, v6 %v: traffic key differs from the reference", alg, n, v6)
				}
			}
		}
		mk := MasterKey{Alg: alg, Secret: []byte("kdf-secret"), SendID: 1, RecvID: 2}
		ks := mustKeys(t, mk, Connection{Local: netip.MustParseAddrPort("192.0.2.1:179"), Remote: netip.MustParseAddrPort("192.0.2.2:40000"), LocalISN: 5, RemoteISN: 6})
		if ks.SendSYN.MACLen() != MACLen || !bytes.Equal(ks.SendSYN.raw, referenceKDF(alg, mk.Secret, Context{Src: netip.MustParseAddrPort("192.0.2.1:179"), Dst: netip.MustParseAddrPort("192.0.2.2:40000"), SrcISN: 5})) {
			t.Errorf("%s: Send_SYN traffic key is not the reference's", alg)
		}
		seen := map[string]bool{}
		for _, k := range []*TrafficKey{ks.SendSYN, ks.RecvSYN, ks.SendOther, ks.RecvOther} {
			seen[string(k.raw)] = true
		}
		if len(seen) != 4 {
			t.Errorf("%s: the four traffic keys are not all different", alg)
		}
	}
}

// TestEveryAlgorithmAndMACLength signs random segments with every
// algorithm and MAC length and checks the MAC against the reference, that
// the signed segment verifies (prepared key, Keys.Verify, a clone), that
// every bit of the MAC counts, that another SNE fails, and that a MAC
// field of another length is ErrMACLength to Keys.Verify and false to
// TrafficKey.Verify.
func TestEveryAlgorithmAndMACLength(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for _, alg := range algs {
		for _, ml := range macLens(alg) {
			if ml > 36 { // a TCP option list has 40 bytes
				continue
			}
			t.Run(fmt.Sprintf("%s/mac-%d", alg, ml), func(t *testing.T) {
				for i := 0; i < 40; i++ {
					include := i%2 == 0
					key := randBytes(r, alg.TrafficKeyLen())
					tk, err := NewTrafficKeyMACLen(alg, key, ml, include)
					if err != nil {
						t.Fatal(err)
					}
					seg := randSegment(r, segSpec{v6: i%3 == 1, flags: 0x18, payload: r.IntN(200), keyID: 7, macLen: ml})
					sne := r.Uint32()
					mac, err := tk.MAC(make([]byte, 0, ml), sne, seg)
					if want := referenceMACLen(alg, key, referenceMessage(sne, seg, include), ml); err != nil || !bytes.Equal(mac, want) {
						t.Fatalf("MAC %x, %v; reference %x", mac, err, want)
					}
					opts, _ := SegmentOptions(seg.TCP)
					copy(opts.AO.MAC, mac)
					ks := &Keys{SendSYN: tk, RecvSYN: tk, SendOther: tk, RecvOther: tk, SendID: 7, RecvID: 7}
					if ok, err := tk.Verify(sne, seg); !ok || err != nil {
						t.Fatalf("signed segment: %v, %v", ok, err)
					}
					if err := ks.Clone().Verify(Receive, sne, seg); err != nil {
						t.Fatalf("Keys.Verify: %v", err)
					}
					if ok, _ := tk.Verify(sne+1, seg); ok {
						t.Fatal("verified with SNE+1")
					}
					for pos := 0; pos < ml; pos++ {
						opts.AO.MAC[pos] ^= 1 << (i % 8)
						if err := ks.Verify(Receive, sne, seg); !errors.Is(err, ErrBadMAC) {
							t.Fatalf("MAC byte %d changed: %v", pos, err)
						}
						opts.AO.MAC[pos] ^= 1 << (i % 8)
					}
				}
				// The right MAC in a field one byte shorter or longer.
				key := randBytes(r, alg.TrafficKeyLen())
				tk, _ := NewTrafficKeyMACLen(alg, key, ml, true)
				ks := &Keys{SendSYN: tk, RecvSYN: tk, SendOther: tk, RecvOther: tk, SendID: 7, RecvID: 7}
				for _, other := range []int{ml - 1, ml + 1} {
					if other < 1 || other > 36 {
						continue
					}
					seg := randSegment(r, segSpec{flags: 0x18, payload: 50, keyID: 7, macLen: other})
					mac, _ := tk.MAC(nil, 0, seg)
					opts, _ := SegmentOptions(seg.TCP)
					copy(opts.AO.MAC, mac)
					if err := ks.Verify(Receive, 0, seg); !errors.Is(err, ErrMACLength) {
						t.Errorf("a %d-byte MAC field for a %d-byte key: Keys.Verify %v, want ErrMACLength", other, ml, err)
					}
					if ok, err := tk.Verify(0, seg); ok || err != nil {
						t.Errorf("a %d-byte MAC field for a %d-byte key: Verify %v, %v, want false", other, ml, ok, err)
					}
				}
			})
		}
	}
}

// TestMACLengthRange: a key's MAC length is MinMACLen up to the digest
// size; 0 is the default, 12.
func TestMACLengthRange(t *testing.T) {
	for _, alg := range algs {
		d := alg.DigestSize()
		for _, c := range []struct {
			n  int
			ok bool
		}{{0, true}, {1, false}, {3, false}, {4, true}, {12, true}, {d, true}, {d + 1, false}, {255, false}, {-1, false}} {
			mk := MasterKey{Alg: alg, Secret: []byte("a-secret-long-enough"), MACLen: c.n}
			err := mk.Validate()
			if (err == nil) != c.ok || !c.ok && !errors.Is(err, ErrMACLength) {
				t.Errorf("%s, MAC length %d: Validate %v, want ok %v", alg, c.n, err, c.ok)
			}
			n := c.n
			if n == 0 {
				n = -5 // NewTrafficKeyMACLen has no default
			}
			_, err = NewTrafficKeyMACLen(alg, make([]byte, d), n, true)
			if (err == nil) != (c.ok && c.n != 0) || err != nil && !errors.Is(err, ErrMACLength) {
				t.Errorf("%s, MAC length %d: NewTrafficKeyMACLen %v", alg, n, err)
			}
		}
		if got := (MasterKey{Alg: alg, MACLen: 16}).MACLength(); got != 16 {
			t.Errorf("MACLength %d", got)
		}
		ks, err := MasterKey{Alg: alg, Secret: []byte("a-secret-long-enough"), MACLen: 4}.Keys(Connection{Local: netip.MustParseAddrPort("192.0.2.1:179"), Remote: netip.MustParseAddrPort("192.0.2.2:1")})
		if err != nil || ks.SendSYN.MACLen() != 4 || ks.RecvOther.MACLen() != 4 || ks.Clone().RecvSYN.MACLen() != 4 {
			t.Errorf("%s: Keys with a 4-byte MAC: %v", alg, err)
		}
	}
}

// TestZeroAllocsEveryAlgorithm: the prepared path of every algorithm and
// MAC length allocates nothing.
func TestZeroAllocsEveryAlgorithm(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	r := rand.New(rand.NewPCG(25, 26))
	for _, alg := range algs {
		for _, ml := range []int{MinMACLen, MACLen, 16} {
			for _, v6 := range []bool{false, true} {
				mk := MasterKey{Alg: alg, Secret: []byte("an-80-bit-key"), SendID: 1, RecvID: 2, IncludeOptions: v6, MACLen: ml}
				seg := randSegment(r, segSpec{v6: v6, flags: 0x18, payload: 1448, keyID: 2, macLen: ml})
				conn := Connection{Local: netip.AddrPortFrom(seg.Dst, 179), Remote: netip.AddrPortFrom(seg.Src, 4000), LocalISN: 1, RemoteISN: 2}
				ks := mustKeys(t, mk, conn)
				tk := ks.Select(Receive, seg.TCP[13])
				mac, _ := tk.MAC(nil, 0, seg)
				opts, _ := SegmentOptions(seg.TCP)
				copy(opts.AO.MAC, mac)
				if err := ks.Verify(Receive, 0, seg); err != nil {
					t.Fatalf("%s mac %d: %v", alg, ml, err)
				}
				buf := make([]byte, 0, ml)
				for name, f := range map[string]func(){
					"MAC":         func() { buf, _ = tk.MAC(buf[:0], 0, seg) },
					"Verify":      func() { tk.Verify(0, seg) },
					"Keys.Verify": func() { ks.Verify(Receive, 0, seg) },
				} {
					if n := testing.AllocsPerRun(100, f); n != 0 {
						t.Errorf("%s mac %d v6=%v: %s: %v allocations, want 0", alg, ml, v6, name, n)
					}
				}
			}
		}
	}
}

func TestNewAlgorithmNames(t *testing.T) {
	for _, c := range []struct {
		in         string
		want       Algorithm
		str, linux string
	}{
		{"hmac-sha-1", HMACSHA1, "hmac-sha-1-96", "hmac(sha1)"},
		{"aes-128-cmac", AESCMAC, "aes-128-cmac-96", "cmac(aes128)"},
		{"hmac-sha-224", HMACSHA224, "hmac-sha-224", "hmac(sha224)"},
		{"HMAC(SHA256)", HMACSHA256, "hmac-sha-256", "hmac(sha256)"},
		{"sha384", HMACSHA384, "hmac-sha-384", "hmac(sha384)"},
		{"hmac-sha512", HMACSHA512, "hmac-sha-512", "hmac(sha512)"},
	} {
		a, err := ParseAlgorithm(c.in)
		if err != nil || a != c.want || a.String() != c.str || a.LinuxName() != c.linux || !a.Valid() {
			t.Errorf("ParseAlgorithm(%q) = %v (%q, %q), %v", c.in, a, a.String(), a.LinuxName(), err)
		}
		if b, err := ParseAlgorithm(a.String()); err != nil || b != a {
			t.Errorf("%s does not parse back: %v", a, err)
		}
		if b, err := ParseAlgorithm(a.LinuxName()); err != nil || b != a {
			t.Errorf("%s does not parse back: %v", a.LinuxName(), err)
		}
	}
	for _, bad := range []Algorithm{0, firstInvalid, 255} {
		if bad.Valid() || bad.LinuxName() != "" {
			t.Errorf("%d is valid", bad)
		}
	}
	if _, err := ParseAlgorithm("hmac-sha-3-256"); !errors.Is(err, ErrAlgorithm) {
		t.Error(err)
	}
}
