package tcpao

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/authbgp/authbgpd/tcpopt"
)

// algs are all the algorithms; the first two are RFC 5926's.
var algs = Algorithms

// TestMACMatchesReference compares the prepared path with the reference
// message built from the RFC's text, for random segments: every
// algorithm, IPv4, IPv6 and IPv4-mapped, options covered or not, SYN,
// SYN-ACK and data, 0..1500 bytes of payload, random SNE.
func TestMACMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	flags := []byte{0x02, 0x12, 0x10, 0x18, 0x11, 0x04}
	for i := 0; i < 3000; i++ {
		alg := algs[i%len(algs)]
		include := i%4 < 2
		key := randBytes(r, alg.TrafficKeyLen())
		tk, err := NewTrafficKey(alg, key, include)
		if err != nil {
			t.Fatal(err)
		}
		spec := segSpec{v6: i%3 == 1, mapped: i%3 == 2, flags: flags[r.IntN(len(flags))], payload: r.IntN(1501), keyID: uint8(r.Uint32())}
		seg := randSegment(r, spec)
		sne := r.Uint32()
		want := referenceMAC(alg, key, referenceMessage(sne, seg, include))
		got, err := tk.MAC(nil, sne, seg)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("case %d (%s, options %s, v6 %v, %d-byte segment): MAC %x, %v; reference %x", i, alg, optionsWord(include), spec.v6, len(seg.TCP), got, err, want)
		}
		// Sign the segment and verify it, then break it.
		opts, _ := SegmentOptions(seg.TCP)
		copy(opts.AO.MAC, got)
		if ok, err := tk.Verify(sne, seg); !ok || err != nil {
			t.Fatalf("case %d: signed segment: Verify = %v, %v", i, ok, err)
		}
		if ok, _ := tk.Clone().Verify(sne, seg); !ok {
			t.Fatalf("case %d: Clone().Verify = false", i)
		}
		if ok, _ := tk.Verify(sne+1, seg); ok {
			t.Fatalf("case %d: verified with SNE+1", i)
		}
	}
}

// TestMACCoverage changes one thing at a time in a signed segment: what the
// MAC covers must break it, what it does not (the checksum; options other
// than TCP-AO when they are excluded; the MAC field itself is zeroed in
// the message) must not.
func TestMACCoverage(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, alg := range algs {
		for _, include := range []bool{true, false} {
			for _, v6 := range []bool{false, true} {
				name := fmt.Sprintf("%s/options-%s/v6=%v", alg, optionsWord(include), v6)
				t.Run(name, func(t *testing.T) {
					tk, _ := NewTrafficKey(alg, randBytes(r, alg.TrafficKeyLen()), include)
					// MSS first, then the AO option, then timestamps.
					opts := append([]byte{2, 4, 0x05, 0xb4}, Option{KeyID: 3, RNextKeyID: 4, MAC: make([]byte, MACLen)}.Append(nil)...)
					opts = append(opts, OptNOP, OptNOP, 8, 10, 1, 2, 3, 4, 5, 6, 7, 8)
					seg := randSegment(r, segSpec{v6: v6, flags: 0x18, payload: 100})
					tcp := append(append(append([]byte(nil), seg.TCP[:20]...), opts...), seg.TCP[20+(int(seg.TCP[12]>>4)*4-20):]...)
					tcp[12] = byte((20+len(opts))/4) << 4
					seg.TCP = tcp
					mac, err := tk.MAC(nil, 7, seg)
					if err != nil {
						t.Fatal(err)
					}
					copy(seg.TCP[20+4+4:], mac)
					if ok, _ := tk.Verify(7, seg); !ok {
						t.Fatal("signed segment does not verify")
					}
					for _, m := range []struct {
						what    string
						off     int
						covered bool
					}{
						{"source port", 0, true},
						{"sequence number", 5, true},
						{"acknowledgment number", 9, true},
						{"data offset/flags", 13, true},
						{"window", 14, true},
						{"checksum", 16, false},
						{"urgent pointer", 19, true},
						{"MSS option", 20 + 2, include},
						{"KeyID", 20 + 4 + 2, true},
						{"RNextKeyID", 20 + 4 + 3, true},
						{"timestamp option", 20 + 4 + OptionLen + 5, include},
						{"payload", len(seg.TCP) - 1, true},
					} {
						bad := Segment{Src: seg.Src, Dst: seg.Dst, TCP: bytes.Clone(seg.TCP)}
						bad.TCP[m.off] ^= 0x40
						ok, err := tk.Verify(7, bad)
						if err != nil || ok == m.covered {
							t.Errorf("%s changed: Verify = %v, %v; covered %v", m.what, ok, err, m.covered)
						}
					}
					for _, a := range []struct {
						what     string
						src, dst netip.Addr
					}{
						{"swapped addresses", seg.Dst, seg.Src},
						{"source", seg.Dst, seg.Dst},
					} {
						if ok, _ := tk.Verify(7, Segment{Src: a.src, Dst: a.dst, TCP: seg.TCP}); ok {
							t.Errorf("%s: still verifies", a.what)
						}
					}
					if ok, _ := tk.Verify(7, Segment{Src: seg.Src, Dst: seg.Dst, TCP: append(bytes.Clone(seg.TCP), 0)}); ok {
						t.Error("one more payload byte: still verifies")
					}
				})
			}
		}
	}
}

