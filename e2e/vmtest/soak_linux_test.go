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
// IPv4 HMAC-SHA-1-96, static IPv6 AES-128-CMAC-96, a dynamic range), a
// second authbgpd (namespace q, its own link) with a TCP-AO session to the
// router that both dial (AES-128-CMAC-96), and for VMSOAK_SECONDS (default 60; `make soak-vm` runs 600) a cycle of
// faults while unsigned and TCP-MD5-signed SYNs from the peers' own
// addresses hit the router's port 179 all the time:
//
//	rekey:     the next key scheduled on both ends a few seconds ahead,
//	           then the old one retired on both (q too): no session reset
//	restart:   ExaBGP stopped (Cease), down a few seconds, started again
//	wrong-key: ExaBGP restarted with a wrong secret for the IPv4 peer: held
//	           out, its bad MACs counted, the other two up; then the right key
//	flap:      ExaBGP killed (no NOTIFICATION) and started again at once
//
// The r-q session stays on its first connection through all of it (q is
// not restarted here: when one of two GoBGP speakers that both dial
// restarts, each closes the other's connection while in Idle and they can
// stay out of phase for minutes; TestBGPTCPAOTwoRouters restarts one
// router passive).
//
// Then: no flood SYN answered (in a capture of the whole soak), every
// segment the router sent signed with TCP-AO and valid (verify-pcap with
// every key), the kernel's TcpExt counters moved by the flood, nothing
// logged that says a key could not be set or drifted, all sessions up; on
// q's link (its own capture) no unsigned segment from either authbgpd, and
// every MAC verified by verify-pcap and scapy.

// The authbgpd-authbgpd session of the soak: r's end and q's.
var (
	soakQLocal = netip.MustParseAddr("203.0.113.1")
	soakQPeer  = netip.MustParseAddr("203.0.113.2")
)

const asQ = 65003

// soakQKey is generation g of the q session's key (r's view).
func soakQKey(g int) mkt {
	id := g%40 + 1
	return mkt{id: id, sendID: 100 + id, recvID: 140 + id, alg: "cmac(aes128)", secret: fmt.Sprintf("soak q key %d", g)}
}

// soakQConf is q's config: the mirror of r's chain c for its one peer, r.
func soakQConf(c []mkt) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[global]\nasn = %d\nrouter-id = %q\nlisten-addresses = [%q]\n", asQ, soakQPeer, soakQPeer)
	fmt.Fprintf(&b, "\n[api]\ngrpc = \"\"\nhttp = %q\n", routerHTTP)
	b.WriteString("\n[shadow]\nenabled = true\ninterfaces = []\nworkers = 1\n")
	b.WriteString(keychainTOML("r", mirrorAll(c)...))
	fmt.Fprintf(&b, "\n[[peers]]\naddress = %q\nasn = %d\nkeychain = \"r\"\nhold-time = %d\n", soakQLocal, asRouter, holdTime)
	return b.String()
}

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
	fmt.Fprintf(&b, "[global]\nasn = %d\nrouter-id = %q\nlisten-addresses = [%q, %q, %q]\n", asRouter, rtr4, rtr4, rtr6, soakQLocal)
	fmt.Fprintf(&b, "\n[api]\ngrpc = \"\"\nhttp = %q\n", routerHTTP)
	b.WriteString("\n[shadow]\nenabled = true\ninterfaces = []\nworkers = 1\n")
	b.WriteString(keychainTOML("v4", c.v4...))
	b.WriteString(keychainTOML("v6", c.v6...))
	b.WriteString(keychainTOML("dyn", c.dyn...))
	b.WriteString(keychainTOML("q", c.q...))
	for _, p := range []struct{ key, addr, chain string }{
		{"address", peer4.String(), "v4"}, {"address", peer6.String(), "v6"}, {"prefix", rangeDyn, "dyn"},
	} {
		fmt.Fprintf(&b, "\n[[peers]]\n%s = %q\nasn = %d\nkeychain = %q\nhold-time = %d\n", p.key, p.addr, asPeer, p.chain, holdTime)
	}
	fmt.Fprintf(&b, "\n[[peers]]\naddress = %q\nasn = %d\nkeychain = \"q\"\nhold-time = %d\n", soakQPeer, asQ, holdTime)
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
	q      *router  // the second authbgpd
	qp     *r2rPair // r and q as a pair (a = r, b = q)
	qs     session  // their session now
	qMoved bool     // q restarted: its session must be on a new connection
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
	// The authbgpd-authbgpd session: on its first connection throughout.
	old, moved := s.qs, s.qMoved
	s.qs = s.qp.waitSession(s.t, soakQPeer, soakQLocal, 90*time.Second, what, func(x session) bool {
		if old.a == nil {
			return true
		}
		same := x.a.LocalPort == old.a.LocalPort && x.a.RemotePort == old.a.RemotePort
		return same != moved
	})
	s.qMoved = false
	up[soakQPeer] = s.qs.a
	s.t.Logf("%s: all up after %v", what, time.Since(start).Round(time.Millisecond))
	return up
}

