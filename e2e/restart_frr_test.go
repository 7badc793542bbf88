//go:build linux

package e2e

// The helper side of graceful restart (issue 45 item 4): TestGracefulRestartForwards's
// right leaf, FRR with `bgp graceful-restart` and `preserve-fw-state`, crashes (its
// bgpd SIGKILLed) and starts again with the same config. authbgpd, as a helper,
// keeps the leaf's routes in its RIB (stale) and in its kernel until the leaf is
// back: the spine's kernel deletes none of them, the left leaf's pings to the
// right one all come back, and once the leaf has sent its routes again GoBGP holds
// them fresh, not stale. With graceful restart off on authbgpd the same crash
// deletes them: the check can fail.

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/netns"
)

// grFRRConf is the right leaf's config now: the prefix the SIGTERM subtest
// withdrew stays withdrawn across its restarts.
func grFRRConf(l fibLeaf) string {
	c := strings.Replace(grLeafConfig(l), " bgp graceful-restart\n", " bgp graceful-restart\n bgp graceful-restart preserve-fw-state\n", 1)
	return strings.Replace(c, "  network 203.0.113.0/26\n", "", 1)
}

// grRIBStale is, for each of prefixes, whether the spine's GoBGP (through
// the gobgp CLI against [api] grpc) holds it only stale ("stale"), fresh
// ("fresh") or not at all ("none").
func grRIBStale(t *testing.T, spine string, prefixes ...string) (map[string]string, error) {
	t.Helper()
	host, port, _ := strings.Cut(GoBGPAPI, ":")
	got := map[string]string{}
	for _, fam := range []string{"ipv4", "ipv6"} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		out, err := exec.CommandContext(ctx, "ip", "netns", "exec", spine, "gobgp", "-u", host, "-p", port, "global", "rib", "-a", fam, "-j").Output()
		cancel()
		if err != nil {
			return nil, fmt.Errorf("gobgp global rib -a %s: %w", fam, err)
		}
		var rib map[string][]struct {
			Stale bool `json:"stale"`
		}
		if err := json.Unmarshal(out, &rib); err != nil {
			return nil, fmt.Errorf("gobgp global rib -a %s -j: %w: %q", fam, err, tail(string(out), 200))
		}
		for pfx, paths := range rib {
			s := "stale"
			for _, p := range paths {
				if !p.Stale {
					s = "fresh"
				}
			}
			got[pfx] = s
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

// grWaitRIB waits until each of prefixes is in state (grRIBStale's) in
// the spine's GoBGP.
func grWaitRIB(t *testing.T, spine string, prefixes []string, state string, d time.Duration) {
	t.Helper()
	waitFor(t, d, fmt.Sprintf("the spine's GoBGP holding %v %s", prefixes, state), func() error {
		s, err := grRIBStale(t, spine, prefixes...)
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

// grFRRRestart kills the right leaf's bgpd, starts it again and returns
// it, with the pings from the left leaf lost meanwhile and whether the
// spine's kernel deleted one of the right leaf's prefixes. graceful says
// whether authbgpd runs with graceful restart: then the leaf's routes must
// be held stale while it is down and fresh once it is back.
func grFRRRestart(t *testing.T, tp *netns.Topology, spine string, nss map[string]string, old *FRR, graceful bool) (next *FRR, lost4, lost6 int, deleted bool) {
	t.Helper()
	l, r := grLeaves[0], grLeaves[1]
	mine := []string{r.pfx4, r.pfx6}
	mon := exec.Command("ip", "-n", spine, "-ts", "monitor", "route")
	var monOut strings.Builder
	mon.Stdout, mon.Stderr = &monOut, &monOut
	if err := mon.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mon.Process.Kill(); _ = mon.Wait() }) // on a t.Fatal below
	p4 := startGRPing(t, nss["left"], l.lo4, r.lo4)
	p6 := startGRPing(t, nss["left"], l.lo6, r.lo6)
	time.Sleep(time.Second)
	began := time.Now()
	_ = old.cmd.Process.Kill()
	_ = old.cmd.Wait()
	if graceful {
		// The helper's state while the leaf is away: its routes stale, in
		// the RIB and in the kernel.
		grWaitRIB(t, spine, mine, "stale", 5*time.Second)
		routes := strings.Join(kernelRoutes(t, spine), "\n")
		for _, p := range mine {
			if !strings.Contains("\n"+routes, "\n"+p+" via ") {
				t.Errorf("the right leaf down, its %s is not in the spine's kernel:\n%s", p, routes)
			}
		}
	} else {
		// Without graceful restart the spine drops the routes at once.
		grWaitRIB(t, spine, mine, "none", 5*time.Second)
	}
	next = startBgpd(t, tp, nss["right"], "frr-right-again", grFRRConf(r))
	next.waitVty(t)
	// Back: GoBGP has the leaf's routes again, fresh (the stale ones
	// replaced, or dropped at its End-of-RIB).
	grWaitRIB(t, spine, mine, "fresh", 30*time.Second)
	back := time.Since(began)
	time.Sleep(time.Second)
	s4, r4 := p4.stop(t)
	s6, r6 := p6.stop(t)
	_ = mon.Process.Kill()
	_ = mon.Wait()
	for _, p := range mine {
		if strings.Contains(monOut.String(), "Deleted "+p+" ") {
			deleted = true
		}
	}
	t.Logf("the right leaf's bgpd killed and started again: its routes fresh in the spine after %v; pings IPv4 %d sent, %d back; IPv6 %d sent, %d back; its prefixes deleted from the spine's kernel: %v",
		back.Round(100*time.Millisecond), s4, r4, s6, r6, deleted)
	if graceful && (deleted || t.Failed()) {
		t.Logf("the spine's route changes (ip monitor route):\n%s", monOut.String())
	}
	return next, s4 - r4, s6 - r6, deleted
}
