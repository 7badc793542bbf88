//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/capture/capfile"
	"github.com/authbgp/authbgpd/frame"
	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/status"
)

// The fault soak's observations and final checks (soak_test.go).

// soakStatus fetches a router's /status without failing the test.
func soakStatus(a *Authbgpd) (*status.Status, error) { return a.TryStatus() }

// ---------------------------------------------------------------- the process

// soakProcSample is the router process's resources at one moment.
type soakProcSample struct {
	rssKB      int64
	fds        int
	goroutines int // go_goroutines of /metrics (-1 unknown)
}

func (p soakProcSample) String() string {
	return fmt.Sprintf("RSS %.1f MiB, %d FDs, %d goroutines", float64(p.rssKB)/1024, p.fds, p.goroutines)
}

var soakVmRSS = regexp.MustCompile(`(?m)^VmRSS:\s+(\d+) kB`)

// soakProc reads VmRSS and the number of open FDs of pid.
func soakProc(pid int) (rssKB int64, fds int, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	m := soakVmRSS.FindSubmatch(b)
	if m == nil {
		return 0, 0, fmt.Errorf("/proc/%d/status: no VmRSS", pid)
	}
	rssKB, _ = strconv.ParseInt(string(m[1]), 10, 64)
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return 0, 0, err
	}
	return rssKB, len(ents), nil
}

func soakGoroutines(a *Authbgpd) (int, error) {
	body, err := a.HTTPGet("/metrics")
	if err != nil {
		return -1, err
	}
	v, ok := metricValue(body, "go_goroutines", "")
	if !ok {
		return -1, fmt.Errorf("/metrics has no go_goroutines")
	}
	return int(v), nil
}

func (s *soak) sample() (soakProcSample, error) {
	rss, fds, err := soakProc(s.r.cmd.Process.Pid)
	if err != nil {
		return soakProcSample{}, err
	}
	g, err := soakGoroutines(s.r)
	if err != nil {
		return soakProcSample{}, err
	}
	return soakProcSample{rssKB: rss, fds: fds, goroutines: g}, nil
}

// takeBaseline records the resources and the untouched sessions' uptimes
// once everything is up.
func (s *soak) takeBaseline() {
	t := s.t
	b, err := s.sample()
	if err != nil {
		t.Fatalf("baseline: %v", err)
	}
	s.fig.base = b
	st, err := s.status()
	if err != nil {
		t.Fatalf("baseline: %v", err)
	}
	s.baseAt = time.Now()
	s.baseUp = map[netip.Addr]int64{}
	by := soakByAddr(st)
	for ad := range s.stable {
		p := by[ad]
		if p == nil || p.State != Established {
			t.Fatalf("baseline: %s is %s", ad, soakPeerBrief(p))
		}
		s.baseUp[ad] = p.UptimeSeconds
	}
	if p := by[netip.MustParseAddr("192.0.2.15")]; p == nil || p.Auth.KeyID == nil || *p.Auth.KeyID != 2 {
		t.Errorf("baseline: the follow-peer-rollover peer 192.0.2.15 is not on key 2: %s", soakPeerBrief(p))
	}
	t.Logf("baseline: %s", b)
}

// ---------------------------------------------------------------- the monitor

// soakMonitor polls /status (every session's state and uptime) and the
// router's resources while the faults run.
type soakMonitor struct {
	s          *soak
	mu         sync.Mutex
	stop, done chan struct{}
	once       sync.Once

	polls, errs int
	samples     map[netip.Addr][]soakObs // per session, in time order
	violations  []string                 // untouched sessions that went down or were reset
	max         soakProcSample
}

// soakObs is one /status observation of a session.
type soakObs struct {
	at     time.Time
	state  string // "absent" when /status does not list it
	uptime int64
}

// since is when the observed session came up (to the second).
func (o soakObs) since() time.Time { return o.at.Add(-time.Duration(o.uptime) * time.Second) }

