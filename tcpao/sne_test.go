package tcpao

import (
	"math/rand/v2"
	"testing"
)

func TestSNEWrap(t *testing.T) {
	tr := NewSNETracker(0xfffffff0)
	for _, c := range []struct {
		seq     uint32
		observe bool
		want    uint32
	}{
		{0xfffffff0, true, 0}, // the SYN
		{0xfffffff1, true, 0},
		{0x00000010, true, 1}, // wrapped
		{0xfffffff8, true, 0}, // reordered from before the wrap: old SNE
		{0x00000020, true, 1},
		{0x7fff0000, true, 1},
		{0xfffffff8, true, 0}, // still 2^31 behind at most: the old SNE
		{0x90000000, true, 1}, // now the highest has passed the middle
		{0x00000010, true, 2}, // the second wrap
		{0xf0000000, false, 1},
	} {
		got := tr.SNE(c.seq)
		if c.observe {
			got = tr.Observe(c.seq)
		}
		if got != c.want {
			t.Fatalf("seq %#x: SNE %d, want %d (highest %#x)", c.seq, got, c.want, tr.Highest())
		}
	}
	if tr.Highest() != 2<<32|0x10 {
		t.Fatalf("highest %#x", tr.Highest())
	}
}

// TestSNEPeekDoesNotAdvance: SNE looks, Observe moves.
func TestSNEPeekDoesNotAdvance(t *testing.T) {
	tr := NewSNETracker(0xc0000000)
	if tr.SNE(0x10) != 1 || tr.Highest() != 0xc0000000 {
		t.Fatal("SNE changed the tracker")
	}
	tr.Observe(0x10)
	if tr.Highest() != 1<<32|0x10 {
		t.Fatalf("highest %#x", tr.Highest())
	}
}

// TestSNELongSession runs a session over many wraps with random segment
// sizes and reordering, against the 64-bit truth.
func TestSNELongSession(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	isn := r.Uint32()
	tr := NewSNETracker(isn)
	pos := uint64(isn)
	var recent []uint64
	for i := 0; i < 200000; i++ {
		pos += uint64(r.IntN(1 << 20))
		recent = append(recent, pos)
		if len(recent) > 64 {
			recent = recent[1:]
		}
		p := pos
		if r.IntN(4) == 0 { // a late segment
			p = recent[r.IntN(len(recent))]
		}
		if got := tr.Observe(uint32(p)); got != uint32(p>>32) {
			t.Fatalf("step %d: seq %#x: SNE %d, want %d", i, uint32(p), got, p>>32)
		}
	}
	if pos>>32 < 10 {
		t.Fatalf("only %d wraps", pos>>32)
	}
}

// FuzzSNE compares the tracker with a 64-bit reference model. Each 4-byte
// step of steps either sends new data (advance by up to 2^30 bytes: a
// window) or delivers a late segment (up to 2^30 behind the highest, not
// before the ISN); the tracker's SNE must be the model's high 32 bits, the
// highest sequence number must be the model's, and for in-order data the
// extended sequence number never goes down.
//
//	go test -run='^$' -fuzz=FuzzSNE -fuzztime=20s ./tcpao
func FuzzSNE(f *testing.F) {
	f.Add(uint32(0), []byte{})
	f.Add(uint32(0xffffffff), []byte{0, 0, 0, 1, 1, 0, 0, 1, 0, 0xff, 0xff, 0xff})
	f.Add(uint32(0x80000000), []byte{12, 0xff, 0xff, 0xff, 12, 0xff, 0xff, 0xff, 13, 0xff, 0xff, 0xff})
	for _, s := range rfcSNESeeds() { // also in testdata/fuzz/FuzzSNE
		f.Add(s.isn, s.steps)
	}
	f.Fuzz(func(t *testing.T, isn uint32, steps []byte) {
		tr := NewSNETracker(isn)
		hi := uint64(isn)
		last := hi
		for len(steps) >= 4 {
			op := steps[0]
			amount := uint64(steps[1])<<16 | uint64(steps[2])<<8 | uint64(steps[3])
			amount <<= min(op>>1&7, 6) // < 2^30
			steps = steps[4:]
			pos := hi + amount
			if op&1 == 1 {
				pos = hi - min(amount, hi-uint64(isn))
			} else {
				hi = pos
			}
			got := tr.Observe(uint32(pos))
			if got != uint32(pos>>32) {
				t.Fatalf("isn %#x: seq %#x (64-bit %#x): SNE %d, want %d", isn, uint32(pos), pos, got, pos>>32)
			}
			if tr.Highest() != hi {
				t.Fatalf("highest %#x, model %#x", tr.Highest(), hi)
			}
			if op&1 == 0 {
				ext := uint64(got)<<32 | uint64(uint32(pos))
				if ext < last {
					t.Fatalf("in-order extended sequence went down: %#x after %#x", ext, last)
				}
				last = ext
			}
		}
	})
}

type sneSeed struct {
	name  string
	isn   uint32
	steps []byte
}

// rfcSNESeeds turns the RFC 9235 connections into SNE seeds: each
// direction's ISN, then its segments (SYN 1 byte of sequence space, the
// 67-byte BGP OPEN of x.y.3/x.y.4), then a run of full windows that wraps.
func rfcSNESeeds() []sneSeed {
	var out []sneSeed
	step := func(op byte, n uint32) []byte { return []byte{op, byte(n >> 16), byte(n >> 8), byte(n)} }
	for _, g := range rfc9235 {
		for _, end := range []struct {
			who string
			isn uint32
		}{{"client", g.clientISN}, {"server", g.serverISN}} {
			var s []byte
			s = append(s, step(0, 1)...)  // past the SYN
			s = append(s, step(0, 67)...) // the OPEN
			s = append(s, step(1, 67)...) // the OPEN retransmitted
			for i := 0; i < 5; i++ {
				s = append(s, step(12, 0xffffff)...) // 2^30-ish windows: a wrap in 4
				s = append(s, step(13, 0x123456)...) // a late segment
			}
			out = append(out, sneSeed{"rfc9235-" + g.section + "-" + end.who, end.isn, s})
		}
	}
	return out
}
