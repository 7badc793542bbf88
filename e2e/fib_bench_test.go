//go:build linux

package e2e

// A full table into the kernel (issue 43): FRR announces N IPv4 /24s over
// TCP-MD5 to one receiver, which installs them into its namespace's main
// routing table. Receivers, each in a fresh namespace pair, in an order
// that rotates from round to round:
//
//	authbgpd        [fib] enabled = true: its best paths into the kernel
//	authbgpd-nofib  [fib] enabled = false: the same without the kernel,
//	                so the kernel's share is known (measured until its
//	                RIB holds all N)
//	bird            Debian's BIRD 2 with `protocol kernel { ipv4 { export all; }; }`
//	frr             FRR's bgpd with zebra (both running, zebra installs)
//
// Per receiver: the time from Established until all N routes of the
// receiver's protocol (proto bgp for authbgpd and FRR, proto bird for
// BIRD) are in the main table, the receiver's CPU (user+sys of all its
// processes, from the sender's start to then), its VmHWM (bgpd's plus
// zebra's for FRR), and its CPU over an idle window with every route
// installed and no churn. Established is the sender's (one FRR for all):
// the time its log says the session came up, in ms.
// Runs only with BENCH_SCALE=1:
//
//	BENCH_SCALE=1 go test -run '^$' -bench FIBFullTable -benchtime 1x -timeout 120m -v ./e2e/
//
// Knobs:
//
//	FIB_PREFIXES=N      IPv4 /24s the sender announces (default 1000000)
//	FIB_RECEIVERS=a,b   receivers (default authbgpd,authbgpd-nofib,bird,frr)
//	FIB_ROUNDS=N        trials per receiver (default 1); figures are medians
//	FIB_IDLE=N          seconds of the idle window (default 60; 0 = none)
//
// Lines starting with "GOAL " hold the figures: authbgpd's time and VmHWM
// against FRR's are goals, the rest is information.

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
)

// Route protocols (rtm_protocol) the receivers install with.
const (
	rtprotBIRD = 12  // RTPROT_BIRD
	rtprotBGP  = 186 // RTPROT_BGP: FRR's zebra and authbgpd
)

// fibIdleSettle is how long a receiver rests after the last route before
// the idle window starts (a transfer's tail: zebra's and bgpd's last
// batches, a Go heap's first scavenging).
const fibIdleSettle = 5 * time.Second

