//go:build linux

package e2e

// Performance of the shadow checker (issue 4). Benchmarks, not timed
// tests: they measure and report, and fail only when a result is wrong
// (a segment misjudged, a capture drop).
//
//	go test -run '^$' -bench ShadowPerf -benchtime 1x -timeout 30m ./e2e/
//
// Each sub-benchmark repeats its trials itself and reports medians with
// b.ReportMetric (b.N is ignored; a trial takes seconds), and prints a
// summary. Environment knobs:
//
//	SHADOW_PERF_SEGMENTS=N   segments in the verify-pcap capture (default 300000)
//	SHADOW_PERF_PREFIXES=N   prefixes FRR announces in the live trials (default 100000)
//	SHADOW_PERF_ROUNDS=N     live trials per mode, shadow on and off (default 3)
//
// The figures of a run on the project's CI machine are in
// docs/PERFORMANCE-shadow.md.

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/capture"
	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/frame"
	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/peerindex"
	"github.com/authbgp/authbgpd/shadow"
)

func BenchmarkShadowPerf(b *testing.B) {
	testenv.RequireRoot(b)
	b.Run("verify-pcap-vs-tcpdump", benchShadowVerifyPcap)
	b.Run("live-transfer", benchShadowLive)
}

// ---------------------------------------------------------------- verify-pcap

// pcapRecord is one raw classic-pcap record (header fields and data).
type pcapRecord struct {
	incl, orig uint32
	data       []byte
}

// readPcapRecords reads the records of a classic pcap file (little-endian,
// microsecond timestamps, Ethernet: what tcpdump writes on Linux).
func readPcapRecords(b testing.TB, file string) []pcapRecord {
	b.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	if len(raw) < 24 || binary.LittleEndian.Uint32(raw) != 0xa1b2c3d4 || binary.LittleEndian.Uint32(raw[20:]) != frame.LinkEthernet {
		b.Fatalf("%s: not a little-endian microsecond Ethernet pcap", file)
	}
	var recs []pcapRecord
	for off := 24; off < len(raw); {
		if off+16 > len(raw) {
			b.Fatalf("%s: torn record header at %d", file, off)
		}
		incl := binary.LittleEndian.Uint32(raw[off+8:])
		orig := binary.LittleEndian.Uint32(raw[off+12:])
		end := off + 16 + int(incl)
		if end > len(raw) {
			b.Fatalf("%s: torn record at %d", file, off)
		}
		recs = append(recs, pcapRecord{incl: incl, orig: orig, data: raw[off+16 : end]})
		off = end
	}
	return recs
}

// writeRepeatedPcap writes a pcap of at least n packets: the records of
// srcs, in order, over and over, 10 µs apart from a fixed start.
func writeRepeatedPcap(b testing.TB, out string, n int, srcs ...string) (packets int, size int64) {
	b.Helper()
	var recs []pcapRecord
	for _, s := range srcs {
		recs = append(recs, readPcapRecords(b, s)...)
	}
	var buf bytes.Buffer
	hdr := make([]byte, 24)
	binary.LittleEndian.PutUint32(hdr[0:], 0xa1b2c3d4)
	binary.LittleEndian.PutUint16(hdr[4:], 2)
	binary.LittleEndian.PutUint16(hdr[6:], 4)
	binary.LittleEndian.PutUint32(hdr[16:], 262144)
	binary.LittleEndian.PutUint32(hdr[20:], frame.LinkEthernet)
	buf.Write(hdr)
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rh := make([]byte, 16)
	for packets < n {
		for _, r := range recs {
			ts := start.Add(time.Duration(packets) * 10 * time.Microsecond)
			binary.LittleEndian.PutUint32(rh[0:], uint32(ts.Unix()))
			binary.LittleEndian.PutUint32(rh[4:], uint32(ts.Nanosecond()/1000))
			binary.LittleEndian.PutUint32(rh[8:], r.incl)
			binary.LittleEndian.PutUint32(rh[12:], r.orig)
			buf.Write(rh)
			buf.Write(r.data)
			packets++
		}
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
	return packets, int64(buf.Len())
}

// verifyPcapConfig has the four addresses of the testdata captures as
// peers (each with the captures' key, so every segment is checked against
// its sender's key), plus unrelated static peers, a dynamic range and a
// keychain peer, as a router config would.
func verifyPcapConfig() string {
	c := abConf{RouterID: "192.0.2.254", ListenPort: "-1", NoAPI: true,
		Extra: keychainSection("core", keychainKey{id: 1, secret: "perf-chain-key-1"},
			keychainKey{id: 2, secret: "perf-chain-key-2", sendFrom: "2099-01-01T00:00:00Z"})}
	for _, a := range []string{"192.0.2.1", "192.0.2.2", "2001:db8::1", "2001:db8::2"} {
		c.Peers = append(c.Peers, abPeer{addr: a, asn: 65002, src: "password", ref: oracleKey})
	}
	for i := 1; i <= 16; i++ {
		c.Peers = append(c.Peers, abPeer{addr: fmt.Sprintf("10.1.0.%d", i), asn: uint32(65100 + i), src: "password", ref: fmt.Sprintf("perf-static-key-%d", i)})
	}
	c.Peers = append(c.Peers, abPeer{addr: "198.51.100.0/24", asn: 65200, src: "password", ref: "perf-range-key"},
		abPeer{addr: "203.0.113.9", asn: 65300, src: "keychain", ref: "core"})
	return c.String()
}

// timeCmd runs argv with stdout to /dev/null and returns its wall time.
func timeCmd(b testing.TB, argv ...string) time.Duration {
	b.Helper()
	return timeCmdEnv(b, nil, argv...)
}

// timeCmdEnv is timeCmd with extra environment variables.
func timeCmdEnv(b testing.TB, env []string, argv ...string) time.Duration {
	b.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, tail(stderr.String(), 2000))
	}
	return time.Since(t0)
}

