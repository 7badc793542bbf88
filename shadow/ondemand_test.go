package shadow

import (
	"encoding/binary"
	"io"
	"net/netip"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/peerindex"
)

var (
	odT0   = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	odA    = netip.MustParseAddr("192.0.2.6")
	odB    = netip.MustParseAddr("2001:db8::6")
	odC    = netip.MustParseAddr("192.0.2.7")
	odUs   = netip.MustParseAddr("192.0.2.1")
	odSecs = func(n float64) time.Time { return odT0.Add(time.Duration(n * float64(time.Second))) }
)

func hostsOf(b *demandBook) []string {
	var out []string
	for _, a := range b.hosts() {
		out = append(out, a.String())
	}
	return out
}

// TestDemandBookWindow: a demand lasts one window; a second demand for
// the same address while it runs, or within the cool-down (one window)
// after it ended, is refused and changes nothing; after the cool-down it
// is accepted again. Other addresses join the running set.
func TestDemandBookWindow(t *testing.T) {
	b := newDemandBook(20*time.Second, 1000)
	d, why := b.begin(odA, "bad digest", odT0)
	if d == nil || d.until != odSecs(20) || d.since != odT0 || d.why != "bad digest" || d.limit != 1000 {
		t.Fatalf("begin: %+v %q", d, why)
	}
	// Again, also spelt IPv4-mapped: refused, the window is not extended.
	for _, a := range []netip.Addr{odA, netip.AddrFrom16(odA.As16())} {
		if d2, why := b.begin(a, "again", odSecs(1)); d2 != nil || !strings.Contains(why, "being captured already") {
			t.Errorf("second begin of %v: %v %q", a, d2, why)
		}
	}
	if d.until != odSecs(20) || d.why != "bad digest" {
		t.Errorf("the refused demand changed the running one: %+v", d)
	}
	if d2, _ := b.begin(odB, "missing", odSecs(5)); d2 == nil {
		t.Fatal("a second address is refused")
	}
	if got := hostsOf(b); !slices.Equal(got, []string{"192.0.2.6", "2001:db8::6"}) {
		t.Errorf("hosts %v", got)
	}
	if n := b.next(); n != odSecs(20) {
		t.Errorf("next %v", n)
	}
	if e := b.expire(odSecs(19.999)); len(e) != 0 {
		t.Errorf("expired early: %v", e)
	}
	e := b.expire(odSecs(20))
	if len(e) != 1 || e[0] != d {
		t.Fatalf("expire at the window's end: %v", e)
	}
	if got := hostsOf(b); !slices.Equal(got, []string{"2001:db8::6"}) || b.next() != odSecs(25) {
		t.Errorf("after the first end: hosts %v next %v", got, b.next())
	}
	// The cool-down: one window after the end.
	for _, at := range []float64{20, 21, 39.999} {
		if d2, why := b.begin(odA, "still dropping", odSecs(at)); d2 != nil || !strings.Contains(why, "cooling down until 2030-01-01T00:00:40Z") {
			t.Errorf("begin at %vs, in the cool-down: %v %q", at, d2, why)
		}
	}
	if e := b.expire(odSecs(25)); len(e) != 1 || e[0].addr != odB || len(b.hosts()) != 0 || !b.next().IsZero() {
		t.Errorf("second end: %v, hosts %v, next %v", e, b.hosts(), b.next())
	}
	d3, why := b.begin(odA, "still dropping", odSecs(40))
	if d3 == nil || d3.until != odSecs(60) {
		t.Fatalf("begin after the cool-down: %v %q", d3, why)
	}
	// configure changes the demands to come, not the running one.
	b.configure(5*time.Second, 10)
	if d3.until != odSecs(60) || d3.limit != 1000 {
		t.Errorf("configure changed a running demand: %+v", d3)
	}
	d4, _ := b.begin(odC, "x", odSecs(41))
	if d4 == nil || d4.until != odSecs(46) || d4.limit != 10 {
		t.Errorf("after configure: %+v", d4)
	}
	if e := b.expire(odSecs(46)); len(e) != 1 || e[0] != d4 {
		t.Errorf("the shorter window: %v", e)
	}
	if d5, _ := b.begin(odC, "x", odSecs(50)); d5 != nil {
		t.Error("the shorter cool-down is not applied")
	}
	if d5, _ := b.begin(odC, "x", odSecs(51)); d5 == nil {
		t.Error("the shorter cool-down is not over after 5 s")
	}
}

// TestDemandBookSegments: a demand ends as soon as its segment bound is
// reached, before its window; the cool-down then runs from that end.
func TestDemandBookSegments(t *testing.T) {
	b := newDemandBook(20*time.Second, 3)
	d, _ := b.begin(odA, "x", odT0)
	d.segs.Add(2)
	if e := b.expire(odSecs(1)); len(e) != 0 {
		t.Fatalf("ended with 2 of 3 segments: %v", e)
	}
	d.segs.Add(1)
	if e := b.expire(odSecs(2)); len(e) != 1 || e[0] != d || d.segments() != 3 {
		t.Fatalf("not ended at its segment bound: %v", e)
	}
	if d2, _ := b.begin(odA, "x", odSecs(21.9)); d2 != nil {
		t.Error("the cool-down after a segment-bound end is not applied")
	}
	if d2, _ := b.begin(odA, "x", odSecs(22)); d2 == nil {
		t.Error("the cool-down does not run from the segment-bound end")
	}
}