// startQ starts the second authbgpd, q, and waits until it answers.
func (s *soak) startQ() {
	s.q = s.qp.launch(s.t, s.qp.tp.B, soakQConf(s.chains.q))
	s.q.waitHealthy(s.t)
	s.qp.b = s.q
	s.qMoved = true
}

// rekey schedules generation gen+1 on both ends a few seconds ahead,
// waits until every session uses it without a reset, then retires the old
// generation on both ends.
func (s *soak) rekey(up map[netip.Addr]*status.Peer) map[netip.Addr]*status.Peer {
	at := time.Now().Add(5 * time.Second)
	n4, n6, nd := soakKeys(s.gen + 1)
	nq := soakQKey(s.gen + 1)
	n4.sendFrom, n6.sendFrom, nd.sendFrom, nq.sendFrom = at, at, at, at
	s.chains = aoChains{v4: append(s.chains.v4, n4), v6: append(s.chains.v6, n6), dyn: append(s.chains.dyn, nd), q: append(s.chains.q, nq)}
	s.e.setChains(s.t, s.exaChains(false))
	s.r.reload(s.t, soakConf(s.chains))
	s.q.reload(s.t, soakQConf(s.chains.q))
	now := map[netip.Addr]*status.Peer{}
	for _, c := range []struct {
		peer netip.Addr
		k    mkt
	}{{peer4, n4}, {peer6, n6}, {dyn4, nd}} {
		now[c.peer] = rolledTo(s.t, s.r, s.e, c.peer, up[c.peer], c.k, 40*time.Second)
	}
	wasQ := s.qs
	s.qs = s.qp.waitSession(s.t, soakQPeer, soakQLocal, 40*time.Second, fmt.Sprintf("on key %d", nq.id), keyIs(nq))
	sameSession(s.t, wasQ, s.qs)
	s.gen++
	s.chains = aoChains{v4: []mkt{n4}, v6: []mkt{n6}, dyn: []mkt{nd}, q: []mkt{nq}}
	s.e.setChains(s.t, s.exaChains(false))
	s.r.reload(s.t, soakConf(s.chains))
	s.q.reload(s.t, soakQConf(s.chains.q))
	ga, gb := s.qs.a.Auth.Kernel.Good, s.qs.b.Auth.Kernel.Good
	wasQ = s.qs
	s.qs = s.qp.waitSession(s.t, soakQPeer, soakQLocal, 3*holdTime*time.Second, "on the new key with the old one retired", func(x session) bool {
		return keyIs(nq)(x) && x.a.Auth.Kernel.Good > ga && x.b.Auth.Kernel.Good > gb
	})
	sameSession(s.t, wasQ, s.qs)
	now[soakQPeer] = s.qs.a
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
	fails := newRecap(t)
	requireVM(t)
	dur := soakSeconds(t)
	tp := netns.NewPair(t, "aosoak",
		netns.End{NS: "r", If: "eth0", Addrs: []string{rtr4.String() + "/24", rtr6.String() + "/64"}},
		netns.End{NS: "p", If: "eth0", Addrs: []string{peer4.String() + "/24", dyn4.String() + "/24", peer6.String() + "/64"}})
	// ExaBGP's own ports above the flood's.
	if out, err := netns.Exec(tp.B, "sysctl", "-w", "net.ipv4.ip_local_port_range=50000 60999").CombinedOutput(); err != nil {
		t.Fatalf("sysctl ip_local_port_range: %v\n%s", err, out)
	}
	// q, the second authbgpd, on its own link to r.
	qns := tp.Topology.Add("q")
	tp.Topology.Link(tp.A, "eth1", []string{soakQLocal.String() + "/24"}, qns, "eth0", []string{soakQPeer.String() + "/24"})
	before := counters(t, tp.A)
	s := &soak{t: t, tp: tp, counts: map[string]int{}}
	s.qp = &r2rPair{tp: &netns.Pair{Topology: tp.Topology, A: tp.A, B: qns}, dir: t.TempDir()}
	k4, k6, kd := soakKeys(0)
	s.chains = aoChains{v4: []mkt{k4}, v6: []mkt{k6}, dyn: []mkt{kd}, q: []mkt{soakQKey(0)}}
	s.r = startRouter(t, tp.Topology, tp.A, soakConf(s.chains))
	s.qp.a = s.r
	capt := startCapture(t, tp.Topology, tp.A, "eth0", t.TempDir(), "tcp port 179")
	qcapt := startCapture(t, tp.Topology, tp.A, "eth1", t.TempDir(), "tcp port 179")
	s.startExa(false)
	s.startQ()
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
	qcapt.stop()
	if dir := os.Getenv("VMSOAK_KEEP"); dir != "" { // a directory shared with the host (VM_SHARE)
		b, err := os.ReadFile(capt.file)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, "soak.pcap"), b, 0o644)
		}
		if b, err2 := os.ReadFile(qcapt.file); err == nil && err2 == nil {
			err = os.WriteFile(filepath.Join(dir, "soak-q.pcap"), b, 0o644)
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, "soak-keys.toml"), []byte(soakConf(s.everyKey())), 0o600)
		}
		t.Logf("VMSOAK_KEEP=%s: the capture and every key kept: %v", dir, err)
	}
	after := counters(t, tp.A)

	t.Run("flood", func(tt *testing.T) {
		t := fails.on(tt)
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

	t.Run("ours-signed", func(tt *testing.T) {
		t := fails.on(tt)
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

	t.Run("q-signed", func(tt *testing.T) {
		t := fails.on(tt)
		// Both ends are authbgpd here: every segment of the link.
		var n, unsigned int
		syns := map[netip.Addr]int{}
		for _, sg := range segments(t, qcapt.file) {
			n++
			if sg.ao == nil || sg.md5 {
				unsigned++
				if unsigned <= 5 {
					t.Errorf("an authbgpd sent a segment without TCP-AO: %v -> %v flags %#x", sg.src, sg.dst, sg.flags)
				}
			} else if sg.syn() && sg.flags&0x10 == 0 {
				syns[sg.src.Addr()]++
			}
		}
		t.Logf("q's link: %d segments, %d without TCP-AO; signed SYNs from r %d, from q %d", n, unsigned, syns[soakQLocal], syns[soakQPeer])
		if n == 0 || unsigned != 0 {
			t.Errorf("%d of q's link's %d segments unsigned", unsigned, n)
		}
		every := s.everyKey()
		res := runScapy(t, qcapt.file, []scapyPair{{soakQLocal.String(), soakQPeer.String(), scapyKeys(every.q...)}})
		x := res[soakQLocal.String()+"-"+soakQPeer.String()]
		if x.OK == 0 || x.Bad != 0 || x.Unsigned != 0 || x.MD5 != 0 || x.NoKey != 0 || x.NoHandshake != 0 || len(x.KeyIDs[soakQLocal.String()]) == 0 || len(x.KeyIDs[soakQPeer.String()]) == 0 {
			t.Errorf("scapy: q's link: %+v, want only good MACs, both ways", x)
		}
		all := filepath.Join(t.TempDir(), "every-key.toml")
		if err := os.WriteFile(all, []byte(soakConf(every)), 0o600); err != nil {
			t.Fatal(err)
		}
		rep, out := runVerifyPcap(t, s.r.bin, all, qcapt.file)
		found := false
		for _, p := range rep.Peers {
			if p.Address != soakQPeer.String() || p.Shadow == nil {
				continue
			}
			found = true
			sh := p.Shadow
			t.Logf("verify-pcap %s: %s", p.Address, shadowJSON(sh))
			seg := sh.Segments
			if seg.Valid == 0 || val(seg.BadMAC) != 0 || val(seg.UnknownKey) != 0 || val(seg.NoHandshake) != 0 || seg.Missing != 0 ||
				sh.Sent == nil || sh.Sent.Valid == 0 || sh.Sent.Invalid != 0 || sh.Sent.Unsigned != 0 || val(sh.Sent.NoHandshake) != 0 {
				t.Errorf("verify-pcap: %s: %s, want every segment both ways valid", p.Address, shadowJSON(sh))
			}
		}
		if !found {
			t.Errorf("verify-pcap reports nothing of %s:\n%s", soakQPeer, out)
		}
	})

	t.Run("router", func(tt *testing.T) {
		t := fails.on(tt)
		log := s.r.log()
		for _, bad := range []string{"could not set", "drift", "panic:", "DATA RACE"} {
			if w := linesWith(log, bad); len(w) > 0 {
				t.Errorf("the router logged %q:\n%s", bad, strings.Join(w[:min(len(w), 5)], "\n"))
			}
			if w := linesWith(s.q.log(), bad); len(w) > 0 {
				t.Errorf("q logged %q:\n%s", bad, strings.Join(w[:min(len(w), 5)], "\n"))
			}
		}
		if qs, ok := s.qp.sessionUp(soakQPeer, soakQLocal); !ok {
			t.Errorf("the r-q session at the end: r: %s; q: %s", peerString(qs.a), peerString(qs.b))
		} else {
			s.qp.oneSession(t, qs)
		}
		for _, sp := range soakPeers {
			p := s.r.peer(sp.peer.String())
			if p == nil || !established(p) || p.Auth.Kernel.Bad != 0 || p.Auth.Kernel.KeyNotFound != 0 {
				t.Errorf("%s at the end: %s", sp.peer, peerString(p))
			}
		}
	})
	t.Logf("TCP-AO soak: %v of faults (%d rekeys on both ends, %d peer restarts, %d wrong-key peers, %d flaps; ExaBGP's three sessions and an authbgpd-authbgpd one), %d flood SYNs; key generation %d",
		elapsed.Round(time.Second), s.counts["rekey"], s.counts["restart"], s.counts["wrong-key"], s.counts["flap"], flood.sent.Load(), s.gen)
}

// everyKey are the chains of every key the soak used (the last 40
// generations: their KeyIDs are distinct), the latest active.
func (s *soak) everyKey() aoChains {
	var every aoChains
	for g := max(0, s.gen-39); g <= s.gen; g++ {
		a, b, c := soakKeys(g)
		q := soakQKey(g)
		if g > 0 {
			at := time.Now().Add(time.Duration(g-s.gen-1) * time.Hour)
			a.sendFrom, b.sendFrom, c.sendFrom, q.sendFrom = at, at, at, at
		}
		every.v4, every.v6, every.dyn, every.q = append(every.v4, a), append(every.v6, b), append(every.dyn, c), append(every.q, q)
	}
	return every
}

// soakVerifyPcap runs verify-pcap over the soak's capture: every segment
// the router sent to the three peers is valid (none unsigned, none
// invalid), and the peers' segments are valid except, for peer4, those of
// the wrong-key phases.
func soakVerifyPcap(t testing.TB, bin, conf, file string, wrongPhase bool) {
	rep, _ := runVerifyPcap(t, bin, conf, file)
	seen := map[string]bool{}
	for _, p := range rep.Peers {
		sh := p.Shadow
		if sh == nil || p.Address == soakQPeer.String() { // q's link is in its own capture
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
