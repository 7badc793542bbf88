package md5auth

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"

	"github.com/authbgp/authbgpd/capture/capfile"
	"github.com/authbgp/authbgpd/frame"
)

// Option lists as Linux sends them on BGP sessions with TCP-MD5.
var (
	sig16      = []byte{0xc4, 0x1a, 0x7f, 0x00, 0x93, 0x11, 0x2e, 0x5b, 0x6d, 0x80, 0x01, 0xfe, 0x42, 0x42, 0x09, 0x17}
	linuxSYN   = append(append([]byte{2, 4, 0x05, 0xb4, OptNOP, OptNOP, OptMD5, 18}, sig16...), OptNOP, OptNOP, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, OptNOP, 3, 3, 7) // MSS, MD5, TS, WS (no SACK: no room)
	linuxACK   = append(append([]byte{OptNOP, OptNOP, OptMD5, 18}, sig16...), OptNOP, OptNOP, 8, 10, 0, 0, 0, 9, 0, 0, 0, 5)
	plainSYN   = []byte{2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, OptNOP, 3, 3, 7}
	aoSegment  = []byte{OptAO, 16, 3, 4, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	md5ThenEOL = append(append([]byte{OptMD5, 18}, sig16...), OptEOL, 0)
)

func TestParseOptions(t *testing.T) {
	cases := []struct {
		name          string
		opts          []byte
		md5, ao       bool
		aoKey, aoNext uint8
	}{
		{"empty", nil, false, false, 0, 0},
		{"linux-syn", linuxSYN, true, false, 0, 0},
		{"linux-ack", linuxACK, true, false, 0, 0},
		{"plain-syn", plainSYN, false, false, 0, 0},
		{"tcp-ao", aoSegment, false, true, 3, 4},
		{"md5-then-eol", md5ThenEOL, true, false, 0, 0},
		{"all-nop", bytes.Repeat([]byte{OptNOP}, 40), false, false, 0, 0},
		{"all-eol", make([]byte, 40), false, false, 0, 0},
		{"eol-hides-garbage", []byte{OptEOL, OptMD5, 1, 0xff}, false, false, 0, 0},
		{"nop-run-then-md5", append(bytes.Repeat([]byte{OptNOP}, 20), append([]byte{OptMD5, 18}, sig16...)...), true, false, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, err := ParseOptions(c.opts)
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if o.HasMD5 != c.md5 || o.HasAO != c.ao || o.AOKeyID != c.aoKey || o.AORNextKeyID != c.aoNext {
				t.Fatalf("got %+v", o)
			}
			if c.md5 && !bytes.Equal(o.MD5[:], sig16) {
				t.Fatalf("signature %x, want %x", o.MD5, sig16)
			}
		})
	}
}

func TestParseOptionsMalformed(t *testing.T) {
	cases := []struct {
		name   string
		opts   []byte
		offset int
	}{
		{"length-missing", []byte{OptNOP, 2}, 1},
		{"length-zero", []byte{8, 0, 0, 0}, 0},
		{"length-one", []byte{OptNOP, OptNOP, 5, 1}, 2},
		{"past-end", []byte{8, 10, 0, 0}, 0},
		{"md5-short", append([]byte{OptMD5, 17}, sig16[:15]...), 0},
		{"md5-long", append(append([]byte{OptMD5, 19}, sig16...), 0), 0},
		{"md5-truncated", append([]byte{OptNOP, OptNOP, OptMD5, 18}, sig16[:10]...), 2},
		{"md5-twice", append(append(append([]byte{OptMD5, 18}, sig16...), OptMD5, 18), sig16...), 18},
		{"ao-short", []byte{OptAO, 3, 1, OptNOP}, 0},
		{"md5-length-missing", []byte{OptNOP, OptNOP, OptNOP, OptMD5}, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseOptions(c.opts)
			var oe *OptionError
			if !errors.As(err, &oe) || !errors.Is(err, ErrBadOptions) {
				t.Fatalf("err = %v, want *OptionError wrapping ErrBadOptions", err)
			}
			if oe.Offset != c.offset {
				t.Fatalf("offset %d, want %d (%v)", oe.Offset, c.offset, err)
			}
		})
	}
}

