package shadow

import (
	"encoding/binary"
	"net/netip"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/md5auth"
)

// signedSegment returns a BGP keepalive segment from src:sport to
// dst:dport signed with key.
func signedSegment(t *testing.T, src, dst netip.Addr, sport, dport uint16, key string) []byte {
	t.Helper()
	seg := make([]byte, 40+19)
	binary.BigEndian.PutUint16(seg[0:], sport)
	binary.BigEndian.PutUint16(seg[2:], dport)
	seg[12] = 10 << 4
	seg[13] = 0x18
	copy(seg[20:], []byte{1, 1, 19, 18})
	for i := 40; i < 56; i++ {
		seg[i] = 0xff
	}
	seg[57] = 19
	seg[58] = 4
	sig, err := md5auth.NewDigester().Sum(nil, src, dst, seg, []byte(key))
	if err != nil {
		t.Fatal(err)
	}
	copy(seg[24:40], sig)
	return seg
}

// TestPreparedHeaderFollowsLocalAddress: the checker keeps one prepared
// pseudo-header per remote address and direction; segments between the
// peer and two of our addresses, both ways, interleaved, must each be
// checked against their own addresses, not the last prepared ones.
func TestPreparedHeaderFollowsLocalAddress(t *testing.T) {
	for _, fam := range []struct{ peer, l1, l2 string }{
		{"192.0.2.2", "192.0.2.1", "192.0.2.9"},
		{"2001:db8::2", "2001:db8::1", "2001:db8::9"},
	} {
		peer := netip.MustParseAddr(fam.peer)
		locals := []netip.Addr{netip.MustParseAddr(fam.l1), netip.MustParseAddr(fam.l2)}
		c := New([]Peer{addrPeer(fam.peer, pw(e2eKey))}, Options{})
		now := time.Now()
		for round := 0; round < 3; round++ {
			for _, l := range locals {
				in := signedSegment(t, peer, l, 179, 40000, e2eKey)
				if r := c.Check(peer, l, 179, 40000, in, now); r.Verdict != Valid || r.Outgoing {
					t.Fatalf("%v -> %v: %+v, want valid received", peer, l, r)
				}
				out := signedSegment(t, l, peer, 40000, 179, e2eKey)
				if r := c.Check(l, peer, 40000, 179, out, now); r.Verdict != Valid || !r.Outgoing {
					t.Fatalf("%v -> %v: %+v, want valid sent", l, peer, r)
				}
				// Signed for the other local address: the header in use
				// must be this one's.
				other := locals[0]
				if l == other {
					other = locals[1]
				}
				wrong := signedSegment(t, peer, other, 179, 40000, e2eKey)
				if r := c.Check(peer, l, 179, 40000, wrong, now); r.Verdict != BadDigest {
					t.Fatalf("%v -> %v signed for %v: %+v, want bad digest", peer, l, other, r)
				}
			}
		}
		r := report(t, c, fam.peer)
		if r.Received.Valid != 6 || r.Received.BadDigest != 6 || r.Sent.Valid != 6 {
			t.Fatalf("%s: counts %+v / %+v", fam.peer, r.Received, r.Sent)
		}
		// A 4-in-6-mapped view of the same segments is checked as IPv4.
		if peer.Is4() {
			m, l := netip.AddrFrom16(peer.As16()), netip.AddrFrom16(locals[0].As16())
			in := signedSegment(t, peer, locals[0], 179, 40000, e2eKey)
			if r := c.Check(m, l, 179, 40000, in, now); r.Verdict != Valid {
				t.Fatalf("4-in-6: %+v", r)
			}
		}
	}
}
