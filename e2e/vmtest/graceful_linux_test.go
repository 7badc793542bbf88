package vmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/peers"
)

// Graceful restart over TCP-AO (issue 45 item 6), TestBGPTCPAOTwoRouters's
// "graceful" step: its two routers, each announcing two prefixes of its own
// ([[networks]]) with graceful restart on, and b restarted gracefully
// (SIGTERM, started again with the same config). a, the helper, keeps b's routes: GoBGP holds them
// stale while b is away, its kernel never deletes them, and they are fresh
// once b is back. b keeps a's routes in its kernel through its own restart.
// The new sessions are TCP-AO from their first SYN: every segment either
// router sends is signed (the test's capture, checked by its "verify"
// step), and neither namespace's kernel counts a TCP-AO failure (TcpExt TCPAORequired, TCPAOBad,
// TCPAOKeyNotFound) while TCPAOGood grows.

// grNets are the prefixes each side announces; a's view: b's are the far
// end's.
var grNets = map[string][]string{
	"a": {"198.51.100.0/25", "2001:db8:a1::/48"},
	"b": {"198.51.100.128/25", "2001:db8:a2::/48"},
}

// grConf is r2rConf with graceful restart, GoBGP's gRPC API on loopback
// (for the gobgp CLI) and the side's [[networks]].
func grConf(s r2rSide, v4, v6 []mkt) string {
	c := r2rConf(s, v4, v6, false)
	c = strings.Replace(c, "\n\n[api]\ngrpc = \"\"\n", "\ngraceful-restart = true\ngraceful-restart-time = 60\n\n[api]\ngrpc = \"127.0.0.1:50051\"\n", 1)
	for _, p := range grNets[s.name] {
		c += fmt.Sprintf("\n[[networks]]\nprefix = %q\n", p)
	}
	return c
}

// grRoutes are ns's kernel routes of protocol bgp, one line each, sorted.
func grRoutes(t *testing.T, ns string) []string {
	t.Helper()
	var out []string
	for _, fam := range []string{"-4", "-6"} {
		for _, l := range strings.Split(netns.Run(t, "ip", "-o", "-n", ns, fam, "route", "show", "proto", "bgp"), "\n") {
			if l = strings.Join(strings.Fields(l), " "); l != "" {
				out = append(out, strings.TrimSuffix(l, " pref medium"))
			}
		}
	}
	slices.Sort(out)
	return out
}

// grHas says whether routes holds a route for each of prefixes.
func grHas(routes []string, prefixes []string) bool {
	for _, p := range prefixes {
		if !slices.ContainsFunc(routes, func(r string) bool { return strings.HasPrefix(r, p+" ") }) {
			return false
		}
	}
	return true
}

// grRIB is, for each of prefixes, "stale" if the router's GoBGP holds only
// stale paths for it, "fresh" if one is not, "none" if it has none.
func grRIB(ns string, prefixes []string) (map[string]string, error) {
	got := map[string]string{}
	for _, fam := range []string{"ipv4", "ipv6"} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		out, err := exec.CommandContext(ctx, "ip", "netns", "exec", ns, "gobgp", "-u", "127.0.0.1", "-p", "50051", "global", "rib", "-a", fam, "-j").Output()
		cancel()
		if err != nil {
			return nil, fmt.Errorf("%s: gobgp global rib -a %s: %w", ns, fam, err)
		}
		var rib map[string][]struct {
			Stale bool `json:"stale"`
		}
		if err := json.Unmarshal(out, &rib); err != nil {
			return nil, fmt.Errorf("%s: gobgp global rib -a %s -j: %w", ns, fam, err)
		}
		for pfx, paths := range rib {
			got[pfx] = "stale"
			for _, p := range paths {
				if !p.Stale {
					got[pfx] = "fresh"
				}
			}
		}
	}
	res := map[string]string{}
	for _, p := range prefixes {
		res[p] = "none"
		if s, ok := got[p]; ok {
			res[p] = s
		}
	}
	return res, nil
}

// grRIBIs waits until every one of prefixes is in state (grRIB's) in ns.
func grRIBIs(t *testing.T, ns string, prefixes []string, state string, d time.Duration) {
	t.Helper()
	waitFor(t, d, fmt.Sprintf("%s: %v %s in GoBGP's RIB", ns, prefixes, state), func() error {
		s, err := grRIB(ns, prefixes)
		if err != nil {
			return err
		}
		for _, p := range prefixes {
			if s[p] != state {
				return fmt.Errorf("%s: %s", p, s[p])
			}
		}
		return nil
	})
}

// grAOCounters are the kernel's TCP-AO counters (TcpExt) the test reads.
var grAOCounters = []string{"TCPAOGood", "TCPAORequired", "TCPAOBad", "TCPAOKeyNotFound"}

func grCounters(t *testing.T, ns string) map[string]uint64 {
	t.Helper()
	c, err := netns.Counters(ns)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c["TCPAOGood"]; !ok {
		t.Fatalf("%s: no TcpExt TCPAOGood: the kernel has no TCP-AO", ns)
	}
	out := map[string]uint64{}
	for _, k := range grAOCounters {
		out[k] = c[k]
	}
	return out
}

// grMonitor is `ip monitor route` in a namespace.
type grMonitor struct {
	cmd *exec.Cmd
	out strings.Builder
}

func startGRMonitor(t *testing.T, ns string) *grMonitor {
	t.Helper()
	m := &grMonitor{cmd: exec.Command("ip", "-n", ns, "-ts", "monitor", "route")}
	m.cmd.Stdout, m.cmd.Stderr = &m.out, &m.out
	if err := m.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.stop() })
	return m
}

func (m *grMonitor) stop() string {
	if m.cmd.ProcessState == nil {
		_ = m.cmd.Process.Kill()
		_ = m.cmd.Wait()
	}
	return m.out.String()
}