// TestMACEveryByteCompared flips every bit of the MAC field in turn; each
// must be rejected, as must a MAC field of another length.
func TestMACEveryByteCompared(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, alg := range algs {
		tk, _ := NewTrafficKey(alg, randBytes(r, alg.TrafficKeyLen()), true)
		seg := randSegment(r, segSpec{flags: 0x18, payload: 19})
		opts, _ := SegmentOptions(seg.TCP)
		mac, _ := tk.MAC(nil, 0, seg)
		copy(opts.AO.MAC, mac)
		ph, _ := NewPseudoHeader(seg.Src, seg.Dst)
		o, hl, _ := tcpopt.ParseSegment(seg.TCP)
		for pos := 0; pos < MACLen; pos++ {
			for bit := 0; bit < 8; bit++ {
				opts.AO.MAC[pos] ^= 1 << bit
				if ok, _ := tk.Verify(0, seg); ok {
					t.Errorf("%s: MAC byte %d bit %d flipped: still verifies", alg, pos, bit)
				}
				if ok, _ := tk.VerifyPrepared(0, &ph, seg.TCP, o, hl); ok {
					t.Errorf("%s: MAC byte %d bit %d flipped: VerifyPrepared still verifies", alg, pos, bit)
				}
				opts.AO.MAC[pos] ^= 1 << bit
			}
		}
		if ok, _ := tk.Verify(0, seg); !ok {
			t.Fatalf("%s: the good MAC no longer verifies", alg)
		}
		if ok, err := tk.VerifyPrepared(0, &ph, seg.TCP, o, hl); !ok || err != nil {
			t.Fatalf("%s: the good MAC: VerifyPrepared = %v, %v", alg, ok, err)
		}
		// A 16-byte MAC field starting with the right 12 bytes is not it.
		long := Segment{Src: seg.Src, Dst: seg.Dst}
		lopts := append([]byte{OptAO, 20, opts.AO.KeyID, opts.AO.RNextKeyID}, mac...)
		lopts = append(lopts, 0, 0, 0, 0)
		long.TCP = append(append(append([]byte(nil), seg.TCP[:20]...), lopts...), seg.TCP[int(seg.TCP[12]>>4)*4:]...)
		long.TCP[12] = byte((20+len(lopts))/4) << 4
		if ok, err := tk.Verify(0, long); ok || err != nil {
			t.Errorf("%s: 16-byte MAC field: Verify = %v, %v; want false", alg, ok, err)
		}
	}
}

