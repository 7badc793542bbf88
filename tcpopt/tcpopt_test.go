package tcpopt

import (
	"bytes"
	"errors"
	"testing"
)

var (
	sig16    = []byte{0xc4, 0x1a, 0x7f, 0x00, 0x93, 0x11, 0x2e, 0x5b, 0x6d, 0x80, 0x01, 0xfe, 0x42, 0x42, 0x09, 0x17}
	mac12    = []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	md5Opt   = AppendMD5(nil, sig16)
	aoOpt    = AppendAO(nil, 61, 84, mac12)
	ts       = []byte{KindNOP, KindNOP, 8, 10, 0, 0, 0, 9, 0, 0, 0, 5}
	mss      = []byte{2, 4, 0x05, 0xb4}
	linuxMD5 = append([]byte{KindNOP, KindNOP}, md5Opt...)                                               // Linux's established TCP-MD5 list
	md5SYN   = cat(mss, []byte{KindNOP, KindNOP}, md5Opt, ts, []byte{KindNOP, 3, 3, 7})                  // MSS, MD5, TS, WS
	md5ACK   = cat([]byte{KindNOP, KindNOP}, md5Opt, ts)                                                 // MD5, TS
	aoLinux  = cat(aoOpt, ts)                                                                            // Linux's established TCP-AO list
	aoRFC    = cat(ts, aoOpt)                                                                            // RFC 9235's
	aoSYN    = cat(mss, aoOpt, ts)                                                                       // MSS, AO, TS
	plainSYN = []byte{2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, KindNOP, 3, 3, 7}           // MSS, SACK-OK, TS, WS
	md5EOL   = cat(md5Opt, []byte{KindEOL, 0})                                                           // EOL, then padding
	eolHides = cat([]byte{KindEOL}, md5Opt, aoOpt, []byte{KindMD5, 1})                                   // nothing after EOL counts
	twoMD5   = cat(md5Opt, md5Opt)                                                                       // the three named segments
	md5Len17 = cat([]byte{KindNOP, KindNOP, KindMD5, 17}, sig16[:15], []byte{KindNOP, KindNOP, KindNOP}) // ...
	twoAO    = cat(aoOpt, aoOpt)                                                                         // ...
	md5AndAO = cat(md5Opt, []byte{KindNOP, KindNOP}, aoOpt)
)

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		name    string
		list    []byte
		md5, ao int // offsets, -1: absent
	}{
		{"empty", nil, -1, -1},
		{"linux-md5", linuxMD5, 2, -1},
		{"md5-syn", md5SYN, 6, -1},
		{"md5-ack", md5ACK, 2, -1},
		{"ao-linux", aoLinux, -1, 0},
		{"ao-rfc9235", aoRFC, -1, 12},
		{"ao-syn", aoSYN, -1, 4},
		{"ao-no-mac", []byte{KindAO, 4, 1, 2}, -1, 0},
		{"plain-syn", plainSYN, -1, -1},
		{"md5-eol", md5EOL, 0, -1},
		{"eol-hides", eolHides, -1, -1},
		{"all-nop", bytes.Repeat([]byte{KindNOP}, 40), -1, -1},
		{"all-eol", make([]byte, 40), -1, -1},
		{"nops-then-md5", cat(bytes.Repeat([]byte{KindNOP}, 20), md5Opt), 20, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			o, err := Parse(c.list)
			if err != nil || o.MD5Offset() != c.md5 || o.AOOffset() != c.ao || o.HasMD5() != (c.md5 >= 0) || o.HasAO() != (c.ao >= 0) {
				t.Fatalf("Parse = md5 %d, ao %d, %v; want md5 %d, ao %d", o.MD5Offset(), o.AOOffset(), err, c.md5, c.ao)
			}
			if c.md5 >= 0 && !bytes.Equal(o.Signature(c.list), sig16) {
				t.Fatalf("signature %x", o.Signature(c.list))
			}
			if c.ao >= 0 {
				k, r := o.AOKeyIDs(c.list)
				l := int(c.list[c.ao+1])
				if k != c.list[c.ao+2] || r != c.list[c.ao+3] || o.AOLen(c.list) != l || !bytes.Equal(o.MAC(c.list), c.list[c.ao+4:c.ao+l]) {
					t.Fatalf("option %d/%d len %d mac %x", k, r, o.AOLen(c.list), o.MAC(c.list))
				}
			}
		})
	}
}

