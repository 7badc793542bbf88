//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/authbgp/authbgpd/capture/capfile"
	"github.com/authbgp/authbgpd/frame"
	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/srv6policy"
	"github.com/authbgp/authbgpd/status"
)

// TestSRv6Policy runs SR policies with SRv6 HMAC end to end:
//
//	gobgpd (rx) ── ctrl (authbgpd) ══TCP-MD5══ head (authbgpd, headend) ── ep (endpoint)
//
// The controller advertises an SR policy (ipv6-srpolicy) for the endpoint
// with HMAC key 42 to the headend and to Debian's gobgpd, and one with an
// IPv4 endpoint (ipv4-srpolicy) to the headend. The headend installs them
// with its own netlink encoding (Binding SID and a steer route for the
// endpoint, outer source = [srv6.headend] source); the endpoint
// (a plain namespace: seg6_enabled, seg6_require_hmac=1, key 42 from `ip sr
// hmac set`, SIDs End and End.DT6) receives ICMPv6 echo requests sent by
// the headend through the policy; with another secret at the endpoint they
// are dropped. gobgpd holds the policy with our segments, preference, BSID
// and communities (its gRPC ListPath); tshark decodes our UPDATE; the
// capture's HMACs verify with verify-pcap and the headend's shadow checker
// counts them. Withdrawing the policy on the controller removes the
// headend's routes; stopping the headend removes what it installed.
func TestSRv6Policy(t *testing.T) {
	testenv.RequireRoot(t)
	requireSRv6HMACKernel(t, "")
	for _, b := range []string{"ip", "tcpdump", "tshark", "gobgpd"} {
		testenv.RequireBinary(t, b)
	}
	if _, err := os.Stat("/proc/sys/net/ipv6/conf/all/seg6_enabled"); err != nil {
		testenv.SkipKernelLacks(t, "IPv6 segment routing", err.Error())
	}
	authbgpdBinary(t, "")
	start := time.Now()
	step := func(what string) { t.Logf("[%6.2fs] %s", time.Since(start).Seconds(), what) }

	tp := netns.New(t, "srv6")
	ctrl, head, ep, rx := tp.Add("ctrl"), tp.Add("head"), tp.Add("ep"), tp.Add("rx")
	tp.Link(ctrl, "eth0", []string{"2001:db8:12::1/64"}, head, "eth0", []string{"2001:db8:12::2/64"})
	tp.Link(ctrl, "eth1", []string{"2001:db8:14::1/64"}, rx, "eth0", []string{"2001:db8:14::4/64"})
	tp.Link(head, "eth1", []string{"2001:db8:23::2/64"}, ep, "eth0", []string{"2001:db8:23::3/64"})

	const (
		hmacSecret  = "e2e-srv6-hmac-Pangolin-42"
		otherSecret = "e2e-srv6-other-Axolotl-42"
		md5Secret   = "e2e-srv6-md5-Narwhal"
		endpoint    = "2001:db8:3::3"
		bsid        = "fc00:0:1:b6::1f2e"
		endpoint4   = "198.51.100.3"
		bsid4       = "fc00:0:1:b6::4"
		source      = "2001:db8:ff::2"
	)
	segs := []string{"fc00:0:3::e", "fc00:0:3::d6"}

	// The endpoint: SIDs End and End.DT6 (decapsulate and look the inner
	// destination up in the local table: the endpoint's own address; in
	// table main the lookup fails, Ip6InNoRoutes), HMAC required on its
	// ingress interface (checked at each SID).
	netns.Run(t, "ip", "netns", "exec", ep, "sysctl", "-qw",
		"net.ipv6.conf.all.seg6_enabled=1", "net.ipv6.conf.eth0.seg6_enabled=1", "net.ipv6.conf.eth0.seg6_require_hmac=1")
	netns.Run(t, "ip", "-n", ep, "addr", "add", endpoint+"/128", "dev", "lo")
	netns.Run(t, "ip", "-n", ep, "-6", "route", "add", segs[0]+"/128", "encap", "seg6local", "action", "End", "dev", "eth0")
	netns.Run(t, "ip", "-n", ep, "-6", "route", "add", segs[1]+"/128", "encap", "seg6local", "action", "End.DT6", "table", "255", "dev", "eth0")
	ipSRHMAC(t, ep, 42, hmacSecret)
	// The headend: its outer source, a route to the endpoint's SIDs.
	netns.Run(t, "ip", "-n", head, "addr", "add", source+"/128", "dev", "lo")
	netns.Run(t, "ip", "-n", head, "-6", "route", "add", "fc00:0:3::/48", "via", "2001:db8:23::3", "dev", "eth1")
	netns.Run(t, "ip", "netns", "exec", head, "sysctl", "-qw", "net.ipv6.conf.all.forwarding=1")

	// Captures: BGP between controller and headend; SRv6 at the endpoint.
	bgpCap := srCapture(t, tp, ctrl, "eth0", "tcp port 179")
	srCap := srCapture(t, tp, ep, "eth0", "ip6 proto 43")

	files := map[string]string{"md5.key": md5Secret, "hmac42.key": hmacSecret}
	policy := fmt.Sprintf(`
[[srv6.policies]]
name = "gold"
color = 100
endpoint = %q
distinguisher = 1
preference = 200
binding-sid = %q
segments = [%q, %q]
hmac-key-id = 42
headends = ["192.0.2.2"]

[[srv6.policies]]
name = "silver"
color = 200
endpoint = %q
distinguisher = 2
preference = 150
binding-sid = %q
segments = [%q, %q]
hmac-key-id = 42
headends = ["192.0.2.2"]
`, endpoint, bsid, segs[0], segs[1], endpoint4, bsid4, segs[0], segs[1])
	srFamilies := []string{"ipv6-srpolicy", "ipv4-srpolicy"}
	ctrlConf := func(withPolicy bool) string {
		c := abConf{Peers: []abPeer{
			{addr: "2001:db8:12::2", asn: 65002, src: "password-file", ref: "md5.key", families: srFamilies},
			{addr: "2001:db8:14::4", asn: 65004, families: []string{"ipv6-srpolicy"}},
		}, Tail: srv6HMACKey(42, "hmac42.key")}
		if withPolicy {
			c.Tail += policy
		}
		return c.String()
	}
	headConf := abConf{ASN: 65002, RouterID: "192.0.2.2",
		Peers: []abPeer{{addr: "2001:db8:12::1", asn: 65001, src: "password-file", ref: "md5.key", families: srFamilies}},
		Tail: srv6HMACKey(42, "hmac42.key") + fmt.Sprintf(`
[srv6.headend]
enabled = true
source = %q
steer-endpoint = true

[shadow]
enabled = true
`, source)}.String()

	startGoBGPSRPolicy(t, tp, rx)
	hd := StartAuthbgpd(t, tp, head, headConf, AuthbgpdOptions{Files: files, LogLevel: "info"})
	cd := StartAuthbgpd(t, tp, ctrl, ctrlConf(true), AuthbgpdOptions{Files: files, LogLevel: "info"})
	step("daemons started")

	// The policy's names on the headend (as it installs them).
	rname := fmt.Sprintf("[1][100][%s] from 2001:db8:12::1", endpoint)
	rname4 := fmt.Sprintf("[2][200][%s] from 2001:db8:12::1", endpoint4)

	// The stages run in order, each on what the ones before it set up; the
	// first that fails ends the test.
	for _, st := range []struct {
		name string
		fn   func(t *testing.T)
	}{
		{"sessions", func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			for _, w := range []struct {
				p    Peer
				addr string
			}{{cd, "2001:db8:12::2"}, {cd, "2001:db8:14::4"}, {hd, "2001:db8:12::1"}} {
				if err := WaitSession(ctx, w.p, netip.MustParseAddr(w.addr), 0); err != nil {
					t.Fatal(err)
				}
			}
			step("sessions established (controller-headend over TCP-MD5)")
		}},
		{"policy-installed", func(t *testing.T) {
			// /status: keys installed on both, policy advertised (controller),
			// installed (headend).
			waitSRv6Status(t, cd, 20*time.Second, "controller: key 42 installed, gold and silver advertised", func(s status.SRv6) bool {
				return len(s.HMACKeys) == 1 && s.HMACKeys[0].Installed && len(s.Policies) == 2 &&
					s.Policies[0].Name == "gold" && s.Policies[0].Advertised && s.Policies[1].Name == "silver" && s.Policies[1].Advertised
			})
			hs := waitSRv6Status(t, hd, 20*time.Second, "headend: key 42 installed, both policies installed", func(s status.SRv6) bool {
				return len(s.HMACKeys) == 1 && s.HMACKeys[0].Installed && len(s.Policies) == 2 &&
					s.Policies[0].Name == rname && s.Policies[0].Installed && s.Policies[1].Name == rname4 && s.Policies[1].Installed
			})
			t.Logf("headend /status srv6: %+v", hs)
			step("policy installed on the headend")
		}},
		{"routes-and-traffic", func(t *testing.T) {
			// The headend's routes, as iproute2 prints them.
			routes := netns.Run(t, "ip", "-n", head, "-6", "route", "show", "proto", strconv.Itoa(srv6policy.RouteProtocol))
			wantRoutes := []string{
				fmt.Sprintf("%s  encap seg6 mode encap segs 2 [ %s %s ] hmac 2A dev eth1", endpoint, segs[0], segs[1]),
				fmt.Sprintf("%s  encap seg6local action End.B6.Encaps segs 2 [ %s %s ] hmac 2A dev eth1", bsid, segs[0], segs[1]),
			}
			routes += netns.Run(t, "ip", "-n", head, "-4", "route", "show", "proto", strconv.Itoa(srv6policy.RouteProtocol))
			wantRoutes = append(wantRoutes,
				fmt.Sprintf("%s  encap seg6local action End.B6.Encaps segs 2 [ %s %s ] hmac 2A dev eth1", bsid4, segs[0], segs[1]),
				fmt.Sprintf("%s  encap seg6 mode encap segs 2 [ %s %s ] hmac 2A dev eth1 scope link", endpoint4, segs[0], segs[1]))
			for _, w := range wantRoutes {
				if !strings.Contains(routes, w) {
					t.Fatalf("headend routes lack %q:\n%s", w, routes)
				}
			}
			t.Logf("headend routes:\n%s", routes)
			if out := netns.Run(t, "ip", "-n", head, "sr", "tunsrc", "show"); !strings.Contains(out, source) {
				t.Fatalf("tunnel source: %s", out)
			}

			// Traffic from the headend to the endpoint through the policy.
			before := snmp6(t, ep, "Icmp6InEchos")
			ping(t, head, endpoint, 5)
			waitCounter(t, ep, "Icmp6InEchos", before+5, 5*time.Second, "echo requests delivered at the endpoint")
			step("5 ICMPv6 echo requests reached the endpoint through the policy")
		}},
		{"other-secret-dropped", func(t *testing.T) {
			// Another secret at the endpoint: dropped.
			ipSRHMAC(t, ep, 42, otherSecret)
			before := snmp6(t, ep, "Icmp6InEchos")
			ping(t, head, endpoint, 5)
			time.Sleep(1500 * time.Millisecond)
			if n := snmp6(t, ep, "Icmp6InEchos"); n != before {
				t.Fatalf("with another secret at the endpoint %d echo requests got through", n-before)
			}
			ipSRHMAC(t, ep, 42, hmacSecret)
			ping(t, head, endpoint, 3)
			waitCounter(t, ep, "Icmp6InEchos", before+3, 5*time.Second, "echo requests after the key is restored")
			step("dropped with another secret at the endpoint (seg6_require_hmac=1), delivered again with the right one")
		}},
		{"binding-sid", func(t *testing.T) {
			// Through the Binding SID: the controller (which has key 42 too) sends
			// echo requests with an SRH [BSID, endpoint]; the headend's
			// End.B6.Encaps puts them into the policy.
			netns.Run(t, "ip", "-n", ctrl, "-6", "route", "add", "fc00:0:1:b6::/64", "via", "2001:db8:12::2", "dev", "eth0")
			netns.Run(t, "ip", "-n", ctrl, "-6", "route", "add", endpoint+"/128", "encap", "seg6", "mode", "encap",
				"segs", bsid+","+endpoint, "hmac", "42", "dev", "eth0")
			before := snmp6(t, ep, "Icmp6InEchos")
			ping(t, ctrl, endpoint, 5)
			waitCounter(t, ep, "Icmp6InEchos", before+5, 5*time.Second, "echo requests through the Binding SID")
			step("5 ICMPv6 echo requests reached the endpoint through the Binding SID")
		}},
		{"srh-verified", func(t *testing.T) {
			// The headend's shadow checker verified its own SRHs.
			// (The capture hands a block over at most 100 ms after its first frame.)
			var body string
			waitFor(t, 5*time.Second, `headend authbgpd_srh_hmac_total{key_id="42",verdict="valid"} >= 23`, func() error {
				var err error
				if body, err = hd.HTTPGet("/metrics"); err != nil {
					t.Fatal(err)
				}
				v, ok := metricValue(body, "authbgpd_srh_hmac_total", `key_id="42",verdict="valid"`)
				if ok && v >= 23 { // 13 sent, 5 through the BSID counted in and out
					t.Logf("headend authbgpd_srh_hmac_total{key_id=\"42\",verdict=\"valid\"} = %v", v)
					return nil
				}
				return fmt.Errorf("%v (present %v)", v, ok)
			})
			for _, verdict := range []string{"invalid", "unknown_key"} {
				if v, _ := metricValue(body, "authbgpd_srh_hmac_total", `key_id="42",verdict="`+verdict+`"`); v != 0 {
					t.Fatalf("headend counts %v SRHs %s", v, verdict)
				}
			}
			if v, ok := metricValue(body, "authbgpd_srv6_policy_installed", fmt.Sprintf("name=%q", rname)); !ok || v != 1 {
				t.Fatalf("authbgpd_srv6_policy_installed = %v (%v)", v, ok)
			}

			// The SRHs on the wire: ours, from the headend's source, HMACs valid;
			// verify-pcap agrees.
			srFile := srCap(18)
			checkSRv6Capture(t, srFile, source, segs, hmacSecret)
			vp := verifyPcapSRH(t, srFile, hmacSecret)
			if vp["valid"] < 18 || vp["invalid"] != 0 || vp["unknown_key"] != 0 {
				t.Fatalf("verify-pcap srh %v", vp)
			}
			t.Logf("verify-pcap srh: %v", vp)
			step("captured SRHs verified (srv6policy, verify-pcap, live shadow)")
		}},
		{"gobgpd-receiver", func(t *testing.T) {
			// gobgpd, a second receiver, holds the policy as we meant it.
			checkGoBGPReceiver(t, rx, endpoint, bsid, segs)
			step("gobgpd holds the policy (segments, preference, BSID, communities)")
		}},
		{"tshark", func(t *testing.T) {
			// tshark decodes our UPDATEs.
			checkTshark(t, bgpCap(0), endpoint, endpoint4, bsid, bsid4, segs)
			step("tshark decodes the UPDATE")
		}},
		{"withdraw", func(t *testing.T) {
			// Withdraw: the controller reloads without the policy.
			cd.Reload(ctrlConf(false))
			waitFor(t, 15*time.Second, "headend routes gone after the withdrawal", func() error {
				r := netns.Run(t, "ip", "-n", head, "-6", "route", "show", "proto", strconv.Itoa(srv6policy.RouteProtocol))
				if strings.TrimSpace(r) != "" {
					return fmt.Errorf("left:\n%s", r)
				}
				return nil
			})
			waitSRv6Status(t, hd, 5*time.Second, "headend: no policy", func(s status.SRv6) bool { return len(s.Policies) == 0 })
			waitSRv6Status(t, cd, 5*time.Second, "controller: no policy", func(s status.SRv6) bool { return len(s.Policies) == 0 })
			if r := netns.Run(t, "ip", "-n", head, "-4", "route", "show", "proto", strconv.Itoa(srv6policy.RouteProtocol)); strings.TrimSpace(r) != "" {
				t.Fatalf("IPv4 headend route left: %s", r)
			}
			if n := len(gobgpPaths(t, rx, 10*time.Second, func(n int) bool { return n == 0 })); n != 0 {
				t.Fatalf("gobgpd still holds %d paths after the withdrawal", n)
			}
			step("withdrawn: the headend's routes are gone, gobgpd has no path")
		}},
		{"stop", func(t *testing.T) {
			before := snmp6(t, ep, "Icmp6InEchos")
			if err := sendEchos(head, endpoint, 3); err == nil || !strings.Contains(err.Error(), "network is unreachable") {
				t.Fatalf("ping after the withdrawal: %v, want network is unreachable (no route to the endpoint any more)", err)
			}
			time.Sleep(500 * time.Millisecond)
			if n := snmp6(t, ep, "Icmp6InEchos"); n != before {
				t.Fatalf("%d echo requests reached the endpoint without a policy", n-before)
			}

			// Stop: the headend removes its keys and restores the tunnel source.
			hd.StopClean()
			if out := netns.Run(t, "ip", "-n", head, "sr", "hmac", "show"); strings.Contains(out, "hmac 42") {
				t.Fatalf("key left in the headend's kernel:\n%s", out)
			}
			if out := netns.Run(t, "ip", "-n", head, "sr", "tunsrc", "show"); strings.Contains(out, source) {
				t.Fatalf("tunnel source left: %s", out)
			}

			// No secret anywhere.
			for _, d := range []*Authbgpd{cd, hd} {
				if l := d.Log(); strings.Contains(l, hmacSecret) || strings.Contains(l, md5Secret) {
					t.Fatalf("%s logged a secret", d.ns)
				}
			}
			if body, err := cd.HTTPGet("/status"); err != nil || strings.Contains(body, hmacSecret) {
				t.Fatalf("controller /status: %v", err)
			}
			step("stopped cleanly")
		}},
	} {
		if !t.Run(st.name, st.fn) {
			return
		}
	}
}