func benchShadowVerifyPcap(b *testing.B) {
	testenv.RequireBinary(b, "tcpdump")
	bin := authbgpdBinary(b, "")
	dir := b.TempDir()
	want := envInt("SHADOW_PERF_SEGMENTS", 300000)
	file := filepath.Join(dir, "repeated.pcap")
	packets, size := writeRepeatedPcap(b, file, want,
		filepath.Join("testdata", "frr-gobgpd-md5-v4.pcap"), filepath.Join("testdata", "frr-gobgpd-md5-v6.pcap"))
	cfgFile := filepath.Join(dir, "verify.toml")
	if err := os.WriteFile(cfgFile, []byte(verifyPcapConfig()), 0o600); err != nil {
		b.Fatal(err)
	}
	cfg, err := config.Load(cfgFile)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("capture: %d packets, %.1f MB, from the testdata captures repeated; config: %d peers", packets, float64(size)/1e6, len(cfg.Peers))

	// Correctness first: every segment checked against its sender's key.
	rep := runVerifyPcap(b, bin, cfgFile, file)
	if len(rep.Files) != 1 || rep.Files[0].Stats.Packets != uint64(packets) || rep.Files[0].Stats.Checked != uint64(packets) {
		b.Fatalf("verify-pcap stats %+v, want %d packets all checked", rep.Files, packets)
	}
	var valid, missing uint64
	for _, p := range rep.Peers {
		s := p.Shadow.Segments
		if s.BadDigest != 0 || s.Unexpected != 0 || p.Shadow.Diagnosis != shadow.DiagOK {
			b.Errorf("verify-pcap %s: %+v %s", p.Address, s, p.Shadow.Diagnosis)
		}
		valid += s.Valid
		missing += s.Missing
	}
	if len(rep.Peers) != 4 || valid+missing != uint64(packets) {
		b.Fatalf("verify-pcap: %d peers, %d valid + %d missing of %d", len(rep.Peers), valid, missing, packets)
	}
	td := tdMD5Verdicts(b, filepath.Join("testdata", "frr-gobgpd-md5-v4.pcap"), oracleKey)
	td6 := tdMD5Verdicts(b, filepath.Join("testdata", "frr-gobgpd-md5-v6.pcap"), oracleKey)
	tdValid1 := 0
	for _, m := range []map[int]*tdMD5{td, td6} {
		for _, p := range m {
			if p.v == tdValid {
				tdValid1++
			}
		}
	}
	reps := packets / (len(td) + len(td6))
	if int(valid) != tdValid1*reps {
		b.Errorf("verify-pcap: %d valid; tcpdump -M finds %d valid per repetition × %d = %d", valid, tdValid1, reps, tdValid1*reps)
	}

	// Whole commands, interleaved, median of 3; verify-pcap also on one
	// core (GOMAXPROCS=1: one verifying worker).
	var tv, tv1, tt []float64
	for i := 0; i < 3; i++ {
		tv = append(tv, timeCmd(b, bin, "verify-pcap", "-f", cfgFile, file).Seconds())
		tv1 = append(tv1, timeCmdEnv(b, []string{"GOMAXPROCS=1"}, bin, "verify-pcap", "-f", cfgFile, file).Seconds())
		tt = append(tt, timeCmd(b, "tcpdump", "-r", file, "-nn", "-v", "-M", oracleKey).Seconds())
	}
	mv, mv1, mt := median(tv), median(tv1), median(tt)

	// In process: ReadCapture alone (no process start, no config load).
	chk := shadow.New(shadow.PeersOf(peerindex.New(cfg)), shadow.Options{IdleAfter: -1})
	data, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	var ms0, ms1 runtime.MemStats
	inproc := time.Duration(1<<63 - 1)
	for i := 0; i < 3; i++ { // best of 3
		runtime.GC()
		runtime.ReadMemStats(&ms0)
		t0 := time.Now()
		if _, err := shadow.ReadCapture(bytes.NewReader(data), chk, nil); err != nil {
			b.Fatal(err)
		}
		inproc = min(inproc, time.Since(t0))
		runtime.ReadMemStats(&ms1)
	}

	// In process, the engine alone (shadow.Offline, what verify-pcap
	// runs after its start-up): one worker on one core against
	// GOMAXPROCS workers, best of 3 each, interleaved. The whole-command
	// ratio above also carries the process's start (package init, the
	// config), which one core or two run alike.
	off := func(procs int) time.Duration {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		t0 := time.Now()
		if _, _, err := (shadow.Offline{Peers: shadow.PeersOf(peerindex.New(cfg)), Options: shadow.Options{IdleAfter: -1}, Workers: procs}).Run([]string{file}); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	procs := runtime.GOMAXPROCS(0)
	best1, bestN := time.Duration(1<<63-1), time.Duration(1<<63-1)
	for i := 0; i < 3; i++ {
		best1, bestN = min(best1, off(1)), min(bestN, off(procs))
	}
	b.ReportMetric(float64(best1)/float64(bestN), "inproc-x-cores")
	fmt.Printf("  in process: shadow.Offline on 1 core %.3f s, on %d %.3f s: %.2fx\n", best1.Seconds(), procs, bestN.Seconds(), float64(best1)/float64(bestN))

	b.ReportMetric(mv, "verify-pcap-s")
	b.ReportMetric(mt, "tcpdump-s")
	b.ReportMetric(mt/mv, "speedup")
	b.ReportMetric(mv1/mv, "x-cores")
	b.ReportMetric(float64(packets)/mv, "verify-pcap-seg/s")
	b.ReportMetric(float64(inproc.Nanoseconds())/float64(packets), "inproc-ns/seg")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/float64(packets), "inproc-allocs/seg")
	summary := fmt.Sprintf("verify-pcap vs tcpdump -M on %d segments (%.1f MB), %d peers configured:\n"+
		"  authbgpd verify-pcap  %s s (median %.3f s, %.0f segments/s)\n"+
		"  the same, GOMAXPROCS=1 %s s (median %.3f s)\n"+
		"  tcpdump -r -nn -v -M  %s s (median %.3f s)\n"+
		"  in process: ReadCapture %.0f ns/segment, %.3f allocs/segment",
		packets, float64(size)/1e6, len(cfg.Peers), fmtSecs(tv), mv, float64(packets)/mv, fmtSecs(tv1), mv1, fmtSecs(tt), mt,
		float64(inproc.Nanoseconds())/float64(packets), float64(ms1.Mallocs-ms0.Mallocs)/float64(packets))
	b.Log(summary)
	fmt.Println(summary)
	goal(b, "verify-pcap: tcpdump -r -M time / verify-pcap time", mt/mv, "x", ">= 6", mt/mv >= 6)
	goal(b, fmt.Sprintf("verify-pcap: GOMAXPROCS=1 time / GOMAXPROCS=%d time", runtime.GOMAXPROCS(0)), mv1/mv, "x", ">= 1.7", mv1/mv >= 1.7)
}

