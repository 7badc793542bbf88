package tcpao

import (
	"bytes"
	"errors"
	"net/netip"
	"testing"
)

var (
	aoOpt    = Option{KeyID: 61, RNextKeyID: 84, MAC: []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}}.Append(nil)
	md5Opt   = append([]byte{OptMD5, 18}, bytes.Repeat([]byte{0xaa}, 16)...)
	linuxSYN = append(append([]byte{2, 4, 0x05, 0xb4}, aoOpt...), OptNOP, OptNOP, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0) // MSS, AO, TS
)

func TestParseOptions(t *testing.T) {
	for _, c := range []struct {
		name     string
		opts     []byte
		ao, md5  bool
		aoOffset int
	}{
		{"empty", nil, false, false, -1},
		{"ao", aoOpt, true, false, 0},
		{"linux-syn", linuxSYN, true, false, 4},
		{"md5", md5Opt, false, true, -1},
		{"md5-and-ao", append(append(bytes.Clone(md5Opt), OptNOP, OptNOP), aoOpt...), true, true, 20},
		{"nops-then-ao", append([]byte{OptNOP, OptNOP, OptNOP}, aoOpt...), true, false, 3},
		{"eol-hides-ao", append([]byte{OptEOL}, aoOpt...), false, false, -1},
		{"ao-then-eol-garbage", append(bytes.Clone(aoOpt), OptEOL, 29, 1, 0xff), true, false, 0},
		{"short-mac", []byte{OptAO, 4, 1, 2}, true, false, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			o, err := ParseOptions(c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if o.HasAO != c.ao || o.HasMD5 != c.md5 || o.AOOffset != c.aoOffset {
				t.Fatalf("got %+v", o)
			}
			if c.ao {
				l := int(c.opts[o.AOOffset+1])
				if o.AO.KeyID != c.opts[o.AOOffset+2] || o.AO.RNextKeyID != c.opts[o.AOOffset+3] || !bytes.Equal(o.AO.MAC, c.opts[o.AOOffset+4:o.AOOffset+l]) {
					t.Fatalf("option %+v", o.AO)
				}
				if o.AO.Len() != l || !bytes.Equal(o.AO.Append(nil), c.opts[o.AOOffset:o.AOOffset+l]) {
					t.Fatal("the option does not re-encode to its bytes")
				}
			}
		})
	}
}

func TestParseOptionsMalformed(t *testing.T) {
	for _, c := range []struct {
		name   string
		opts   []byte
		offset int
	}{
		{"length-missing", []byte{OptNOP, OptAO}, 1},
		{"length-zero", []byte{8, 0, 0, 0}, 0},
		{"length-one", []byte{OptNOP, OptNOP, 5, 1}, 2},
		{"past-end", []byte{8, 10, 0, 0}, 0},
		{"ao-short", []byte{OptAO, 3, 1, OptNOP}, 0},
		{"ao-truncated", aoOpt[:10], 0},
		{"ao-twice", append(bytes.Clone(aoOpt), aoOpt...), 16},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseOptions(c.opts)
			var oe *OptionError
			if !errors.As(err, &oe) || !errors.Is(err, ErrBadOptions) || oe.Offset != c.offset {
				t.Fatalf("err = %v, want *OptionError at %d wrapping ErrBadOptions", err, c.offset)
			}
		})
	}
}