// TestZeroAllocs: MAC into a caller's buffer and Verify (prepared keys,
// Keys.Verify included) allocate nothing.
func TestZeroAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	r := rand.New(rand.NewPCG(9, 10))
	for _, alg := range algs {
		for _, v6 := range []bool{false, true} {
			for _, include := range []bool{true, false} {
				mk := MasterKey{Alg: alg, Secret: []byte("an-80-bit-key"), SendID: 1, RecvID: 2, IncludeOptions: include}
				seg := randSegment(r, segSpec{v6: v6, flags: 0x18, payload: 1448, keyID: 2})
				conn := Connection{Local: netip.AddrPortFrom(seg.Dst, 179), Remote: netip.AddrPortFrom(seg.Src, 4000), LocalISN: 1, RemoteISN: 2}
				ks := mustKeys(t, mk, conn)
				tk := ks.Select(Receive, seg.TCP[13])
				mac, _ := tk.MAC(nil, 0, seg)
				opts, _ := SegmentOptions(seg.TCP)
				copy(opts.AO.MAC, mac)
				buf := make([]byte, 0, MACLen)
				ph, _ := NewPseudoHeader(seg.Src, seg.Dst)
				var tr SNETracker
				for name, f := range map[string]func(){
					"MAC":         func() { buf, _ = tk.MAC(buf[:0], 0, seg) },
					"Verify":      func() { tk.Verify(0, seg) },
					"Keys.Verify": func() { ks.Verify(Receive, 0, seg) },
					"VerifyParsed": func() {
						o, hl, _ := tcpopt.ParseSegment(seg.TCP)
						tk.VerifyParsed(0, &seg, o, hl)
					},
					"VerifyPrepared": func() {
						o, hl, _ := tcpopt.ParseSegment(seg.TCP)
						tk.VerifyPrepared(0, &ph, seg.TCP, o, hl)
					},
					"SNE":     func() { tr.Observe(tr.SNE(12345)) },
					"Options": func() { SegmentOptions(seg.TCP) },
				} {
					if n := testing.AllocsPerRun(200, f); n != 0 {
						t.Errorf("%s v6=%v options %s: %s: %v allocations, want 0", alg, v6, optionsWord(include), name, n)
					}
				}
				if err := ks.Verify(Receive, 0, seg); err != nil {
					t.Fatalf("%s: %v", alg, err)
				}
			}
		}
	}
}

// TestErrors checks the sentinels and that no error shows key material.
func TestErrors(t *testing.T) {
	secret := []byte("SECRETSECRETSECRET")
	r := rand.New(rand.NewPCG(11, 12))
	seg := randSegment(r, segSpec{flags: 0x18, payload: 10, keyID: 5})
	conn := Connection{Local: netip.AddrPortFrom(seg.Dst, 179), Remote: netip.AddrPortFrom(seg.Src, 4000)}
	mk := MasterKey{Alg: HMACSHA1, Secret: secret, SendID: 4, RecvID: 5, IncludeOptions: true}
	ks := mustKeys(t, mk, conn)
	plain := randSegment(r, segSpec{flags: 0x18, payload: 10, noAO: true})
	md5opts := append(append([]byte{OptMD5, 18}, make([]byte, 16)...), OptNOP, OptNOP)
	md5opts = Option{KeyID: 5, RNextKeyID: 4, MAC: make([]byte, MACLen)}.Append(md5opts)
	md5 := Segment{Src: seg.Src, Dst: seg.Dst, TCP: withOptions(seg.TCP, md5opts)}
	wrongKey := mk
	wrongKey.Secret = []byte("another key")
	v6 := netip.MustParseAddr("2001:db8::1")
	for _, c := range []struct {
		name string
		err  error
		want error
	}{
		{"bad MAC", ks.Verify(Receive, 0, seg), ErrBadMAC},
		{"key ID", ks.Verify(Send, 0, seg), ErrKeyID},
		{"no option", ks.Verify(Receive, 0, plain), ErrNoOption},
		{"short", ks.Verify(Receive, 0, Segment{Src: seg.Src, Dst: seg.Dst, TCP: seg.TCP[:19]}), ErrShortSegment},
		{"family", ks.Verify(Receive, 0, Segment{Src: seg.Src, Dst: v6, TCP: seg.TCP}), ErrAddrFamily},
		{"bad options", ks.Verify(Receive, 0, Segment{Src: seg.Src, Dst: seg.Dst, TCP: withOptions(seg.TCP, []byte{8, 12, 0, 0})}), ErrBadOptions},
		{"MAC without option", macErr(ks.RecvOther, plain), ErrNoOption},
		{"empty secret", keysErr(MasterKey{Alg: AESCMAC}, conn), ErrKeyLength},
		{"long secret", keysErr(MasterKey{Alg: AESCMAC, Secret: bytes.Repeat(secret, 5)}, conn), ErrKeyLength},
		{"algorithm", keysErr(MasterKey{Alg: firstInvalid, Secret: secret}, conn), ErrAlgorithm},
		{"traffic key length", trafficErr(AESCMAC, secret), ErrKeyLength},
		{"traffic key algorithm", trafficErr(0, secret[:16]), ErrAlgorithm},
		{"context family", keysErr(mk, Connection{Local: conn.Local, Remote: netip.AddrPortFrom(v6, 1)}), ErrAddrFamily},
		{"parse algorithm", parseErr("md5"), ErrAlgorithm},
	} {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, c.err, c.want)
			continue
		}
		if msg := c.err.Error(); strings.Contains(msg, "SECRET") || strings.Contains(msg, "another key") || strings.Contains(msg, fmt.Sprintf("%x", secret[:4])) {
			t.Errorf("%s: error shows key material", c.name)
		}
	}
	if err := ks.Verify(Receive, 0, md5); !errors.Is(err, ErrMD5Option) {
		t.Errorf("MD5 and AO: %v", err)
	}
	if _, err := mustKeys(t, wrongKey, conn).RecvOther.Verify(0, seg); err != nil {
		t.Errorf("wrong key: Verify error %v, want nil (false)", err)
	}
}

