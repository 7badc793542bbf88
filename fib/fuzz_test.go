package fib

import (
	"math/rand/v2"
	"testing"
)

// FuzzParseRoute: the parser never panics; a route it parses that is
// writable encodes and parses back equal; a parsed route is normalized.
// Seeds: real kernel messages (testdata/fuzz/FuzzParseRoute, written by
// TestKernelCaptureSeeds) and our own encodings.
//
//	go test -run '^$' -fuzz FuzzParseRoute ./fib
func FuzzParseRoute(f *testing.F) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		f.Add(encode(f, Op{Route: randRoute(rng)}))
	}
	f.Add(encode(f, Op{Delete: true, Route: randRoute(rng)}))
	f.Fuzz(func(t *testing.T, body []byte) {
		var arena []NextHop
		r, m, ok := parseRoute(body, &arena)
		if !ok {
			return
		}
		n := r
		n.NextHops = append([]NextHop(nil), r.NextHops...)
		n.Normalize()
		if !n.Equal(r) || r.Dst != r.Dst.Masked() {
			t.Fatalf("parsed route not normalized: %s", r)
		}
		if r.Validate() != nil {
			return
		}
		b, err := appendOp(nil, Op{Route: r}, 1)
		if err != nil {
			t.Fatalf("encode parsed %s: %v", r, err)
		}
		_, _, _, again, _, _ := nextMessage(b)
		r2, m2, ok := parseRoute(again, nil)
		if !ok || !r2.Equal(r) || !m2.ours() {
			t.Fatalf("re-parse of %s (%+v): %s %+v %v", r, m, r2, m2, ok)
		}
	})
}

// FuzzRoundTrip: parse(encode(r)) == r for valid routes drawn from the
// fuzzer's seed.
func FuzzRoundTrip(f *testing.F) {
	f.Add(uint64(1), uint64(2))
	f.Add(uint64(0), uint64(0))
	f.Fuzz(func(t *testing.T, s1, s2 uint64) {
		rng := rand.New(rand.NewPCG(s1, s2))
		r := randRoute(rng)
		got, m, ok := parseRoute(encode(t, Op{Route: r}), nil)
		if !ok || !got.Equal(r) || !m.ours() {
			t.Fatalf("round trip of %s: %s %+v %v", r, got, m, ok)
		}
	})
}

// FuzzParseAck: the ack, message and link parsers never panic.
func FuzzParseAck(f *testing.F) {
	f.Add([]byte{}, uint16(0))
	f.Fuzz(func(t *testing.T, b []byte, flags uint16) {
		parseAck(b, flags)
		parseVRF(b)
		for rest := b; len(rest) > 0; {
			var ok bool
			if _, _, _, _, rest, ok = nextMessage(rest); !ok {
				break
			}
		}
	})
}
