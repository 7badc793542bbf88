//go:build linux

package kdrops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/tcpsock"
)

// Secrets of the tests (never printed: keys.Secret redacts itself).
var (
	secretA = []byte("kdrops-Alpha-4471")
	secretB = []byte("kdrops-Bravo-0925")
	secretC = []byte("kdrops-Charlie-31")
	secretD = []byte("kdrops-Delta-6610")
	secretP = []byte("kdrops-Papa-77219")
	secretX = []byte("kdrops-Xray-wrong")
)

// The router R, its peers A (wrong key), B (unsigned), C (signed, but R
// has no key for it), D (healthy), and in the peers' namespace a keyed
// listener P that R dials unsigned. Documentation addresses.
type family struct {
	name          string
	r, a, b, c, d netip.Addr
	p             netip.Addr
}

var families = []family{
	{"ipv4", mustAddr("192.0.2.1"), mustAddr("192.0.2.10"), mustAddr("192.0.2.11"), mustAddr("192.0.2.12"), mustAddr("192.0.2.13"), mustAddr("192.0.2.20")},
	{"ipv6", mustAddr("2001:db8::1"), mustAddr("2001:db8::a"), mustAddr("2001:db8::b"), mustAddr("2001:db8::c"), mustAddr("2001:db8::d"), mustAddr("2001:db8::20")},
}

func mustAddr(s string) netip.Addr { return netip.MustParseAddr(s) }

const (
	portR = 17179 // R's listeners
	portP = 17180 // P's listeners
	// A dropped dial sends its SYN at 0 s and retransmits it at 1 s.
	dropTimeout = 1500 * time.Millisecond
)

// topology makes namespaces r and p joined by one veth; p holds every
// peer address.
func topology(t *testing.T, tag string) (r, p string) {
	t.Helper()
	testenv.RequireRoot(t)
	tp := netns.New(t, tag)
	r, p = tp.Add("r"), tp.Add("p")
	var ra, pa []string
	for _, f := range families {
		bits := "/24"
		if f.r.Is6() {
			bits = "/64"
		}
		ra = append(ra, f.r.String()+bits)
		for _, a := range []netip.Addr{f.a, f.b, f.c, f.d, f.p} {
			pa = append(pa, a.String()+bits)
		}
	}
	tp.Link(r, "eth0", ra, p, "eth0", pa)
	return r, p
}