func withOptions(tcp, opts []byte) []byte {
	out := append(append([]byte(nil), tcp[:20]...), opts...)
	out[12] = byte((20+len(opts))/4) << 4
	return append(out, tcp[int(tcp[12]>>4)*4:]...)
}

func macErr(k *TrafficKey, seg Segment) error { _, err := k.MAC(nil, 0, seg); return err }

func keysErr(mk MasterKey, c Connection) error { _, err := mk.Keys(c); return err }

func trafficErr(alg Algorithm, key []byte) error { _, err := NewTrafficKey(alg, key, true); return err }

func parseErr(s string) error { _, err := ParseAlgorithm(s); return err }

// TestNeverPrintsKeys: no fmt verb shows a secret or a traffic key.
func TestNeverPrintsKeys(t *testing.T) {
	secret := []byte("SuperSecretMasterKey")
	mk := MasterKey{Alg: HMACSHA1, Secret: secret, SendID: 7, RecvID: 8, IncludeOptions: true}
	conn := Connection{Local: netip.MustParseAddrPort("192.0.2.1:179"), Remote: netip.MustParseAddrPort("192.0.2.2:40000"), LocalISN: 1, RemoteISN: 2}
	ks := mustKeys(t, mk, conn)
	tkey, _ := DeriveTrafficKey(mk.Alg, mk.Secret, conn.Context(Send, false))
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%x", "%X", "%q"} {
		for _, v := range []any{mk, &mk, []MasterKey{mk}, struct{ K MasterKey }{mk}, ks.SendOther, *ks.SendOther, ks, *ks, []*TrafficKey{ks.RecvOther}} {
			out := fmt.Sprintf(verb, v)
			for _, leak := range []string{"SuperSecret", fmt.Sprintf("%x", secret[:6]), fmt.Sprintf("%x", tkey[:6]), fmt.Sprintf("%X", tkey[:6]), fmt.Sprint(tkey[:4])[1:10]} {
				if strings.Contains(out, leak) {
					t.Fatalf("%s of %T shows key material: %q", verb, v, out)
				}
			}
		}
	}
	if s := fmt.Sprint(mk); !strings.Contains(s, "send 7") || !strings.Contains(s, "hmac-sha-1-96") {
		t.Errorf("MasterKey prints %q", s)
	}
}