func BenchmarkFIBFullTable(b *testing.B) {
	if os.Getenv("BENCH_SCALE") != "1" {
		b.Skip("BENCH_SCALE=1 runs the FIB benchmark (a full table into the kernel; minutes per receiver)")
	}
	testenv.RequireRoot(b)
	testenv.RequireBinary(b, "bgpd", "/usr/lib/frr")
	n := envInt("FIB_PREFIXES", 1000000)
	idle := time.Duration(envCount("FIB_IDLE", 60)) * time.Second
	rounds := envInt("FIB_ROUNDS", 1)
	receivers := strings.Split(envStr("FIB_RECEIVERS", "authbgpd,authbgpd-nofib,bird,frr"), ",")
	b.Logf("load average at start: %s", loadAvg())
	res := map[string][]fibTrial{}
	for r := 0; r < rounds; r++ {
		for i := range receivers {
			name := receivers[(i+r)%len(receivers)]
			t := fibTrialRun(b, name, n, idle)
			res[name] = append(res[name], t)
			b.Logf("round %d %-14s %d prefixes: established->all %.3fs start->all %.3fs cpu %.3fs (sys %.3fs) hwm %.1f MB | idle cpu %.3fs over %v, rss %.1f MB | %d routes in the kernel | load %s",
				r+1, name, n, t.estToAll.Seconds(), t.startToAll.Seconds(), t.cpu.Seconds(), t.sys.Seconds(), float64(t.hwm)/1024,
				t.idleCPU.Seconds(), idle, float64(t.rss)/1024, t.kernel, t.load)
		}
	}
	b.Logf("load average at the end: %s", loadAvg())
	med := func(name string, f func(fibTrial) float64) float64 {
		var xs []float64
		for _, t := range res[name] {
			xs = append(xs, f(t))
		}
		return median(xs)
	}
	est := func(t fibTrial) float64 { return t.estToAll.Seconds() }
	cpu := func(t fibTrial) float64 { return t.cpu.Seconds() }
	hwm := func(t fibTrial) float64 { return float64(t.hwm) / 1024 }
	idleCPU := func(t fibTrial) float64 { return t.idleCPU.Seconds() }
	for _, name := range receivers {
		if len(res[name]) == 0 {
			continue
		}
		what := "Established -> all %d routes in the kernel"
		if name == "authbgpd-nofib" || name == "authbgpd-policy10" {
			what = "Established -> all %d prefixes in the RIB"
		}
		info(b, fmt.Sprintf("%s: "+what, name, n), med(name, est), "s")
		info(b, fmt.Sprintf("%s: receiver CPU (user+sys)", name), med(name, cpu), "s")
		info(b, fmt.Sprintf("%s: VmHWM", name), med(name, hwm), "MB")
		if idle > 0 {
			info(b, fmt.Sprintf("%s: idle CPU over %v, all routes in", name, idle), med(name, idleCPU), "s")
			b.ReportMetric(med(name, idleCPU), name+"-idle-cpu-s")
		}
		b.ReportMetric(med(name, est), name+"-s")
		b.ReportMetric(med(name, cpu), name+"-cpu-s")
		b.ReportMetric(med(name, hwm), name+"-hwm-MB")
	}
	has := func(name string) bool { return len(res[name]) > 0 }
	if has("authbgpd") && has("frr") {
		a, f := med("authbgpd", est), med("frr", est)
		goal(b, "authbgpd time to all in the kernel <= FRR's (s)", a, "s", fmt.Sprintf("<= %.3f", f), a <= f)
		ah, fh := med("authbgpd", hwm), med("frr", hwm)
		goal(b, "authbgpd VmHWM <= FRR's (bgpd + zebra) (MB)", ah, "MB", fmt.Sprintf("<= %.1f", fh), ah <= fh)
	}
	if has("authbgpd-policy10") && has("authbgpd-nofib") {
		info(b, "authbgpd: a 10-statement import policy's share of the time (policy10 - nofib)", med("authbgpd-policy10", est)-med("authbgpd-nofib", est), "s")
		info(b, "authbgpd: a 10-statement import policy's share of the CPU (policy10 - nofib)", med("authbgpd-policy10", cpu)-med("authbgpd-nofib", cpu), "s")
	}
	if has("authbgpd") && has("authbgpd-nofib") {
		info(b, "authbgpd: the kernel's share of the time (fib - nofib)", med("authbgpd", est)-med("authbgpd-nofib", est), "s")
		info(b, "authbgpd: the kernel's share of the CPU (fib - nofib)", med("authbgpd", cpu)-med("authbgpd-nofib", cpu), "s")
		info(b, "authbgpd: the kernel's share of VmHWM (fib - nofib)", med("authbgpd", hwm)-med("authbgpd-nofib", hwm), "MB")
	}
}

// fibTrial is one receiver's figures.
type fibTrial struct {
	estToAll, startToAll time.Duration
	cpu, sys             time.Duration // all its processes, sender start -> all
	hwm                  int64         // kB, summed over its processes, at "all"
	rss                  int64         // kB, summed, after the idle window
	idleCPU              time.Duration
	kernel               int    // routes of its protocol in the main table at the end
	load                 string // /proc/loadavg at "all"
}

// fibReceiver is a running receiver: its processes, the route protocol
// it installs with (0: none, count its RIB with rib instead).
type fibReceiver struct {
	a        *Authbgpd // authbgpd's receivers
	pids     []int
	proto    uint8
	rib      func(ctx context.Context) (int, error)
	zebraLog string // FRR: zebra's log, for netlink trouble
}

// fibZebraTrouble is a zebra log line about its netlink sockets falling
// behind (a receive buffer overrun makes it re-read the kernel's tables).
var fibZebraTrouble = regexp.MustCompile(`(?i)overrun|no buffer space|ENOBUFS|netlink.*(error|fail)`)

