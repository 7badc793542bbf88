//go:build linux

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/capture/capfile"
	"github.com/authbgp/authbgpd/frame"
	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/md5auth"
)

// TestMD5AgainstTcpdump checks md5auth's RFC 2385 verdicts against an
// independent implementation, tcpdump -M, on real TCP-MD5 traffic between
// FRR's bgpd and gobgpd (two namespaces joined by a veth pair): segment by
// segment, both directions, SYNs, ACKs, OPEN/KEEPALIVE/UPDATE/NOTIFICATION
// payloads and FINs included.
//
// With UPDATE_CAPTURES=1 the captures of the good sessions are copied to
// testdata/ (fuzz seeds for the capture and shadow packages; the key is in
// testdata/README).
func TestMD5AgainstTcpdump(t *testing.T) {
	testenv.RequireRoot(t)
	testenv.RequireBinary(t, "tcpdump")
	testenv.RequireBinary(t, "bgpd", "/usr/lib/frr")
	testenv.RequireBinary(t, "vtysh")
	testenv.RequireBinary(t, "gobgpd")
	testenv.RequireBinary(t, "gobgp")

	t.Run("ipv4", func(t *testing.T) {
		t.Parallel()
		testGoodSession(t, false, "frr-gobgpd-md5-v4.pcap")
	})
	t.Run("ipv6", func(t *testing.T) {
		t.Parallel()
		testGoodSession(t, true, "frr-gobgpd-md5-v6.pcap")
	})
	t.Run("wrong-key", func(t *testing.T) {
		t.Parallel()
		testWrongKey(t)
	})
}

// oracleKey is the TCP-MD5 key of the good sessions (and of the captures in
// testdata/, see testdata/README).
const oracleKey = "authbgpd-e2e-md5-key"

var (
	frrV4   = netip.MustParseAddr("192.0.2.1")
	gobgpV4 = netip.MustParseAddr("192.0.2.2")
	frrV6   = netip.MustParseAddr("2001:db8::1")
	gobgpV6 = netip.MustParseAddr("2001:db8::2")

	frrNetworks = []netip.Prefix{
		netip.MustParsePrefix("198.51.100.0/25"), netip.MustParsePrefix("198.51.100.128/25"),
		netip.MustParsePrefix("2001:db8:100::/48"), netip.MustParsePrefix("2001:db8:101::/48"),
	}
	gobgpNetworks = []netip.Prefix{
		netip.MustParsePrefix("203.0.113.0/26"), netip.MustParsePrefix("203.0.113.64/26"), netip.MustParsePrefix("203.0.113.128/26"),
		netip.MustParsePrefix("2001:db8:200::/48"), netip.MustParsePrefix("2001:db8:201::/48"), netip.MustParsePrefix("2001:db8:202::/48"),
	}
)

// oracleTopology is FRR (ns "frr") and gobgpd (ns "gobgp") on one veth link,
// with a capture running on FRR's end before either daemon starts.
func oracleTopology(t *testing.T) (tp *netns.Topology, nsFRR, nsGoBGP string, capture *tdProc) {
	pair := netns.NewPair(t, "md5orc",
		netns.End{NS: "frr", If: "eth0", Addrs: []string{frrV4.String() + "/24", frrV6.String() + "/64"}},
		netns.End{NS: "gobgp", If: "eth0", Addrs: []string{gobgpV4.String() + "/24", gobgpV6.String() + "/64"}})
	tp, nsFRR, nsGoBGP = pair.Topology, pair.A, pair.B
	capture = startTcpdump(t, tp, nsFRR, filepath.Join(t.TempDir(), "bgp.pcap"), "-i", "eth0", "--immediate-mode")
	return tp, nsFRR, nsGoBGP, capture
}

func ofFamily(ps []netip.Prefix, v6 bool) []netip.Prefix {
	var out []netip.Prefix
	for _, p := range ps {
		if p.Addr().Is6() == v6 {
			out = append(out, p)
		}
	}
	return out
}

