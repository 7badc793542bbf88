package md5auth

import (
	"bytes"
	"errors"
	"fmt"
	"net/netip"
	"os"
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
		{"ao-twice", append(bytes.Clone(aoSegment), aoSegment...), 16},
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

// TestMD5AndAO: a segment with both options is not verified: RFC 5925 §7.7
// has it discarded, and so does the kernel.
func TestMD5AndAO(t *testing.T) {
	opts := append(append(bytes.Clone(md5ThenEOL[:18]), aoSegment...), OptNOP, OptNOP)
	o, err := ParseOptions(opts)
	if !errors.Is(err, ErrMD5AndAO) || errors.Is(err, ErrBadOptions) || !o.HasMD5 || !o.HasAO {
		t.Fatalf("ParseOptions = %+v, %v; want both found, ErrMD5AndAO", o, err)
	}
	seg := buildSegment(opts, []byte("payload"))
	if sig, err := SignatureOf(seg); sig != nil || !errors.Is(err, ErrMD5AndAO) {
		t.Fatalf("SignatureOf = %x, %v", sig, err)
	}
	a, b := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	if v, err := NewDigester().Check(a, b, seg, []byte("k")); v != Unsigned || !errors.Is(err, ErrMD5AndAO) {
		t.Fatalf("Check = %v, %v", v, err)
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

// TestFuzzSeeds keeps md5auth's share of tcpopt's FuzzParse seed corpus
// (the old md5auth FuzzParseOptions seeds: the option lists above and
// those of every segment in the real TCP-MD5 captures) equal to what they
// give. Regenerate with MD5AUTH_WRITE_SEEDS=1 go test -run TestFuzzSeeds ./md5auth.
func TestFuzzSeeds(t *testing.T) {
	want := map[string][]byte{}
	for i, s := range [][]byte{linuxSYN, linuxACK, plainSYN, aoSegment, md5ThenEOL, nil, {OptNOP}, {OptMD5}} {
		want[fmt.Sprintf("md5auth-%d", i)] = s
	}
	seen := map[string]bool{}
	for _, opts := range realOptionLists(t) {
		if !seen[string(opts)] {
			seen[string(opts)] = true
			want[fmt.Sprintf("md5auth-capture-%02d", len(seen))] = opts
		}
	}
	dir := filepath.Join("..", "tcpopt", "testdata", "fuzz", "FuzzParse")
	write := os.Getenv("MD5AUTH_WRITE_SEEDS") == "1"
	for name, opts := range want {
		path := filepath.Join(dir, name)
		content := []byte(fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", opts))
		if write {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, content, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, content) {
			t.Errorf("%s is missing or stale (%v); regenerate with MD5AUTH_WRITE_SEEDS=1", path, err)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "md5auth-*"))
	for _, f := range files {
		if _, ok := want[filepath.Base(f)]; !ok {
			t.Errorf("%s is no seed of md5auth's any more; remove it", f)
		}
	}
	if len(seen) < 40 {
		t.Fatalf("%d distinct real option lists", len(seen))
	}
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
