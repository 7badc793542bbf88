package shadow

import (
	"bytes"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/peerindex"
	"github.com/authbgp/authbgpd/tcpao"
)

// aoAlgCase is one generated TCP-AO peer of TestAOAlgorithms: our key
// (config algorithm and mac-length), how the peer signs, and what the
// checker must say.
type aoAlgCase struct {
	addr    string
	alg     string // config name
	macLen  int    // our mac-length
	peerAlg tcpao.Algorithm
	peerLen int    // the peer's MAC length
	peerKey string // the peer's secret ("" ours)
	want    string // label of the peer's segments
	diag    string
}

func aoAlgCases() []aoAlgCase {
	var cs []aoAlgCase
	n := 0
	next := func() string { n++; return fmt.Sprintf("192.0.2.%d", 100+n) }
	for _, a := range tcpao.Algorithms {
		name := strings.TrimSuffix(a.String(), "-96")
		for _, ml := range []int{4, 12, 16} {
			cs = append(cs, aoAlgCase{addr: next(), alg: name, macLen: ml, peerAlg: a, peerLen: ml, want: "valid", diag: DiagOK})
		}
		// The peer's secret is another: bad-mac, for every algorithm.
		cs = append(cs, aoAlgCase{addr: next(), alg: name, macLen: 16, peerAlg: a, peerLen: 16, peerKey: "Another-Peer-Secret", want: "bad_mac", diag: DiagBadMAC})
		// The peer's MAC is 16 bytes, ours 12 (and the reverse).
		cs = append(cs, aoAlgCase{addr: next(), alg: name, macLen: 12, peerAlg: a, peerLen: 16, want: "bad_mac+maclen", diag: DiagMACLenMismatch})
		cs = append(cs, aoAlgCase{addr: next(), alg: name, macLen: 16, peerAlg: a, peerLen: 12, want: "bad_mac+maclen", diag: DiagMACLenMismatch})
	}
	// The -96 names (12 bytes) against a peer of the same algorithm.
	cs = append(cs, aoAlgCase{addr: next(), alg: "hmac-sha-1-96", macLen: 12, peerAlg: tcpao.HMACSHA1, peerLen: 12, want: "valid", diag: DiagOK})
	cs = append(cs, aoAlgCase{addr: next(), alg: "aes-128-cmac-96", macLen: 12, peerAlg: tcpao.AESCMAC, peerLen: 12, want: "valid", diag: DiagOK})
	// The peer's algorithm is another one with the same MAC length.
	cs = append(cs, aoAlgCase{addr: next(), alg: "hmac-sha-256", macLen: 12, peerAlg: tcpao.HMACSHA224, peerLen: 12, want: "bad_mac", diag: DiagBadMAC})
	cs = append(cs, aoAlgCase{addr: next(), alg: "hmac-sha-512", macLen: 16, peerAlg: tcpao.HMACSHA384, peerLen: 16, want: "bad_mac", diag: DiagBadMAC})
	return cs
}

const aoAlgSecret = "Alg-Test-Secret-Marmot"

func aoAlgConfig(cs []aoAlgCase) string {
	var b strings.Builder
	b.WriteString("[global]\nasn = 65001\nrouter-id = \"192.0.2.1\"\n")
	for i, c := range cs {
		fmt.Fprintf(&b, "[[keychains]]\nname = \"k%d\"\ntype = \"tcp-ao\"\n  [[keychains.keys]]\n  id = 1\n  algorithm = %q\n  mac-length = %d\n  secret = %q\n", i, c.alg, c.macLen, aoAlgSecret)
	}
	for i, c := range cs {
		fmt.Fprintf(&b, "[[peers]]\naddress = %q\nasn = %d\nkeychain = \"k%d\"\n", c.addr, 65100+i, i)
	}
	return b.String()
}

func aoAlgLabel(r Result) string {
	l := aoLabel(r)
	if r.MACLenMismatch {
		l += "+maclen"
	}
	return l
}

