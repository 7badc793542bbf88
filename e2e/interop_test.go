//go:build linux

package e2e

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/status"
)

// Interoperability of authbgpd's TCP-MD5 with the other open-source BGP
// speakers, and the helpers the authbgpd end-to-end tests share.

// --------------------------------------------------------------- helpers

// concurrently runs one subtest per name, all at the same time, and returns
// when all are done. These subtests spend their time waiting on BGP timers,
// not on the CPU, so they are not t.Parallel: that would cap them at
// -parallel (GOMAXPROCS, 2 on small CI machines) and serialize the waits.
// t.Run may be called from several goroutines at once.
func concurrently(t *testing.T, names []string, fn func(t *testing.T, i int)) {
	t.Helper()
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(name, func(t *testing.T) { fn(t, i) })
		}()
	}
	wg.Wait()
}

// newSecret returns a distinctive TCP-MD5 key (letters, digits and dashes
// only, as the peer helpers require) that cannot occur in any output by
// chance: the no-leak checks search for it.
func newSecret(label string) string {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return "Zk-" + label + "-" + hex.EncodeToString(b)
}

// metricValue returns the value of the sample name{labels} (labels as
// written by the Prometheus text format, e.g. `result="error"`; "" for
// none) in a /metrics body, and whether it is there.
func metricValue(body, name, labels string) (float64, bool) {
	want := name
	if labels != "" {
		want += "{" + labels + "}"
	}
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, want+" "); ok {
			v, err := strconv.ParseFloat(strings.Fields(rest)[0], 64)
			return v, err == nil
		}
	}
	return 0, false
}

// requireMetric fails t unless a's /metrics has name{labels} == want.
func requireMetric(t testing.TB, a *Authbgpd, name, labels string, want float64) {
	t.Helper()
	body, err := a.HTTPGet("/metrics")
	if err != nil {
		t.Fatalf("GET /metrics: %v", err)
	}
	got, ok := metricValue(body, name, labels)
	if !ok || got != want {
		t.Errorf("/metrics %s{%s} = %v (present %v), want %v", name, labels, got, ok, want)
	}
}

// requireHealthy fails t unless authbgpd's process is alive and /healthz
// answers 200.
func requireHealthy(t testing.TB, a *Authbgpd) {
	t.Helper()
	pid := a.cmd.Process.Pid
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatalf("authbgpd (pid %d) is gone: %v", pid, err)
	}
	// The state is the field after the parenthesized command name.
	if i := strings.LastIndexByte(string(st), ')'); i < 0 || i+2 >= len(st) || st[i+2] == 'Z' || st[i+2] == 'X' {
		t.Fatalf("authbgpd (pid %d) is not running: %s", pid, st)
	}
	if err := unix.Kill(pid, 0); err != nil {
		t.Fatalf("authbgpd (pid %d): %v", pid, err)
	}
	if body, err := a.HTTPGet("/healthz"); err != nil {
		t.Fatalf("authbgpd /healthz: %v (%s)", err, body)
	}
}

// mustPeer returns the /status entry of addr, failing t when it is absent.
func mustPeer(t testing.TB, a *Authbgpd, addr string) *status.Peer {
	t.Helper()
	p := a.Peer(addr)
	if p == nil {
		t.Fatalf("/status has no peer %s: %+v", addr, a.Status().Peers)
	}
	return p
}

// requireAuth checks the auth part of a peer's /status entry.
func requireAuth(t testing.TB, p *status.Peer, source string, installed bool) {
	t.Helper()
	if p.Auth.Mode != "md5" || p.Auth.Source != source || p.Auth.Installed != installed {
		t.Errorf("/status peer %s: auth %+v, want mode md5, source %s, installed %v", p.Address, p.Auth, source, installed)
	}
	if installed && p.Auth.Error != "" {
		t.Errorf("/status peer %s: auth.error %q with the key installed", p.Address, p.Auth.Error)
	}
}

