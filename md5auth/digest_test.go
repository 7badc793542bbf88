package md5auth

import (
	"bytes"
	"crypto/md5"
	"encoding/binary"
	"fmt"
	"net/netip"
	"testing"
	"time"
)

// buildSegment makes a TCP segment (header with the given options, then
// payload) with a non-zero checksum, so tests notice if it is not zeroed.
func buildSegment(opts, payload []byte) []byte {
	hl := 20 + len(opts)
	for hl%4 != 0 {
		opts = append(opts, OptNOP)
		hl++
	}
	seg := make([]byte, hl+len(payload))
	binary.BigEndian.PutUint16(seg[0:2], 179)
	binary.BigEndian.PutUint16(seg[2:4], 40123)
	binary.BigEndian.PutUint32(seg[4:8], 0x01020304)
	binary.BigEndian.PutUint32(seg[8:12], 0x0a0b0c0d)
	seg[12] = byte(hl/4) << 4
	seg[13] = 0x18 // PSH|ACK
	binary.BigEndian.PutUint16(seg[14:16], 501)
	binary.BigEndian.PutUint16(seg[16:18], 0xbeef) // checksum: must be ignored
	binary.BigEndian.PutUint16(seg[18:20], 7)      // urgent pointer: covered
	copy(seg[20:], opts)
	copy(seg[hl:], payload)
	return seg
}

func md5Opt(sig []byte) []byte {
	o := []byte{OptNOP, OptNOP, OptMD5, 18}
	return append(o, sig...)
}

// referenceDigest is an independent, allocation-happy RFC 2385 digest
// written straight from the RFC text, used as an oracle for Digester.
func referenceDigest(src, dst netip.Addr, seg, key []byte) [16]byte {
	var b bytes.Buffer
	tcpLen := len(seg)
	if src.Is4() {
		b.Write(src.AsSlice())
		b.Write(dst.AsSlice())
		b.Write([]byte{0, 6, byte(tcpLen >> 8), byte(tcpLen)})
	} else {
		b.Write(src.AsSlice())
		b.Write(dst.AsSlice())
		b.Write([]byte{byte(tcpLen >> 24), byte(tcpLen >> 16), byte(tcpLen >> 8), byte(tcpLen), 0, 0, 0, 6})
	}
	hdr := append([]byte(nil), seg[:20]...)
	hdr[16], hdr[17] = 0, 0
	b.Write(hdr)
	b.Write(seg[int(seg[12]>>4)*4:])
	b.Write(key)
	return md5.Sum(b.Bytes())
}

