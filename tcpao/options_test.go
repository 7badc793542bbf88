package tcpao

import (
	"bytes"
	"errors"
	"net/netip"
	"testing"

	"github.com/authbgp/authbgpd/tcpopt"
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
		{"md5-twice", append(bytes.Clone(md5Opt), md5Opt...), 18},
		{"md5-length-17", append([]byte{OptNOP, OptNOP, OptMD5, 17}, md5Opt[2:17]...), 2},
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

// TestMD5AndAO: a list with both options is refused as RFC 5925 §7.7 has
// it (ErrMD5Option), with both options found; Keys.Verify says the same.
func TestMD5AndAO(t *testing.T) {
	opts := append(append(bytes.Clone(md5Opt), OptNOP, OptNOP), aoOpt...)
	o, err := ParseOptions(opts)
	if !errors.Is(err, ErrMD5Option) || !errors.Is(err, tcpopt.ErrMD5AndAO) || errors.Is(err, ErrBadOptions) || !o.HasAO || !o.HasMD5 || o.AOOffset != 20 {
		t.Fatalf("ParseOptions = %+v, %v", o, err)
	}
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

// TestSegmentParseLayouts: the two common 28-byte option lists (which
// tcpopt recognises without the walk) and near misses give a segment's
// parse exactly ParseOptions' result.
func TestSegmentParseLayouts(t *testing.T) {
	ts := []byte{OptNOP, OptNOP, 8, 10, 1, 2, 3, 4, 5, 6, 7, 8}
	ao := Option{KeyID: 7, RNextKeyID: 9, MAC: bytes.Repeat([]byte{0xab}, MACLen)}.Append(nil)
	for _, c := range []struct {
		name string
		opts []byte
	}{
		{"linux", append(bytes.Clone(ao), ts...)},
		{"rfc9235", append(bytes.Clone(ts), ao...)},
		{"ts-length-9", append(bytes.Clone(ao), OptNOP, OptNOP, 8, 9, 1, 2, 3, 4, 5, 6, 7, OptNOP)},
		{"ao-length-15", append(append(bytes.Clone(ts), OptAO, 15), ao[2:]...)},
		{"md5-and-ts", append(append([]byte{OptMD5, 16}, make([]byte, 14)...), ts...)},
	} {
		tcp := append(make([]byte, 20), c.opts...)
		tcp[12] = byte(len(tcp)/4) << 4
		tcp = append(tcp, 0xee)
		want, err := ParseOptions(c.opts)
		got, gerr := Segment{Src: netip.MustParseAddr("192.0.2.1"), Dst: netip.MustParseAddr("192.0.2.2"), TCP: tcp}.parse()
		keyID, rnext := got.opts.AOKeyIDs(c.opts)
		mac := got.opts.MAC(c.opts)
		if (err == nil) != (gerr == nil) || got.opts.HasAO() != want.HasAO || got.opts.HasMD5() != want.HasMD5 ||
			got.opts.AOOffset() != want.AOOffset || keyID != want.AO.KeyID || rnext != want.AO.RNextKeyID ||
			!bytes.Equal(mac, want.AO.MAC) || cap(mac) != len(mac) {
			t.Errorf("%s: parse %+v, %v; ParseOptions %+v, %v", c.name, got.opts, gerr, want, err)
		}
	}
}
