package frame

//go:generate sh testdata/golden.sh

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/authbgp/authbgpd/capture/capfile"
)

// captured is one frame of a testdata capture.
type captured struct {
	file  string
	index int // 0-based; tshark's frame.number is index+1
	link  uint32
	data  []byte
}

func readCapture(t testing.TB, name string) []captured {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	r, err := capfile.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var out []captured
	for {
		p, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, captured{file: name, index: len(out), link: p.LinkType, data: bytes.Clone(p.Data)})
	}
}

func captureNames(t testing.TB) []string {
	t.Helper()
	m, err := filepath.Glob("testdata/*.pcap")
	if err != nil || len(m) < 8 {
		t.Fatalf("testdata captures: %v, %d found", err, len(m))
	}
	for i := range m {
		m[i] = filepath.Base(m[i])
	}
	return m
}

func allFrames(t testing.TB) []captured {
	var all []captured
	for _, name := range captureNames(t) {
		all = append(all, readCapture(t, name)...)
	}
	return all
}

var goldenHeader = []string{"frame.number", "frame.protocols", "ip.src", "ip.dst", "ipv6.src", "ipv6.dst",
	"tcp.srcport", "tcp.dstport", "tcp.len", "tcp.hdr_len", "ipv6.routing.type", "ipv6.routing.segleft", "tcp.option_kind"}

// goldenFrame is one line of FILE.golden (testdata/golden.sh): what tshark
// decoded in the frame. Fields with several occurrences (tunnels) are
// split on commas.
type goldenFrame map[string][]string

func (g goldenFrame) first(field string) string {
	if v := g[field]; len(v) > 0 {
		return v[0]
	}
	return ""
}

func readGolden(t *testing.T, name string) []goldenFrame {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".golden"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if lines[0] != strings.Join(goldenHeader, "\t") {
		t.Fatalf("%s.golden: header %q", name, lines[0])
	}
	var out []goldenFrame
	for _, l := range lines[1:] {
		f := strings.Split(l, "\t")
		if len(f) != len(goldenHeader) {
			t.Fatalf("%s.golden: bad line %q", name, l)
		}
		g := goldenFrame{}
		for i, h := range goldenHeader {
			if f[i] != "" {
				g[h] = strings.Split(f[i], ",")
			}
		}
		out = append(out, g)
	}
	return out
}

// tcpOptionKinds lists the option kinds of a TCP header, as tshark's
// tcp.option_kind does.
func tcpOptionKinds(seg []byte) []string {
	hl := int(seg[12]>>4) * 4
	opts := seg[20:hl]
	var kinds []string
	for len(opts) > 0 {
		k := opts[0]
		kinds = append(kinds, strconv.Itoa(int(k)))
		if k == 0 {
			break
		}
		if k == 1 {
			opts = opts[1:]
			continue
		}
		if len(opts) < 2 || int(opts[1]) < 2 || int(opts[1]) > len(opts) {
			break
		}
		opts = opts[opts[1]:]
	}
	return kinds
}