func TestDigestMatchesReference(t *testing.T) {
	key := []byte("frr-gobgp-test-key")
	cases := []struct {
		name     string
		src, dst string
		payload  int
		extra    []byte
	}{
		{"v4-empty", "192.0.2.1", "192.0.2.2", 0, nil},
		{"v4-keepalive", "192.0.2.1", "192.0.2.2", 19, nil},
		{"v4-timestamps", "192.0.2.2", "192.0.2.1", 140, []byte{OptNOP, OptNOP, 8, 10, 1, 2, 3, 4, 5, 6, 7, 8}},
		{"v6-empty", "2001:db8::1", "2001:db8::2", 0, nil},
		{"v6-update", "2001:db8::2", "2001:db8::1", 1440, nil},
		{"v4-mapped", "::ffff:192.0.2.1", "::ffff:192.0.2.2", 19, nil},
	}
	d := NewDigester()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src, dst := netip.MustParseAddr(c.src), netip.MustParseAddr(c.dst)
			payload := bytes.Repeat([]byte{0xff}, c.payload)
			seg := buildSegment(append(md5Opt(make([]byte, 16)), c.extra...), payload)
			want := referenceDigest(src.Unmap(), dst.Unmap(), seg, key)
			got, err := d.Sum(nil, src, dst, seg, key)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want[:]) {
				t.Fatalf("digest %x, reference %x", got, want)
			}
			// Sign the segment and check it.
			opts, _ := SegmentOptions(seg)
			_ = opts
			off := bytes.Index(seg[20:], []byte{OptMD5, 18}) + 22
			copy(seg[off:off+16], got)
			if v, err := d.Check(src, dst, seg, key); err != nil || v != Valid {
				t.Fatalf("Check = %v, %v; want valid", v, err)
			}
			// Options and checksum are not covered; everything else is.
			seg[16] ^= 0xff
			if v, _ := d.Check(src, dst, seg, key); v != Valid {
				t.Fatalf("checksum change broke the signature")
			}
			if c.extra != nil {
				seg[20+len(md5Opt(nil))+16+4] ^= 0xff // a timestamp byte
				if v, _ := d.Check(src, dst, seg, key); v != Valid {
					t.Fatalf("option change broke the signature")
				}
			}
			for _, mut := range []struct {
				what string
				f    func() (netip.Addr, netip.Addr, []byte, []byte)
			}{
				{"key", func() (netip.Addr, netip.Addr, []byte, []byte) { return src, dst, seg, []byte("other") }},
				{"src", func() (netip.Addr, netip.Addr, []byte, []byte) { return dst, dst, seg, key }},
				{"swap", func() (netip.Addr, netip.Addr, []byte, []byte) { return dst, src, seg, key }},
				{"seq", func() (netip.Addr, netip.Addr, []byte, []byte) {
					s := bytes.Clone(seg)
					s[5]++
					return src, dst, s, key
				}},
				{"urgent", func() (netip.Addr, netip.Addr, []byte, []byte) {
					s := bytes.Clone(seg)
					s[19]++
					return src, dst, s, key
				}},
				{"payload-length", func() (netip.Addr, netip.Addr, []byte, []byte) {
					return src, dst, append(bytes.Clone(seg), 0), key
				}},
			} {
				s, t2, sg, k := mut.f()
				if v, err := d.Check(s, t2, sg, k); err != nil || v != Invalid {
					t.Errorf("changed %s: Check = %v, %v; want invalid", mut.what, v, err)
				}
			}
		})
	}
}

func TestCheckUnsignedAndErrors(t *testing.T) {
	d := NewDigester()
	a, b := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	v6 := netip.MustParseAddr("2001:db8::1")
	seg := buildSegment([]byte{2, 4, 5, 180}, []byte("x")) // MSS only
	if v, err := d.Check(a, b, seg, []byte("k")); err != nil || v != Unsigned {
		t.Fatalf("unsigned segment: %v, %v", v, err)
	}
	if _, err := d.Check(a, v6, buildSegment(md5Opt(make([]byte, 16)), nil), []byte("k")); err != ErrAddrFamily {
		t.Fatalf("mixed families: err = %v", err)
	}
	if _, err := d.Check(a, b, seg[:19], []byte("k")); err != ErrShortSegment {
		t.Fatalf("short: err = %v", err)
	}
	bad := bytes.Clone(seg)
	bad[12] = 0xf0 // data offset 60 > length
	if _, err := d.Check(a, b, bad, []byte("k")); err != ErrShortSegment {
		t.Fatalf("bad offset: err = %v", err)
	}
	bad[12] = 0x40 // data offset 16 < 20
	if _, err := d.Check(a, b, bad, []byte("k")); err != ErrShortSegment {
		t.Fatalf("small offset: err = %v", err)
	}
}