// TestDemandBookBounds: at most max addresses at once; a capture that
// could not open (abort) cools down like any other; the end records are
// bounded; the idle clock.
func TestDemandBookBounds(t *testing.T) {
	b := newDemandBook(20*time.Second, 10)
	b.max = 2
	b.begin(odA, "x", odT0)
	b.begin(odB, "x", odT0)
	if d, why := b.begin(odC, "x", odT0); d != nil || !strings.Contains(why, "at most 2") {
		t.Errorf("third address: %v %q", d, why)
	}
	b.abort(odB, odSecs(1))
	if d, _ := b.begin(odB, "x", odSecs(2)); d != nil {
		t.Error("an aborted demand does not cool down")
	}
	if d, _ := b.begin(odC, "x", odSecs(2)); d == nil {
		t.Error("the aborted demand still takes a place")
	}

	// clock: now while captured, the end of the last capture after, now
	// for an address never captured.
	if c := b.clock(odA, odSecs(3)); c != odSecs(3) {
		t.Errorf("clock of a captured address: %v", c)
	}
	if c := b.clock(odB, odSecs(3600)); c != odSecs(1) {
		t.Errorf("clock of an address captured until 1 s: %v", c)
	}
	if c := b.clock(netip.MustParseAddr("192.0.2.99"), odSecs(3)); c != odSecs(3) {
		t.Errorf("clock of an address never captured: %v", c)
	}

	for i := range maxEnded + 10 {
		b.end(netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}), odSecs(float64(10+i)))
	}
	if len(b.ended) > maxEnded {
		t.Errorf("%d end records, at most %d", len(b.ended), maxEnded)
	}
	if _, ok := b.ended[netip.AddrFrom4([4]byte{10, 0, 0, 0})]; ok {
		t.Error("the oldest end record is kept")
	}
}

// TestOnDemandAdmit: only segments to or from an address being captured
// are checked, at most its bound, and reaching the bound asks (once) for
// the capture to end.
func TestOnDemandAdmit(t *testing.T) {
	var ends atomic.Int32
	done := make(chan struct{}, 10)
	od := &onDemand{book: newDemandBook(20*time.Second, 3), expire: func() { ends.Add(1); done <- struct{}{} }}
	if od.admit(odA, odUs) {
		t.Error("admitted before anything is published")
	}
	od.book.begin(odA, "x", odT0)
	od.publish()
	if !od.admit(odA, odUs) || !od.admit(odUs, netip.AddrFrom16(odA.As16())) {
		t.Error("a segment from or to (IPv4-mapped) the captured address is not admitted")
	}
	if od.admit(odC, odUs) || od.admit(odUs, odB) {
		t.Error("a segment of another address is admitted")
	}
	if !od.admit(odA, odUs) {
		t.Error("third segment not admitted")
	}
	for range 5 {
		if od.admit(odA, odUs) {
			t.Fatal("a segment beyond the bound is admitted")
		}
	}
	<-done
	time.Sleep(10 * time.Millisecond)
	if n := ends.Load(); n != 1 {
		t.Errorf("end asked %d times", n)
	}
	if d := od.book.active[odA]; d.segments() != 3 {
		t.Errorf("segments %d", d.segments())
	}
}

// odSeg is a segment from odA:sport to us (port 179), signed with key.
func odSeg(t *testing.T, key string) []byte {
	t.Helper()
	seg := make([]byte, 40+19)
	binary.BigEndian.PutUint16(seg[0:], 40001)
	binary.BigEndian.PutUint16(seg[2:], 179)
	seg[12] = 10 << 4
	seg[13] = 0x18
	copy(seg[20:], []byte{md5auth.OptNOP, md5auth.OptNOP, md5auth.OptMD5, 18})
	sig, err := md5auth.NewDigester().Sum(nil, odA, odUs, seg, []byte(key))
	if err != nil {
		t.Fatal(err)
	}
	copy(seg[24:40], sig)
	return seg
}

func odRunner(t *testing.T, shadow string) *Runner {
	t.Helper()
	cfg, err := config.Parse("r.toml", []byte("[global]\nasn = 65001\nrouter-id = \"192.0.2.1\"\n[[peers]]\naddress = \"192.0.2.6\"\nasn = 65002\npassword = \"Secret-Six\"\n"+shadow))
	if err != nil {
		t.Fatal(err)
	}
	l := logrus.New()
	l.SetOutput(io.Discard)
	return NewRunner(peerindex.New(cfg), l, nil, RunnerOptions{})
}

func odDiag(r *Runner, now time.Time) string {
	for _, rep := range r.reports(now) {
		if rep.Address == odA {
			return rep.Diagnosis
		}
	}
	return "(none)"
}