// TestGolden decodes every frame of the real captures and compares with
// tshark's view of the same frame.
func TestGolden(t *testing.T) {
	counts := map[error]int{}
	srh := 0
	for _, name := range captureNames(t) {
		frames := readCapture(t, name)
		golden := readGolden(t, name)
		if len(frames) != len(golden) {
			t.Fatalf("%s: %d frames, golden has %d", name, len(frames), len(golden))
		}
		for i, fr := range frames {
			g := golden[i]
			where := name + " frame " + strconv.Itoa(i+1)
			if g.first("frame.number") != strconv.Itoa(i+1) {
				t.Fatalf("%s: golden out of step", where)
			}
			var out TCP
			err := DecodeTCP(fr.link, fr.data, &out)
			counts[err]++

			layers := g["frame.protocols"][0]
			tokens := strings.Split(layers, ":")
			ipAt := -1
			for j, tok := range tokens {
				if tok == "ip" || tok == "ipv6" {
					ipAt = j
					break
				}
			}
			if ipAt < 0 {
				if err != ErrNotIP {
					t.Errorf("%s (%s): %v, want ErrNotIP", where, layers, err)
				}
				continue
			}
			next := ipAt + 1
			sawRouting := false
			for next < len(tokens) && strings.HasPrefix(tokens[next], "ipv6.") {
				sawRouting = sawRouting || tokens[next] == "ipv6.routing"
				next++
			}
			fam := "ip"
			if tokens[ipAt] == "ipv6" {
				fam = "ipv6"
			}
			wantErr := ErrNotTCP
			if next < len(tokens) && tokens[next] == "tcp" {
				wantErr = nil
			}
			if err != wantErr {
				t.Errorf("%s (%s): %v, want %v", where, layers, err, wantErr)
				continue
			}
			if got, want := out.Src.String(), g.first(fam+".src"); got != want {
				t.Errorf("%s: Src %s, tshark %s", where, got, want)
			}
			if got, want := out.Dst.String(), g.first(fam+".dst"); got != want {
				t.Errorf("%s: Dst %s, tshark %s", where, got, want)
			}
			if sawRouting && g.first("ipv6.routing.type") == "4" {
				srh++
				if out.SRH == nil || out.SRH[2] != 4 || strconv.Itoa(int(out.SRH[3])) != g.first("ipv6.routing.segleft") ||
					len(out.SRH) != (int(out.SRH[1])+1)*8 {
					t.Errorf("%s: SRH %x, tshark: type 4, segments left %s", where, out.SRH, g.first("ipv6.routing.segleft"))
				}
			} else if out.SRH != nil {
				t.Errorf("%s: SRH %x, tshark saw none", where, out.SRH)
			}
			if err != nil {
				if out.Segment != nil || out.SrcPort != 0 {
					t.Errorf("%s: %v with segment/ports set: %+v", where, err, out)
				}
				continue
			}
			if out.Proto != 6 {
				t.Errorf("%s: Proto %d", where, out.Proto)
			}
			hl := int(out.Segment[12]>>4) * 4
			got := []string{strconv.Itoa(int(out.SrcPort)), strconv.Itoa(int(out.DstPort)), strconv.Itoa(len(out.Segment) - hl), strconv.Itoa(hl),
				strings.Join(tcpOptionKinds(out.Segment), ",")}
			want := []string{g.first("tcp.srcport"), g.first("tcp.dstport"), g.first("tcp.len"), g.first("tcp.hdr_len"),
				strings.Join(g["tcp.option_kind"], ",")}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("%s: ports, payload length, header length, options = %v, tshark %v", where, got, want)
			}
		}
	}
	t.Logf("decode results: %v; %d frames with an SRH", counts, srh)
	if counts[nil] < 100 || counts[ErrNotIP] == 0 || counts[ErrNotTCP] == 0 || srh < 10 {
		t.Errorf("fixtures cover too little: %v, %d SRH frames", counts, srh)
	}
}

// segmentOffset returns where sub starts in data, or -1 if sub is not a
// subslice of data.
func segmentOffset(data, sub []byte) int {
	if len(sub) == 0 {
		return -1
	}
	for off := 0; off+len(sub) <= len(data); off++ {
		if &data[off] == &sub[0] {
			return off
		}
	}
	return -1
}

// TestTruncatedEverywhere cuts every decodable real frame at every length:
// cuts inside the IP packet are ErrTruncated, cuts in the link padding
// after it decode the same.
func TestTruncatedEverywhere(t *testing.T) {
	n := 0
	for _, fr := range allFrames(t) {
		var full TCP
		if DecodeTCP(fr.link, fr.data, &full) != nil {
			continue
		}
		end := segmentOffset(fr.data, full.Segment) + len(full.Segment)
		for cut := 0; cut < len(fr.data); cut++ {
			var out TCP
			err := DecodeTCP(fr.link, fr.data[:cut], &out)
			sameAsGeneral(t, fr.link, fr.data[:cut], &out, err)
			if cut >= end {
				if err != nil || out.Src != full.Src || len(out.Segment) != len(full.Segment) {
					t.Fatalf("%s frame %d cut at %d (packet ends at %d): %v", fr.file, fr.index+1, cut, end, err)
				}
				continue
			}
			if err != ErrTruncated {
				t.Fatalf("%s frame %d cut at %d of %d: %v, want ErrTruncated", fr.file, fr.index+1, cut, end, err)
			}
			n++
		}
	}
	if n < 10000 {
		t.Errorf("only %d truncations tried", n)
	}
}