// fibTrialRun: the sender announces n prefixes to receiver name, each in
// a fresh namespace pair.
func fibTrialRun(b *testing.B, name string, n int, idle time.Duration) fibTrial {
	b.Helper()
	pair := newPair(b, "fib", false)
	tp, nsR, nsS := pair.Topology, pair.A, pair.B
	defer tp.Close()
	var t fibTrial
	rc := startFIBReceiver(b, tp, nsR, name)
	base := 0
	if rc.proto != 0 {
		var err error
		if base, err = fibPrefixes(rc.pids[0]); err != nil {
			b.Fatal(err)
		}
	}
	before, err := sampleProcs(rc.pids)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	start := time.Now()
	// FIB_PPROF=DIR: authbgpd's CPU profile of the transfer's first 20 s,
	// and its heap (in use, and everything allocated) once all are in.
	profDir := os.Getenv("FIB_PPROF")
	profile := func(path, file string) {
		if profDir == "" || rc.a == nil {
			return
		}
		body, err := rc.a.HTTPGetTimeout(path, time.Minute)
		if err == nil {
			err = os.WriteFile(filepath.Join(profDir, name+"."+file), []byte(body), 0o644)
		}
		if err != nil {
			b.Logf("%s: pprof %s: %v", name, path, err)
		}
	}
	go profile("/debug/pprof/profile?seconds=20", "cpu.pprof")
	defer profile("/debug/pprof/allocs", "allocs.pprof")
	defer profile("/debug/pprof/heap", "heap.pprof")
	f := startFRRConf(b, tp, nsS, fibSenderConfig(b, n))
	var end time.Time
	var cost time.Duration // of the last count
	last, done := 0, false
	for ctx.Err() == nil {
		t0 := time.Now()
		if rc.proto != 0 {
			// fib_triestat is cheap to poll (no route crosses to user
			// space); the dump that counts by protocol confirms.
			p, err := fibPrefixes(rc.pids[0])
			end = time.Now()
			cost = end.Sub(t0)
			if err == nil {
				last = p - base
			}
			if last >= n {
				if k, err := countKernelRoutes(nsR, rc.proto); err == nil && k >= n {
					done = true
					break
				}
			}
		} else if c, err := rc.rib(ctx); err == nil {
			end = time.Now()
			if last = c; last >= n {
				done = true
				break
			}
		}
		// Finely near the end, but counting takes at most a fifth of
		// a CPU from a machine the receiver and the sender share
		// (fib_triestat walks the whole trie: ~50 ms at 1M routes).
		step := 250 * time.Millisecond
		if last >= n-n/20 {
			step = 25 * time.Millisecond
		}
		time.Sleep(max(step, 4*cost))
	}
	after, err := sampleProcs(rc.pids)
	if err != nil {
		b.Fatal(err)
	}
	t.load = loadAvg()
	if !done {
		b.Fatalf("%s: %d of %d routes after %v\nsender log:\n%s", name, last, n, time.Since(start), tail(f.Log(), 3000))
	}
	est := senderEstablished(b, f)
	if est.IsZero() {
		b.Fatalf("%s: all routes in, but the sender's log has no session up:\n%s", name, tail(f.Log(), 3000))
	}
	t.estToAll, t.startToAll = end.Sub(est), end.Sub(start)
	t.cpu, t.sys, t.hwm = after.cpu-before.cpu, after.sys-before.sys, after.hwm
	proto := rc.proto
	if proto == 0 {
		proto = rtprotBGP // authbgpd-nofib: none of its routes may be in the kernel
	}
	t0 := time.Now()
	if t.kernel, err = countKernelRoutes(nsR, proto); err != nil {
		b.Fatal(err)
	}
	t1 := time.Now()
	if _, err := fibPrefixes(rc.pids[0]); err != nil {
		b.Fatal(err)
	}
	b.Logf("%s: counting %d routes in the kernel: a filtered dump %v, fib_triestat %v", name, t.kernel, t1.Sub(t0), time.Since(t1))
	if rc.proto == 0 && t.kernel != 0 {
		b.Errorf("%s: %d routes of proto bgp in the kernel with [fib] enabled = false", name, t.kernel)
	}
	if rc.zebraLog != "" {
		raw, _ := os.ReadFile(rc.zebraLog)
		for _, l := range strings.Split(string(raw), "\n") {
			if fibZebraTrouble.MatchString(l) {
				b.Logf("%s: zebra: %s", name, l)
			}
		}
	}
	if idle > 0 {
		time.Sleep(fibIdleSettle)
		i0, err := sampleProcs(rc.pids)
		if err != nil {
			b.Fatal(err)
		}
		time.Sleep(idle)
		i1, err := sampleProcs(rc.pids)
		if err != nil {
			b.Fatal(err)
		}
		t.idleCPU, t.rss = i1.cpu-i0.cpu, i1.rss
	}
	return t
}