// TestParseRules breaks each rule once: every list here is refused, at
// the offset given, with the reason given.
func TestParseRules(t *testing.T) {
	for _, c := range []struct {
		name   string
		list   []byte
		offset int
		reason string
		both   bool // ErrMD5AndAO, not *Error
	}{
		{"length-missing", []byte{KindNOP, KindAO}, 1, "length byte missing", false},
		{"length-zero", []byte{8, 0, 0, 0}, 0, "below 2", false},
		{"length-one", []byte{KindNOP, KindNOP, 5, 1}, 2, "below 2", false},
		{"past-end", []byte{8, 10, 0, 0}, 0, "runs past", false},
		{"md5-truncated", cat([]byte{KindNOP, KindNOP}, md5Opt[:12]), 2, "runs past", false},
		{"two-md5", twoMD5, 18, "second TCP-MD5", false},
		{"md5-length-17", md5Len17, 2, "length 17, want 18", false},
		{"md5-length-19", cat([]byte{KindMD5, 19}, sig16, []byte{0}), 0, "length 19, want 18", false},
		{"md5-length-2", []byte{KindMD5, 2, KindNOP, KindNOP}, 0, "length 2, want 18", false},
		{"two-ao", twoAO, 16, "second TCP-AO", false},
		{"ao-length-3", []byte{KindAO, 3, 1, KindNOP}, 0, "below 4", false},
		{"ao-truncated", aoOpt[:10], 0, "runs past", false},
		{"md5-and-ao", md5AndAO, 0, "", true},
		{"ao-and-md5", cat(aoOpt, md5Opt), 0, "", true},
		// A broken option after both is the broken option's verdict.
		{"md5-ao-then-bad", cat(md5Opt, AppendAO(nil, 1, 2, nil), []byte{8, 0}), 22, "below 2", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			o, err := Parse(c.list)
			var e *Error
			if c.both {
				if !errors.Is(err, ErrMD5AndAO) || errors.Is(err, ErrBadOptions) || errors.As(err, &e) || !o.HasMD5() || !o.HasAO() {
					t.Fatalf("err = %v (md5 %v, ao %v), want ErrMD5AndAO with both found", err, o.HasMD5(), o.HasAO())
				}
				return
			}
			if !errors.As(err, &e) || !errors.Is(err, ErrBadOptions) || errors.Is(err, ErrMD5AndAO) {
				t.Fatalf("err = %v, want *Error wrapping ErrBadOptions", err)
			}
			if e.Offset != c.offset || !bytes.Contains([]byte(e.Reason), []byte(c.reason)) || e.Kind != c.list[c.offset] {
				t.Fatalf("err = %v, want offset %d, %q", err, c.offset, c.reason)
			}
		})
	}
	// What was found before the error comes with it.
	if o, _ := Parse(twoAO); o.AOOffset() != 0 {
		t.Fatalf("two-ao: the first option is not returned (offset %d)", o.AOOffset())
	}
}

func TestParseSegment(t *testing.T) {
	seg := segment(linuxMD5, []byte("payload"))
	o, hl, err := ParseSegment(seg)
	if err != nil || hl != 40 || o.MD5Offset() != 2 || !bytes.Equal(o.Signature(seg[20:hl]), sig16) {
		t.Fatalf("ParseSegment = %d, %d, %v", o.MD5Offset(), hl, err)
	}
	sig := o.Signature(seg[20:hl])
	sig[0] ^= 1
	if seg[24] != sig16[0]^1 || cap(sig) != SignatureLen {
		t.Fatal("the signature is not a view of exactly the segment's bytes")
	}
	bad := bytes.Clone(seg)
	bad[12] = 4 << 4
	for _, s := range [][]byte{seg[:19], seg[:39], bad} {
		if _, _, err := ParseSegment(s); err != ErrShortSegment {
			t.Fatalf("%d bytes, offset byte %#x: %v, want ErrShortSegment", len(s), s[12:13], err)
		}
	}
}

// TestZeroAllocs: Parse and ParseSegment allocate nothing on valid lists,
// through the recognised lists and the walk alike.
func TestZeroAllocs(t *testing.T) {
	lists := [][]byte{nil, linuxMD5, md5SYN, md5ACK, aoLinux, aoRFC, aoSYN, plainSYN, md5EOL, eolHides}
	seg := segment(md5ACK, []byte{1, 2, 3})
	if n := testing.AllocsPerRun(100, func() {
		for _, l := range lists {
			o, _ := Parse(l)
			_, _ = o.Signature(l), o.MAC(l)
		}
		_, _, _ = ParseSegment(seg)
	}); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}