// TestAOAlgorithms: sessions of every algorithm and MAC length (4, 12,
// 16) verify in the live checker and through verify-pcap's ReadCapture,
// both ways; a wrong secret or algorithm is bad-mac; a MAC length other
// than ours is mac-length-mismatch, whichever is longer.
func TestAOAlgorithms(t *testing.T) {
	cs := aoAlgCases()
	cfg, err := config.Parse("algs.toml", []byte(aoAlgConfig(cs)))
	if err != nil {
		t.Fatal(err)
	}
	g := newAOGen(t)
	for i, c := range cs {
		ours := tcpao.MasterKey{Alg: mustAlg(t, c.alg), Secret: []byte(aoAlgSecret), SendID: 1, RecvID: 1, IncludeOptions: true, MACLen: c.macLen}
		peer := tcpao.MasterKey{Alg: c.peerAlg, Secret: []byte(aoAlgSecret), SendID: 1, RecvID: 1, IncludeOptions: true, MACLen: c.peerLen}
		if c.peerKey != "" {
			peer.Secret = []byte(c.peerKey)
		}
		us := netip.AddrPortFrom(aoLocal4, 179)
		conn := g.conn(c.alg, ap(c.addr, uint16(50000+i)), us, 0x1000_0000+uint32(i)*7919, 0xfff0_0000+uint32(i)*104729,
			aoSigner{mkts: []tcpao.MasterKey{peer}, rnext: 1, ts: true}, aoSigner{mkts: []tcpao.MasterKey{ours}, rnext: 1, ts: true})
		conn.session(true, c.want)
	}
	// Live: segment by segment.
	chk := New(PeersOf(peerindex.New(cfg)), Options{IdleAfter: -1})
	for _, p := range g.pkts {
		if got := aoAlgLabel(feed(t, chk, p)); got != p.want {
			t.Errorf("%s: %s, want %s", p.desc, got, p.want)
		}
	}
	check := func(how string, reps []PeerReport) {
		for _, c := range cs {
			r := reportOf(t, reps, c.addr)
			if r.Diagnosis != c.diag {
				t.Errorf("%s: %s (%s mac %d, peer %s mac %d): diagnosis %s, want %s", how, c.addr, c.alg, c.macLen, c.peerAlg, c.peerLen, r.Diagnosis, c.diag)
			}
			if r.Sent.Valid == 0 || r.Sent.Invalid != 0 {
				t.Errorf("%s: %s: our own segments %+v", how, c.addr, r.Sent)
			}
		}
	}
	check("live", chk.Reports(time.Time{}))
	// verify-pcap: the same packets as a capture file.
	off := New(PeersOf(peerindex.New(cfg)), Options{IdleAfter: -1})
	if _, err := ReadCapture(bytes.NewReader(pcapBytes(g.pkts)), off, nil); err != nil {
		t.Fatal(err)
	}
	check("verify-pcap", off.Reports(time.Time{}))
	if s := explain(DiagMACLenMismatch); !strings.Contains(s, "mac-length") {
		t.Errorf("explain: %q", s)
	}
}

// TestAOAlgorithmsZeroAllocs: the checker's TCP-AO path for a SHA-512
// 16-byte and a SHA-256 4-byte session allocates nothing per segment.
func TestAOAlgorithmsZeroAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	cs := []aoAlgCase{
		{addr: "192.0.2.201", alg: "hmac-sha-512", macLen: 16, peerAlg: tcpao.HMACSHA512, peerLen: 16, want: "valid"},
		{addr: "192.0.2.202", alg: "hmac-sha-256", macLen: 4, peerAlg: tcpao.HMACSHA256, peerLen: 4, want: "valid"},
		{addr: "192.0.2.203", alg: "hmac-sha-256", macLen: 12, peerAlg: tcpao.HMACSHA256, peerLen: 16, want: "bad_mac+maclen"},
	}
	cfg, err := config.Parse("algs.toml", []byte(aoAlgConfig(cs)))
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cs {
		g := newAOGen(t)
		mk := tcpao.MasterKey{Alg: c.peerAlg, Secret: []byte(aoAlgSecret), SendID: 1, RecvID: 1, IncludeOptions: true, MACLen: c.peerLen}
		ours := mk
		ours.MACLen = c.macLen
		conn := g.conn(c.alg, ap(c.addr, uint16(51000+i)), netip.AddrPortFrom(aoLocal4, 179), 11, 22,
			aoSigner{mkts: []tcpao.MasterKey{mk}, rnext: 1, ts: true}, aoSigner{mkts: []tcpao.MasterKey{ours}, rnext: 1, ts: true})
		conn.session(true, c.want)
		chk := New(PeersOf(peerindex.New(cfg)), Options{IdleAfter: -1})
		for _, p := range g.pkts {
			feed(t, chk, p)
		}
		last := g.pkts[len(g.pkts)-1]
		if got := aoAlgLabel(feed(t, chk, last)); got != c.want {
			t.Fatalf("%s: %s", c.addr, got)
		}
		if n := testing.AllocsPerRun(100, func() { feed(t, chk, last) }); n != 0 {
			t.Errorf("%s (%s, %d bytes): %v allocations per segment", c.addr, c.alg, c.macLen, n)
		}
	}
}

func mustAlg(t *testing.T, s string) tcpao.Algorithm {
	t.Helper()
	a, err := tcpao.ParseAlgorithm(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
