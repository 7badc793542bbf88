package vmtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/status"
)

// The TCP-AO soak: one router, ExaBGP with three TCP-AO sessions (static
// IPv4 HMAC-SHA-1-96, static IPv6 AES-128-CMAC-96, a dynamic range), and
// for VMSOAK_SECONDS (default 60; `make soak-vm` runs 600) a cycle of
// faults while unsigned and TCP-MD5-signed SYNs from the peers' own
// addresses hit the router's port 179 all the time:
//
//	rekey:     the next key scheduled on both ends a few seconds ahead,
//	           then the old one retired on both: no session reset
//	restart:   ExaBGP stopped (Cease), down a few seconds, started again
//	wrong-key: ExaBGP restarted with a wrong secret for the IPv4 peer: held
//	           out, its bad MACs counted, the other two up; then the right key
//	flap:      ExaBGP killed (no NOTIFICATION) and started again at once
//
// Then: no flood SYN answered (in a capture of the whole soak), every
// segment the router sent signed with TCP-AO and valid (verify-pcap with
// every key), the kernel's TcpExt counters moved by the flood, nothing
// logged that says a key could not be set or drifted, all sessions up.

// soakSeconds is how long the fault cycle runs (at least one full cycle).
func soakSeconds(t *testing.T) time.Duration {
	s := os.Getenv("VMSOAK_SECONDS")
	if s == "" {
		return 60 * time.Second
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("VMSOAK_SECONDS=%q: want a positive number of seconds", s)
	}
	return time.Duration(n) * time.Second
}

// soakKeys is generation g of the three chains' keys. KeyIDs cycle
// through 1..40 so that a long soak stays within a byte; two consecutive
// generations never share one.
func soakKeys(g int) (v4, v6, dyn mkt) {
	id := g%40 + 1
	v4 = mkt{id: id, sendID: id, recvID: 40 + id, alg: "hmac(sha1)", secret: fmt.Sprintf("soak v4 key %d", g)}
	v6 = mkt{id: id, sendID: 80 + id, recvID: 120 + id, alg: "cmac(aes128)", secret: fmt.Sprintf("soak v6 key %d", g)}
	dyn = mkt{id: id, sendID: 160 + id, recvID: 200 + id, alg: "cmac(aes128)", secret: fmt.Sprintf("soak range key %d", g)}
	return v4, v6, dyn
}

// soakConf is the router's config with chains c.
func soakConf(c aoChains) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[global]\nasn = %d\nrouter-id = %q\nlisten-addresses = [%q, %q]\n", asRouter, rtr4, rtr4, rtr6)
	fmt.Fprintf(&b, "\n[api]\ngrpc = \"\"\nhttp = %q\n", routerHTTP)
	b.WriteString("\n[shadow]\nenabled = true\ninterfaces = []\nworkers = 1\n")
	b.WriteString(keychainTOML("v4", c.v4...))
	b.WriteString(keychainTOML("v6", c.v6...))
	b.WriteString(keychainTOML("dyn", c.dyn...))
	for _, p := range []struct{ key, addr, chain string }{
		{"address", peer4.String(), "v4"}, {"address", peer6.String(), "v6"}, {"prefix", rangeDyn, "dyn"},
	} {
		fmt.Fprintf(&b, "\n[[peers]]\n%s = %q\nasn = %d\nkeychain = %q\nhold-time = %d\n", p.key, p.addr, asPeer, p.chain, holdTime)
	}
	return b.String()
}

func soakNeighbors() []exaNeighbor {
	n := func(peer, local netip.Addr, auth, route string) exaNeighbor {
		return exaNeighbor{peer: peer, local: local, asn: asPeer, peerAS: asRouter, auth: auth, routes: []string{route}}
	}
	return []exaNeighbor{
		n(rtr4, peer4, "ao-v4", "198.51.100.0/24"),
		n(rtr6, peer6, "ao-v6", "2001:db8:100::/48"),
		n(rtr4, dyn4, "ao-dyn", "198.51.101.0/24"),
	}
}

// soakPeers are the three sessions: the peer's address and ours.
var soakPeers = []struct{ peer, local netip.Addr }{{peer4, rtr4}, {peer6, rtr6}, {dyn4, rtr4}}

// soak is the state of one soak run.
type soak struct {
	t      *testing.T
	tp     *netns.Pair
	r      *router
	e      *exaBGP
	gen    int      // the current key generation
	chains aoChains // both ends' chains now
	counts map[string]int
}