// ipSRHMAC programs an SRv6 HMAC key with iproute2 (secret on stdin).
func ipSRHMAC(t *testing.T, ns string, id int, secret string) {
	t.Helper()
	cmd := exec.Command("ip", "-n", ns, "sr", "hmac", "set", strconv.Itoa(id), "sha256")
	cmd.Stdin = strings.NewReader(secret + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ip sr hmac set: %v\n%s", err, out)
	}
}

// startGoBGPSRPolicy starts Debian's gobgpd in ns as a passive receiver of
// the controller's SR policies (AS 65004).
func startGoBGPSRPolicy(t *testing.T, tp *netns.Topology, ns string) *GoBGP {
	t.Helper()
	bin := testenv.RequireBinary(t, "gobgpd")
	cfg := `[global.config]
  as = 65004
  router-id = "192.0.2.4"

[[neighbors]]
  [neighbors.config]
    neighbor-address = "2001:db8:14::1"
    peer-as = 65001
  [neighbors.timers.config]
    connect-retry = 5
  [[neighbors.afi-safis]]
    [neighbors.afi-safis.config]
      afi-safi-name = "ipv6-srpolicy"
`
	return startGobgpd(t, tp, ns, "gobgpd", bin, nil, cfg, "debug")
}

func waitSRv6Status(t testing.TB, a *Authbgpd, d time.Duration, what string, ok func(status.SRv6) bool) status.SRv6 {
	t.Helper()
	var s status.SRv6
	waitFor(t, d, what, func() error {
		if s = a.Status().SRv6; ok(s) {
			return nil
		}
		b, _ := json.Marshal(s)
		return fmt.Errorf("/status srv6: %s", b)
	})
	return s
}