// TestNullLoop wraps the raw IP frames of the captures in BSD null and
// loopback headers, with every IPv6 family value and both byte orders.
func TestNullLoop(t *testing.T) {
	for _, fr := range readCapture(t, "raw.pcap") {
		var want TCP
		wantErr := DecodeTCP(LinkRaw, fr.data, &want)
		fams := []uint32{2}
		if fr.data[0]>>4 == 6 {
			fams = []uint32{10, 24, 28, 30}
		}
		for _, link := range []uint32{LinkNull, LinkLoop} {
			for _, fam := range fams {
				for _, order := range []binary.AppendByteOrder{binary.BigEndian, binary.LittleEndian} {
					frame := append(order.AppendUint32(nil, fam), fr.data...)
					var out TCP
					err := DecodeTCP(link, frame, &out)
					if err != wantErr || out.Src != want.Src || out.SrcPort != want.SrcPort || !bytes.Equal(out.Segment, want.Segment) {
						t.Fatalf("link %d family %d %v: %v %+v, want %v %+v", link, fam, order, err, out, wantErr, want)
					}
				}
			}
		}
	}
	var out TCP
	for _, frame := range [][]byte{{0, 0, 0, 7, 0x45}, {7, 0, 0, 0, 0x45}, {0, 0, 0, 0}} {
		if err := DecodeTCP(LinkNull, frame, &out); err != ErrNotIP {
			t.Errorf("family %x: %v, want ErrNotIP", frame[:4], err)
		}
	}
	if err := DecodeTCP(LinkLoop, []byte{0, 0, 2}, &out); err != ErrTruncated {
		t.Errorf("short loop header: %v", err)
	}
}

// --- frame builders ---

var (
	src4 = [4]byte{192, 0, 2, 1}
	dst4 = [4]byte{192, 0, 2, 2}
	src6 = netip.MustParseAddr("2001:db8::1").As16()
	dst6 = netip.MustParseAddr("2001:db8::2").As16()
)

// tcpSeg builds a TCP segment with options filling hdrLen-20 bytes (NOPs).
func tcpSeg(sport, dport uint16, hdrLen int, payload string) []byte {
	b := binary.BigEndian.AppendUint16(nil, sport)
	b = binary.BigEndian.AppendUint16(b, dport)
	b = append(b, 0, 0, 0, 1, 0, 0, 0, 0) // seq, ack
	b = append(b, byte(hdrLen/4)<<4, 0x18, 0xff, 0xff, 0, 0, 0, 0)
	for len(b) < hdrLen {
		b = append(b, 1)
	}
	return append(b, payload...)
}

func ipv4(proto byte, opts []byte, payload []byte) []byte {
	hl := 20 + len(opts)
	b := []byte{0x40 | byte(hl/4), 0}
	b = binary.BigEndian.AppendUint16(b, uint16(hl+len(payload)))
	b = append(b, 0, 1, 0x40, 0, 64, proto, 0, 0) // id, DF, ttl, proto, checksum
	b = append(b, src4[:]...)
	b = append(b, dst4[:]...)
	b = append(b, opts...)
	return append(b, payload...)
}

// ext is an IPv6 extension header: next-header value of the header itself
// (what the previous header names it by) and its body after the first two
// bytes.
type ext struct {
	proto byte
	body  []byte
}

func ipv6(exts []ext, proto byte, payload []byte) []byte {
	var chain []byte
	for i, e := range exts {
		nh := proto
		if i+1 < len(exts) {
			nh = exts[i+1].proto
		}
		total := 2 + len(e.body)
		var lenByte byte
		if e.proto == 51 {
			lenByte = byte(total/4 - 2)
		} else {
			lenByte = byte(total/8 - 1)
		}
		chain = append(chain, nh, lenByte)
		chain = append(chain, e.body...)
	}
	first := proto
	if len(exts) > 0 {
		first = exts[0].proto
	}
	b := []byte{0x60, 0, 0, 0}
	b = binary.BigEndian.AppendUint16(b, uint16(len(chain)+len(payload)))
	b = append(b, first, 64)
	b = append(b, src6[:]...)
	b = append(b, dst6[:]...)
	b = append(b, chain...)
	return append(b, payload...)
}

// srhBody is the body (after next header and length) of an SRH with n
// segments.
func srhBody(n int, segLeft byte) []byte {
	b := []byte{4, segLeft, byte(n - 1), 0, 0, 0}
	for i := 0; i < n; i++ {
		b = append(b, dst6[:]...)
	}
	return b
}