// ---------------------------------------------------------------- live

// threadCPU is the CPU time of the calling OS thread.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// schedCPU is the CPU time of every thread of pid, in nanoseconds, from
// /proc/PID/task/*/schedstat (finer than the clock ticks of /proc/PID/stat).
func schedCPU(pid int) time.Duration {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var sum time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		f := strings.Fields(string(b))
		if len(f) > 0 {
			n, _ := strconv.ParseInt(f[0], 10, 64)
			sum += time.Duration(n)
		}
	}
	return sum
}

// replica runs the live shadow path of authbgpd (capture rings → frame
// decode → Checker.Check → per-peer counters, as shadow's Runner
// does) in the test process, each worker on its own locked OS thread, so
// that its CPU time can be read exactly: the checker's cost without GoBGP
// around it. It runs as many workers as authbgpd's config gives
// ([shadow] workers, see config.Shadow.WorkerCount), or REPLICA_WORKERS.
type replica struct {
	caps    []*capture.Capture
	workers []*replicaWorker
	wg      sync.WaitGroup
	key     int // key length (bytes the digest covers besides the segment)

	cpu      time.Duration // workers' thread CPU from start to stop
	segs     atomic.Uint64
	counters [shadow.Malformed + 1]atomic.Uint64
	wakeups  atomic.Uint64 // Next calls that returned blocks
	// Each worker times probeSums md5.Sum of a 1448-byte buffer after
	// every wakeup (REPLICA_PROBE=0: not): how fast MD5 itself runs on
	// the replica's threads while the transfer loads the machine,
	// against the idle machine the floor is timed on. Excluded from
	// cpuSoFar. (A wakeup comes every few hundred ms: the probe leaves
	// nothing warm for the next one.)
	probe    bool
	probeCPU atomic.Int64 // ns
	probeN   atomic.Int64
	lens     []int // MD5 input length of every digest computed (after stop)
	frames   []byte
	spans    [][2]int
	links    []uint32
	err      error
}