// openIn opens a Counter (with a table of entries) in namespace ns,
// closed at cleanup. A kernel without the tracepoints skips the test.
func openIn(t *testing.T, ns string, entries uint32) *Counter {
	t.Helper()
	var c *Counter
	err := netns.Do(ns, func() (err error) {
		c, err = open(entries)
		return err
	})
	if errors.Is(err, ErrUnsupported) {
		testenv.SkipKernelLacks(t, "TCP authentication drop tracepoints (Linux 6.7) with BTF", err.Error())
	}
	if err != nil {
		t.Fatalf("open in %s: %v", ns, err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	return c
}

// listen starts an echo server on addr in ns with TCP-MD5 keys.
func listen(t *testing.T, ns string, addr netip.AddrPort, keys ...md5auth.Key) {
	t.Helper()
	network := "tcp4"
	if addr.Addr().Is6() {
		network = "tcp6"
	}
	var l net.Listener
	err := netns.Do(ns, func() (err error) {
		var lc net.ListenConfig
		lc.SetMultipathTCP(false)
		l, err = lc.Listen(context.Background(), network, addr.String())
		return err
	})
	if err != nil {
		t.Fatalf("listen %s in %s: %v", addr, ns, err)
	}
	rc, err := l.(*net.TCPListener).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if err := tcpsock.SetKey(rc, k); err != nil {
			t.Fatalf("key %v on %s: %v", k, addr, err)
		}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Go(func() { _, _ = io.Copy(c, c) })
		}
	})
	t.Cleanup(func() {
		_ = l.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
}

// dial connects from local in ns to remote, signing with key if not nil.
func dial(ns string, local netip.Addr, remote netip.AddrPort, key *md5auth.Key, timeout time.Duration) (net.Conn, error) {
	var c net.Conn
	err := netns.Do(ns, func() (err error) {
		d := net.Dialer{Timeout: timeout, LocalAddr: &net.TCPAddr{IP: local.AsSlice(), Zone: local.Zone()}}
		d.SetMultipathTCP(false)
		if key != nil {
			k := *key
			d.Control = func(_, _ string, rc syscall.RawConn) error { return tcpsock.SetKey(rc, k) }
		}
		c, err = d.Dial("tcp", remote.String())
		return err
	})
	return c, err
}

// dialDropped dials and expects the SYNs to be dropped (a timeout).
func dialDropped(ns string, local netip.Addr, remote netip.AddrPort, key *md5auth.Key, timeout time.Duration) error {
	c, err := dial(ns, local, remote, key, timeout)
	if err == nil {
		c.Close()
		return fmt.Errorf("dial %s -> %s succeeded, want its SYNs dropped", local, remote)
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		return fmt.Errorf("dial %s -> %s: %v, want a timeout", local, remote, err)
	}
	return nil
}

// echo sends n bytes over c and reads them back.
func echo(c net.Conn, n int) error {
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	defer c.SetDeadline(time.Time{})
	buf := make([]byte, 64<<10)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	errc := make(chan error, 1)
	go func() {
		for left := n; left > 0; {
			m, err := c.Write(buf[:min(left, len(buf))])
			if err != nil {
				errc <- err
				return
			}
			left -= m
		}
		errc <- nil
	}()
	got, err := io.CopyN(io.Discard, c, int64(n))
	if err != nil {
		return fmt.Errorf("read echo (%d of %d bytes): %w", got, n, err)
	}
	return <-errc
}

func keyFor(a netip.Addr, secret []byte) *md5auth.Key {
	k := md5auth.AddrKey(a, secret)
	return &k
}

func parallel(t *testing.T, fns ...func() error) {
	t.Helper()
	errs := make([]error, len(fns))
	var wg sync.WaitGroup
	for i, fn := range fns {
		wg.Go(func() { errs[i] = fn() })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
}

func tcpext(t *testing.T, ns string) map[string]uint64 {
	t.Helper()
	m, err := netns.Counters(ns)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func counts(t *testing.T, c *Counter) map[Key]uint64 {
	t.Helper()
	m, err := c.Counts()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// perReason sums counts by reason.
func perReason(m map[Key]uint64) map[Reason]uint64 {
	out := map[Reason]uint64{}
	for k, n := range m {
		out[k.Reason] += n
	}
	return out
}

// mdCounter is the TcpExt counter of each MD5 reason.
var mdCounter = map[Reason]string{BadDigest: "TCPMD5Failure", Missing: "TCPMD5NotFound", Unexpected: "TCPMD5Unexpected"}

// checkAgainstTcpExt fails unless the counts per reason equal the rises
// of ns's TcpExt counters exactly, or, where the kernel skipped some of
// c's program runs (missed: Counter.Missed's rise, per reason), lie
// between the rise less those misses and the rise: a skipped run is a drop
// that was not counted, of this namespace or another's.
func checkAgainstTcpExt(t *testing.T, ns string, m map[Key]uint64, before, after map[string]uint64, missed map[Reason]uint64) {
	t.Helper()
	sums := perReason(m)
	for _, r := range []Reason{BadDigest, Missing, Unexpected} {
		name := mdCounter[r]
		d := after[name] - before[name]
		switch {
		case sums[r] == d:
			t.Logf("%s: %v = %d = TcpExt %s delta (kernel skipped %d runs)", ns, r, d, name, missed[r])
		case sums[r] < d && d <= sums[r]+missed[r]:
			t.Logf("%s: counted %d %v, TcpExt %s rose by %d: the kernel skipped %d runs", ns, sums[r], r, name, d, missed[r])
		default:
			t.Errorf("%s: counted %d %v, TcpExt %s rose by %d, and the kernel skipped %d runs", ns, sums[r], r, name, d, missed[r])
		}
	}
}

// missedSince returns the rise of c's skipped runs per reason since before.
func missedSince(t *testing.T, c *Counter, before map[Reason]uint64) map[Reason]uint64 {
	t.Helper()
	now := missed(t, c)
	out := map[Reason]uint64{}
	for r, n := range now {
		out[r] = n - before[r]
	}
	return out
}

func missed(t *testing.T, c *Counter) map[Reason]uint64 {
	t.Helper()
	m, err := c.Missed()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestOpen: Open attaches the MD5 tracepoints (and whatever AO ones the
// kernel has), starts at zero, and Close is idempotent.
func TestOpen(t *testing.T) {
	r, _ := topology(t, "open")
	c := openIn(t, r, maxEntries)
	got := c.Tracepoints()
	t.Logf("attached: %s", strings.Join(got, " "))
	for _, want := range []string{"tcp_hash_md5_mismatch", "tcp_hash_md5_required", "tcp_hash_md5_unexpected", "tcp_hash_bad_header"} {
		if !contains(got, want) {
			t.Errorf("tracepoint %s not attached (got %v)", want, got)
		}
	}
	for _, n := range got {
		if _, ok := tracepointReason(n); !ok {
			t.Errorf("attached %s, which counts nothing", n)
		}
	}
	if m := counts(t, c); len(m) != 0 {
		t.Errorf("new counter has counts %v", m)
	}
	if err := c.IfIndexErr(); err != nil {
		t.Errorf("IfIndexErr = %v, want nil (this kernel's BTF has sk_buff.skb_iif)", err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := c.Counts(); err == nil {
		t.Error("Counts after Close succeeded")
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// TestCountsPerPeer: R's kernel drops A's segments (wrong key) as
// bad_digest, B's (unsigned) as missing and C's (signed, no key) as
// unexpected; D (right key) is not counted, nor are drops in another
// namespace (P dropping R's unsigned SYNs). The counts equal R's TcpExt
// rises exactly. A counter with a table of 2 counts the rest in its
// overflow slots.
func TestCountsPerPeer(t *testing.T) {
	r, p := topology(t, "peers")
	cR := openIn(t, r, maxEntries)
	cSmall := openIn(t, r, 2)
	cP := openIn(t, p, maxEntries)

	for _, f := range families {
		listen(t, r, netip.AddrPortFrom(f.r, portR),
			md5auth.AddrKey(f.a, secretA), md5auth.AddrKey(f.b, secretB), md5auth.AddrKey(f.d, secretD))
		listen(t, p, netip.AddrPortFrom(f.p, portP), md5auth.AddrKey(f.r, secretP))
	}
	beforeR, beforeP := tcpext(t, r), tcpext(t, p)
	missR, missS, missP := missed(t, cR), missed(t, cSmall), missed(t, cP)

	// The healthy peer: connects and exchanges data.
	for _, f := range families {
		c, err := dial(p, f.d, netip.AddrPortFrom(f.r, portR), keyFor(f.r, secretD), 5*time.Second)
		if err != nil {
			t.Fatalf("%s: healthy peer D: %v", f.name, err)
		}
		if err := echo(c, 64<<10); err != nil {
			t.Fatalf("%s: healthy peer D: %v", f.name, err)
		}
		c.Close()
	}
	var fns []func() error
	for _, f := range families {
		dst := netip.AddrPortFrom(f.r, portR)
		fns = append(fns,
			func() error { return dialDropped(p, f.a, dst, keyFor(f.r, secretX), dropTimeout) },
			func() error { return dialDropped(p, f.b, dst, nil, dropTimeout) },
			func() error { return dialDropped(p, f.c, dst, keyFor(f.r, secretC), dropTimeout) },
			// Dropped by P's kernel, not R's.
			func() error { return dialDropped(r, f.r, netip.AddrPortFrom(f.p, portP), nil, dropTimeout) },
		)
	}
	parallel(t, fns...)
	afterR, afterP := tcpext(t, r), tcpext(t, p)

	mR := counts(t, cR)
	t.Logf("R counts: %v", mR)
	want := map[Key]bool{}
	for _, f := range families {
		want[Key{Addr: f.a, Reason: BadDigest}] = true
		want[Key{Addr: f.b, Reason: Missing}] = true
		want[Key{Addr: f.c, Reason: Unexpected}] = true
	}
	for k, n := range mR {
		if !want[k] {
			t.Errorf("R: unexpected count %v = %d", k, n)
		}
	}
	for k := range want {
		if mR[k] == 0 {
			t.Errorf("R: no count for %v", k)
		}
	}
	missedR := missedSince(t, cR, missR)
	checkAgainstTcpExt(t, r, mR, beforeR, afterR, missedR)

	// P's own counter sees R's SYNs, as missing, and nothing else.
	mP := counts(t, cP)
	t.Logf("P counts: %v", mP)
	for k, n := range mP {
		if k.Reason != Missing || (k.Addr != families[0].r && k.Addr != families[1].r) {
			t.Errorf("P: unexpected count %v = %d", k, n)
		}
	}
	for _, f := range families {
		if mP[Key{Addr: f.r, Reason: Missing}] == 0 {
			t.Errorf("P: no count for %v", Key{Addr: f.r, Reason: Missing})
		}
	}
	checkAgainstTcpExt(t, p, mP, beforeP, afterP, missedSince(t, cP, missP))

	// The small table: 2 addresses, the rest in the overflow slots; per
	// reason the same totals.
	mS := counts(t, cSmall)
	missedS := missedSince(t, cSmall, missS)
	// Where neither program was skipped, the two tables agree exactly.
	noMiss := func(r Reason) bool { return missedR[r] == 0 && missedS[r] == 0 }
	t.Logf("small-table counts: %v", mS)
	var addrs, overflow int
	for k := range mS {
		if k.Addr.IsValid() {
			addrs++
			if mS[k] != mR[k] && noMiss(k.Reason) {
				t.Errorf("small table: %v = %d, big table %d", k, mS[k], mR[k])
			}
		} else {
			overflow++
		}
	}
	if addrs > 2 || overflow == 0 {
		t.Errorf("small table: %d address entries and %d overflow slots, want at most 2 and some", addrs, overflow)
	}
	checkAgainstTcpExt(t, r+" (table of 2)", mS, beforeR, afterR, missedS)
	sR, sS := perReason(mR), perReason(mS)
	for _, r := range Reasons() {
		if sR[r] != sS[r] && noMiss(r) {
			t.Errorf("%v: small table counted %d, big table %d", r, sS[r], sR[r])
		}
	}
}

// TestRunCount: with statistics on, the programs do not run at all while
// a healthy TCP-MD5 session moves megabytes, and do run for one bad
// segment: the count costs nothing on the good path.
func TestRunCount(t *testing.T) {
	r, p := topology(t, "runcnt")
	c := openIn(t, r, maxEntries)
	stats, err := EnableStats()
	if err != nil {
		t.Fatalf("EnableStats: %v", err)
	}
	defer stats.Close()

	f := families[0]
	dst := netip.AddrPortFrom(f.r, portR)
	listen(t, r, dst, md5auth.AddrKey(f.d, secretD), md5auth.AddrKey(f.a, secretA))
	conn, err := dial(p, f.d, dst, keyFor(f.r, secretD), 5*time.Second)
	if err != nil {
		t.Fatalf("healthy dial: %v", err)
	}
	defer conn.Close()

	// The programs are attached to tracepoints of the whole host, so
	// drops in other tests' namespaces make them run too (they return at
	// the netns check): try again until one transfer is clean. A program
	// that ran for healthy segments would run thousands of times in
	// every attempt.
	const size = 4 << 20
	var clean bool
	deadline := time.Now().Add(30 * time.Second)
	for attempt := 1; !clean && time.Now().Before(deadline); attempt++ {
		before, err := c.RunCount()
		if err != nil {
			t.Fatal(err)
		}
		if err := echo(conn, size); err != nil {
			t.Fatalf("healthy transfer: %v", err)
		}
		after, err := c.RunCount()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("attempt %d: %d MB echoed, programs ran %d times", attempt, size>>20, after-before)
		clean = after == before
	}
	if !clean {
		t.Fatal("the programs ran during every healthy transfer for 30 s")
	}
	if m := counts(t, c); len(m) != 0 {
		t.Fatalf("counts after healthy traffic: %v", m)
	}

	// One bad segment: a single SYN with the wrong key (the dial gives up
	// before the first retransmission).
	before, err := c.RunCount()
	if err != nil {
		t.Fatal(err)
	}
	extBefore := tcpext(t, r)
	if err := dialDropped(p, f.a, dst, keyFor(f.r, secretX), 400*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	after, err := c.RunCount()
	if err != nil {
		t.Fatal(err)
	}
	m := counts(t, c)
	delta := tcpext(t, r)["TCPMD5Failure"] - extBefore["TCPMD5Failure"]
	t.Logf("one bad SYN: programs ran %d times, counts %v, TcpExt TCPMD5Failure +%d", after-before, m, delta)
	if after <= before {
		t.Errorf("run count %d -> %d after a dropped segment, want a rise", before, after)
	}
	if n := m[Key{Addr: f.a, Reason: BadDigest}]; n == 0 || n != delta || after-before < n || len(m) != 1 {
		t.Errorf("counts %v after one bad SYN (TcpExt +%d, %d runs), want {%v: %d}", m, delta, after-before, Key{Addr: f.a, Reason: BadDigest}, delta)
	}
}

// The capability test runs the test binary again under setpriv with some
// capabilities dropped; TestMain then only opens a Counter and reports.
const capsChildEnv = "KDROPS_CAPS_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(capsChildEnv) == "1" {
		capsChild()
		return
	}
	os.Exit(m.Run())
}

func capsChild() {
	res := func(err error) string {
		switch {
		case err == nil:
			return "ok"
		case errors.Is(err, ErrPermission):
			return "permission"
		case errors.Is(err, ErrUnsupported):
			return "unsupported"
		}
		return "error: " + err.Error()
	}
	c, err := Open()
	fmt.Printf("open=%s\n", res(err))
	if err == nil {
		defer c.Close()
		s, err := EnableStats()
		fmt.Printf("stats=%s\n", res(err))
		if err == nil {
			s.Close()
		}
	} else {
		fmt.Printf("detail=%v\n", err)
	}
}

// TestCapabilities: CAP_BPF with CAP_PERFMON suffice to count (statistics
// need CAP_SYS_ADMIN); without either, Open fails with ErrPermission.
func TestCapabilities(t *testing.T) {
	testenv.RequireRoot(t)
	setpriv := testenv.RequireBinary(t, "setpriv")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Probe first: a kernel without the tracepoints skips.
	if c, err := Open(); errors.Is(err, ErrUnsupported) {
		testenv.SkipKernelLacks(t, "TCP authentication drop tracepoints (Linux 6.7) with BTF", err.Error())
	} else if err != nil {
		t.Fatalf("Open as root: %v", err)
	} else {
		c.Close()
	}
	for _, c := range []struct {
		drop string
		want []string
	}{
		{"sys_admin", []string{"open=ok", "stats=permission"}},
		{"bpf,sys_admin", []string{"open=permission"}},
		{"perfmon,sys_admin", []string{"open=permission"}},
		{"bpf,perfmon,sys_admin", []string{"open=permission"}},
		{"bpf,perfmon", []string{"open=ok", "stats=ok"}}, // CAP_SYS_ADMIN covers both
		{"net_admin", []string{"open=ok", "stats=ok"}},
	} {
		t.Run("without_"+strings.ReplaceAll(c.drop, ",", "_"), func(t *testing.T) {
			caps := "-" + strings.ReplaceAll(c.drop, ",", ",-")
			cmd := exec.Command(setpriv, "--inh-caps="+caps, "--bounding-set="+caps, "--", self, "-test.run=^$")
			cmd.Env = append(os.Environ(), capsChildEnv+"=1")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v: %v\n%s", cmd.Args, err, out)
			}
			for _, w := range c.want {
				if !strings.Contains(string(out), w+"\n") {
					t.Errorf("without %s: got\n%s\nwant %q", c.drop, out, w)
				}
			}
			t.Logf("without %s: %s", c.drop, strings.ReplaceAll(strings.TrimSpace(string(out)), "\n", "; "))
		})
	}
}

func TestClassify(t *testing.T) {
	perm := classify("load", fmt.Errorf("load program: %w (MEMLOCK may be too low, consider rlimit.RemoveMemlock)", unix.EPERM))
	if !errors.Is(perm, ErrPermission) || !errors.Is(perm, unix.EPERM) || strings.Contains(perm.Error(), "MEMLOCK") ||
		!strings.Contains(perm.Error(), "CAP_BPF") || !strings.HasPrefix(perm.Error(), "kdrops: load: ") {
		t.Errorf("classify(EPERM) = %v", perm)
	}
	uns := classify("attach", fmt.Errorf("x: %w", ebpf.ErrNotSupported))
	if !errors.Is(uns, ErrUnsupported) || errors.Is(uns, ErrPermission) {
		t.Errorf("classify(ErrNotSupported) = %v", uns)
	}
	other := classify("load", unix.EINVAL)
	if errors.Is(other, ErrUnsupported) || errors.Is(other, ErrPermission) || !errors.Is(other, unix.EINVAL) {
		t.Errorf("classify(EINVAL) = %v", other)
	}
}

// ifIndexIn returns the ifindex of interface name in namespace ns.
func ifIndexIn(t *testing.T, ns, name string) uint32 {
	t.Helper()
	var idx int
	if err := netns.Do(ns, func() error {
		ifc, err := net.InterfaceByName(name)
		if err == nil {
			idx = ifc.Index
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return uint32(idx)
}

// TestLinkLocalIfIndex: two links of R, eth1 and eth2, whose far ends
// both have fe80::2 (unnumbered peers). A wrong-key SYN from the one on
// eth1 and an unsigned SYN from the one on eth2 are counted under
// fe80::2 with the ifindex of the interface each came in on, never the
// other's; global addresses keep ifindex 0. When the verifier refuses
// the ifindex read (testBreakIfIndex), the drops are still counted, with
// ifindex 0, and IfIndexErr says why.
func TestLinkLocalIfIndex(t *testing.T) {
	testenv.RequireRoot(t)
	tp := netns.New(t, "llif")
	r, p1, p2 := tp.Add("r"), tp.Add("p1"), tp.Add("p2")
	tp.Link(r, "eth1", []string{"fe80::1/64", "2001:db8:1::1/64"}, p1, "eth0", []string{"fe80::2/64", "2001:db8:1::2/64"})
	tp.Link(r, "eth2", []string{"fe80::1/64"}, p2, "eth0", []string{"fe80::2/64"})
	eth1, eth2 := ifIndexIn(t, r, "eth1"), ifIndexIn(t, r, "eth2")
	if eth1 == eth2 || eth1 == 0 || eth2 == 0 {
		t.Fatalf("ifindexes eth1 %d, eth2 %d", eth1, eth2)
	}
	c := openIn(t, r, maxEntries)
	if err := c.IfIndexErr(); err != nil {
		t.Fatalf("IfIndexErr = %v", err)
	}

	ll1, ll2 := mustAddr("fe80::1"), mustAddr("fe80::2")
	global := mustAddr("2001:db8:1::2")
	listen(t, r, netip.AddrPortFrom(netip.IPv6Unspecified(), portR),
		md5auth.AddrKey(ll2, secretA), md5auth.AddrKey(global, secretA))
	// Numeric zones: Go's zone-name cache is the process's, not the
	// namespace's.
	zone := func(ns string) string { return strconv.Itoa(int(ifIndexIn(t, ns, "eth0"))) }
	z1, z2 := zone(p1), zone(p2)
	to1, to2 := netip.AddrPortFrom(ll1.WithZone(z1), portR), netip.AddrPortFrom(ll1.WithZone(z2), portR)
	from1, from2 := ll2.WithZone(z1), ll2.WithZone(z2)
	parallel(t,
		// The eth1 peer signs with the wrong key, the eth2 one not at all.
		func() error { return dialDropped(p1, from1, to1, keyFor(ll1, secretX), dropTimeout) },
		func() error { return dialDropped(p2, from2, to2, nil, dropTimeout) },
		// A global address of the eth1 peer: no ifindex.
		func() error {
			return dialDropped(p1, global, netip.AddrPortFrom(mustAddr("2001:db8:1::1"), portR), keyFor(mustAddr("2001:db8:1::1"), secretX), dropTimeout)
		},
	)
	m := counts(t, c)
	t.Logf("R counts (eth1 = if%d, eth2 = if%d): %v", eth1, eth2, m)
	want := map[Key]bool{
		{Addr: ll2, Reason: BadDigest, IfIndex: eth1}: true,
		{Addr: ll2, Reason: Missing, IfIndex: eth2}:   true,
		{Addr: global, Reason: BadDigest}:             true,
	}
	for k, n := range m {
		if !want[k] {
			t.Errorf("unexpected count %v = %d", k, n)
		}
	}
	for k := range want {
		if m[k] == 0 {
			t.Errorf("no count for %v", k)
		}
	}

	t.Run("verifier refuses the ifindex read", func(t *testing.T) {
		testBreakIfIndex = true
		defer func() { testBreakIfIndex = false }()
		c := openIn(t, r, maxEntries)
		err := c.IfIndexErr()
		if err == nil || !strings.Contains(err.Error(), "skb_iif") {
			t.Fatalf("IfIndexErr = %v, want the verifier's refusal naming skb_iif", err)
		}
		t.Logf("IfIndexErr: %v", err)
		if err := dialDropped(p1, from1, to1, keyFor(ll1, secretX), 400*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		m := counts(t, c)
		if len(m) != 1 || m[Key{Addr: ll2, Reason: BadDigest}] == 0 {
			t.Fatalf("counts %v, want only %v (ifindex 0)", m, Key{Addr: ll2, Reason: BadDigest})
		}
	})
}
