package vmtest

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/peers"
	"github.com/authbgp/authbgpd/status"
)

// Two authbgpd routers with TCP-AO keychains for each other, neither
// passive (issue 25): router a (AS 65001) in namespace "a" and router b
// (AS 65002) in "b", one veth link, an IPv4 session (HMAC-SHA-1-96) and an
// IPv6 one (AES-128-CMAC-96). Both dial: every SYN either sends is signed
// by the reconciler's dial hook.

// The chains, a's view (b's mirrors them: b sends with a's RecvID).
var (
	r2r4 = []mkt{
		{id: 1, sendID: 1, recvID: 11, alg: "hmac(sha1)", secret: "r2r v4 key one"},
		{id: 2, sendID: 2, recvID: 22, alg: "hmac(sha1)", secret: "r2r v4 key two"},
		{id: 3, sendID: 3, recvID: 33, alg: "hmac(sha1)", secret: "r2r v4 key three"},
	}
	r2r6 = []mkt{
		{id: 1, sendID: 5, recvID: 6, alg: "cmac(aes128)", secret: "r2r v6 key one.."},
		{id: 2, sendID: 15, recvID: 16, alg: "cmac(aes128)", secret: "r2r v6 key two.."},
		{id: 3, sendID: 25, recvID: 26, alg: "cmac(aes128)", secret: "r2r v6 key three"},
	}
)

// mirror is k as the far end holds it.
func (k mkt) mirror() mkt { k.sendID, k.recvID = k.recvID, k.sendID; return k }

func mirrorAll(ks []mkt) []mkt {
	out := make([]mkt, len(ks))
	for i, k := range ks {
		out[i] = k.mirror()
	}
	return out
}

// r2rSide is one router of the pair: its addresses and its peer's.
type r2rSide struct {
	name                       string
	asn, peerAS                uint32
	self4, self6, peer4, peer6 netip.Addr
}

var (
	sideA = r2rSide{"a", asRouter, asPeer, rtr4, rtr6, peer4, peer6}
	sideB = r2rSide{"b", asPeer, asRouter, peer4, peer6, rtr4, rtr6}
)