func testGoodSession(t *testing.T, v6 bool, seedName string) {
	start := time.Now()
	frrAddr, gobgpAddr := frrV4, gobgpV4
	if v6 {
		frrAddr, gobgpAddr = frrV6, gobgpV6
	}
	tp, nsFRR, nsGoBGP, capture := oracleTopology(t)
	frrNets, gobgpNets := ofFamily(frrNetworks, v6), ofFamily(gobgpNetworks, v6)
	frr := StartFRR(t, tp, nsFRR, PeerConfig{ASN: 65001, RouterID: frrV4,
		Neighbors: []Neighbor{{Addr: gobgpAddr, ASN: 65002, Password: oracleKey}}, Networks: frrNets})
	gobgp := StartGoBGP(t, tp, nsGoBGP, PeerConfig{ASN: 65002, RouterID: gobgpV4,
		Neighbors: []Neighbor{{Addr: frrAddr, ASN: 65001, Password: oracleKey}}, Networks: gobgpNets})

	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	if err := WaitSession(ctx, gobgp, frrAddr, len(frrNets)); err != nil {
		t.Fatal(err)
	}
	if err := WaitSession(ctx, frr, gobgpAddr, len(gobgpNets)); err != nil {
		t.Fatal(err)
	}
	t.Logf("session established, routes exchanged after %v", time.Since(start).Round(time.Millisecond))
	// An unsigned SYN from FRR's address to gobgpd's port: gobgpd's
	// kernel drops it (TcpExtTCPMD5NotFound), and the capture gets an
	// unsigned segment on which tcpdump must not mention md5 either.
	unsignedSYN(t, nsFRR, netip.AddrPortFrom(gobgpAddr, 179))
	// Let the last ACKs go out, then stop FRR so that its Cease
	// NOTIFICATION and the FIN exchange are captured too.
	time.Sleep(500 * time.Millisecond)
	frr.Stop()
	time.Sleep(500 * time.Millisecond)
	capture.stop(t)

	segs := readSegments(t, capture.file)
	stats := compareWithTcpdump(t, capture.file, segs, oracleKey)
	t.Logf("key %q: %s", oracleKey, stats)
	for _, dir := range []string{frr.Name() + " -> " + gobgp.Name(), gobgp.Name() + " -> " + frr.Name()} {
		s := stats.dirs[dir]
		switch {
		case s == nil || s.signed() < 3:
			t.Errorf("%s: fewer than 3 signed segments: %+v", dir, s)
		case s.signedSYN < 1:
			t.Errorf("%s: no signed SYN: %+v", dir, s)
		case s.signedData < 1:
			t.Errorf("%s: no signed segment with payload: %+v", dir, s)
		case s.invalid != 0:
			t.Errorf("%s: %d segments invalid under the shared key", dir, s.invalid)
		}
	}
	if s := stats.dirs["frr -> gobgpd"]; s == nil || s.unsigned < 1 {
		t.Errorf("frr -> gobgpd: the unsigned SYN is not in the capture: %+v", s)
	}
	// The kernel agrees: it dropped that SYN for want of a signature.
	if c := md5Counters(t, nsGoBGP); c["TCPMD5NotFound"] < 1 {
		t.Errorf("gobgpd's namespace: TcpExtTCPMD5NotFound = 0 after an unsigned SYN (%v)", c)
	}
	if os.Getenv("UPDATE_CAPTURES") == "1" && !t.Failed() {
		data, err := os.ReadFile(capture.file)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join("testdata", seedName)
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("UPDATE_CAPTURES=1: wrote %s (%d bytes)", dst, len(data))
	}
	t.Logf("subtest took %v", time.Since(start).Round(time.Millisecond))
}