// TestKeysConcurrent: clones of one Keys verify in parallel (run with
// -race).
func TestKeysConcurrent(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, alg := range algs {
		seg := randSegment(r, segSpec{flags: 0x18, payload: 300, keyID: 9})
		conn := Connection{Local: netip.AddrPortFrom(seg.Dst, 179), Remote: netip.AddrPortFrom(seg.Src, 1)}
		ks := mustKeys(t, MasterKey{Alg: alg, Secret: []byte("concurrent"), SendID: 8, RecvID: 9}, conn)
		mac, _ := ks.RecvOther.MAC(nil, 3, seg)
		opts, _ := SegmentOptions(seg.TCP)
		copy(opts.AO.MAC, mac)
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func(k *Keys) {
				defer wg.Done()
				for i := 0; i < 300; i++ {
					if err := k.Verify(Receive, 3, seg); err != nil {
						errs <- err
						return
					}
				}
			}(ks.Clone())
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	}
}

func TestAlgorithmNames(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Algorithm
	}{{"hmac-sha-1-96", HMACSHA1}, {"HMAC(SHA1)", HMACSHA1}, {"sha1", HMACSHA1}, {"aes-128-cmac-96", AESCMAC}, {"cmac(aes128)", AESCMAC}} {
		if a, err := ParseAlgorithm(c.in); err != nil || a != c.want {
			t.Errorf("ParseAlgorithm(%q) = %v, %v", c.in, a, err)
		}
	}
	if HMACSHA1.LinuxName() != "hmac(sha1)" || AESCMAC.LinuxName() != "cmac(aes128)" || Algorithm(9).String() != "algorithm(9)" {
		t.Error("names")
	}
}

// FuzzVerify feeds arbitrary TCP segments (header, options, payload) to
// the MAC path: nothing panics; a segment the parser accepts with a TCP-AO
// option gets the MAC of the message built from RFC 5925's text
// (differential, both algorithms, options covered or not); signed with
// it, the segment verifies through Keys.Verify, and not with SNE+1.
//
//	go test -run='^$' -fuzz=FuzzVerify -fuzztime=20s ./tcpao
func FuzzVerify(f *testing.F) {
	for _, seg := range rfcSegments(f) { // also in testdata/fuzz/FuzzVerify
		f.Add(seg.TCP, seg.Src.Is6(), uint32(0))
	}
	f.Add([]byte{}, false, uint32(1))
	f.Fuzz(func(t *testing.T, tcp []byte, v6 bool, sne uint32) {
		src, dst := netip.MustParseAddr("192.0.2.2"), netip.MustParseAddr("192.0.2.1")
		if v6 {
			src, dst = netip.MustParseAddr("2001:db8::2"), netip.MustParseAddr("2001:db8::1")
		}
		seg := Segment{Src: src, Dst: dst, TCP: bytes.Clone(tcp)}
		opts, perr := SegmentOptions(seg.TCP)
		for i, alg := range algs {
			include := i == int(sne&1)
			raw := bytes.Repeat([]byte{byte(i + 1)}, alg.TrafficKeyLen())
			k, _ := NewTrafficKey(alg, raw, include)
			sameAsVerify(t, k, sne, seg)
			mac, err := k.MAC(nil, sne, seg)
			if perr != nil || !opts.HasAO {
				if err == nil {
					t.Fatalf("MAC of an unparsable or unsigned segment: %x", mac)
				}
				continue
			}
			if len(seg.TCP) > 0xffff {
				continue
			}
			if err != nil {
				t.Fatalf("MAC: %v", err)
			}
			if want := referenceMAC(alg, raw, referenceMessage(sne, seg, include)); !bytes.Equal(mac, want) {
				t.Fatalf("%s, options %s: MAC %x, reference %x", alg, optionsWord(include), mac, want)
			}
			if n := len(opts.AO.MAC); n != MACLen {
				if ok, _ := k.Verify(sne, seg); ok {
					t.Fatalf("a %d-byte MAC field verified", len(opts.AO.MAC))
				}
				if n < MinMACLen || n > alg.DigestSize() {
					continue
				}
				// A key of the field's MAC length: the reference, truncated.
				k, _ = NewTrafficKeyMACLen(alg, raw, n, include)
				if mac, err = k.MAC(nil, sne, seg); err != nil || !bytes.Equal(mac, referenceMACLen(alg, raw, referenceMessage(sne, seg, include), n)) {
					t.Fatalf("%s, %d-byte MAC: %x, %v", alg, n, mac, err)
				}
			}
			signed := Segment{Src: src, Dst: dst, TCP: bytes.Clone(seg.TCP)}
			hl := int(signed.TCP[12]>>4) * 4
			copy(signed.TCP[20+opts.AOOffset+4:hl], mac)
			if ok, err := k.Verify(sne, signed); !ok || err != nil {
				t.Fatalf("signed segment: Verify = %v, %v", ok, err)
			}
			sameAsVerify(t, k, sne, signed)
			if ok, _ := k.Verify(sne+1, signed); ok {
				t.Fatal("verified with SNE+1")
			}
			ks := &Keys{SendSYN: k, RecvSYN: k, SendOther: k, RecvOther: k, SendID: opts.AO.KeyID, RecvID: opts.AO.KeyID}
			err = ks.Verify(Receive, sne, signed)
			if opts.HasMD5 != errors.Is(err, ErrMD5Option) || !opts.HasMD5 && err != nil {
				t.Fatalf("Keys.Verify: %v (MD5 option %v)", err, opts.HasMD5)
			}
		}
	})
}

