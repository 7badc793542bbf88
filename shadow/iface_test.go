package shadow

import (
	"bytes"
	"encoding/binary"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/capture"
	"github.com/authbgp/authbgpd/frame"
	"github.com/authbgp/authbgpd/status"
	"github.com/authbgp/authbgpd/tcpao"
)

// Interface ("unnumbered") peers: two peers at the same link-local address
// fe80::2, one on eth1 and one on eth2, with different keys. Our end is
// fe80::1 on both links, and both sessions use the same ports.

var (
	llPeer  = netip.MustParseAddr("fe80::2")
	llLocal = netip.MustParseAddr("fe80::1")
)

const (
	llKey1 = "key-of-the-eth1-peer"
	llKey2 = "key-of-the-eth2-peer"
)

func ifPeer(name string, keys ...Key) Peer {
	return Peer{ID: name, Interface: name, Keys: keys, Pinned: -1}
}

func aoKey(secret string) Key {
	return Key{ID: 1, Secret: []byte(secret), Alg: tcpao.HMACSHA1, SendID: 1, RecvID: 1, IncludeOptions: true}
}

func aoMKT(secret string) tcpao.MasterKey {
	return tcpao.MasterKey{Alg: tcpao.HMACSHA1, Secret: []byte(secret), SendID: 1, RecvID: 1, IncludeOptions: true}
}

// llSession generates a session from the peer (fe80::2:40000, it dials)
// to us (fe80::1:179): SYN, SYN-ACK, ACK, OPEN both ways, keepalives; the
// peer signs with peerSig, we with ourSig.
func llSession(g *aoGen, scen string, isn uint32, peerSig, ourSig aoSigner) {
	c := g.conn(scen, netip.AddrPortFrom(llPeer, 40000), netip.AddrPortFrom(llLocal, 179), isn, isn+1000, peerSig, ourSig)
	c.send(true, fSYN, nil, "")
	c.send(false, fSYN|fACK, nil, "")
	c.send(true, fACK, nil, "")
	c.send(true, fPSH|fACK, bgpMsg(1, 10), "")
	c.send(false, fPSH|fACK, bgpMsg(1, 10), "")
	for range 3 {
		c.send(true, fPSH|fACK, bgpMsg(4, 0), "")
		c.send(false, fACK, nil, "")
	}
}

// feedOn checks pkts as seen on interface name, the remote end zoned as
// the live Runner does (the peer's segments come from fe80::2).
func feedOn(t *testing.T, c *Checker, name string, pkts []aoPacket) []Result {
	t.Helper()
	var out []Result
	var tcp frame.TCP
	for _, p := range pkts {
		if err := frame.DecodeTCP(frame.LinkEthernet, p.frame, &tcp); err != nil {
			t.Fatal(err)
		}
		if tcp.Src == llPeer {
			tcp.Src = tcp.Src.WithZone(name)
		} else {
			tcp.Dst = tcp.Dst.WithZone(name)
		}
		out = append(out, c.Check(tcp.Src, tcp.Dst, tcp.SrcPort, tcp.DstPort, tcp.Segment, p.t))
	}
	return out
}

func llReport(c *Checker, addr string) (PeerReport, bool) {
	for _, r := range c.Reports(time.Time{}) {
		if r.Address.String() == addr {
			return r, true
		}
	}
	return PeerReport{}, false
}

