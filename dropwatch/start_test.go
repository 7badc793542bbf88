package dropwatch

import (
	"errors"
	"io"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"

	"github.com/authbgp/authbgpd/kdrops"
	"github.com/authbgp/authbgpd/status"
)

type closeCount struct{ n int }

func (c *closeCount) Close() error { c.n++; return nil }

// TestStartDemandStop: Start polls the counters it opened, tells the hooks
// of a configured peer's drops (BadDigest only of bad digests) (never of an address of no peer), and Stop
// ends the polling and closes the counters once.
func TestStartDemandStop(t *testing.T) {
	l, hook := logtest.NewNullLogger()
	src, cl := newFake(), &closeCount{}
	src.tps = []string{"tcp_hash_md5_mismatch"}
	var mu sync.Mutex
	var got []string
	var bad []netip.Addr
	h := Hooks{
		Demand: func(addr netip.Addr, why string) {
			mu.Lock()
			got = append(got, addr.String()+" "+why)
			mu.Unlock()
		},
		BadDigest: func(addr netip.Addr) {
			mu.Lock()
			bad = append(bad, addr)
			mu.Unlock()
		},
	}
	d := start(parse(t, testConfig), l, h, func() (Source, io.Closer, error) { return src, cl, nil }, Options{Interval: 5 * time.Millisecond})
	src.add("192.0.2.2", kdrops.BadDigest, 3)
	src.add("203.0.113.9", kdrops.Unexpected, 1) // no configured peer
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := d.Stop(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := "192.0.2.2 kernel dropped 3 segments from it (" + Text(kdrops.BadDigest) + ")"; len(got) != 1 || got[0] != want {
		t.Fatalf("demand calls %q, want [%q]", got, want)
	}
	if len(bad) != 1 || bad[0] != netip.MustParseAddr("192.0.2.2") {
		t.Fatalf("BadDigest calls %v, want [192.0.2.2]", bad)
	}
	if cl.n != 1 {
		t.Fatalf("counters closed %d times, want 1", cl.n)
	}
	var st status.Status
	d.Merge(&st)
	if st.KernelDrops == nil || !st.KernelDrops.Available {
		t.Fatalf("Merge after Stop: %+v", st.KernelDrops)
	}
	counting := false
	for _, e := range hook.AllEntries() {
		counting = counting || (e.Message == "kernel drop verdicts per peer: counting" && e.Level == logrus.InfoLevel)
	}
	if !counting {
		t.Fatal("no log line says the counters count")
	}
}

// TestStartUnavailable: counters that cannot be opened leave a Watcher
// that says why, polls nothing and stops at once.
func TestStartUnavailable(t *testing.T) {
	l, _ := logtest.NewNullLogger()
	d := start(parse(t, testConfig), l, Hooks{}, func() (Source, io.Closer, error) { return nil, nil, kdrops.ErrPermission }, Options{})
	if d.Available() {
		t.Fatal("available without counters")
	}
	if err := d.Poll(); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Poll = %v, want ErrUnavailable", err)
	}
	if err := d.Stop(); err != nil {
		t.Fatal(err)
	}
}

func TestDemandReason(t *testing.T) {
	if got, want := DemandReason(kdrops.AOBad, 1), "kernel dropped 1 segment from it ("+Text(kdrops.AOBad)+")"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
	if got := DemandReason(kdrops.Missing, 2); !strings.HasPrefix(got, "kernel dropped 2 segments from it (") {
		t.Fatalf("%q", got)
	}
}
