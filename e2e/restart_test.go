//go:build linux

package e2e

// Graceful restart (issue 45): authbgpd as the spine between two FRR
// leaves over TCP-MD5, every session with graceful restart (RFC 4724),
// restarted while the leaves ping each other through it at 10 per second:
// with SIGTERM (a graceful stop: the kernel routes stay, the sessions close
// without a NOTIFICATION, the leaves keep our routes as helpers) and with
// SIGKILL (a crash), no ping is lost, IPv4 and IPv6. A leaf's prefix
// withdrawn while authbgpd was down is gone from the spine's kernel once
// the leaves are back with their End-of-RIB. A leaf that restarts
// gracefully keeps its routes in the spine (restart_frr_test.go). With
// graceful restart off the same restarts lose pings and delete routes: the
// checks can fail.

import (
	"context"
	"net/netip"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
)

// grLeaves are TestFIBForwards's leaves with graceful restart, the right
// one also announcing 203.0.113.0/26 (withdrawn while the spine is down).
func grLeafConfig(l fibLeaf) string {
	c := l.frrConfig()
	c = strings.Replace(c, " no bgp network import-check\n", " no bgp network import-check\n bgp graceful-restart\n", 1)
	return strings.Replace(c, "  network 203.0.113.64/26\n", "", 1) // TestFIBForwards's ECMP prefix
}

var grLeaves = func() []fibLeaf {
	ls := append([]fibLeaf(nil), fibLeaves...)
	ls[0].extra = ""
	ls[1].extra = "  network 203.0.113.0/26\n"
	return ls
}()

// grPing is a ping from one leaf's address to the other's, 10 a second,
// until stopped.
type grPing struct {
	cmd *exec.Cmd
	out strings.Builder
}

func startGRPing(t *testing.T, ns, from, to string) *grPing {
	t.Helper()
	p := &grPing{cmd: exec.Command("ip", "netns", "exec", ns, "ping", "-n", "-i", "0.1", "-W", "1", "-I", from, to)}
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return p
}

var pingSummary = regexp.MustCompile(`(\d+) packets transmitted, (\d+) received`)

// stop ends the ping (SIGINT: it prints its summary) and returns how many
// it sent and how many came back.
func (p *grPing) stop(t *testing.T) (sent, received int) {
	t.Helper()
	_ = p.cmd.Process.Signal(os.Interrupt)
	_ = p.cmd.Wait()
	m := pingSummary.FindStringSubmatch(p.out.String())
	if m == nil {
		t.Fatalf("ping printed no summary:\n%s", tail(p.out.String(), 2000))
	}
	sent, _ = strconv.Atoi(m[1])
	received, _ = strconv.Atoi(m[2])
	return sent, received
}