// TestRecognisedLists: the lists Parse knows without walking give the
// walk's result, and near misses are walked.
func TestRecognisedLists(t *testing.T) {
	ao16 := AppendAO(nil, 7, 9, bytes.Repeat([]byte{0xab}, 12))
	for _, c := range []struct {
		name string
		list []byte
		fast bool
	}{
		{"linux-md5", linuxMD5, true},
		{"ao-linux", cat(ao16, ts), true},
		{"ao-rfc9235", cat(ts, ao16), true},
		{"md5-length-17-nop", cat([]byte{KindNOP, KindNOP, KindMD5, 17}, sig16), false},
		{"ts-length-9", cat(ao16, []byte{KindNOP, KindNOP, 8, 9, 1, 2, 3, 4, 5, 6, 7, KindNOP}), false},
		{"ao-length-15", cat(ts, []byte{KindAO, 15}, ao16[2:]), false},
		{"md5-and-ts", cat([]byte{KindMD5, 16}, make([]byte, 14), ts), false},
	} {
		got, fast := recognised(c.list)
		want, werr := walk(c.list)
		if fast != c.fast || fast && (got != want || werr != nil) {
			t.Errorf("%s: recognised %+v, %v; walk %+v, %v", c.name, got, fast, want, werr)
		}
	}
}

// segment puts an option list (a multiple of 4 bytes) in a TCP segment.
func segment(list, payload []byte) []byte {
	seg := append(make([]byte, 20), list...)
	seg[12] = byte(len(seg)/4) << 4
	return append(seg, payload...)
}

// refOption is an option found by ref.
type refOption struct{ off, kind, len int }

// ref is the rules written out the slow way, for FuzzParse to hold Parse
// to: the options up to EOL, and the offset of the first option that is
// structurally broken (-1: none) — a length byte missing, below 2 or
// running past the list.
func ref(list []byte) (opts []refOption, broken int) {
	for i := 0; i < len(list); {
		switch list[i] {
		case KindEOL:
			return opts, -1
		case KindNOP:
			i++
			continue
		}
		if i+1 == len(list) || list[i+1] < 2 || i+int(list[i+1]) > len(list) {
			return opts, i
		}
		opts = append(opts, refOption{i, int(list[i]), int(list[i+1])})
		i += int(list[i+1])
	}
	return opts, -1
}

