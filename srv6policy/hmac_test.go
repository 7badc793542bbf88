package srv6policy

import (
	"bytes"
	"crypto/fips140"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"math/rand/v2"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// The known answer of the issue (docs/ARCHITECTURE.md, facts): segments given first hop
// first, so the SRH stores them reversed and Last Entry is 2; flags 0x08.
var (
	kaSecret = []byte("0123456789abcdef0123456789abcdef")
	kaSource = netip.MustParseAddr("2001:db8::1")
	kaConfig = []netip.Addr{ // first hop first
		netip.MustParseAddr("fc00:0:1::1"),
		netip.MustParseAddr("fc00:0:2::1"),
		netip.MustParseAddr("fc00:0:3::1"),
	}
	kaWant = map[Algorithm]string{
		SHA256: "eeb5d2e260d837a8e5f591fd96a05d92209b20ef28e8c22d6b59dd65b2fe1d1e",
		SHA1:   "83b58420a6fa017fb57b1bc318b1251d8c131d87" + strings.Repeat("00", 12),
	}
)

func reversed(a []netip.Addr) []netip.Addr {
	r := make([]netip.Addr, len(a))
	for i, x := range a {
		r[len(a)-1-i] = x
	}
	return r
}

func mustKey(t testing.TB, id uint32, alg Algorithm, secret []byte) *Key {
	t.Helper()
	k, err := NewKey(id, alg, secret)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestKnownAnswers(t *testing.T) {
	wire := reversed(kaConfig)
	for _, alg := range []Algorithm{SHA256, SHA1} {
		t.Run(alg.String(), func(t *testing.T) {
			k := mustKey(t, 42, alg, kaSecret)
			got := k.Sum(nil, kaSource, 2, 0x08, wire)
			if h := hex.EncodeToString(got); h != kaWant[alg] {
				t.Fatalf("Sum = %s, want %s", h, kaWant[alg])
			}
			want, _ := hex.DecodeString(kaWant[alg])
			if !k.Verify(want, kaSource, 2, 0x08, wire) {
				t.Fatal("Verify(known answer) = false")
			}
			bad := bytes.Clone(want)
			bad[31] ^= 1
			if k.Verify(bad, kaSource, 2, 0x08, wire) || k.Verify(want[:20], kaSource, 2, 0x08, wire) {
				t.Fatal("Verify accepted a wrong or short HMAC")
			}
			// The same through the raw SRH, the encap SRH Linux builds.
			s, err := EncapSRH(kaConfig, 42)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := s.Encode()
			got2, err := k.SumSRH([]byte("prefix"), kaSource, b)
			if err != nil || string(got2[:6]) != "prefix" || hex.EncodeToString(got2[6:]) != kaWant[alg] {
				t.Fatalf("SumSRH = %x, %v", got2, err)
			}
			// Precomputed, and VerifySRH over the filled-in SRH.
			p, err := k.Precompute(kaSource, s)
			if err != nil {
				t.Fatal(err)
			}
			if mac := p.HMAC(); hex.EncodeToString(mac[:]) != kaWant[alg] {
				t.Fatalf("Precomputed HMAC %x", mac)
			}
			full := p.SRH()
			if v, id := VerifySRH(map[uint32]*Key{42: k}, kaSource, full); v != VerdictValid || id != 42 {
				t.Fatalf("VerifySRH = %v %d", v, id)
			}
			if !p.Verify(kaSource, full) {
				t.Fatal("Precomputed.Verify(own SRH) = false")
			}
			moved := bytes.Clone(full)
			moved[3] = 0 // Segments Left is not covered
			if !p.Verify(kaSource, moved) {
				t.Fatal("Precomputed.Verify depends on Segments Left")
			}
			for _, i := range []int{4, 5, 8, 30, len(full) - 36, len(full) - 1} {
				bad := bytes.Clone(full)
				bad[i] ^= 1
				if p.Verify(kaSource, bad) {
					t.Errorf("Precomputed.Verify accepted byte %d changed", i)
				}
			}
			if p.Verify(netip.MustParseAddr("2001:db8::2"), full) {
				t.Error("Precomputed.Verify accepted another source")
			}
		})
	}
}

// rawHMAC is the straightforward way: hmac.New with the raw secret per call.
func rawHMAC(dst []byte, alg Algorithm, secret []byte, id uint32, src netip.Addr, lastEntry, flags uint8, segs []netip.Addr) []byte {
	return rawHMACBuf(nil, dst, alg, secret, id, src, lastEntry, flags, segs)
}

// rawHMACBuf is rawHMAC building the HMAC text in scratch when it is large
// enough, so that the benchmark counts only what hmac.New costs.
func rawHMACBuf(scratch, dst []byte, alg Algorithm, secret []byte, id uint32, src netip.Addr, lastEntry, flags uint8, segs []netip.Addr) []byte {
	text := scratch
	if len(text) < 22+16*len(segs) {
		text = make([]byte, 22+16*len(segs))
	}
	a := src.As16()
	copy(text, a[:])
	text[16], text[17] = lastEntry, flags
	binary.BigEndian.PutUint32(text[18:], id)
	n := 22
	for _, s := range segs {
		a := s.As16()
		n += copy(text[n:], a[:])
	}
	var h func() hash.Hash = sha256.New
	if alg == SHA1 {
		h = sha1.New
	}
	m := hmac.New(h, secret)
	m.Write(text[:n])
	start := len(dst)
	dst = m.Sum(dst)
	for len(dst)-start < HMACFieldLen {
		dst = append(dst, 0)
	}
	return dst
}

func randAddrs(r *rand.Rand, n int) []netip.Addr {
	out := make([]netip.Addr, n)
	for i := range out {
		var b [16]byte
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		out[i] = netip.AddrFrom16(b)
	}
	return out
}

// TestSumMatchesCryptoHMAC compares prepared keys with crypto/hmac for
// random secrets (1..64 bytes), IDs, flags and 0..40 segments (past the
// kernel's 14, to exercise the chunked text).
func TestSumMatchesCryptoHMAC(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		alg := SHA1
		if i%2 == 0 {
			alg = SHA256
		}
		secret := make([]byte, 1+r.IntN(MaxSecretLen))
		for j := range secret {
			secret[j] = byte(r.Uint32())
		}
		id := r.Uint32() | 1
		segs := randAddrs(r, r.IntN(41))
		src := randAddrs(r, 1)[0]
		le, fl := uint8(r.Uint32()), uint8(r.Uint32())
		k := mustKey(t, id, alg, secret)
		got := k.Sum(nil, src, le, fl, segs)
		want := rawHMAC(nil, alg, secret, id, src, le, fl, segs)
		if !bytes.Equal(got, want) {
			t.Fatalf("case %d (%s, %d-byte secret, %d segments): got %x want %x", i, alg, len(secret), len(segs), got, want)
		}
		if !k.Clone().Verify(want, src, le, fl, segs) {
			t.Fatalf("case %d: Clone().Verify = false", i)
		}
	}
}

func TestNewKeyErrors(t *testing.T) {
	for _, c := range []struct {
		name   string
		id     uint32
		alg    Algorithm
		secret []byte
		want   error
	}{
		{"id0", 0, SHA256, []byte("x"), ErrKeyIDZero},
		{"alg0", 1, 0, []byte("x"), ErrBadAlgorithm},
		{"alg3", 1, 3, []byte("x"), ErrBadAlgorithm},
		{"empty", 1, SHA1, nil, ErrEmptySecret},
		{"long", 1, SHA256, bytes.Repeat([]byte("S"), 65), ErrSecretTooLong},
	} {
		t.Run(c.name, func(t *testing.T) {
			k, err := NewKey(c.id, c.alg, c.secret)
			if !errors.Is(err, c.want) || k != nil {
				t.Fatalf("NewKey = %v, %v; want %v", k, err, c.want)
			}
			if bytes.Contains([]byte(err.Error()), []byte("SSS")) {
				t.Fatalf("error shows the secret: %v", err)
			}
		})
	}
	if _, err := NewKey(4294967295, SHA1, bytes.Repeat([]byte{0xff}, 64)); err != nil {
		t.Fatalf("64-byte secret, max ID: %v", err)
	}
	for _, s := range []string{"sha1", "SHA256", "Sha1"} {
		if _, err := ParseAlgorithm(s); err != nil {
			t.Errorf("ParseAlgorithm(%q): %v", s, err)
		}
	}
	if _, err := ParseAlgorithm("md5"); !errors.Is(err, ErrBadAlgorithm) {
		t.Errorf("ParseAlgorithm(md5) = %v", err)
	}
	var a Algorithm
	if err := a.UnmarshalText([]byte("sha256")); err != nil || a != SHA256 {
		t.Errorf("UnmarshalText: %v %v", a, err)
	}
	if b, err := SHA1.MarshalText(); err != nil || string(b) != "sha1" {
		t.Errorf("MarshalText: %s %v", b, err)
	}
}

// TestKeyNeverPrints checks that no fmt verb shows key material (the
// prepared states are as good as the secret).
func TestKeyNeverPrints(t *testing.T) {
	secret := []byte("SuperSecretKeyMaterial")
	k := mustKey(t, 7, SHA256, secret)
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%x", "%q"} {
		for _, v := range []any{k, k.Clone(), []*Key{k}, map[uint32]*Key{7: k}, struct{ K *Key }{k}} {
			out := fmt.Sprintf(verb, v)
			if strings.Contains(out, "Secret") || strings.Contains(out, hex.EncodeToString(secret[:4])) || strings.Contains(out, "sha\x03") {
				t.Fatalf("%s shows key material: %q", verb, out)
			}
			if !strings.Contains(out, "id=7") && !strings.Contains(out, "sha256") {
				t.Fatalf("%s: %q", verb, out)
			}
		}
	}
	kk := KernelKey{ID: 7, Algorithm: SHA1, Secret: Secret(secret)}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%x", "%q"} {
		for _, v := range []any{kk, &kk, kk.Secret, []KernelKey{kk}} {
			if out := fmt.Sprintf(verb, v); strings.Contains(out, "Secret") && strings.Contains(out, "Material") {
				t.Fatalf("%s shows the secret: %q", verb, out)
			}
		}
	}
}