// TestInterfacePeersSameAddress: each interface peer is judged with its
// own key, by the interface its segments were seen on; the other's key
// is a bad digest (bad MAC). Both mechanisms; the segments of the two
// links interleave and share addresses and ports, so the state (TCP-AO:
// connections, ISNs, SNE) must be the interface's.
func TestInterfacePeersSameAddress(t *testing.T) {
	for _, ao := range []bool{false, true} {
		name := "md5"
		sig1, sig2 := aoSigner{md5: []byte(llKey1)}, aoSigner{md5: []byte(llKey2)}
		k1, k2 := pw(llKey1), pw(llKey2)
		bad, badCount := DiagBadDigest, func(r PeerReport) uint64 { return r.Received.BadDigest }
		if ao {
			name = "tcp-ao"
			sig1, sig2 = aoSigner{mkts: []tcpao.MasterKey{aoMKT(llKey1)}, rnext: 1}, aoSigner{mkts: []tcpao.MasterKey{aoMKT(llKey2)}, rnext: 1}
			k1, k2 = aoKey(llKey1), aoKey(llKey2)
			bad, badCount = DiagBadMAC, func(r PeerReport) uint64 { return r.Received.BadMAC }
		}
		t.Run(name, func(t *testing.T) {
			p1, p2 := ifPeer("eth1", k1), ifPeer("eth2", k2)
			p1.TCPAO, p2.TCPAO = ao, ao
			p2.VRF = "blue"
			c := New([]Peer{p1, p2}, Options{})
			// eth1: both ends sign with eth1's key (ok); eth2: the
			// peer signs with eth1's key too (the wrong one there),
			// we with eth2's.
			g1, g2 := newAOGen(t), newAOGen(t)
			llSession(g1, "eth1", 1000, sig1, sig1)
			llSession(g2, "eth2", 1000, sig1, sig2) // same ISNs and ports
			for i := range g1.pkts {                // interleaved, as two links would be
				for _, r := range feedOn(t, c, "eth1", g1.pkts[i:i+1]) {
					if r.PeerID != "eth1" || r.Verdict != Valid {
						t.Fatalf("eth1 segment %d (%s): %+v, want eth1's and valid", i, g1.pkts[i].desc, r)
					}
				}
				for _, r := range feedOn(t, c, "eth2", g2.pkts[i:i+1]) {
					if r.PeerID != "eth2" {
						t.Fatalf("eth2 segment %d: peer %q", i, r.PeerID)
					}
					if r.Outgoing && r.Verdict != Valid {
						t.Fatalf("our eth2 segment %d: %v, want valid", i, r.Verdict)
					}
				}
			}
			r1, ok1 := llReport(c, "fe80::2%eth1")
			r2, ok2 := llReport(c, "fe80::2%eth2")
			if !ok1 || !ok2 {
				t.Fatalf("reports: %+v", c.Reports(time.Time{}))
			}
			if r1.Diagnosis != DiagOK || r1.PeerID != "eth1" || r1.Interface != "eth1" || r1.VRF != "" || badCount(r1) != 0 || r1.Received.Valid == 0 {
				t.Errorf("eth1: %+v, want ok", r1)
			}
			if r2.Diagnosis != bad || r2.PeerID != "eth2" || r2.Interface != "eth2" || r2.VRF != "blue" || r2.Received.Valid != 0 || r2.Sent.Valid == 0 {
				t.Errorf("eth2: %+v, want %s", r2, bad)
			}
			if n := len(c.Reports(time.Time{})); n != 2 {
				t.Errorf("%d reports, want 2", n)
			}
		})
	}
}