func (s *soak) exaChains(wrongV4 bool) map[string][]exaKey {
	m := map[string][]exaKey{"v4": farEnd(s.chains.v4...), "v6": farEnd(s.chains.v6...), "dyn": farEnd(s.chains.dyn...)}
	if wrongV4 {
		for i := range m["v4"] {
			m["v4"][i].SecretHex = "6e6f7420746865206b6579" // "not the key"
		}
	}
	return m
}

func (s *soak) startExa(wrongV4 bool) {
	s.e = startExaBGP(s.t, s.tp.Topology, s.tp.B, rtr4.String(), soakNeighbors(), s.exaChains(wrongV4))
}

// allUp waits until every session is established over TCP-AO on a
// connection other than the one in was (nil: any), and returns them.
func (s *soak) allUp(what string, was map[netip.Addr]*status.Peer, skip netip.Addr) map[netip.Addr]*status.Peer {
	s.t.Helper()
	start := time.Now()
	up := map[netip.Addr]*status.Peer{}
	for _, sp := range soakPeers {
		if sp.peer == skip {
			continue
		}
		old := was[sp.peer]
		up[sp.peer] = s.r.waitPeer(s.t, sp.peer.String(), 90*time.Second, what, func(p *status.Peer) bool {
			return established(p) && (old == nil || p.RemotePort != old.RemotePort) && len(p.Families) == 1 && p.Families[0].Accepted == 1
		})
		if st, _ := s.e.state(sp.peer, sp.local); st != "up" {
			if err := poll(10*time.Second, func() error {
				if st, _ := s.e.state(sp.peer, sp.local); st != "up" {
					return fmt.Errorf("ExaBGP says %q", st)
				}
				return nil
			}); err != nil {
				s.t.Fatalf("%s: ExaBGP's session from %s: %v", what, sp.peer, err)
			}
		}
	}
	s.t.Logf("%s: all up after %v", what, time.Since(start).Round(time.Millisecond))
	return up
}

// rekey schedules generation gen+1 on both ends a few seconds ahead,
// waits until every session uses it without a reset, then retires the old
// generation on both ends.
func (s *soak) rekey(up map[netip.Addr]*status.Peer) map[netip.Addr]*status.Peer {
	at := time.Now().Add(5 * time.Second)
	n4, n6, nd := soakKeys(s.gen + 1)
	n4.sendFrom, n6.sendFrom, nd.sendFrom = at, at, at
	s.chains = aoChains{append(s.chains.v4, n4), append(s.chains.v6, n6), append(s.chains.dyn, nd)}
	s.e.setChains(s.t, s.exaChains(false))
	s.r.reload(s.t, soakConf(s.chains))
	now := map[netip.Addr]*status.Peer{}
	for _, c := range []struct {
		peer netip.Addr
		k    mkt
	}{{peer4, n4}, {peer6, n6}, {dyn4, nd}} {
		now[c.peer] = rolledTo(s.t, s.r, s.e, c.peer, up[c.peer], c.k, 40*time.Second)
	}
	s.gen++
	s.chains = aoChains{[]mkt{n4}, []mkt{n6}, []mkt{nd}}
	s.e.setChains(s.t, s.exaChains(false))
	s.r.reload(s.t, soakConf(s.chains))
	for _, sp := range soakPeers {
		was := now[sp.peer]
		kn := was.Auth.Kernel.Good
		now[sp.peer] = s.r.waitPeer(s.t, sp.peer.String(), 3*holdTime*time.Second, "on the new key with the old one retired", func(p *status.Peer) bool {
			return p.State == "established" && p.Auth.Kernel != nil && p.Auth.Kernel.Good >= kn+1 && p.RemotePort == was.RemotePort && p.Auth.Installed && p.Auth.Error == ""
		})
	}
	s.counts["rekey"]++
	return now
}

// restart stops ExaBGP (Cease), keeps it down a while, and starts it again.
func (s *soak) restart(up map[netip.Addr]*status.Peer) map[netip.Addr]*status.Peer {
	netns.Stop(s.e.cmd)
	for _, sp := range soakPeers {
		s.r.waitPeer(s.t, sp.peer.String(), 20*time.Second, "down after ExaBGP stopped", func(p *status.Peer) bool { return p.State != "established" })
	}
	time.Sleep(2 * time.Second)
	s.startExa(false)
	s.counts["restart"]++
	return s.allUp("restart", up, netip.Addr{})
}