// TestOnDemandKeepsDiagnosis: once an address's capture ended, its
// diagnosis stays what the capture found, however long ago that was (the
// checker could not hear from the peer: it was not listening); while it is
// captured, or in mode always, silence turns it into no-traffic after the
// checker's idle time as before.
func TestOnDemandKeepsDiagnosis(t *testing.T) {
	r := odRunner(t, "[shadow]\nmode = \"on-demand\"\n")
	if r.Mode() != config.ShadowOnDemand || len(r.chks) != 1 || r.Workers() != 1 || r.od == nil {
		t.Fatalf("mode %q, %d checkers", r.Mode(), len(r.chks))
	}
	now := time.Now()
	r.od.book.begin(odA, "x", now.Add(-time.Hour))
	for i := range 4 {
		r.chks[0].Check(odA, odUs, 40001, 179, odSeg(t, "Wrong-Key"), now.Add(-time.Hour+time.Duration(i)*time.Second))
	}
	if d := odDiag(r, now.Add(-time.Hour+5*time.Second)); d != DiagBadDigest {
		t.Fatalf("during the capture: %s", d)
	}
	// Still captured an hour later (say, the window is long): the
	// silence counts.
	if d := odDiag(r, now); d != DiagNoTraffic {
		t.Errorf("captured and silent for an hour: %s, want no-traffic", d)
	}
	// The window ends only now (say it was long): the capture ended after
	// an hour of silence, which is what its diagnosis keeps.
	r.od.book.expire(now.Add(20 * time.Second))
	if d := odDiag(r, now.Add(24*time.Hour)); d != DiagNoTraffic {
		t.Errorf("ended after an hour of silence: %s, want no-traffic", d)
	}

	// A capture that ends 20 s after the peer's last segment keeps the
	// diagnosis for good.
	r2 := odRunner(t, "[shadow]\nmode = \"on-demand\"\n")
	start := now.Add(-time.Hour)
	r2.od.book.begin(odA, "x", start)
	for i := range 4 {
		r2.chks[0].Check(odA, odUs, 40001, 179, odSeg(t, "Wrong-Key"), start.Add(time.Duration(i)*time.Second))
	}
	if e := r2.od.book.expire(start.Add(20 * time.Second)); len(e) != 1 {
		t.Fatal("window did not end")
	}
	for _, at := range []time.Time{start.Add(21 * time.Second), now, now.Add(24 * time.Hour)} {
		if d := odDiag(r2, at); d != DiagBadDigest {
			t.Errorf("at %v after the capture ended: %s, want bad-digest", at.Sub(start), d)
		}
	}
	if _, ok := r2.Reports()[odA.String()]; !ok || r2.Reports()[odA.String()].Diagnosis != DiagBadDigest {
		t.Errorf("Reports(): %+v", r2.Reports())
	}

	// Mode always: the checker's own idle rule.
	r3 := odRunner(t, "[shadow]\nenabled = true\n")
	if r3.Mode() != config.ShadowAlways || r3.od != nil {
		t.Fatalf("mode %q", r3.Mode())
	}
	for i := range 4 {
		r3.chks[0].Check(odA, odUs, 40001, 179, odSeg(t, "Wrong-Key"), start.Add(time.Duration(i)*time.Second))
	}
	if d := odDiag(r3, start.Add(time.Minute)); d != DiagBadDigest {
		t.Errorf("always, a minute on: %s", d)
	}
	if d := odDiag(r3, now); d != DiagNoTraffic {
		t.Errorf("always, an hour on: %s, want no-traffic", d)
	}
	if r3.Demand(odA, "x") || r3.Demands() != nil {
		t.Error("Demand in mode always")
	}
}

// TestDemandRefusals: Demand refuses before Start, for addresses of no
// peer, and cleans the reason it logs.
func TestDemandRefusals(t *testing.T) {
	r := odRunner(t, "[shadow]\nmode = \"on-demand\"\n")
	if r.Demand(odA, "x") {
		t.Error("Demand before Start")
	}
	r.od.started = true
	if r.Demand(netip.MustParseAddr("192.0.2.99"), "x") || r.Demand(netip.Addr{}, "x") {
		t.Error("Demand of an address that is no peer's")
	}
	if len(r.Demands()) != 0 {
		t.Errorf("Demands %+v", r.Demands())
	}
	if got := cleanWhy("  kernel\ndropped\tsegments  "); got != "kernel dropped segments" {
		t.Errorf("cleanWhy: %q", got)
	}
	if got := cleanWhy(strings.Repeat("x", 500)); len(got) != maxWhy+3 {
		t.Errorf("cleanWhy of 500 bytes: %d", len(got))
	}
	for d, want := range map[time.Duration]string{20*time.Second + 3*time.Millisecond: "20s", 2345 * time.Millisecond: "2.3s", 10*time.Minute + 400*time.Millisecond: "10m0s"} {
		if got := roundDuration(d).String(); got != want {
			t.Errorf("roundDuration(%v) = %s, want %s", d, got, want)
		}
	}
}
