package md5auth

import (
	"bytes"
	"crypto/md5"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"net/netip"
	"testing"
)

// randAddr returns a random address of family fam: 4, 6, or 46 for an
// IPv4-mapped IPv6 address (which must digest as IPv4).
func randAddr(r *rand.Rand, fam int) netip.Addr {
	var b [16]byte
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	switch fam {
	case 4:
		return netip.AddrFrom4([4]byte(b[:4]))
	case 46:
		return netip.AddrFrom16([16]byte(append([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff}, b[:4]...)))
	}
	return netip.AddrFrom16(b)
}

// randSegment returns a TCP segment with a random payload of up to 1500
// bytes, with an MD5 option or none, and sometimes other options too.
func randSegment(r *rand.Rand) []byte {
	var opts []byte
	if r.IntN(4) != 0 {
		opts = md5Opt(make([]byte, 16))
	}
	if r.IntN(2) == 0 {
		opts = append(opts, OptNOP, OptNOP, 8, 10, byte(r.Uint32()), 2, 3, 4, 5, 6, 7, byte(r.Uint32()))
	}
	payload := make([]byte, r.IntN(1501))
	for i := range payload {
		payload[i] = byte(r.Uint32())
	}
	return buildSegment(opts, payload)
}

// samePrepared checks that the prepared path digests segment from src to
// dst exactly as Sum, CheckSignature and the RFC-text reference do. The
// failure messages name addresses and lengths, never the key.
func samePrepared(t *testing.T, d *Digester, src, dst netip.Addr, seg, key []byte) {
	t.Helper()
	ph, err := NewPseudoHeader(src, dst)
	if err != nil {
		t.Fatalf("NewPseudoHeader(%v, %v): %v", src, dst, err)
	}
	want, err := d.Sum(nil, src, dst, seg, key)
	if err != nil {
		t.Fatalf("Sum %v -> %v, %d-byte segment: %v", src, dst, len(seg), err)
	}
	if ref := referenceDigest(src.Unmap(), dst.Unmap(), seg, key); !bytes.Equal(want, ref[:]) {
		t.Fatalf("Sum %v -> %v, %d-byte segment differs from the reference", src, dst, len(seg))
	}
	for _, tc := range []struct {
		sig  []byte
		want Verdict
	}{{want, Valid}, {flip(want), Invalid}} {
		v, err := d.CheckSignaturePrepared(&ph, seg, tc.sig, key)
		if err != nil || v != tc.want || !bytes.Equal(d.sum[:], want) {
			t.Fatalf("prepared %v -> %v, %d-byte segment, %d-byte key: %v, %v; want %v and Sum's digest", src, dst, len(seg), len(key), v, err, tc.want)
		}
		if v2, err2 := d.CheckSignature(src, dst, seg, tc.sig, key); v2 != v || err2 != err {
			t.Fatalf("CheckSignature %v -> %v: %v, %v; prepared %v, %v", src, dst, v2, err2, v, err)
		}
		sameVerifyPrepared(t, d, &ph, seg, tc.sig, key)
	}
}

// sameVerifyPrepared checks that VerifyPrepared, given the header length
// tcpopt finds, is true exactly when CheckSignaturePrepared is Valid, and
// false for any other header length.
func sameVerifyPrepared(t *testing.T, d *Digester, ph *PseudoHeader, seg, sig, key []byte) {
	t.Helper()
	v, err := d.CheckSignaturePrepared(ph, seg, sig, key)
	hl := 0
	if len(seg) > 12 {
		hl = int(seg[12]>>4) * 4
	}
	if got := d.VerifyPrepared(ph, seg, hl, sig, key); got != (err == nil && v == Valid) {
		t.Fatalf("%d-byte segment, header length %d: VerifyPrepared %v; CheckSignaturePrepared %v, %v", len(seg), hl, got, v, err)
	}
	if err == nil && v == Valid {
		// (The forger's digest is right for the segment's own header
		// length, so the ones below are what a forger would sign.)
		if own := forgedDigest(ph, seg, hl, key); !d.VerifyPrepared(ph, seg, hl, own[:], key) {
			t.Fatalf("%d-byte segment: forgedDigest at its own header length does not verify", len(seg))
		}
	}
	for _, other := range []int{hl - 4, hl + 4, 0, 20, 60, len(seg) + 1} {
		if other == hl {
			continue
		}
		if d.VerifyPrepared(ph, seg, other, sig, key) {
			t.Fatalf("%d-byte segment, header length %d: VerifyPrepared with header length %d is true", len(seg), hl, other)
		}
		// Not even with the digest that header length would give: a
		// header length that is not the segment's fails closed.
		if other >= 20 && other <= len(seg) && len(seg) <= 0xffff && (ph.fam == 4 || ph.fam == 6) {
			forged := forgedDigest(ph, seg, other, key)
			if d.VerifyPrepared(ph, seg, other, forged[:], key) {
				t.Fatalf("%d-byte segment, header length %d: VerifyPrepared with header length %d and its digest is true", len(seg), hl, other)
			}
		}
	}
}