// testWrongKey gives FRR and gobgpd different keys (IPv4 and IPv6 sessions):
// no session may come up, and under each key every signed segment from the
// other side must be invalid, as tcpdump says too.
func testWrongKey(t *testing.T) {
	start := time.Now()
	const frrKey, gobgpKey = "authbgpd-e2e-frr-side", "authbgpd-e2e-gobgpd-side"
	tp, nsFRR, nsGoBGP, capture := oracleTopology(t)
	frr := StartFRR(t, tp, nsFRR, PeerConfig{ASN: 65001, RouterID: frrV4,
		Neighbors: []Neighbor{{gobgpV4, 65002, frrKey}, {gobgpV6, 65002, frrKey}},
		Networks:  frrNetworks})
	gobgp := StartGoBGP(t, tp, nsGoBGP, PeerConfig{ASN: 65002, RouterID: gobgpV4,
		Neighbors: []Neighbor{{frrV4, 65001, gobgpKey}, {frrV6, 65001, gobgpKey}},
		Networks:  gobgpNetworks})

	// Wait for at least 3 signed SYNs from each side (gobgpd makes its
	// first attempt a few seconds after it starts).
	var counts map[string]int
	if poll(25*time.Second, until(func() bool {
		counts = signedSYNsBySide(capture.file)
		return counts["frr"] >= 3 && counts["gobgpd"] >= 3
	})) != nil {
		t.Fatalf("after %v, signed SYNs by side: %v; want >= 3 each", time.Since(start).Round(time.Millisecond), counts)
	}
	for _, c := range []struct {
		p    Peer
		addr netip.Addr
	}{{frr, gobgpV4}, {frr, gobgpV6}, {gobgp, frrV4}, {gobgp, frrV6}} {
		if s, err := c.p.State(c.addr); err != nil {
			t.Errorf("%s: state of %s: %v", c.p.Name(), c.addr, err)
		} else if s == Established {
			t.Errorf("%s: session with %s is established with mismatched keys", c.p.Name(), c.addr)
		}
	}
	capture.stop(t)
	// The kernels agree: each dropped the other's SYNs as bad signatures.
	for _, ns := range []string{nsFRR, nsGoBGP} {
		if c := md5Counters(t, ns); c["TCPMD5Failure"] < 3 {
			t.Errorf("%s: TcpExtTCPMD5Failure < 3 after the other side's signed SYNs (%v)", ns, c)
		}
	}

	segs := readSegments(t, capture.file)
	for _, k := range []struct{ key, holder, other string }{
		{frrKey, "frr", "gobgpd"},
		{gobgpKey, "gobgpd", "frr"},
	} {
		stats := compareWithTcpdump(t, capture.file, segs, k.key)
		t.Logf("key %q (%s's): %s", k.key, k.holder, stats)
		// Unsigned segments are allowed (none are expected: dropped SYNs
		// get no answer); every signed one must be valid exactly when it
		// comes from the side that holds the key.
		for i, sg := range segs {
			v := stats.verdicts[i]
			if v == md5auth.Unsigned {
				continue
			}
			want := md5auth.Invalid
			if sg.side == k.holder {
				want = md5auth.Valid
			}
			if v != want {
				t.Errorf("packet %d (%s, %v -> %v): %v under %s's key, want %v", sg.num, sg.side, sg.src, sg.dst, v, k.holder, want)
			}
		}
		for _, dir := range []string{k.holder + " -> " + k.other, k.other + " -> " + k.holder} {
			if s := stats.dirs[dir]; s == nil || s.signedSYN < 3 {
				t.Errorf("%s: fewer than 3 signed SYNs: %+v", dir, s)
			}
		}
	}
	t.Logf("subtest took %v", time.Since(start).Round(time.Millisecond))
}

// ---------------------------------------------------------------- capture

