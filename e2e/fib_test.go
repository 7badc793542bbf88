//go:build linux

package e2e

// The forwarding table (issue 43): authbgpd between two FRR routers over
// TCP-MD5 puts what each announces into its kernel, so a ping between
// their prefixes goes through it; the kernel's routes are reconciled (an
// operator's `ip route del` and `flush` are repaired), a next hop it cannot
// reach is refused and reported while the others go in, a dead session
// takes its routes out (an ECMP route down to the other's path), and a
// stop leaves no route behind.

import (
	"context"
	"fmt"
	"net/netip"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/status"
)

// fibLeaf is one FRR router beside the authbgpd spine of TestFIBForwards.
type fibLeaf struct {
	name           string
	asn            uint32
	v4, spine4     string // the link's addresses (leaf, spine), /30
	v6, spine6     string // /64
	lo4, lo6       string // the leaf's own address, inside the prefixes below
	pfx4, pfx6     string // announced
	other4, other6 string // the other leaf's prefixes, routed to the spine
	extra          string // more FRR config (route-maps, networks) in the ipv4 family
}

var fibLeaves = []fibLeaf{
	{name: "left", asn: 65101, v4: "192.0.2.2", spine4: "192.0.2.1", v6: "2001:db8:1::2", spine6: "2001:db8:1::1",
		lo4: "198.51.100.1", lo6: "2001:db8:a1::1", pfx4: "198.51.100.0/25", pfx6: "2001:db8:a1::/48",
		other4: "198.51.100.128/25", other6: "2001:db8:a2::/48"},
	{name: "right", asn: 65102, v4: "192.0.2.6", spine4: "192.0.2.5", v6: "2001:db8:2::2", spine6: "2001:db8:2::1",
		lo4: "198.51.100.129", lo6: "2001:db8:a2::1", pfx4: "198.51.100.128/25", pfx6: "2001:db8:a2::/48",
		other4: "198.51.100.0/25", other6: "2001:db8:a1::/48",
		// A prefix whose next hop the spine cannot reach: refused, reported,
		// and the others still go in.
		extra: "  network 203.0.113.0/24\n  neighbor 192.0.2.5 route-map fib-out out\n"},
}

const fibPassword = "fib-md5-key-1"

// fibTopology makes the spine namespace (forwarding on) and one namespace
// per leaf, linked to the spine, with its own addresses on lo, static
// routes to the other leaf through the spine, and FRR's bgpd with conf(l)
// running; it returns the spine's namespace and the leaves' namespaces and
// FRRs by name.
func fibTopology(t *testing.T, tp *netns.Topology, ls []fibLeaf, conf func(fibLeaf) string) (spine string, nss map[string]string, frrs map[string]*FRR) {
	t.Helper()
	spine = tp.Add("spine")
	netns.Run(t, "ip", "netns", "exec", spine, "sysctl", "-qw", "net.ipv4.ip_forward=1", "net.ipv6.conf.all.forwarding=1")
	nss, frrs = map[string]string{}, map[string]*FRR{}
	for i, l := range ls {
		ns := tp.Add(l.name)
		nss[l.name] = ns
		tp.Link(spine, fmt.Sprintf("eth%d", i+1), []string{l.spine4 + "/30", l.spine6 + "/64"}, ns, "eth0", []string{l.v4 + "/30", l.v6 + "/64"})
		netns.Run(t, "ip", "-n", ns, "addr", "add", l.lo4+"/32", "dev", "lo")
		netns.Run(t, "ip", "-n", ns, "addr", "add", l.lo6+"/128", "dev", "lo")
		netns.Run(t, "ip", "-n", ns, "route", "add", l.other4, "via", l.spine4)
		netns.Run(t, "ip", "-n", ns, "-6", "route", "add", l.other6, "via", l.spine6)
		frrs[l.name] = startBgpd(t, tp, ns, "frr-"+l.name, conf(l))
		frrs[l.name].waitVty(t)
	}
	return spine, nss, frrs
}