// snmp6 reads one counter of ns's /proc/net/snmp6.
func snmp6(t *testing.T, ns, name string) uint64 {
	t.Helper()
	out := netns.Run(t, "ip", "netns", "exec", ns, "cat", "/proc/net/snmp6")
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && f[0] == name {
			n, _ := strconv.ParseUint(f[1], 10, 64)
			return n
		}
	}
	t.Fatalf("no %s in /proc/net/snmp6 of %s", name, ns)
	return 0
}

func waitCounter(t *testing.T, ns, name string, want uint64, d time.Duration, what string) {
	t.Helper()
	waitFor(t, d, what, func() error {
		if n := snmp6(t, ns, name); n < want {
			return fmt.Errorf("%s = %d, want >= %d", name, n, want)
		}
		return nil
	})
}

// ping sends n ICMPv6 echo requests from ns to dst (a raw socket: the
// kernel computes the ICMPv6 checksum).
func ping(t *testing.T, ns, dst string, n int) {
	t.Helper()
	if err := sendEchos(ns, dst, n); err != nil {
		t.Fatalf("ping %s from %s: %v", dst, ns, err)
	}
}

func sendEchos(ns, dst string, n int) error {
	return netns.Do(ns, func() error {
		c, err := net.ListenPacket("ip6:ipv6-icmp", "::")
		if err != nil {
			return err
		}
		defer c.Close()
		for i := 0; i < n; i++ {
			msg := []byte{128, 0, 0, 0, 0x42, 0x42, 0, byte(i)}
			msg = append(msg, "authbgpd srv6 e2e"...)
			if _, err := c.WriteTo(msg, &net.IPAddr{IP: net.ParseIP(dst)}); err != nil {
				return err
			}
			time.Sleep(20 * time.Millisecond)
		}
		return nil
	})
}

