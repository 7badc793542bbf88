//go:build linux

package fib

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/netdev"
)

// Privileged tests of Kernel against the kernel of a throw-away network
// namespace, with iproute2 as the independent oracle:
//
//	sudo go test -run Kernel -v ./fib
//
// FIB_MILLION=1 also measures 1,000,000 routes (TestKernelMillion), and
// FIB_WRITE_TESTDATA=1 writes real kernel route messages as fuzz seeds
// (TestKernelCaptureSeeds).

// node is a namespace a with eth0 (192.0.2.1/24, 2001:db8::1/64) on a veth
// to a namespace b (192.0.2.2, .3, 2001:db8::2, ::3), and a Kernel in a.
type node struct {
	ns   string
	k    *Kernel
	eth0 int
}

func newNode(t *testing.T) node {
	testenv.RequireRoot(t)
	testenv.RequireBinary(t, "ip")
	tp := netns.New(t, "fibk")
	a, b := tp.Add("a"), tp.Add("b")
	tp.Link(a, "eth0", []string{"192.0.2.1/24", "2001:db8::1/64"}, b, "eth0", []string{"192.0.2.2/24", "192.0.2.3/24", "2001:db8::2/64", "2001:db8::3/64"})
	n := node{ns: a}
	if err := netns.Do(a, func() (err error) {
		if n.k, err = OpenKernel(); err != nil {
			return err
		}
		n.eth0, err = netdev.IfIndex("eth0")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.k.Close() })
	return n
}

func (n node) ip(t *testing.T, args ...string) string {
	t.Helper()
	return netns.Run(t, "ip", append([]string{"-n", n.ns}, args...)...)
}

// show is iproute2's view of the routes of proto bgp for exactly dst.
func (n node) show(t *testing.T, table uint32, dst netip.Prefix) string {
	t.Helper()
	fam := "-6"
	if dst.Addr().Is4() {
		fam = "-4"
	}
	return strings.TrimSpace(n.ip(t, fam, "route", "show", "table", fmt.Sprint(table), "proto", "bgp", "exact", dst.String()))
}

func (n node) write(t *testing.T, ops ...Op) []error {
	t.Helper()
	errs := make([]error, len(ops))
	n.k.Write(ops, errs)
	return errs
}

func mustWrite(t *testing.T, n node, ops ...Op) {
	t.Helper()
	for i, err := range n.write(t, ops...) {
		if err != nil {
			t.Fatalf("op %d (%s): %v", i, ops[i], err)
		}
	}
}

// ipArgs are iproute2's arguments for r (`ip route add ...`).
func ipArgs(r Route, dev string) []string {
	fam := "-6"
	if r.Dst.Addr().Is4() {
		fam = "-4"
	}
	args := []string{fam, "route", "add", r.Dst.String(), "table", fmt.Sprint(r.Table), "proto", "bgp", "metric", fmt.Sprint(Metric)}
	hop := func(n NextHop) []string {
		var a []string
		if n.Gateway.IsValid() {
			a = append(a, "via")
			if r.Dst.Addr().Is4() && n.Gateway.Is6() {
				a = append(a, "inet6")
			}
			a = append(a, n.Gateway.String())
		}
		if n.Ifindex != 0 {
			a = append(a, "dev", dev)
		}
		return a
	}
	if len(r.NextHops) == 1 {
		return append(args, hop(r.NextHops[0])...)
	}
	for _, n := range r.NextHops {
		args = append(append(args, "nexthop"), hop(n)...)
	}
	return args
}