// replicaWorker is one ring and its checker.
type replicaWorker struct {
	index  int
	chk    *shadow.Checker
	tid    atomic.Int64 // the locked thread
	cpu    time.Duration
	lens   []int
	frames []byte
	spans  [][2]int
	links  []uint32
	err    error
}

func startReplica(b testing.TB, ns string, cfg *config.Config, key string) *replica {
	b.Helper()
	r := &replica{key: len(key), probe: os.Getenv("REPLICA_PROBE") != "0"}
	n := cfg.Shadow.WorkerCount()
	if v, err := strconv.Atoi(os.Getenv("REPLICA_WORKERS")); err == nil && v > 0 {
		n = v
	}
	if err := netns.Do(ns, func() (err error) { r.caps, err = capture.OpenFanout(capture.Options{}, n); return err }); err != nil {
		b.Fatalf("capture in %s: %v", ns, err)
	}
	started := make(chan struct{}, len(r.caps))
	for i, c := range r.caps {
		w := &replicaWorker{index: i, chk: shadow.New(shadow.PeersOf(peerindex.New(cfg)), shadow.Options{OnSegment: func(_ string, res shadow.Result) {
			if !res.Outgoing {
				r.counters[res.Verdict].Add(1)
			}
		}})}
		r.workers = append(r.workers, w)
		r.wg.Go(func() { r.run(c, w, started) })
	}
	for range r.caps {
		<-started
	}
	return r
}

// run is one worker's capture loop.
func (r *replica) run(c *capture.Capture, w *replicaWorker, started chan<- struct{}) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var tcp frame.TCP
	lens := make([]int, 0, 1<<16)
	// Copies of the frames, for the hot replay (preallocated: one
	// memcpy per frame, after the check).
	frames := make([]byte, 32<<20)
	for i := 0; i < len(frames); i += 4096 {
		frames[i] = 1 // fault the pages in now, not during the transfer
	}
	frames = frames[:0]
	var spans [][2]int
	var links []uint32
	handle := func(pkt capture.Packet) {
		if pkt.Truncated || frame.DecodeTCP(pkt.LinkType, pkt.Data, &tcp) != nil {
			return
		}
		res := w.chk.Check(tcp.Src, tcp.Dst, tcp.SrcPort, tcp.DstPort, tcp.Segment, pkt.Time)
		if res.Verdict == shadow.Valid {
			// Bookkeeping for the MD5 floor (one append,
			// amortised): pseudo-header, 20-byte header,
			// payload, key.
			ph := 12
			if tcp.Src.Is6() {
				ph = 40
			}
			hl := int(tcp.Segment[12]>>4) * 4
			lens = append(lens, ph+20+len(tcp.Segment)-hl+r.key)
		}
		if len(frames)+len(pkt.Data) <= cap(frames) {
			spans = append(spans, [2]int{len(frames), len(frames) + len(pkt.Data)})
			links = append(links, pkt.LinkType)
			frames = append(frames, pkt.Data...)
		}
		r.segs.Add(1)
	}
	if cpus := os.Getenv("REPLICA_CPUS"); cpus != "" {
		// Worker i on the i-th CPU of the list (an experiment on
		// locality, with SCALE_PIN_SENDER).
		list := strings.Split(cpus, ",")
		cpu, err := strconv.Atoi(list[w.index%len(list)])
		var set unix.CPUSet
		set.Set(cpu)
		if err == nil {
			err = unix.SchedSetaffinity(0, &set)
		}
		if err != nil {
			w.err = fmt.Errorf("REPLICA_CPUS=%s: %w", cpus, err)
		}
	}
	w.tid.Store(int64(unix.Gettid()))
	t0 := threadCPU()
	started <- struct{}{}
	probe := make([]byte, 1448)
	for {
		err := c.Next(handle)
		if err == nil {
			r.wakeups.Add(1)
			if r.probe {
				p0 := threadCPU()
				for range probeSums {
					probeSink = md5.Sum(probe)
				}
				r.probeCPU.Add(int64(threadCPU() - p0))
				r.probeN.Add(probeSums)
			}
		}
		if errors.Is(err, capture.ErrClosed) {
			break
		}
		if err != nil {
			w.err = err
			break
		}
	}
	w.cpu = threadCPU() - t0
	w.lens, w.frames, w.spans, w.links = lens, frames, spans, links
}