// srCapture runs tcpdump in ns on ifc with filter; the returned function
// waits until at least want packets are written (0: just flush), stops it
// and returns the file.
func srCapture(t *testing.T, tp *netns.Topology, ns, ifc, filter string) func(want int) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), ifc+".pcap")
	cmd := netns.Exec(ns, "tcpdump", "-i", ifc, "-n", "-U", "--immediate-mode", "-s", "0", "-w", file, filter)
	stderr := &srBuffer{}
	cmd.Stderr = stderr
	tp.Start(cmd)
	waitFor(t, 10*time.Second, "tcpdump listening", func() error {
		if !strings.Contains(stderr.String(), "listening on") {
			return fmt.Errorf("tcpdump did not start: %s", stderr.String())
		}
		return nil
	})
	return func(want int) string {
		_ = poll(10*time.Second, func() error { return holds(want <= 0 || srCountPackets(file) >= want) })
		time.Sleep(200 * time.Millisecond)
		netns.Stop(cmd)
		return file
	}
}

// srBuffer is a bytes.Buffer safe for a writer and a reader at once.
type srBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *srBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *srBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func srCountPackets(path string) int {
	n := 0
	_ = capfile.EachFile(path, func(capfile.Packet) error { n++; return nil }) // a capture still being written may end torn
	return n
}

