//go:build linux

package srv6policy

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
)

// Privileged tests of KernelRoutes: our rtnetlink encoding against
// iproute2's, and routes that the kernel really uses (its HMACs verified
// with our code).
//
//	sudo go test -run 'KernelRoutes|TunnelSource' -v ./srv6policy

// openRoutes opens KernelRoutes and KernelKeys in ns.
func openRoutes(t *testing.T, ns string) (*KernelRoutes, *KernelKeys) {
	t.Helper()
	var kr *KernelRoutes
	var kk *KernelKeys
	err := netns.Do(ns, func() (err error) {
		if kr, err = OpenKernelRoutes(RouteOptions{}); err != nil {
			return err
		}
		kk, err = OpenKernelKeys()
		return err
	})
	if errors.Is(err, ErrNoKernelSupport) {
		testenv.SkipKernelLacks(t, "SRv6 (genetlink SEG6)", err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { kr.Close(); kk.Close() })
	return kr, kk
}

// showRoute returns `ip route show` for exactly dst in ns.
func showRoute(t *testing.T, ns string, dst netip.Prefix) string {
	t.Helper()
	fam := "-6"
	if dst.Addr().Is4() {
		fam = "-4"
	}
	return strings.TrimSpace(netns.Run(t, "ip", "-n", ns, fam, "route", "show", "exact", dst.String()))
}

func ipRouteArgs(r Route, dev string) []string {
	var segs []string
	for _, s := range r.Segments {
		segs = append(segs, s.String())
	}
	fam := "-6"
	if r.Dst.Addr().Is4() {
		fam = "-4"
	}
	args := []string{fam, "route", "add", r.Dst.String()}
	switch r.Kind {
	case RouteBSID:
		args = append(args, "encap", "seg6local", "action", "End.B6.Encaps", "srh", "segs", strings.Join(segs, ","))
	case RouteSteer:
		args = append(args, "encap", "seg6", "mode", "encap", "segs", strings.Join(segs, ","))
	}
	if r.KeyID != 0 {
		args = append(args, "hmac", fmt.Sprint(r.KeyID))
	}
	return append(args, "proto", fmt.Sprint(RouteProtocol), "dev", dev)
}

var (
	polSegs = []netip.Addr{netip.MustParseAddr("fc00:0:2::1"), netip.MustParseAddr("fc00:0:3::1")}
	polBSID = netip.MustParsePrefix("fc00:0:1:b6::100/128")
)

// TestKernelRoutesLikeIproute2: routes installed with our encoding show in
// `ip route` exactly as the same routes installed by iproute2, and List
// decodes iproute2's routes to what was asked.
func TestKernelRoutesLikeIproute2(t *testing.T) {
	testenv.RequireSRv6HMAC(t)
	_, a, _ := twoNodes(t, "srv6r")
	ipSRHMACSet(t, a, 42, SHA256, "routes-test-key")
	kr, _ := openRoutes(t, a)
	eth0 := ifIndex(t, a, "eth0")
	routes := []struct {
		r   Route
		dev string
	}{
		{Route{Kind: RouteBSID, Dst: polBSID, Segments: polSegs, KeyID: 42}, "eth0"},
		{Route{Kind: RouteSteer, Dst: netip.MustParsePrefix("2001:db8:3::3/128"), Segments: polSegs, KeyID: 42}, "eth0"},
		{Route{Kind: RouteSteer, Dst: netip.MustParsePrefix("2001:db8:30::/48"), Segments: polSegs[:1], KeyID: 4294967295}, "eth0"},
		{Route{Kind: RouteSteer, Dst: netip.MustParsePrefix("198.51.100.7/32"), Segments: polSegs, KeyID: 42}, "eth0"},
		{Route{Kind: RouteBSID, Dst: netip.MustParsePrefix("fc00:0:1:b6::200/128"), Segments: []netip.Addr{
			netip.MustParseAddr("fc00:0:2::1"), netip.MustParseAddr("fc00:0:3::1"), netip.MustParseAddr("fc00:0:4::1"),
			netip.MustParseAddr("fc00:0:5::1"), netip.MustParseAddr("fc00:0:6::1")}, KeyID: 7}, "eth0"},
		{Route{Kind: RouteSteer, Dst: netip.MustParsePrefix("2001:db8:3::4/128"), Segments: polSegs}, "eth0"}, // no HMAC
	}
	for _, tc := range routes {
		if err := kr.Add(tc.r); err != nil {
			t.Fatalf("Add %s: %v", tc.r, err)
		}
		ours := showRoute(t, a, tc.r.Dst)
		if err := kr.Add(tc.r); !errors.Is(err, ErrRouteExists) {
			t.Errorf("Add %s twice: %v", tc.r, err)
		}
		if err := kr.Delete(tc.r.Dst); err != nil {
			t.Fatalf("Delete %s: %v", tc.r.Dst, err)
		}
		if s := showRoute(t, a, tc.r.Dst); s != "" {
			t.Fatalf("after Delete: %s", s)
		}
		netns.Run(t, "ip", append([]string{"-n", a}, ipRouteArgs(tc.r, tc.dev)...)...)
		theirs := showRoute(t, a, tc.r.Dst)
		if ours != theirs || ours == "" {
			t.Errorf("ip route show\n ours:     %s\n iproute2: %s", ours, theirs)
		} else {
			t.Logf("%s", ours)
		}
		// List decodes iproute2's route.
		got, err := kr.List()
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, g := range got {
			if g.Dst == tc.r.Dst {
				found = true
				want := tc.r
				want.OIF = eth0
				if !g.Same(want) || g.OIF != want.OIF || g.Protocol != RouteProtocol || g.Table != MainTable {
					t.Errorf("List: %+v, want %+v", g, want)
				}
			}
		}
		if !found {
			t.Errorf("List does not show %s: %+v", tc.r, got)
		}
	}
	// Flush removes ours (all of iproute2's above have our protocol) and
	// nothing else.
	netns.Run(t, "ip", "-n", a, "-6", "route", "add", "2001:db8:99::/64", "encap", "seg6", "mode", "encap", "segs", "fc00:0:9::1", "dev", "eth0")
	n, err := kr.Flush()
	if err != nil || n != len(routes) {
		t.Fatalf("Flush: %d, %v", n, err)
	}
	if got, _ := kr.List(); len(got) != 0 {
		t.Fatalf("after Flush: %+v", got)
	}
	if s := showRoute(t, a, netip.MustParsePrefix("2001:db8:99::/64")); !strings.Contains(s, "seg6") {
		t.Fatalf("Flush removed a route that is not ours: %q", s)
	}
	all, err := kr.ListAll()
	if err != nil || len(all) != 1 || all[0].Protocol == RouteProtocol {
		t.Fatalf("ListAll: %+v, %v", all, err)
	}
	// Delete never touches a route of another protocol.
	if err := kr.Delete(netip.MustParsePrefix("2001:db8:99::/64")); !errors.Is(err, ErrRouteNotFound) {
		t.Fatalf("Delete of a route that is not ours: %v", err)
	}
	// Add does not overwrite it either.
	if err := kr.Add(Route{Kind: RouteSteer, Dst: netip.MustParsePrefix("2001:db8:99::/64"), Segments: polSegs, KeyID: 42}); !errors.Is(err, ErrRouteExists) {
		t.Fatalf("Add over a route that is not ours: %v", err)
	}
	// Replace updates ours.
	r := Route{Kind: RouteSteer, Dst: netip.MustParsePrefix("2001:db8:3::3/128"), Segments: polSegs, KeyID: 42}
	if err := kr.Add(r); err != nil {
		t.Fatal(err)
	}
	r.Segments, r.KeyID = polSegs[1:], 43
	if err := kr.Replace(r); err != nil {
		t.Fatal(err)
	}
	if got, _ := kr.List(); len(got) != 1 || !got[0].Same(r) {
		t.Fatalf("after Replace: %+v", got)
	}
	// No route to the first segment: a clear error.
	bad := Route{Kind: RouteSteer, Dst: netip.MustParsePrefix("2001:db8:3::5/128"), Segments: []netip.Addr{netip.MustParseAddr("3fff::1")}, KeyID: 42}
	if err := kr.Add(bad); err == nil || !strings.Contains(err.Error(), "first segment") {
		t.Fatalf("Add without a route to the first segment: %v", err)
	}
}

func ifIndex(t *testing.T, ns, name string) int {
	t.Helper()
	var idx int
	if err := netns.Do(ns, func() error {
		ifi, err := net.InterfaceByName(name)
		if err == nil {
			idx = ifi.Index
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return idx
}

// TestTunnelSource: our SEG6_CMD_SET_TUNSRC / GET_TUNSRC agree with `ip sr
// tunsrc`.
func TestTunnelSource(t *testing.T) {
	_, a, _ := twoNodes(t, "srv6t")
	_, kk := openRoutes(t, a)
	got, err := kk.TunnelSource()
	if err != nil || got != srcA {
		t.Fatalf("TunnelSource = %v, %v; want %v (set by ip sr tunsrc)", got, err, srcA)
	}
	other := netip.MustParseAddr("2001:db8:ff::7")
	if err := kk.SetTunnelSource(other); err != nil {
		t.Fatal(err)
	}
	if out := netns.Run(t, "ip", "-n", a, "sr", "tunsrc", "show"); !strings.Contains(out, other.String()) {
		t.Fatalf("ip sr tunsrc show: %s", out)
	}
	if err := kk.SetTunnelSource(netip.IPv6Unspecified()); err != nil {
		t.Fatal(err)
	}
	if got, err := kk.TunnelSource(); err != nil || got != netip.IPv6Unspecified() {
		t.Fatalf("after unset: %v, %v", got, err)
	}
	if err := kk.SetTunnelSource(netip.MustParseAddr("192.0.2.1")); err == nil {
		t.Fatal("an IPv4 tunnel source was accepted")
	}
}

// TestKernelRoutesTraffic: a steer route and a Binding SID installed by
// KernelRoutes, with the tunnel source set by SetTunnelSource, carry
// packets whose SRHs are the policy's and whose HMACs verify with our
// code: locally sent datagrams to the steered destination, and packets
// that b sends through the Binding SID (an SRH with the BSID as active
// segment, which End.B6.Encaps replaces by an outer header with the
// policy's SRH).
func TestKernelRoutesTraffic(t *testing.T) {
	testenv.RequireSRv6HMAC(t)
	tp, a, b := twoNodes(t, "srv6x")
	const secret = "routes-traffic-key"
	ipSRHMACSet(t, a, 42, SHA256, secret)
	kr, kk := openRoutes(t, a)
	src := netip.MustParseAddr("2001:db8:ff::1")
	netns.Run(t, "ip", "-n", a, "addr", "add", src.String()+"/128", "dev", "lo")
	if err := kk.SetTunnelSource(src); err != nil {
		t.Fatal(err)
	}
	steer := Route{Kind: RouteSteer, Dst: netip.MustParsePrefix("2001:db8:3::3/128"), Segments: polSegs, KeyID: 42}
	bsid := Route{Kind: RouteBSID, Dst: polBSID, Segments: []netip.Addr{netip.MustParseAddr("fc00:0:4::1"), netip.MustParseAddr("fc00:0:5::1"), netip.MustParseAddr("fc00:0:6::1")}, KeyID: 42}
	for _, r := range []Route{steer, bsid} {
		if err := kr.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	// End.B6.Encaps forwards the encapsulated packet.
	netns.Run(t, "ip", "netns", "exec", a, "sysctl", "-qw", "net.ipv6.conf.all.forwarding=1")
	// b sends through the Binding SID: SRH [BSID, 2001:db8:7::7], no HMAC.
	netns.Run(t, "ip", "-n", b, "-6", "route", "add", "fc00:0:1:b6::/64", "via", "2001:db8::1", "dev", "eth0")
	netns.Run(t, "ip", "-n", b, "-6", "route", "add", "2001:db8:7::7/128", "encap", "seg6", "mode", "encap",
		"segs", polBSID.Addr().String()+",2001:db8:7::7", "dev", "eth0")

	stop := capture(t, tp, b)
	sendUDP(t, a, []netip.Addr{steer.Dst.Addr()}, 3)
	if err := netns.Do(b, func() error {
		c, err := net.ListenUDP("udp6", nil)
		if err != nil {
			return err
		}
		defer c.Close()
		for i := 0; i < 3; i++ {
			if _, err := c.WriteToUDPAddrPort([]byte("via the binding SID"), netip.MustParseAddrPort("[2001:db8:7::7]:9")); err != nil {
				return err
			}
			time.Sleep(20 * time.Millisecond)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	file := stop(9) // 3 steered, 3 sent by b, 3 through the BSID
	keys := map[uint32]*Key{42: mustKey(t, 42, SHA256, []byte(secret))}
	got := map[string]int{}
	for _, c := range captureSRHs(t, file) {
		s, err := DecodeSRH(c.srh)
		if err != nil {
			t.Fatalf("#%d: %v", c.n, err)
		}
		var which Route
		switch fh := s.FirstHopFirst(); {
		case equalAddrs(fh, steer.Segments):
			which = steer
		case equalAddrs(fh, bsid.Segments):
			which = bsid
		default:
			got["other"]++ // b's own packets to the BSID
			continue
		}
		if c.src != src {
			t.Errorf("#%d (%s): outer source %s, want the tunnel source %s", c.n, which.Kind, c.src, src)
		}
		if v, id := VerifySRH(keys, c.src, c.srh); v != VerdictValid || id != 42 {
			t.Errorf("#%d (%s): %v, key %d", c.n, which.Kind, v, id)
		}
		got[which.Kind.String()]++
	}
	t.Logf("SRHs captured: %v", got)
	if got["steer"] < 3 || got["bsid"] < 3 || got["other"] < 3 {
		t.Fatalf("captured %v, want 3 of each", got)
	}
}

func equalAddrs(a, b []netip.Addr) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