// FuzzParse holds Parse to the rules on arbitrary lists (cut out of a
// larger buffer whose tail is poisoned, so a read past the list shows):
//
//   - it never panics, and its verdict is the rules' (ref): the first
//     broken option, second TCP-MD5 or TCP-AO option, TCP-MD5 option of
//     length ≠ 18 or TCP-AO option shorter than 4 is an *Error at its
//     offset wrapping ErrBadOptions; else both options is ErrMD5AndAO;
//     else nil;
//   - the options it finds lie within the list: the signature is the 16
//     bytes after a 19, 18 pair, the MAC is length − 4 bytes ending where
//     the option ends, neither with capacity past its option;
//   - the recognised lists agree with the walk;
//   - NOPs in front move the options and change nothing else;
//   - re-encoding what was found (AppendMD5, AppendAO) parses back to the
//     same signature, IDs and MAC;
//   - ParseSegment on the list in a segment says what Parse says.
//
// The seeds are the two old FuzzParseOptions corpora: tcpao's RFC 9235
// option lists and md5auth's real TCP-MD5 captures (testdata/fuzz/FuzzParse,
// kept fresh by those packages' TestFuzzSeeds), and the lists above.
//
//	go test -run='^$' -fuzz=FuzzParse -fuzztime=20s ./tcpopt
func FuzzParse(f *testing.F) {
	for _, s := range [][]byte{nil, {KindNOP}, {KindMD5}, {KindAO}, {KindAO, 4, 0, 0}, linuxMD5, md5SYN, md5ACK, aoLinux, aoRFC,
		aoSYN, plainSYN, md5EOL, eolHides, twoMD5, md5Len17, twoAO, md5AndAO} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > MaxLen {
			in = in[:MaxLen]
		}
		buf := append(bytes.Clone(in), KindAO, 16, 0xee, 0xee, KindMD5, 18) // a poisoned tail
		list := buf[:len(in):len(in)]
		o, err := Parse(list)

		// The verdict is the rules'.
		opts, broken := ref(in)
		wantOff, md5s, aos := broken, 0, 0
		for _, r := range opts {
			if broken >= 0 && r.off > broken {
				break
			}
			bad := false
			switch r.kind {
			case KindMD5:
				md5s++
				bad = md5s > 1 || r.len != MD5Len
			case KindAO:
				aos++
				bad = aos > 1 || r.len < AOMinLen
			}
			if bad {
				wantOff = r.off
				break
			}
		}
		var e *Error
		switch {
		case wantOff >= 0:
			if !errors.As(err, &e) || !errors.Is(err, ErrBadOptions) || e.Offset != wantOff || e.Kind != in[wantOff] {
				t.Fatalf("%x: err %v, want *Error at offset %d", in, err, wantOff)
			}
		case md5s == 1 && aos == 1:
			if !errors.Is(err, ErrMD5AndAO) || errors.As(err, &e) || !o.HasMD5() || !o.HasAO() {
				t.Fatalf("%x: err %v, want ErrMD5AndAO", in, err)
			}
		default:
			if err != nil || o.HasMD5() != (md5s == 1) || o.HasAO() != (aos == 1) {
				t.Fatalf("%x: Parse md5 %v ao %v, %v; the rules: %d MD5, %d AO, valid", in, o.HasMD5(), o.HasAO(), err, md5s, aos)
			}
		}

		// What it found lies within the list.
		if i := o.MD5Offset(); o.HasMD5() {
			sig := o.Signature(list)
			if i < 0 || i+MD5Len > len(in) || in[i] != KindMD5 || in[i+1] != MD5Len || len(sig) != SignatureLen || cap(sig) != SignatureLen ||
				&sig[0] != &list[i+2] {
				t.Fatalf("%x: TCP-MD5 at %d, signature %x", in, i, sig)
			}
		} else if i != -1 || o.Signature(list) != nil {
			t.Fatalf("no TCP-MD5 option, offset %d", i)
		}
		if i := o.AOOffset(); o.HasAO() {
			mac := o.MAC(list)
			l := o.AOLen(list)
			if i < 0 || in[i] != KindAO || l != int(in[i+1]) || l < AOMinLen || i+l > len(in) || len(mac) != l-AOMinLen || cap(mac) != len(mac) ||
				len(mac) > 0 && &mac[len(mac)-1] != &list[i+l-1] {
				t.Fatalf("%x: TCP-AO at %d, length %d, MAC %x", in, i, l, mac)
			}
			if k, r := o.AOKeyIDs(list); k != in[i+2] || r != in[i+3] {
				t.Fatalf("%x: IDs %d/%d", in, k, r)
			}
		} else if i != -1 || o.MAC(list) != nil || o.AOLen(list) != 0 {
			t.Fatalf("no TCP-AO option, offset %d", i)
		}

		// The recognised lists are the walk's.
		if r, ok := recognised(list); ok {
			if w, werr := walk(list); w != r || werr != nil {
				t.Fatalf("%x: recognised %+v; walk %+v, %v", in, r, w, werr)
			}
		}

		// NOPs in front move the options only.
		if len(in) <= MaxLen-4 {
			o2, err2 := Parse(append([]byte{KindNOP, KindNOP, KindNOP, KindNOP}, in...))
			if (err2 == nil) != (err == nil) || errors.Is(err2, ErrMD5AndAO) != errors.Is(err, ErrMD5AndAO) ||
				o2.HasMD5() != o.HasMD5() || o2.HasAO() != o.HasAO() ||
				o.HasMD5() && o2.MD5Offset() != o.MD5Offset()+4 || o.HasAO() && o2.AOOffset() != o.AOOffset()+4 {
				t.Fatalf("%x: NOP prefix: %+v, %v vs %+v, %v", in, o2, err2, o, err)
			}
			if errors.As(err2, &e) && e.Offset != wantOff+4 {
				t.Fatalf("%x: NOP prefix moved the error to %d (was %d)", in, e.Offset, wantOff)
			}
		}

		// Round trip: what was found, re-encoded, parses back to itself.
		if err == nil || errors.Is(err, ErrMD5AndAO) {
			var enc []byte
			if o.HasMD5() {
				enc = AppendMD5(enc, o.Signature(list))
			}
			if o.HasAO() {
				k, r := o.AOKeyIDs(list)
				enc = AppendAO(enc, k, r, o.MAC(list))
			}
			back, berr := Parse(enc)
			if (berr == nil) != (err == nil) || back.HasMD5() != o.HasMD5() || back.HasAO() != o.HasAO() ||
				!bytes.Equal(back.Signature(enc), o.Signature(list)) || !bytes.Equal(back.MAC(enc), o.MAC(list)) {
				t.Fatalf("%x: round trip %x: %+v, %v", in, enc, back, berr)
			}
			if k, r := o.AOKeyIDs(list); o.HasAO() {
				if k2, r2 := back.AOKeyIDs(enc); k2 != k || r2 != r {
					t.Fatalf("%x: round trip IDs %d/%d, want %d/%d", in, k2, r2, k, r)
				}
			}
		}

		// The list in a segment parses the same.
		padded := bytes.Clone(in)
		for len(padded)%4 != 0 {
			padded = append(padded, KindEOL)
		}
		seg := segment(padded, []byte{0xee, 0xee})
		s, hl, serr := ParseSegment(seg)
		p, perr := Parse(padded)
		if hl != 20+len(padded) || s != p || (serr == nil) != (perr == nil) {
			t.Fatalf("%x: ParseSegment %+v, %d, %v; Parse %+v, %v", padded, s, hl, serr, p, perr)
		}
		sameRecognisedMD5(t, seg)
		sameRecognisedMD5(t, seg[:len(seg)-2])
	})
}

