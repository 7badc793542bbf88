package shadow

import (
	"bytes"
	"crypto/md5"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/capture/capfile"
	"github.com/authbgp/authbgpd/frame"
)

// Real captures (see e2e/testdata/README): FRR 192.0.2.1 <-> gobgpd
// 192.0.2.2, every segment signed with e2eKey except one unsigned SYN from
// FRR's address.
const (
	e2eKey  = "authbgpd-e2e-md5-key"
	capV4   = "../e2e/testdata/frr-gobgpd-md5-v4.pcap"
	capV6   = "../e2e/testdata/frr-gobgpd-md5-v6.pcap"
	wrongK  = "not-the-key"
	farPast = "2000-01-01T00:00:00Z"
)

func addrPeer(a string, keys ...Key) Peer {
	ad := netip.MustParseAddr(a)
	return Peer{ID: a, Prefix: netip.PrefixFrom(ad, ad.BitLen()), Keys: keys, Pinned: -1}
}

func pw(s string) Key { return Key{ID: -1, Secret: []byte(s)} }

func run(t *testing.T, file string, c *Checker) FileStats {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := ReadCapture(f, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func report(t *testing.T, c *Checker, addr string) PeerReport {
	t.Helper()
	for _, r := range c.Reports(time.Time{}) {
		if r.Address.String() == addr {
			return r
		}
	}
	t.Fatalf("no report for %s", addr)
	return PeerReport{}
}

func TestRealCaptureRightKey(t *testing.T) {
	for _, tc := range []struct{ file, frr, gobgp string }{
		{capV4, "192.0.2.1", "192.0.2.2"},
		{capV6, "2001:db8::1", "2001:db8::2"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			// As FRR sees it: the peer is gobgpd.
			c := New([]Peer{addrPeer(tc.gobgp, pw(e2eKey))}, Options{})
			st := run(t, tc.file, c)
			r := report(t, c, tc.gobgp)
			if r.Diagnosis != DiagOK || r.Received.Valid < 5 || r.Received.BadDigest+r.Received.Missing+r.Received.Unexpected != 0 {
				t.Fatalf("as FRR: %+v (file %+v)", r, st)
			}
			if r.Sent.Valid < 5 || r.Sent.Unsigned != 1 || r.Sent.Invalid != 0 {
				t.Fatalf("as FRR, own segments: %+v", r.Sent)
			}
			// As gobgpd sees it: the unsigned SYN is "missing", the
			// rest valid; hysteresis keeps the diagnosis ok.
			c = New([]Peer{addrPeer(tc.frr, pw(e2eKey))}, Options{})
			run(t, tc.file, c)
			r = report(t, c, tc.frr)
			if r.Diagnosis != DiagOK || r.Received.Missing != 1 || r.Received.Valid < 5 {
				t.Fatalf("as gobgpd: %+v", r)
			}
		})
	}
}

func TestRealCaptureDiagnoses(t *testing.T) {
	past, _ := time.Parse(time.RFC3339, farPast)
	future := time.Now().Add(1000 * time.Hour)
	cases := []struct {
		name      string
		peer      Peer
		diag      string
		peerKeyID int
		rollover  bool
	}{
		{"wrong-key", addrPeer("192.0.2.2", pw(wrongK)), DiagBadDigest, -1, false},
		{"no-key", addrPeer("192.0.2.2"), DiagUnexpected, -1, false},
		// Our active key (1) is wrong; the peer uses key 2 of the chain,
		// which is scheduled later than key 1: proven rollover.
		{"other-key-newer", addrPeer("192.0.2.2", Key{ID: 1, Secret: []byte(wrongK), SendFrom: past}, Key{ID: 2, Secret: []byte(e2eKey), SendFrom: future}), DiagOtherKey, 2, true},
		// The peer is still on the old key 1 while we moved to 2: other
		// key, but no rollover (it is not newer).
		{"other-key-older", addrPeer("192.0.2.2", Key{ID: 1, Secret: []byte(e2eKey), SendFrom: past}, Key{ID: 2, Secret: []byte(wrongK), SendFrom: past.Add(time.Hour)}), DiagOtherKey, 1, false},
		{"keychain-right", addrPeer("192.0.2.2", Key{ID: 7, Secret: []byte(e2eKey)}), DiagOK, -1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var changes []PeerReport
			var rolled []int
			c := New([]Peer{tc.peer}, Options{
				OnChange:   func(r PeerReport) { changes = append(changes, r) },
				OnRollover: func(id string, k int) { rolled = append(rolled, k) },
			})
			run(t, capV4, c)
			r := report(t, c, "192.0.2.2")
			if r.Diagnosis != tc.diag {
				t.Fatalf("diagnosis %q, want %q (%+v)", r.Diagnosis, tc.diag, r)
			}
			if (r.PeerKeyID == nil) != (tc.peerKeyID < 0) || (r.PeerKeyID != nil && *r.PeerKeyID != tc.peerKeyID) {
				t.Fatalf("peer key id %v, want %d", r.PeerKeyID, tc.peerKeyID)
			}
			if len(changes) != 1 || changes[0].Diagnosis != tc.diag {
				t.Fatalf("OnChange calls %+v, want one to %s", changes, tc.diag)
			}
			if (len(rolled) == 1 && rolled[0] == tc.peerKeyID) != tc.rollover || len(rolled) > 1 {
				t.Fatalf("rollover callbacks %v, want rollover=%v", rolled, tc.rollover)
			}
			if tc.diag == DiagBadDigest && (r.Received.BadDigest < 5 || r.Received.Valid != 0) {
				t.Fatalf("counts %+v", r.Received)
			}
		})
	}
}