func flip(sig []byte) []byte {
	s := bytes.Clone(sig)
	s[len(s)-1] ^= 1
	return s
}

func TestPreparedMatchesSum(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	d := NewDigester()
	fams := [][2]int{{4, 4}, {6, 6}, {46, 46}, {46, 4}, {4, 46}}
	for i := 0; i < 2000; i++ {
		f := fams[i%len(fams)]
		key := make([]byte, r.IntN(81))
		for j := range key {
			key[j] = byte(r.Uint32())
		}
		samePrepared(t, d, randAddr(r, f[0]), randAddr(r, f[1]), randSegment(r), key)
	}
}

func TestPreparedFamilies(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	seg := buildSegment(md5Opt(make([]byte, 16)), []byte("x"))
	d := NewDigester()
	for _, pair := range [][2]netip.Addr{
		{randAddr(r, 4), randAddr(r, 6)},
		{randAddr(r, 6), randAddr(r, 4)},
		{randAddr(r, 46), randAddr(r, 6)},
		{randAddr(r, 4), {}},
		{{}, {}},
	} {
		ph, err := NewPseudoHeader(pair[0], pair[1])
		if !errors.Is(err, ErrAddrFamily) {
			t.Fatalf("NewPseudoHeader(%v, %v): err = %v, want ErrAddrFamily", pair[0], pair[1], err)
		}
		if _, err := d.CheckSignaturePrepared(&ph, seg, make([]byte, 16), []byte("k")); !errors.Is(err, ErrAddrFamily) {
			t.Fatalf("refused header (%v, %v) digested: err = %v", pair[0], pair[1], err)
		}
		// (The zero PseudoHeader with the digest its zero address
		// words would give is not valid either.)
		zero := make([]byte, 0, 16)
		zero = append(zero, md5Digest(d, seg, []byte("k"))...)
		if d.VerifyPrepared(&ph, seg, 40, zero, []byte("k")) {
			t.Fatalf("refused header (%v, %v) verified", pair[0], pair[1])
		}
	}
	// The segment is checked as CheckSignature checks it.
	ph, _ := NewPseudoHeader(randAddr(r, 4), randAddr(r, 4))
	if _, err := d.CheckSignaturePrepared(&ph, seg[:19], make([]byte, 16), []byte("k")); !errors.Is(err, ErrShortSegment) {
		t.Fatalf("short segment: err = %v", err)
	}
	if _, err := d.CheckSignaturePrepared(&ph, make([]byte, 0x10000), make([]byte, 16), []byte("k")); !errors.Is(err, ErrShortSegment) {
		// A zero data offset: short before too big.
		t.Fatalf("zero data offset: err = %v", err)
	}
	big := buildSegment(nil, make([]byte, 0x10000))
	if _, err := d.CheckSignaturePrepared(&ph, big, make([]byte, 16), []byte("k")); !errors.Is(err, ErrSegmentTooBig) {
		t.Fatalf("65556-byte segment: err = %v", err)
	}
	if d.VerifyPrepared(&ph, big, 20, make([]byte, 16), []byte("k")) || d.VerifyPrepared(&ph, seg[:19], 40, make([]byte, 16), []byte("k")) {
		t.Fatal("VerifyPrepared of a segment too big or too short")
	}
}