// neverEstablished polls until deadline that none of the sessions (peer,
// address) reaches Established; it fails t at the first that does.
func neverEstablished(t testing.TB, deadline time.Time, checks ...sessionCheck) {
	t.Helper()
	for {
		for _, c := range checks {
			if s, err := c.p.State(c.addr); err == nil && s == Established {
				t.Fatalf("%s: session with %s is Established: it must not come up", c.p.Name(), c.addr)
			}
		}
		if time.Now().After(deadline) {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
}

type sessionCheck struct {
	p    Peer
	addr netip.Addr
}

// waitSessions waits (up to d, all together) for every session.
func waitSessions(t testing.TB, d time.Duration, minAccepted int, checks ...sessionCheck) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	for _, c := range checks {
		if err := WaitSession(ctx, c.p, c.addr, minAccepted); err != nil {
			t.Fatal(err)
		}
	}
}

// cli runs the gobgp CLI against authbgpd, retrying for up to 15 s: the
// CLI gives up connecting to the gRPC API after one second, which a loaded
// machine (all the e2e tests at once, under -race) sometimes exceeds.
func cli(a *Authbgpd, args ...string) (string, error) {
	deadline := time.Now().Add(15 * time.Second)
	for {
		out, err := a.CLI(context.Background(), args...)
		if err == nil || time.Now().After(deadline) {
			if err != nil {
				err = fmt.Errorf("%w: %s", err, strings.TrimSpace(out))
			}
			return out, err
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// announce adds prefixes to authbgpd's global RIB with the gobgp CLI.
func announce(t testing.TB, a *Authbgpd, prefixes ...string) {
	t.Helper()
	for _, p := range prefixes {
		fam := "ipv4"
		if strings.Contains(p, ":") {
			fam = "ipv6"
		}
		if _, err := cli(a, "global", "rib", "-a", fam, "add", p); err != nil {
			t.Fatalf("gobgp global rib -a %s add %s: %v", fam, p, err)
		}
	}
}

// writeSecretFile rewrites a file next to authbgpd's config.
func writeSecretFile(t testing.TB, a *Authbgpd, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(filepath.Dir(a.Config), name), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// waitLog waits until authbgpd's log contains s.
func waitLog(t testing.TB, a *Authbgpd, s string, d time.Duration) {
	t.Helper()
	waitFor(t, d, fmt.Sprintf("authbgpd logging %q", s), func() error { return holds(strings.Contains(a.Log(), s)) })
}

// counter returns one TcpExt counter of ns.
func counter(t testing.TB, ns, name string) uint64 {
	t.Helper()
	c, err := netns.Counters(ns)
	if err != nil {
		t.Fatal(err)
	}
	return c[name]
}

// --------------------------------------------------------------- interop

type interopCase struct {
	name  string
	tag   string // namespace tag (≤ 6 characters with the "io" prefix)
	start func(testing.TB, *netns.Topology, string, PeerConfig) Peer
	// How authbgpd gets the key of the IPv4 and IPv6 peer: "password",
	// "password-file", "password-env" or "keychain".
	src4, src6 string
	// passive: the peer only dials (ExaBGP does not listen).
	passive bool
}

// TestInterop runs authbgpd against FRR's bgpd, BIRD 2, Debian's gobgpd and
// ExaBGP, each in its own topology:
//
//	b (right keys) 192.0.2.2/28 2001:db8:1::2 ── eth0 a (authbgpd) eth1 ── 192.0.2.18/28 2001:db8:2::2 c (wrong keys)
//	                                              192.0.2.1 2001:db8:1::1 / 192.0.2.17 2001:db8:2::1
//
// With b, IPv4 and IPv6 TCP-MD5 sessions reach Established and routes go
// both ways (b accepts what authbgpd announces through the gobgp CLI). With
// c, whose keys differ from authbgpd's, nothing comes up for 15 s, the
// kernel counts TCPMD5Failure, and authbgpd stays healthy with its keys
// installed. Then a reload gives authbgpd c's keys (one by rewriting the
// secret file, one by switching to another variable): c comes up, and b's
// sessions, which the reload did not touch, keep their uptime. No secret
// shows anywhere, before or after the reload.
func TestInterop(t *testing.T) {
	testenv.RequireRoot(t)
	t.Parallel()
	frr := func(t testing.TB, tp *netns.Topology, ns string, c PeerConfig) Peer { return StartFRR(t, tp, ns, c) }
	gobgp := func(t testing.TB, tp *netns.Topology, ns string, c PeerConfig) Peer { return StartGoBGP(t, tp, ns, c) }
	bird := func(t testing.TB, tp *netns.Topology, ns string, c PeerConfig) Peer { return StartBIRD(t, tp, ns, c) }
	exa := func(t testing.TB, tp *netns.Topology, ns string, c PeerConfig) Peer { return StartExaBGP(t, tp, ns, c) }
	cases := []interopCase{
		{name: "frr", tag: "iofrr", start: frr, src4: "password-file", src6: "password-env"},
		{name: "bird", tag: "iobird", start: bird, src4: "password-env", src6: "password-file"},
		{name: "gobgpd", tag: "iogobg", start: gobgp, src4: "keychain", src6: "keychain"},
		{name: "exabgp", tag: "ioexa", start: exa, src4: "password", src6: "password-file", passive: true},
	}
	names := make([]string, len(cases))
	for i, c := range cases {
		names[i] = c.name
	}
	concurrently(t, names, func(t *testing.T, i int) { testInterop(t, cases[i]) })
}

func testInterop(t *testing.T, tc interopCase) {
	tp := netns.New(t, tc.tag)
	nsA, nsB, nsC := tp.Add("a"), tp.Add("b"), tp.Add("c")
	tp.Link(nsA, "eth0", []string{"192.0.2.1/28", "2001:db8:1::1/64"}, nsB, "eth0", []string{"192.0.2.2/28", "2001:db8:1::2/64"})
	tp.Link(nsA, "eth1", []string{"192.0.2.17/28", "2001:db8:2::1/64"}, nsC, "eth0", []string{"192.0.2.18/28", "2001:db8:2::2/64"})
	var (
		a4, a6   = netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("2001:db8:1::1")
		ac4, ac6 = netip.MustParseAddr("192.0.2.17"), netip.MustParseAddr("2001:db8:2::1")
		b4, b6   = netip.MustParseAddr("192.0.2.2"), netip.MustParseAddr("2001:db8:1::2")
		c4, c6   = netip.MustParseAddr("192.0.2.18"), netip.MustParseAddr("2001:db8:2::2")
	)

	// Keys. The keychain has a current key (7) and a future one (8).
	var (
		kc7, kc8           = newSecret(tc.name + "-kc7"), newSecret(tc.name + "-kc8")
		bKey4, bKey6       = newSecret(tc.name + "-b4"), newSecret(tc.name + "-b6")
		cPeer4, cPeer6     = newSecret(tc.name + "-c4peer"), newSecret(tc.name + "-c6peer")
		cWrong4, cWrong6   = newSecret(tc.name + "-c4wrong"), newSecret(tc.name + "-c6wrong")
		files              = map[string]string{"c4.key": cWrong4 + "\n", "kc7.key": kc7 + "\n"}
		env                = []string{"AUTHBGPD_C6_OLD=" + cWrong6, "AUTHBGPD_C6_NEW=" + cPeer6, "AUTHBGPD_KC8=" + kc8}
		keychain           = "[[keychains]]\nname = \"interop\"\n  [[keychains.keys]]\n  id = 7\n  secret-file = \"kc7.key\"\n  [[keychains.keys]]\n  id = 8\n  secret-env = \"AUTHBGPD_KC8\"\n  send-from = 2099-01-01T00:00:00Z\n"
		secrets            = []string{kc7, kc8, bKey4, bKey6, cPeer4, cPeer6, cWrong4, cWrong6}
		bPeer4, bPeer6     abPeer
		peerKey4, peerKey6 string
	)
	side := func(addr netip.Addr, src, secret, label string) (abPeer, string) {
		p := abPeer{addr: addr.String(), asn: 65002, src: src, passive: tc.passive}
		switch src {
		case "password":
			p.ref = secret
		case "password-file":
			p.ref = label + ".key"
			files[p.ref] = secret + "\n"
		case "password-env":
			p.ref = "AUTHBGPD_" + strings.ToUpper(label)
			env = append(env, p.ref+"="+secret)
		case "keychain":
			p.ref, secret = "interop", kc7
		}
		return p, secret
	}
	bPeer4, peerKey4 = side(b4, tc.src4, bKey4, "b4")
	bPeer6, peerKey6 = side(b6, tc.src6, bKey6, "b6")
	cfg := func(c6var string) string {
		return abConfig(keychain, bPeer4, bPeer6,
			abPeer{addr: c4.String(), asn: 65003, src: "password-file", ref: "c4.key", passive: tc.passive},
			abPeer{addr: c6.String(), asn: 65003, src: "password-env", ref: c6var, passive: tc.passive})
	}

	a := StartAuthbgpd(t, tp, nsA, cfg("AUTHBGPD_C6_OLD"), AuthbgpdOptions{Files: files, Env: env})
	announce(t, a, "198.51.100.0/24", "2001:db8:100::/48")
	b := tc.start(t, tp, nsB, PeerConfig{ASN: 65002, RouterID: b4,
		Neighbors: []Neighbor{{a4, 65001, peerKey4}, {a6, 65001, peerKey6}},
		Networks:  []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24"), netip.MustParsePrefix("2001:db8:200::/48")}})
	failBase := counter(t, nsA, "TCPMD5Failure")
	cStart := time.Now()
	c := tc.start(t, tp, nsC, PeerConfig{ASN: 65003, RouterID: c4,
		Neighbors: []Neighbor{{ac4, 65001, cPeer4}, {ac6, 65001, cPeer6}},
		Networks:  []netip.Prefix{netip.MustParsePrefix("203.0.113.128/25"), netip.MustParsePrefix("2001:db8:300::/48")}})

	// Right keys: Established, routes both ways.
	waitSessions(t, 60*time.Second, 1,
		sessionCheck{a, b4}, sessionCheck{a, b6}, sessionCheck{b, a4}, sessionCheck{b, a6})
	up := time.Now()
	for _, x := range []struct {
		addr netip.Addr
		src  string
	}{{b4, tc.src4}, {b6, tc.src6}} {
		p := mustPeer(t, a, x.addr.String())
		if p.State != Established {
			t.Errorf("/status peer %s: state %q, want established", x.addr, p.State)
		}
		requireAuth(t, p, x.src, true)
		if x.src == "keychain" && (p.Auth.KeyID == nil || *p.Auth.KeyID != 7 || p.Auth.Keychain != "interop") {
			t.Errorf("/status peer %s: keychain %q key id %v, want interop key 7", x.addr, p.Auth.Keychain, p.Auth.KeyID)
		}
	}
	// The routes themselves, with their next hops. BIRD sends a global and
	// a link-local IPv6 next hop on direct sessions; GoBGP keeps the global
	// one, so (unlike FRR without zebra) authbgpd uses the route.
	for _, r := range []struct{ fam, prefix, nexthop string }{
		{"ipv4", "203.0.113.0/24", b4.String()},
		{"ipv6", "2001:db8:200::/48", b6.String()},
	} {
		out, err := cli(a, "global", "rib", "-a", r.fam, r.prefix, "-j")
		if err != nil {
			t.Fatalf("gobgp global rib -a %s %s: %v", r.fam, r.prefix, err)
		}
		if !strings.Contains(out, r.prefix) || !strings.Contains(out, `"nexthop":"`+r.nexthop+`"`) {
			t.Errorf("authbgpd's RIB: %s from %s with next hop %s missing: %s", r.prefix, tc.name, r.nexthop, tail(out, 600))
		}
	}
	requireMetric(t, a, "authbgpd_peer_up", `peer="`+b4.String()+`"`, 1)
	requireMetric(t, a, "authbgpd_md5_key_installed", `peer="`+b6.String()+`"`, 1)

	// Wrong keys: nothing for 15 s, on either side; authbgpd healthy.
	neverEstablished(t, cStart.Add(15*time.Second),
		sessionCheck{a, c4}, sessionCheck{a, c6}, sessionCheck{c, ac4}, sessionCheck{c, ac6})
	requireHealthy(t, a)
	for _, addr := range []netip.Addr{c4, c6} {
		p := mustPeer(t, a, addr.String())
		if p.State == Established {
			t.Errorf("/status peer %s: established with the wrong key", addr)
		}
		requireAuth(t, p, map[netip.Addr]string{c4: "password-file", c6: "password-env"}[addr], true)
	}
	if n := counter(t, nsA, "TCPMD5Failure"); n <= failBase {
		t.Errorf("TcpExt TCPMD5Failure in authbgpd's namespace stayed at %d: the wrong-key segments were not seen", n)
	} else {
		t.Logf("TCPMD5Failure in authbgpd's namespace: %d -> %d", failBase, n)
	}
	assertNoSecrets(t, a, secrets...)

	// Reload with c's keys: a new secret in the same file (IPv4), another
	// variable (IPv6). b's sessions must not notice.
	before4 := mustPeer(t, a, b4.String()).UptimeSeconds
	reloadAt := time.Now()
	writeSecretFile(t, a, "c4.key", cPeer4+"\n")
	a.Reload(cfg("AUTHBGPD_C6_NEW"))
	waitLog(t, a, "config reloaded", 10*time.Second)
	waitSessions(t, 60*time.Second, 1,
		sessionCheck{a, c4}, sessionCheck{a, c6}, sessionCheck{c, ac4}, sessionCheck{c, ac6})
	t.Logf("%s: right keys up %s after start; wrong keys fixed by reload, up %s after it",
		tc.name, up.Sub(cStart).Round(time.Second), time.Since(reloadAt).Round(time.Second))
	elapsed := int64(time.Since(reloadAt).Seconds())
	for _, addr := range []netip.Addr{b4, b6} {
		p := mustPeer(t, a, addr.String())
		if p.State != Established {
			t.Errorf("/status peer %s: state %q after a reload that did not change it", addr, p.State)
		}
		if addr == b4 && p.UptimeSeconds < before4+elapsed-2 {
			t.Errorf("/status peer %s: uptime %d s, was %d s %d s ago: the reload reset the session", addr, p.UptimeSeconds, before4, elapsed)
		}
	}
	for _, w := range []sessionCheck{{b, a4}, {b, a6}} {
		if s, err := w.p.State(w.addr); err != nil || s != Established {
			t.Errorf("%s: session with %s is %q (%v) after the reload", w.p.Name(), w.addr, s, err)
		}
	}
	requireMetric(t, a, "authbgpd_config_reloads_total", `result="ok"`, 1)
	assertNoSecrets(t, a, secrets...)
	a.StopClean()
}