func TestMissingOnUnsignedSession(t *testing.T) {
	// basic_usec.pcap: an unsigned TCP exchange on port 179 between
	// 192.0.2.1 and 192.0.2.2 (see capfile/testdata).
	c := New([]Peer{addrPeer("192.0.2.1", pw("k")), addrPeer("192.0.2.2", pw("k"))}, Options{})
	run(t, "../capture/capfile/testdata/basic_usec.pcap", c)
	reps := c.Reports(time.Time{})
	if len(reps) == 0 {
		t.Fatal("no reports")
	}
	for _, r := range reps {
		if r.Diagnosis != DiagMissing || r.Received.Missing == 0 {
			t.Fatalf("%+v", r)
		}
	}
	// Without keys an unsigned session is nothing to report.
	c = New([]Peer{addrPeer("192.0.2.1"), addrPeer("192.0.2.2")}, Options{})
	run(t, "../capture/capfile/testdata/basic_usec.pcap", c)
	if reps := c.Reports(time.Time{}); len(reps) != 0 {
		t.Fatalf("unkeyed unsigned session reported: %+v", reps)
	}
}

func TestDynamicRangeLongestMatch(t *testing.T) {
	wide := Peer{ID: "192.0.2.0/24", Prefix: netip.MustParsePrefix("192.0.2.0/24"), Keys: []Key{pw(wrongK)}, Pinned: -1}
	narrow := Peer{ID: "192.0.2.0/30", Prefix: netip.MustParsePrefix("192.0.2.0/30"), Keys: []Key{pw(e2eKey)}, Pinned: -1}
	c := New([]Peer{wide, narrow}, Options{})
	run(t, capV4, c)
	for _, r := range c.Reports(time.Time{}) {
		if r.PeerID != "192.0.2.0/30" || r.Diagnosis != DiagOK {
			t.Fatalf("%+v", r)
		}
	}
}

func TestIdleBecomesNoTraffic(t *testing.T) {
	c := New([]Peer{addrPeer("192.0.2.2", pw(e2eKey))}, Options{IdleAfter: time.Minute})
	run(t, capV4, c)
	r := report(t, c, "192.0.2.2")
	if got := c.Reports(r.Last.Add(2 * time.Minute)); got[0].Diagnosis != DiagNoTraffic {
		t.Fatalf("after idle: %+v", got[0])
	}
}