// sameAsVerify: for a segment tcpopt parses, VerifyParsed with its result
// says what Verify says.
func sameAsVerify(t *testing.T, k *TrafficKey, sne uint32, seg Segment) {
	t.Helper()
	o, hl, err := tcpopt.ParseSegment(seg.TCP)
	if err != nil {
		return
	}
	ok, err := k.Verify(sne, seg)
	pok, perr := k.VerifyParsed(sne, &seg, o, hl)
	if ok != pok || (err == nil) != (perr == nil) {
		t.Fatalf("Verify = %v, %v; VerifyParsed = %v, %v", ok, err, pok, perr)
	}
	ph, _ := NewPseudoHeader(seg.Src, seg.Dst)
	pok, perr = k.VerifyPrepared(sne, &ph, seg.TCP, o, hl)
	if ok != pok || (err == nil) != (perr == nil) {
		t.Fatalf("Verify = %v, %v; VerifyPrepared = %v, %v", ok, err, pok, perr)
	}
}

// TestVerifyParsed: VerifyParsed verifies what Verify does, and parsed
// options that do not describe the segment fail closed (an error, no MAC
// compared) rather than pointing the MAC at other bytes.
func TestVerifyParsed(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, alg := range algs {
		mk := MasterKey{Alg: alg, Secret: []byte("an-80-bit-key"), SendID: 1, RecvID: 2, IncludeOptions: true}
		seg := randSegment(r, segSpec{flags: 0x18, payload: 140, keyID: 2})
		// RFC 9235's layout: NOP, NOP, timestamps at offset 2, TCP-AO at 12.
		opts := tcpopt.AppendAO([]byte{OptNOP, OptNOP, 8, 10, 1, 2, 3, 4, 5, 6, 7, 8}, 2, 2, make([]byte, MACLen))
		hl := 20 + len(opts)
		tcp := append(append(bytes.Clone(seg.TCP[:20]), opts...), seg.TCP[int(seg.TCP[12]>>4)*4:]...)
		tcp[12] = byte(hl/4) << 4
		seg.TCP = tcp
		conn := Connection{Local: netip.AddrPortFrom(seg.Dst, 179), Remote: netip.AddrPortFrom(seg.Src, 4000), LocalISN: 1, RemoteISN: 2}
		tk := mustKeys(t, mk, conn).Select(Receive, seg.TCP[13])
		mac, err := tk.MAC(nil, 7, seg)
		if err != nil {
			t.Fatal(err)
		}
		o, phl, err := tcpopt.ParseSegment(seg.TCP)
		if err != nil || !o.HasAO() || phl != hl || o.AOOffset() != 12 {
			t.Fatalf("ParseSegment: %+v, %v", o, err)
		}
		copy(o.MAC(seg.TCP[20:hl]), mac)
		if ok, err := tk.VerifyParsed(7, &seg, o, hl); !ok || err != nil {
			t.Fatalf("%s: VerifyParsed = %v, %v", alg, ok, err)
		}
		if ok, err := tk.VerifyParsed(8, &seg, o, hl); ok || err != nil {
			t.Fatalf("%s: VerifyParsed with SNE+1 = %v, %v", alg, ok, err)
		}
		// Options of another segment: a TCP-MD5-only list, none, one
		// whose TCP-AO option is elsewhere, both options.
		md5Only, _ := tcpopt.Parse(append(tcpopt.AppendMD5([]byte{OptNOP, OptNOP}, make([]byte, 16)), make([]byte, 8)...))
		both, _ := tcpopt.Parse(tcpopt.AppendAO(tcpopt.AppendMD5(nil, make([]byte, 16)), 2, 2, make([]byte, 12)))
		shifted, _ := tcpopt.Parse(tcpopt.AppendAO(bytes.Repeat([]byte{OptNOP}, o.AOOffset()+1), 2, 2, make([]byte, 12)))
		// At offset 2 the timestamps option: a whole option of a length
		// a TCP-AO option may have, only not of kind 29.
		atTS, _ := tcpopt.Parse(tcpopt.AppendAO([]byte{OptNOP, OptNOP}, 2, 2, make([]byte, 6)))
		for _, c := range []struct {
			name string
			o    tcpopt.Options
			hl   int
			want error
		}{
			{"header-length+4", o, hl + 4, ErrParsedOptions},
			{"header-length-4", o, hl - 4, ErrParsedOptions},
			{"no-option", tcpopt.Options{}, hl, ErrNoOption},
			{"md5-only", md5Only, hl, ErrNoOption},
			{"md5-and-ao", both, hl, ErrMD5Option},
			{"ao-elsewhere", shifted, hl, ErrParsedOptions},
			{"ao-at-timestamps", atTS, hl, ErrParsedOptions},
		} {
			ok, err := tk.VerifyParsed(7, &seg, c.o, c.hl)
			if ok || !errors.Is(err, c.want) {
				t.Errorf("%s: %s: VerifyParsed = %v, %v; want false, %v", alg, c.name, ok, err, c.want)
			}
			ph, _ := NewPseudoHeader(seg.Src, seg.Dst)
			if ok, err := tk.VerifyPrepared(7, &ph, seg.TCP, c.o, c.hl); ok || !errors.Is(err, c.want) {
				t.Errorf("%s: %s: VerifyPrepared = %v, %v; want false, %v", alg, c.name, ok, err, c.want)
			}
		}
		// VerifyPrepared: the same verdicts, from the addresses prepared
		// once (IPv4-mapped ones as IPv4); the zero PseudoHeader and
		// mixed families fail closed.
		ph, err := NewPseudoHeader(seg.Src, seg.Dst)
		if err != nil {
			t.Fatal(err)
		}
		mapped, _ := NewPseudoHeader(netip.AddrFrom16(seg.Src.As16()), netip.AddrFrom16(seg.Dst.As16()))
		if mapped != ph {
			t.Errorf("%s: IPv4-mapped pseudo-header %+v, want %+v", alg, mapped, ph)
		}
		if ok, err := tk.VerifyPrepared(7, &ph, seg.TCP, o, hl); !ok || err != nil {
			t.Fatalf("%s: VerifyPrepared = %v, %v", alg, ok, err)
		}
		if ok, err := tk.VerifyPrepared(8, &ph, seg.TCP, o, hl); ok || err != nil {
			t.Fatalf("%s: VerifyPrepared with SNE+1 = %v, %v", alg, ok, err)
		}
		swapped, _ := NewPseudoHeader(seg.Dst, seg.Src)
		if ok, err := tk.VerifyPrepared(7, &swapped, seg.TCP, o, hl); ok || err != nil {
			t.Fatalf("%s: VerifyPrepared with the addresses swapped = %v, %v", alg, ok, err)
		}
		if ok, err := tk.VerifyPrepared(7, &PseudoHeader{}, seg.TCP, o, hl); ok || !errors.Is(err, ErrAddrFamily) {
			t.Errorf("%s: zero PseudoHeader: %v, %v", alg, ok, err)
		}
		if _, err := NewPseudoHeader(seg.Src, netip.MustParseAddr("2001:db8::1")); !errors.Is(err, ErrAddrFamily) {
			t.Errorf("mixed families: %v", err)
		}
	}
}