// startFIBReceiver starts receiver name in ns, keyed for the sender.
func startFIBReceiver(b *testing.B, tp *netns.Topology, ns, name string) fibReceiver {
	b.Helper()
	switch name {
	case "authbgpd", "authbgpd-nofib", "authbgpd-policy10":
		fib := name == "authbgpd"
		conf := fibAuthbgpdConfig(fib)
		if name == "authbgpd-policy10" { // as authbgpd-nofib, with a 10-statement import policy (fibPolicy10)
			conf = fibPolicy10(conf)
		}
		a := StartAuthbgpd(b, tp, ns, conf, AuthbgpdOptions{LogLevel: "info", Files: map[string]string{"pw": fibPassword + "\n"}})
		rc := fibReceiver{a: a, pids: []int{a.cmd.Process.Pid}}
		if fib {
			rc.proto = rtprotBGP
		} else {
			cli := dialPerfAPI(b, ns)
			rc.rib = func(ctx context.Context) (int, error) {
				ps, err := cli.peers(ctx, pairB4.String())
				if err != nil || len(ps) == 0 {
					return 0, err
				}
				return peerAccepted(ps[0]), nil
			}
		}
		checkComm(b, rc.pids[0], "authbgpd")
		return rc
	case "bird":
		bd := startBIRDKernel(b, tp, ns)
		checkComm(b, bd.cmd.Process.Pid, "bird")
		return fibReceiver{pids: []int{bd.cmd.Process.Pid}, proto: rtprotBIRD}
	case "frr":
		f := startFRRZebra(b, tp, ns, "fib", "hostname fib-zebra\nlog stdout informational\n!\n",
			frrConfig(PeerConfig{ASN: 65001, RouterID: pairA4, Neighbors: []Neighbor{{pairB4, 65002, fibPassword}}}), "")
		raw, err := os.ReadFile(filepath.Join(f.dir, "zebra.pid"))
		if err != nil {
			b.Fatalf("zebra's PID file: %v", err)
		}
		zebra, err := strconv.Atoi(strings.TrimSpace(string(raw)))
		if err != nil {
			b.Fatalf("zebra's PID file: %q", raw)
		}
		checkComm(b, f.cmd.Process.Pid, "bgpd")
		checkComm(b, zebra, "zebra")
		return fibReceiver{pids: []int{f.cmd.Process.Pid, zebra}, proto: rtprotBGP,
			zebraLog: filepath.Join(f.dir, "zebra-fib.log")}
	}
	b.Fatalf("unknown receiver %q (authbgpd, authbgpd-nofib, bird, frr)", name)
	return fibReceiver{}
}

// checkComm fails b unless pid runs the command comm (so `ip netns exec`
// exec'd the daemon in place and the figures are the daemon's).
func checkComm(b testing.TB, pid int, comm string) {
	b.Helper()
	if c := procComm(pid); c != comm {
		b.Fatalf("PID %d is %q, not %s", pid, c, comm)
	}
}

// fibAuthbgpdConfig is authbgpd's config: the sender as its one peer
// (TCP-MD5, the key in the file "pw"), [fib] enabled = fib.
func fibAuthbgpdConfig(fib bool) string {
	return abConf{
		Pprof: os.Getenv("FIB_PPROF") != "",
		Peers: []abPeer{{addr: pairB4.String(), asn: 65002, src: "password-file", ref: "pw"}},
		Tail:  fmt.Sprintf("\n[fib]\nenabled = %t\n", fib),
	}.String()
}

// startBIRDKernel runs BIRD 2 in ns (StartBIRD: the sender as its one
// BGP neighbor, TCP-MD5, import all), then reconfigures it with a kernel
// protocol exporting every route into the main table, with its defaults
// otherwise (a scan of the kernel table every 60 s, learn off).
func startBIRDKernel(b testing.TB, tp *netns.Topology, ns string) *BIRD {
	b.Helper()
	cfg := PeerConfig{ASN: 65001, RouterID: pairA4, Neighbors: []Neighbor{{pairB4, 65002, fibPassword}}}
	bd := StartBIRD(b, tp, ns, cfg)
	conf := birdConfig(cfg, bd.protocols) + "protocol kernel { ipv4 { export all; }; }\n"
	if err := os.WriteFile(filepath.Join(bd.dir, "bird.conf"), []byte(conf), 0o600); err != nil {
		b.Fatal(err)
	}
	if out, err := bd.Birdc(context.Background(), "configure"); err != nil || !strings.Contains(out, "Reconfigured") {
		b.Fatalf("birdc configure with the kernel protocol: %v: %s", err, out)
	}
	return bd
}