// TestSumAllocs checks that a prepared key computes without allocating.
func TestSumAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	for _, alg := range []Algorithm{SHA1, SHA256} {
		k := mustKey(t, 42, alg, kaSecret)
		segs := reversed(kaConfig)
		dst := make([]byte, 0, 32)
		s, _ := EncapSRH(kaConfig, 42)
		p, _ := k.Precompute(kaSource, s)
		srh := p.SRH()
		mac := p.HMAC()
		keys := map[uint32]*Key{42: k}
		for name, f := range map[string]func(){
			"Sum":       func() { dst = k.Sum(dst[:0], kaSource, 2, 8, segs) },
			"Verify":    func() { k.Verify(mac[:], kaSource, 2, 8, segs) },
			"SumSRH":    func() { dst, _ = k.SumSRH(dst[:0], kaSource, srh) },
			"VerifySRH": func() { VerifySRH(keys, kaSource, srh) },
			"Prec":      func() { p.Verify(kaSource, srh) },
		} {
			if n := testing.AllocsPerRun(200, f); n != 0 {
				t.Errorf("%s %s: %v allocs per run", alg, name, n)
			}
		}
	}
}

// TestKeyConcurrent uses one Key from many goroutines (run with -race).
func TestKeyConcurrent(t *testing.T) {
	k := mustKey(t, 42, SHA256, kaSecret)
	want, _ := hex.DecodeString(kaWant[SHA256])
	segs := reversed(kaConfig)
	var wg sync.WaitGroup
	errc := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf [32]byte
			for i := 0; i < 500; i++ {
				if got := k.Sum(buf[:0], kaSource, 2, 8, segs); !bytes.Equal(got, want) {
					errc <- fmt.Errorf("got %x", got)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
}

// TestFIPS140Only runs the package's FIPS checks in a child process with
// GODEBUG=fips140=only: SHA-1 and short keys are refused with an error,
// never a panic; SHA-256 with a 112-bit key works.
func TestFIPS140Only(t *testing.T) {
	if os.Getenv("SRV6POLICY_FIPS_CHILD") == "1" {
		fipsChild(t)
		return
	}
	if testing.Short() {
		t.Skip("short")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFIPS140Only$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "SRV6POLICY_FIPS_CHILD=1", "GODEBUG=fips140=only")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "fips child ok") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func fipsChild(t *testing.T) {
	if !fips140.Enforced() {
		t.Fatal("child runs without fips140=only enforcement")
	}
	if _, err := NewKey(1, SHA1, kaSecret); !errors.Is(err, ErrFIPS140Only) {
		t.Fatalf("SHA-1 key: %v", err)
	}
	if _, err := NewKey(1, SHA256, []byte("srv6key")); !errors.Is(err, ErrFIPS140Only) {
		t.Fatalf("7-byte SHA-256 key: %v", err)
	}
	k := mustKey(t, 42, SHA256, kaSecret)
	if got := hex.EncodeToString(k.Sum(nil, kaSource, 2, 8, reversed(kaConfig))); got != kaWant[SHA256] {
		t.Fatalf("SHA-256 under fips140=only: %s", got)
	}
	// A SHA-1 key made where enforcement was lifted must not panic later.
	var k1 *Key
	var err error
	fips140.WithoutEnforcement(func() { k1, err = NewKey(43, SHA1, kaSecret) })
	if err != nil {
		t.Fatalf("SHA-1 key without enforcement: %v", err)
	}
	if got := k1.Sum(nil, kaSource, 2, 8, reversed(kaConfig)); len(got) != 0 {
		t.Fatalf("Sum with SHA-1 under enforcement appended %d bytes", len(got))
	}
	s, _ := EncapSRH(kaConfig, 43)
	b, _ := s.Encode()
	if _, err := k1.SumSRH(nil, kaSource, b); !errors.Is(err, ErrFIPS140Only) {
		t.Fatalf("SumSRH: %v", err)
	}
	if v, _ := VerifySRH(map[uint32]*Key{43: k1}, kaSource, b); v != VerdictInvalid {
		t.Fatalf("VerifySRH: %v", v)
	}
	fmt.Println("fips child ok")
}

// Benchmarks: a prepared Key against hmac.New with the raw secret per call,
// per algorithm and segment count. Each case has three sub-benchmarks:
// "prepared" and "hmac.New" alone (ns/op, B/op, allocs/op, MB/s of HMAC
// text), and "speedup", which runs both in interleaved chunks of 256 in the
// same loop so that they see the same machine conditions and reports
// hmac.New's time over the prepared key's as "x" (with each time as
// prepared-ns/op and hmac.New-ns/op).
//
//	go test -run='^$' -bench=HMAC -benchtime=2s ./srv6policy
func BenchmarkHMAC(b *testing.B) {
	for _, alg := range []Algorithm{SHA1, SHA256} {
		for _, n := range []int{1, 3, 6} {
			segs := randAddrs(rand.New(rand.NewPCG(3, 4)), n)
			le := uint8(n - 1)
			text := int64(22 + 16*n)
			k := mustKey(b, 42, alg, kaSecret)
			name := fmt.Sprintf("%s/segs=%d", alg, n)
			b.Run(name+"/prepared", func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(text)
				dst := make([]byte, 0, 32)
				for b.Loop() {
					dst = k.Sum(dst[:0], kaSource, le, 8, segs)
				}
			})
			b.Run(name+"/hmac.New", func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(text)
				dst := make([]byte, 0, 32)
				scratch := make([]byte, 256)
				for b.Loop() {
					dst = rawHMACBuf(scratch, dst[:0], alg, kaSecret, 42, kaSource, le, 8, segs)
				}
			})
			b.Run(name+"/speedup", func(b *testing.B) {
				const chunk = 256
				dst := make([]byte, 0, 32)
				scratch := make([]byte, 256)
				var prep, raw time.Duration
				ops := 0
				for ops < b.N {
					t0 := time.Now()
					for i := 0; i < chunk; i++ {
						dst = k.Sum(dst[:0], kaSource, le, 8, segs)
					}
					t1 := time.Now()
					for i := 0; i < chunk; i++ {
						dst = rawHMACBuf(scratch, dst[:0], alg, kaSecret, 42, kaSource, le, 8, segs)
					}
					prep += t1.Sub(t0)
					raw += time.Since(t1)
					ops += chunk
				}
				b.ReportMetric(float64(raw)/float64(prep), "x")
				b.ReportMetric(float64(prep.Nanoseconds())/float64(ops), "prepared-ns/op")
				b.ReportMetric(float64(raw.Nanoseconds())/float64(ops), "hmac.New-ns/op")
			})
		}
	}
}