// probeSums is how many MD5 sums a probe times (see replica.probe).
const probeSums = 4

var probeSink [16]byte

// probeIdle is the time of one probe md5.Sum on an idle machine, best of
// passes, as the floor is timed.
func probeIdle(passes int) time.Duration {
	probe := make([]byte, 1448)
	best := time.Duration(1<<63 - 1)
	for range passes {
		t0 := time.Now()
		for range probeSums {
			probeSink = md5.Sum(probe)
		}
		best = min(best, time.Since(t0))
	}
	return best / probeSums
}

// probeLoaded is the mean time of one probe md5.Sum during the transfer
// (0: not probed).
func (r *replica) probeLoaded() time.Duration {
	if n := r.probeN.Load(); n > 0 {
		return time.Duration(r.probeCPU.Load() / n)
	}
	return 0
}

// cpuSoFar is the workers' thread CPU time up to now (read from
// /proc/self/task/TID/schedstat of the locked threads), probes excluded.
func (r *replica) cpuSoFar() time.Duration {
	sum := -time.Duration(r.probeCPU.Load())
	for _, w := range r.workers {
		b, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/schedstat", w.tid.Load()))
		if err != nil {
			continue
		}
		f := strings.Fields(string(b))
		n, _ := strconv.ParseInt(f[0], 10, 64)
		sum += time.Duration(n)
	}
	return sum
}

// stop closes the captures and returns their statistics, summed; the
// workers' records are then in r (frames in worker order).
func (r *replica) stop(b testing.TB) capture.Stats {
	b.Helper()
	var st capture.Stats
	for _, c := range r.caps {
		cs, _ := c.Stats()
		st.Add(cs)
		if err := c.Close(); err != nil {
			b.Errorf("replica capture close: %v", err)
		}
	}
	r.wg.Wait()
	for _, w := range r.workers {
		if w.err != nil {
			b.Errorf("replica capture: %v", w.err)
		}
		r.cpu += w.cpu
		r.lens = append(r.lens, w.lens...)
		off := len(r.frames)
		r.frames = append(r.frames, w.frames...)
		for _, sp := range w.spans {
			r.spans = append(r.spans, [2]int{sp[0] + off, sp[1] + off})
		}
		r.links = append(r.links, w.links...)
	}
	return st
}

// hotReplay runs the frames the replica captured through the same path
// (frame decode, Checker.Check with the same peers and counters) in a
// tight loop, best of passes: the per-segment cost with warm caches and no
// ring, poll or wakeups.
func (r *replica) hotReplay(b testing.TB, cfg *config.Config, passes int) time.Duration {
	b.Helper()
	var cnt [shadow.Malformed + 1]atomic.Uint64
	chk := shadow.New(shadow.PeersOf(peerindex.New(cfg)), shadow.Options{OnSegment: func(_ string, res shadow.Result) {
		if !res.Outgoing {
			cnt[res.Verdict].Add(1)
		}
	}})
	var tcp frame.TCP
	now := time.Now()
	best := time.Duration(1<<63 - 1)
	for pass := 0; pass < passes; pass++ {
		t0 := time.Now()
		for i, sp := range r.spans {
			if frame.DecodeTCP(r.links[i], r.frames[sp[0]:sp[1]], &tcp) != nil {
				continue
			}
			chk.Check(tcp.Src, tcp.Dst, tcp.SrcPort, tcp.DstPort, tcp.Segment, now)
		}
		best = min(best, time.Since(t0))
	}
	if bad := cnt[shadow.BadDigest].Load() + cnt[shadow.Missing].Load(); bad != 0 {
		b.Errorf("hot replay: %d failed segments", bad)
	}
	return best
}

// coldReplay is hotReplay with the caches flushed before every segment
// (64 MB read between segments, outside the timing): each segment's frame,
// the checker's state and code come from memory, as they may in the live
// path, where segments arrive now and then between other processes' work.
func (r *replica) coldReplay(b testing.TB, cfg *config.Config) time.Duration {
	b.Helper()
	chk := shadow.New(shadow.PeersOf(peerindex.New(cfg)), shadow.Options{OnSegment: func(string, shadow.Result) {}})
	evict := make([]byte, 64<<20)
	for i := range evict {
		evict[i] = byte(i)
	}
	var tcp frame.TCP
	var sum time.Duration
	var sink byte
	now := time.Now()
	for i, sp := range r.spans {
		for j := 0; j < len(evict); j += 64 {
			sink ^= evict[j]
		}
		t0 := time.Now()
		if frame.DecodeTCP(r.links[i], r.frames[sp[0]:sp[1]], &tcp) == nil {
			chk.Check(tcp.Src, tcp.Dst, tcp.SrcPort, tcp.DstPort, tcp.Segment, now)
		}
		sum += time.Since(t0)
	}
	evict[0] = sink
	return sum
}