// fibSenderConfig is senderConfig with the neighbor's changes logged
// with milliseconds: the sender's log says when the session came up.
func fibSenderConfig(b testing.TB, n int) string {
	conf := senderConfig(n, false, pairA4, fibPassword)
	for _, r := range [][2]string{
		{"log stdout informational\n", "log stdout informational\nlog timestamp precision 3\n"},
		{" bgp router-id 192.0.2.2\n", " bgp router-id 192.0.2.2\n bgp log-neighbor-changes\n"},
	} {
		if !strings.Contains(conf, r[0]) {
			b.Fatalf("sender config has no %q", r[0])
		}
		conf = strings.Replace(conf, r[0], r[1], 1)
	}
	return conf
}

// fibAdjUp is the sender's log line of its session coming up.
var fibAdjUp = regexp.MustCompile(`(?m)^(\d{4}/\d\d/\d\d \d\d:\d\d:\d\d\.\d{3}) .*%ADJCHANGE: neighbor \S+ .*\bUp\b`)

// senderEstablished is when the sender's session came up, from its log
// (fibSenderConfig: in ms), or zero while it has not.
func senderEstablished(b testing.TB, f *FRR) time.Time {
	m := fibAdjUp.FindStringSubmatch(f.Log())
	if m == nil {
		return time.Time{}
	}
	t, err := time.ParseInLocation("2006/01/02 15:04:05.000", m[1], time.Local)
	if err != nil {
		b.Fatalf("sender log: %q: %v", m[0], err)
	}
	return t
}

// sampleProcs is sampleProc summed over pids.
func sampleProcs(pids []int) (procSample, error) {
	var sum procSample
	for _, pid := range pids {
		s, err := sampleProc(pid)
		if err != nil {
			return sum, err
		}
		sum.cpu += s.cpu
		sum.sys += s.sys
		sum.rss += s.rss
		sum.hwm += s.hwm
		sum.anon += s.anon
	}
	return sum, nil
}

func loadAvg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// fibPrefixes is the prefix count of the main table of pid's namespace
// (fib_triestat's "Main:" Prefixes; with no policy rules the kernel keeps
// the local table in the same trie, so it counts those too).
func fibPrefixes(pid int) (int, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/fib_triestat", pid))
	if err != nil {
		return 0, err
	}
	_, mainTable, ok := strings.Cut(string(data), "Main:")
	if !ok {
		return 0, fmt.Errorf("fib_triestat of %d: no Main table", pid)
	}
	_, rest, ok := strings.Cut(mainTable, "Prefixes:")
	if !ok {
		return 0, fmt.Errorf("fib_triestat of %d: no Prefixes", pid)
	}
	v, _, _ := strings.Cut(rest, "\n")
	return strconv.Atoi(strings.TrimSpace(v))
}

// countKernelRoutes counts the IPv4 routes of protocol proto in ns's main
// table: one rtnetlink dump, which the kernel filters by table and
// protocol itself (NETLINK_GET_STRICT_CHK), read in Go without decoding
// more than each route's header. `ip route | wc -l` takes seconds at 1M.
func countKernelRoutes(ns string, proto uint8) (int, error) {
	n := 0
	err := netns.Do(ns, func() error {
		fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
		if err != nil {
			return fmt.Errorf("rtnetlink socket in %s: %w", ns, err)
		}
		defer unix.Close(fd)
		if err := unix.SetsockoptInt(fd, unix.SOL_NETLINK, unix.NETLINK_GET_STRICT_CHK, 1); err != nil {
			return fmt.Errorf("rtnetlink strict check in %s: %w", ns, err)
		}
		req := make([]byte, unix.NLMSG_HDRLEN+unix.SizeofRtMsg)
		binary.NativeEndian.PutUint32(req[0:], uint32(len(req)))
		binary.NativeEndian.PutUint16(req[4:], unix.RTM_GETROUTE)
		binary.NativeEndian.PutUint16(req[6:], unix.NLM_F_REQUEST|unix.NLM_F_DUMP)
		binary.NativeEndian.PutUint32(req[8:], 1)
		rtm := req[unix.NLMSG_HDRLEN:]
		rtm[0], rtm[4], rtm[5] = unix.AF_INET, unix.RT_TABLE_MAIN, proto
		if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
			return fmt.Errorf("rtnetlink dump request in %s: %w", ns, err)
		}
		buf := make([]byte, 1<<20)
		for {
			m, _, err := unix.Recvfrom(fd, buf, 0)
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err != nil {
				return fmt.Errorf("rtnetlink dump in %s: %w", ns, err)
			}
			for p := buf[:m]; len(p) >= unix.NLMSG_HDRLEN; {
				l := int(binary.NativeEndian.Uint32(p))
				if l < unix.NLMSG_HDRLEN || l > len(p) {
					return fmt.Errorf("rtnetlink dump in %s: message of %d bytes in %d", ns, l, len(p))
				}
				body := p[unix.NLMSG_HDRLEN:l]
				switch binary.NativeEndian.Uint16(p[4:]) {
				case unix.NLMSG_DONE:
					return nil
				case unix.NLMSG_ERROR:
					if len(body) >= 4 {
						if e := int32(binary.NativeEndian.Uint32(body)); e != 0 {
							return fmt.Errorf("rtnetlink dump in %s: %w", ns, unix.Errno(-e))
						}
					}
					return nil
				case unix.RTM_NEWROUTE:
					if len(body) >= unix.SizeofRtMsg && body[0] == unix.AF_INET && body[4] == unix.RT_TABLE_MAIN && body[5] == proto {
						n++
					}
				}
				p = p[min((l+unix.NLMSG_ALIGNTO-1)&^(unix.NLMSG_ALIGNTO-1), len(p)):]
			}
		}
	})
	return n, err
}