// TestInterfacePeerNotElsewhere: a link-local segment seen on an interface
// that has no interface peer (eth3), or whose interface is not known (no
// zone), belongs to no interface peer; nor does one between two zoned
// link-local ends of one interface peer (which end is ours?).
func TestInterfacePeerNotElsewhere(t *testing.T) {
	c := New([]Peer{ifPeer("eth1", pw(llKey1)), ifPeer("eth2", pw(llKey2))}, Options{})
	g := newAOGen(t)
	llSession(g, "eth3", 1000, aoSigner{md5: []byte(llKey1)}, aoSigner{md5: []byte(llKey1)})
	for _, r := range feedOn(t, c, "eth3", g.pkts) {
		if r.PeerID != "" {
			t.Fatalf("a segment on eth3 went to %q", r.PeerID)
		}
	}
	for _, r := range feedOn(t, c, "", g.pkts) {
		if r.PeerID != "" {
			t.Fatalf("a segment of no interface went to %q", r.PeerID)
		}
	}
	var tcp frame.TCP
	if err := frame.DecodeTCP(frame.LinkEthernet, g.pkts[0].frame, &tcp); err != nil {
		t.Fatal(err)
	}
	if r := c.Check(tcp.Src.WithZone("eth1"), tcp.Dst.WithZone("eth1"), tcp.SrcPort, tcp.DstPort, tcp.Segment, g.pkts[0].t); r.PeerID != "" {
		t.Fatalf("both ends zoned: went to %q", r.PeerID)
	}
	if reps := c.Reports(time.Time{}); len(reps) != 0 {
		t.Fatalf("reports: %+v", reps)
	}
	// A numbered peer at a link-local address keeps its segments when no
	// interface peer claims the interface.
	c = New([]Peer{ifPeer("eth1", pw(llKey1)), addrPeer("fe80::2", pw(llKey2))}, Options{})
	g = newAOGen(t)
	llSession(g, "eth3", 1000, aoSigner{md5: []byte(llKey2)}, aoSigner{md5: []byte(llKey2)})
	for _, r := range feedOn(t, c, "eth3", g.pkts) {
		if r.PeerID != "fe80::2" || r.Verdict != Valid {
			t.Fatalf("numbered link-local peer: %+v", r)
		}
	}
}

// TestRunnerInterfaceOfFrame: the live path names each frame's interface
// by its index and zones the remote end, whichever the direction.
func TestRunnerInterfaceOfFrame(t *testing.T) {
	c := New([]Peer{ifPeer("eth1", pw(llKey1)), ifPeer("eth2", pw(llKey2))}, Options{})
	r := &Runner{srh: noSRH{}}
	lookups := 0
	w := &worker{names: ifNames{resolve: func(i int) (string, error) {
		lookups++
		return map[int]string{11: "eth1", 12: "eth2"}[i], nil
	}}}
	g1, g2 := newAOGen(t), newAOGen(t)
	llSession(g1, "eth1", 1000, aoSigner{md5: []byte(llKey1)}, aoSigner{md5: []byte(llKey1)})
	llSession(g2, "eth2", 1000, aoSigner{md5: []byte(llKey1)}, aoSigner{md5: []byte(llKey2)})
	var tcp frame.TCP
	for i := range g1.pkts {
		for _, x := range []struct {
			p   aoPacket
			idx int
		}{{g1.pkts[i], 11}, {g2.pkts[i], 12}} {
			if err := frame.DecodeTCP(frame.LinkEthernet, x.p.frame, &tcp); err != nil {
				t.Fatal(err)
			}
			c.Begin()
			r.handle(c, w, capture.Packet{Data: x.p.frame, LinkType: frame.LinkEthernet, IfIndex: x.idx, Outgoing: tcp.Src == llLocal, Time: x.p.t})
			c.End()
		}
	}
	r1, _ := llReport(c, "fe80::2%eth1")
	r2, _ := llReport(c, "fe80::2%eth2")
	if r1.Diagnosis != DiagOK || r1.Sent.Valid == 0 || r2.Diagnosis != DiagBadDigest || r2.Sent.Valid == 0 {
		t.Fatalf("eth1 %+v\neth2 %+v", r1, r2)
	}
	if lookups != 2 {
		t.Errorf("%d name lookups, want 2 (cached)", lookups)
	}
}

// TestZoneCacheAllocs: zoning a session's segments allocates nothing once
// its addresses were zoned, and the interface names are cached.
func TestZoneCacheAllocs(t *testing.T) {
	var z zoner
	n := ifNames{resolve: func(int) (string, error) { return "eth1", nil }}
	now := time.Now()
	a := z.zone(llPeer, n.name(3, now))
	if a.Zone() != "eth1" || a.WithZone("") != llPeer {
		t.Fatalf("zoned %v", a)
	}
	if allocs := testing.AllocsPerRun(100, func() { a = z.zone(llPeer, n.name(3, now)) }); allocs != 0 {
		t.Fatalf("%v allocations", allocs)
	}
}