// md5Floor times crypto/md5 over inputs of the given lengths (the bytes
// the checker digested), best of passes.
func md5Floor(lens []int, passes int) (time.Duration, int64) {
	buf := make([]byte, 65536+128)
	for i := range buf {
		buf[i] = byte(i)
	}
	var bytesTotal int64
	for _, n := range lens {
		bytesTotal += int64(n)
	}
	best := time.Duration(1<<63 - 1)
	var sink [16]byte
	for pass := 0; pass < passes; pass++ {
		t0 := time.Now()
		for _, n := range lens {
			sink = md5.Sum(buf[:n])
		}
		if d := time.Since(t0); d < best {
			best = d
		}
	}
	_ = sink
	return best, bytesTotal
}

type liveTrial struct {
	on                bool
	wall              time.Duration // FRR started -> all prefixes accepted
	cpuTicks, cpuSch  time.Duration // authbgpd CPU over the transfer (/proc stat, schedstat)
	capPackets, drops uint64        // authbgpd's /status capture (shadow on)
	recvValid         uint64        // /status segments.valid (shadow on)
	sentValid         uint64
	repCPU            time.Duration // replica thread CPU from FRR's start to the end of the transfer
	repIdle           time.Duration // replica thread CPU in 1 s without BGP traffic
	repWindow         time.Duration // the wall time repCPU covers
	repSegs           uint64
	repDrops          uint64
	repValid          uint64
	md5               time.Duration // crypto/md5 over the replica's digest inputs
	md5Bytes          int64
	digests           int
	lens              []int // MD5 input lengths of the replica's digests
	rep               *replica
	cfg               *config.Config
	hot               time.Duration // hot replay of the replica's frames
	cold              time.Duration // the same with caches flushed before each segment
	wakeups           uint64
}

