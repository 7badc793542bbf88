//go:build linux

package e2e

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/capture/capfile"
	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/status"
	"github.com/authbgp/authbgpd/tcpsock"
)

// TestRekey changes the TCP-MD5 key of live sessions between two authbgpd
// routers, A (AS 65001, 192.0.2.1, 2001:db8::1) and B (AS 65002,
// 192.0.2.2, 2001:db8::2), each in its own namespace on one veth link:
//
//   - reload: both change the password (file) by reload within a second:
//     no reset, no NOTIFICATION, routes stay, tcpdump -M proves the new key
//     is on the wire (and the old one is not);
//   - keychain: a keychain switch scheduled 20 s ahead, the same checks,
//     /status key_id 2;
//   - redial-*: after an in-place change, the session is forced down; it
//     comes back with the new key, whichever side dials (the other is
//     restarted passive, so the dialer's hook must key its SYN with the new
//     key: GoBGP holds no password at all);
//   - one-sided: only A changes: B's kernel drops A's segments
//     (TCPMD5Failure) and vice versa; then B changes too and the same
//     session carries traffic again.
//
// The subtests run in parallel, each in its own topology.
func TestRekey(t *testing.T) {
	testenv.RequireRoot(t)
	testenv.RequireBinary(t, "tcpdump")
	testenv.RequireBinary(t, "gobgp")
	authbgpdBinary(t, "") // build once, before the parallel subtests start their clocks

	t.Run("reload", func(t *testing.T) {
		t.Parallel()
		testRekeyReload(t)
	})
	t.Run("keychain", func(t *testing.T) {
		t.Parallel()
		testRekeyKeychain(t)
	})
	t.Run("redial-a-dials", func(t *testing.T) {
		t.Parallel()
		testRekeyRedial(t, true)
	})
	t.Run("redial-b-dials", func(t *testing.T) {
		t.Parallel()
		testRekeyRedial(t, false)
	})
	t.Run("one-sided", func(t *testing.T) {
		t.Parallel()
		testRekeyOneSided(t)
	})
}

// ---------------------------------------------------------------- topology

// rkRouter is one of the two routers.
type rkRouter struct {
	name   string
	asn    uint32
	v4, v6 netip.Addr
	nets   []netip.Prefix // announced at start (one per family)
	churn  []netip.Prefix // announced and withdrawn to force UPDATE segments
}

var (
	rkA = rkRouter{
		name: "A", asn: 65001,
		v4:    netip.MustParseAddr("192.0.2.1"),
		v6:    netip.MustParseAddr("2001:db8::1"),
		nets:  []netip.Prefix{netip.MustParsePrefix("198.51.100.0/25"), netip.MustParsePrefix("2001:db8:a::/48")},
		churn: []netip.Prefix{netip.MustParsePrefix("198.51.100.128/25"), netip.MustParsePrefix("2001:db8:a1::/48")},
	}
	rkB = rkRouter{
		name: "B", asn: 65002,
		v4:    netip.MustParseAddr("192.0.2.2"),
		v6:    netip.MustParseAddr("2001:db8::2"),
		nets:  []netip.Prefix{netip.MustParsePrefix("203.0.113.0/25"), netip.MustParsePrefix("2001:db8:b::/48")},
		churn: []netip.Prefix{netip.MustParsePrefix("203.0.113.128/25"), netip.MustParsePrefix("2001:db8:b1::/48")},
	}
)

// rkName names the router an address belongs to.
func rkName(a netip.Addr) string {
	switch a {
	case rkA.v4, rkA.v6:
		return "A"
	case rkB.v4, rkB.v6:
		return "B"
	}
	return a.String()
}

// addrs returns the router's session addresses (IPv6 too when v6).
func (r rkRouter) addrs(v6 bool) []netip.Addr {
	if v6 {
		return []netip.Addr{r.v4, r.v6}
	}
	return []netip.Addr{r.v4}
}

func ofFamilyOf(ps []netip.Prefix, a netip.Addr) netip.Prefix {
	for _, p := range ps {
		if p.Addr().Is4() == a.Is4() {
			return p
		}
	}
	panic("no prefix of the family of " + a.String())
}

// rkOpts is how one router's config is written.
type rkOpts struct {
	v6       bool   // also an IPv6 session
	src, ref string // the peers' key: "password-file", "pw"; "keychain", "core"
	passive  bool
	keychain string // [[keychains]] TOML, or ""
}

// rkConfig is the config of self, peering with other.
func rkConfig(self, other rkRouter, o rkOpts) string {
	c := abConf{ASN: self.asn, RouterID: self.v4.String(), Extra: o.keychain}
	for _, a := range other.addrs(o.v6) {
		c.Peers = append(c.Peers, abPeer{addr: a.String(), asn: other.asn, src: o.src, ref: o.ref, passive: o.passive})
	}
	return c.String()
}

// rkPair is A and B in their namespaces.
type rkPair struct {
	t        *testing.T
	tp       *netns.Topology
	nsA, nsB string
	A, B     *Authbgpd
	v6       bool
}

// newRkPair creates the namespaces and the link; routers are started with
// startA/startB.
func newRkPair(t *testing.T, tag string, v6 bool) *rkPair {
	tp := netns.New(t, tag)
	p := &rkPair{t: t, tp: tp, nsA: tp.Add("a"), nsB: tp.Add("b"), v6: v6}
	tp.Link(p.nsA, "eth0", []string{rkA.v4.String() + "/24", rkA.v6.String() + "/64"},
		p.nsB, "eth0", []string{rkB.v4.String() + "/24", rkB.v6.String() + "/64"})
	return p
}

// config is self's config in this pair.
func (p *rkPair) config(self rkRouter, o rkOpts) string {
	other := rkB
	if self.name == "B" {
		other = rkA
	}
	o.v6 = p.v6
	return rkConfig(self, other, o)
}

