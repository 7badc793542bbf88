package shadow

import (
	"encoding/binary"
	"net/netip"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/frame"
	"github.com/authbgp/authbgpd/tcpao"
)

// The ISNs of the fuzzed connection: those of the generated capture's
// 192.0.2.10 session, whose segments seed the fuzzer.
const fuzzISNPeer, fuzzISNLocal = 0x1000_0001, 0x2000_0002

// fuzzAOChecker returns a checker with the generated captures' peers that
// has seen the handshake of the rig's connection (peer 192.0.2.10:50110,
// us 192.0.2.1:179), so fuzzed segments reach the MAC.
func fuzzAOChecker(t testing.TB) *Checker {
	g := newAOGen(t)
	k := mkt(tcpao.HMACSHA1, "sha1", 1, 1, true)
	c := g.conn("fuzz", ap(aoRigPeer, 50110), netip.AddrPortFrom(aoLocal4, 179), fuzzISNPeer, fuzzISNLocal,
		aoSigner{mkts: []tcpao.MasterKey{k}, rnext: 1, ts: true}, aoSigner{mkts: []tcpao.MasterKey{k}, rnext: 1, ts: true})
	c.send(true, fSYN, nil, "valid")
	c.send(false, fSYN|fACK, nil, "sent:valid")
	chk := New(aoPeers(t), Options{IdleAfter: -1})
	for _, p := range g.pkts {
		feed(t, chk, p)
	}
	return chk
}

// FuzzCheckAO feeds arbitrary TCP segments (header, options, payload:
// untrusted bytes off the wire) to the checker's TCP-AO path, received
// (out false) or ours, on a connection whose handshake it saw. It must not
// panic, must give a known verdict, must be deterministic, and must never
// call valid a segment that package tcpao's own Keys.Verify refuses.
//
//	go test -run='^$' -fuzz=FuzzCheckAO -fuzztime=30s ./shadow
func FuzzCheckAO(f *testing.F) {
	mixed, _ := generateAO(f)
	for _, p := range mixed[:40] {
		var tcp frame.TCP
		if frame.DecodeTCP(frame.LinkEthernet, p.frame, &tcp) == nil && (tcp.Src == netip.MustParseAddr(aoRigPeer) || tcp.Dst == netip.MustParseAddr(aoRigPeer)) {
			f.Add(tcp.Src != netip.MustParseAddr(aoRigPeer), tcp.Segment)
		}
	}
	peer, local := netip.MustParseAddr(aoRigPeer), aoLocal4
	k := mkt(tcpao.HMACSHA1, "sha1", 1, 1, true)
	f.Fuzz(func(t *testing.T, out bool, seg []byte) {
		if len(seg) < 20 || int(seg[12]>>4)*4 < 20 || int(seg[12]>>4)*4 > len(seg) {
			return // frame.DecodeTCP never hands such a segment over
		}
		src, dst, sport, dport := peer, local, binary.BigEndian.Uint16(seg[0:]), binary.BigEndian.Uint16(seg[2:])
		if out {
			src, dst = local, peer
		}
		now := time.Unix(1, 0)
		var rs [2]Result
		for i := range rs {
			c := fuzzAOChecker(t)
			rs[i] = c.Check(src, dst, sport, dport, seg, now)
			c.Reports(now)
		}
		r := rs[0]
		if r != rs[1] {
			t.Fatalf("not deterministic: %+v, %+v", rs[0], rs[1])
		}
		switch r.Verdict {
		case Ignored, Valid, Missing, Unexpected, Malformed, BadMAC, UnknownKey, NoHandshake:
		default:
			t.Fatalf("verdict %v", r.Verdict)
		}
		if r.Verdict == Valid && sport != 179 && dport != 179 {
			t.Fatalf("valid off the BGP port: %+v", r)
		}
		// A valid verdict on the connection's ends is a MAC package tcpao
		// accepts too, with the ISNs the checker knows (a SYN or SYN-ACK
		// brings its own) and the SNE its sequence number has.
		onConn := (out && sport == 179 && dport == 50110) || (!out && sport == 50110 && dport == 179)
		if r.Verdict == Valid && onConn {
			d, isnL, isnR := tcpao.Receive, uint32(fuzzISNLocal), uint32(fuzzISNPeer)
			seq, ack := binary.BigEndian.Uint32(seg[4:]), binary.BigEndian.Uint32(seg[8:])
			if out {
				d = tcpao.Send
			}
			switch {
			case seg[13]&0x12 == 0x02 && out:
				isnL = seq
			case seg[13]&0x12 == 0x02:
				isnR = seq
			case seg[13]&0x12 == 0x12 && out:
				isnL, isnR = seq, ack-1
			case seg[13]&0x12 == 0x12:
				isnL, isnR = ack-1, seq
			}
			isn := isnR
			if out {
				isn = isnL
			}
			tr := tcpao.NewSNETracker(isn)
			keys, err := k.Keys(tcpao.Connection{Local: netip.AddrPortFrom(local, 179), Remote: netip.AddrPortFrom(peer, 50110), LocalISN: isnL, RemoteISN: isnR})
			if err != nil {
				t.Fatal(err)
			}
			if err := keys.Verify(d, tr.SNE(seq), tcpao.Segment{Src: src, Dst: dst, TCP: seg}); err != nil {
				t.Fatalf("checker says valid, tcpao says %v", err)
			}
		}
	})
}
