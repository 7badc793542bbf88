package shadow

import (
	"net/netip"
	"reflect"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/md5auth"
)

// TestMergeReports: a peer whose segments reach two of our addresses is
// seen by two workers (one per address pair). Merged, their reports must
// say what one checker seeing every segment says: the same counts, and the
// diagnosis of the peer's latest traffic.
func TestMergeReports(t *testing.T) {
	peers := []Peer{addrPeer("192.0.2.10", pw("pw")), addrPeer("192.0.2.20", pw("pw"))}
	remote, other := netip.MustParseAddr("192.0.2.10"), netip.MustParseAddr("192.0.2.20")
	l1, l2 := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.3")
	d := md5auth.NewDigester()
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	type seg struct {
		src, dst netip.Addr
		key      string
	}
	// Each case: segments to our first address, then to our second
	// (later), and the diagnosis a single checker ends with.
	for _, tc := range []struct {
		name         string
		first, later []seg
		want         string
	}{
		{"wrong key later", []seg{{remote, l1, "pw"}, {remote, l1, "pw"}, {remote, l1, "pw"}, {l1, remote, "pw"}, {remote, l1, "pw"}},
			[]seg{{remote, l2, "bad"}, {remote, l2, "bad"}, {remote, l2, "bad"}, {remote, l2, "bad"}}, DiagBadDigest},
		{"right key later", []seg{{remote, l1, "bad"}, {remote, l1, "bad"}, {remote, l1, "bad"}, {other, l1, ""}},
			[]seg{{remote, l2, "pw"}, {remote, l2, "pw"}, {l2, remote, ""}, {remote, l2, "pw"}, {remote, l2, "pw"}}, DiagOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			one := New(peers, Options{})
			a, b := New(peers, Options{}), New(peers, Options{})
			// SetSession prepares state on every worker, as the
			// Runner does.
			for _, c := range []*Checker{one, a, b} {
				c.SetSession(other, 40001)
			}
			now := t0
			feed := func(c *Checker, ss []seg) {
				for _, s := range ss {
					var key []byte
					if s.key != "" {
						key = []byte(s.key)
					}
					pkt := rawSegment(t, d, s.src, s.dst, 179, 40000, key, 19)
					now = now.Add(time.Millisecond)
					for _, x := range []*Checker{one, c} {
						x.Check(s.src, s.dst, 179, 40000, pkt[20:], now)
					}
				}
			}
			feed(a, tc.first)
			feed(b, tc.later)
			want := one.Reports(now)
			got := MergeReports(a.Reports(now), b.Reports(now))
			if !reflect.DeepEqual(got, want) {
				t.Errorf("merged:\n%+v\none checker:\n%+v", got, want)
			}
			if r := got[0]; r.Address != remote || r.Diagnosis != tc.want {
				t.Errorf("%v: diagnosis %s, want %s", r.Address, r.Diagnosis, tc.want)
			}
			// The order of the lists does not matter.
			if rev := MergeReports(b.Reports(now), a.Reports(now)); !reflect.DeepEqual(rev, want) {
				t.Errorf("merged in the other order:\n%+v", rev)
			}
		})
	}
}