// start runs authbgpd as router self (A or B) and announces its networks.
func (p *rkPair) start(self rkRouter, o rkOpts, files map[string]string) *Authbgpd {
	p.t.Helper()
	ns := p.nsA
	if self.name == "B" {
		ns = p.nsB
	}
	a := StartAuthbgpd(p.t, p.tp, ns, p.config(self, o), AuthbgpdOptions{Files: files})
	for _, n := range self.nets {
		if n.Addr().Is6() && !p.v6 {
			continue
		}
		if _, err := a.CLI(context.Background(), "global", "rib", "-a", prefixFamily(n), "add", n.String()); err != nil {
			p.t.Fatalf("%s: announce %s: %v", self.name, n, err)
		}
	}
	if self.name == "A" {
		p.A = a
	} else {
		p.B = a
	}
	return a
}

// sessions lists the sessions: (router, its neighbor address).
type rkSession struct {
	router string
	peer   netip.Addr
}

func (s rkSession) String() string { return s.router + "→" + s.peer.String() }

func (p *rkPair) sessions() []rkSession {
	var out []rkSession
	for _, a := range rkB.addrs(p.v6) {
		out = append(out, rkSession{"A", a})
	}
	for _, a := range rkA.addrs(p.v6) {
		out = append(out, rkSession{"B", a})
	}
	return out
}

func (p *rkPair) router(name string) *Authbgpd {
	if name == "A" {
		return p.A
	}
	return p.B
}

// waitUp waits until every session is Established with the other side's
// start-up route accepted.
func (p *rkPair) waitUp(timeout time.Duration, what string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	for _, s := range p.sessions() {
		if err := WaitSession(ctx, p.router(s.router), s.peer, 1); err != nil {
			p.t.Fatalf("%s: %s: %v", what, s.router, err)
		}
	}
	p.t.Logf("%s: all sessions established with routes after %v", what, time.Since(start).Round(time.Millisecond))
}

