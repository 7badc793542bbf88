//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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
	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/frame"
	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/peerindex"
	"github.com/authbgp/authbgpd/shadow"
	"github.com/authbgp/authbgpd/status"
)

// TestShadowOracle checks the shadow checker's per-segment verdicts against
// tcpdump -M, an independent RFC 2385 implementation, on captures of real
// sessions: FRR's bgpd or BIRD 2 (the "x" side: 192.0.2.1, 2001:db8::1)
// against gobgpd (192.0.2.2, 2001:db8::2), IPv4 and IPv6 sessions at once,
// with the right key on both sides, different keys, and a key on one side
// only. Each session is captured three times in x's namespace: on the veth
// (Ethernet) and with -i any as Linux cooked v1 and v2.
//
// Every capture is then judged from each side's point of view (a config
// holding that side's key, or none, for the other side's addresses), and for
// the wrong-key sessions also from a keychain that holds x's key as the
// active key and gobgpd's as a later one:
//
//	tcpdump -M K (our key)  shadow verdict
//	md5 valid           ↔   valid
//	md5 invalid         ↔   bad_digest  (other-key: tcpdump -M K2 says valid)
//	no md5 option       ↔   missing     (we hold a key)
//	md5 option          ↔   unexpected  (we hold no key; tcpdump without -M)
//	no md5 option       ↔   ignored     (we hold no key)
//
// Per segment through shadow.Checker.Check (the function verify-pcap and the
// live capture call), and verify-pcap --json's per-peer aggregates and file
// statistics must equal the sums of those per-segment results.
func TestShadowOracle(t *testing.T) {
	testenv.RequireRoot(t)
	testenv.RequireBinary(t, "tcpdump")
	testenv.RequireBinary(t, "bgpd", "/usr/lib/frr")
	testenv.RequireBinary(t, "bird")
	testenv.RequireBinary(t, "gobgpd")
	bin := authbgpdBinary(t, "")
	start := time.Now()
	// Keys: letters, digits and dashes (the peer helpers' rule).
	const (
		keyShared = "authbgpd-shadow-oracle-key"
		keyX      = "authbgpd-shadow-x-side"
		keyG      = "authbgpd-shadow-gobgpd-side"
	)
	cases := []orCase{
		{name: "frr-gobgpd-right", x: "frr", xKey: keyShared, gKey: keyShared},
		{name: "bird-gobgpd-right", x: "bird", xKey: keyShared, gKey: keyShared},
		{name: "frr-gobgpd-wrong", x: "frr", xKey: keyX, gKey: keyG},
		{name: "bird-gobgpd-wrong", x: "bird", xKey: keyX, gKey: keyG},
		{name: "frr-unkeyed", x: "frr", xKey: "", gKey: keyG},   // gobgpd: missing; frr: unexpected
		{name: "bird-unkeyed", x: "bird", xKey: keyX, gKey: ""}, // gobgpd: unexpected; bird: missing
	}
	names := make([]string, len(cases))
	for i, c := range cases {
		names[i] = c.name
	}
	concurrently(t, names, func(t *testing.T, i int) { testShadowOracleCase(t, bin, cases[i]) })
	t.Logf("TestShadowOracle took %v", time.Since(start).Round(time.Millisecond))
}

// orCase is one oracle session: x (frr or bird) against gobgpd.
type orCase struct {
	name       string
	x          string // "frr" or "bird"
	xKey, gKey string // "" = no TCP-MD5 on that side
}

var (
	orX4, orX6 = netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("2001:db8::1")
	orG4, orG6 = netip.MustParseAddr("192.0.2.2"), netip.MustParseAddr("2001:db8::2")
)

func orSide(a netip.Addr) string {
	switch a {
	case orX4, orX6:
		return "x"
	case orG4, orG6:
		return "gobgpd"
	}
	return a.String()
}