// md5Digest is the digest of seg under key with the address words all
// zero, as the zero PseudoHeader would give it if it were digested.
func md5Digest(_ *Digester, seg, key []byte) []byte {
	s := forgedDigest(&PseudoHeader{fam: 4}, seg, int(seg[12]>>4)*4, key)
	return s[:]
}

// forgedDigest is the digest VerifyPrepared would compute for seg if its
// header length were hl (and ph's family were valid): what a forger
// would sign to make a wrong header length verify.
func forgedDigest(ph *PseudoHeader, seg []byte, hl int, key []byte) [16]byte {
	var b []byte
	le := binary.LittleEndian
	if ph.fam == 4 {
		b = le.AppendUint64(b, ph.w[0])
		b = append(b, 0, 6, byte(len(seg)>>8), byte(len(seg)))
	} else {
		for _, w := range ph.w {
			b = le.AppendUint64(b, w)
		}
		b = append(b, byte(len(seg)>>24), byte(len(seg)>>16), byte(len(seg)>>8), byte(len(seg)), 0, 0, 0, 6)
	}
	h := append([]byte(nil), seg[:20]...)
	h[16], h[17] = 0, 0
	b = append(append(append(b, h...), seg[hl:]...), key...)
	return md5.Sum(b)
}

func TestPreparedZeroAllocs(t *testing.T) {
	d := NewDigester()
	key := []byte("secret")
	for _, fam := range []struct{ s, d string }{{"192.0.2.1", "192.0.2.2"}, {"2001:db8::1", "2001:db8::2"}, {"::ffff:192.0.2.1", "192.0.2.2"}} {
		ph, err := NewPseudoHeader(netip.MustParseAddr(fam.s), netip.MustParseAddr(fam.d))
		if err != nil {
			t.Fatal(err)
		}
		seg := buildSegment(md5Opt(make([]byte, 16)), make([]byte, 1440))
		sig := seg[24:40]
		if n := testing.AllocsPerRun(200, func() {
			if _, err := d.CheckSignaturePrepared(&ph, seg, sig, key); err != nil {
				t.Fatal(err)
			}
			d.VerifyPrepared(&ph, seg, 40, sig, key)
		}); n != 0 {
			t.Fatalf("%s: %v allocations per segment, want 0", fam.s, n)
		}
	}
}

// FuzzPseudoHeader: for any addresses, segment and key, the prepared path
// says what CheckSignature says and leaves the same digest.
func FuzzPseudoHeader(f *testing.F) {
	v4s, v4d := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	f.Add(v4s.AsSlice(), v4d.AsSlice(), buildSegment(md5Opt(make([]byte, 16)), make([]byte, 19)), []byte("authbgpd-test-key"))
	f.Add(netip.MustParseAddr("2001:db8::1").AsSlice(), netip.MustParseAddr("2001:db8::2").AsSlice(), buildSegment(md5Opt(make([]byte, 16)), nil), []byte("k"))
	f.Fuzz(func(t *testing.T, src, dst, seg, key []byte) {
		s, ok1 := netip.AddrFromSlice(src)
		a, ok2 := netip.AddrFromSlice(dst)
		if !ok1 || !ok2 {
			return
		}
		d := NewDigester()
		sig, err := SignatureOf(seg)
		if err != nil || sig == nil {
			sig = make([]byte, 16)
		}
		want, wantErr := d.CheckSignature(s, a, seg, sig, key)
		wantSum := d.sum
		ph, phErr := NewPseudoHeader(s, a)
		if (phErr != nil) != (s.Unmap().Is4() != a.Unmap().Is4()) {
			t.Fatalf("NewPseudoHeader(%v, %v): %v", s, a, phErr)
		}
		got, gotErr := d.CheckSignaturePrepared(&ph, seg, sig, key)
		if got != want || gotErr != wantErr {
			t.Fatalf("%v -> %v, %d-byte segment: prepared %v, %v; CheckSignature %v, %v", s, a, len(seg), got, gotErr, want, wantErr)
		}
		if wantErr == nil && d.sum != wantSum {
			t.Fatalf("%v -> %v, %d-byte segment: prepared digest differs", s, a, len(seg))
		}
		sameVerifyPrepared(t, d, &ph, seg, sig, key)
	})
}