// flap kills ExaBGP (its kernel closes the connections, no NOTIFICATION)
// and starts it again at once.
func (s *soak) flap(up map[netip.Addr]*status.Peer) map[netip.Addr]*status.Peer {
	_ = unix.Kill(-s.e.cmd.Process.Pid, unix.SIGKILL) // its process group (Start's Setpgid)
	netns.Stop(s.e.cmd)
	s.startExa(false)
	s.counts["flap"]++
	return s.allUp("flap", up, netip.Addr{})
}

// wrongKey restarts ExaBGP with a wrong secret for peer4: it is held out
// and its bad MACs counted while the other two come up; then the right
// key again.
func (s *soak) wrongKey(up map[netip.Addr]*status.Peer) map[netip.Addr]*status.Peer {
	before := counters(s.t, s.tp.A)
	netns.Stop(s.e.cmd)
	s.startExa(true)
	others := s.allUp("wrong key for "+peer4.String(), up, peer4)
	// The shadow counts the peer's bad MACs. (Its diagnosis may read the
	// flood's missing or wrong-mechanism instead of bad-mac: the flood's
	// SYNs from the same address interleave with the peer's.)
	was := val(s.r.peer(peer4.String()).Shadow.Segments.BadMAC)
	p := s.r.waitPeer(s.t, peer4.String(), 30*time.Second, "with bad MACs counted", func(p *status.Peer) bool {
		return p.State != "established" && p.Shadow != nil && val(p.Shadow.Segments.BadMAC) >= was+3
	})
	s.t.Logf("the wrong-key peer: diagnosis %s, bad MACs %d -> %d", p.Shadow.Diagnosis, was, val(p.Shadow.Segments.BadMAC))
	time.Sleep(3 * time.Second)
	if p = s.r.peer(peer4.String()); p == nil || p.State == "established" {
		s.t.Fatalf("the peer with a wrong key: %s", peerString(p))
	}
	if st, ups := s.e.state(peer4, rtr4); ups > 0 || st == "up" {
		s.t.Fatalf("ExaBGP's session from %s with a wrong key came up (state %q)", peer4, st)
	}
	if d := counters(s.t, s.tp.A)["TCPAOBad"] - before["TCPAOBad"]; d == 0 {
		s.t.Errorf("TcpExt TCPAOBad did not move while %s signed with a wrong key", peer4)
	}
	netns.Stop(s.e.cmd)
	s.startExa(false)
	s.counts["wrong-key"]++
	for a, p := range others {
		up[a] = p
	}
	return s.allUp("the right key again", up, netip.Addr{})
}

// flooder sends SYNs from the peers' addresses to the router's port 179,
// unsigned and TCP-MD5-signed, from ports floodPort.. (the namespace's
// ephemeral ports start above them), until stop is closed.
type flooder struct {
	sent, connected atomic.Int64
	errs            []error
	mu              sync.Mutex
	wg              sync.WaitGroup
	stop            chan struct{}
}

const floodPorts = 900

func startFlood(ns string) *flooder {
	f := &flooder{stop: make(chan struct{})}
	srcs := []struct{ src, dst netip.Addr }{{peer4, rtr4}, {peer6, rtr6}, {dyn4, rtr4}}
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-f.stop:
				return
			case <-tick.C:
			}
			sd := srcs[i%len(srcs)]
			port := floodPort + (2*i)%floodPorts
			for j, md5 := range []bool{false, true} {
				f.wg.Add(1)
				go f.syn(ns, sd.src, sd.dst, port+j, md5)
			}
		}
	}()
	return f
}

// syn dials once; an answered SYN is a connection (or a refusal).
func (f *flooder) syn(ns string, src, dst netip.Addr, port int, md5 bool) {
	defer f.wg.Done()
	f.sent.Add(1)
	err := netns.Do(ns, func() error {
		d := net.Dialer{Timeout: time.Second, LocalAddr: &net.TCPAddr{IP: src.AsSlice(), Port: port}}
		if md5 {
			d.Control = md5Control(dst, "soak flood md5 key")
		}
		c, err := d.DialContext(context.Background(), "tcp", netip.AddrPortFrom(dst, 179).String())
		if err == nil {
			c.Close()
			f.connected.Add(1)
			return fmt.Errorf("connected from %s:%d", src, port)
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return nil
		}
		if errors.Is(err, os.ErrDeadlineExceeded) || strings.Contains(err.Error(), "address already in use") {
			return nil // a port still in use by an earlier SYN of ours: nothing sent
		}
		return fmt.Errorf("from %s:%d (md5 %v): %w", src, port, md5, err)
	})
	if err != nil {
		f.mu.Lock()
		f.errs = append(f.errs, err)
		f.mu.Unlock()
	}
}

func (f *flooder) end() { close(f.stop); f.wg.Wait() }