func (l fibLeaf) frrConfig() string {
	var b strings.Builder
	fmt.Fprintf(&b, "frr defaults traditional\nhostname %s\nlog stdout informational\n!\n", l.name)
	// fib-out sends 203.0.113.0/24 with a next hop the spine cannot reach.
	b.WriteString("ip prefix-list fib-unreachable seq 5 permit 203.0.113.0/24\n!\n")
	b.WriteString("route-map fib-out permit 10\n match ip address prefix-list fib-unreachable\n set ip next-hop 203.0.113.254\nexit\n")
	b.WriteString("route-map fib-out permit 20\nexit\n!\n")
	fmt.Fprintf(&b, "router bgp %d\n bgp router-id %s\n no bgp default ipv4-unicast\n no bgp ebgp-requires-policy\n no bgp network import-check\n", l.asn, l.lo4)
	for _, n := range []string{l.spine4, l.spine6} {
		fmt.Fprintf(&b, " neighbor %s remote-as 65100\n neighbor %s password %s\n neighbor %s timers connect %d\n", n, n, fibPassword, n, connectRetry)
	}
	// 203.0.113.64/26 from both leaves, alike: with [fib] multipath the
	// spine installs it as one ECMP route.
	fmt.Fprintf(&b, " address-family ipv4 unicast\n  neighbor %s activate\n  network %s\n  network 203.0.113.64/26\n%s exit-address-family\n", l.spine4, l.pfx4, l.extra)
	fmt.Fprintf(&b, " address-family ipv6 unicast\n  neighbor %s activate\n  network %s\n exit-address-family\n!\n", l.spine6, l.pfx6)
	return b.String()
}

func TestFIBForwards(t *testing.T) {
	testenv.RequireRoot(t)
	testenv.RequireBinary(t, "bgpd", "/usr/lib/frr")
	testenv.RequireBinary(t, "ping")
	tp := netns.New(t, "fib")
	spine, nss, leaves := fibTopology(t, tp, fibLeaves, fibLeaf.frrConfig)
	c := abConf{ASN: 65100, RouterID: "192.0.2.100", Tail: "\n[fib]\nmultipath = true\n"}
	for _, l := range fibLeaves {
		for _, a := range []string{l.v4, l.v6} {
			c.Peers = append(c.Peers, abPeer{addr: a, asn: l.asn, src: "password-file", ref: "pw"})
		}
	}
	a := StartAuthbgpd(t, tp, spine, c.String(), AuthbgpdOptions{Files: map[string]string{"pw": fibPassword + "\n"}})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, l := range fibLeaves {
		for _, addr := range []string{l.v4, l.v6} {
			if err := WaitSession(ctx, a, netip.MustParseAddr(addr), 1); err != nil {
				t.Fatal(err)
			}
		}
	}
	wantRoutes := []string{
		`198.51.100.0/25 via 192.0.2.2 dev eth1 proto bgp metric 20`,
		`198.51.100.128/25 via 192.0.2.6 dev eth2 proto bgp metric 20`,
		`2001:db8:a1::/48 via 2001:db8:1::2 dev eth1 proto bgp metric 20`,
		`2001:db8:a2::/48 via 2001:db8:2::2 dev eth2 proto bgp metric 20`,
		`203.0.113.64/26 proto bgp metric 20 nexthop via 192.0.2.2 dev eth1 weight 1 nexthop via 192.0.2.6 dev eth2 weight 1`,
	}
	if !t.Run("installed", func(t *testing.T) {
		waitKernelRoutes(t, spine, 15*time.Second, "the leaves' prefixes in the spine's main table", wantRoutes)
	}) {
		s, err := a.TryStatus()
		if err == nil {
			t.Fatalf("/status fib: %+v\nip route show table all:\n%s", s.FIB, netns.Run(t, "ip", "-n", spine, "route", "show", "table", "all"))
		}
		t.Fatal(err)
	}
	for _, l := range fibLeaves {
		other := fibLeaves[0]
		if l.name == other.name {
			other = fibLeaves[1]
		}
		fibPing(t, nss[l.name], l, other, true)
	}

	// /status, `authbgpd status` and the metrics say the same.
	st := waitFIB(t, a, 10*time.Second, "5 routes in the main table and 203.0.113.0/24 refused", func(f *status.FIB) bool {
		return len(f.Tables) == 1 && f.Tables[0].Table == 254 && f.Tables[0].Routes == 5 && f.Tables[0].Refused == 1 && len(f.Refused) == 1
	})
	if r := st.Refused[0]; r.Prefix != "203.0.113.0/24" || r.Reason != "next hop unresolved" || r.Table != 254 || r.VRF != "" {
		t.Errorf("/status fib.refused: %+v", st.Refused)
	}
	if out := statusText(t, spine); !regexp.MustCompile(`(?m)^FIB\b`).MatchString(out) || !strings.Contains(out, "203.0.113.0/24") {
		t.Errorf("authbgpd status shows no FIB section with the refused route:\n%s", out)
	}
	metrics, err := a.HTTPGet("/metrics")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`authbgpd_fib_routes{table="254",vrf=""} 5`, `authbgpd_fib_refused{reason="next hop unresolved",vrf=""} 1`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics has no %s", want)
		}
	}
	if out := netns.Run(t, "ip", "-n", spine, "route", "show", "203.0.113.0/24"); strings.TrimSpace(out) != "" {
		t.Errorf("the unreachable next hop's route is in the kernel: %s", out)
	}

	// Repaired: a route deleted by hand, then all of ours flushed.
	netns.Run(t, "ip", "-n", spine, "route", "del", "198.51.100.128/25", "proto", "bgp")
	waitKernelRoutes(t, spine, 5*time.Second, "a route deleted by hand put back", wantRoutes)
	netns.Run(t, "ip", "-n", spine, "route", "flush", "proto", "bgp")
	netns.Run(t, "ip", "-n", spine, "-6", "route", "flush", "proto", "bgp")
	waitKernelRoutes(t, spine, 5*time.Second, "the routes flushed by hand put back", wantRoutes)
	fibPing(t, nss["left"], fibLeaves[0], fibLeaves[1], true)

	// A dead session takes its routes out: right's bgpd goes away.
	netns.Stop(leaves["right"].cmd)
	waitKernelRoutes(t, spine, 30*time.Second, "right's routes gone with its sessions (the ECMP route down to left's path)",
		wantRoutes[:1:1], wantRoutes[2], `203.0.113.64/26 via 192.0.2.2 dev eth1 proto bgp metric 20`)
	fibPing(t, nss["left"], fibLeaves[0], fibLeaves[1], false)

	// A stop leaves no route of ours behind.
	a.StopClean()
	waitKernelRoutes(t, spine, time.Second, "no route after a stop", nil)
}