func (s *soak) startMonitor(every time.Duration) *soakMonitor {
	m := &soakMonitor{s: s, stop: make(chan struct{}), done: make(chan struct{}),
		samples: map[netip.Addr][]soakObs{}, max: s.fig.base}
	go func() {
		defer close(m.done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for n := 0; ; n++ {
			m.poll(n%5 == 0)
			select {
			case <-m.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return m
}

func (m *soakMonitor) finish() {
	m.once.Do(func() { close(m.stop) })
	<-m.done
}

func (m *soakMonitor) poll(goroutines bool) {
	s := m.s
	st, err := soakStatus(s.r)
	now := time.Now()
	rss, fds, perr := soakProc(s.r.cmd.Process.Pid)
	g := -1
	if goroutines {
		g, _ = soakGoroutines(s.r)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.polls++
	if perr == nil {
		m.max.rssKB = max(m.max.rssKB, rss)
		m.max.fds = max(m.max.fds, fds)
	}
	m.max.goroutines = max(m.max.goroutines, g)
	if err != nil {
		m.errs++
		return
	}
	by := soakByAddr(st)
	for _, ss := range s.sessions {
		o := soakObs{at: now, state: "absent", uptime: -1}
		if p := by[ss.addr]; p != nil {
			o.state, o.uptime = p.State, p.UptimeSeconds
		}
		hist := m.samples[ss.addr]
		if s.stable[ss.addr] && len(hist) > 0 {
			prev := hist[len(hist)-1]
			switch {
			case o.state != Established && prev.state == Established:
				m.violations = append(m.violations, fmt.Sprintf("%s at +%.0fs: %s (was established, uptime %d s)", ss.addr, now.Sub(s.baseAt).Seconds(), o.state, prev.uptime))
			case o.state == Established && prev.state == Established && o.uptime < prev.uptime:
				m.violations = append(m.violations, fmt.Sprintf("%s at +%.0fs: uptime went back from %d s to %d s (the session was reset)", ss.addr, now.Sub(s.baseAt).Seconds(), prev.uptime, o.uptime))
			}
		}
		m.samples[ss.addr] = append(hist, o)
	}
}

// newSession is when the router first showed addr Established in a
// session that came up after t (false: never, as far as the monitor saw).
func (m *soakMonitor) newSession(addr netip.Addr, t time.Time) (time.Time, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, o := range m.samples[addr] {
		if o.at.After(t) && o.state == Established && !o.since().Before(t.Add(-time.Second)) {
			return o.at, true
		}
	}
	return time.Time{}, false
}

// staleFor is how long after t, when the far end reset the session (a key
// change on FRR or BIRD resets it; its NOTIFICATION and FIN carry the old
// key, which the router's socket no longer accepts), the router still
// showed addr Established in a session older than t.
func (m *soakMonitor) staleFor(addr netip.Addr, t time.Time) (time.Duration, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, o := range m.samples[addr] {
		if !o.at.After(t) {
			continue
		}
		if o.state != Established || !o.since().Before(t.Add(-time.Second)) {
			return o.at.Sub(t), true
		}
	}
	return 0, false
}

func (m *soakMonitor) summaryLines() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var downs []string
	changes := 0
	for _, ss := range m.s.sessions {
		n := 0
		hist := m.samples[ss.addr]
		for i := 1; i < len(hist); i++ {
			if hist[i].state != hist[i-1].state {
				changes++
			}
			if hist[i-1].state == Established && (hist[i].state != Established || hist[i].uptime < hist[i-1].uptime) {
				n++
			}
		}
		if n > 0 {
			downs = append(downs, fmt.Sprintf("%s×%d", ss.addr, n))
		}
	}
	return []string{
		fmt.Sprintf("monitor: %d /status polls (%d failed), %d state changes; sessions that went down or were reset (router's view): %s",
			m.polls, m.errs, changes, strings.Join(downs, " ")),
	}
}

// ---------------------------------------------------------------- after the soak

// checkUptime: the untouched sessions never left Established and their
// uptime grew by the time that passed.
func (s *soak) checkUptime() {
	t := s.t
	m := s.mon
	for i, v := range m.violations {
		if i == 20 {
			t.Errorf("... and %d more", len(m.violations)-20)
			break
		}
		t.Errorf("untouched session left Established or was reset: %s", v)
	}
	st, err := s.status()
	if err != nil {
		t.Fatalf("/status: %v", err)
	}
	by := soakByAddr(st)
	elapsed := int64(time.Since(s.baseAt).Seconds())
	minGain := int64(-1)
	var kept int
	for ad, base := range s.baseUp {
		p := by[ad]
		if p == nil || p.State != Established {
			t.Errorf("untouched session %s: %s at the end", ad, soakPeerBrief(p))
			continue
		}
		gain := p.UptimeSeconds - base
		if minGain < 0 || gain < minGain {
			minGain = gain
		}
		if gain < elapsed-3 {
			t.Errorf("untouched session %s: uptime %d s, %d s at the baseline %d s ago: it was reset", ad, p.UptimeSeconds, base, elapsed)
			continue
		}
		kept++
	}
	line := fmt.Sprintf("uptime: %d of %d untouched sessions kept their session for the %d s since the baseline (smallest uptime gain %d s); %d violations seen by the monitor",
		kept, len(s.baseUp), elapsed, minGain, len(m.violations))
	t.Log(line)
	s.checkLines = append(s.checkLines, line)

	// How long each kind of fault kept its sessions down, and how long
	// the router kept a session the far end had reset.
	var fixes []string
	for _, at := range s.fig.fixes {
		worst, never := time.Duration(0), false
		for _, ss := range s.sessions {
			if ss.speaker != "f2" {
				continue
			}
			if up, ok := m.newSession(ss.addr, at); ok {
				worst = max(worst, up.Sub(at))
			} else {
				never = true
			}
		}
		if never {
			fixes = append(fixes, "never")
		} else {
			fixes = append(fixes, worst.Round(time.Second).String())
		}
	}
	line = fmt.Sprintf("back up (router's /status, 1 s polls): f2 after its right key %v; all sessions, both sides, after the last fault %v (bound 60 s)",
		fixes, s.fig.recovery.Round(100*time.Millisecond))
	t.Log(line)
	s.checkLines = append(s.checkLines, line)
}

// checkStale looks at the re-keyed sessions after each reload burst. FRR
// and BIRD reset a session when its password changes, with a NOTIFICATION
// and a FIN signed with the old key, which the router's kernel drops (its
// socket is already on the new key): the router's session is then stale,
// and GoBGP alone would keep it Established, turning the peer's new
// connections away, until its hold timer (90 s). While the keys keep
// changing nothing can tell; but once the peer reconnects with a valid
// signature (its SYN in the capture verifies with the peer's last key of
// the burst), the router must end the stale session within
// soakStaleBound. (When the peer waits before reconnecting — FRR backs
// off after repeated resets — the router cannot know sooner.)
func (s *soak) checkStale() {
	t := s.t
	m := s.mon
	syns := s.signedSYNs()
	var backs, stales, lags []string
	for i, changes := range s.fig.burstChanges {
		end := s.fig.burstEnds[i]
		worstUp, worstStale, worstLag, never := time.Duration(0), time.Duration(0), time.Duration(0), false
		for ad, tcs := range changes {
			last := tcs[len(tcs)-1]
			if up, ok := m.newSession(ad, last); ok {
				worstUp = max(worstUp, up.Sub(end))
			} else {
				never = true
			}
			// The latest moment the router still showed a session
			// older than one of the peer's resets.
			var staleEnd time.Time
			for _, tc := range tcs {
				d, ok := m.staleFor(ad, tc)
				if !ok {
					d = time.Since(tc)
				}
				if tc.Add(d).After(staleEnd) {
					staleEnd = tc.Add(d)
				}
			}
			worstStale = max(worstStale, staleEnd.Sub(last))
			key := s.fig.burstKeys[i][ad]
			var reconnect time.Time
			for _, sy := range syns[ad] {
				if sy.at.After(last) && sy.valid(key) {
					reconnect = sy.at
					break
				}
			}
			if reconnect.IsZero() || !staleEnd.After(reconnect) {
				continue // ended before the peer came back
			}
			lag := staleEnd.Sub(reconnect)
			worstLag = max(worstLag, lag)
			if lag > soakStaleBound {
				t.Errorf("stale session: after burst %d the router kept %s Established in the session its peer had reset for %v after the peer reconnected with a valid signature (at +%.1fs; bound %v)",
					i+1, ad, lag.Round(100*time.Millisecond), reconnect.Sub(s.baseAt).Seconds(), soakStaleBound)
			}
		}
		if never {
			backs = append(backs, "never")
		} else {
			backs = append(backs, worstUp.Round(time.Second).String())
		}
		stales = append(stales, worstStale.Round(time.Second).String())
		lags = append(lags, worstLag.Round(100*time.Millisecond).String())
	}
	line := fmt.Sprintf("re-keyed sessions after each burst: new session on the last key %v after the burst; stale sessions ended %v after the peer's last key change, %v after the peer reconnected with a valid signature (bound %v)",
		backs, stales, lags, soakStaleBound)
	t.Log(line)
	s.checkLines = append(s.checkLines, line)
}

// soakSYN is a signed SYN a peer sent to the router's BGP port.
type soakSYN struct {
	at       time.Time
	src, dst netip.Addr
	segment  []byte
}

var soakDigester = md5auth.NewDigester()

func (sy soakSYN) valid(key string) bool {
	v, err := soakDigester.Check(sy.src, sy.dst, sy.segment, []byte(key))
	return err == nil && v == md5auth.Valid
}

// signedSYNs reads the capture for the signed SYNs from every session's
// address to the router's port 179.
func (s *soak) signedSYNs() map[netip.Addr][]soakSYN {
	t := s.t
	out := map[netip.Addr][]soakSYN{}
	sess := map[netip.Addr]bool{}
	for _, ss := range s.sessions {
		sess[ss.addr] = true
	}
	var tcp frame.TCP
	err := capfile.EachFile(s.capture.file, func(pkt capfile.Packet) error {
		if frame.DecodeTCP(pkt.LinkType, pkt.Data, &tcp) != nil || tcp.DstPort != 179 || !sess[tcp.Src] {
			return nil
		}
		if tcp.Segment[13]&0x12 != 0x02 { // SYN, not SYN-ACK
			return nil
		}
		if o, err := md5auth.SegmentOptions(tcp.Segment); err != nil || !o.HasMD5 {
			return nil
		}
		out[tcp.Src] = append(out[tcp.Src], soakSYN{at: pkt.Time, src: tcp.Src, dst: tcp.Dst, segment: bytes.Clone(tcp.Segment)})
		return nil
	})
	if err != nil {
		t.Fatalf("reading the capture: %v", err)
	}
	return out
}

// soakStaleBound is how long after the peer reconnected with a valid
// signature the router may keep showing Established the session the peer
// had reset (it re-reads the shadow checker's verdicts every second; the
// monitor polls every second too). A router that waits for its hold timer
// takes up to 90 s.
const soakStaleBound = 5 * time.Second

// checkResources: FDs and goroutines come back near the baseline; RSS
// stayed below 3x the baseline.
func (s *soak) checkResources() {
	t := s.t
	base := s.fig.base
	fdMargin := 5
	gMargin := 10 + base.goroutines/10
	var end soakProcSample
	var err error
	start := time.Now()
	for {
		end, err = s.sample()
		if err == nil && end.fds <= base.fds+fdMargin && end.goroutines <= base.goroutines+gMargin {
			break
		}
		if time.Since(start) > 30*time.Second {
			break
		}
		time.Sleep(time.Second)
	}
	if err != nil {
		t.Fatalf("resources: %v", err)
	}
	mx := s.mon.max
	mx.rssKB = max(mx.rssKB, end.rssKB)
	ratio := float64(mx.rssKB) / float64(base.rssKB)
	line := fmt.Sprintf("resources: baseline %s; end %s (after %v); max RSS %.1f MiB (%.2fx the baseline), max FDs %d, max goroutines %d",
		base, end, time.Since(start).Round(time.Second), float64(mx.rssKB)/1024, ratio, mx.fds, mx.goroutines)
	t.Log(line)
	s.checkLines = append(s.checkLines, line)
	if end.fds > base.fds+fdMargin {
		t.Errorf("FDs: %d at the end, %d at the baseline (margin %d): descriptors leak", end.fds, base.fds, fdMargin)
	}
	if end.goroutines > base.goroutines+gMargin {
		t.Errorf("goroutines: %d at the end, %d at the baseline (margin %d): goroutines leak", end.goroutines, base.goroutines, gMargin)
	}
	if ratio > 3 {
		t.Errorf("RSS reached %.1f MiB, %.2fx the baseline %.1f MiB (bound 3x)", float64(mx.rssKB)/1024, ratio, float64(base.rssKB)/1024)
	}
}

// checkLog: no panic, no secret in anything the router shows.
func (s *soak) checkLog() {
	t := s.t
	log := s.r.Log()
	if i := strings.Index(strings.ToLower(log), "panic"); i >= 0 {
		t.Errorf("authbgpd's log mentions a panic: …%s…", log[max(0, i-300):min(len(log), i+300)])
	}
	outputs := map[string]string{"log": log}
	for _, path := range []string{"/status", "/metrics", "/healthz"} {
		body, err := s.r.HTTPGet(path)
		if err != nil {
			t.Errorf("GET %s: %v", path, err)
		}
		outputs["GET "+path] = body
	}
	addrs := []string{""}
	for _, ss := range s.sessions {
		addrs = append(addrs, ss.addr.String())
	}
	for _, ad := range addrs {
		args := []string{"neighbor"}
		if ad != "" {
			args = append(args, ad, "-j")
		}
		out, err := soakCLI(s.r, args...)
		if err != nil {
			t.Errorf("gobgp %s: %v", strings.Join(args, " "), err)
		}
		outputs["gobgp "+strings.Join(args, " ")] = out
	}
	leaks := soakFindSecrets(outputs, s.secrets)
	for _, l := range leaks {
		t.Errorf("secret leaked: %s", l)
	}
	size := 0
	for _, o := range outputs {
		size += len(o)
	}
	line := fmt.Sprintf("log: %d bytes, %d lines, no panic: %v; no-leak check: %d secrets (%d forms each) in %d outputs (%d bytes): %d leaks",
		len(log), strings.Count(log, "\n"), !strings.Contains(strings.ToLower(log), "panic"), len(s.secrets), len(secretForms("x")), len(outputs), size, len(leaks))
	t.Log(line)
	s.checkLines = append(s.checkLines, line)
}

// soakCLI runs the gobgp CLI against the router, trying three times when
// the CLI gets no answer (cli's 15 s of retries are for answers expected
// to succeed; a peer a wrongly accepted gRPC request deleted never will).
func soakCLI(a *Authbgpd, args ...string) (string, error) {
	for try := 0; ; try++ {
		out, err := a.CLI(context.Background(), args...)
		if err == nil || try == 2 || soakCodeRE.MatchString(err.Error()+out) {
			if err != nil {
				err = fmt.Errorf("%w: %s", err, strings.TrimSpace(out))
			}
			return out, err
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// soakFindSecrets searches outputs for every form of every secret. All the
// soak's secrets start with "Zk-" (newSecret), so every form starts with
// the same few characters: only those places are compared.
func soakFindSecrets(outputs map[string]string, secrets []string) []string {
	forms := map[string]string{} // form → "secret #i (kind)"
	byMarker := map[string][]string{}
	for i, sec := range secrets {
		for kind, f := range secretForms(sec) {
			forms[f] = fmt.Sprintf("secret #%d (%s form)", i, kind)
			byMarker[f[:4]] = append(byMarker[f[:4]], f)
		}
	}
	var out []string
	names := make([]string, 0, len(outputs))
	for n := range outputs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		text := outputs[name]
		for marker, fs := range byMarker {
			for off := 0; ; {
				i := strings.Index(text[off:], marker)
				if i < 0 {
					break
				}
				at := off + i
				for _, f := range fs {
					if strings.HasPrefix(text[at:], f) {
						out = append(out, fmt.Sprintf("%s in %s: …%s…", forms[f], name, text[max(0, at-100):min(len(text), at+len(f)+30)]))
					}
				}
				off = at + 1
			}
		}
	}
	return out
}

// ---------------------------------------------------------------- the capture

// keyed reports whether a is the address of a keyed peer (every peer of the
// soak is keyed): a static peer, or an address inside a dynamic range.
func (s *soak) keyed(a netip.Addr) bool {
	for _, p := range s.peers {
		if (p.isRange() && p.prefix.Contains(a)) || p.addr == a {
			return true
		}
	}
	return false
}

// checkCapture proves, from the capture of the router's side, that no
// segment between the router and a keyed peer was accepted without a
// valid signature: the router sent no unsigned segment to a keyed peer (so
// no SYN-ACK to an unsigned SYN either, and no segment of a connection
// whose socket lacked the key), and every signed segment it sent verifies
// under a key the soak configured for that peer.
//
// The keys changed during the soak (reload bursts, the follow-peer-
// rollover switch), so no single config holds the right key for every
// segment. A config with a keychain of all the keys does not do: verify-
// pcap judges a keychain by its schedule at the capture time and counts a
// segment valid under another key of the chain as invalid (other-key),
// which cannot be told apart from a garbage signature, and the reload
// times are known only to the reload latency. Instead verify-pcap runs
// once per key generation g: a config like the router's final one in
// which every peer has its g-th key (in the order the soak configured
// them) as a plain password, or a never-used dummy key when it had fewer.
// Every segment is signed with one key, and the keys are distinct random
// secrets, so a segment is valid in at most one generation: summed over
// the generations, the valid segments the router sent to each address
// must equal the signed ones (valid + invalid, the same in every run),
// and the unsigned ones must be 0 in every run. tcpdump -M checks the
// same independently: per peer, the router's segments to it, with each of
// the keys of the peer (and the keys sent through the gRPC API, which must
// be valid for none).
func (s *soak) checkCapture() {
	t := s.t
	file := s.capture.file
	logb, _ := os.ReadFile(file + ".log")
	captured, dropped := soakTcpdumpCount(string(logb), "captured"), soakTcpdumpCount(string(logb), "dropped by kernel")-s.capDrops0
	if dropped != 0 {
		t.Errorf("tcpdump dropped %d packets during the soak: the capture is incomplete (%s)", dropped, strings.Join(strings.Fields(string(logb)), " "))
	}
	bin := authbgpdBinary(t, "")

	// verify-pcap with the router's final config, as it is.
	final := soakVerifyPcap(t, bin, s.r.Config, s.env, file)
	var finalUnsigned, finalSent uint64
	for _, p := range final.Peers {
		if p.Shadow == nil || p.Shadow.Sent == nil {
			continue
		}
		finalSent += p.Shadow.Sent.Valid + p.Shadow.Sent.Invalid + p.Shadow.Sent.Unsigned
		finalUnsigned += p.Shadow.Sent.Unsigned
		if p.Shadow.Sent.Unsigned != 0 {
			t.Errorf("verify-pcap (final config): %d UNSIGNED segments from the router to keyed peer %s (%s)", p.Shadow.Sent.Unsigned, p.Address, p.Peer)
		}
	}

	// verify-pcap per key generation.
	gens := 0
	for _, p := range s.peers {
		gens = max(gens, len(p.keys))
	}
	type acc struct {
		peer                      string
		signed, valid, unsigned   uint64
		received, receivedValid   uint64
		signedVaries, noSentCount bool
	}
	per := map[string]*acc{}
	dir := t.TempDir()
	for g := 0; g < gens; g++ {
		var b strings.Builder
		for i, p := range s.peers {
			k := newSecret("dummy") // a key no one ever used
			if g < len(p.keys) {
				k = p.keys[g]
			}
			name := fmt.Sprintf("g%d-p%d.key", g, i)
			if err := os.WriteFile(filepath.Join(dir, name), []byte(k+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			b.WriteString(p.toml("password-file", name))
		}
		cfg := filepath.Join(dir, fmt.Sprintf("gen%d.toml", g))
		if err := os.WriteFile(cfg, []byte(abConf{ASN: soakRouterASN, Tail: b.String()}.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		rep := soakVerifyPcap(t, bin, cfg, nil, file)
		for _, p := range rep.Peers {
			if p.Shadow == nil || p.Shadow.Sent == nil {
				continue
			}
			a := per[p.Address]
			sent := p.Shadow.Sent
			if a == nil {
				a = &acc{peer: p.Peer, signed: sent.Valid + sent.Invalid}
				per[p.Address] = a
			}
			if sent.Valid+sent.Invalid != a.signed {
				a.signedVaries = true
			}
			a.valid += sent.Valid
			if g == 0 {
				a.unsigned = sent.Unsigned
			} else if sent.Unsigned != a.unsigned {
				a.signedVaries = true
			}
			sg := p.Shadow.Segments
			if g == 0 {
				a.received = sg.Valid + sg.BadDigest + sg.Missing + sg.Unexpected
			}
			a.receivedValid += sg.Valid
		}
	}
	var vpSigned, vpValid, vpUnsigned, vpReceived, vpReceivedValid uint64
	vpByPeer := map[string][2]uint64{} // peer id → signed, valid
	addrs := make([]string, 0, len(per))
	for ad := range per {
		addrs = append(addrs, ad)
	}
	sort.Strings(addrs)
	for _, ad := range addrs {
		a := per[ad]
		vpSigned += a.signed
		vpValid += a.valid
		vpUnsigned += a.unsigned
		vpReceived += a.received
		vpReceivedValid += a.receivedValid
		x := vpByPeer[a.peer]
		vpByPeer[a.peer] = [2]uint64{x[0] + a.signed, x[1] + a.valid}
		if a.unsigned != 0 {
			t.Errorf("verify-pcap: the router sent %d UNSIGNED segments to keyed peer %s (%s)", a.unsigned, ad, a.peer)
		}
		if a.signedVaries {
			t.Errorf("verify-pcap: the count of signed or unsigned segments to %s differs between key generations", ad)
		}
		if a.valid != a.signed {
			t.Errorf("verify-pcap: of %d signed segments the router sent to %s (%s), %d verify under one of the keys the soak configured for it: %d were signed with another key",
				a.signed, ad, a.peer, a.valid, int64(a.signed)-int64(a.valid))
		}
	}
	line := fmt.Sprintf("verify-pcap: final config: %d segments from the router to keyed peers, %d unsigned; %d key generations: %d addresses, router→peer %d signed, %d valid under a configured key, %d unsigned; peer→router %d segments, %d valid under a configured key",
		finalSent, finalUnsigned, gens, len(per), vpSigned, vpValid, vpUnsigned, vpReceived, vpReceivedValid)
	t.Log(line)
	s.checkLines = append(s.checkLines, fmt.Sprintf("capture: %s, %d packets captured, %d dropped by the kernel", filepath.Base(file), captured, dropped), line)

	s.checkCaptureTcpdump(file, vpByPeer)
	s.checkSYNs(file)

	c, err := netns.Counters(s.nsR)
	if err != nil {
		t.Fatal(err)
	}
	nf, fl := c["TCPMD5NotFound"]-s.fig.md5NotFound0, c["TCPMD5Failure"]-s.fig.md5Failure0
	line = fmt.Sprintf("kernel (router's namespace): TCPMD5NotFound +%d (unsigned segments dropped), TCPMD5Failure +%d (wrongly signed segments dropped), TCPMD5Unexpected %d",
		nf, fl, c["TCPMD5Unexpected"])
	t.Log(line)
	s.checkLines = append(s.checkLines, line)
	if nf < uint64(s.fig.floodSent) {
		t.Errorf("TCPMD5NotFound rose by %d, fewer than the %d unsigned SYNs sent", nf, s.fig.floodSent)
	}
}

// soakTcpdumpCount is the last "N packets WHAT" tcpdump wrote (its
// statistics on SIGUSR1 and at exit).
func soakTcpdumpCount(log, what string) int {
	ms := regexp.MustCompile(`(\d+) packets? `+regexp.QuoteMeta(what)).FindAllStringSubmatch(log, -1)
	if ms == nil {
		return -1
	}
	n, _ := strconv.Atoi(ms[len(ms)-1][1])
	return n
}

// soakCaptureDrops asks a running tcpdump for its statistics (SIGUSR1)
// and returns its count of frames dropped by the kernel.
func soakCaptureDrops(t testing.TB, c *tdProc) int {
	t.Helper()
	if err := c.cmd.Process.Signal(unix.SIGUSR1); err != nil {
		t.Fatalf("tcpdump: SIGUSR1: %v", err)
	}
	var n int
	if poll(5*time.Second, until(func() bool {
		b, _ := os.ReadFile(c.file + ".log")
		n = soakTcpdumpCount(string(b), "dropped by kernel")
		return n >= 0
	})) != nil {
		t.Fatalf("tcpdump printed no statistics on SIGUSR1")
	}
	return n
}

// soakVerifyPcap runs authbgpd verify-pcap -f cfg --json files... with env
// added to the environment (the config's secret variables); it must exit 0
// with nothing on stderr.
func soakVerifyPcap(t testing.TB, bin, cfg string, env []string, files ...string) vpReport {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"verify-pcap", "-f", cfg, "--json"}, files...)...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("verify-pcap -f %s: %v\n%s", cfg, err, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Errorf("verify-pcap -f %s wrote to stderr: %s", cfg, stderr.String())
	}
	var rep vpReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("verify-pcap --json: %v\n%s", err, tail(stdout.String(), 2000))
	}
	return rep
}

// checkCaptureTcpdump: per peer, the router's segments to it (tcpdump -w
// with a filter on the destination), checked by tcpdump -M with each key
// the soak configured for the peer and each key sent through the gRPC
// API. Every segment must carry an MD5 option, be valid under one of the
// peer's keys and under none of the injected ones.
func (s *soak) checkCaptureTcpdump(file string, vp map[string][2]uint64) {
	t := s.t
	dir := t.TempDir()
	var total, unsigned, valid, none, injected, runs int
	for i, p := range s.peers {
		filter := "tcp port 179 and dst host " + p.id
		if p.isRange() {
			filter = "tcp port 179 and dst net " + p.prefix.String()
			for _, q := range s.peers {
				if !q.isRange() && p.prefix.Contains(q.addr) {
					filter += " and not dst host " + q.addr.String()
				}
			}
		}
		out := filepath.Join(dir, fmt.Sprintf("to-peer%d.pcap", i))
		cmd := exec.Command("tcpdump", "-r", file, "-w", out, filter)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("tcpdump -r %s -w %s %q: %v\n%s", file, out, filter, err, b)
		}
		type v struct{ md5, valid, injected int }
		pk := map[int]*v{}
		check := func(key string, inj bool) {
			runs++
			for n, r := range tdMD5Verdicts(t, out, key) {
				x := pk[n]
				if x == nil {
					x = &v{}
					pk[n] = x
				}
				switch r.v {
				case tdValid:
					x.md5++
					if inj {
						x.injected++
					} else {
						x.valid++
					}
				case tdInvalid:
					x.md5++
				case tdNone:
				default:
					t.Errorf("tcpdump -M on the router's segments to %s: packet %d: %q", p.id, n, r.opt)
				}
			}
		}
		for _, k := range p.keys {
			check(k, false)
		}
		for _, k := range s.injected {
			check(k, true)
		}
		var pu, pv, pn, pi int
		for _, x := range pk {
			switch {
			case x.md5 == 0:
				pu++
			case x.valid == 0 && x.injected == 0:
				pn++
			}
			if x.valid > 0 {
				pv++
			}
			if x.injected > 0 {
				pi++
			}
		}
		total += len(pk)
		unsigned += pu
		valid += pv
		none += pn
		injected += pi
		if pu > 0 {
			t.Errorf("tcpdump: %d UNSIGNED segments from the router to keyed peer %s", pu, p.id)
		}
		if pn > 0 {
			t.Errorf("tcpdump -M: %d segments from the router to %s are valid under none of the %d keys the soak configured for it; %s",
				pn, p.id, len(p.keys), s.whoseKeys(out, p, func(n int) bool { x := pk[n]; return x.md5 > 0 && x.valid == 0 && x.injected == 0 }))
		}
		if pi > 0 {
			t.Errorf("tcpdump -M: %d segments from the router to %s are signed with a key sent through the gRPC API", pi, p.id)
		}
		if x := vp[p.id]; uint64(len(pk)-pu) != x[0] || uint64(pv) != x[1] {
			t.Errorf("%s: tcpdump counts %d signed segments from the router, %d valid; verify-pcap %d and %d", p.id, len(pk)-pu, pv, x[0], x[1])
		}
	}
	line := fmt.Sprintf("tcpdump -M: %d runs (every key of every peer, and %d gRPC-injected keys), %d segments from the router to keyed peers: %d unsigned, %d valid under a configured key, %d under none, %d under an injected key",
		runs, len(s.injected), total, unsigned, valid, none, injected)
	t.Log(line)
	s.checkLines = append(s.checkLines, line)
}

// whoseKeys says which of the soak's other secrets the packets of file
// selected by sel verify under (tcpdump -M with each).
func (s *soak) whoseKeys(file string, p *soakPeer, sel func(int) bool) string {
	mine := map[string]bool{}
	for _, k := range p.keys {
		mine[k] = true
	}
	under := map[string]int{}
	for _, k := range s.secrets {
		if mine[k] {
			continue
		}
		for n, r := range tdMD5Verdicts(s.t, file, k) {
			if r.v == tdValid && sel(n) {
				under[s.keyLabel[k]]++
			}
		}
	}
	if len(under) == 0 {
		return "they verify under no other key of the soak either"
	}
	var parts []string
	for l, n := range under {
		parts = append(parts, fmt.Sprintf("%d under %s", n, l))
	}
	sort.Strings(parts)
	return "they verify under other keys of the soak: " + strings.Join(parts, ", ")
}

var soakTdLine = regexp.MustCompile(`(\S+)\.(\d+) > (\S+)\.(\d+): Flags \[([^\]]*)\], seq (\d+)(?::\d+)?(?:, ack (\d+))?`)

// checkSYNs pairs, in tcpdump's reading of the capture, every unsigned SYN
// from a keyed peer's address to the router's BGP port with the router's
// SYN-ACKs: none may answer one.
func (s *soak) checkSYNs(file string) {
	t := s.t
	cmd := exec.Command("tcpdump", "-r", file, "-nn", "-S", "tcp port 179")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tcpdump -r %s: %v\n%s", file, err, stderr.String())
	}
	type key struct{ peer, router string }
	unsignedSYN := map[key]uint64{} // "addr.port" pairs → seq
	var syns, unsignedSyns, synAcks, answered, unsignedSynAcks int
	for _, line := range strings.Split(string(out), "\n") {
		m := soakTdLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		src, dst := netip.MustParseAddr(m[1]), netip.MustParseAddr(m[3])
		md5 := strings.Contains(line, "md5")
		seq, _ := strconv.ParseUint(m[6], 10, 32)
		switch {
		case m[5] == "S" && m[4] == "179" && s.keyed(src):
			syns++
			if !md5 {
				unsignedSyns++
				unsignedSYN[key{m[1] + "." + m[2], m[3] + "." + m[4]}] = seq
			}
		case m[5] == "S." && m[2] == "179" && s.keyed(dst):
			synAcks++
			if !md5 {
				unsignedSynAcks++
				t.Errorf("tcpdump: an UNSIGNED SYN-ACK from the router to keyed peer %s.%s", m[3], m[4])
			}
			ack, _ := strconv.ParseUint(m[7], 10, 32)
			if q, ok := unsignedSYN[key{m[3] + "." + m[4], m[1] + "." + m[2]}]; ok && ack == (q+1)&0xffffffff {
				answered++
				t.Errorf("tcpdump: the router answered the unsigned SYN from %s.%s with a SYN-ACK", m[3], m[4])
			}
		}
	}
	line := fmt.Sprintf("SYNs (tcpdump): %d SYNs from keyed peer addresses to the router's port 179, %d of them unsigned (%d sent by the floods); router SYN-ACKs to keyed peers %d: %d unsigned, %d answering an unsigned SYN",
		syns, unsignedSyns, s.fig.floodSent, synAcks, unsignedSynAcks, answered)
	t.Log(line)
	s.checkLines = append(s.checkLines, line)
	if unsignedSyns < s.fig.floodSent {
		t.Errorf("the capture holds %d unsigned SYNs from keyed peer addresses, fewer than the %d the floods sent: it missed some", unsignedSyns, s.fig.floodSent)
	}
}

// keep copies, when SOAK_KEEP names a directory, what a failure needs
// looking into: the capture, the router's log and config, every speaker's
// log, and the keys of every peer in the order the soak configured them
// (the capture can be re-checked with tcpdump -M or verify-pcap). The
// files hold the soak's throw-away secrets: they are written 0600.
func (s *soak) keep() {
	dir := os.Getenv("SOAK_KEEP")
	if dir == "" {
		return
	}
	t := s.t
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Logf("SOAK_KEEP: %v", err)
		return
	}
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Logf("SOAK_KEEP: %v", err)
		}
	}
	if b, err := os.ReadFile(s.capture.file); err == nil {
		write("soak.pcap", b)
	}
	write("authbgpd.log", []byte(s.r.Log()))
	if b, err := os.ReadFile(s.r.Config); err == nil {
		write("authbgpd.toml", b)
	}
	for _, name := range []string{"f1", "f2", "f3", "g1", "b1"} {
		if sp := s.speakers[name]; sp != nil && sp.peer != nil {
			d := sp.daemon()
			write(d.name+".log", []byte(d.Log()))
		}
	}
	var b strings.Builder
	for _, p := range s.peers {
		fmt.Fprintf(&b, "%s %s\n", p.id, strings.Join(p.keys, " "))
	}
	write("keys.txt", []byte(b.String()))
	t.Logf("SOAK_KEEP: capture, logs, config and keys in %s", dir)
}