// unsignedSYN dials dst from ns without a TCP-MD5 key; the peer's kernel
// drops the SYN, so the dial times out.
func unsignedSYN(t *testing.T, ns string, dst netip.AddrPort) {
	t.Helper()
	err := netns.Do(ns, func() error {
		c, err := net.DialTimeout("tcp", dst.String(), 300*time.Millisecond)
		if err == nil {
			c.Close()
			return fmt.Errorf("an unsigned connection to %v was accepted", dst)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}

// md5Counters returns the TcpExt TCP-MD5 counters of ns.
func md5Counters(t *testing.T, ns string) map[string]uint64 {
	t.Helper()
	all, err := netns.Counters(ns)
	if err != nil {
		t.Fatal(err)
	}
	c := map[string]uint64{}
	for _, k := range []string{"TCPMD5NotFound", "TCPMD5Unexpected", "TCPMD5Failure"} {
		c[k] = all[k]
	}
	return c
}

// ---------------------------------------------------------------- our side

// segment is one captured TCP segment.
type segment struct {
	num      int // packet number in the file, from 1 (as tcpdump -# counts)
	src, dst netip.AddrPort
	side     string // "frr" or "gobgpd": who sent it
	syn      bool
	payload  int
	data     []byte // TCP header, options and payload
}

func sideOf(a netip.Addr) string {
	if a == frrV4 || a == frrV6 {
		return "frr"
	}
	return "gobgpd"
}

// readSegments decodes every packet of a capture file with capfile and frame.
func readSegments(t *testing.T, file string) []segment {
	t.Helper()
	var segs []segment
	n := 0
	err := capfile.EachFile(file, func(pkt capfile.Packet) error {
		n++
		var tcp frame.TCP
		if err := frame.DecodeTCP(pkt.LinkType, pkt.Data, &tcp); err != nil {
			t.Fatalf("frame: %s: packet %d (link type %d, %d bytes): %v", file, n, pkt.LinkType, len(pkt.Data), err)
		}
		hl := int(tcp.Segment[12]>>4) * 4
		segs = append(segs, segment{
			num:     n,
			src:     netip.AddrPortFrom(tcp.Src, tcp.SrcPort),
			dst:     netip.AddrPortFrom(tcp.Dst, tcp.DstPort),
			side:    sideOf(tcp.Src),
			syn:     tcp.Segment[13]&0x02 != 0,
			payload: len(tcp.Segment) - hl,
			data:    bytes.Clone(tcp.Segment),
		})
		return nil
	})
	if err != nil {
		t.Fatalf("capfile: %v", err)
	}
	return segs
}

// signedSYNsBySide counts the signed SYNs per sending side in a capture
// that is still being written (a torn last record just ends the count).
func signedSYNsBySide(file string) map[string]int {
	counts := map[string]int{}
	var tcp frame.TCP
	_ = capfile.EachFile(file, func(pkt capfile.Packet) error { // a torn last record just ends the count
		if frame.DecodeTCP(pkt.LinkType, pkt.Data, &tcp) != nil || tcp.Segment[13]&0x02 == 0 {
			return nil
		}
		if o, err := md5auth.SegmentOptions(tcp.Segment); err == nil && o.HasMD5 {
			counts[sideOf(tcp.Src)]++
		}
		return nil
	})
	return counts
}

// ---------------------------------------------------------------- tcpdump's side

// tdPacket is what tcpdump -v -M printed about one packet.
type tdPacket struct {
	src, dst string // "addr.port"
	verdict  md5auth.Verdict
	other    string // the md5 option text when it is neither valid nor invalid
	text     string
}

var (
	tdPacketStart = regexp.MustCompile(`^\s*(\d+)\s+\d\d:\d\d:\d\d\.\d+\s`)
	tdTuple       = regexp.MustCompile(`(\S+\.\d+) > (\S+\.\d+): Flags \[`)
	tdOptions     = regexp.MustCompile(`options \[([^\]]*)\]`)
)

// tcpdumpVerdicts runs tcpdump -r FILE -nn -v -# -M KEY and returns its
// verdict for each packet number.
func tcpdumpVerdicts(t *testing.T, file, key string) map[int]*tdPacket {
	t.Helper()
	cmd := exec.Command("tcpdump", "-r", file, "-nn", "-v", "-#", "-M", key)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tcpdump -r %s -M: %v\n%s", file, err, stderr.String())
	}
	pkts := map[int]*tdPacket{}
	var cur *tdPacket
	for _, line := range strings.Split(string(out), "\n") {
		if m := tdPacketStart.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[1])
			if pkts[n] != nil {
				t.Fatalf("tcpdump printed packet %d twice", n)
			}
			cur = &tdPacket{}
			pkts[n] = cur
		}
		if cur != nil {
			cur.text += line + "\n"
		}
	}
	for n, p := range pkts {
		m := tdTuple.FindStringSubmatch(p.text)
		if m == nil {
			t.Fatalf("tcpdump: packet %d: no TCP addresses in %q", n, p.text)
		}
		p.src, p.dst = m[1], m[2]
		p.verdict = md5auth.Unsigned
		o := tdOptions.FindStringSubmatch(p.text)
		if o == nil {
			continue
		}
		for _, opt := range strings.Split(o[1], ",") {
			if !strings.HasPrefix(opt, "md5") {
				continue
			}
			switch {
			case opt == "md5 valid":
				p.verdict = md5auth.Valid
			case strings.TrimSpace(strings.TrimPrefix(opt, "md5")) == "(invalid)":
				p.verdict = md5auth.Invalid
			default: // "can't check - <digest>", with a reason before it
				p.other = opt
			}
		}
		// "shared secret not supplied with -M, can't check - ..." has a
		// comma of its own: catch it whole.
		if strings.Contains(o[1], "can't check") {
			p.other = o[1]
		}
	}
	return pkts
}