// orView is a point of view from which a capture is judged: a config for
// verify-pcap and the checker.
type orView struct {
	name    string
	self    string       // "x" or "gobgpd": whose config this is
	peers   []netip.Addr // the other side's addresses
	key     string       // our key for them ("" = none)
	otherID int          // > 0: keychain; key is id 1, otherKey is this id, later
	other   string
	want    string // expected diagnosis of both peers
}

func (v orView) toml() string {
	c := abConf{RouterID: "192.0.2.9", ListenPort: "-1", NoAPI: true}
	if v.otherID > 0 {
		c.Extra = keychainSection("chain", keychainKey{id: 1, secret: v.key},
			keychainKey{id: v.otherID, secret: v.other, sendFrom: "2099-01-01T00:00:00Z"})
	}
	for _, p := range v.peers {
		ap := abPeer{addr: p.String(), asn: 65002}
		switch {
		case v.otherID > 0:
			ap.src, ap.ref = "keychain", "chain"
		case v.key != "":
			ap.src, ap.ref = "password", v.key
		}
		c.Peers = append(c.Peers, ap)
	}
	return c.String()
}

func testShadowOracleCase(t *testing.T, bin string, c orCase) {
	start := time.Now()
	pair := netns.NewPair(t, "shorc",
		netns.End{NS: "x", If: "eth0", Addrs: []string{orX4.String() + "/24", orX6.String() + "/64"}},
		netns.End{NS: "g", If: "eth0", Addrs: []string{orG4.String() + "/24", orG6.String() + "/64"}})
	tp, nsX, nsG := pair.Topology, pair.A, pair.B
	dir := t.TempDir()
	caps := []*orCapture{
		{name: "veth", link: frame.LinkEthernet, td: startTcpdump(t, tp, nsX, filepath.Join(dir, "veth.pcap"), "-i", "eth0", "--immediate-mode")},
		{name: "any-sll", link: frame.LinkLinuxSLL, td: startTcpdump(t, tp, nsX, filepath.Join(dir, "any-sll.pcap"), "-i", "any", "-y", "LINUX_SLL", "--immediate-mode")},
		{name: "any-sll2", link: frame.LinkLinuxSLL2, td: startTcpdump(t, tp, nsX, filepath.Join(dir, "any-sll2.pcap"), "-i", "any", "-y", "LINUX_SLL2", "--immediate-mode")},
	}

	xNets := []netip.Prefix{netip.MustParsePrefix("198.51.100.0/24"), netip.MustParsePrefix("2001:db8:100::/48")}
	gNets := []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24"), netip.MustParsePrefix("2001:db8:200::/48")}
	g := StartGoBGP(t, tp, nsG, PeerConfig{ASN: 65002, RouterID: orG4,
		Neighbors: []Neighbor{{orX4, 65001, c.gKey}, {orX6, 65001, c.gKey}}, Networks: gNets})
	xCfg := PeerConfig{ASN: 65001, RouterID: orX4,
		Neighbors: []Neighbor{{orG4, 65002, c.xKey}, {orG6, 65002, c.xKey}}, Networks: xNets}
	var x Peer
	if c.x == "bird" {
		x = StartBIRD(t, tp, nsX, xCfg)
	} else {
		x = StartFRR(t, tp, nsX, xCfg)
	}

	right := c.xKey == c.gKey
	if right {
		waitSessions(t, 40*time.Second, 1, sessionCheck{g, orX4}, sessionCheck{g, orX6}, sessionCheck{x, orG4}, sessionCheck{x, orG6})
		t.Logf("sessions established with routes after %v", time.Since(start).Round(time.Millisecond))
		time.Sleep(300 * time.Millisecond) // the last ACKs
		x.Stop()                           // Cease NOTIFICATION and FIN exchange, signed
		time.Sleep(300 * time.Millisecond)
	} else {
		// No session can come up: wait for at least 3 segments from each
		// side in each family (SYNs and their retransmissions).
		var n map[string]int
		if poll(40*time.Second, until(func() bool {
			n = orCountSides(caps[0].td.file)
			return n["x4"] >= 3 && n["x6"] >= 3 && n["gobgpd4"] >= 3 && n["gobgpd6"] >= 3
		})) != nil {
			t.Fatalf("after %v, segments by side and family: %v; want >= 3 each", time.Since(start).Round(time.Millisecond), n)
		}
		for _, s := range []sessionCheck{{g, orX4}, {g, orX6}, {x, orG4}, {x, orG6}} {
			if st, err := s.p.State(s.addr); err == nil && st == Established {
				t.Errorf("%s: session with %s is established with mismatched keys", s.p.Name(), s.addr)
			}
		}
	}
	for _, cp := range caps {
		cp.td.stop(t)
	}

	views := []orView{
		{name: "gobgpd-view", self: "gobgpd", peers: []netip.Addr{orX4, orX6}, key: c.gKey},
		{name: c.x + "-view", self: "x", peers: []netip.Addr{orG4, orG6}, key: c.xKey},
	}
	for i := range views {
		v := &views[i]
		other := c.xKey
		if v.self == "x" {
			other = c.gKey
		}
		switch {
		case v.key != "" && other == v.key:
			v.want = shadow.DiagOK
		case v.key != "" && other != "":
			v.want = shadow.DiagBadDigest
		case v.key != "":
			v.want = shadow.DiagMissing
		default:
			v.want = shadow.DiagUnexpected
		}
	}
	if !right && c.xKey != "" && c.gKey != "" {
		views = append(views, orView{name: c.x + "-keychain-view", self: "x", peers: []netip.Addr{orG4, orG6},
			key: c.xKey, otherID: 2, other: c.gKey, want: shadow.DiagOtherKey})
	}
	for _, cp := range caps {
		for _, v := range views {
			t.Run(cp.name+"/"+v.name, func(t *testing.T) { orJudge(t, bin, dir, cp, v, right) })
		}
	}
	// All three files in one verify-pcap run (one checker across files):
	// the report is the sum of the single-file runs.
	t.Run("three-files", func(t *testing.T) {
		v := views[0]
		cfgFile := filepath.Join(dir, "all-"+v.name+".toml")
		if err := os.WriteFile(cfgFile, []byte(v.toml()), 0o600); err != nil {
			t.Fatal(err)
		}
		var files []string
		sum := map[string]status.Segments{}
		sent := map[string]status.Sent{}
		for _, cp := range caps {
			files = append(files, cp.td.file)
			for _, p := range runVerifyPcap(t, bin, cfgFile, cp.td.file).Peers {
				s, d := sum[p.Address], p.Shadow.Segments
				sum[p.Address] = status.Segments{Valid: s.Valid + d.Valid, BadDigest: s.BadDigest + d.BadDigest, Missing: s.Missing + d.Missing, Unexpected: s.Unexpected + d.Unexpected}
				o, e := sent[p.Address], *p.Shadow.Sent
				sent[p.Address] = status.Sent{Valid: o.Valid + e.Valid, Invalid: o.Invalid + e.Invalid, Unsigned: o.Unsigned + e.Unsigned}
			}
		}
		rep := runVerifyPcap(t, bin, cfgFile, files...)
		if len(rep.Files) != len(files) {
			t.Fatalf("verify-pcap reported %d files, want %d", len(rep.Files), len(files))
		}
		for _, p := range rep.Peers {
			if p.Shadow.Segments != sum[p.Address] || *p.Shadow.Sent != sent[p.Address] || p.Shadow.Diagnosis != v.want {
				t.Errorf("%s over three files: %+v sent %+v %s; single-file sums %+v sent %+v, want %s",
					p.Address, p.Shadow.Segments, *p.Shadow.Sent, p.Shadow.Diagnosis, sum[p.Address], sent[p.Address], v.want)
			}
		}
		if len(rep.Peers) != len(sum) {
			t.Errorf("verify-pcap over three files: %d peers, single runs %d", len(rep.Peers), len(sum))
		}
	})
	t.Logf("%s took %v", c.name, time.Since(start).Round(time.Millisecond))
}