// checkSRv6Capture: every SRH at the endpoint is the policy's (segments in
// order, flag 0x08, HMAC TLV for key 42), from the headend's source, with
// a valid HMAC.
func checkSRv6Capture(t *testing.T, file, source string, segs []string, secret string) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := capfile.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	key, err := srv6policy.NewKey(42, srv6policy.SHA256, []byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	var want []netip.Addr
	for _, s := range segs {
		want = append(want, netip.MustParseAddr(s))
	}
	n := 0
	for {
		p, err := r.Next()
		if err != nil {
			break
		}
		var tcp frame.TCP
		if err := frame.DecodeTCP(p.LinkType, p.Data, &tcp); (err != nil && err != frame.ErrNotTCP) || tcp.SRH == nil {
			continue
		}
		n++
		s, err := srv6policy.DecodeSRH(tcp.SRH)
		if err != nil {
			t.Fatalf("SRH %d: %v", n, err)
		}
		h, ok := s.HMAC()
		if !ok || h.KeyID != 42 || s.Flags != srv6policy.FlagHMAC || !slices.Equal(s.FirstHopFirst(), want) {
			t.Fatalf("SRH %d: %+v", n, s)
		}
		if tcp.Src != netip.MustParseAddr(source) {
			t.Fatalf("SRH %d: outer source %s, want %s", n, tcp.Src, source)
		}
		if v, _ := srv6policy.VerifySRH(map[uint32]*srv6policy.Key{42: key}, tcp.Src, tcp.SRH); v != srv6policy.VerdictValid {
			t.Fatalf("SRH %d: %v", n, v)
		}
	}
	if n < 18 {
		t.Fatalf("%d SRHs captured at the endpoint, want >= 18", n)
	}
	t.Logf("%d SRHs at the endpoint: the policy's segments, source %s, HMACs valid", n, source)
}