// sameRecognisedMD5: where RecognisedMD5 answers, ParseSegment gives the
// same options and header length, without an error.
func sameRecognisedMD5(t *testing.T, seg []byte) {
	t.Helper()
	sameRecognised(t, seg, RecognisedMD5)
	sameRecognised(t, seg, RecognisedAO)
}

func sameRecognised(t *testing.T, seg []byte, recognised func([]byte) (Options, int, bool)) {
	t.Helper()
	o, hl, ok := recognised(seg)
	if !ok {
		if o != (Options{}) || hl != 0 {
			t.Fatalf("%x: RecognisedMD5 %+v, %d without ok", seg, o, hl)
		}
		return
	}
	po, phl, err := ParseSegment(seg)
	if o != po || hl != phl || err != nil {
		t.Fatalf("%x: RecognisedMD5 %+v, %d; ParseSegment %+v, %d, %v", seg, o, hl, po, phl, err)
	}
}

// TestRecognisedMD5: Linux's TCP-MD5 list, and nothing else, is answered
// without ParseSegment: another data offset, a short segment, another
// list of the same length are not.
func TestRecognisedMD5(t *testing.T) {
	seg := segment(linuxMD5, []byte("payload"))
	if o, hl, ok := RecognisedMD5(seg); !ok || hl != 40 || o.MD5Offset() != 2 || !bytes.Equal(o.Signature(seg[20:hl]), sig16) {
		t.Fatalf("RecognisedMD5 = %+v, %d, %v", o, hl, ok)
	}
	sameRecognisedMD5(t, seg)
	other := bytes.Clone(seg)
	other[12] = 11<<4 | seg[12]&0x0f // data offset 44
	flags := bytes.Clone(seg)
	flags[12] |= 0x0f // the low bits are not the data offset
	for _, s := range [][]byte{seg[:39], other, segment(cat([]byte{KindNOP, KindMD5, MD5Len}, sig16, []byte{KindNOP}), nil),
		segment(cat([]byte{KindNOP, KindNOP, KindMD5, 17}, sig16), nil)} {
		if _, _, ok := RecognisedMD5(s); ok {
			t.Errorf("%x: recognised", s)
		}
		sameRecognisedMD5(t, s)
	}
	if _, hl, ok := RecognisedMD5(flags); !ok || hl != 40 {
		t.Errorf("reserved bits set: %d, %v", hl, ok)
	}
	sameRecognisedMD5(t, flags)
}

// TestRecognisedAO: the two TCP-AO lists, and nothing else, are answered
// without ParseSegment.
func TestRecognisedAO(t *testing.T) {
	ao16 := AppendAO(nil, 7, 9, bytes.Repeat([]byte{0xab}, 12))
	for _, c := range []struct {
		list []byte
		off  int
	}{{cat(ao16, ts), 0}, {cat(ts, ao16), 12}} {
		seg := segment(c.list, []byte("payload"))
		o, hl, ok := RecognisedAO(seg)
		if !ok || hl != 48 || o.AOOffset() != c.off {
			t.Fatalf("%x: RecognisedAO = %+v, %d, %v", c.list, o, hl, ok)
		}
		sameRecognisedMD5(t, seg)
		if _, _, ok := RecognisedAO(seg[:47]); ok {
			t.Errorf("%x: short segment recognised", c.list)
		}
		other := bytes.Clone(seg)
		other[12] = 13 << 4
		if _, _, ok := RecognisedAO(other); ok {
			t.Errorf("%x: data offset 52 recognised", c.list)
		}
		sameRecognisedMD5(t, other)
	}
	for _, l := range [][]byte{cat(ts, []byte{KindAO, 15}, ao16[2:]), cat(ao16, []byte{KindNOP, KindNOP, 8, 9, 1, 2, 3, 4, 5, 6, 7, KindNOP}), cat(linuxMD5, make([]byte, 8))} {
		if _, _, ok := RecognisedAO(segment(l, nil)); ok {
			t.Errorf("%x: recognised", l)
		}
		sameRecognisedMD5(t, segment(l, nil))
	}
}