// TestKernelLikeIproute2: each route written by Write shows in `ip route`
// exactly as the same route added by iproute2, Delete removes it, and Dump
// reads iproute2's route back as the route written.
func TestKernelLikeIproute2(t *testing.T) {
	n := newNode(t)
	e := n.eth0
	routes := []Route{
		route(MainTable, "198.51.100.0/24", via("192.0.2.2", 0)),
		route(MainTable, "198.51.101.0/24", via("192.0.2.2", e)),
		route(1000, "198.51.102.0/24", via("192.0.2.2", e)),
		// RFC 8950: an IPv4 route through an IPv6 link-local next hop.
		route(MainTable, "198.51.103.0/24", via("fe80::1", e)),
		route(MainTable, "198.51.104.0/24", via("192.0.2.2", e), via("192.0.2.3", e)),
		route(100, "198.51.105.0/24", via("192.0.2.2", e), via("fe80::1", e)),
		route(100, "0.0.0.0/0", via("192.0.2.3", e)),
		route(MainTable, "203.0.113.7/32", via("192.0.2.2", 0)),
		route(MainTable, "2001:db8:1::/48", via("2001:db8::2", 0)),
		route(MainTable, "2001:db8:2::/48", via("fe80::1", e)),
		route(MainTable, "2001:db8:3::/48", via("2001:db8::2", e), via("2001:db8::3", e)),
		route(1000, "2001:db8:4::/48", via("fe80::1", e), via("fe80::2", e), via("2001:db8::3", e)),
		route(1000, "::/0", via("fe80::1", e)),
	}
	for _, r := range routes {
		mustWrite(t, n, Op{Route: r})
		ours := n.show(t, r.Table, r.Dst)
		mustWrite(t, n, Op{Route: r}) // replace: idempotent
		if again := n.show(t, r.Table, r.Dst); again != ours {
			t.Errorf("%s written twice:\n%s\nonce:\n%s", r, again, ours)
		}
		mustWrite(t, n, Op{Delete: true, Route: r})
		if s := n.show(t, r.Table, r.Dst); s != "" {
			t.Fatalf("%s after delete: %s", r, s)
		}
		n.ip(t, ipArgs(r, "eth0")...)
		theirs := n.show(t, r.Table, r.Dst)
		if ours != theirs || ours == "" {
			t.Errorf("ip route show\n ours:     %s\n iproute2: %s", ours, theirs)
		} else {
			t.Logf("%s", strings.ReplaceAll(ours, "\n", " / "))
		}
		got, err := n.k.Dump()
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || !r.Matches(got[0]) {
			t.Errorf("Dump of iproute2's %s: %v", r, got)
		}
		mustWrite(t, n, Op{Delete: true, Route: r})
	}
	// A replace changes the next hops in place (IPv4 and IPv6, one and
	// several).
	for _, rs := range [][2]Route{
		{route(MainTable, "198.51.100.0/24", via("192.0.2.2", e), via("192.0.2.3", e)), route(MainTable, "198.51.100.0/24", via("fe80::1", e))},
		{route(MainTable, "2001:db8:1::/48", via("2001:db8::2", e)), route(MainTable, "2001:db8:1::/48", via("2001:db8::2", e), via("fe80::1", e))},
		{route(MainTable, "2001:db8:1::/48", via("2001:db8::2", e), via("fe80::1", e)), route(MainTable, "2001:db8:1::/48", via("2001:db8::3", e))},
	} {
		mustWrite(t, n, Op{Route: rs[0]})
		mustWrite(t, n, Op{Route: rs[1]})
		got, err := n.k.Dump()
		if err != nil {
			t.Fatal(err)
		}
		if i := slices.IndexFunc(got, func(r Route) bool { return r.Key == rs[1].Key }); i < 0 || !got[i].Equal(rs[1]) {
			t.Errorf("replace %s by %s: Dump %v\n%s", rs[0], rs[1], got, n.show(t, MainTable, rs[1].Dst))
		}
	}
	mustWrite(t, n, Op{Delete: true, Route: route(MainTable, "198.51.100.0/24")}, Op{Delete: true, Route: route(MainTable, "2001:db8:1::/48")})
}

