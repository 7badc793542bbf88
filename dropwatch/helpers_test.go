package dropwatch

import (
	"errors"
	"net/netip"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/kdrops"
	"github.com/authbgp/authbgpd/peerindex"
)

// Test secrets: they must never reach a log line or /status.
const (
	secretMD5   = "Dropwatch-Secret-Kestrel"
	secretRange = "Dropwatch-Range-Marmot"
	secretAO    = "Dropwatch-AO-Wombat-77"
)

// testConfig has a TCP-MD5 peer (.2), a TCP-AO peer (.6), an unkeyed peer
// (.9), an IPv6 TCP-MD5 peer, and two nested TCP-MD5 ranges.
const testConfig = `[global]
asn = 65001
router-id = "192.0.2.1"

[[keychains]]
name = "ao"
type = "tcp-ao"
  [[keychains.keys]]
  id = 1
  secret = "` + secretAO + `"

[[peers]]
address = "192.0.2.2"
asn = 65002
password = "` + secretMD5 + `"

[[peers]]
address = "192.0.2.6"
asn = 65006
keychain = "ao"

[[peers]]
address = "192.0.2.9"
asn = 65009

[[peers]]
address = "2001:db8::2"
asn = 65020
password = "` + secretMD5 + `"

[[peers]]
prefix = "198.51.100.0/24"
asn = 65100
passive = true
password = "` + secretRange + `"

[[peers]]
prefix = "198.51.100.128/25"
asn = 65128
passive = true
password = "` + secretRange + `"
`

// parse is the peer index of config s.
func parse(t *testing.T, s string) *peerindex.Index {
	t.Helper()
	c, err := config.Parse("r.toml", []byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return peerindex.New(c)
}

// fakeSource is a Source whose cumulative counts the test sets.
type fakeSource struct {
	mu      sync.Mutex
	counts  map[kdrops.Key]uint64
	err     error
	tps     []string
	missed  map[kdrops.Reason]uint64 // the kernel's skipped runs, cumulative
	missErr error
}

func newFake() *fakeSource { return &fakeSource{counts: map[kdrops.Key]uint64{}} }

func (f *fakeSource) Read(fn func(kdrops.Key, uint64)) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return f.err
	}
	keys := make([]kdrops.Key, 0, len(f.counts))
	for k := range f.counts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b kdrops.Key) int {
		if c := a.Addr.Compare(b.Addr); c != 0 {
			return c
		}
		if a.IfIndex != b.IfIndex {
			return int(a.IfIndex) - int(b.IfIndex)
		}
		return int(a.Reason) - int(b.Reason)
	})
	for _, k := range keys {
		if n := f.counts[k]; n != 0 {
			fn(k, n)
		}
	}
	return nil
}

func (f *fakeSource) Tracepoints() []string { return f.tps }

func (f *fakeSource) Missed() (map[kdrops.Reason]uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.missErr != nil {
		return nil, f.missErr
	}
	out := map[kdrops.Reason]uint64{}
	for r, n := range f.missed {
		out[r] = n
	}
	return out, nil
}

// miss makes the kernel skip n more runs of the program counting r.
func (f *fakeSource) miss(r kdrops.Reason, n uint64) {
	f.mu.Lock()
	if f.missed == nil {
		f.missed = map[kdrops.Reason]uint64{}
	}
	f.missed[r] += n
	f.mu.Unlock()
}

// add makes the kernel drop n more segments of r from addr ("" = the
// overflow slot).
func (f *fakeSource) add(addr string, r kdrops.Reason, n uint64) {
	var a netip.Addr
	if addr != "" {
		a = netip.MustParseAddr(addr)
	}
	f.mu.Lock()
	f.counts[kdrops.Key{Addr: a, Reason: r}] += n
	f.mu.Unlock()
}

// addIf is add for a link-local address that came in on ifindex.
func (f *fakeSource) addIf(addr string, ifindex uint32, r kdrops.Reason, n uint64) {
	f.mu.Lock()
	f.counts[kdrops.Key{Addr: netip.MustParseAddr(addr), Reason: r, IfIndex: ifindex}] += n
	f.mu.Unlock()
}

func (f *fakeSource) set(addr string, r kdrops.Reason, n uint64) {
	f.mu.Lock()
	f.counts[kdrops.Key{Addr: netip.MustParseAddr(addr), Reason: r}] = n
	f.mu.Unlock()
}

func (f *fakeSource) fail(err error) {
	f.mu.Lock()
	f.err = err
	f.mu.Unlock()
}

// clock is an injected time.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// rig is a Watcher of testConfig on a fake source, clock and logger.
type rig struct {
	w    *Watcher
	src  *fakeSource
	clk  *clock
	logs *logtest.Hook
}

func newRig(t *testing.T, o Options) *rig {
	t.Helper()
	l, hook := logtest.NewNullLogger()
	l.SetLevel(logrus.DebugLevel)
	r := &rig{src: newFake(), clk: newClock(), logs: hook}
	o.Now = r.clk.Now
	r.w = New(parse(t, testConfig), r.src, nil, logrus.NewEntry(l), o)
	return r
}

func (r *rig) poll(t *testing.T) {
	t.Helper()
	if err := r.w.Poll(); err != nil {
		t.Fatal(err)
	}
}

// peerCounts returns the counts of peer ID id (static or range).
func (r *rig) peerCounts(id string) counts {
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	if ps := r.w.peers[id]; ps != nil {
		return ps.counts
	}
	return counts{}
}

func (r *rig) sessionCounts(id, addr string) (counts, bool) {
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	if ps := r.w.peers[id]; ps != nil {
		if s := ps.sessions[netip.MustParseAddr(addr)]; s != nil {
			return s.counts, true
		}
	}
	return counts{}, false
}

func (r *rig) other() uint64 {
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	return r.w.other
}

var errTest = errors.New("test error")