func benchShadowLive(b *testing.B) {
	testenv.RequireBinary(b, "bgpd", "/usr/lib/frr")
	authbgpdBinary(b, "")
	n := envInt("SHADOW_PERF_PREFIXES", 100000)
	rounds := envInt("SHADOW_PERF_ROUNDS", 3)
	var trials []liveTrial
	for r := 0; r < rounds; r++ {
		for i, on := range []bool{true, false} {
			if r%2 == 1 {
				on = i == 1 // alternate which mode goes first
			}
			tr := liveTrialRun(b, on, n)
			trials = append(trials, tr)
			b.Logf("round %d shadow %-3s: transfer %.3fs, authbgpd CPU %.3fs (ticks %.2fs); capture %d packets %d drops; "+
				"received valid %d, sent valid %d; replica: %d segments, CPU %.3f ms over %.2fs (idle %.3f ms/s), drops %d, %d digests",
				r+1, onOff(on), tr.wall.Seconds(), tr.cpuSch.Seconds(), tr.cpuTicks.Seconds(), tr.capPackets, tr.drops,
				tr.recvValid, tr.sentValid, tr.repSegs, ms(tr.repCPU), tr.repWindow.Seconds(), ms(tr.repIdle), tr.repDrops, tr.digests)
		}
	}
	// The MD5 floor of each trial's digests, timed now that nothing else
	// runs (best of 20 passes).
	for i := range trials {
		trials[i].md5, trials[i].md5Bytes = md5Floor(trials[i].lens, 20)
		trials[i].hot = trials[i].rep.hotReplay(b, trials[i].cfg, 20)
		trials[i].cold = trials[i].rep.coldReplay(b, trials[i].cfg)
		trials[i].rep = nil
	}
	pick := func(on bool, f func(liveTrial) float64) []float64 {
		var xs []float64
		for _, t := range trials {
			if t.on == on {
				xs = append(xs, f(t))
			}
		}
		return xs
	}
	cpuOn := pick(true, func(t liveTrial) float64 { return t.cpuSch.Seconds() })
	cpuOff := pick(false, func(t liveTrial) float64 { return t.cpuSch.Seconds() })
	wallOn := pick(true, func(t liveTrial) float64 { return t.wall.Seconds() })
	wallOff := pick(false, func(t liveTrial) float64 { return t.wall.Seconds() })
	all := func(f func(liveTrial) float64) []float64 {
		var xs []float64
		for _, t := range trials {
			xs = append(xs, f(t))
		}
		return xs
	}
	repCPU := median(all(func(t liveTrial) float64 { return t.repCPU.Seconds() }))
	repIdle := median(all(func(t liveTrial) float64 { return t.repIdle.Seconds() }))
	// The transfer's own share: thread CPU minus what the idle loop costs
	// over the same window.
	repMarg := median(all(func(t liveTrial) float64 { return t.repCPU.Seconds() - t.repIdle.Seconds()*t.repWindow.Seconds() }))
	md5s := median(all(func(t liveTrial) float64 { return t.md5.Seconds() }))
	segs := median(all(func(t liveTrial) float64 { return float64(t.repSegs) }))
	mbytes := median(all(func(t liveTrial) float64 { return float64(t.md5Bytes) }))
	digests := median(all(func(t liveTrial) float64 { return float64(t.digests) }))
	var drops uint64
	for _, t := range trials {
		drops += t.drops + t.repDrops
	}
	diff := median(cpuOn) - median(cpuOff)
	spread := func(xs []float64) float64 {
		lo, hi := xs[0], xs[0]
		for _, x := range xs {
			lo, hi = min(lo, x), max(hi, x)
		}
		return hi - lo
	}
	// Ratios per trial (each against the floor of its own digests), then
	// the median.
	ratio := median(all(func(t liveTrial) float64 { return t.repCPU.Seconds() / t.md5.Seconds() }))
	ratioHot := median(all(func(t liveTrial) float64 { return t.hot.Seconds() / t.md5.Seconds() }))
	hot := median(all(func(t liveTrial) float64 { return t.hot.Seconds() }))
	cold := median(all(func(t liveTrial) float64 { return t.cold.Seconds() }))
	ratioCold := median(all(func(t liveTrial) float64 { return t.cold.Seconds() / t.md5.Seconds() }))
	wakeups := median(all(func(t liveTrial) float64 { return float64(t.wakeups) }))
	ratioMarg := median(all(func(t liveTrial) float64 {
		return (t.repCPU.Seconds() - t.repIdle.Seconds()*t.repWindow.Seconds()) / t.md5.Seconds()
	}))
	b.ReportMetric(median(cpuOn), "cpu-on-s")
	b.ReportMetric(median(cpuOff), "cpu-off-s")
	b.ReportMetric(diff*1e3, "cpu-diff-ms")
	b.ReportMetric(repCPU*1e3, "checker-cpu-ms")
	b.ReportMetric(repMarg*1e3, "checker-marginal-ms")
	b.ReportMetric(md5s*1e3, "md5-floor-ms")
	if md5s > 0 {
		b.ReportMetric(ratio, "checker/md5")
		b.ReportMetric(ratioMarg, "marginal/md5")
		b.ReportMetric(ratioHot, "hot/md5")
		b.ReportMetric(ratioCold, "cold/md5")
		b.ReportMetric(diff/md5s, "cpudiff/md5")
	}
	b.ReportMetric(float64(drops), "drops")
	summary := fmt.Sprintf("live: FRR announces %d prefixes to authbgpd over TCP-MD5, %d rounds per mode:\n"+
		"  transfer wall     shadow on %s s (median %.3f), off %s s (median %.3f)  [FRR start -> all accepted]\n"+
		"  authbgpd CPU      shadow on %s s (median %.3f), off %s s (median %.3f); difference of medians %+.1f ms\n"+
		"                    (spread between trials: on %.1f ms, off %.1f ms)\n"+
		"  kernel drops      %d (authbgpd's capture and the replica, all trials)\n"+
		"  verified          %.0f segments per transfer, %.0f digests over %.3f MB\n"+
		"  bare MD5          crypto/md5 over exactly those inputs: %.3f ms (%.0f MB/s)\n"+
		"  checker, replica  thread CPU over the transfer %.3f ms (%.0f ns/segment); idle loop %.3f ms/s;\n"+
		"                    without the idle loop's share %.3f ms (%.0f ns/segment)\n"+
		"  ratios            checker thread CPU / MD5 = %.2fx, without the idle share %.2fx (medians of per-trial ratios; target <= 1.5x);\n"+
		"                    authbgpd on-off CPU difference / MD5 = %.0fx (below the trial-to-trial noise)\n"+
		"  breakdown         the same segments replayed hot (decode + lookup + digest + counters): %.3f ms = %.2fx MD5;\n"+
		"                    replayed with caches flushed before each segment: %.3f ms = %.2fx MD5;\n"+
		"                    live minus hot (%.3f ms) is the live path's own: %.0f ring wakeups (poll, block hand-back), cold caches",
		n, rounds, fmtSecs(wallOn), median(wallOn), fmtSecs(wallOff), median(wallOff),
		fmtSecs(cpuOn), median(cpuOn), fmtSecs(cpuOff), median(cpuOff), diff*1e3, spread(cpuOn)*1e3, spread(cpuOff)*1e3,
		drops, segs, digests, mbytes/1e6, md5s*1e3, mbytes/md5s/1e6,
		repCPU*1e3, repCPU*1e9/segs, repIdle*1e3, repMarg*1e3, repMarg*1e9/segs,
		ratio, ratioMarg, diff/md5s, hot*1e3, ratioHot, cold*1e3, ratioCold, (repCPU-hot)*1e3, wakeups)
	b.Log(summary)
	fmt.Println(summary)
	if drops != 0 {
		b.Errorf("%d kernel drops during the transfers; want 0", drops)
	}
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// liveTrialRun: authbgpd (shadow on or off) receives n prefixes from FRR
// over TCP-MD5 in a fresh topology, with the replica checker capturing in
// authbgpd's namespace either way.
func liveTrialRun(b *testing.B, on bool, n int) liveTrial {
	b.Helper()
	pair := netns.NewPair(b, "shperf",
		netns.End{NS: "r", If: "eth0", Addrs: []string{"192.0.2.1/24"}},
		netns.End{NS: "s", If: "eth0", Addrs: []string{"192.0.2.2/24"}})
	tp, nsR, nsS := pair.Topology, pair.A, pair.B
	defer tp.Close()
	recvAddr, sendAddr := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	const key = "perf-shadow-md5-key-1"
	c := abConf{Peers: []abPeer{{addr: "192.0.2.2", asn: 65002, src: "password-file", ref: "pw"}}}
	if on {
		c.Tail = shadowSection(false)
	}
	cfg := c.String()
	a := StartAuthbgpd(b, tp, nsR, cfg, AuthbgpdOptions{LogLevel: "info", Files: map[string]string{"pw": key + "\n"}})
	pid := a.cmd.Process.Pid
	if c := procComm(pid); !strings.HasPrefix(c, "authbgpd") {
		b.Fatalf("PID %d is %q, not authbgpd", pid, c)
	}
	parsed, err := config.Load(a.Config)
	if err != nil {
		b.Fatal(err)
	}
	rep := startReplica(b, nsR, parsed, key)
	cli := dialPerfAPI(b, nsR)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// The replica's cost while nothing is sent: ring timeouts, wakeups.
	idle0 := rep.cpuSoFar()
	time.Sleep(time.Second)
	repIdle := rep.cpuSoFar() - idle0

	before, err := sampleProc(pid)
	if err != nil {
		b.Fatal(err)
	}
	sch0 := schedCPU(pid)
	rep0 := rep.cpuSoFar()
	start := time.Now()
	f := startFRRConf(b, tp, nsS, perfFRRConfig(n, recvAddr, key))
	last := 0
	for {
		ps, err := cli.peers(ctx, sendAddr.String())
		if err == nil && len(ps) > 0 {
			if last = peerAccepted(ps[0]); last >= n {
				break
			}
		}
		if ctx.Err() != nil {
			b.Fatalf("%d of %d prefixes after %v\nFRR log:\n%s", last, n, time.Since(start), tail(f.Log(), 3000))
		}
		time.Sleep(20 * time.Millisecond)
	}
	wall := time.Since(start)
	after, err := sampleProc(pid)
	if err != nil {
		b.Fatal(err)
	}
	sch1 := schedCPU(pid)
	// Let the last ACKs and the capture's last block arrive.
	time.Sleep(300 * time.Millisecond)
	tr := liveTrial{on: on, wall: wall, cpuTicks: after.cpu - before.cpu, cpuSch: sch1 - sch0,
		repCPU: rep.cpuSoFar() - rep0, repIdle: repIdle, repWindow: time.Since(start)}
	if on {
		st := a.Status()
		if st.Capture == nil || !st.Capture.Running || st.Capture.Error != "" {
			b.Fatalf("authbgpd capture: %+v", st.Capture)
		}
		tr.capPackets, tr.drops = st.Capture.Packets, st.Capture.Drops
		p := mustPeer(b, a, sendAddr.String())
		if p.Shadow == nil || p.Shadow.Diagnosis != shadow.DiagOK || p.Shadow.Sent == nil {
			b.Fatalf("authbgpd shadow report: %s", peerString(p))
		}
		s := p.Shadow.Segments
		if s.BadDigest+s.Missing+s.Unexpected != 0 || p.Shadow.Sent.Invalid+p.Shadow.Sent.Unsigned != 0 {
			b.Errorf("authbgpd: failed segments during a right-key transfer: %s", peerString(p))
		}
		tr.recvValid, tr.sentValid = s.Valid, p.Shadow.Sent.Valid
	}
	cs := rep.stop(b)
	tr.repSegs, tr.repDrops = rep.segs.Load(), cs.Drops
	tr.repValid = rep.counters[shadow.Valid].Load()
	if bad := rep.counters[shadow.BadDigest].Load() + rep.counters[shadow.Missing].Load() + rep.counters[shadow.Unexpected].Load(); bad != 0 {
		b.Errorf("replica: %d failed segments during a right-key transfer", bad)
	}
	lens := rep.lens
	tr.digests, tr.lens = len(lens), lens
	tr.rep, tr.cfg, tr.wakeups = rep, parsed, rep.wakeups.Load()
	return tr
}