type orCapture struct {
	name string
	link uint32 // the link type the capture must have
	td   *tdProc
}

// orResult is the checker's word on one packet of a capture.
type orResult struct {
	num      int
	src, dst netip.AddrPort
	syn, rst bool
	payload  int
	res      shadow.Result
}

// orJudge checks one capture from one point of view.
func orJudge(t *testing.T, bin, dir string, cp *orCapture, v orView, right bool) {
	cfgFile := filepath.Join(dir, cp.name+"-"+v.name+".toml")
	if err := os.WriteFile(cfgFile, []byte(v.toml()), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(cfgFile)
	if err != nil {
		t.Fatalf("config: %v\n%s", err, v.toml())
	}
	// The checker exactly as verify-pcap builds it.
	chk := shadow.New(shadow.PeersOf(peerindex.New(cfg)), shadow.Options{IdleAfter: -1})
	results, stats := orCheckFile(t, cp.td.file, cp.link, chk)

	// tcpdump's verdicts: under our key, or without -M when we hold none;
	// under the keychain's other key too.
	td := tdMD5Verdicts(t, cp.td.file, v.key)
	var tdOther map[int]*tdMD5
	if v.otherID > 0 {
		tdOther = tdMD5Verdicts(t, cp.td.file, v.other)
	}
	if len(td) != len(results) {
		t.Errorf("tcpdump printed %d packets, the checker saw %d", len(td), len(results))
	}
	type key = orKey
	sums := map[key]*[shadow.Malformed + 1]uint64{}
	agreed := 0
	for _, r := range results {
		p := td[r.num]
		what := fmt.Sprintf("packet %d (%v -> %v, syn %v, rst %v, %d bytes payload)", r.num, r.src, r.dst, r.syn, r.rst, r.payload)
		if p == nil {
			t.Errorf("%s: tcpdump printed nothing", what)
			continue
		}
		if p.src != tdAddrPort(r.src) || p.dst != tdAddrPort(r.dst) {
			t.Errorf("%s: tcpdump saw %s -> %s", what, p.src, p.dst)
			continue
		}
		// Who sent it and which configured peer it belongs to.
		outgoing := orSide(r.src.Addr()) == v.self
		remote := r.src.Addr()
		if outgoing {
			remote = r.dst.Addr()
		}
		if r.res.Outgoing != outgoing || r.res.PeerID != remote.String() {
			t.Errorf("%s: checker says outgoing %v peer %q; want outgoing %v peer %q", what, r.res.Outgoing, r.res.PeerID, outgoing, remote)
		}
		var want shadow.Verdict
		switch {
		case p.v == tdNone && v.key != "":
			want = shadow.Missing
		case p.v == tdNone:
			want = shadow.Ignored
		case v.key == "" && p.v == tdUnchecked:
			want = shadow.Unexpected
		case v.key != "" && p.v == tdValid:
			want = shadow.Valid
		case v.key != "" && p.v == tdInvalid:
			want = shadow.BadDigest
		default:
			t.Errorf("%s: tcpdump's md5 verdict %v under key %q is not one the oracle maps: %q", what, p.v, v.key, p.opt)
			continue
		}
		ok := r.res.Verdict == want
		// other-key: a bad digest that the keychain's other key verifies,
		// exactly when tcpdump -M other says valid.
		if ok && want == shadow.BadDigest && tdOther != nil {
			otherValid := tdOther[r.num] != nil && tdOther[r.num].v == tdValid
			if r.res.Other != otherValid || (otherValid && r.res.KeyID != v.otherID) {
				t.Errorf("%s: bad digest with other %v key id %d; tcpdump -M <key %d> says %v", what, r.res.Other, r.res.KeyID, v.otherID, tdOther[r.num])
				ok = false
			}
		} else if r.res.Other {
			t.Errorf("%s: %v marked other-key", what, r.res.Verdict)
			ok = false
		}
		if !ok {
			t.Errorf("%s: shadow verdict %v, tcpdump -M says %v (%q): want %v", what, r.res.Verdict, p.v, p.opt, want)
			continue
		}
		agreed++
		k := key{remote, outgoing}
		if sums[k] == nil {
			sums[k] = new([shadow.Malformed + 1]uint64)
		}
		sums[k][r.res.Verdict]++
	}

	// The session itself must have produced what this case is about, in
	// both directions and both families (else the agreement is vacuous).
	for _, peer := range v.peers {
		in, out := sums[key{peer, false}], sums[key{peer, true}]
		if in == nil || out == nil {
			t.Errorf("%s: no segments in one direction (in %v, out %v)", peer, in, out)
			continue
		}
		var wantIn shadow.Verdict
		switch v.want {
		case shadow.DiagOK:
			wantIn = shadow.Valid
		case shadow.DiagBadDigest, shadow.DiagOtherKey:
			wantIn = shadow.BadDigest
		case shadow.DiagMissing:
			wantIn = shadow.Missing
		case shadow.DiagUnexpected:
			wantIn = shadow.Unexpected
		}
		if in[wantIn] < 3 {
			t.Errorf("%s: %d incoming %v segments, want >= 3 (%v)", peer, in[wantIn], wantIn, in)
		}
		if right && (in[shadow.BadDigest] > 0 || out[shadow.BadDigest] > 0 || out[shadow.Valid] < 3) {
			t.Errorf("%s: right keys, but in %v out %v", peer, in, out)
		}
	}
	// Unsigned segments in a right-key session may only be RSTs (the
	// kernel resets connections to a closed port without a key).
	if right && v.key != "" {
		for _, r := range results {
			if r.res.Verdict == shadow.Missing && !r.rst {
				t.Errorf("packet %d (%v -> %v): unsigned non-RST segment in a right-key session", r.num, r.src, r.dst)
			}
		}
	}

	// verify-pcap --json on the same file with the same config: its
	// aggregates are the per-segment sums.
	rep := runVerifyPcap(t, bin, cfgFile, cp.td.file)
	if len(rep.Files) != 1 || rep.Files[0].Stats != stats {
		t.Errorf("verify-pcap file stats %+v, the per-segment loop counted %+v", rep.Files, stats)
	}
	got := map[string]vpPeer{}
	for _, p := range rep.Peers {
		got[p.Address] = p
	}
	if len(got) != len(v.peers) {
		t.Errorf("verify-pcap reports %d addresses, want %d (%v): %+v", len(got), len(v.peers), v.peers, rep.Peers)
	}
	for _, peer := range v.peers {
		p, ok := got[peer.String()]
		if !ok || p.Shadow == nil {
			t.Errorf("verify-pcap: no report for %s", peer)
			continue
		}
		in, out := sums[key{peer, false}], sums[key{peer, true}]
		if in == nil {
			in = new([shadow.Malformed + 1]uint64)
		}
		if out == nil {
			out = new([shadow.Malformed + 1]uint64)
		}
		wantSeg := status.Segments{Valid: in[shadow.Valid], BadDigest: in[shadow.BadDigest], Missing: in[shadow.Missing], Unexpected: in[shadow.Unexpected]}
		wantSent := status.Sent{Valid: out[shadow.Valid], Invalid: out[shadow.BadDigest], Unsigned: out[shadow.Missing]}
		if p.Shadow.Segments != wantSeg {
			t.Errorf("verify-pcap %s: segments %+v, per-segment sums %+v", peer, p.Shadow.Segments, wantSeg)
		}
		if p.Shadow.Sent == nil || *p.Shadow.Sent != wantSent {
			t.Errorf("verify-pcap %s: sent %+v, per-segment sums %+v", peer, p.Shadow.Sent, wantSent)
		}
		if p.Peer != peer.String() {
			t.Errorf("verify-pcap %s: configured peer %q", peer, p.Peer)
		}
		if p.Shadow.Diagnosis != v.want {
			t.Errorf("verify-pcap %s: diagnosis %q, want %q", peer, p.Shadow.Diagnosis, v.want)
		}
		switch {
		case v.want == shadow.DiagOtherKey && (p.Shadow.PeerKeyID == nil || *p.Shadow.PeerKeyID != v.otherID):
			t.Errorf("verify-pcap %s: other-key with peer_key_id %v, want %d", peer, p.Shadow.PeerKeyID, v.otherID)
		case v.want != shadow.DiagOtherKey && p.Shadow.PeerKeyID != nil:
			t.Errorf("verify-pcap %s: peer_key_id %d with diagnosis %s", peer, *p.Shadow.PeerKeyID, v.want)
		}
		// And the checker's own report agrees with what verify-pcap printed.
		for _, r := range chk.Reports(time.Time{}) {
			if r.Address == peer {
				if s := shadow.StatusOf(r); s.Diagnosis != p.Shadow.Diagnosis || s.Segments != p.Shadow.Segments {
					t.Errorf("%s: in-test checker report %+v, verify-pcap %+v", peer, s, p.Shadow)
				}
			}
		}
	}
	t.Logf("%d packets (%s, link type %d): %d checked, tcpdump agreed on %d; %s",
		stats.Packets, cp.name, cp.link, stats.Checked, agreed, orSumsString(sums))
}

// orKey is a remote address and a direction.
type orKey struct {
	addr     netip.Addr
	outgoing bool
}

func orSumsString(sums map[orKey]*[shadow.Malformed + 1]uint64) string {
	var parts []string
	for k, s := range sums {
		dir := "from"
		if k.outgoing {
			dir = "to"
		}
		var vs []string
		for v, n := range s {
			if n > 0 {
				vs = append(vs, fmt.Sprintf("%v %d", shadow.Verdict(v), n))
			}
		}
		parts = append(parts, fmt.Sprintf("%s %s: %s", dir, k.addr, strings.Join(vs, ", ")))
	}
	return strings.Join(parts, "; ")
}

// orCheckFile runs every packet of file through chk as shadow.ReadCapture
// does, keeping each segment's Result, and counts as ReadCapture counts.
func orCheckFile(t *testing.T, file string, link uint32, chk *shadow.Checker) ([]orResult, shadow.FileStats) {
	t.Helper()
	var out []orResult
	var st shadow.FileStats
	n := 0
	err := capfile.EachFile(file, func(pkt capfile.Packet) error {
		n++
		st.Packets++
		if pkt.LinkType != link {
			t.Fatalf("%s: packet %d has link type %d, want %d", file, n, pkt.LinkType, link)
		}
		var tcp frame.TCP
		if err := frame.DecodeTCP(pkt.LinkType, pkt.Data, &tcp); err != nil {
			t.Fatalf("frame: %s: packet %d (link type %d, %d bytes): %v", file, n, pkt.LinkType, len(pkt.Data), err)
		}
		st.TCP++
		res := chk.Check(tcp.Src, tcp.Dst, tcp.SrcPort, tcp.DstPort, tcp.Segment, pkt.Time)
		if res.PeerID != "" {
			st.Checked++
		}
		hl := int(tcp.Segment[12]>>4) * 4
		out = append(out, orResult{
			num: n,
			src: netip.AddrPortFrom(tcp.Src, tcp.SrcPort), dst: netip.AddrPortFrom(tcp.Dst, tcp.DstPort),
			syn: tcp.Segment[13]&0x02 != 0, rst: tcp.Segment[13]&0x04 != 0,
			payload: len(tcp.Segment) - hl, res: res,
		})
		return nil
	})
	if err != nil {
		t.Fatalf("capfile: %v", err)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no packets", file)
	}
	return out, st
}

// orCountSides counts the TCP segments of a capture still being written by
// sending side and family ("x4", "gobgpd6", ...).
func orCountSides(file string) map[string]int {
	n := map[string]int{}
	var tcp frame.TCP
	_ = capfile.EachFile(file, func(pkt capfile.Packet) error { // a capture still being written may end torn
		if frame.DecodeTCP(pkt.LinkType, pkt.Data, &tcp) != nil {
			return nil
		}
		fam := "4"
		if tcp.Src.Is6() {
			fam = "6"
		}
		n[orSide(tcp.Src)+fam]++
		return nil
	})
	return n
}

// ---------------------------------------------------------------- verify-pcap

type vpPeer struct {
	Address string         `json:"address"`
	Peer    string         `json:"peer"`
	Shadow  *status.Shadow `json:"shadow"`
}

type vpReport struct {
	Files []struct {
		Name  string           `json:"name"`
		Stats shadow.FileStats `json:"stats"`
	} `json:"files"`
	Peers []vpPeer `json:"peers"`
	SRH   struct {
		Valid, Invalid, NoHMAC, UnknownKey uint64
	} `json:"srh"`
}

// runVerifyPcap runs authbgpd verify-pcap -f cfg --json files... and
// decodes its report; it must exit 0 with nothing on stderr.
func runVerifyPcap(t testing.TB, bin, cfg string, files ...string) vpReport {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"verify-pcap", "-f", cfg, "--json"}, files...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("verify-pcap: %v\n%s", err, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Errorf("verify-pcap wrote to stderr: %s", stderr.String())
	}
	var rep vpReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("verify-pcap --json: %v\n%s", err, tail(stdout.String(), 2000))
	}
	return rep
}