// fibPing pings from l's own address to other's, over IPv4 and IPv6, and
// fails t unless it goes through as want says.
func fibPing(t *testing.T, ns string, l, other fibLeaf, want bool) {
	t.Helper()
	for _, p := range [][2]string{{l.lo4, other.lo4}, {l.lo6, other.lo6}} {
		cmd := exec.Command("ip", "netns", "exec", ns, "ping", "-c", "2", "-i", "0.2", "-W", "1", "-I", p[0], p[1])
		out, err := cmd.CombinedOutput()
		if got := err == nil; got != want {
			t.Errorf("ping %s -> %s through the spine: went through %v, want %v\n%s", p[0], p[1], got, want, out)
		}
	}
}

// waitKernelRoutes waits until ns's routes of protocol bgp (main table,
// IPv4 and IPv6) are exactly want (lines as `ip route show table main`
// prints them, without IPv6's "pref medium").
func waitKernelRoutes(t *testing.T, ns string, d time.Duration, what string, want []string, more ...string) {
	t.Helper()
	want = append(append([]string(nil), want...), more...)
	var got []string
	err := poll(d, func() error {
		got = kernelRoutes(t, ns)
		if slices.Equal(got, slices.Sorted(slices.Values(want))) {
			return nil
		}
		return errNotYet
	})
	if err != nil {
		t.Fatalf("%s: the kernel's routes of proto bgp are\n  %s\nwant\n  %s", what, strings.Join(got, "\n  "), strings.Join(slices.Sorted(slices.Values(want)), "\n  "))
	}
}

func kernelRoutes(t *testing.T, ns string) []string {
	var out []string
	for _, fam := range []string{"-4", "-6"} {
		// Not `show proto bgp`: ip leaves out what it filters on. -o: a
		// multipath route's next hops on its line (after "\").
		for _, l := range strings.Split(netns.Run(t, "ip", "-o", "-n", ns, fam, "route", "show", "table", "main"), "\n") {
			if l = strings.Join(strings.Fields(strings.ReplaceAll(l, "\\", " ")), " "); strings.Contains(l, " proto bgp ") {
				out = append(out, strings.TrimSuffix(l, " pref medium"))
			}
		}
	}
	slices.Sort(out)
	return out
}

// waitFIB polls /status until its fib section holds.
func waitFIB(t *testing.T, a *Authbgpd, d time.Duration, what string, ok func(*status.FIB) bool) *status.FIB {
	t.Helper()
	var last *status.FIB
	waitFor(t, d, what, func() error {
		s, err := a.TryStatus()
		if err != nil {
			return err
		}
		if last = s.FIB; last == nil {
			return fmt.Errorf("/status has no fib section")
		}
		if !ok(last) {
			return fmt.Errorf("/status fib: %+v", *last)
		}
		return nil
	})
	return last
}