var (
	hbh      = ext{0, []byte{1, 4, 0, 0, 0, 0}}  // PadN
	dstOpts  = ext{60, []byte{1, 4, 0, 0, 0, 0}} // PadN
	rt2      = ext{43, append([]byte{2, 1, 0, 0, 0, 0}, dst6[:]...)}
	ah       = ext{51, make([]byte, 22)} // 24 bytes: SPI, seq, 12-byte ICV
	srh2     = ext{43, srhBody(2, 1)}
	fragment = ext{44, []byte{0, 0, 0, 0, 0, 1}}
)

func eth(etherType uint16, payload []byte) []byte {
	b := make([]byte, 12, 14+len(payload))
	b = binary.BigEndian.AppendUint16(b, etherType)
	return append(b, payload...)
}

func sll2(proto uint16, payload []byte) []byte {
	b := binary.BigEndian.AppendUint16(nil, proto)
	b = append(b, 0, 0, 0, 0, 0, 2, 0, 1, 0, 6, 1, 2, 3, 4, 5, 6, 0, 0)
	return append(b, payload...)
}

func sll(proto uint16, payload []byte) []byte {
	b := []byte{0, 0, 0, 1, 0, 6, 1, 2, 3, 4, 5, 6, 0, 0}
	b = binary.BigEndian.AppendUint16(b, proto)
	return append(b, payload...)
}

func mutate(b []byte, f func([]byte)) []byte {
	b = bytes.Clone(b)
	f(b)
	return b
}

