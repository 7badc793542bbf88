package shadow

import (
	"bytes"
	"encoding/binary"
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/tcpao"
	"github.com/authbgp/authbgpd/tcpopt"
)

// The option lists of issue 27's three named segments (and the fourth
// rule, both mechanisms at once), each a multiple of 4 bytes.
func namedOptionLists() []struct {
	name string
	list []byte
	both bool // ErrMD5AndAO rather than ErrBadOptions
} {
	sig := bytes.Repeat([]byte{0x5a}, 16)
	mac := bytes.Repeat([]byte{0xa5}, 12)
	md5 := tcpopt.AppendMD5(nil, sig)
	ao := tcpopt.AppendAO(nil, 1, 1, mac)
	return []struct {
		name string
		list []byte
		both bool
	}{
		{"two-md5", append(bytes.Clone(md5), md5...), false},
		{"md5-length-17", append(append([]byte{tcpopt.KindNOP, tcpopt.KindNOP, tcpopt.KindMD5, 17}, sig[:15]...), tcpopt.KindNOP), false},
		{"two-ao", append(bytes.Clone(ao), ao...), false},
		{"md5-and-ao", append(append(bytes.Clone(md5), tcpopt.KindNOP, tcpopt.KindNOP), ao...), true},
	}
}

// optSegment is a keepalive from src to dst:179 with the option list.
func optSegment(src, dst netip.Addr, sport uint16, list []byte) []byte {
	seg := make([]byte, 20, 20+len(list)+19)
	be := binary.BigEndian
	be.PutUint16(seg[0:], sport)
	be.PutUint16(seg[2:], 179)
	be.PutUint32(seg[4:], 1000)
	be.PutUint32(seg[8:], 2000)
	seg[12] = byte((20+len(list))/4) << 4
	seg[13] = fACK | fPSH
	be.PutUint16(seg[14:], 65535)
	seg = append(seg, list...)
	seg = append(seg, bgpMsg(4, 0)...)
	be.PutUint16(seg[16:], tcpChecksum(src, dst, seg))
	return seg
}

// TestOneOptionVerdict: a segment with two TCP-MD5 options, a TCP-MD5
// option of length 17, two TCP-AO options, or TCP-MD5 and TCP-AO together
// gets one verdict from every part: md5auth's parser and digest check
// refuse it, so does tcpao's, and the shadow checker calls it malformed,
// from a TCP-MD5 peer or a TCP-AO peer, live (Checker.Check) and in
// verify-pcap (ReadCapture, and Offline.Run on a pcap file).
func TestOneOptionVerdict(t *testing.T) {
	local := aoLocal4
	md5Peer, aoPeer := netip.MustParseAddr("192.0.2.2"), netip.MustParseAddr(aoRigPeer)
	peers := append(aoPeers(t), addrPeer(md5Peer.String(), pw(e2eKey)))
	var pkts []aoPacket
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	type want struct{ name, peer string }
	var wants []want
	for _, l := range namedOptionLists() {
		for _, from := range []netip.Addr{md5Peer, aoPeer} {
			seg := optSegment(from, local, 50179, l.list)
			sentinel := tcpopt.ErrBadOptions
			if l.both {
				sentinel = tcpopt.ErrMD5AndAO
			}
			// md5auth: the parser, the signature and the digest check.
			if _, err := md5auth.SegmentOptions(seg); !errors.Is(err, sentinel) {
				t.Errorf("%s: md5auth.SegmentOptions: %v, want %v", l.name, err, sentinel)
			}
			if sig, err := md5auth.SignatureOf(seg); sig != nil || !errors.Is(err, sentinel) {
				t.Errorf("%s: md5auth.SignatureOf: %x, %v", l.name, sig, err)
			}
			if v, err := md5auth.NewDigester().Check(from, local, seg, []byte(e2eKey)); v != md5auth.Unsigned || !errors.Is(err, sentinel) {
				t.Errorf("%s: md5auth Check: %v, %v", l.name, v, err)
			}
			// tcpao's parser.
			if _, err := tcpao.SegmentOptions(seg); !errors.Is(err, sentinel) {
				t.Errorf("%s: tcpao.SegmentOptions: %v, want %v", l.name, err, sentinel)
			}
			// The live shadow.
			c := New(peers, Options{IdleAfter: -1})
			if r := c.Check(from, local, 50179, 179, seg, now); r.Verdict != Malformed || r.PeerID == "" {
				t.Errorf("%s from %v: live checker: %v (peer %q), want malformed", l.name, from, r.Verdict, r.PeerID)
			}
			now = now.Add(time.Millisecond)
			pkts = append(pkts, aoPacket{t: now, frame: ethernet(from, local, seg)})
			wants = append(wants, want{l.name, from.String()})
		}
	}
	capture := pcapBytes(pkts)

	// verify-pcap, one reader (ReadCapture) and on every core
	// (Offline.Run, what cmd/authbgpd's verify-pcap runs): every segment
	// is checked as a configured peer's and none is counted as anything
	// (a malformed segment is in no count: not valid, not missing, not a
	// bad digest or MAC).
	opts := Options{Port: 179, IdleAfter: -1}
	c := New(peers, opts)
	st, err := ReadCapture(bytes.NewReader(capture), c, nil)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "named.pcap")
	if err := os.WriteFile(file, capture, 0o600); err != nil {
		t.Fatal(err)
	}
	sts, reps, err := Offline{Peers: peers, Options: opts}.Run([]string{file})
	if err != nil {
		t.Fatal(err)
	}
	for what, r := range map[string]struct {
		st   FileStats
		reps []PeerReport
	}{"ReadCapture": {st, c.Reports(time.Time{})}, "Offline.Run": {sts[0], reps}} {
		if r.st.Checked != uint64(len(wants)) {
			t.Errorf("verify-pcap (%s): %d segments checked, want %d", what, r.st.Checked, len(wants))
		}
		for _, rep := range r.reps {
			if rc, sc := rep.Received, rep.Sent; rc != (Counts{}) || sc != (Sent{}) {
				t.Errorf("verify-pcap (%s): %v counted a malformed segment: received %+v, sent %+v", what, rep.Address, rc, sc)
			}
		}
	}
}