// TestKernelBatchErrors: a refused route in the middle of a batch has its
// error, the others are installed; a delete of a route that is not there
// (or not ours) is ErrNotFound and leaves the others' routes alone.
func TestKernelBatchErrors(t *testing.T) {
	n := newNode(t)
	e := n.eth0
	ops := []Op{
		{Route: route(MainTable, "198.51.100.0/24", via("192.0.2.2", 0))},
		{Route: route(MainTable, "198.51.101.0/24", via("203.0.113.1", 0))}, // not on a connected network
		{Route: route(MainTable, "2001:db8:1::/48", via("2001:db8::2", 0))},
		{Route: route(MainTable, "198.51.102.0/24", NextHop{Ifindex: 99999})},                     // no such device
		{Route: Route{Key: Key{Table: MainTable, Dst: netip.MustParsePrefix("198.51.103.0/24")}}}, // no next hop
		{Route: route(MainTable, "198.51.104.0/24", via("192.0.2.3", e))},
	}
	errs := n.write(t, ops...)
	for i, err := range errs {
		t.Logf("op %d: %v", i, err)
	}
	if errs[0] != nil || errs[2] != nil || errs[5] != nil {
		t.Errorf("good routes refused: %v", errs)
	}
	if !errors.Is(errs[1], unix.ENETUNREACH) || !strings.Contains(errs[1].Error(), "fib: replace 198.51.101.0/24 table 254 via 203.0.113.1: ") {
		t.Errorf("unreachable gateway: %v", errs[1])
	}
	if !errors.Is(errs[3], unix.ENODEV) {
		t.Errorf("no such device: %v", errs[3])
	}
	if errs[4] == nil {
		t.Errorf("a route without next hop was written")
	}
	got, err := n.k.Dump()
	if err != nil {
		t.Fatal(err)
	}
	want := []Route{ops[0].Route, ops[5].Route, ops[2].Route}
	if !slices.EqualFunc(want, got, Route.Matches) {
		t.Errorf("Dump: %v, want %v", got, want)
	}
	// Deletes: of routes that are not there, and of a route that is
	// someone else's (static, and bgp of another metric).
	n.ip(t, "route", "add", "198.51.110.0/24", "via", "192.0.2.2", "proto", "static", "metric", "20")
	n.ip(t, "route", "add", "198.51.111.0/24", "via", "192.0.2.2", "proto", "bgp", "metric", "30")
	n.ip(t, "-6", "route", "add", "2001:db8:10::/48", "via", "2001:db8::2", "proto", "static", "metric", "20")
	errs = n.write(t,
		Op{Delete: true, Route: route(MainTable, "198.51.100.0/24")},
		Op{Delete: true, Route: route(MainTable, "198.51.101.0/24")},
		Op{Delete: true, Route: route(MainTable, "198.51.110.0/24")},
		Op{Delete: true, Route: route(MainTable, "198.51.111.0/24")},
		Op{Delete: true, Route: route(MainTable, "2001:db8:10::/48")},
		Op{Delete: true, Route: route(MainTable, "2001:db8:99::/48")},
		Op{Delete: true, Route: route(1000, "2001:db8:1::/48")},
		Op{Delete: true, Route: route(MainTable, "2001:db8:1::/48")},
	)
	for i, err := range errs {
		t.Logf("delete %d: %v", i, err)
		if ok := i == 0 || i == 7; ok != (err == nil) || !ok && !errors.Is(err, ErrNotFound) {
			t.Errorf("delete %d: %v", i, err)
		}
	}
	for _, c := range []string{"198.51.110.0/24", "198.51.111.0/24", "2001:db8:10::/48"} {
		fam := "-4"
		if strings.Contains(c, ":") {
			fam = "-6"
		}
		if s := n.ip(t, fam, "route", "show", "exact", c); s == "" {
			t.Errorf("%s (not ours) was deleted", c)
		}
	}
	if got, err := n.k.Dump(); err != nil || len(got) != 1 || !got[0].Equal(ops[5].Route) {
		t.Errorf("Dump: %v, %v; want only %s", got, err, ops[5].Route)
	}
}