// verifyPcapSRH runs `authbgpd verify-pcap --json` on file with key 42.
func verifyPcapSRH(t *testing.T, file, secret string) map[string]uint64 {
	t.Helper()
	dir := t.TempDir()
	conf := filepath.Join(dir, "vp.toml")
	os.WriteFile(filepath.Join(dir, "k"), []byte(secret), 0o600)
	os.WriteFile(conf, []byte(abConf{ASN: 65009, RouterID: "192.0.2.9", Extra: srv6HMACKey(42, "k")}.String()), 0o600)
	out, err := exec.Command(authbgpdBinary(t, ""), "verify-pcap", "-f", conf, "--json", file).Output()
	if err != nil {
		t.Fatalf("verify-pcap: %v", err)
	}
	var rep struct {
		SRH map[string]uint64 `json:"srh"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("verify-pcap: %v: %s", err, out)
	}
	return rep.SRH
}

// checkGoBGPReceiver reads the policy from gobgpd's gRPC ListPath (dialed
// inside its namespace) and checks NLRI, preference, BSID, the segment list
// with its weight, the Route Target and the key ID Large Community.
func checkGoBGPReceiver(t *testing.T, ns, endpoint, bsid string, segs []string) {
	t.Helper()
	paths := gobgpPaths(t, ns, 15*time.Second, func(n int) bool { return n > 0 })
	if len(paths) != 1 {
		t.Fatalf("gobgpd holds %d paths", len(paths))
	}
	p := paths[0]
	nlri, err := p.Nlri.UnmarshalNew()
	if err != nil {
		t.Fatal(err)
	}
	n, ok := nlri.(*api.SRPolicyNLRI)
	ep, _ := netip.AddrFromSlice(n.GetEndpoint())
	if !ok || n.Distinguisher != 1 || n.Color != 100 || ep != netip.MustParseAddr(endpoint) {
		t.Fatalf("gobgpd NLRI %v", nlri)
	}
	checkGoBGPAttrs(t, p, bsid, segs)
}

// gobgpPaths lists gobgpd's ipv6-srpolicy paths through its gRPC API
// (dialed inside its namespace) until done(count) or the timeout.
func gobgpPaths(t *testing.T, ns string, d time.Duration, done func(int) bool) []*api.Path {
	t.Helper()
	conn, err := grpc.Dial(GoBGPAPI, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
			var c net.Conn
			err := netns.Do(ns, func() (err error) {
				c, err = (&net.Dialer{}).DialContext(ctx, "tcp", addr)
				return err
			})
			return c, err
		}))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cl := api.NewGobgpApiClient(conn)
	deadline := time.Now().Add(d)
	for {
		var paths []*api.Path
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		st, err := cl.ListPath(ctx, &api.ListPathRequest{TableType: api.TableType_GLOBAL,
			Family: &api.Family{Afi: api.Family_AFI_IP6, Safi: api.Family_SAFI_SR_POLICY}})
		if err == nil {
			for {
				r, err := st.Recv()
				if err != nil {
					break
				}
				paths = append(paths, r.Destination.Paths...)
			}
		}
		cancel()
		if err == nil && done(len(paths)) || time.Now().After(deadline) {
			if err != nil {
				t.Fatalf("gobgpd ListPath: %v", err)
			}
			return paths
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// checkGoBGPAttrs checks the path attributes gobgpd holds: preference,
// the 16-byte BSID, the segment list with its weight, the Route Target and
// the key ID Large Community.
func checkGoBGPAttrs(t *testing.T, p *api.Path, bsid string, segs []string) {
	t.Helper()
	var (
		pref   uint32
		gotBS  []byte
		weight *api.SRWeight
		gotSeg []string
		rts    []string
		large  []string
	)
	for _, a := range p.Pattrs {
		m, err := a.UnmarshalNew()
		if err != nil {
			t.Fatal(err)
		}
		switch v := m.(type) {
		case *api.TunnelEncapAttribute:
			for _, tlv := range v.Tlvs {
				if tlv.Type != 15 {
					continue
				}
				for _, s := range tlv.Tlvs {
					sm, _ := s.UnmarshalNew()
					switch sv := sm.(type) {
					case *api.TunnelEncapSubTLVSRPreference:
						pref = sv.Preference
					case *api.TunnelEncapSubTLVSRBindingSID:
						b, _ := sv.Bsid.UnmarshalNew()
						if bs, ok := b.(*api.SRBindingSID); ok {
							gotBS = bs.Sid
						}
					case *api.TunnelEncapSubTLVSRSegmentList:
						weight = sv.Weight
						for _, sg := range sv.Segments {
							x, _ := sg.UnmarshalNew()
							if b, ok := x.(*api.SegmentTypeB); ok {
								a, _ := netip.AddrFromSlice(b.Sid)
								gotSeg = append(gotSeg, a.String())
							}
						}
					}
				}
			}
		case *api.ExtendedCommunitiesAttribute:
			for _, c := range v.Communities {
				x, _ := c.UnmarshalNew()
				if rt, ok := x.(*api.IPv4AddressSpecificExtended); ok {
					rts = append(rts, fmt.Sprintf("%s:%d/%d", rt.Address, rt.LocalAdmin, rt.SubType))
				}
			}
		case *api.LargeCommunitiesAttribute:
			for _, c := range v.Communities {
				large = append(large, fmt.Sprintf("%d:%d:%d", c.GlobalAdmin, c.LocalData1, c.LocalData2))
			}
		}
	}
	wantBS := netip.MustParseAddr(bsid).As16()
	if pref != 200 || !bytes.Equal(gotBS, wantBS[:]) || weight == nil || weight.Weight != 1 ||
		!slices.Equal(gotSeg, segs) || !slices.Equal(rts, []string{"192.0.2.2:0/2"}) || !slices.Equal(large, []string{"65001:8754:42"}) {
		t.Fatalf("gobgpd holds: preference %d, BSID %x, weight %v, segments %v, route targets %v, large communities %v",
			pref, gotBS, weight, gotSeg, rts, large)
	}
	t.Logf("gobgpd: preference %d, BSID %s, weight %d, segments %v, RT %v, large %v", pref, netip.AddrFrom16([16]byte(gotBS)), weight.Weight, gotSeg, rts, large)
}

// checkTshark decodes the captured UPDATEs with tshark (Debian 12's 4.0)
// and checks what it says about our SR policies.
//
// tshark 4.0 decodes the IPv6 SR Policy NLRI wrongly: it reads the
// endpoint as 4 bytes ("Trying to fetch an IPv6 address with length 4")
// and gives up on the rest of the frame. So the capture is checked as it
// is (the IPv6 UPDATE up to its color), and a copy with one BGP message
// per frame, each UPDATE's MP_REACH_NLRI moved after the other attributes
// (attribute order carries no meaning), is checked in full: every
// attribute of both UPDATEs, and the IPv4 policy's NLRI.
func checkTshark(t *testing.T, file, endpoint, endpoint4, bsid, bsid4 string, segs []string) {
	t.Helper()
	tshark := func(file, filter string, opts ...string) string {
		args := append([]string{"-r", file, "-n", "-V", "-d", "tcp.port==179,bgp"}, opts...)
		out, err := exec.Command("tshark", append(args, "-Y", filter)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tshark: %v\n%s", err, out)
		}
		return string(out)
	}
	hexAddr := func(a string) string {
		b := netip.MustParseAddr(a).As16()
		return fmt.Sprintf("%x", b[:])
	}
	check := func(s, what string, res ...string) {
		t.Helper()
		for _, r := range res {
			if !regexp.MustCompile(r).MatchString(s) {
				t.Errorf("tshark, %s: no %s", what, r)
			}
		}
	}
	common := func(bsid string, pref, color int) []string {
		return []string{
			`Subsequent address family identifier \(SAFI\): SR Policy \(73\)`,
			fmt.Sprintf(`Policy color: %08x\b`, color),
			`Type code: SR TE Policy Type \(15\)`,
			fmt.Sprintf(`Preference: %08x\b`, pref),
			`Binding SID: ` + hexAddr(bsid) + `\b`, // all 16 bytes
			`Type code: Segment List \(128\)`,
			`Type: Weight sub-TLV \(9\)\s+Length: 6\s+Data: 000000000001`,
			// Segment type B (13): flags, reserved, SID; first hop first.
			`(?s)Type: Unknown \(13\)\s+Length: 18\s+Data: 0000` + hexAddr(segs[0]) + `.*Type: Unknown \(13\)\s+Length: 18\s+Data: 0000` + hexAddr(segs[1]),
			`Route Target: 192\.0\.2\.2:0 \[Transitive IPv4-Address-Specific\]`,
			`Large communities: 65001:8754:42\b`,
		}
	}
	// As captured.
	asIs := tshark(file, "bgp.type == 2 && bgp.sr_policy_nlri_length")
	check(asIs, "IPv6 policy as captured", `Address family identifier \(AFI\): IPv6 \(2\)`, `NLRI length: 192`, `Distinguisher: 00000001`, `Policy color: 00000064`)
	if strings.Contains(asIs, "Trying to fetch an IPv6 address with length 4") {
		t.Logf("%s: known bug, the IPv6 SR Policy NLRI endpoint is read as 4 bytes", tsharkVersion())
	} else {
		check(asIs, "IPv6 policy as captured", `Endpoint: `+regexp.QuoteMeta(endpoint)+`\b`)
	}
	// One message per frame, MP_REACH_NLRI last.
	split := splitUpdates(t, file)
	opts := []string{"-o", "tcp.desegment_tcp_streams:FALSE", "-o", "tcp.analyze_sequence_numbers:FALSE"}
	v4 := tshark(split, "bgp.type == 2 && bgp.sr_policy_nlri_endpoint_ipv4", opts...)
	check(v4, "IPv4 policy", append(common(bsid4, 150, 200),
		`Address family identifier \(AFI\): IPv4 \(1\)`, `NLRI length: 96`, `Distinguisher: 00000002`, `Endpoint: `+regexp.QuoteMeta(endpoint4)+`\b`)...)
	// (tshark 4.0 knows no next hop for SAFI 73: "Unknown Next Hop length
	// (16 bytes)" is an expert note, not a dissection failure.)
	if strings.Contains(v4, "[Malformed Packet") {
		t.Errorf("tshark: the IPv4 policy's UPDATE is malformed")
	}
	v6 := tshark(split, "bgp.type == 2 && bgp.sr_policy_nlri_length == 192", opts...)
	check(v6, "IPv6 policy", append(common(bsid, 200, 100), `Address family identifier \(AFI\): IPv6 \(2\)`, `Distinguisher: 00000001`)...)
	if t.Failed() {
		t.Logf("tshark -V, IPv4 policy:\n%s", tail(v4, 8000))
		t.Fatalf("tshark -V, IPv6 policy:\n%s", tail(v6, 8000))
	}
	t.Logf("tshark decodes both UPDATEs: NLRI, preference, the 16-byte BSID, weight, type-B segments in order, Route Target, key ID Large Community")
}

func tsharkVersion() string {
	out, _ := exec.Command("tshark", "--version").Output()
	l, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(l)
}

// splitUpdates writes a copy of a capture of BGP over IPv6 on Ethernet
// with one BGP message per frame (sequence numbers and IPv6 payload
// lengths adjusted) and, in every UPDATE, the MP_REACH_NLRI attribute moved
// after the others (same bytes, same lengths).
func splitUpdates(t *testing.T, file string) string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := capfile.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	hdr := make([]byte, 24)
	binary.LittleEndian.PutUint32(hdr[0:], 0xa1b23c4d) // nanosecond pcap
	binary.LittleEndian.PutUint16(hdr[4:], 2)
	binary.LittleEndian.PutUint16(hdr[6:], 4)
	binary.LittleEndian.PutUint32(hdr[16:], 262144)
	binary.LittleEndian.PutUint32(hdr[20:], 1) // Ethernet
	out.Write(hdr)
	write := func(ts time.Time, frame []byte) {
		rec := make([]byte, 16)
		binary.LittleEndian.PutUint32(rec[0:], uint32(ts.Unix()))
		binary.LittleEndian.PutUint32(rec[4:], uint32(ts.Nanosecond()))
		binary.LittleEndian.PutUint32(rec[8:], uint32(len(frame)))
		binary.LittleEndian.PutUint32(rec[12:], uint32(len(frame)))
		out.Write(rec)
		out.Write(frame)
	}
	moved := 0
	for {
		p, err := r.Next()
		if err != nil {
			break
		}
		if p.LinkType != 1 {
			t.Fatalf("splitUpdates: link type %d, want Ethernet", p.LinkType)
		}
		data := slices.Clone(p.Data)
		var tcp frame.TCP
		if frame.DecodeTCP(p.LinkType, data, &tcp) != nil || !tcp.Src.Is6() || len(tcp.Segment) < 20 {
			continue
		}
		segStart := bytes.Index(data, tcp.Segment[:20])
		hl := int(tcp.Segment[12]>>4) * 4
		if segStart < 14+40 || hl < 20 || hl > len(tcp.Segment) {
			continue
		}
		head := data[:segStart+hl]
		payload := tcp.Segment[hl:]
		seq := binary.BigEndian.Uint32(tcp.Segment[4:8])
		for off := 0; len(payload)-off >= 19; {
			ml := int(binary.BigEndian.Uint16(payload[off+16 : off+18]))
			if ml < 19 || off+ml > len(payload) {
				break
			}
			msg := slices.Clone(payload[off : off+ml])
			if msg[18] == 2 && reorderUpdate(msg[19:]) {
				moved++
			}
			fr := append(slices.Clone(head), msg...)
			binary.BigEndian.PutUint32(fr[segStart+4:], seq+uint32(off))
			binary.BigEndian.PutUint16(fr[14+4:], uint16(len(fr)-14-40))
			write(p.Time, fr)
			off += ml
		}
	}
	if moved == 0 {
		t.Fatal("no UPDATE with MP_REACH_NLRI in the capture")
	}
	name := filepath.Join(t.TempDir(), "split.pcap")
	if err := os.WriteFile(name, out.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return name
}

// reorderUpdate moves MP_REACH_NLRI to the end of an UPDATE body's path
// attributes, in place.
func reorderUpdate(b []byte) bool {
	if len(b) < 4 {
		return false
	}
	wl := int(binary.BigEndian.Uint16(b[0:2]))
	if 2+wl+2 > len(b) {
		return false
	}
	al := int(binary.BigEndian.Uint16(b[2+wl:]))
	attrs := b[4+wl:]
	if al > len(attrs) {
		return false
	}
	attrs = attrs[:al]
	var mp, rest []byte
	for a := attrs; len(a) >= 3; {
		l, off := int(a[2]), 3
		if a[0]&0x10 != 0 {
			if len(a) < 4 {
				return false
			}
			l, off = int(binary.BigEndian.Uint16(a[2:4])), 4
		}
		if off+l > len(a) {
			return false
		}
		if a[1] == 14 {
			mp = append(mp, a[:off+l]...)
		} else {
			rest = append(rest, a[:off+l]...)
		}
		a = a[off+l:]
	}
	if mp == nil || len(mp)+len(rest) != len(attrs) {
		return false
	}
	copy(attrs, append(rest, mp...))
	return true
}

// TestSRv6NoCapNetAdmin: authbgpd without CAP_NET_ADMIN (dropped from its
// bounding set) keeps running; /status says, per key, that programming it
// needs CAP_NET_ADMIN; the log says why the headend cannot install
// anything (its received policies would carry that reason in /status);
// the policy is still advertised; no secret shows.
func TestSRv6NoCapNetAdmin(t *testing.T) {
	testenv.RequireRoot(t)
	requireSRv6HMACKernel(t, "")
	setpriv := testenv.RequireBinary(t, "setpriv")
	bin := authbgpdBinary(t, "")
	tp := netns.New(t, "srv6nc")
	ns := tp.Add("a")
	const secret = "e2e-srv6-nocap-Okapi-7"
	dir := t.TempDir()
	conf := filepath.Join(dir, "authbgpd.toml")
	os.WriteFile(filepath.Join(dir, "k"), []byte(secret), 0o600)
	os.WriteFile(conf, []byte(abConf{ListenPort: "-1", Extra: srv6HMACKey(7, "k") + `
[[srv6.policies]]
name = "p"
color = 1
endpoint = "2001:db8::9"
segments = ["fc00::1"]
hmac-key-id = 7

[srv6.headend]
enabled = true
source = "2001:db8::1"
`}.String()), 0o600)
	d := startDaemon(t, tp, ns, "authbgpd", dir, nil, setpriv, "--bounding-set=-net_admin", "--", bin, "-f", conf, "--log-level", "debug")
	a := &Authbgpd{GoBGP: &GoBGP{daemon: d}, Config: conf, t: t}
	a.waitHealthy(t)
	s := a.Status().SRv6
	b, _ := json.Marshal(s)
	t.Logf("/status srv6: %s", b)
	if len(s.HMACKeys) != 1 || s.HMACKeys[0].Installed || !strings.Contains(s.HMACKeys[0].Error, "CAP_NET_ADMIN") {
		t.Fatalf("hmac_keys %+v", s.HMACKeys)
	}
	if len(s.Policies) != 1 || !s.Policies[0].Advertised {
		t.Fatalf("policies %+v", s.Policies)
	}
	if out := netns.Run(t, "ip", "-n", ns, "sr", "hmac", "show"); strings.Contains(out, "hmac 7") {
		t.Fatal("the key got into the kernel")
	}
	if strings.Contains(a.Log()+string(b), secret) {
		t.Fatal("a secret shows")
	}
	if !strings.Contains(a.Log(), "CAP_NET_ADMIN") {
		t.Fatal("the log does not say CAP_NET_ADMIN is needed")
	}
	if l := a.Log(); !strings.Contains(l, "headend cannot install policies") || !strings.Contains(l, "tunnel source") {
		t.Fatal("the log does not say why the headend cannot install policies")
	}
}