func TestGracefulRestartForwards(t *testing.T) {
	testenv.RequireRoot(t)
	testenv.RequireBinary(t, "bgpd", "/usr/lib/frr")
	testenv.RequireBinary(t, "ping")
	tp := netns.New(t, "grst")
	spine, nss, frrs := fibTopology(t, tp, grLeaves, grLeafConfig)
	conf := func(graceful bool) string {
		c := abConf{ASN: 65100, RouterID: "192.0.2.100"}
		for _, l := range grLeaves {
			for _, a := range []string{l.v4, l.v6} {
				c.Peers = append(c.Peers, abPeer{addr: a, asn: l.asn, src: "password-file", ref: "pw"})
			}
		}
		if !graceful {
			return c.String()
		}
		return strings.Replace(c.String(), "\n[api]", "graceful-restart = true\ngraceful-restart-time = 60\n\n[api]", 1)
	}
	files := map[string]string{"pw": fibPassword + "\n"}
	start := func(graceful bool) *Authbgpd {
		a := StartAuthbgpd(t, tp, spine, conf(graceful), AuthbgpdOptions{Files: files, LogLevel: "info"})
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		for _, l := range grLeaves {
			for _, addr := range []string{l.v4, l.v6} {
				if err := WaitSession(ctx, a, netip.MustParseAddr(addr), 1); err != nil {
					t.Fatal(err)
				}
			}
		}
		return a
	}
	routes := []string{
		`198.51.100.0/25 via 192.0.2.2 dev eth1 proto bgp metric 20`,
		`198.51.100.128/25 via 192.0.2.6 dev eth2 proto bgp metric 20`,
		`2001:db8:a1::/48 via 2001:db8:1::2 dev eth1 proto bgp metric 20`,
		`2001:db8:a2::/48 via 2001:db8:2::2 dev eth2 proto bgp metric 20`,
	}
	extra := `203.0.113.0/26 via 192.0.2.6 dev eth2 proto bgp metric 20`
	a := start(true)
	waitKernelRoutes(t, spine, 15*time.Second, "the leaves' prefixes in the spine", routes, extra)

	// The TCP-MD5 drop counters of the three namespaces: a segment sent
	// unsigned (or signed with no key) to a keyed socket moves them.
	md5Drops := func() uint64 {
		var n uint64
		for _, ns := range []string{spine, nss["left"], nss["right"]} {
			c := mustCounters(t, ns)
			for _, k := range kdMD5Counters {
				n += c[k]
			}
		}
		return n
	}

	// restart stops the daemon (SIGTERM, or SIGKILL: a crash), runs
	// between while it is down, starts it again (graceful as asked) and
	// returns the pings lost meanwhile, IPv4 and IPv6, once the new
	// daemon's sessions are all back and its takeover is over.
	restart := func(t *testing.T, kill bool, graceful bool, between func()) (lost4, lost6 int, next *Authbgpd) {
		t.Helper()
		l, r := grLeaves[0], grLeaves[1]
		// The spine's route changes meanwhile, shown when pings are lost.
		mon := exec.Command("ip", "-n", spine, "-ts", "monitor", "route")
		var monOut strings.Builder
		mon.Stdout, mon.Stderr = &monOut, &monOut
		if err := mon.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			_ = mon.Process.Kill()
			_ = mon.Wait()
			if !graceful {
				return
			}
			// Finer than the pings: none of the routes both runs want
			// left the kernel, even for a moment.
			for _, r := range routes {
				if pfx := strings.Fields(r)[0]; strings.Contains(monOut.String(), "Deleted "+pfx+" ") {
					t.Errorf("the spine's kernel deleted %s during the restart", pfx)
				}
			}
			if t.Failed() {
				t.Logf("the spine's route changes through the restart (ip monitor route):\n%s", monOut.String())
			}
		}()
		p4 := startGRPing(t, nss["left"], l.lo4, r.lo4)
		p6 := startGRPing(t, nss["left"], l.lo6, r.lo6)
		time.Sleep(time.Second)
		if kill {
			_ = a.cmd.Process.Kill()
			_ = a.cmd.Wait()
		} else {
			a.StopClean()
		}
		if between != nil {
			between()
		}
		next = start(graceful)
		if graceful {
			waitLog(t, next, "End-of-RIB", 70*time.Second)
		} else {
			time.Sleep(3 * time.Second)
		}
		time.Sleep(time.Second)
		s4, r4 := p4.stop(t)
		s6, r6 := p6.stop(t)
		t.Logf("pings through the restart: IPv4 %d sent, %d back; IPv6 %d sent, %d back", s4, r4, s6, r6)
		return s4 - r4, s6 - r6, next
	}

	t.Run("SIGTERM", func(t *testing.T) {
		drops := md5Drops()
		lost4, lost6, next := restart(t, false, true, func() {
			// Down: its routes stay in the kernel, and the right leaf
			// withdraws a prefix the spine will not hear withdrawn.
			if got := kernelRoutes(t, spine); len(got) != len(routes)+1 {
				t.Errorf("after a graceful stop the spine's kernel has %d routes of proto bgp, want %d:\n  %s", len(got), len(routes)+1, strings.Join(got, "\n  "))
			}
			if _, err := frrs["right"].Vtysh(context.Background(), "configure terminal", "router bgp 65102", "address-family ipv4 unicast", "no network 203.0.113.0/26"); err != nil {
				t.Fatal(err)
			}
		})
		a = next
		if lost4 != 0 || lost6 != 0 {
			t.Errorf("graceful restart (SIGTERM): %d IPv4 and %d IPv6 pings lost, want 0", lost4, lost6)
		}
		waitLog(t, a, "restarting with the forwarding state of the last run", time.Second)
		waitKernelRoutes(t, spine, 5*time.Second, "after the restart: the withdrawn 203.0.113.0/26 gone, the rest kept", routes)
		if d := md5Drops() - drops; d != 0 {
			t.Errorf("TCP-MD5 drop counters of the spine and the leaves moved by %d through the restart: a segment went out unsigned or wrongly signed", d)
		}
	})
	t.Run("SIGKILL", func(t *testing.T) {
		drops := md5Drops()
		before := kernelRoutes(t, spine)
		lost4, lost6, next := restart(t, true, true, func() {
			if got := kernelRoutes(t, spine); !slices.Equal(got, before) {
				t.Errorf("after a crash the spine's kernel has the routes of proto bgp\n  %s\nwant those before it\n  %s", strings.Join(got, "\n  "), strings.Join(before, "\n  "))
			}
		})
		a = next
		if lost4 != 0 || lost6 != 0 {
			t.Errorf("restart after a crash (SIGKILL): %d IPv4 and %d IPv6 pings lost, want 0", lost4, lost6)
		}
		waitKernelRoutes(t, spine, 5*time.Second, "after the restart", before)
		if d := md5Drops() - drops; d != 0 {
			t.Errorf("TCP-MD5 drop counters moved by %d through the restart", d)
		}
	})
	// The helper side: the right leaf crashes and comes back; authbgpd
	// keeps its routes meanwhile (restart_frr_test.go).
	t.Run("FRR restarts", func(t *testing.T) {
		next, lost4, lost6, deleted := grFRRRestart(t, tp, spine, nss, frrs["right"], true)
		frrs["right"] = next
		if lost4 != 0 || lost6 != 0 || deleted {
			t.Errorf("the right leaf restarting gracefully: %d IPv4 and %d IPv6 pings lost, its prefixes deleted from the spine's kernel: %v; want 0, 0, false", lost4, lost6, deleted)
		}
		waitKernelRoutes(t, spine, 5*time.Second, "after the right leaf's restart", routes)
	})
	// The same restart without graceful restart loses pings: the check
	// above can fail.
	t.Run("not graceful", func(t *testing.T) {
		a.StopClean()
		a = start(false)
		waitKernelRoutes(t, spine, 10*time.Second, "the daemon without graceful restart", routes)
		lost4, lost6, next := restart(t, false, false, nil)
		a = next
		if lost4 == 0 || lost6 == 0 {
			t.Errorf("a restart without graceful restart lost %d IPv4 and %d IPv6 pings: want some of each (the leaves drop our routes, the spine its own)", lost4, lost6)
		}
		// And the helper side: without graceful restart, the right leaf's
		// crash deletes its routes from the spine's kernel.
		next2, _, _, deleted := grFRRRestart(t, tp, spine, nss, frrs["right"], false)
		frrs["right"] = next2
		if !deleted {
			t.Errorf("the right leaf restarting while authbgpd has graceful restart off: its prefixes were not deleted from the spine's kernel; want them deleted (the helper check can fail)")
		}
	})
}