// grRestart is TestBGPTCPAOTwoRouters's "graceful" step: both routers
// started again with graceful restart and their [[networks]] on the chains
// v4 and v6 (a's view), then b restarted gracefully while the test's
// capture runs (its "verify" step checks every segment's MAC).
func grRestart(t *testing.T, p *r2rPair, v4, v6 []mkt) {
	tp := p.tp
	if _, err := exec.LookPath("gobgp"); err != nil {
		t.Skip("no gobgp CLI to read the helper's RIB")
	}
	sessions := []struct {
		name      string
		far, near netip.Addr
		key       mkt
	}{{"IPv4 (HMAC-SHA-1-96)", peer4, rtr4, v4[0]}, {"IPv6 (AES-128-CMAC-96)", peer6, rtr6, v6[0]}}
	kill(p.a)
	kill(p.b)
	p.both(t, grConf(sideA, v4, v6), grConf(sideB, v4, v6))
	for _, s := range sessions {
		p.waitSession(t, s.far, s.near, 60*time.Second, "up on one TCP-AO connection", keyIs(s.key))
	}
	waitFor(t, 20*time.Second, "each router's kernel with the other's prefixes", func() error {
		ra, rb := grRoutes(t, tp.A), grRoutes(t, tp.B)
		return holdsf(grHas(ra, grNets["b"]) && grHas(rb, grNets["a"]), "a: %v; b: %v", ra, rb)
	})
	grRIBIs(t, tp.A, grNets["b"], "fresh", 5*time.Second)
	routesA, routesB := grRoutes(t, tp.A), grRoutes(t, tp.B)
	monA, monB := startGRMonitor(t, tp.A), startGRMonitor(t, tp.B)
	before := map[string]map[string]uint64{tp.A: grCounters(t, tp.A), tp.B: grCounters(t, tp.B)}

	// b stops gracefully: a, the helper, holds b's routes stale.
	stopped := time.Now()
	netns.Stop(p.b.cmd)
	if p.b.cmd.ProcessState == nil || !p.b.cmd.ProcessState.Success() {
		t.Errorf("b's graceful stop: %v", p.b.cmd.ProcessState)
	}
	grRIBIs(t, tp.A, grNets["b"], "stale", 5*time.Second)
	staleAt := time.Since(stopped)
	if got := grRoutes(t, tp.B); !slices.Equal(got, routesB) {
		t.Errorf("b stopped gracefully: its kernel's routes of proto bgp are\n  %s\nwant those before\n  %s", strings.Join(got, "\n  "), strings.Join(routesB, "\n  "))
	}

	// b back, same config.
	p.b = p.launch(t, tp.B, grConf(sideB, v4, v6))
	p.b.waitHealthy(t)
	back := time.Since(stopped)
	retry := time.Duration(peers.DefaultConnectRetry) * time.Second
	for _, s := range sessions {
		up := p.waitSession(t, s.far, s.near, 4*retry, "up again on TCP-AO", keyIs(s.key))
		p.oneSession(t, up)
		t.Logf("%s: up again %v after b's SIGTERM; %s", s.name, time.Since(stopped).Round(10*time.Millisecond), up)
	}
	grRIBIs(t, tp.A, grNets["b"], "fresh", 30*time.Second)
	fresh := time.Since(stopped)
	if !strings.Contains(p.b.log(), "restarting with the forwarding state of the last run") {
		t.Errorf("b did not log its restart with the forwarding state kept")
	}
	// b's End-of-RIB processing done: its kernel as before (a's routes,
	// never removed).
	waitFor(t, 20*time.Second, "b's kernel routes as before the restart", func() error {
		got := grRoutes(t, tp.B)
		return holdsf(slices.Equal(got, routesB), "%v", got)
	})
	if got := grRoutes(t, tp.A); !slices.Equal(got, routesA) {
		t.Errorf("a's kernel routes of proto bgp after b's restart:\n  %s\nwant those before\n  %s", strings.Join(got, "\n  "), strings.Join(routesA, "\n  "))
	}
	for _, m := range []struct {
		name string
		mon  *grMonitor
		pfx  []string
	}{{"a", monA, grNets["b"]}, {"b", monB, grNets["a"]}} {
		out := m.mon.stop()
		for _, pfx := range m.pfx {
			if strings.Contains(out, "Deleted "+pfx+" ") {
				t.Errorf("router %s's kernel deleted %s during b's restart:\n%s", m.name, pfx, out)
			}
		}
	}
	// TCP-AO throughout: no failure counted by either kernel, the new
	// sessions' SYNs included (and the verify step finds no unsigned
	// segment in the capture).
	for _, ns := range []string{tp.A, tp.B} {
		after := grCounters(t, ns)
		for _, k := range grAOCounters {
			d := after[k] - before[ns][k]
			if (k == "TCPAOGood") != (d > 0) {
				t.Errorf("%s: TcpExt %s moved by %d across b's restart; want TCPAOGood up and the failures still", ns, k, d)
			}
		}
		t.Logf("%s: TCP-AO counters across b's restart: %v -> %v", ns, before[ns], after)
	}
	t.Logf("FIGURE: b restarted gracefully (SIGTERM, started again) over TCP-AO: a held b's routes stale %v after the stop, b answered again %v after it, a's paths from b fresh %v after it; neither kernel deleted a route of the other",
		staleAt.Round(10*time.Millisecond), back.Round(10*time.Millisecond), fresh.Round(10*time.Millisecond))
}

// holdsf is nil if ok, else an error with the state formatted.
func holdsf(ok bool, format string, args ...any) error {
	if ok {
		return nil
	}
	return fmt.Errorf(format, args...)
}