// llPcapng writes pkts (each with its interface id and direction) as a
// pcapng file whose interfaces are names (if_name; "" none).
func llPcapng(names []string, pkts []aoPacket, ifs []int, dirs []uint32) []byte {
	le := binary.LittleEndian
	block := func(b []byte, typ uint32, body []byte) []byte {
		for len(body)%4 != 0 {
			body = append(body, 0)
		}
		b = le.AppendUint32(b, typ)
		b = le.AppendUint32(b, uint32(12+len(body)))
		b = append(b, body...)
		return le.AppendUint32(b, uint32(12+len(body)))
	}
	opt := func(b []byte, code uint16, v []byte) []byte {
		b = le.AppendUint16(b, code)
		b = le.AppendUint16(b, uint16(len(v)))
		b = append(b, v...)
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
		return b
	}
	var shb []byte
	shb = le.AppendUint32(shb, 0x1a2b3c4d)
	shb = le.AppendUint16(shb, 1)
	shb = le.AppendUint16(shb, 0)
	shb = le.AppendUint64(shb, ^uint64(0))
	out := block(nil, 0x0a0d0d0a, shb)
	for _, n := range names {
		idb := le.AppendUint16(nil, frame.LinkEthernet)
		idb = le.AppendUint16(idb, 0)
		idb = le.AppendUint32(idb, 65535)
		if n != "" {
			idb = opt(idb, 2, []byte(n)) // if_name
			idb = opt(idb, 0, nil)
		}
		out = block(out, 1, idb)
	}
	for i, p := range pkts {
		us := uint64(p.t.UnixMicro())
		epb := le.AppendUint32(nil, uint32(ifs[i]))
		epb = le.AppendUint32(epb, uint32(us>>32))
		epb = le.AppendUint32(epb, uint32(us))
		epb = le.AppendUint32(epb, uint32(len(p.frame)))
		epb = le.AppendUint32(epb, uint32(len(p.frame)))
		epb = append(epb, p.frame...)
		if dirs != nil && dirs[i] != 0 {
			for len(epb)%4 != 0 {
				epb = append(epb, 0)
			}
			epb = opt(epb, 2, le.AppendUint32(nil, dirs[i])) // epb_flags
			epb = opt(epb, 0, nil)
		}
		out = block(out, 6, epb)
	}
	return out
}

// llCapture is the two links' sessions (eth1: the peer on eth1's key;
// eth2: the peer on eth1's key, the wrong one there), interleaved, with
// the interface id (0 eth1, 1 eth2) and direction (1 in, 2 out) of each.
func llCapture(t testing.TB) (pkts []aoPacket, ifs []int, dirs []uint32) {
	g1, g2 := newAOGen(t), newAOGen(t)
	llSession(g1, "eth1", 1000, aoSigner{md5: []byte(llKey1)}, aoSigner{md5: []byte(llKey1)})
	llSession(g2, "eth2", 1000, aoSigner{md5: []byte(llKey1)}, aoSigner{md5: []byte(llKey2)})
	var tcp frame.TCP
	for i := range g1.pkts {
		for id, p := range []aoPacket{g1.pkts[i], g2.pkts[i]} {
			p.t = p.t.Add(time.Duration(id) * time.Millisecond)
			if err := frame.DecodeTCP(frame.LinkEthernet, p.frame, &tcp); err != nil {
				t.Fatal(err)
			}
			dir := uint32(1)
			if tcp.Src == llLocal {
				dir = 2
			}
			pkts, ifs, dirs = append(pkts, p), append(ifs, id), append(dirs, dir)
		}
	}
	return pkts, ifs, dirs
}

const llFixture = "testdata/two-links-ll.pcapng"