// FuzzParseOptions checks the parser on arbitrary option lists: it never
// panics or reads past the list (the list is cut out of a larger buffer
// whose tail is poisoned, and a found MAC must lie inside the list); an
// error is an *OptionError with an offset inside the list; a found option
// is the bytes at AOOffset and re-encodes to them (Append round trip); NOP
// padding in front only moves it; the same list in a segment parses the
// same through SegmentOptions.
//
//	go test -run='^$' -fuzz=FuzzParseOptions -fuzztime=20s ./tcpao
func FuzzParseOptions(f *testing.F) {
	for _, s := range [][]byte{nil, aoOpt, linuxSYN, md5Opt, {OptNOP}, {OptAO}, {OptAO, 4, 0, 0}} {
		f.Add(s)
	}
	for _, opts := range rfcOptionLists(f) { // also in testdata/fuzz/FuzzParseOptions
		f.Add(opts)
	}
	f.Fuzz(func(t *testing.T, opts []byte) {
		if len(opts) > 40 {
			opts = opts[:40]
		}
		buf := append(bytes.Clone(opts), OptAO, 16, 0xee, 0xee) // a poisoned tail
		list := buf[:len(opts):len(opts)]
		o, err := ParseOptions(list)
		if err != nil {
			var oe *OptionError
			if !errors.As(err, &oe) || !errors.Is(err, ErrBadOptions) || oe.Offset < 0 || oe.Offset >= len(opts) {
				t.Fatalf("bad error %v for %x", err, opts)
			}
		}
		if !o.HasAO {
			if o.AOOffset != -1 {
				t.Fatalf("no option, offset %d", o.AOOffset)
			}
		} else {
			i := o.AOOffset
			if i < 0 || i+o.AO.Len() > len(opts) || len(o.AO.MAC) > 0 && &o.AO.MAC[len(o.AO.MAC)-1] != &list[i+o.AO.Len()-1] {
				t.Fatalf("option at %d (%d bytes) is not inside the %d-byte list", i, o.AO.Len(), len(opts))
			}
			if cap(o.AO.MAC) != len(o.AO.MAC) {
				t.Fatal("the MAC's capacity reaches past the option")
			}
			if enc := o.AO.Append(nil); !bytes.Equal(enc, opts[i:i+len(enc)]) {
				t.Fatalf("option %+v encodes to %x, list has %x", o.AO, enc, opts[i:i+len(enc)])
			}
			// Round trip: the encoded option alone parses back to itself.
			back, err := ParseOptions(o.AO.Append(nil))
			if err != nil || !back.HasAO || back.AO.KeyID != o.AO.KeyID || back.AO.RNextKeyID != o.AO.RNextKeyID || !bytes.Equal(back.AO.MAC, o.AO.MAC) {
				t.Fatalf("round trip: %+v, %v", back, err)
			}
		}
		if err == nil && len(opts) <= 36 {
			o2, err2 := ParseOptions(append([]byte{OptNOP, OptNOP, OptNOP, OptNOP}, opts...))
			if err2 != nil || o2.HasAO != o.HasAO || o2.HasMD5 != o.HasMD5 || o.HasAO && (o2.AOOffset != o.AOOffset+4 || !bytes.Equal(o2.AO.MAC, o.AO.MAC)) {
				t.Fatalf("NOP prefix changed the result: %+v %v vs %+v", o2, err2, o)
			}
		}
		padded := bytes.Clone(opts)
		for len(padded)%4 != 0 {
			padded = append(padded, OptEOL)
		}
		tcp := append(make([]byte, 20), padded...)
		tcp[12] = byte(len(tcp)/4) << 4
		tcp = append(tcp, 1, 2, 3)
		o3, err3 := SegmentOptions(tcp)
		o4, err4 := ParseOptions(padded)
		if (err3 == nil) != (err4 == nil) || o3.HasAO != o4.HasAO || o3.HasMD5 != o4.HasMD5 || o3.AOOffset != o4.AOOffset {
			t.Fatalf("SegmentOptions %+v, %v; ParseOptions %+v, %v", o3, err3, o4, err4)
		}
	})
}

// rfcOptionLists returns the TCP option lists of the RFC 9235 segments.
func rfcOptionLists(t testing.TB) [][]byte {
	var out [][]byte
	for _, seg := range rfcSegments(t) {
		hl := int(seg.TCP[12]>>4) * 4
		out = append(out, bytes.Clone(seg.TCP[20:hl]))
	}
	return out
}

// rfcSegments returns the 32 RFC 9235 segments.
func rfcSegments(t testing.TB) []Segment {
	t.Helper()
	var out []Segment
	for _, g := range rfc9235 {
		for _, v := range g.vectors {
			seg, err := ipSegment(hexBytes(t, v.packet))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, seg)
		}
	}
	return out
}

// TestLinuxLayoutFastPath: the two common 28-byte option lists are
// recognized without the walk, with exactly ParseOptions' result, and
// near misses take the walk.
func TestLinuxLayoutFastPath(t *testing.T) {
	ts := []byte{OptNOP, OptNOP, 8, 10, 1, 2, 3, 4, 5, 6, 7, 8}
	ao := Option{KeyID: 7, RNextKeyID: 9, MAC: bytes.Repeat([]byte{0xab}, MACLen)}.Append(nil)
	for _, c := range []struct {
		name string
		opts []byte
		fast bool
	}{
		{"linux", append(bytes.Clone(ao), ts...), true},
		{"rfc9235", append(bytes.Clone(ts), ao...), true},
		{"ts-length-9", append(bytes.Clone(ao), OptNOP, OptNOP, 8, 9, 1, 2, 3, 4, 5, 6, 7, OptNOP), false},
		{"ao-length-15", append(append(bytes.Clone(ts), OptAO, 15), ao[2:]...), false},
		{"md5-and-ts", append(append([]byte{OptMD5, 16}, make([]byte, 14)...), ts...), false},
	} {
		tcp := append(make([]byte, 20), c.opts...)
		tcp[12] = byte(len(tcp)/4) << 4
		tcp = append(tcp, 0xee)
		var p parsed
		fast := p.linuxLayout(tcp)
		want, err := ParseOptions(c.opts)
		got, gerr := Segment{Src: netip.MustParseAddr("192.0.2.1"), Dst: netip.MustParseAddr("192.0.2.2"), TCP: tcp}.parse()
		if fast != c.fast || (err == nil) != (gerr == nil) || got.opts.HasAO != want.HasAO || got.opts.HasMD5 != want.HasMD5 ||
			got.opts.AOOffset != want.AOOffset || got.opts.AO.KeyID != want.AO.KeyID || got.opts.AO.RNextKeyID != want.AO.RNextKeyID ||
			!bytes.Equal(got.opts.AO.MAC, want.AO.MAC) || cap(got.opts.AO.MAC) != len(got.opts.AO.MAC) {
			t.Errorf("%s: fast %v; parse %+v, %v; ParseOptions %+v, %v", c.name, fast, got.opts, gerr, want, err)
		}
	}
}