func TestDigestZeroAllocs(t *testing.T) {
	d := NewDigester()
	key := []byte("secret")
	for _, fam := range []struct{ s, d string }{{"192.0.2.1", "192.0.2.2"}, {"2001:db8::1", "2001:db8::2"}} {
		src, dst := netip.MustParseAddr(fam.s), netip.MustParseAddr(fam.d)
		seg := buildSegment(md5Opt(make([]byte, 16)), make([]byte, 1440))
		buf := make([]byte, 0, 16)
		if n := testing.AllocsPerRun(200, func() {
			if _, err := d.Sum(buf[:0], src, dst, seg, key); err != nil {
				t.Fatal(err)
			}
			if _, err := d.Check(src, dst, seg, key); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Fatalf("%s: %v allocations per segment, want 0", fam.s, n)
		}
	}
}

var benchSizes = []int{140, 1440}

// benchInput returns an IPv4 segment with payload bytes and the exact byte
// string the digest covers, for the floor.
func benchInput(payload int) (src, dst netip.Addr, seg, key, covered []byte) {
	src, dst = netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	seg = buildSegment(append(md5Opt(make([]byte, 16)), OptNOP, OptNOP, 8, 10, 1, 2, 3, 4, 5, 6, 7, 8), bytes.Repeat([]byte{0x5a}, payload))
	key = []byte("a-typical-bgp-md5-key")
	var b bytes.Buffer
	b.Write(make([]byte, 12))
	b.Write(seg[:20])
	b.Write(seg[int(seg[12]>>4)*4:])
	b.Write(key)
	return src, dst, seg, key, b.Bytes()
}

var sink [16]byte

// BenchmarkDigest measures Digester.Check (option scan + digest + constant
// time compare) and reports its time relative to md5.Sum over the same
// covered bytes (metric "x-md5floor"; target ≤ 1.10). The two are timed in
// interleaved chunks of the same run, so machine noise hits both alike.
func BenchmarkDigest(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			src, dst, seg, key, covered := benchInput(n)
			d := NewDigester()
			b.ReportAllocs()
			b.SetBytes(int64(len(covered)))
			var el, floor time.Duration
			const chunk = 4096
			for done := 0; done < b.N; {
				k := min(chunk, b.N-done)
				t0 := time.Now()
				for i := 0; i < k; i++ {
					if _, err := d.Check(src, dst, seg, key); err != nil {
						b.Fatal(err)
					}
				}
				t1 := time.Now()
				b.StopTimer()
				for i := 0; i < k; i++ {
					sink = md5.Sum(covered)
				}
				t2 := time.Now()
				b.StartTimer()
				el += t1.Sub(t0)
				floor += t2.Sub(t1)
				done += k
			}
			b.ReportMetric(float64(el)/float64(floor), "x-md5floor")
		})
	}
}

// BenchmarkMD5Floor is md5.Sum over exactly the bytes BenchmarkDigest covers.
func BenchmarkMD5Floor(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			_, _, _, _, covered := benchInput(n)
			b.ReportAllocs()
			b.SetBytes(int64(len(covered)))
			for i := 0; i < b.N; i++ {
				sink = md5.Sum(covered)
			}
		})
	}
}

// TestDigestEveryJoin: where the payload ends and the key begins in the
// covered bytes, every payload length modulo 8 (short and long) meets
// every key length (0 to 80 bytes), against the RFC-text reference, for
// both families.
func TestDigestEveryJoin(t *testing.T) {
	d := NewDigester()
	for _, fam := range [][2]string{{"192.0.2.1", "192.0.2.2"}, {"2001:db8::1", "2001:db8::2"}} {
		src, dst := netip.MustParseAddr(fam[0]), netip.MustParseAddr(fam[1])
		for _, payload := range []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 19, 63, 64, 65, 71, 72, 73, 79, 140, 141, 1439, 1440} {
			p := make([]byte, payload)
			for i := range p {
				p[i] = byte(i*7 + 1)
			}
			seg := buildSegment(md5Opt(make([]byte, 16)), p)
			for kl := 0; kl <= 80; kl++ {
				key := make([]byte, kl)
				for i := range key {
					key[i] = byte(0xa0 + i)
				}
				want := referenceDigest(src, dst, seg, key)
				got, err := d.Sum(nil, src, dst, seg, key)
				if err != nil || !bytes.Equal(got, want[:]) {
					t.Fatalf("%v, %d-byte payload, %d-byte key: digest %x, %v; reference %x", src, payload, kl, got, err, want)
				}
			}
		}
	}
}