// TestInterfaceFixture keeps testdata/two-links-ll.pcapng (verify-pcap's
// test reads it) what the generator makes; -update-ao rewrites it.
func TestInterfaceFixture(t *testing.T) {
	pkts, ifs, dirs := llCapture(t)
	b := llPcapng([]string{"eth1", "eth2"}, pkts, ifs, dirs)
	if *updateAO {
		if err := os.WriteFile(llFixture, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(llFixture)
	if err != nil || !bytes.Equal(got, b) {
		t.Fatalf("%s is not the generator's (%v): go test ./shadow -run TestInterfaceFixture -update-ao", llFixture, err)
	}
}

// TestOfflineInterfaces: capture files tell the interface (pcapng if_name)
// and direction (epb_flags) or not, and verify-pcap's reader attributes
// link-local segments by them, or says it could not.
func TestOfflineInterfaces(t *testing.T) {
	pkts, ifs, dirs := llCapture(t)
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	peers := []Peer{ifPeer("eth1", pw(llKey1)), ifPeer("eth2", pw(llKey2))}
	run := func(t *testing.T, o Offline, file string) (FileStats, map[string]PeerReport) {
		t.Helper()
		o.Options.IdleAfter = -1
		o.Workers = 2
		st, reps, err := o.Run([]string{file})
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]PeerReport{}
		for _, r := range reps {
			m[r.Address.String()] = r
		}
		// ReadCapture, one checker, says the same (it learns no local
		// addresses but from the file).
		if o.Local == nil {
			f, _ := os.Open(file)
			defer f.Close()
			c := New(o.Peers, o.Options)
			st1, err := ReadCapture(f, c, nil)
			if err != nil || st1 != st[0] {
				t.Errorf("ReadCapture: %+v %v, Offline %+v", st1, err, st[0])
			}
		}
		return st[0], m
	}
	want := func(t *testing.T, m map[string]PeerReport, addr, diag string) {
		t.Helper()
		if r, ok := m[addr]; !ok || r.Diagnosis != diag {
			t.Errorf("%s: %+v (present %v), want %s", addr, r, ok, diag)
		}
	}
	t.Run("pcapng names and directions", func(t *testing.T) {
		st, m := run(t, Offline{Peers: peers}, llFixture)
		want(t, m, "fe80::2%eth1", DiagOK)
		want(t, m, "fe80::2%eth2", DiagBadDigest)
		if len(m) != 2 || st.Checked != uint64(len(pkts)) || st.LinkLocalNoInterface != 0 || st.LinkLocalUnknownEnd != 0 {
			t.Errorf("%+v %+v", st, m)
		}
		if r := m["fe80::2%eth2"]; r.Sent.Valid == 0 || r.Received.BadDigest == 0 {
			t.Errorf("eth2: %+v", r)
		}
	})
	t.Run("pcapng names, no directions", func(t *testing.T) {
		f := write("nodir.pcapng", llPcapng([]string{"eth1", "eth2"}, pkts, ifs, nil))
		st, m := run(t, Offline{Peers: peers}, f)
		if len(m) != 0 || st.LinkLocalUnknownEnd != uint64(len(pkts)) {
			t.Errorf("without a direction or our address: %+v %+v", st, m)
		}
		st, m = run(t, Offline{Peers: peers, Local: []netip.Addr{llLocal}}, f)
		want(t, m, "fe80::2%eth1", DiagOK)
		want(t, m, "fe80::2%eth2", DiagBadDigest)
		if st.LinkLocalUnknownEnd != 0 {
			t.Errorf("%+v", st)
		}
	})
	t.Run("no interface names", func(t *testing.T) {
		// Directions but no names: eth1's key verifies the peer's
		// segments of both links, so all of them went to eth1, and
		// ours on eth2 to eth2; nothing is given to a peer wrongly.
		f := write("noname.pcapng", llPcapng([]string{"", ""}, pkts, ifs, dirs))
		st, m := run(t, Offline{Peers: peers}, f)
		if st.LinkLocalNoInterface != uint64(len(pkts)) || st.LinkLocalByKey != st.LinkLocalNoInterface || st.LinkLocalUnattributed != 0 {
			t.Errorf("%+v", st)
		}
		want(t, m, "fe80::2%eth1", DiagOK)
		if r := m["fe80::2%eth2"]; r.Received != (Counts{}) || r.Sent.Valid == 0 {
			t.Errorf("eth2 got received segments it cannot be known to have: %+v", r)
		}
		// One interface peer: its interface is assumed, and said so.
		st, m = run(t, Offline{Peers: peers[1:]}, f)
		if st.LinkLocalAssumed != uint64(len(pkts)) {
			t.Errorf("%+v", st)
		}
		want(t, m, "fe80::2%eth2", DiagBadDigest)
	})
	t.Run("no interface names, a key nobody has", func(t *testing.T) {
		g := newAOGen(t)
		llSession(g, "x", 1000, aoSigner{md5: []byte("a third key")}, aoSigner{md5: []byte("a third key")})
		d := make([]uint32, len(g.pkts))
		for i := range d {
			d[i] = 1
		}
		f := write("unknown.pcapng", llPcapng([]string{""}, g.pkts, make([]int, len(g.pkts)), d))
		st, m := run(t, Offline{Peers: peers}, f)
		if len(m) != 0 || st.LinkLocalUnattributed != uint64(len(g.pkts)) {
			t.Errorf("%+v %+v", st, m)
		}
	})
}

// TestMergeStatusInterfacePeers: an interface peer's /status entry gets
// the report of its learnt address, or, before it is learnt, its
// interface's latest; its interface's other addresses are added with the
// interface and VRF.
func TestMergeStatusInterfacePeers(t *testing.T) {
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	rep := func(addr, iface, vrf, diag string, last time.Time) PeerReport {
		return PeerReport{Address: netip.MustParseAddr(addr), PeerID: iface, Interface: iface, VRF: vrf, Diagnosis: diag, Last: last}
	}
	reps := map[string]PeerReport{
		"fe80::2%eth1": rep("fe80::2%eth1", "eth1", "", DiagOK, at),
		"fe80::2%eth2": rep("fe80::2%eth2", "eth2", "blue", DiagBadDigest, at),
		"fe80::9%eth2": rep("fe80::9%eth2", "eth2", "blue", DiagMissing, at.Add(time.Second)),
	}
	st := status.Status{Peers: []status.Peer{
		{Address: "fe80::2%eth1", Interface: "eth1", ASN: 65002, Auth: status.Auth{Mode: "md5"}},
		{Address: "", Interface: "eth2", VRF: "blue", ASN: 65003, Auth: status.Auth{Mode: "md5"}},
	}}
	MergeStatus(&st, reps)
	got := map[string]string{}
	for _, p := range st.Peers {
		got[p.Address+" "+p.Interface+" "+p.VRF] = p.Shadow.Diagnosis
	}
	want := map[string]string{
		"fe80::2%eth1 eth1 ":     DiagOK,
		" eth2 blue":             DiagMissing,   // the latest of eth2's link
		"fe80::2%eth2 eth2 blue": DiagBadDigest, // added beside it
	}
	if len(got) != len(want) {
		t.Fatalf("%v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%q: %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
	if p := st.Peers[2]; p.ASN != 65003 || p.Prefix != "" || p.Auth.Mode != "md5" {
		t.Errorf("added entry %+v", p)
	}
}

// BenchmarkLinkLocalHandle is the live path of one received keepalive
// (decode, interface name, zone, check) through Runner.handle, for a
// global and a link-local peer: the link-local one pays for the
// interface's name and the zoned address (both cached).
func BenchmarkLinkLocalHandle(b *testing.B) {
	for _, remote := range []string{"2001:db8::2", "fe80::2"} {
		b.Run(remote, func(b *testing.B) {
			ra := netip.MustParseAddr(remote)
			la := netip.MustParseAddr("2001:db8::1")
			if IsLinkLocal(ra) {
				la = llLocal
			}
			g := newAOGen(b)
			c := g.conn("bench", netip.AddrPortFrom(ra, 40000), netip.AddrPortFrom(la, 179), 1, 2, aoSigner{md5: []byte(llKey1)}, aoSigner{md5: []byte(llKey1)})
			c.send(true, fPSH|fACK, bgpMsg(4, 0), "")
			peer := addrPeer(remote, pw(llKey1))
			if IsLinkLocal(ra) {
				peer = ifPeer("eth1", pw(llKey1))
			}
			chk := New([]Peer{peer}, Options{})
			r := &Runner{srh: noSRH{}}
			w := &worker{names: ifNames{resolve: func(int) (string, error) { return "eth1", nil }}}
			pkt := capture.Packet{Data: g.pkts[0].frame, LinkType: frame.LinkEthernet, IfIndex: 3, Time: g.pkts[0].t}
			chk.Begin()
			r.handle(chk, w, pkt)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				r.handle(chk, w, pkt)
			}
			b.StopTimer()
			chk.End()
			if reps := chk.Reports(time.Time{}); len(reps) != 1 || reps[0].Received.Valid != uint64(b.N)+1 {
				b.Fatalf("%+v", reps)
			}
		})
	}
}

// sll2Pcap writes pkts as a pcap of Linux cooked v2 frames (tcpdump -i
// any): each with the interface index of its link (3 eth1, 4 eth2) and
// its packet type (outgoing for ours).
func sll2Pcap(t testing.TB, pkts []aoPacket, ifs []int, dirs []uint32) []byte {
	le := binary.LittleEndian
	out := le.AppendUint32(nil, 0xa1b2c3d4)
	out = le.AppendUint16(out, 2)
	out = le.AppendUint16(out, 4)
	out = append(out, make([]byte, 8)...)
	out = le.AppendUint32(out, 65535)
	out = le.AppendUint32(out, frame.LinkLinuxSLL2)
	for i, p := range pkts {
		h := make([]byte, 20)
		copy(h[0:2], p.frame[12:14]) // the EtherType
		binary.BigEndian.PutUint32(h[4:8], uint32(3+ifs[i]))
		h[8], h[9] = 0, 1 // ARPHRD_ETHER
		if dirs[i] == 2 {
			h[10] = frame.PacketOutgoing
		}
		h[11] = 6
		copy(h[12:18], p.frame[6:12])
		f := append(h, p.frame[14:]...)
		out = le.AppendUint32(out, uint32(p.t.Unix()))
		out = le.AppendUint32(out, uint32(p.t.Nanosecond()/1000))
		out = le.AppendUint32(out, uint32(len(f)))
		out = le.AppendUint32(out, uint32(len(f)))
		out = append(out, f...)
	}
	return out
}

// TestOfflineSLL2: an SLL2 capture gives the interface's index and the
// direction; the index is a name only when Offline.IfNames says it.
func TestOfflineSLL2(t *testing.T) {
	pkts, ifs, dirs := llCapture(t)
	f := filepath.Join(t.TempDir(), "any.pcap")
	if err := os.WriteFile(f, sll2Pcap(t, pkts, ifs, dirs), 0o644); err != nil {
		t.Fatal(err)
	}
	peers := []Peer{ifPeer("eth1", pw(llKey1)), ifPeer("eth2", pw(llKey2))}
	o := Offline{Peers: peers, Options: Options{IdleAfter: -1}, IfNames: map[int]string{3: "eth1", 4: "eth2"}}
	st, reps, err := o.Run([]string{f})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range reps {
		got[r.Address.String()] = r.Diagnosis
	}
	if len(got) != 2 || got["fe80::2%eth1"] != DiagOK || got["fe80::2%eth2"] != DiagBadDigest || st[0].LinkLocalNoInterface != 0 || st[0].Checked != uint64(len(pkts)) {
		t.Fatalf("named indexes: %v %+v", got, st[0])
	}
	o.IfNames = nil
	st, reps, err = o.Run([]string{f})
	if err != nil {
		t.Fatal(err)
	}
	if st[0].LinkLocalNoInterface != uint64(len(pkts)) || st[0].LinkLocalUnknownEnd != 0 {
		t.Fatalf("unnamed indexes: %+v", st[0])
	}
	for _, r := range reps {
		if r.Address.String() == "fe80::2%eth2" && r.Received != (Counts{}) {
			t.Fatalf("unnamed indexes: eth2 given received segments: %+v", r)
		}
	}
}