// r2rConf is side s's config with the chains v4 and v6 (a's view; b gets
// them mirrored), its peers passive or not.
func r2rConf(s r2rSide, v4, v6 []mkt, passive bool) string {
	if s.name == "b" {
		v4, v6 = mirrorAll(v4), mirrorAll(v6)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[global]\nasn = %d\nrouter-id = %q\nlisten-addresses = [%q, %q]\n", s.asn, s.self4, s.self4, s.self6)
	fmt.Fprintf(&b, "\n[api]\ngrpc = \"\"\nhttp = %q\n", routerHTTP)
	b.WriteString("\n[shadow]\nenabled = true\ninterfaces = []\nworkers = 1\n")
	b.WriteString(keychainTOML("v4", v4...))
	b.WriteString(keychainTOML("v6", v6...))
	for _, p := range []struct {
		addr  netip.Addr
		chain string
	}{{s.peer4, "v4"}, {s.peer6, "v6"}} {
		fmt.Fprintf(&b, "\n[[peers]]\naddress = %q\nasn = %d\nkeychain = %q\nhold-time = %d\n", p.addr, s.peerAS, p.chain, holdTime)
		if passive {
			b.WriteString("passive = true\n")
		}
	}
	return b.String()
}

// r2rPair is the two routers and their namespaces.
type r2rPair struct {
	tp   *netns.Pair
	a, b *router
	dir  string // the test's, outliving the subtests that start routers
	runs int
}

// launch starts a router in ns with its files in a fresh directory of
// p.dir, without waiting for it.
func (p *r2rPair) launch(t *testing.T, ns, conf string) *router {
	t.Helper()
	p.runs++
	dir := filepath.Join(p.dir, fmt.Sprintf("run%d", p.runs))
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return launchRouterIn(t, p.tp.Topology, ns, dir, conf)
}

// both launches a and b at the same moment (neither waits for the other)
// and waits until both answer; it returns when they were launched.
func (p *r2rPair) both(t *testing.T, confA, confB string) time.Time {
	t.Helper()
	start := time.Now()
	p.a = p.launch(t, p.tp.A, confA)
	p.b = p.launch(t, p.tp.B, confB)
	p.a.waitHealthy(t)
	p.b.waitHealthy(t)
	return start
}

// kill ends a router with SIGKILL (no NOTIFICATION, no clean-up: its
// kernel closes the sockets).
func kill(r *router) {
	_ = unix.Kill(-r.cmd.Process.Pid, unix.SIGKILL) // its process group (Start's Setpgid)
	netns.Stop(r.cmd)
}

// session is one BGP session as both ends see it.
type session struct {
	a, b *status.Peer // a's entry of b, b's entry of a
}

// dialer says which end dialed the session's connection.
func (s session) dialer() string {
	if s.a.RemotePort == 179 {
		return "a"
	}
	return "b"
}

func (s session) String() string {
	return fmt.Sprintf("%s:%d <-> %s:%d (dialed by %s, up %d s)", s.a.LocalAddress, s.a.LocalPort, s.a.Address, s.a.RemotePort, s.dialer(), s.a.UptimeSeconds)
}

// sessionUp reads both ends' view of the session between a's address of
// b (far) and b's address of a (near), and whether both see it established
// on the same connection over TCP-AO.
func (p *r2rPair) sessionUp(far, near netip.Addr) (session, bool) {
	s := session{p.a.peer(far.String()), p.b.peer(near.String())}
	ok := s.a != nil && s.b != nil && established(s.a) && established(s.b) &&
		s.a.LocalPort == s.b.RemotePort && s.a.RemotePort == s.b.LocalPort && (s.a.RemotePort == 179) != (s.b.RemotePort == 179)
	return s, ok
}

// waitSession waits (up to d) until the session is up at both ends on one
// connection and cond holds.
func (p *r2rPair) waitSession(t *testing.T, far, near netip.Addr, d time.Duration, what string, cond func(session) bool) session {
	t.Helper()
	var s session
	err := poll(d, func() error {
		var ok bool
		if s, ok = p.sessionUp(far, near); ok && (cond == nil || cond(s)) {
			return nil
		}
		return fmt.Errorf("a: %s; b: %s", peerString(s.a), peerString(s.b))
	})
	if err != nil {
		t.Fatalf("session %s-%s: not %s within %v; last: %v", near, far, what, d, err)
	}
	return s
}

// bgpConns are the namespace's TCP connections in state (ss's name) with
// port 179 at one end, as "local remote" address pairs.
func bgpConns(t testing.TB, ns, state string) [][2]netip.AddrPort {
	t.Helper()
	out, err := netns.Exec(ns, "ss", "-Htn", "state", state).CombinedOutput()
	if err != nil {
		t.Fatalf("ss state %s: %v\n%s", state, err, out)
	}
	var conns [][2]netip.AddrPort
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		l, err1 := netip.ParseAddrPort(f[2])
		r, err2 := netip.ParseAddrPort(f[3])
		if err1 != nil || err2 != nil {
			continue
		}
		l, r = netip.AddrPortFrom(l.Addr().Unmap(), l.Port()), netip.AddrPortFrom(r.Addr().Unmap(), r.Port())
		if l.Port() == 179 || r.Port() == 179 {
			conns = append(conns, [2]netip.AddrPort{l, r})
		}
	}
	return conns
}

// oneSession checks that each end has exactly one established BGP
// connection to the other's address, the session's.
func (p *r2rPair) oneSession(t testing.TB, s session) {
	t.Helper()
	for _, c := range []struct {
		ns   string
		peer *status.Peer
	}{{p.tp.A, s.a}, {p.tp.B, s.b}} {
		var n int
		for _, conn := range bgpConns(t, c.ns, "established") {
			if conn[1].Addr().String() == c.peer.Address {
				n++
				if conn[0].Port() != c.peer.LocalPort || conn[1].Port() != c.peer.RemotePort {
					t.Errorf("%s: an established connection %v-%v besides the session's (ports %d-%d)", c.ns, conn[0], conn[1], c.peer.LocalPort, c.peer.RemotePort)
				}
			}
		}
		if n != 1 {
			t.Errorf("%s: %d established connections with %s, want the session's one", c.ns, n, c.peer.Address)
		}
	}
}

// keyIs is a session condition: both ends on chain key k (a's view), the
// current key following the far end's RNextKeyID, and each end's shadow
// seeing the other's segments with k.
func keyIs(k mkt) func(session) bool {
	return func(s session) bool {
		m := k.mirror()
		return intIs(s.a.Auth.KeyID, k.id) && intIs(s.a.Auth.SendID, k.sendID) && intIs(s.a.Auth.RecvID, k.recvID) && intIs(s.a.Auth.PeerRNextKeyID, k.sendID) &&
			intIs(s.b.Auth.KeyID, k.id) && intIs(s.b.Auth.SendID, m.sendID) && intIs(s.b.Auth.RecvID, m.recvID) && intIs(s.b.Auth.PeerRNextKeyID, m.sendID) &&
			peerSent(s.a, k.recvID) > 0 && peerSent(s.b, m.recvID) > 0
	}
}

