//go:build linux

package shadow

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/metrics"
	"github.com/authbgp/authbgpd/peerindex"
	"github.com/authbgp/authbgpd/tcpsock"
)

// logLines collects a logger's lines (message and fields).
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) Levels() []logrus.Level { return logrus.AllLevels }

func (l *logLines) Fire(e *logrus.Entry) error {
	s := e.Message
	for k, v := range e.Data {
		s += fmt.Sprintf(" %s=%v", k, v)
	}
	l.mu.Lock()
	l.lines = append(l.lines, s)
	l.mu.Unlock()
	return nil
}

func (l *logLines) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

// find returns the first line matching re (nil: none).
func (l *logLines) find(re *regexp.Regexp) []string {
	for _, s := range l.all() {
		if m := re.FindStringSubmatch(s); m != nil {
			return m
		}
	}
	return nil
}

// nsPacketSockets counts the packet sockets of namespace ns
// (/proc/net/packet as a thread in ns sees it).
func nsPacketSockets(t *testing.T, ns string) int {
	t.Helper()
	n := 0
	if err := netns.Do(ns, func() error {
		b, err := os.ReadFile("/proc/thread-self/net/packet")
		if err != nil {
			return err
		}
		n = len(strings.Split(strings.TrimSpace(string(b)), "\n")) - 1 // a header line
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

// ourPacketSockets lists the AF_PACKET sockets among this process's file
// descriptors (in any namespace), by inode.
func ourPacketSockets(t *testing.T) []uint64 {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	var out []uint64
	for _, e := range ents {
		link, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err != nil || !strings.HasPrefix(link, "socket:[") {
			continue
		}
		fd, _ := strconv.Atoi(e.Name())
		if dom, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_DOMAIN); err == nil && dom == unix.AF_PACKET {
			ino, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]"), 10, 64)
			out = append(out, ino)
		}
	}
	return out
}

// waitFor polls cond every 50 ms until it holds or d passed.
func waitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestOnDemandLive runs the Runner in on-demand mode in a namespace with a
// TCP-MD5 listener keyed for three peers that all dial it with the wrong
// key: 192.0.2.6 with a wrong password, 192.0.2.8 with the newer key of its
// keychain (other-key), 192.0.2.7 wrongly too but never demanded. Before a
// Demand nothing is captured and the process has no packet socket; a
// Demand (from a goroutine outside the namespace) opens one capture there,
// a second Demand joins it; each peer is diagnosed within its window; when
// the last window ends the packet socket is gone and the diagnoses stay;
// a Demand within the cool-down is refused, one after it accepted; and the
// log says what was captured, why, for how long and with what result,
// without a secret.
func TestOnDemandLive(t *testing.T) {
	testenv.RequireRoot(t)
	tp := netns.New(t, "shod")
	a, b := tp.Add("a"), tp.Add("b")
	tp.Link(a, "eth0", []string{"192.0.2.1/24"}, b, "eth0", []string{"192.0.2.2/24"})
	p6, p7, p8 := netip.MustParseAddr("192.0.2.6"), netip.MustParseAddr("192.0.2.7"), netip.MustParseAddr("192.0.2.8")
	for _, p := range []netip.Addr{p6, p7, p8} {
		netns.Run(t, "ip", "-n", b, "addr", "add", p.String()+"/24", "dev", "eth0")
	}
	const window = 4 * time.Second
	doc := `[global]
asn = 65001
router-id = "192.0.2.1"
[shadow]
mode = "on-demand"
on-demand-window = "4s"
[[keychains]]
name = "kc"
  [[keychains.keys]]
  id = 1
  secret = "Chain-One"
  [[keychains.keys]]
  id = 2
  secret = "Chain-Two"
  send-from = 2099-01-01T00:00:00Z
[[peers]]
address = "192.0.2.6"
asn = 65002
password = "Secret-Six"
[[peers]]
address = "192.0.2.7"
asn = 65002
password = "Secret-Seven"
[[peers]]
address = "192.0.2.8"
asn = 65002
keychain = "kc"
`
	secrets := []string{"Secret-Six", "Secret-Seven", "Chain-One", "Chain-Two", "Wrong-Six", "Wrong-Seven"}
	start := func(t *testing.T, doc string) (*Runner, *logLines) {
		t.Helper()
		cfg, err := config.Parse("r.toml", []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		log := logrus.New()
		log.SetOutput(io.Discard)
		log.SetLevel(logrus.DebugLevel)
		lines := &logLines{}
		log.AddHook(lines)
		r := NewRunner(peerindex.New(cfg), log, metrics.New("test"), RunnerOptions{})
		if err := netns.Do(a, func() error { return r.Start(context.Background()) }); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			r.Stop(context.Background())
			for _, l := range lines.all() {
				for _, s := range secrets {
					if strings.Contains(l, s) {
						t.Errorf("a secret in the log: %q", l)
					}
				}
			}
		})
		return r, lines
	}
	noSockets := func(t *testing.T, when string) {
		t.Helper()
		if n, ours := nsPacketSockets(t, a), ourPacketSockets(t); n != 0 || len(ours) != 0 {
			t.Errorf("%s: %d packet sockets in the namespace, %d of ours", when, n, len(ours))
		}
	}

	// Our listener holds every peer's key (192.0.2.8: its active key 1).
	var ln net.Listener
	if err := netns.Do(a, func() (err error) {
		lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
			for p, k := range map[netip.Addr]string{p6: "Secret-Six", p7: "Secret-Seven", p8: "Chain-One"} {
				if err := tcpsock.SetKey(c, md5auth.AddrKey(p, []byte(k))); err != nil {
					return err
				}
			}
			return nil
		}}
		ln, err = lc.Listen(context.Background(), "tcp4", "192.0.2.1:179")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	// The peers keep dialing with their wrong keys (each attempt's SYN is
	// dropped by our kernel) until the test ends.
	ctx, cancel := context.WithCancel(context.Background())
	var dialers sync.WaitGroup
	defer func() { cancel(); dialers.Wait() }()
	for p, key := range map[netip.Addr]string{p6: "Wrong-Six", p7: "Wrong-Seven", p8: "Chain-Two"} {
		dialers.Go(func() {
			netns.Do(b, func() error {
				for ctx.Err() == nil {
					d := net.Dialer{Timeout: 250 * time.Millisecond, LocalAddr: net.TCPAddrFromAddrPort(netip.AddrPortFrom(p, 0)),
						Control: func(_, _ string, rc syscall.RawConn) error {
							return tcpsock.SetKey(rc, md5auth.AddrKey(netip.MustParseAddr("192.0.2.1"), []byte(key)))
						}}
					if c, err := d.DialContext(ctx, "tcp4", "192.0.2.1:179"); err == nil {
						c.Close()
						t.Errorf("%v connected with a wrong key", p)
						return nil
					}
				}
				return nil
			})
		})
	}

	t.Run("window", func(t *testing.T) {
		r, lines := start(t, doc)
		if r.Mode() != config.ShadowOnDemand {
			t.Fatalf("mode %q", r.Mode())
		}
		// Nothing captured before a Demand: no socket, no verdict.
		time.Sleep(1500 * time.Millisecond)
		noSockets(t, "before Demand")
		if st := r.CaptureStatus(); st.Running || st.Workers != 0 || st.Packets != 0 || st.Error != "" {
			t.Errorf("capture before Demand: %+v", st)
		}
		for addr, rep := range r.Reports() {
			if rep.Diagnosis != DiagNoTraffic || rep.Received != (Counts{}) {
				t.Errorf("%s diagnosed before any Demand: %+v", addr, rep)
			}
		}

		// The Demand comes from this goroutine, outside namespace a: the
		// capture must open in a all the same.
		t0 := time.Now()
		if !r.Demand(p6, "kernel dropped segments from it (bad TCP-MD5 digest)") {
			t.Fatalf("Demand(%v) refused", p6)
		}
		ours := ourPacketSockets(t)
		if n := nsPacketSockets(t, a); n != 1 || len(ours) != 1 {
			t.Fatalf("after Demand: %d packet sockets in the namespace, %d of ours", n, len(ours))
		}
		if r.Demand(p6, "again") {
			t.Error("a second Demand of an address being captured accepted")
		}
		if st := r.CaptureStatus(); !st.Running || st.Workers != 1 || st.Error != "" {
			t.Errorf("capture after Demand: %+v", st)
		}
		time.Sleep(time.Second)
		if !r.Demand(p8, "kernel dropped segments from it (bad TCP-MD5 digest)") {
			t.Fatalf("Demand(%v) refused", p8)
		}
		if got := ourPacketSockets(t); len(got) != 1 || got[0] != ours[0] {
			t.Errorf("a second address opened another capture: sockets %v, was %v", got, ours)
		}
		ds := r.Demands()
		if len(ds) != 2 || ds[0].Address != p6 || ds[1].Address != p8 || ds[0].Until.Sub(ds[0].Since) != window || ds[0].Why != "kernel dropped segments from it (bad TCP-MD5 digest)" {
			t.Errorf("Demands %+v", ds)
		}

		diagnosed := func() bool {
			reps := r.Reports()
			r6, r8 := reps[p6.String()], reps[p8.String()]
			return r6.Diagnosis == DiagBadDigest && r8.Diagnosis == DiagOtherKey && r8.PeerKeyID != nil && *r8.PeerKeyID == 2
		}
		if !waitFor(time.Until(t0.Add(window)), diagnosed) {
			t.Fatalf("not diagnosed within the window: %+v", r.Reports())
		}
		t.Logf("diagnosed %v after the first Demand", time.Since(t0).Round(time.Millisecond))

		// 192.0.2.6's window ends first: the capture goes on for .8
		// alone, on the same socket.
		if !waitFor(window+time.Second, func() bool { ds := r.Demands(); return len(ds) == 1 && ds[0].Address == p8 }) {
			t.Fatalf("after the first window: Demands %+v", r.Demands())
		}
		if got := ourPacketSockets(t); len(got) != 1 || got[0] != ours[0] {
			t.Errorf("after the first window: sockets %v, was %v", got, ours)
		}
		// When the last window ends, the capture is closed.
		if !waitFor(2*time.Second, func() bool {
			return len(r.Demands()) == 0 && nsPacketSockets(t, a) == 0 && len(ourPacketSockets(t)) == 0
		}) {
			t.Fatalf("after the last window: Demands %+v, %d packet sockets", r.Demands(), nsPacketSockets(t, a))
		}
		ended := time.Now()
		if st := r.CaptureStatus(); st.Running || st.Workers != 0 || st.Packets == 0 {
			t.Errorf("capture after the windows: %+v", st)
		}
		// The diagnoses stay, now and (by the Runner's clock) much later.
		for _, at := range []time.Time{time.Now(), time.Now().Add(24 * time.Hour)} {
			got := map[netip.Addr]PeerReport{}
			for _, rep := range r.reports(at) {
				got[rep.Address] = rep
			}
			if got[p6].Diagnosis != DiagBadDigest || got[p8].Diagnosis != DiagOtherKey {
				t.Errorf("at +%v: diagnoses %+v %+v", at.Sub(ended).Round(time.Hour), got[p6], got[p8])
			}
			if rep, ok := got[p7]; ok && (rep.Diagnosis != DiagNoTraffic || rep.Received != (Counts{})) {
				t.Errorf("%v, never demanded, has %+v", p7, rep)
			}
		}

		// Cool-down: refused now, accepted one window after the end.
		if r.Demand(p6, "still dropping") {
			t.Error("Demand within the cool-down accepted")
		}
		noSockets(t, "after a refused Demand")
		time.Sleep(time.Until(ended.Add(window - time.Second))) // .6 ended about a second before
		if !waitFor(2*time.Second, func() bool { return r.Demand(p6, "still dropping") }) {
			t.Error("Demand after the cool-down refused")
		}
		if n := nsPacketSockets(t, a); n != 1 {
			t.Errorf("after the Demand past the cool-down: %d packet sockets", n)
		}
		r.Stop(context.Background())
		noSockets(t, "after Stop")

		for _, re := range []*regexp.Regexp{
			regexp.MustCompile(`^shadow: capturing 192\.0\.2\.6 for 4s: kernel dropped segments from it \(bad TCP-MD5 digest\)`),
			regexp.MustCompile(`^shadow: capturing 192\.0\.2\.8 for 4s: kernel dropped segments from it \(bad TCP-MD5 digest\)`),
			regexp.MustCompile(`^shadow: capture of 192\.0\.2\.6 ended after 4s, ([0-9]+) segments: diagnosis bad-digest`),
			regexp.MustCompile(`^shadow: capture of 192\.0\.2\.8 ended after 4s, ([0-9]+) segments: diagnosis other-key`),
			regexp.MustCompile(`^shadow: capturing 192\.0\.2\.6 for 4s: still dropping`),
		} {
			m := lines.find(re)
			if m == nil {
				t.Errorf("no log line matches %s; log:\n  %s", re, strings.Join(lines.all(), "\n  "))
				continue
			}
			if len(m) > 1 {
				if n, _ := strconv.Atoi(m[1]); n < 3 {
					t.Errorf("%q: fewer segments than a diagnosis needs", m[0])
				}
			}
			t.Logf("log: %s", m[0])
		}
		if m := lines.find(regexp.MustCompile(`capturing 192\.0\.2\.7|capture of 192\.0\.2\.7`)); m != nil {
			t.Errorf("192.0.2.7 was captured: %q", m[0])
		}
	})

	t.Run("segments", func(t *testing.T) {
		// A long window, a bound of 4 segments: the capture ends at the
		// fourth of 192.0.2.6's segments.
		r, lines := start(t, strings.Replace(doc, `on-demand-window = "4s"`, "on-demand-window = \"1m\"\non-demand-segments = 4", 1))
		t0 := time.Now()
		if !r.Demand(p6, "kernel dropped segments from it (bad TCP-MD5 digest)") {
			t.Fatal("Demand refused")
		}
		if !waitFor(10*time.Second, func() bool {
			return len(r.Demands()) == 0 && nsPacketSockets(t, a) == 0 && len(ourPacketSockets(t)) == 0
		}) {
			t.Fatalf("the capture did not end at its segment bound: %+v", r.Demands())
		}
		t.Logf("ended %v after the Demand", time.Since(t0).Round(time.Millisecond))
		rep := r.Reports()[p6.String()]
		if rep.Diagnosis != DiagBadDigest || rep.Received.BadDigest != 4 {
			t.Errorf("after 4 segments: %+v", rep)
		}
		re := regexp.MustCompile(`^shadow: capture of 192\.0\.2\.6 ended after [0-9.]+m?s, 4 segments \(segment limit\): diagnosis bad-digest`)
		if m := lines.find(re); m == nil {
			t.Errorf("no log line matches %s; log:\n  %s", re, strings.Join(lines.all(), "\n  "))
		} else {
			t.Logf("log: %s", m[0])
		}
		if r.Demand(p6, "again") {
			t.Error("Demand right after a segment-bound end accepted")
		}
	})
}