// TestKernelResolve: how a table reaches an address.
func TestKernelResolve(t *testing.T) {
	n := newNode(t)
	e := n.eth0
	n.ip(t, "route", "add", "198.51.100.0/24", "via", "192.0.2.3", "table", "1000")
	n.ip(t, "route", "add", "192.0.2.0/24", "dev", "eth0", "table", "1000")
	n.ip(t, "route", "add", "blackhole", "203.0.113.0/24", "table", "1000")
	n.ip(t, "-6", "route", "add", "2001:db8:5::/48", "via", "fe80::5", "dev", "eth0")
	for _, c := range []struct {
		table uint32
		addr  string
		want  NextHop
		err   error
	}{
		{MainTable, "192.0.2.2", via("192.0.2.2", e), nil},
		// Another table is looked up through its VRF device (this
		// host's kernel has none): without one, there is no route.
		{1000, "192.0.2.2", NextHop{}, ErrUnreachable},
		{1000, "198.51.100.9", NextHop{}, ErrUnreachable},
		{MainTable, "192.0.2.1", NextHop{}, ErrUnreachable}, // local
		{MainTable, "198.51.100.9", NextHop{}, ErrUnreachable},
		{1000, "203.0.113.1", NextHop{}, ErrUnreachable},
		{77, "192.0.2.2", NextHop{}, ErrUnreachable}, // an empty table
		{MainTable, "2001:db8::3", via("2001:db8::3", e), nil},
		{MainTable, "2001:db8:5::1", via("fe80::5", e), nil},
		{MainTable, "2001:db8:6::1", NextHop{}, ErrUnreachable},
		{1000, "2001:db8::3", NextHop{}, ErrUnreachable},
	} {
		got, err := n.k.Resolve(c.table, netip.MustParseAddr(c.addr))
		t.Logf("Resolve(%d, %s) = %v, %v", c.table, c.addr, got, err)
		if got != c.want || !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("Resolve(%d, %s) = %v, %v; want %v, %v", c.table, c.addr, got, err, c.want, c.err)
		}
	}
}

// TestKernelWatch: Watch tells of our routes written and deleted, of
// iproute2's deletes and flushes, and of an operator's route put in place
// of ours.
func TestKernelWatch(t *testing.T) {
	n := newNode(t)
	e := n.eth0
	events := make(chan Event, 1000)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- n.k.Watch(ctx, func(ev Event) { events <- ev }) }()
	// Watch has joined its groups once it sees a first route.
	probe := route(MainTable, "198.51.99.0/24", via("192.0.2.2", e))
	var want func(Event) bool
	next := func(what string) Event {
		t.Helper()
		deadline := time.After(5 * time.Second)
		for {
			select {
			case ev := <-events:
				if want(ev) {
					t.Logf("%s: %+v", what, ev)
					return ev
				}
			case <-deadline:
				t.Fatalf("no event: %s", what)
			}
		}
	}
	want = func(ev Event) bool { return ev.Route.Dst == probe.Dst }
	waitCtx, wcancel := context.WithTimeout(ctx, 5*time.Second)
	defer wcancel()
	netns.WaitFor(waitCtx, func() bool {
		mustWrite(t, n, Op{Route: probe})
		select {
		case ev := <-events:
			return ev.Route.Dst == probe.Dst
		case <-time.After(100 * time.Millisecond):
			return false
		}
	})
	r4 := route(MainTable, "198.51.100.0/24", via("fe80::1", e), via("192.0.2.2", e))
	r6 := route(1000, "2001:db8:1::/48", via("2001:db8::2", e), via("fe80::1", e))
	for _, r := range []Route{r4, r6} {
		mustWrite(t, n, Op{Route: r})
		want = func(ev Event) bool { return ev.Route.Key == r.Key }
		if ev := next("write " + r.String()); ev.Deleted || !ev.Ours() || !ev.Route.Equal(r) {
			t.Errorf("write %s: %+v", r, ev)
		}
	}
	n.ip(t, "route", "del", "198.51.100.0/24", "proto", "bgp")
	want = func(ev Event) bool { return ev.Route.Key == r4.Key }
	if ev := next("ip route del"); !ev.Deleted || !ev.Ours() {
		t.Errorf("ip route del: %+v", ev)
	}
	n.ip(t, "-6", "route", "flush", "proto", "bgp", "table", "1000")
	want = func(ev Event) bool { return ev.Route.Key == r6.Key }
	if ev := next("ip route flush"); !ev.Deleted || !ev.Ours() {
		t.Errorf("ip -6 route flush: %+v", ev)
	}
	// The operator's static route of the same metric replaces ours.
	mustWrite(t, n, Op{Route: r4})
	want = func(ev Event) bool { return ev.Route.Key == r4.Key }
	next("write again")
	n.ip(t, "route", "replace", "198.51.100.0/24", "via", "192.0.2.3", "proto", "static", "metric", "20")
	if ev := next("operator's replace"); ev.Deleted || ev.Ours() || ev.Protocol != 4 || !ev.Route.Equal(route(MainTable, "198.51.100.0/24", via("192.0.2.3", e))) {
		t.Errorf("operator's replace: %+v", ev)
	}
	if _, err := n.k.Dump(); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Watch returned %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Watch did not return after its context ended")
	}
	if err := n.k.Watch(context.Background(), func(Event) {}); err == nil {
		t.Error("a second Watch ran")
	}
}