// TestDecodeTable covers every header check with built frames.
func TestDecodeTable(t *testing.T) {
	seg := tcpSeg(179, 40000, 20, "hello")
	seg32 := tcpSeg(40000, 179, 32, "")
	v4 := ipv4(6, nil, seg)
	v6 := ipv6(nil, 6, seg)
	v6ext := ipv6([]ext{hbh, dstOpts, rt2, srh2, ah, dstOpts}, 6, seg32)
	twoSRH := ipv6([]ext{srh2, ext{43, srhBody(1, 0)}}, 6, seg)
	ipOpts := []byte{1, 1, 1, 0} // NOP NOP NOP EOL
	padded := append(eth(0x0800, ipv4(6, nil, tcpSeg(1, 2, 20, ""))), make([]byte, 6)...)

	type want struct {
		err              error
		src              string
		sport, dport     uint16
		segLen           int
		proto            uint8
		srhSegments      int // number of segments of the SRH found, 0 = none
		srhSegLeftByteIs byte
	}
	ok4 := want{src: "192.0.2.1", sport: 179, dport: 40000, segLen: 25, proto: 6}
	ok6 := want{src: "2001:db8::1", sport: 179, dport: 40000, segLen: 25, proto: 6}
	tests := []struct {
		name string
		link uint32
		data []byte
		want want
	}{
		{"ethernet ipv4", LinkEthernet, eth(0x0800, v4), ok4},
		{"ethernet ipv6", LinkEthernet, eth(0x86dd, v6), ok6},
		{"ethernet padding dropped", LinkEthernet, padded, want{src: "192.0.2.1", sport: 1, dport: 2, segLen: 20, proto: 6}},
		{"ethernet 802.1Q", LinkEthernet, eth(0x8100, append([]byte{0, 100, 0x08, 0}, v4...)), ok4},
		{"ethernet 802.1ad+802.1Q", LinkEthernet, eth(0x88a8, append([]byte{0, 200, 0x81, 0, 0, 100, 0x86, 0xdd}, v6...)), ok6},
		{"ethernet 0x9100 x3", LinkEthernet, eth(0x9100, append([]byte{0, 1, 0x91, 0, 0, 2, 0x88, 0xa8, 0, 3, 0x08, 0}, v4...)), ok4},
		{"ethernet short", LinkEthernet, make([]byte, 13), want{err: ErrTruncated}},
		{"ethernet vlan tag cut", LinkEthernet, eth(0x8100, []byte{0, 1, 8}), want{err: ErrTruncated}},
		{"ethernet arp", LinkEthernet, eth(0x0806, make([]byte, 28)), want{err: ErrNotIP}},
		{"ethernet 802.3 length", LinkEthernet, eth(0x0040, make([]byte, 64)), want{err: ErrNotIP}},
		{"ethernet vlan then arp", LinkEthernet, eth(0x8100, append([]byte{0, 1, 8, 6}, make([]byte, 28)...)), want{err: ErrNotIP}},
		{"sll ipv4", LinkLinuxSLL, sll(0x0800, v4), ok4},
		{"sll vlan ipv6", LinkLinuxSLL, sll(0x8100, append([]byte{0, 5, 0x86, 0xdd}, v6...)), ok6},
		{"sll short", LinkLinuxSLL, make([]byte, 15), want{err: ErrTruncated}},
		{"sll2 ipv6 ext", LinkLinuxSLL2, sll2(0x86dd, v6ext), want{src: "2001:db8::1", sport: 40000, dport: 179, segLen: 32, proto: 6, srhSegments: 2, srhSegLeftByteIs: 1}},
		{"sll2 short", LinkLinuxSLL2, make([]byte, 19), want{err: ErrTruncated}},
		{"sll2 not ip", LinkLinuxSLL2, sll2(0x0806, make([]byte, 28)), want{err: ErrNotIP}},
		{"raw v4", LinkRaw, v4, ok4},
		{"raw v6", LinkRaw, v6, ok6},
		{"raw empty", LinkRaw, nil, want{err: ErrTruncated}},
		{"raw version 5", LinkRaw, mutate(v4, func(b []byte) { b[0] = 0x55 }), want{err: ErrNotIP}},
		{"ipv4 link", LinkIPv4, v4, ok4},
		{"ipv4 link with v6", LinkIPv4, v6, want{err: ErrBadHeader}},
		{"ipv6 link", LinkIPv6, v6, ok6},
		{"ipv6 link with v4", LinkIPv6, append(v4, make([]byte, 40)...), want{err: ErrBadHeader}},
		{"unknown link", 9999, v4, want{err: ErrUnknownLink}},
		{"ipv4 short", LinkIPv4, v4[:19], want{err: ErrTruncated}},
		{"ipv4 ihl 4", LinkIPv4, mutate(v4, func(b []byte) { b[0] = 0x44 }), want{err: ErrBadHeader}},
		{"ipv4 options", LinkIPv4, ipv4(6, ipOpts, seg), ok4},
		{"ipv4 ihl beyond total", LinkIPv4, mutate(v4, func(b []byte) { b[0] = 0x4f }), want{err: ErrBadHeader}},
		{"ipv4 total < ihl", LinkIPv4, mutate(v4, func(b []byte) { b[3] = 19 }), want{err: ErrBadHeader}},
		{"ipv4 total > captured", LinkIPv4, mutate(v4, func(b []byte) { b[3]++ }), want{err: ErrTruncated}},
		{"ipv4 total 0 (TSO)", LinkIPv4, mutate(v4, func(b []byte) { b[2], b[3] = 0, 0 }), ok4},
		{"ipv4 MF", LinkIPv4, mutate(v4, func(b []byte) { b[6] = 0x20 }), want{err: ErrFragment, src: "192.0.2.1", proto: 6}},
		{"ipv4 offset", LinkIPv4, mutate(v4, func(b []byte) { b[7] = 1 }), want{err: ErrFragment, src: "192.0.2.1", proto: 6}},
		{"ipv4 offset high bits", LinkIPv4, mutate(v4, func(b []byte) { b[6] = 0x5f }), want{err: ErrFragment, src: "192.0.2.1", proto: 6}},
		{"ipv4 DF and reserved", LinkIPv4, mutate(v4, func(b []byte) { b[6] = 0xc0 }), ok4},
		{"ipv4 udp", LinkIPv4, ipv4(17, nil, make([]byte, 8)), want{err: ErrNotTCP, src: "192.0.2.1", proto: 17}},
		{"ipv4 tcp short", LinkIPv4, ipv4(6, nil, seg[:19]), want{err: ErrTruncated}},
		{"tcp doff 4", LinkIPv4, ipv4(6, nil, mutate(seg, func(b []byte) { b[12] = 0x40 })), want{err: ErrBadHeader}},
		{"tcp doff 0", LinkIPv4, ipv4(6, nil, mutate(seg, func(b []byte) { b[12] = 0 })), want{err: ErrBadHeader}},
		{"tcp doff beyond segment", LinkIPv4, ipv4(6, nil, mutate(seg, func(b []byte) { b[12] = 0x70 })), want{err: ErrTruncated}},
		{"tcp doff = segment", LinkIPv4, ipv4(6, nil, seg32), want{src: "192.0.2.1", sport: 40000, dport: 179, segLen: 32, proto: 6}},
		{"ipv6 short", LinkIPv6, v6[:39], want{err: ErrTruncated}},
		{"ipv6 plen > captured", LinkIPv6, v6[:len(v6)-1], want{err: ErrTruncated}},
		{"ipv6 plen 0 (jumbo/BIG TCP)", LinkIPv6, mutate(v6, func(b []byte) { b[4], b[5] = 0, 0 }), ok6},
		{"ipv6 ext chain", LinkIPv6, v6ext, want{src: "2001:db8::1", sport: 40000, dport: 179, segLen: 32, proto: 6, srhSegments: 2, srhSegLeftByteIs: 1}},
		{"ipv6 routing type 2 only", LinkIPv6, ipv6([]ext{rt2}, 6, seg), ok6},
		{"ipv6 two SRH, first kept", LinkIPv6, twoSRH, want{src: "2001:db8::1", sport: 179, dport: 40000, segLen: 25, proto: 6, srhSegments: 2, srhSegLeftByteIs: 1}},
		{"ipv6 fragment", LinkIPv6, ipv6([]ext{hbh, fragment}, 6, seg), want{err: ErrFragment, src: "2001:db8::1", proto: 44}},
		{"ipv6 esp", LinkIPv6, ipv6(nil, 50, make([]byte, 40)), want{err: ErrNotTCP, src: "2001:db8::1", proto: 50}},
		{"ipv6 no next header", LinkIPv6, ipv6([]ext{dstOpts}, 59, nil), want{err: ErrNotTCP, src: "2001:db8::1", proto: 59}},
		{"ipv6 udp", LinkIPv6, ipv6(nil, 17, make([]byte, 8)), want{err: ErrNotTCP, src: "2001:db8::1", proto: 17}},
		{"ipv6 srv6 encap", LinkIPv6, ipv6([]ext{srh2}, 41, v6), want{err: ErrNotTCP, src: "2001:db8::1", proto: 41, srhSegments: 2, srhSegLeftByteIs: 1}},
		{"ipv6 ext header cut", LinkIPv6, mutate(ipv6([]ext{hbh}, 6, nil), func(b []byte) { b[41] = 1 }), want{err: ErrTruncated}},
		{"ipv6 ext header under 8 bytes", LinkIPv6, ipv6(nil, 0, []byte{6, 0, 1, 4, 0, 0, 0}), want{err: ErrTruncated}},
		{"ipv6 ext length overrun", LinkIPv6, mutate(ipv6([]ext{srh2}, 6, seg), func(b []byte) { b[41] = 200 }), want{err: ErrTruncated}},
		{"ipv6 ah length overrun", LinkIPv6, mutate(ipv6([]ext{ah}, 6, seg), func(b []byte) { b[41] = 200 }), want{err: ErrTruncated}},
		{"ipv6 ah cut", LinkIPv6, ipv6(nil, 51, []byte{6, 4, 0, 0}), want{err: ErrTruncated}},
		{"ipv6 tcp doff beyond", LinkIPv6, ipv6(nil, 6, mutate(seg, func(b []byte) { b[12] = 0xf0 })), want{err: ErrTruncated}},
	}
	// Every IPv4 case again in an untagged Ethernet frame, which DecodeTCP
	// decodes in one pass when it can: the same verdicts.
	for _, tc := range tests {
		if tc.link == LinkIPv4 {
			tc.name, tc.link, tc.data = tc.name+" (ethernet)", LinkEthernet, eth(0x0800, tc.data)
			tests = append(tests, tc)
		}
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := TCP{SrcPort: 1, Segment: []byte{1}, SRH: []byte{1}} // stale values must go
			err := DecodeTCP(tc.link, tc.data, &out)
			if err != tc.want.err || !errors.Is(err, tc.want.err) {
				t.Fatalf("err %v, want %v", err, tc.want.err)
			}
			if tc.want.src != "" && out.Src.String() != tc.want.src {
				t.Errorf("Src %v, want %s", out.Src, tc.want.src)
			}
			if tc.want.src != "" && (!out.Dst.IsValid() || out.Dst.Is4() != out.Src.Is4()) {
				t.Errorf("Dst %v", out.Dst)
			}
			if out.Proto != tc.want.proto && (tc.want.src != "") {
				t.Errorf("Proto %d, want %d", out.Proto, tc.want.proto)
			}
			if out.SrcPort != tc.want.sport || out.DstPort != tc.want.dport || len(out.Segment) != tc.want.segLen {
				t.Errorf("ports %d→%d segment %d bytes, want %d→%d %d bytes", out.SrcPort, out.DstPort, len(out.Segment), tc.want.sport, tc.want.dport, tc.want.segLen)
			}
			if err == nil && segmentOffset(tc.data, out.Segment) < 0 {
				t.Errorf("Segment is not part of the frame")
			}
			switch {
			case tc.want.srhSegments == 0 && out.SRH != nil && err == nil:
				t.Errorf("SRH %x, want none", out.SRH)
			case tc.want.srhSegments != 0:
				if out.SRH == nil || len(out.SRH) != 8+16*tc.want.srhSegments || out.SRH[2] != 4 || out.SRH[3] != tc.want.srhSegLeftByteIs {
					t.Errorf("SRH %x, want %d segments", out.SRH, tc.want.srhSegments)
				} else if segmentOffset(tc.data, out.SRH) < 0 {
					t.Errorf("SRH is not part of the frame")
				}
			}
		})
	}
}