// writeSecret (re)writes a secret file next to a's config.
func rkWriteSecret(t *testing.T, a *Authbgpd, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(filepath.Dir(a.Config), name), []byte(content+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// rkReloadAndWait reloads a with config (authbgpd reload, which answers when
// the reload's pass is done) and waits until /status says done for every
// peer (e.g. keyInstalled). It returns when the reload was sent and when
// the change was seen applied.
func rkReloadAndWait(t *testing.T, a *Authbgpd, name, config string, done func(status.Peer) bool) (sent, applied time.Time) {
	t.Helper()
	sent = time.Now()
	if err := os.WriteFile(a.Config, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	// authbgpd reload answers when the reload's pass is done.
	if code, out, errs := abCLI(t, a.ns, "reload", "-f", a.Config); code != 0 {
		t.Fatalf("%s: authbgpd reload: exit %d\n%s%s", name, code, out, errs)
	}
	waitFor(t, 10*time.Second, name+": reload applied", func() error {
		s, err := a.TryStatus()
		if err != nil {
			return err
		}
		b, _ := json.Marshal(s)
		for _, p := range s.Peers {
			if !done(p) {
				return fmt.Errorf("last /status: %s", b)
			}
		}
		if len(s.Peers) == 0 {
			return fmt.Errorf("last /status: %s", b)
		}
		return nil
	})
	return sent, time.Now()
}

// connsOnKey waits until router name's established connections with each
// of its peers carry newKey (read back through sock_diag in its
// namespace) and returns when. An established connection keeps the key a
// change replaced for up to 2 s, or until the peer signs with another key
// (peers/rekeyhold.go), so that a peer resetting the session gets its
// NOTIFICATION through.
func (p *rkPair) connsOnKey(name, newKey, oldKey string) time.Time {
	p.t.Helper()
	ns, peers := p.nsA, rkB.addrs(p.v6)
	if name == "B" {
		ns, peers = p.nsB, rkA.addrs(p.v6)
	}
	waitFor(p.t, 10*time.Second, name+"'s connections on the new key", func() error {
		socks, err := socketKeysIn(ns, 179)
		if err != nil {
			return err
		}
		for _, a := range peers {
			if !socketsCarry(socks, a, newKey, oldKey) {
				return fmt.Errorf("the connection with %s does not carry the new key", a)
			}
		}
		return nil
	})
	return time.Now()
}

// keyInstalled: the peer's key is on its sockets, without error.
func keyInstalled(p status.Peer) bool { return p.Auth.Installed && p.Auth.Error == "" }

// rkPeerStatus returns addr's entry in a's /status (without failing the
// test, for polling).
func rkPeerStatus(a *Authbgpd, addr netip.Addr) (status.Peer, error) {
	s, err := a.TryStatus()
	if err != nil {
		return status.Peer{}, err
	}
	for _, p := range s.Peers {
		if p.Address == addr.String() {
			return p, nil
		}
	}
	return status.Peer{}, fmt.Errorf("%s is not in /status", addr)
}

// ---------------------------------------------------------------- GoBGP's view

type rkMsgs struct {
	Notification uint64 `json:"notification"`
	Update       uint64 `json:"update"`
	Open         uint64 `json:"open"`
	Keepalive    uint64 `json:"keepalive"`
	Total        uint64 `json:"total"`
}

// rkNeighbor is what the tests read of `gobgp neighbor ADDR -j`.
type rkNeighbor struct {
	State struct {
		Messages struct {
			Received rkMsgs `json:"received"`
			Sent     rkMsgs `json:"sent"`
		} `json:"messages"`
		Flops uint32 `json:"flops"`
	} `json:"state"`
	Timers struct {
		State struct {
			Uptime struct {
				Seconds int64 `json:"seconds"`
			} `json:"uptime"`
		} `json:"state"`
	} `json:"timers"`
	// tcp is the established TCP connection to the neighbor, from ss(8):
	// "local → remote".
	tcp    string
	dialed bool // the local end dialed (remote port 179)
	raw    string
}

// conn identifies the TCP connection and the session's start.
func (n *rkNeighbor) conn() string {
	return fmt.Sprintf("TCP %s, up since %d, flops %d", n.tcp, n.Timers.State.Uptime.Seconds, n.State.Flops)
}

// rkTCP returns the established BGP connections in a's namespace, by
// remote address: "local → remote".
func rkTCP(t *testing.T, a *Authbgpd) map[netip.Addr][2]netip.AddrPort {
	t.Helper()
	out, err := a.run(context.Background(), "ss", "-Htn", "state", "established", "( sport = :179 or dport = :179 )")
	if err != nil {
		t.Fatalf("ss: %v", err)
	}
	conns := map[netip.Addr][2]netip.AddrPort{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		l, err1 := netip.ParseAddrPort(f[len(f)-2])
		r, err2 := netip.ParseAddrPort(f[len(f)-1])
		if err1 != nil || err2 != nil {
			t.Fatalf("ss: cannot parse %q", line)
		}
		l = netip.AddrPortFrom(l.Addr().Unmap(), l.Port())
		r = netip.AddrPortFrom(r.Addr().Unmap(), r.Port())
		if _, dup := conns[r.Addr()]; dup {
			t.Logf("ss: two established connections with %v: %s", r.Addr(), out)
		}
		conns[r.Addr()] = [2]netip.AddrPort{l, r}
	}
	return conns
}

// rkNoGoBGPPassword checks that GoBGP holds no password for any session's
// neighbor (`gobgp neighbor X -j`, the stock CLI): every key is ours.
func rkNoGoBGPPassword(t *testing.T, p *rkPair) {
	t.Helper()
	for _, s := range p.sessions() {
		n := rkNeighborOf(t, p.router(s.router), s.router, s.peer)
		if strings.Contains(n.raw, "auth-password") || strings.Contains(n.raw, "auth_password") {
			t.Errorf("%s: GoBGP holds a password for the neighbor: %s", s, tail(n.raw, 600))
		}
	}
}

func rkNeighborOf(t *testing.T, a *Authbgpd, router string, addr netip.Addr) *rkNeighbor {
	t.Helper()
	out, err := a.CLI(context.Background(), "neighbor", addr.String(), "-j")
	if err != nil {
		t.Fatalf("%s: gobgp neighbor %s -j: %v", router, addr, err)
	}
	var n rkNeighbor
	if err := json.Unmarshal([]byte(out), &n); err != nil {
		t.Fatalf("%s: gobgp neighbor %s -j: %v: %s", router, addr, err, tail(out, 2000))
	}
	n.raw = out
	if n.State.Messages.Sent.Open == 0 || n.Timers.State.Uptime.Seconds == 0 {
		t.Fatalf("%s: gobgp neighbor %s -j: no OPEN sent or no uptime: the JSON is not what the test expects: %s", router, addr, tail(out, 2000))
	}
	if c, ok := rkTCP(t, a)[addr]; ok {
		n.tcp = c[0].String() + " → " + c[1].String()
		n.dialed = c[1].Port() == 179
	} else {
		n.tcp = "none"
	}
	return &n
}

// neighbors returns GoBGP's view of every session.
func (p *rkPair) neighbors() map[rkSession]*rkNeighbor {
	p.t.Helper()
	out := map[rkSession]*rkNeighbor{}
	for _, s := range p.sessions() {
		n := rkNeighborOf(p.t, p.router(s.router), s.router, s.peer)
		if n.tcp == "none" {
			p.t.Fatalf("%s: ss shows no established TCP connection with %s", s, s.peer)
		}
		out[s] = n
	}
	return out
}

// checkSameSessions fails unless every session is the very TCP connection
// and BGP session of before, and no NOTIFICATION went either way.
func (p *rkPair) checkSameSessions(before map[rkSession]*rkNeighbor) {
	p.t.Helper()
	after := p.neighbors()
	for s, b := range before {
		a := after[s]
		if a.conn() != b.conn() {
			p.t.Errorf("%s: the session was reset: before %s; after %s", s, b.conn(), a.conn())
		}
		if a.State.Messages.Sent.Notification != 0 || a.State.Messages.Received.Notification != 0 {
			p.t.Errorf("%s: NOTIFICATIONs sent %d, received %d; want none", s,
				a.State.Messages.Sent.Notification, a.State.Messages.Received.Notification)
		}
	}
	if p.t.Failed() {
		for s, a := range after {
			p.t.Logf("%s: gobgp neighbor -j: %s", s, tail(a.raw, 3000))
		}
	}
}

// checkRoutes fails unless every session has at least min routes accepted.
func (p *rkPair) checkRoutes(min int, what string) {
	p.t.Helper()
	for _, s := range p.sessions() {
		n, err := p.router(s.router).Accepted(s.peer)
		if err != nil || n < min {
			p.t.Errorf("%s: %s: %d routes accepted (err %v), want >= %d", what, s, n, err, min)
		}
	}
}

// churn makes every router announce, then withdraw, a route on every
// session, waiting each time until the other side has it (or no longer
// has it): UPDATE segments in both directions, delivered and acknowledged.
func (p *rkPair) churn(timeout time.Duration) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for _, self := range []rkRouter{rkA, rkB} {
		other := rkB
		if self.name == "B" {
			other = rkA
		}
		for _, a := range self.addrs(p.v6) {
			pfx := ofFamilyOf(self.churn, a)
			for _, op := range []string{"add", "del"} {
				if _, err := p.router(self.name).CLI(ctx, "global", "rib", "-a", prefixFamily(pfx), op, pfx.String()); err != nil {
					p.t.Fatalf("%s: %s %s: %v", self.name, op, pfx, err)
				}
				want := 2
				if op == "del" {
					want = 1
				}
				var n int
				var err error
				if !netns.WaitFor(ctx, func() bool {
					n, err = p.router(other.name).Accepted(a)
					return err == nil && n == want
				}) {
					p.t.Fatalf("%s %s on %s: %s has %d routes from %s (err %v), want %d",
						op, pfx, self.name, other.name, n, a, err, want)
				}
			}
		}
	}
}

// ---------------------------------------------------------------- /status monitor

type rkSample struct {
	at     time.Time
	state  string
	uptime int64
	keyID  int
}

// rkMonitor polls both routers' /status and records every session's state
// and uptime.
type rkMonitor struct {
	p      *rkPair
	mu     sync.Mutex
	series map[rkSession][]rkSample
	errs   []string
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once
}

func (p *rkPair) startMonitor(every time.Duration) *rkMonitor {
	m := &rkMonitor{p: p, series: map[rkSession][]rkSample{}, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(m.done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			m.poll()
			select {
			case <-m.stop:
				return
			case <-tick.C:
			}
		}
	}()
	p.t.Cleanup(m.halt) // when the test ends early
	return m
}

// halt stops the polling (idempotent).
func (m *rkMonitor) halt() {
	m.once.Do(func() { close(m.stop) })
	<-m.done
}

func (m *rkMonitor) poll() {
	for _, name := range []string{"A", "B"} {
		a := m.p.router(name)
		body, err := a.HTTPGet("/status")
		at := time.Now()
		var s status.Status
		if err == nil {
			err = json.Unmarshal([]byte(body), &s)
		}
		m.mu.Lock()
		if err != nil {
			m.errs = append(m.errs, fmt.Sprintf("%s %s: /status: %v", at.Format("15:04:05.000"), name, err))
			m.mu.Unlock()
			continue
		}
		for _, ps := range s.Peers {
			addr, err := netip.ParseAddr(ps.Address)
			if err != nil {
				continue
			}
			smp := rkSample{at: at, state: ps.State, uptime: ps.UptimeSeconds, keyID: -1}
			if ps.Auth.KeyID != nil {
				smp.keyID = *ps.Auth.KeyID
			}
			k := rkSession{name, addr}
			m.series[k] = append(m.series[k], smp)
		}
		m.mu.Unlock()
	}
}

// finish stops the monitor and fails t unless every session stayed
// established with an uptime that only grew, in step with the clock.
func (m *rkMonitor) finish() {
	t := m.p.t
	t.Helper()
	m.halt()
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, e := range m.errs {
		t.Errorf("status monitor: %s", e)
	}
	for _, s := range m.p.sessions() {
		ser := m.series[s]
		if len(ser) < 2 {
			t.Errorf("status monitor: %s: only %d samples", s, len(ser))
			continue
		}
		bad := 0
		for i, x := range ser {
			if x.state != Established {
				t.Errorf("status monitor: %s: state %q at %s (sample %d of %d)", s, x.state, x.at.Format("15:04:05.000"), i, len(ser))
				bad++
			}
			if i > 0 && x.uptime < ser[i-1].uptime {
				t.Errorf("status monitor: %s: uptime went back from %d to %d s at %s: the session was reset",
					s, ser[i-1].uptime, x.uptime, x.at.Format("15:04:05.000"))
				bad++
			}
			if bad > 5 {
				break
			}
		}
		first, last := ser[0], ser[len(ser)-1]
		wall := last.at.Sub(first.at).Seconds()
		if gain := float64(last.uptime - first.uptime); gain < wall-1.5 {
			t.Errorf("status monitor: %s: uptime grew %v s in %.1f s of wall time: the session was reset", s, gain, wall)
		}
		t.Logf("status monitor: %s: %d samples over %.1f s, always %s, uptime %d → %d s",
			s, len(ser), wall, first.state, first.uptime, last.uptime)
	}
}

// last returns the last sample of session s.
func (m *rkMonitor) last(s rkSession) rkSample {
	m.mu.Lock()
	defer m.mu.Unlock()
	ser := m.series[s]
	if len(ser) == 0 {
		return rkSample{keyID: -1}
	}
	return ser[len(ser)-1]
}

// ---------------------------------------------------------------- captures

// rkSeg is one captured segment with what tcpdump -M said about it under
// each key.
type rkSeg struct {
	segment
	at      time.Time
	seq     uint32
	verdict map[string]md5auth.Verdict // key -> verdict
}

func (s rkSeg) dir() string { return rkName(s.src.Addr()) + "→" + rkName(s.dst.Addr()) }

// rkAnalyze reads a capture and checks each segment under each key with
// md5auth and tcpdump -M (which must agree: compareWithTcpdump).
func rkAnalyze(t *testing.T, file string, keys ...string) []rkSeg {
	t.Helper()
	segs := readSegments(t, file)
	times := rkCaptureTimes(t, file)
	if len(times) != len(segs) {
		t.Fatalf("%s: %d timestamps for %d segments", file, len(times), len(segs))
	}
	out := make([]rkSeg, len(segs))
	for i, sg := range segs {
		out[i] = rkSeg{segment: sg, at: times[i], seq: binary.BigEndian.Uint32(sg.data[4:8]), verdict: map[string]md5auth.Verdict{}}
	}
	for _, k := range keys {
		st := compareWithTcpdump(t, file, segs, k)
		for i, v := range st.verdicts {
			out[i].verdict[k] = v
		}
	}
	return out
}

// rkCaptureTimes returns the timestamp of every packet of a capture.
func rkCaptureTimes(t *testing.T, file string) []time.Time {
	t.Helper()
	var out []time.Time
	if err := capfile.EachFile(file, func(pkt capfile.Packet) error {
		out = append(out, pkt.Time)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkAllOnKey fails unless every segment of the capture is valid under
// newKey and invalid under oldKey, and each direction of each family has
// at least minData signed segments with payload.
func rkCheckAllOnKey(t *testing.T, segs []rkSeg, newKey, oldKey string, minData int, v6 bool) {
	t.Helper()
	type count struct{ segs, data int }
	counts := map[string]*count{}
	for _, s := range segs {
		fam := "IPv4"
		if s.src.Addr().Is6() {
			fam = "IPv6"
		}
		d := s.dir() + " " + fam
		if counts[d] == nil {
			counts[d] = &count{}
		}
		counts[d].segs++
		if s.payload > 0 {
			counts[d].data++
		}
		if v := s.verdict[newKey]; v != md5auth.Valid {
			t.Errorf("packet %d (%s, %v → %v, %d bytes payload): %v under the new key, want valid", s.num, d, s.src, s.dst, s.payload, v)
		}
		if v := s.verdict[oldKey]; v != md5auth.Invalid {
			t.Errorf("packet %d (%s, %v → %v): %v under the old key, want invalid", s.num, d, s.src, s.dst, v)
		}
	}
	fams := []string{"IPv4"}
	if v6 {
		fams = append(fams, "IPv6")
	}
	for _, fam := range fams {
		for _, dir := range []string{"A→B", "B→A"} {
			d := dir + " " + fam
			c := counts[d]
			if c == nil {
				c = &count{}
			}
			if c.data < minData {
				t.Errorf("%s: %d segments with payload in the capture, want >= %d", d, c.data, minData)
			}
			t.Logf("capture after the switch: %s: %d segments (%d with payload), all valid under the new key and invalid under the old one", d, c.segs, c.data)
		}
	}
}

// captureAfterSwitch captures on A's link while forcing UPDATEs both ways
// and checks that every segment is signed with newKey, none with oldKey.
func (p *rkPair) captureAfterSwitch(newKey, oldKey string) {
	p.t.Helper()
	c := startTcpdump(p.t, p.tp, p.nsA, filepath.Join(p.t.TempDir(), "after.pcap"), "-i", "eth0", "--immediate-mode")
	p.churn(20 * time.Second)
	time.Sleep(300 * time.Millisecond) // the last ACKs
	c.stop(p.t)
	segs := rkAnalyze(p.t, c.file, newKey, oldKey)
	rkCheckAllOnKey(p.t, segs, newKey, oldKey, 2, p.v6)
}

// rkProbe dials dst from namespace ns (from its address towards dst) with
// TCP-MD5 key: nil when the handshake completes (the listener holds key
// for our address). The connection is closed at once; GoBGP closes an
// accepted connection of an established peer without touching the session.
func rkProbe(ns string, dst netip.AddrPort, key string, timeout time.Duration) error {
	return netns.Do(ns, func() error {
		d := net.Dialer{Timeout: timeout, Control: func(_, _ string, c syscall.RawConn) error {
			return tcpsock.SetKey(c, md5auth.AddrKey(dst.Addr(), []byte(key)))
		}}
		c, err := d.Dial("tcp", dst.String())
		if err != nil {
			return err
		}
		return c.Close()
	})
}

// checkListeners probes each router's listener from the other's namespace:
// the new key must be accepted and the old one not, whatever password
// GoBGP still holds.
func (p *rkPair) checkListeners(newKey, oldKey string) {
	p.t.Helper()
	for _, c := range []struct {
		ns     string
		target rkRouter
	}{{p.nsB, rkA}, {p.nsA, rkB}} {
		for _, a := range c.target.addrs(p.v6) {
			dst := netip.AddrPortFrom(a, 179)
			if err := rkProbe(c.ns, dst, newKey, 3*time.Second); err != nil {
				p.t.Errorf("%s's listener %v: a connection signed with the new key failed: %v", c.target.name, dst, err)
			}
			// A dropped SYN is retried after 1 s: 700 ms without an
			// answer means the kernel dropped it.
			if err := rkProbe(c.ns, dst, oldKey, 700*time.Millisecond); err == nil {
				p.t.Errorf("%s's listener %v accepted a connection signed with the old key", c.target.name, dst)
			}
		}
	}
}

// ---------------------------------------------------------------- 1. reload

func testRekeyReload(t *testing.T) {
	start := time.Now()
	const k1, k2 = "rekey-reload-key-1", "rekey-reload-key-2"
	p := newRkPair(t, "rkrel", true)
	o := rkOpts{src: "password-file", ref: "pw"}
	p.start(rkA, o, map[string]string{"pw": k1 + "\n"})
	p.start(rkB, o, map[string]string{"pw": k1 + "\n"})
	p.waitUp(40*time.Second, "key 1")
	before := p.neighbors()
	mon := p.startMonitor(200 * time.Millisecond)
	time.Sleep(time.Second)

	rkWriteSecret(t, p.A, "pw", k2)
	rkWriteSecret(t, p.B, "pw", k2)
	t0, tA := rkReloadAndWait(t, p.A, "A", p.config(rkA, o), keyInstalled)
	_, tB := rkReloadAndWait(t, p.B, "B", p.config(rkB, o), keyInstalled)
	t.Logf("reload: A switched %v after start, B %v after start", tA.Sub(t0).Round(time.Millisecond), tB.Sub(t0).Round(time.Millisecond))
	if tB.Sub(t0) > 2*time.Second {
		t.Errorf("the two reloads took %v (want within ~1 s)", tB.Sub(t0))
	}

	cA, cB := p.connsOnKey("A", k2, k1), p.connsOnKey("B", k2, k1)
	t.Logf("connections re-keyed: A's %v after its reload, B's %v after its", cA.Sub(tA).Round(time.Millisecond), cB.Sub(tB).Round(time.Millisecond))
	p.captureAfterSwitch(k2, k1)
	// The listeners are on k2 (and GoBGP holds no password at all).
	p.checkListeners(k2, k1)
	// ~10 s of monitoring after the switch in all.
	if d := 10*time.Second - time.Since(tB); d > 0 {
		time.Sleep(d)
	}
	mon.finish()
	p.checkSameSessions(before)
	p.checkRoutes(1, "after the key change")
	rkNoGoBGPPassword(t, p)
	for _, s := range p.sessions() {
		ps := p.router(s.router).Peer(s.peer.String())
		switch {
		case ps == nil:
			t.Errorf("%s: not in /status", s)
		case !ps.Auth.Installed || ps.Auth.Error != "" || ps.Auth.Source != "password-file" || ps.Auth.DialError != "":
			t.Errorf("%s: /status auth %+v: want installed, source password-file, no error", s, ps.Auth)
		}
	}
	t.Logf("subtest took %v", time.Since(start).Round(time.Millisecond))
}

// ---------------------------------------------------------------- 2. keychain

func rkKeychain(switchAt time.Time) string {
	return keychainSection("core", keychainKey{id: 1, file: "key1"},
		keychainKey{id: 2, file: "key2", sendFrom: switchAt.UTC().Format(time.RFC3339)})
}

func testRekeyKeychain(t *testing.T) {
	start := time.Now()
	const k1, k2 = "rekey-keychain-key-1", "rekey-keychain-key-2"
	p := newRkPair(t, "rkkc", true)
	switchAt := time.Now().Add(20 * time.Second).Truncate(time.Second)
	o := rkOpts{src: "keychain", ref: "core", keychain: rkKeychain(switchAt)}
	files := map[string]string{"key1": k1, "key2": k2}
	p.start(rkA, o, files)
	p.start(rkB, o, files)
	p.waitUp(40*time.Second, "keychain key 1")
	if left := time.Until(switchAt); left < 2*time.Second {
		t.Fatalf("the sessions came up only %v before the scheduled switch; cannot observe it", left)
	}
	for _, s := range p.sessions() {
		if ps := p.router(s.router).Peer(s.peer.String()); ps == nil || ps.Auth.KeyID == nil || *ps.Auth.KeyID != 1 || ps.Auth.Source != "keychain" {
			t.Fatalf("%s before the switch: /status %+v, want keychain key_id 1", s, ps)
		}
	}
	before := p.neighbors()
	mon := p.startMonitor(200 * time.Millisecond)
	t.Logf("established; waiting %v for the switch at %s", time.Until(switchAt).Round(time.Millisecond), switchAt.UTC().Format(time.RFC3339))

	// Both report key 2 shortly after the switch time.
	var switched time.Time
	if poll(time.Until(switchAt.Add(5*time.Second)), until(func() bool {
		for _, s := range p.sessions() {
			if mon.last(s).keyID != 2 {
				return false
			}
		}
		switched = time.Now()
		return true
	})) != nil {
		for _, s := range p.sessions() {
			t.Errorf("%s: /status key_id %d 5 s after the switch time, want 2", s, mon.last(s).keyID)
		}
		mon.finish()
		t.FailNow()
	}
	t.Logf("both routers report key 2 %v after the scheduled switch", switched.Sub(switchAt).Round(time.Millisecond))
	if d := time.Until(switchAt.Add(5 * time.Second)); d > 0 {
		time.Sleep(d)
	}
	p.captureAfterSwitch(k2, k1)
	p.checkListeners(k2, k1)
	if d := time.Until(switchAt.Add(12 * time.Second)); d > 0 {
		time.Sleep(d)
	}
	mon.finish()
	p.checkSameSessions(before)
	p.checkRoutes(1, "after the keychain switch")
	for _, s := range p.sessions() {
		ps := p.router(s.router).Peer(s.peer.String())
		if ps == nil || ps.Auth.KeyID == nil || *ps.Auth.KeyID != 2 || !ps.Auth.Installed || ps.Auth.Error != "" {
			t.Errorf("%s after the switch: /status %+v, want key_id 2 installed", s, ps)
		}
	}
	t.Logf("subtest took %v", time.Since(start).Round(time.Millisecond))
}

// ---------------------------------------------------------------- 3. redial

// testRekeyPendingSync changes the key in place on both routers, then
// forces the session down (gobgp neighbor reset on the side that will
// stay): the session comes back on the new key. Then the other side is
// restarted passive, so the first side must dial: it only gets in if its
// dial hook keys the SYN with the new key (GoBGP holds no password).
func testRekeyRedial(t *testing.T, aDials bool) {
	start := time.Now()
	const k1, k2 = "rekey-sync-key-1", "rekey-sync-key-2"
	tag := "rksyb"
	dialer, other := rkA, rkB
	if aDials {
		tag = "rksya"
	} else {
		dialer, other = rkB, rkA
	}
	p := newRkPair(t, tag, false)
	o := rkOpts{src: "password-file", ref: "pw"}
	p.start(rkA, o, map[string]string{"pw": k1})
	p.start(rkB, o, map[string]string{"pw": k1})
	p.waitUp(40*time.Second, "key 1")

	rkWriteSecret(t, p.A, "pw", k2)
	rkWriteSecret(t, p.B, "pw", k2)
	rkReloadAndWait(t, p.A, "A", p.config(rkA, o), keyInstalled)
	rkReloadAndWait(t, p.B, "B", p.config(rkB, o), keyInstalled)
	before := p.neighbors()
	for s, n := range before {
		if st, _ := p.router(s.router).State(s.peer); st != Established {
			t.Fatalf("%s: %s after the in-place key change, want established (%s)", s, st, n.conn())
		}
	}

	// Force the session down from the dialer's side.
	d, dAddr := p.router(dialer.name), other.v4
	if _, err := d.CLI(context.Background(), "neighbor", dAddr.String(), "reset"); err != nil {
		t.Fatalf("%s: gobgp neighbor %s reset: %v", dialer.name, dAddr, err)
	}
	t0 := time.Now()
	var last string
	if poll(45*time.Second, until(func() bool {
		for _, s := range p.sessions() {
			a := p.router(s.router)
			st, err := a.State(s.peer)
			if err != nil || st != Established {
				last = fmt.Sprintf("%s: state %q (%v)", s, st, err)
				return false
			}
			n := rkNeighborOf(t, a, s.router, s.peer)
			if n.conn() == before[s].conn() {
				last = fmt.Sprintf("%s: still the old session", s)
				return false
			}
			ps, err := rkPeerStatus(a, s.peer)
			if err != nil || ps.State != Established || ps.Auth.DialError != "" {
				last = fmt.Sprintf("%s: /status %+v (%v)", s, ps, err)
				return false
			}
		}
		return true
	})) != nil {
		t.Fatalf("after the reset, the session did not come back on the new key within 45 s: %s", last)
	}
	t.Logf("reset from %s: the session came back on the new key after %v",
		dialer.name, time.Since(t0).Round(time.Millisecond))
	for _, s := range p.sessions() {
		ps := p.router(s.router).Peer(s.peer.String())
		if ps == nil || ps.State != Established || !ps.Auth.Installed || ps.Auth.Error != "" || ps.Auth.DialError != "" {
			t.Errorf("%s: /status %+v after the reset: want established, installed, no error", s, ps)
		}
	}
	p.checkRoutes(1, "after the reset")

	// Restart the other side passive with the new key: only the dialer,
	// keying its SYN through the dial hook, can bring the session up.
	p.router(other.name).StopClean()
	t1 := time.Now()
	po := o
	po.passive = true
	p.start(other, po, map[string]string{"pw": k2})
	p.waitUp(45*time.Second, other.name+" restarted passive, "+dialer.name+" must dial with its synced password")
	n := rkNeighborOf(t, d, dialer.name, dAddr)
	if !n.dialed {
		t.Errorf("%s did not dial the session (%s)", dialer.name, n.conn())
	}
	t.Logf("%s dialed %s with the new key: up %v after the restart (%s)", dialer.name, other.name, time.Since(t1).Round(time.Millisecond), n.conn())
	if ps := p.router(dialer.name).Peer(dAddr.String()); ps == nil || ps.State != Established || ps.Auth.DialError != "" {
		t.Errorf("%s: /status %+v, want established", dialer.name, ps)
	}
	rkNoGoBGPPassword(t, p)
	t.Logf("subtest took %v", time.Since(start).Round(time.Millisecond))
}

// ---------------------------------------------------------------- 4. one-sided

// testRekeyOneSided changes A's key alone: each kernel then drops the
// other's segments on the established connection. When B changes too, the
// same connection carries traffic again (retransmissions recover it).
func testRekeyOneSided(t *testing.T) {
	start := time.Now()
	const k1, k2 = "rekey-onesided-key-1", "rekey-onesided-key-2"
	const oneSided = 2 * time.Second
	p := newRkPair(t, "rkone", false)
	o := rkOpts{src: "password-file", ref: "pw"}
	p.start(rkA, o, map[string]string{"pw": k1})
	p.start(rkB, o, map[string]string{"pw": k1})
	p.waitUp(40*time.Second, "key 1")
	before := p.neighbors()
	c := startTcpdump(t, p.tp, p.nsA, filepath.Join(t.TempDir(), "onesided.pcap"), "-i", "eth0", "--immediate-mode")
	mon := p.startMonitor(200 * time.Millisecond)
	failA0, failB0 := md5Counters(t, p.nsA)["TCPMD5Failure"], md5Counters(t, p.nsB)["TCPMD5Failure"]

	// A alone switches to k2 (its connection once its hold on k1 ends:
	// B does not reset the session).
	rkWriteSecret(t, p.A, "pw", k2)
	tAsent, _ := rkReloadAndWait(t, p.A, "A", p.config(rkA, o), keyInstalled)
	tA := p.connsOnKey("A", k2, k1)
	// Traffic both ways: each side announces a route the other cannot
	// receive now.
	pa, pb := ofFamilyOf(rkA.churn, rkB.v4), ofFamilyOf(rkB.churn, rkA.v4)
	if _, err := p.A.CLI(context.Background(), "global", "rib", "-a", "ipv4", "add", pa.String()); err != nil {
		t.Fatal(err)
	}
	if _, err := p.B.CLI(context.Background(), "global", "rib", "-a", "ipv4", "add", pb.String()); err != nil {
		t.Fatal(err)
	}
	var fa, fb uint64
	if poll(10*time.Second, until(func() bool {
		fa, fb = md5Counters(t, p.nsA)["TCPMD5Failure"], md5Counters(t, p.nsB)["TCPMD5Failure"]
		return fa > failA0 && fb > failB0
	})) != nil {
		t.Fatalf("with A alone on the new key: TCPMD5Failure in A's namespace %d → %d, in B's %d → %d; want both to rise", failA0, fa, failB0, fb)
	}
	if d := oneSided - time.Since(tA); d > 0 {
		time.Sleep(d)
	}
	nA, _ := p.A.Accepted(rkB.v4)
	nB, _ := p.B.Accepted(rkA.v4)
	if nA != 1 || nB != 1 {
		t.Errorf("while the keys differ: A has %d routes from B, B has %d from A; want 1 each (the new ones cannot get through)", nA, nB)
	}
	fa, fb = md5Counters(t, p.nsA)["TCPMD5Failure"], md5Counters(t, p.nsB)["TCPMD5Failure"]
	t.Logf("%v with A alone on the new key: TCPMD5Failure +%d in A's namespace (B's segments dropped), +%d in B's (A's segments dropped)",
		time.Since(tA).Round(time.Millisecond), fa-failA0, fb-failB0)

	// B catches up: the same connection recovers. Its kernel has been
	// dropping A's segments (bad digest), so its connection follows A at
	// once instead of keeping k1 for the hold.
	rkWriteSecret(t, p.B, "pw", k2)
	tBsent, tB := rkReloadAndWait(t, p.B, "B", p.config(rkB, o), keyInstalled)
	if tBkey := p.connsOnKey("B", k2, k1); tBkey.Sub(tB) > 500*time.Millisecond {
		if st, err := p.B.TryStatus(); err == nil && st.KernelDrops != nil && st.KernelDrops.Available {
			t.Errorf("B's connection carried the new key %v after its reload; the kernel's drops of A's segments should have re-keyed it at once", tBkey.Sub(tB).Round(time.Millisecond))
		}
		tB = tBkey
	}
	var gotA, gotB time.Time
	if poll(30*time.Second, until(func() bool {
		if gotA.IsZero() {
			if n, err := p.A.Accepted(rkB.v4); err == nil && n == 2 {
				gotA = time.Now()
			}
		}
		if gotB.IsZero() {
			if n, err := p.B.Accepted(rkA.v4); err == nil && n == 2 {
				gotB = time.Now()
			}
		}
		return !gotA.IsZero() && !gotB.IsZero()
	})) != nil {
		t.Fatalf("30 s after B switched too, the routes announced meanwhile did not get through (A got B's: %v, B got A's: %v)", !gotA.IsZero(), !gotB.IsZero())
	}
	t.Logf("after B switched: B's route reached A in %v, A's route reached B in %v (%v after A's switch)",
		gotA.Sub(tB).Round(time.Millisecond), gotB.Sub(tB).Round(time.Millisecond), gotB.Sub(tA).Round(time.Millisecond))
	time.Sleep(2 * time.Second) // a little more monitoring, and the ACKs
	c.stop(t)
	mon.finish()
	p.checkSameSessions(before)

	// The wire, per tcpdump -M (and md5auth, which must agree): each side
	// signs with k1 until its switch, then with k2, never going back;
	// nothing is unsigned. A switched between tAsent and tA, B between
	// tBsent and tB (capture timestamps use the same clock).
	segs := rkAnalyze(t, c.file, k1, k2)
	keyOf := func(s rkSeg) string {
		switch {
		case s.verdict[k1] == md5auth.Valid:
			return "k1"
		case s.verdict[k2] == md5auth.Valid:
			return "k2"
		}
		return fmt.Sprintf("neither (k1 %v, k2 %v)", s.verdict[k1], s.verdict[k2])
	}
	switched := map[string][2]time.Time{"A→B": {tAsent, tA}, "B→A": {tBsent, tB}}
	lastKey := map[string]string{}
	var aDropped, aData, bDropped int
	aSeqs := map[uint32]int{}
	var aFirstDrop, aFirstThrough, bFirstK2 time.Time
	for _, s := range segs {
		k, dir := keyOf(s), s.dir()
		if k != "k1" && k != "k2" {
			t.Errorf("packet %d (%s): valid under %s", s.num, dir, k)
			continue
		}
		if lastKey[dir] == "k2" && k == "k1" {
			t.Errorf("packet %d (%s): back on the old key after the new one", s.num, dir)
		}
		lastKey[dir] = k
		if w := switched[dir]; (s.at.Before(w[0]) && k != "k1") || (s.at.After(w[1]) && k != "k2") {
			t.Errorf("packet %d (%s) at %s: signed with %s; the sender switched between %s and %s",
				s.num, dir, s.at.Format("15:04:05.000000"), k, w[0].Format("15:04:05.000000"), w[1].Format("15:04:05.000000"))
		}
		switch {
		case dir == "A→B" && k == "k2" && s.at.Before(tBsent):
			aDropped++ // B still on k1
			if aFirstDrop.IsZero() {
				aFirstDrop = s.at
			}
			if s.payload > 0 {
				aData++
				aSeqs[s.seq]++
			}
		case dir == "A→B" && s.payload > 0 && s.at.After(tB) && aFirstThrough.IsZero():
			aFirstThrough = s.at
		case dir == "B→A" && k == "k1" && s.at.After(tA):
			bDropped++ // A already on k2
		case dir == "B→A" && k == "k2" && bFirstK2.IsZero():
			bFirstK2 = s.at
		}
	}
	if aDropped == 0 || aData == 0 || bDropped == 0 {
		t.Errorf("the capture shows %d segments (%d with payload) from A on the new key before B switched and %d from B on the old key after A switched; want some of each", aDropped, aData, bDropped)
	}
	if aFirstThrough.IsZero() || bFirstK2.IsZero() {
		t.Fatalf("the capture has no UPDATE from A after B's switch (%v) or no new-key segment from B (%v)", !aFirstThrough.IsZero(), !bFirstK2.IsZero())
	}
	retrans := 0
	for _, n := range aSeqs {
		retrans += n - 1
	}
	t.Logf("on the wire: A's segments were dropped by B for %v (first new-key segment to B's switch): %d segments, %d with payload (%d of them retransmissions); B's segments dropped by A: %d",
		tBsent.Sub(aFirstDrop).Round(time.Millisecond), aDropped, aData, retrans, bDropped)
	t.Logf("on the wire: after B's switch, its first new-key segment came %v later and A's next UPDATE transmission (accepted) %v later: A's UPDATE waited %v in all",
		bFirstK2.Sub(tB).Round(time.Millisecond), aFirstThrough.Sub(tB).Round(time.Millisecond), aFirstThrough.Sub(aFirstDrop).Round(time.Millisecond))
	t.Logf("subtest took %v", time.Since(start).Round(time.Millisecond))
}