// TestBGPTCPAOSoak is the TCP-AO soak (see the top of this file).
func TestBGPTCPAOSoak(t *testing.T) {
	requireVM(t)
	dur := soakSeconds(t)
	tp := netns.NewPair(t, "aosoak",
		netns.End{NS: "r", If: "eth0", Addrs: []string{rtr4.String() + "/24", rtr6.String() + "/64"}},
		netns.End{NS: "p", If: "eth0", Addrs: []string{peer4.String() + "/24", dyn4.String() + "/24", peer6.String() + "/64"}})
	// ExaBGP's own ports above the flood's.
	if out, err := netns.Exec(tp.B, "sysctl", "-w", "net.ipv4.ip_local_port_range=50000 60999").CombinedOutput(); err != nil {
		t.Fatalf("sysctl ip_local_port_range: %v\n%s", err, out)
	}
	before := counters(t, tp.A)
	s := &soak{t: t, tp: tp, counts: map[string]int{}}
	k4, k6, kd := soakKeys(0)
	s.chains = aoChains{[]mkt{k4}, []mkt{k6}, []mkt{kd}}
	s.r = startRouter(t, tp.Topology, tp.A, soakConf(s.chains))
	capt := startCapture(t, tp.Topology, tp.A, "eth0", t.TempDir(), "tcp port 179")
	s.startExa(false)
	up := s.allUp("start", nil, netip.Addr{})

	flood := startFlood(tp.B)
	start := time.Now()
	steps := []func(map[netip.Addr]*status.Peer) map[netip.Addr]*status.Peer{s.rekey, s.restart, s.wrongKey, s.flap}
	names := []string{"rekey", "restart", "wrong-key", "flap"}
	for i := 0; i < len(steps) || time.Since(start) < dur; i++ {
		t.Logf("soak %v: %s", time.Since(start).Round(time.Second), names[i%len(steps)])
		up = steps[i%len(steps)](up)
	}
	elapsed := time.Since(start)
	flood.end()
	time.Sleep(time.Second)
	capt.stop()
	if dir := os.Getenv("VMSOAK_KEEP"); dir != "" { // a directory shared with the host (VM_SHARE)
		b, err := os.ReadFile(capt.file)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, "soak.pcap"), b, 0o644)
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, "soak-keys.toml"), []byte(soakConf(s.everyKey())), 0o600)
		}
		t.Logf("VMSOAK_KEEP=%s: the capture and every key kept: %v", dir, err)
	}
	after := counters(t, tp.A)

	t.Run("flood", func(t *testing.T) {
		for _, err := range flood.errs {
			t.Errorf("flood SYN: %v", err)
		}
		syns, answered := 0, 0
		for _, sg := range segments(t, capt.file) {
			switch {
			case sg.dst.Port() == 179 && sg.syn() && sg.src.Port() >= floodPort && sg.src.Port() < floodPort+floodPorts+1:
				syns++
			case sg.src.Port() == 179 && sg.dst.Port() >= floodPort && sg.dst.Port() < floodPort+floodPorts+1:
				answered++
				if answered <= 5 {
					t.Errorf("the router answered a flood SYN: %v -> %v flags %#x", sg.src, sg.dst, sg.flags)
				}
			}
		}
		d := func(k string) uint64 { return after[k] - before[k] }
		t.Logf("flood: %d SYNs sent (half unsigned, half TCP-MD5), %d captured, %d answered, %d connected; TcpExt TCPAORequired +%d, TCPMD5Unexpected +%d",
			flood.sent.Load(), syns, answered, flood.connected.Load(), d("TCPAORequired"), d("TCPMD5Unexpected"))
		if answered != 0 || flood.connected.Load() != 0 {
			t.Errorf("%d flood SYNs answered, %d connected; want 0", answered, flood.connected.Load())
		}
		if syns == 0 || int64(syns) < flood.sent.Load()/2 {
			t.Errorf("captured %d flood SYNs of %d sent", syns, flood.sent.Load())
		}
		if d("TCPAORequired") == 0 || d("TCPMD5Unexpected") == 0 {
			t.Errorf("TcpExt TCPAORequired +%d, TCPMD5Unexpected +%d: the kernel did not count the flood", d("TCPAORequired"), d("TCPMD5Unexpected"))
		}
	})

	t.Run("ours-signed", func(t *testing.T) {
		ours, unsigned := 0, 0
		for _, sg := range segments(t, capt.file) {
			if sg.src.Port() != 179 && !(sg.dst.Port() == 179 && (sg.src.Addr() == rtr4 || sg.src.Addr() == rtr6)) {
				continue // the router listens: what it sends comes from port 179
			}
			ours++
			if sg.ao == nil {
				unsigned++
				if unsigned <= 5 {
					t.Errorf("the router sent an unsigned segment: %v -> %v flags %#x", sg.src, sg.dst, sg.flags)
				}
			}
		}
		t.Logf("%d segments from the router, %d without TCP-AO", ours, unsigned)
		if ours == 0 || unsigned != 0 {
			t.Errorf("%d of the router's %d segments unsigned", unsigned, ours)
		}
		// Every MAC, with every key the soak used.
		all := filepath.Join(t.TempDir(), "every-key.toml")
		if err := os.WriteFile(all, []byte(soakConf(s.everyKey())), 0o600); err != nil {
			t.Fatal(err)
		}
		soakVerifyPcap(t, s.r.bin, all, capt.file, s.counts["wrong-key"] > 0)
	})

	t.Run("router", func(t *testing.T) {
		log := s.r.log()
		for _, bad := range []string{"could not set", "drift", "panic:", "DATA RACE"} {
			if w := linesWith(log, bad); len(w) > 0 {
				t.Errorf("the router logged %q:\n%s", bad, strings.Join(w[:min(len(w), 5)], "\n"))
			}
		}
		for _, sp := range soakPeers {
			p := s.r.peer(sp.peer.String())
			if p == nil || !established(p) || p.Auth.Kernel.Bad != 0 || p.Auth.Kernel.KeyNotFound != 0 {
				t.Errorf("%s at the end: %s", sp.peer, peerString(p))
			}
		}
	})
	t.Logf("TCP-AO soak: %v of faults (%d rekeys on both ends, %d peer restarts, %d wrong-key peers, %d flaps), %d flood SYNs; key generation %d",
		elapsed.Round(time.Second), s.counts["rekey"], s.counts["restart"], s.counts["wrong-key"], s.counts["flap"], flood.sent.Load(), s.gen)
}