// ---------------------------------------------------------------- comparison

type dirStats struct {
	segments, unsigned, valid, invalid int
	signedSYN, signedData              int
}

func (s *dirStats) signed() int { return s.valid + s.invalid }

func (s *dirStats) String() string {
	return fmt.Sprintf("%d segments: %d signed (%d valid, %d invalid; %d SYN, %d with payload), %d unsigned",
		s.segments, s.signed(), s.valid, s.invalid, s.signedSYN, s.signedData, s.unsigned)
}

type oracleStats struct {
	dirs     map[string]*dirStats // "frr -> gobgpd", "gobgpd -> frr"
	verdicts []md5auth.Verdict    // ours, per segment
	agreed   int
}

func (o *oracleStats) String() string {
	var b strings.Builder
	for _, d := range []string{"frr -> gobgpd", "gobgpd -> frr"} {
		if s := o.dirs[d]; s != nil {
			fmt.Fprintf(&b, "%s: %s; ", d, s)
		}
	}
	fmt.Fprintf(&b, "tcpdump agreed on %d of %d", o.agreed, len(o.verdicts))
	return b.String()
}

// compareWithTcpdump checks every segment under key with md5auth and with
// tcpdump -M, and fails t at each disagreement.
func compareWithTcpdump(t *testing.T, file string, segs []segment, key string) *oracleStats {
	t.Helper()
	if len(segs) == 0 {
		t.Fatal("the capture holds no segments")
	}
	td := tcpdumpVerdicts(t, file, key)
	if len(td) != len(segs) {
		t.Errorf("tcpdump printed %d packets, capfile read %d", len(td), len(segs))
	}
	st := &oracleStats{dirs: map[string]*dirStats{}}
	d := md5auth.NewDigester()
	for _, sg := range segs {
		ours, err := d.Check(sg.src.Addr(), sg.dst.Addr(), sg.data, []byte(key))
		if err != nil {
			t.Errorf("packet %d: md5auth: %v", sg.num, err)
		}
		st.verdicts = append(st.verdicts, ours)
		dir := sg.side + " -> " + sideOf(sg.dst.Addr())
		s := st.dirs[dir]
		if s == nil {
			s = &dirStats{}
			st.dirs[dir] = s
		}
		s.segments++
		switch ours {
		case md5auth.Unsigned:
			s.unsigned++
		case md5auth.Valid:
			s.valid++
		case md5auth.Invalid:
			s.invalid++
		}
		if ours != md5auth.Unsigned {
			if sg.syn {
				s.signedSYN++
			}
			if sg.payload > 0 {
				s.signedData++
			}
		}

		p := td[sg.num]
		switch {
		case p == nil:
			t.Errorf("packet %d (%v -> %v): tcpdump printed nothing", sg.num, sg.src, sg.dst)
		case p.src != tdAddrPort(sg.src) || p.dst != tdAddrPort(sg.dst):
			t.Errorf("packet %d: tcpdump saw %s -> %s, capfile/frame %v -> %v", sg.num, p.src, p.dst, sg.src, sg.dst)
		case p.other != "":
			t.Errorf("packet %d (%v -> %v): tcpdump could not check it: %q; md5auth: %v", sg.num, sg.src, sg.dst, p.other, ours)
		case p.verdict != ours:
			t.Errorf("packet %d (%v -> %v, %d bytes payload): md5auth says %v, tcpdump -M says %v:\n%s",
				sg.num, sg.src, sg.dst, sg.payload, ours, p.verdict, tail(p.text, 2000))
		default:
			st.agreed++
		}
	}
	return st
}

// tdAddrPort formats like tcpdump -nn: "192.0.2.1.179", "2001:db8::1.179".
func tdAddrPort(ap netip.AddrPort) string {
	return ap.Addr().String() + "." + strconv.Itoa(int(ap.Port()))
}