// TestNoAllocs: DecodeTCP does not allocate, on success or error.
func TestNoAllocs(t *testing.T) {
	seg := tcpSeg(40000, 179, 40, "hello")
	frames := []struct {
		name string
		link uint32
		data []byte
	}{
		{"ethernet/ipv4", LinkEthernet, eth(0x0800, ipv4(6, nil, seg))},
		{"sll2/ipv6 with extension headers", LinkLinuxSLL2, sll2(0x86dd, ipv6([]ext{hbh, dstOpts, srh2, ah}, 6, seg))},
		{"ethernet/vlan/ipv6 fragment", LinkEthernet, eth(0x8100, append([]byte{0, 1, 0x86, 0xdd}, ipv6([]ext{fragment}, 6, seg)...))},
		{"arp", LinkEthernet, eth(0x0806, make([]byte, 28))},
	}
	for _, f := range frames {
		var out TCP
		allocs := testing.AllocsPerRun(1000, func() {
			_ = DecodeTCP(f.link, f.data, &out)
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations", f.name, allocs)
		}
	}
	if err := DecodeTCP(frames[1].link, frames[1].data, new(TCP)); err != nil {
		t.Fatal(err)
	}
}

func BenchmarkDecodeTCP(b *testing.B) {
	md5 := readCapture(b, "md5.pcap")
	seg := tcpSeg(40000, 179, 40, strings.Repeat("x", 19))
	for _, bc := range []struct {
		name string
		link uint32
		data []byte
	}{
		{"ethernet-ipv4-md5", md5[2].link, md5[2].data},
		{"sll2-ipv6-ext", LinkLinuxSLL2, sll2(0x86dd, ipv6([]ext{hbh, dstOpts, srh2, ah}, 6, seg))},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var out TCP
			if err := DecodeTCP(bc.link, bc.data, &out); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(bc.data)))
			for b.Loop() {
				if err := DecodeTCP(bc.link, bc.data, &out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestCookedHeader(t *testing.T) {
	seg := tcpSeg(40000, 179, 24, "x")
	v2 := sll2(0x86dd, ipv6(nil, 6, seg))
	v2[4], v2[5], v2[6], v2[7], v2[10] = 0, 0, 1, 2, PacketOutgoing
	v1 := sll(0x86dd, ipv6(nil, 6, seg))
	v1[1] = PacketOutgoing
	for _, c := range []struct {
		name    string
		link    uint32
		data    []byte
		ifindex int
		pkt     uint16
		ok      bool
	}{
		{"sll2", LinkLinuxSLL2, v2, 258, PacketOutgoing, true},
		{"sll2 host", LinkLinuxSLL2, sll2(0x86dd, nil), 2, PacketHost, true},
		{"sll", LinkLinuxSLL, v1, 0, PacketOutgoing, true},
		{"sll2 short", LinkLinuxSLL2, v2[:19], 0, 0, false},
		{"sll short", LinkLinuxSLL, v1[:15], 0, 0, false},
		{"ethernet", LinkEthernet, eth(0x86dd, nil), 0, 0, false},
	} {
		i, p, ok := CookedHeader(c.link, c.data)
		if i != c.ifindex || p != c.pkt || ok != c.ok {
			t.Errorf("%s: %d %d %v, want %d %d %v", c.name, i, p, ok, c.ifindex, c.pkt, c.ok)
		}
	}
}