// TestKernelWatchLost: a burst of notifications larger than Watch's
// buffer ends in a Lost event.
func TestKernelWatchLost(t *testing.T) {
	if os.Getenv("FIB_MILLION") == "" && testing.Short() {
		t.Skip("SKIP: -short")
	}
	n := newNode(t)
	lost := make(chan struct{}, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Watch is not reading: its socket fills while the routes go in.
	var gate = make(chan struct{})
	go n.k.Watch(ctx, func(ev Event) {
		<-gate
		if ev.Lost {
			select {
			case lost <- struct{}{}:
			default:
			}
		}
	})
	time.Sleep(200 * time.Millisecond)
	ops := manyRoutes(100000, n.eth0)
	errs := make([]error, len(ops))
	n.k.Write(ops, errs)
	close(gate)
	select {
	case <-lost:
	case <-time.After(10 * time.Second):
		t.Fatal("no Lost event after 100,000 notifications")
	}
}

// manyRoutes returns count replace ops of /32s of 10.0.0.0/8 via 192.0.2.2.
func manyRoutes(count, ifindex int) []Op {
	ops := make([]Op, count)
	nh := []NextHop{via("192.0.2.2", ifindex)}
	for i := range ops {
		a := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
		ops[i] = Op{Route: Route{Key: Key{Table: MainTable, Dst: netip.PrefixFrom(a, 32)}, NextHops: nh}}
	}
	return ops
}

// TestKernelMillion measures (FIB_MILLION=1) what the reconciler's
// writes and full looks cost at 1,000,000 IPv4 routes: Write's throughput
// against `ip -batch` of the same routes (in another namespace), and
// Dump's time and allocations.
func TestKernelMillion(t *testing.T) {
	if os.Getenv("FIB_MILLION") == "" {
		t.Skip("SKIP: set FIB_MILLION=1 to measure 1,000,000 routes (a minute, ~1 GB)")
	}
	const count = 1000000
	n := newNode(t)
	ops := manyRoutes(count, n.eth0)
	errs := make([]error, len(ops))
	start := time.Now()
	n.k.Write(ops, errs)
	wd := time.Since(start)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("op %d: %v", i, err)
		}
	}
	t.Logf("Write: %d replaces in %v (%.0f routes/s, batches of %d)", count, wd, count/wd.Seconds(), n.k.batch)
	// Again: every route is there (replace in place).
	start = time.Now()
	n.k.Write(ops, errs)
	wd = time.Since(start)
	t.Logf("Write again (in place): %v (%.0f routes/s)", wd, count/wd.Seconds())
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	start = time.Now()
	got, err := n.k.Dump()
	dd := time.Since(start)
	runtime.ReadMemStats(&ms1)
	if err != nil || len(got) != count {
		t.Fatalf("Dump: %d routes, %v", len(got), err)
	}
	t.Logf("Dump: %d routes in %v, %d allocations, %d MB allocated", len(got), dd, ms1.Mallocs-ms0.Mallocs, (ms1.TotalAlloc-ms0.TotalAlloc)>>20)
	// A dump with no routes of ours among 1M of someone else's.
	n2 := newNode(t)
	f, err := os.CreateTemp(t.TempDir(), "batch")
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for _, op := range ops {
		fmt.Fprintf(w, "route replace %s via 192.0.2.2 dev eth0 proto bgp metric 20\n", op.Route.Dst)
	}
	w.Flush()
	f.Close()
	start = time.Now()
	n2.ip(t, "-batch", f.Name())
	bd := time.Since(start)
	t.Logf("ip -batch: %d replaces in %v (%.0f routes/s)", count, bd, count/bd.Seconds())
	n.ip(t, "route", "flush", "proto", "bgp")
	n.ip(t, "-batch", f.Name())
	netns.Run(t, "sed", "-i", "s/proto bgp/proto static/", f.Name())
	n.ip(t, "route", "flush", "proto", "bgp")
	n.ip(t, "-batch", f.Name())
	start = time.Now()
	got, err = n.k.Dump()
	t.Logf("Dump of none of ours among %d static routes: %v (%d, %v)", count, time.Since(start), len(got), err)
}