// FuzzHMAC compares prepared keys with crypto/hmac (differential): any
// secret of 1..64 bytes, key ID, Last Entry, flags and segments (data in
// 16-byte chunks); invalid arguments must give the documented errors.
//
//	go test -run='^$' -fuzz=FuzzHMAC -fuzztime=30s ./srv6policy
func FuzzHMAC(f *testing.F) {
	f.Add(true, kaSecret, uint32(42), uint8(2), uint8(8), bytes.Repeat([]byte{0xfc}, 48))
	f.Add(false, []byte("srv6key"), uint32(1), uint8(0), uint8(0), []byte{})
	f.Add(false, bytes.Repeat([]byte{1}, 65), uint32(0), uint8(255), uint8(255), bytes.Repeat([]byte{7}, 16*20))
	f.Fuzz(func(t *testing.T, sha256 bool, secret []byte, id uint32, le, flags uint8, data []byte) {
		alg := SHA1
		if sha256 {
			alg = SHA256
		}
		k, err := NewKey(id, alg, secret)
		switch {
		case id == 0:
			if !errors.Is(err, ErrKeyIDZero) {
				t.Fatalf("id 0: %v", err)
			}
			return
		case len(secret) == 0:
			if !errors.Is(err, ErrEmptySecret) {
				t.Fatalf("empty: %v", err)
			}
			return
		case len(secret) > MaxSecretLen:
			if !errors.Is(err, ErrSecretTooLong) {
				t.Fatalf("long: %v", err)
			}
			return
		case err != nil:
			t.Fatal(err)
		}
		var src netip.Addr
		if len(data) >= 16 {
			src = netip.AddrFrom16([16]byte(data[:16]))
			data = data[16:]
		} else {
			src = kaSource
		}
		segs := make([]netip.Addr, len(data)/16)
		for i := range segs {
			segs[i] = netip.AddrFrom16([16]byte(data[16*i:]))
		}
		got := k.Sum(nil, src, le, flags, segs)
		want := rawHMAC(nil, alg, secret, id, src, le, flags, segs)
		if !bytes.Equal(got, want) {
			t.Fatalf("Sum %x, crypto/hmac %x", got, want)
		}
		if !k.Verify(want, src, le, flags, segs) {
			t.Fatal("Verify = false")
		}
	})
}

// BenchmarkVerifySRH is the shadow checker's per-packet cost: a captured
// kernel SRH (3 segments) verified against a key table.
func BenchmarkVerifySRH(b *testing.B) {
	for _, alg := range []Algorithm{SHA1, SHA256} {
		b.Run(alg.String(), func(b *testing.B) {
			k := mustKey(b, 42, alg, kaSecret)
			s, _ := EncapSRH(kaConfig, 42)
			p, _ := k.Precompute(kaSource, s)
			srh := p.SRH()
			keys := map[uint32]*Key{42: k, 43: mustKey(b, 43, SHA256, []byte("x"))}
			b.ReportAllocs()
			b.SetBytes(int64(len(srh)))
			for b.Loop() {
				if v, _ := VerifySRH(keys, kaSource, srh); v != VerdictValid {
					b.Fatal(v)
				}
			}
		})
	}
}