func TestTruncatedCaptureIsError(t *testing.T) {
	b, err := os.ReadFile(capV4)
	if err != nil {
		t.Fatal(err)
	}
	c := New(nil, Options{})
	if _, err := ReadCapture(bytes.NewReader(b[:len(b)-7]), c, nil); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("truncated: %v", err)
	}
	if _, err := ReadCapture(bytes.NewReader([]byte("not a capture file at all")), c, nil); !errors.Is(err, capfile.ErrUnknownFormat) {
		t.Fatalf("garbage: %v", err)
	}
}

// loadSegments returns the decoded BGP segments of a capture.
func loadSegments(t testing.TB, file string) []frame.TCP {
	var out []frame.TCP
	err := capfile.EachFile(file, func(p capfile.Packet) error {
		var tcp frame.TCP
		if frame.DecodeTCP(p.LinkType, bytes.Clone(p.Data), &tcp) == nil {
			out = append(out, tcp)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCheckZeroAllocs(t *testing.T) {
	segs := loadSegments(t, capV4)
	c := New([]Peer{addrPeer("192.0.2.2", pw(e2eKey)), addrPeer("192.0.2.1", pw(e2eKey))}, Options{})
	now := time.Now()
	for _, s := range segs { // create per-address state first
		c.Check(s.Src, s.Dst, s.SrcPort, s.DstPort, s.Segment, now)
	}
	if n := testing.AllocsPerRun(50, func() {
		for _, s := range segs {
			c.Check(s.Src, s.Dst, s.SrcPort, s.DstPort, s.Segment, now)
		}
	}); n != 0 {
		t.Fatalf("%v allocations per capture pass, want 0", n)
	}
	if n := testing.AllocsPerRun(50, func() {
		c.Begin()
		for _, s := range segs {
			c.CheckHeld(s.Src, s.Dst, s.SrcPort, s.DstPort, s.Segment, now)
		}
		c.End()
	}); n != 0 {
		t.Fatalf("%v allocations per batched capture pass, want 0", n)
	}
}

var sink [16]byte

// BenchmarkVerifyPath measures the per-segment live path (frame decode +
// peer lookup + option scan + digest + counters, the checker's lock taken
// once per ring block as the Runner does) on a real signed UPDATE
// segment padded to each size, against md5.Sum over the bytes the digest
// covers, timed in interleaved chunks of the same run ("x-md5floor";
// target ≤ 1.15).
func BenchmarkVerifyPath(b *testing.B) {
	for _, payload := range []int{19, 140, 1440} {
		b.Run(fmt.Sprint(payload), func(b *testing.B) {
			frm, covered := signedFrame(b, payload)
			c := New([]Peer{addrPeer("192.0.2.2", pw(e2eKey))}, Options{})
			var tcp frame.TCP
			now := time.Now()
			b.ReportAllocs()
			b.SetBytes(int64(len(covered)))
			var el, floor time.Duration
			for done := 0; done < b.N; {
				k := min(4096, b.N-done)
				t0 := time.Now()
				c.Begin()
				for i := 0; i < k; i++ {
					if err := frame.DecodeTCP(frame.LinkEthernet, frm, &tcp); err != nil {
						b.Fatal(err)
					}
					if r := c.CheckHeld(tcp.Src, tcp.Dst, tcp.SrcPort, tcp.DstPort, tcp.Segment, now); r.Verdict != Valid {
						b.Fatalf("verdict %v", r.Verdict)
					}
				}
				c.End()
				t1 := time.Now()
				b.StopTimer() // it reads the memory statistics: in neither interval
				f0 := time.Now()
				for i := 0; i < k; i++ {
					sink = md5.Sum(covered)
				}
				t2 := time.Now()
				b.StartTimer()
				el += t1.Sub(t0)
				floor += t2.Sub(f0)
				done += k
			}
			b.ReportMetric(float64(el)/float64(floor), "x-md5floor")
		})
	}
}