// everyKey are the chains of every key the soak used (the last 40
// generations: their KeyIDs are distinct), the latest active.
func (s *soak) everyKey() aoChains {
	var every aoChains
	for g := max(0, s.gen-39); g <= s.gen; g++ {
		a, b, c := soakKeys(g)
		if g > 0 {
			at := time.Now().Add(time.Duration(g-s.gen-1) * time.Hour)
			a.sendFrom, b.sendFrom, c.sendFrom = at, at, at
		}
		every.v4, every.v6, every.dyn = append(every.v4, a), append(every.v6, b), append(every.dyn, c)
	}
	return every
}

// soakVerifyPcap runs verify-pcap over the soak's capture: every segment
// the router sent to the three peers is valid (none unsigned, none
// invalid), and the peers' segments are valid except, for peer4, those of
// the wrong-key phases.
func soakVerifyPcap(t *testing.T, bin, conf, file string, wrongPhase bool) {
	rep, _ := runVerifyPcap(t, bin, conf, file)
	seen := map[string]bool{}
	for _, p := range rep.Peers {
		sh := p.Shadow
		if sh == nil {
			continue
		}
		seen[p.Address] = true
		t.Logf("verify-pcap %s: diagnosis %s, %s", p.Address, sh.Diagnosis, shadowJSON(sh))
		if sh.Sent == nil || sh.Sent.Valid == 0 || sh.Sent.Invalid != 0 || sh.Sent.Unsigned != 0 || val(sh.Sent.NoHandshake) != 0 {
			t.Errorf("verify-pcap: %s: our segments %s, want all valid", p.Address, shadowJSON(sh))
		}
		seg := sh.Segments
		// (Unsigned and TCP-MD5 segments from the peer's address are the
		// flood's.)
		badOK := wrongPhase && p.Address == peer4.String()
		if seg.Valid == 0 || (!badOK && val(seg.BadMAC) != 0) || val(seg.UnknownKey) != 0 || val(seg.NoHandshake) != 0 {
			t.Errorf("verify-pcap: %s: received %s", p.Address, shadowJSON(sh))
		}
		if badOK && val(seg.BadMAC) == 0 {
			t.Errorf("verify-pcap: %s: no bad MAC counted from the wrong-key phase", p.Address)
		}
	}
	for _, sp := range soakPeers {
		if !seen[sp.peer.String()] {
			t.Errorf("verify-pcap reports nothing of %s", sp.peer)
		}
	}
}

// shadowJSON is a shadow report as /status shows it.
func shadowJSON(sh *status.Shadow) string {
	b, _ := json.Marshal(sh)
	return string(b)
}