// ---------------------------------------------------------------- tcpdump

type tdVerdict int

const (
	tdNone      tdVerdict = iota // no md5 option
	tdValid                      // md5 valid
	tdInvalid                    // md5 (invalid)
	tdUnchecked                  // md5 option, no key given (-M absent)
	tdOther                      // anything else tcpdump said about it
)

func (v tdVerdict) String() string {
	return [...]string{"no-md5", "md5-valid", "md5-invalid", "md5-unchecked", "md5-other"}[v]
}

type tdMD5 struct {
	src, dst string
	v        tdVerdict
	opt      string
}

func (m *tdMD5) String() string {
	if m == nil {
		return "<nothing>"
	}
	return m.v.String()
}

// tdMD5Verdicts runs tcpdump -r FILE -nn -v -# [-M KEY] and returns what it
// says of each packet's TCP-MD5 option (without a key: whether there is
// one).
func tdMD5Verdicts(t testing.TB, file, key string) map[int]*tdMD5 {
	t.Helper()
	args := []string{"-r", file, "-nn", "-v", "-#"}
	if key != "" {
		args = append(args, "-M", key)
	}
	cmd := exec.Command("tcpdump", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tcpdump -r %s: %v\n%s", file, err, stderr.String())
	}
	texts := map[int]*strings.Builder{}
	var cur *strings.Builder
	for _, line := range strings.Split(string(out), "\n") {
		if m := tdPacketStart.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[1])
			cur = &strings.Builder{}
			texts[n] = cur
		}
		if cur != nil {
			cur.WriteString(line + "\n")
		}
	}
	pkts := map[int]*tdMD5{}
	for n, b := range texts {
		text := b.String()
		m := tdTuple.FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("tcpdump: packet %d: no TCP addresses in %q", n, text)
		}
		p := &tdMD5{src: m[1], dst: m[2]}
		pkts[n] = p
		o := tdOptions.FindStringSubmatch(text)
		if o == nil || !strings.Contains(o[1], "md5") {
			continue
		}
		switch {
		case strings.Contains(o[1], "md5 valid"):
			p.v = tdValid
		case tdInvalidRE.MatchString(o[1]):
			p.v = tdInvalid
		case key == "" && strings.Contains(o[1], "md5 shared secret not supplied with -M"):
			p.v = tdUnchecked
		default:
			p.v = tdOther
		}
		p.opt = o[1]
	}
	return pkts
}

var tdInvalidRE = regexp.MustCompile(`md5\s*\(invalid\)`)