func TestSignatureOfIsSubslice(t *testing.T) {
	seg := buildSegment(linuxACK, []byte("payload"))
	sig, err := SignatureOf(seg)
	if err != nil || !bytes.Equal(sig, sig16) {
		t.Fatalf("SignatureOf = %x, %v", sig, err)
	}
	sig[0] ^= 1
	if seg[24] != sig16[0]^1 {
		t.Fatalf("signature is not a view into the segment")
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = SignatureOf(seg) }); n != 0 {
		t.Fatalf("SignatureOf allocates %v", n)
	}
}

// FuzzParseOptions checks properties of the option parser on arbitrary
// bytes: no panic; an MD5 signature found is exactly the 16 bytes after a
// kind-19/length-18 pair; ParseOptions and SignatureOf agree; errors are
// *OptionError with an offset inside the list; a valid list stays valid
// with NOP padding in front.
func FuzzParseOptions(f *testing.F) {
	for _, s := range [][]byte{linuxSYN, linuxACK, plainSYN, aoSegment, md5ThenEOL, nil, {OptNOP}, {OptMD5}} {
		f.Add(s)
	}
	// Real option lists: every segment of the FRR <-> gobgpd TCP-MD5
	// captures (e2e/testdata) and of the shadow checker's test captures.
	for _, opts := range realOptionLists(f) {
		f.Add(opts)
	}
	f.Fuzz(func(t *testing.T, opts []byte) {
		if len(opts) > 40 {
			opts = opts[:40]
		}
		o, err := ParseOptions(opts)
		if err != nil {
			var oe *OptionError
			if !errors.As(err, &oe) || oe.Offset < 0 || oe.Offset >= len(opts) {
				t.Fatalf("bad error %v for %x", err, opts)
			}
			if len(opts) > 0 && !errors.Is(err, ErrBadOptions) {
				t.Fatalf("error does not wrap ErrBadOptions: %v", err)
			}
		}
		if o.HasMD5 {
			i := bytes.Index(opts, append([]byte{OptMD5, 18}, o.MD5[:]...))
			if i < 0 {
				t.Fatalf("signature %x not present after 19,18 in %x", o.MD5, opts)
			}
		}
		// Put the list in a segment and compare with the segment path.
		padded := append([]byte(nil), opts...)
		for len(padded)%4 != 0 {
			padded = append(padded, OptEOL)
		}
		seg := buildSegment(padded, []byte{1, 2, 3})
		sig, serr := SignatureOf(seg)
		o2, err2 := ParseOptions(padded)
		if (serr == nil) != (err2 == nil) {
			t.Fatalf("SignatureOf err %v, ParseOptions err %v", serr, err2)
		}
		if err2 == nil && (sig != nil) != o2.HasMD5 {
			t.Fatalf("SignatureOf and ParseOptions disagree on %x", padded)
		}
		if err == nil && len(opts) <= 36 {
			o3, err3 := ParseOptions(append([]byte{OptNOP, OptNOP, OptNOP, OptNOP}, opts...))
			if err3 != nil || o3 != o {
				t.Fatalf("NOP prefix changed the result: %+v %v vs %+v", o3, err3, o)
			}
		}
	})
}

// realOptionLists returns the TCP option lists of every segment in the
// repository's real captures.
func realOptionLists(t testing.TB) [][]byte {
	t.Helper()
	files, _ := filepath.Glob("../e2e/testdata/*.pcap")
	more, _ := filepath.Glob("../frame/testdata/md5.pcap")
	files = append(files, more...)
	if len(files) == 0 {
		t.Fatal("no real captures found for seeds")
	}
	var out [][]byte
	for _, name := range files {
		var tcp frame.TCP
		err := capfile.EachFile(name, func(p capfile.Packet) error {
			if frame.DecodeTCP(p.LinkType, p.Data, &tcp) == nil {
				hl := int(tcp.Segment[12]>>4) * 4
				out = append(out, bytes.Clone(tcp.Segment[20:hl]))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestRealOptionLists parses every real segment's options: each signed
// segment of the TCP-MD5 captures has exactly one MD5 option.
func TestRealOptionLists(t *testing.T) {
	lists := realOptionLists(t)
	signed := 0
	for _, o := range lists {
		opts, err := ParseOptions(o)
		if err != nil {
			t.Fatalf("real option list %x: %v", o, err)
		}
		if opts.HasMD5 {
			signed++
		}
	}
	if signed < 40 {
		t.Fatalf("%d signed segments among %d real ones; the captures are mostly signed", signed, len(lists))
	}
}