// TestKernelRoutesCount: countKernelRoutes counts the routes of one protocol in
// the main table, no other protocol's and no other table's; fibPrefixes
// counts the main table's prefixes.
func TestKernelRoutesCount(t *testing.T) {
	testenv.RequireRoot(t)
	tp := netns.New(t, "fibcnt")
	defer tp.Close()
	ns := tp.Add("a")
	cmd := netns.Exec(ns, "sleep", "60") // a process in ns, for /proc/PID/net
	tp.Start(cmd)
	waitFor(t, 5*time.Second, "sleep in "+ns, until(func() bool { return procComm(cmd.Process.Pid) == "sleep" }))
	p0, err := fibPrefixes(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	route := func(args ...string) { netns.Run(t, "ip", append([]string{"-n", ns, "route", "add"}, args...)...) }
	for i := 0; i < 300; i++ {
		route(fmt.Sprintf("10.%d.%d.0/24", i/256, i%256), "dev", "lo", "proto", "bgp")
	}
	route("10.200.0.0/24", "dev", "lo", "proto", "static")
	route("10.201.0.0/24", "dev", "lo", "proto", "bgp", "table", "100")
	route("10.202.0.0/24", "dev", "lo", "proto", "bird")
	for _, c := range []struct {
		proto uint8
		want  int
	}{{rtprotBGP, 300}, {rtprotBIRD, 1}, {4, 1}, {99, 0}} {
		if got, err := countKernelRoutes(ns, c.proto); err != nil || got != c.want {
			t.Errorf("countKernelRoutes(proto %d) = %d, %v; want %d", c.proto, got, err, c.want)
		}
	}
	if got, err := fibPrefixes(cmd.Process.Pid); err != nil || got-p0 != 302 {
		t.Errorf("fibPrefixes: %d more after adding 302 routes to main (%v)", got-p0, err)
	}
}

// fibPolicy10 gives conf's peer (authbgpd-policy10) an import policy of 10
// statements, each matching a prefix set of its own (no prefix of the
// sender's table is in one: every route is evaluated against all 10, then
// accepted by default), gobgpd's schema, GoBGP's engine.
func fibPolicy10(conf string) string {
	var b strings.Builder
	b.WriteString("\n[[policy-definitions]]\n  name = \"ten\"\n")
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&b, "  [[policy-definitions.statements]]\n    name = \"s%d\"\n"+
			"    [policy-definitions.statements.conditions.match-prefix-set]\n      prefix-set = \"ps%d\"\n"+
			"    [policy-definitions.statements.actions]\n      route-disposition = \"reject-route\"\n", i, i)
	}
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&b, "[[defined-sets.prefix-sets]]\n  prefix-set-name = \"ps%d\"\n  [[defined-sets.prefix-sets.prefix-list]]\n    ip-prefix = \"240.%d.0.0/16\"\n    masklength-range = \"16..32\"\n", i, i)
	}
	conf = strings.Replace(conf, "asn = 65002\n", "asn = 65002\nimport-policy-list = [\"ten\"]\n", 1)
	return conf + b.String()
}