// TestKernelCaptureSeeds (FIB_WRITE_TESTDATA=1) writes the kernel's own
// messages of iproute2's routes of proto bgp as seeds of FuzzParseRoute.
func TestKernelCaptureSeeds(t *testing.T) {
	if os.Getenv("FIB_WRITE_TESTDATA") == "" {
		t.Skip("SKIP: set FIB_WRITE_TESTDATA=1 to write testdata/fuzz/FuzzParseRoute")
	}
	n := newNode(t)
	for _, args := range [][]string{
		{"route", "add", "198.51.100.0/24", "via", "192.0.2.2", "proto", "bgp", "metric", "20"},
		{"route", "add", "198.51.101.0/24", "via", "inet6", "fe80::1", "dev", "eth0", "proto", "bgp", "metric", "20", "table", "1000"},
		{"route", "add", "198.51.102.0/24", "proto", "bgp", "metric", "20", "nexthop", "via", "192.0.2.2", "nexthop", "via", "inet6", "fe80::1", "dev", "eth0"},
		{"route", "add", "default", "via", "192.0.2.3", "proto", "bgp", "metric", "20", "table", "100"},
		{"-6", "route", "add", "2001:db8:1::/48", "proto", "bgp", "metric", "20", "nexthop", "via", "2001:db8::2", "nexthop", "via", "fe80::1", "dev", "eth0"},
		{"-6", "route", "add", "default", "via", "fe80::1", "dev", "eth0", "proto", "bgp", "metric", "20", "table", "1000"},
		{"-6", "route", "add", "2001:db8:2::/48", "dev", "eth0", "proto", "bgp", "metric", "20"},
	} {
		n.ip(t, args...)
	}
	dir := "testdata/fuzz/FuzzParseRoute"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	count := 0
	for _, fam := range []uint8{afInet, afInet6} {
		err := n.k.request(appendDumpRequest(nil, fam, Protocol, n.k.nextSeq()), func(typ uint16, body []byte) bool {
			if typ == rtmNewRoute {
				r, m, ok := parseRoute(body, nil)
				if !ok || !m.ours() {
					t.Errorf("kernel message not parsed as ours: %s %+v %v", r, m, ok)
				}
				count++
				name := fmt.Sprintf("%s/kernel-%d", dir, count)
				data := "go test fuzz v1\n[]byte(" + strconv.Quote(string(body)) + ")\n"
				if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("%s: %s", name, r)
			}
			return false
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
