package tcpao

import (
	"bytes"
	"crypto/hmac"
	"fmt"
	"net/netip"
	"testing"
	"time"
)

// benchSizes are the payloads of a BGP KEEPALIVE (19), a small UPDATE
// (140) and a full 1500-byte-MTU segment with timestamps and TCP-AO
// (1448).
var benchSizes = []int{19, 140, 1448}

// benchInput returns a received IPv4 segment with NOP, NOP, timestamps and
// a TCP-AO option (as Linux sends them) and payload bytes, signed, the Keys
// that verify it, and the exact MAC message, for the floor.
func benchInput(b *testing.B, alg Algorithm, payload int) (*Keys, Segment, []byte) {
	opts := append([]byte{OptNOP, OptNOP, 8, 10, 1, 2, 3, 4, 5, 6, 7, 8}, Option{KeyID: 2, RNextKeyID: 1, MAC: make([]byte, MACLen)}.Append(nil)...)
	tcp := make([]byte, 20, 20+len(opts)+payload)
	tcp[0], tcp[1], tcp[2], tcp[3] = 0x9c, 0x40, 0, 179
	tcp[4], tcp[7], tcp[11] = 0x11, 0x22, 0x33
	tcp[12] = byte((20+len(opts))/4) << 4
	tcp[13] = 0x18
	tcp[16], tcp[17] = 0xbe, 0xef
	tcp = append(append(tcp, opts...), bytes.Repeat([]byte{0x5a}, payload)...)
	seg := Segment{Src: netip.MustParseAddr("192.0.2.2"), Dst: netip.MustParseAddr("192.0.2.1"), TCP: tcp}
	mk := MasterKey{Alg: alg, Secret: []byte("a-typical-bgp-ao-key"), SendID: 1, RecvID: 2, IncludeOptions: true}
	conn := Connection{Local: netip.MustParseAddrPort("192.0.2.1:179"), Remote: netip.MustParseAddrPort("192.0.2.2:40000"), LocalISN: 7, RemoteISN: 9}
	ks, err := mk.Keys(conn)
	if err != nil {
		b.Fatal(err)
	}
	mac, _ := ks.RecvOther.MAC(nil, 0, seg)
	copy(tcp[20+len(opts)-MACLen:], mac)
	if err := ks.Verify(Receive, 0, seg); err != nil {
		b.Fatal(err)
	}
	return ks, seg, referenceMessage(0, seg, true)
}

// floorFunc returns the bare MAC over msg, contiguous, with state prepared
// as well as the package prepares it: crypto/hmac's Reset/Write/Sum with
// the padded states saved, or this package's CMAC with its expanded key.
// It is what a segment's MAC cannot get below.
func floorFunc(b *testing.B, alg Algorithm, msg []byte) func() {
	key := make([]byte, alg.TrafficKeyLen())
	if alg != AESCMAC {
		h := hmac.New(referenceHashes[alg], key)
		h.Reset()
		var sum [64]byte
		return func() {
			h.Reset()
			h.Write(msg)
			h.Sum(sum[:0])
		}
	}
	c, err := newCMAC(key)
	if err != nil {
		b.Fatal(err)
	}
	var sum [16]byte
	return func() {
		c.reset()
		c.write(msg)
		c.sum(sum[:])
	}
}

// BenchmarkVerify measures Keys.Verify (option walk, KeyID check, key
// selection, message assembly, MAC, constant-time compare) on a received
// segment and reports its time relative to the bare MAC over the same
// message bytes (metric "x-floor"). The two are timed in interleaved chunks
// of the same run, so machine noise hits both alike.
//
//	go test -run='^$' -bench=BenchmarkVerify -benchtime=2s ./tcpao
func BenchmarkVerify(b *testing.B) {
	for _, alg := range algs {
		for _, n := range benchSizes {
			b.Run(fmt.Sprintf("%s/payload=%d", alg, n), func(b *testing.B) {
				ks, seg, msg := benchInput(b, alg, n)
				floor := floorFunc(b, alg, msg)
				b.ReportAllocs()
				b.SetBytes(int64(len(msg)))
				var el, fl time.Duration
				const chunk = 1024
				for done := 0; done < b.N; {
					k := min(chunk, b.N-done)
					t0 := time.Now()
					for i := 0; i < k; i++ {
						if err := ks.Verify(Receive, 0, seg); err != nil {
							b.Fatal(err)
						}
					}
					t1 := time.Now()
					b.StopTimer()
					for i := 0; i < k; i++ {
						floor()
					}
					t2 := time.Now()
					b.StartTimer()
					el += t1.Sub(t0)
					fl += t2.Sub(t1)
					done += k
				}
				b.ReportMetric(float64(el)/float64(fl), "x-floor")
				b.ReportMetric(float64(fl.Nanoseconds())/float64(b.N), "floor-ns/op")
			})
		}
	}
}

// BenchmarkMAC is TrafficKey.MAC into a caller's buffer (the sending side,
// or a checker that compares itself).
func BenchmarkMAC(b *testing.B) {
	for _, alg := range algs {
		for _, n := range benchSizes {
			b.Run(fmt.Sprintf("%s/payload=%d", alg, n), func(b *testing.B) {
				ks, seg, msg := benchInput(b, alg, n)
				buf := make([]byte, 0, MACLen)
				b.ReportAllocs()
				b.SetBytes(int64(len(msg)))
				for b.Loop() {
					buf, _ = ks.RecvOther.MAC(buf[:0], 0, seg)
				}
			})
		}
	}
}

// BenchmarkKeys is the per-connection cost: four KDF runs and four
// prepared traffic keys.
func BenchmarkKeys(b *testing.B) {
	for _, alg := range algs {
		b.Run(alg.String(), func(b *testing.B) {
			mk := MasterKey{Alg: alg, Secret: []byte("a-typical-bgp-ao-key"), SendID: 1, RecvID: 2, IncludeOptions: true}
			conn := Connection{Local: netip.MustParseAddrPort("192.0.2.1:179"), Remote: netip.MustParseAddrPort("192.0.2.2:40000"), LocalISN: 7, RemoteISN: 9}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := mk.Keys(conn); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