// sameSession fails t unless now is the connection of was, never reset.
func sameSession(t *testing.T, was, now session) {
	t.Helper()
	for _, c := range []struct{ was, now *status.Peer }{{was.a, now.a}, {was.b, now.b}} {
		if c.now.LocalPort != c.was.LocalPort || c.now.RemotePort != c.was.RemotePort {
			t.Errorf("%s: the session moved from ports %d-%d to %d-%d: it was reset", c.now.Address, c.was.LocalPort, c.was.RemotePort, c.now.LocalPort, c.now.RemotePort)
		}
		if c.now.UptimeSeconds < c.was.UptimeSeconds {
			t.Errorf("%s: uptime %d s, was %d s: the session was reset", c.now.Address, c.now.UptimeSeconds, c.was.UptimeSeconds)
		}
		if c.now.LastError != nil && (c.was.LastError == nil || *c.now.LastError != *c.was.LastError) {
			t.Errorf("%s: the session went down: %+v", c.now.Address, *c.now.LastError)
		}
		if k := c.now.Auth.Kernel; k == nil || k.Bad != 0 || k.KeyNotFound != 0 || k.AORequired != 0 {
			t.Errorf("%s: the kernel counts failures on the session: %+v", c.now.Address, k)
		}
	}
}

// TestBGPTCPAOTwoRouters: two authbgpd routers with TCP-AO for each other,
// neither passive, in steps that share the routers and one capture:
//
//	up:        both started at once; the IPv4 and the IPv6 session come up,
//	           one connection each (the time from the start is a FIGURE)
//	send-from: a key scheduled a few seconds ahead on both routers: both
//	           switch at its time, on the same connection
//	reload:    a key added (active at once) by reload on both, then the old
//	           ones removed: the same connection throughout (a FIGURE)
//	restart:   b killed (SIGKILL) and started again, passive, so that only
//	           a's re-dial can bring the sessions back: a re-dials, signed,
//	           within its connect-retry (a FIGURE). (Restarted dialing, b's
//	           first dial meets a in GoBGP's 5-s Idle, which closes it;
//	           both then dial while the other is Idle and can stay out of
//	           phase for minutes: GoBGP v3 has no collision detection.)
//	collision: both killed and started at once while the link drops every
//	           frame, until each has a SYN out to the other on both
//	           sessions; then the frames pass: both dials meet, GoBGP keeps
//	           one connection per session
//	verify:    no unsigned segment from either router in the capture, SYNs
//	           included; scapy verifies every MAC both ways, whoever
//	           dialed; verify-pcap with either router's config
func TestBGPTCPAOTwoRouters(t *testing.T) {
	requireVM(t)
	tp := netns.NewPair(t, "r2r",
		netns.End{NS: "a", If: "eth0", Addrs: []string{rtr4.String() + "/24", rtr6.String() + "/64"}},
		netns.End{NS: "b", If: "eth0", Addrs: []string{peer4.String() + "/24", peer6.String() + "/64"}})
	p := &r2rPair{tp: tp, dir: t.TempDir()}
	capt := startCapture(t, tp.Topology, tp.A, "eth0", t.TempDir(), "tcp port 179")
	v4, v6 := r2r4[:1], r2r6[:1]
	sessions := []struct {
		name      string
		far, near netip.Addr
	}{{"IPv4 (HMAC-SHA-1-96)", peer4, rtr4}, {"IPv6 (AES-128-CMAC-96)", peer6, rtr6}}
	up := make([]session, len(sessions))

	ok := t.Run("up", func(t *testing.T) {
		start := p.both(t, r2rConf(sideA, v4, v6, false), r2rConf(sideB, v4, v6, false))
		t.Logf("both routers answering %v after their start", time.Since(start).Round(time.Millisecond))
		// Established as GoBGP says it (state), timed from the start.
		at := make([]time.Duration, len(sessions))
		err := poll(90*time.Second, func() error {
			var missing []string
			for i, s := range sessions {
				if at[i] != 0 {
					continue
				}
				pa, pb := p.a.peer(s.far.String()), p.b.peer(s.near.String())
				if pa != nil && pb != nil && pa.State == "established" && pb.State == "established" {
					at[i] = time.Since(start)
					continue
				}
				missing = append(missing, s.name)
			}
			if len(missing) > 0 {
				return fmt.Errorf("not established: %s", strings.Join(missing, ", "))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range sessions {
			up[i] = p.waitSession(t, s.far, s.near, 20*time.Second, "up on one TCP-AO connection", keyIs([]mkt{v4[0], v6[0]}[i]))
			p.oneSession(t, up[i])
			t.Logf("FIGURE: %s session between two authbgpd routers, neither passive: Established at both ends %v after both routers' start; %s",
				s.name, at[i].Round(10*time.Millisecond), up[i])
		}
		for _, r := range []*router{p.a, p.b} {
			t.Logf("router %s: %d accepted connections closed by GoBGP (a collision's other connection)", r.ns, len(linesWith(r.log(), "Closed an accepted connection")))
		}
	})
	if !ok {
		t.FailNow()
	}

	t.Run("send-from", func(t *testing.T) {
		at := time.Now().Add(6 * time.Second)
		k4, k6 := r2r4[1], r2r6[1]
		k4.sendFrom, k6.sendFrom = at, at
		v4, v6 = []mkt{r2r4[0], k4}, []mkt{r2r6[0], k6}
		p.a.reload(t, r2rConf(sideA, v4, v6, false))
		p.b.reload(t, r2rConf(sideB, v4, v6, false))
		for i, s := range sessions {
			k := []mkt{k4, k6}[i]
			now := p.waitSession(t, s.far, s.near, 40*time.Second, fmt.Sprintf("on key %d", k.id), keyIs(k))
			if d := time.Until(at); d > 0 {
				t.Errorf("%s: on key %d %v before its send-from", s.name, k.id, d)
			}
			sameSession(t, up[i], now)
			t.Logf("%s: on key %d %v after its send-from, same connection: %s", s.name, k.id, time.Since(at).Round(100*time.Millisecond), now)
			up[i] = now
		}
	})

	t.Run("reload", func(t *testing.T) {
		// A key added on both, active at once (its send-from now).
		now := time.Now()
		k4, k6 := r2r4[2], r2r6[2]
		k4.sendFrom, k6.sendFrom = now, now
		v4, v6 = append(v4, k4), append(v6, k6)
		marks := []int{len(p.a.log()), len(p.b.log())}
		p.a.reload(t, r2rConf(sideA, v4, v6, false))
		p.b.reload(t, r2rConf(sideB, v4, v6, false))
		was := append([]session(nil), up...)
		for i, s := range sessions {
			k := []mkt{k4, k6}[i]
			up[i] = p.waitSession(t, s.far, s.near, 40*time.Second, fmt.Sprintf("on key %d", k.id), keyIs(k))
			sameSession(t, was[i], up[i])
		}
		switched := time.Since(now)
		// The old keys removed on both.
		v4, v6 = []mkt{k4}, []mkt{k6}
		p.a.reload(t, r2rConf(sideA, v4, v6, false))
		p.b.reload(t, r2rConf(sideB, v4, v6, false))
		for i, s := range sessions {
			k := []mkt{k4, k6}[i]
			good := func(x *status.Peer) uint64 { return x.Auth.Kernel.Good }
			ga, gb := good(up[i].a), good(up[i].b)
			now := p.waitSession(t, s.far, s.near, 3*holdTime*time.Second, "on the new key with the old ones removed", func(n session) bool {
				return keyIs(k)(n) && good(n.a) >= ga+2 && good(n.b) >= gb+2
			})
			sameSession(t, was[i], now)
			p.oneSession(t, now)
			t.Logf("FIGURE: reload on both routers, %s session: key %d added (active at once) -> both ends on it %v after the first reload, then keys 1 and 2 removed; the session was kept (same connection %d-%d, uptime %d s -> %d s, no NOTIFICATION, no new connection)",
				s.name, k.id, switched.Round(100*time.Millisecond), now.a.LocalPort, now.a.RemotePort, was[i].a.UptimeSeconds, now.a.UptimeSeconds)
			up[i] = now
		}
		for j, r := range []*router{p.a, p.b} {
			since := r.log()[marks[j]:]
			for _, bad := range []string{"could not set", "drift", "Neighbor reset", "ending it", "Peer Down"} {
				if w := linesWith(since, bad); len(w) > 0 {
					t.Errorf("router %s logged %q during the key changes:\n%s", r.ns, bad, strings.Join(w, "\n"))
				}
			}
		}
	})

	t.Run("restart", func(t *testing.T) {
		killed := time.Now()
		kill(p.b)
		for _, s := range sessions {
			p.a.waitPeer(t, s.far.String(), 20*time.Second, "down after b was killed", func(x *status.Peer) bool { return x.State != "established" })
		}
		down := time.Since(killed)
		// b comes back passive: only a's dial can bring the sessions up.
		p.b = p.launch(t, tp.B, r2rConf(sideB, v4, v6, true))
		p.b.waitHealthy(t)
		back := time.Now()
		retry := time.Duration(peers.DefaultConnectRetry) * time.Second
		for i, s := range sessions {
			up[i] = p.waitSession(t, s.far, s.near, 3*retry, "re-dialed by a", keyIs([]mkt{v4[0], v6[0]}[i]))
			if up[i].dialer() != "a" {
				t.Errorf("%s: the session after b's restart was dialed by %s; b is passive", s.name, up[i].dialer())
			}
			// GoBGP's next dial is at most twice its connect-retry away
			// (it draws each wait from [retry, 2 retry)), after an idle
			// hold of 5 s from the session's end.
			took := time.Since(back)
			if took > 2*retry {
				t.Errorf("%s: a re-dialed %v after b was back, more than its connect-retry allows (%v, jittered to < %v)", s.name, took, retry, 2*retry)
			}
			p.oneSession(t, up[i])
			t.Logf("FIGURE: %s session, b killed (SIGKILL) and restarted: a saw it down %v after the kill, b answered again %v after the kill, a re-dialed and the session was Established (signed) %v after b was back (%v after the kill; a's connect-retry %v, jittered); %s",
				s.name, down.Round(10*time.Millisecond), back.Sub(killed).Round(10*time.Millisecond), took.Round(10*time.Millisecond), time.Since(killed).Round(10*time.Millisecond), retry, up[i])
		}
	})

	// b killed again and back dialing, as a router restarts: b's first
	// SYN reaches a in its idle hold (GoBGP refuses connections while
	// Idle), and b goes into an idle hold of its own. Without the dial
	// deferral (peers.PeerIdleHold) the two GoBGPs then kept dialing into
	// each other's idle hold, out of phase, for minutes.
	t.Run("restart-dialing", func(t *testing.T) {
		killed := time.Now()
		kill(p.b)
		for _, s := range sessions {
			p.a.waitPeer(t, s.far.String(), 20*time.Second, "down after b was killed", func(x *status.Peer) bool { return x.State != "established" })
		}
		p.b = p.launch(t, tp.B, r2rConf(sideB, v4, v6, false))
		p.b.waitHealthy(t)
		back := time.Now()
		retry := time.Duration(peers.DefaultConnectRetry) * time.Second
		for i, s := range sessions {
			up[i] = p.waitSession(t, s.far, s.near, 4*retry, "up again with b dialing too", keyIs([]mkt{v4[0], v6[0]}[i]))
			took := time.Since(back)
			if took > 2*retry {
				t.Errorf("%s: up %v after b was back (both dialing), more than twice the connect-retry (%v)", s.name, took, retry)
			}
			p.oneSession(t, up[i])
			t.Logf("FIGURE: %s session, b killed and restarted dialing: Established (signed) %v after b was back (%v after the kill), dialed by %s; %s",
				s.name, took.Round(10*time.Millisecond), time.Since(killed).Round(10*time.Millisecond), up[i].dialer(), up[i])
		}
	})

	t.Run("collision", func(t *testing.T) {
		kill(p.a)
		kill(p.b)
		// Every frame to the other end goes to a MAC address nobody has,
		// so both routers' SYNs are lost until the entries are removed.
		type nb struct{ ns, addr string }
		bogus := []nb{{tp.A, peer4.String()}, {tp.A, peer6.String()}, {tp.B, rtr4.String()}, {tp.B, rtr6.String()}}
		for _, n := range bogus {
			netns.Run(t, "ip", "-n", n.ns, "neigh", "replace", n.addr, "lladdr", "02:00:5e:00:53:ff", "dev", "eth0", "nud", "permanent")
		}
		start := p.both(t, r2rConf(sideA, v4, v6, false), r2rConf(sideB, v4, v6, false))
		want := map[string][]netip.Addr{tp.A: {peer4, peer6}, tp.B: {rtr4, rtr6}}
		waitFor(t, 30*time.Second, "a SYN out from both routers on both sessions", func() error {
			for ns, addrs := range want {
				for _, a := range addrs {
					found := false
					for _, c := range bgpConns(t, ns, "syn-sent") {
						found = found || (c[1].Addr() == a && c[1].Port() == 179)
					}
					if !found {
						return fmt.Errorf("%s: no SYN out to %s", ns, a)
					}
				}
			}
			return nil
		})
		dialing := time.Since(start)
		for _, n := range bogus {
			netns.Run(t, "ip", "-n", n.ns, "neigh", "del", n.addr, "dev", "eth0")
		}
		released := time.Now()
		for i, s := range sessions {
			up[i] = p.waitSession(t, s.far, s.near, 60*time.Second, "up after both dialed", keyIs([]mkt{v4[0], v6[0]}[i]))
			// Settled: the other connection is gone on both ends.
			waitFor(t, 20*time.Second, "one connection per session", func() error {
				for _, c := range []struct {
					ns   string
					addr string
				}{{tp.A, s.far.String()}, {tp.B, s.near.String()}} {
					n := 0
					for _, conn := range bgpConns(t, c.ns, "established") {
						if conn[1].Addr().String() == c.addr {
							n++
						}
					}
					if n != 1 {
						return fmt.Errorf("%s: %d established connections with %s", c.ns, n, c.addr)
					}
				}
				return nil
			})
			up[i], _ = p.sessionUp(s.far, s.near)
			p.oneSession(t, up[i])
			t.Logf("collision, %s: both routers had a SYN out %v after their start; Established on one connection %v after the frames passed; %s",
				s.name, dialing.Round(10*time.Millisecond), time.Since(released).Round(10*time.Millisecond), up[i])
		}
		for _, r := range []*router{p.a, p.b} {
			t.Logf("router %s: %d accepted connections closed by GoBGP (the collision's other connection)", r.ns, len(linesWith(r.log(), "Closed an accepted connection")))
		}
	})
	time.Sleep(time.Second)
	capt.stop()

	t.Run("verify", func(t *testing.T) {
		segs := segments(t, capt.file)
		routers := map[netip.Addr]string{rtr4: "a", rtr6: "a", peer4: "b", peer6: "b"}
		var signed, unsigned int
		syns := map[string]int{}
		for _, s := range segs {
			who, ok := routers[s.src.Addr()]
			if !ok {
				continue
			}
			if s.ao == nil || s.md5 {
				unsigned++
				if unsigned <= 5 {
					t.Errorf("router %s sent a segment without TCP-AO: %v -> %v flags %#x (md5 %v)", who, s.src, s.dst, s.flags, s.md5)
				}
				continue
			}
			signed++
			if s.syn() && s.flags&0x10 == 0 {
				syns[who]++
			}
		}
		t.Logf("%d segments captured: %d from the routers signed, %d not; SYNs (signed) from a %d, from b %d", len(segs), signed, unsigned, syns["a"], syns["b"])
		if unsigned != 0 || signed == 0 || syns["a"] == 0 || syns["b"] == 0 {
			t.Errorf("%d unsigned segments from the routers, %d signed; SYNs from a %d, from b %d: want none unsigned and SYNs from both", unsigned, signed, syns["a"], syns["b"])
		}
		pairs := []scapyPair{
			{rtr4.String(), peer4.String(), scapyKeys(r2r4...)},
			{rtr6.String(), peer6.String(), scapyKeys(r2r6...)},
		}
		res := runScapy(t, capt.file, pairs)
		for _, pr := range pairs {
			r, ok := res[pr.A+"-"+pr.B]
			if !ok || r.OK == 0 || r.Bad != 0 || r.Unsigned != 0 || r.MD5 != 0 || r.NoKey != 0 || r.NoHandshake != 0 || r.Wrapped != 0 {
				t.Errorf("scapy: %s-%s: %+v, want only good MACs", pr.A, pr.B, r)
			}
			if len(r.KeyIDs[pr.A]) == 0 || len(r.KeyIDs[pr.B]) == 0 {
				t.Errorf("scapy: %s-%s: KeyIDs %v, want segments from both", pr.A, pr.B, r.KeyIDs)
			}
		}
		// verify-pcap with each router's config holding every key.
		past := func(ks []mkt) []mkt {
			out := append([]mkt(nil), ks...)
			for i := 1; i < len(out); i++ {
				out[i].sendFrom = time.Now().Add(time.Duration(i-len(out)) * time.Hour)
			}
			return out
		}
		for _, side := range []r2rSide{sideA, sideB} {
			conf := filepath.Join(t.TempDir(), side.name+"-every-key.toml")
			if err := os.WriteFile(conf, []byte(r2rConf(side, past(r2r4), past(r2r6), false)), 0o600); err != nil {
				t.Fatal(err)
			}
			rep, out := runVerifyPcap(t, p.a.bin, conf, capt.file)
			seen := map[string]bool{}
			for _, pr := range rep.Peers {
				sh := pr.Shadow
				if sh == nil {
					continue
				}
				seen[pr.Address] = true
				t.Logf("verify-pcap (%s's config) %s: %s", side.name, pr.Address, shadowJSON(sh))
				seg := sh.Segments
				if sh.Diagnosis != "ok" || seg.Valid == 0 || val(seg.BadMAC) != 0 || val(seg.UnknownKey) != 0 || val(seg.NoHandshake) != 0 || seg.Missing != 0 || seg.Unexpected != 0 {
					t.Errorf("verify-pcap (%s's config): %s: received %s, want all valid", side.name, pr.Address, shadowJSON(sh))
				}
				if sh.Sent == nil || sh.Sent.Valid == 0 || sh.Sent.Invalid != 0 || sh.Sent.Unsigned != 0 || val(sh.Sent.NoHandshake) != 0 {
					t.Errorf("verify-pcap (%s's config): %s: sent %s, want all valid", side.name, pr.Address, shadowJSON(sh))
				}
			}
			for _, a := range []netip.Addr{side.peer4, side.peer6} {
				if !seen[a.String()] {
					t.Errorf("verify-pcap (%s's config) reports nothing of %s:\n%s", side.name, a, out)
				}
			}
		}
	})
}

// TestBGPTCPAOPassiveFarEnd: authbgpd dials a TCP-AO far end that never
// dials itself: ExaBGP 4.2 with `passive true`, listening (exabgp.tcp.bind)
// with its MKTs on the listening socket through exabgp_ao.py's MD5() shim.
// The IPv4 (HMAC-SHA-1-96) and IPv6 (AES-128-CMAC-96) sessions come up on
// connections authbgpd dialed, every segment of both directions signed and
// verified by scapy and verify-pcap.
func TestBGPTCPAOPassiveFarEnd(t *testing.T) {
	requireVM(t)
	tp := aoTopology(t, "aopass")
	capt := startCapture(t, tp.Topology, tp.A, "eth0", t.TempDir(), "tcp port 179")
	nbrs := []exaNeighbor{
		{peer: rtr4, local: peer4, asn: asPeer, peerAS: asRouter, auth: "ao-v4", routes: []string{"198.51.100.0/24"}, passive: true},
		{peer: rtr6, local: peer6, asn: asPeer, peerAS: asRouter, auth: "ao-v6", routes: []string{"2001:db8:100::/48"}, passive: true},
	}
	e := startExaBGP(t, tp.Topology, tp.B, peer4.String(), nbrs, map[string][]exaKey{"v4": farEnd(v4k1), "v6": farEnd(v6k1)})
	// ExaBGP listens first without keys, then puts each neighbor's MKTs on
	// its listening socket: the router starts once both are there.
	waitFor(t, 60*time.Second, "ExaBGP listening with both chains' MKTs", func() error {
		b, _ := os.ReadFile(e.logPath)
		for _, l := range []string{"peer 192.0.2.1 chain v4: socket", "peer 2001:db8::1 chain v6: socket"} {
			if !strings.Contains(string(b), l) {
				return fmt.Errorf("no %q in ExaBGP's log", l)
			}
		}
		n := 0
		for _, c := range bgpListeners(t, tp.B) {
			if c == netip.AddrPortFrom(peer4, 179) || c == netip.AddrPortFrom(peer6, 179) {
				n++
			}
		}
		if n != 2 {
			return fmt.Errorf("%d of ExaBGP's 2 listeners", n)
		}
		return nil
	})
	var b strings.Builder
	fmt.Fprintf(&b, "[global]\nasn = %d\nrouter-id = %q\nlisten-addresses = [%q, %q]\n", asRouter, rtr4, rtr4, rtr6)
	fmt.Fprintf(&b, "\n[api]\ngrpc = \"\"\nhttp = %q\n", routerHTTP)
	b.WriteString("\n[shadow]\nenabled = true\ninterfaces = []\nworkers = 1\n")
	b.WriteString(keychainTOML("v4", v4k1))
	b.WriteString(keychainTOML("v6", v6k1))
	for _, p := range []struct {
		addr  netip.Addr
		chain string
	}{{peer4, "v4"}, {peer6, "v6"}} {
		fmt.Fprintf(&b, "\n[[peers]]\naddress = %q\nasn = %d\nkeychain = %q\nhold-time = %d\n", p.addr, asPeer, p.chain, holdTime)
	}
	start := time.Now()
	r := startRouter(t, tp.Topology, tp.A, b.String())
	for _, c := range []struct {
		peer, local netip.Addr
		k           mkt
	}{{peer4, rtr4, v4k1}, {peer6, rtr6, v6k1}} {
		p := r.waitPeer(t, c.peer.String(), 60*time.Second, "established over TCP-AO with the peer's route", func(p *status.Peer) bool {
			return established(p) && len(p.Families) == 1 && p.Families[0].Accepted == 1 && peerSent(p, c.k.recvID) > 0
		})
		t.Logf("%s: established %v after the router's start, on a connection it dialed: %s", c.peer, time.Since(start).Round(10*time.Millisecond), peerString(p))
		if p.RemotePort != 179 || p.Auth.DialError != "" || !intIs(p.Auth.SendID, c.k.sendID) || !intIs(p.Auth.PeerRNextKeyID, c.k.sendID) {
			t.Errorf("%s: remote port %d (want 179: the router dialed), dial_error %q, send_id %v, peer_rnext_key_id %v", c.peer, p.RemotePort, p.Auth.DialError, deref(p.Auth.SendID), deref(p.Auth.PeerRNextKeyID))
		}
		waitFor(t, 10*time.Second, "ExaBGP's session with "+c.local.String(), func() error {
			if st, ups := e.state(c.peer, c.local); st != "up" || ups != 1 {
				return fmt.Errorf("ExaBGP says %q (up %d times)", st, ups)
			}
			return nil
		})
	}
	time.Sleep(time.Second)
	capt.stop()

	segs := segments(t, capt.file)
	var ours, unsigned, peerSYNs int
	for _, s := range segs {
		if s.src.Addr() == peer4 || s.src.Addr() == peer6 {
			if s.syn() && s.flags&0x10 == 0 {
				peerSYNs++
			}
			continue
		}
		ours++
		if s.ao == nil || s.md5 {
			unsigned++
			t.Errorf("the router sent a segment without TCP-AO: %v -> %v flags %#x", s.src, s.dst, s.flags)
		}
	}
	t.Logf("%d segments captured, %d from the router (%d without TCP-AO); %d SYNs from the passive far end", len(segs), ours, unsigned, peerSYNs)
	if ours == 0 || peerSYNs != 0 {
		t.Errorf("%d segments from the router, %d SYNs from the passive far end (want 0)", ours, peerSYNs)
	}
	pairs := []scapyPair{{rtr4.String(), peer4.String(), scapyKeys(v4k1)}, {rtr6.String(), peer6.String(), scapyKeys(v6k1)}}
	res := runScapy(t, capt.file, pairs)
	for _, pr := range pairs {
		x, ok := res[pr.A+"-"+pr.B]
		if !ok || x.OK == 0 || x.Bad != 0 || x.Unsigned != 0 || x.MD5 != 0 || x.NoKey != 0 || x.NoHandshake != 0 || len(x.KeyIDs[pr.A]) == 0 || len(x.KeyIDs[pr.B]) == 0 {
			t.Errorf("scapy: %s-%s: %+v, want only good MACs, both ways", pr.A, pr.B, x)
		}
	}
	rep, out := runVerifyPcap(t, r.bin, r.conf, capt.file)
	seen := 0
	for _, pr := range rep.Peers {
		sh := pr.Shadow
		if sh == nil || (pr.Address != peer4.String() && pr.Address != peer6.String()) {
			continue
		}
		seen++
		t.Logf("verify-pcap %s: %s", pr.Address, shadowJSON(sh))
		seg := sh.Segments
		if sh.Diagnosis != "ok" || seg.Valid == 0 || val(seg.BadMAC) != 0 || val(seg.UnknownKey) != 0 || val(seg.NoHandshake) != 0 || seg.Missing != 0 ||
			sh.Sent == nil || sh.Sent.Valid == 0 || sh.Sent.Invalid != 0 || sh.Sent.Unsigned != 0 || val(sh.Sent.NoHandshake) != 0 {
			t.Errorf("verify-pcap: %s: %s, want every segment both ways valid", pr.Address, shadowJSON(sh))
		}
	}
	if seen != 2 {
		t.Errorf("verify-pcap reports %d of the 2 peers:\n%s", seen, out)
	}
}

// bgpListeners are the namespace's listening TCP sockets.
func bgpListeners(t *testing.T, ns string) []netip.AddrPort {
	t.Helper()
	out, err := netns.Exec(ns, "ss", "-Htln").CombinedOutput()
	if err != nil {
		t.Fatalf("ss -tln: %v\n%s", err, out)
	}
	var ls []netip.AddrPort
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		if a, err := netip.ParseAddrPort(f[3]); err == nil {
			ls = append(ls, netip.AddrPortFrom(a.Addr().Unmap(), a.Port()))
		}
	}
	return ls
}
