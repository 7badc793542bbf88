package vmtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/status"
)

// TestBGPTCPAOFRR: a second, independent TCP-AO peer: FRR's bgpd, whose
// TCP-MD5 passwords testdata/ao_preload.c (LD_PRELOAD, built here with gcc)
// turns into TCP-AO keys. HMAC-SHA-1-96 over IPv4 and AES-128-CMAC-96 over
// IPv6 come up with FRR dialing, FRR says so, and verify-pcap finds every
// segment of the capture valid.
func TestBGPTCPAOFRR(t *testing.T) {
	requireVM(t)
	bgpd := testenv.RequireBinary(t, "bgpd", "/usr/lib/frr")
	gcc := testenv.RequireBinary(t, "gcc")
	dir := t.TempDir()
	shim := filepath.Join(dir, "ao_preload.so")
	start := time.Now()
	if out, err := exec.Command(gcc, "-Wall", "-Werror", "-shared", "-fPIC", "-O2", "-o", shim,
		filepath.Join(repoRoot(t), "e2e", "vmtest", "testdata", "ao_preload.c"), "-ldl").CombinedOutput(); err != nil {
		t.Fatalf("gcc ao_preload.c: %v\n%s", err, out)
	}
	t.Logf("ao_preload.so built in %v", time.Since(start).Round(time.Millisecond))

	tp := netns.NewPair(t, "aofrr",
		netns.End{NS: "r", If: "eth0", Addrs: []string{rtr4.String() + "/24", rtr6.String() + "/64"}},
		netns.End{NS: "p", If: "eth0", Addrs: []string{peer4.String() + "/24", peer6.String() + "/64"}})
	f4 := mkt{id: 1, sendID: 3, recvID: 13, alg: "hmac(sha1)", secret: "frr-tcp-ao-sha1"}
	f6 := mkt{id: 1, sendID: 4, recvID: 14, alg: "cmac(aes128)", secret: "frr-tcp-ao-cmac-key"}
	var b strings.Builder
	fmt.Fprintf(&b, "[global]\nasn = %d\nrouter-id = %q\n", asRouter, rtr4) // the default listeners, 0.0.0.0 and ::
	fmt.Fprintf(&b, "\n[api]\ngrpc = \"\"\nhttp = %q\n", routerHTTP)
	b.WriteString(keychainTOML("f4", f4))
	b.WriteString(keychainTOML("f6", f6))
	fmt.Fprintf(&b, "\n[[peers]]\naddress = %q\nasn = %d\nkeychain = \"f4\"\nhold-time = %d\n", peer4, asPeer, holdTime)
	fmt.Fprintf(&b, "\n[[peers]]\naddress = %q\nasn = %d\nkeychain = \"f6\"\nhold-time = %d\n", peer6, asPeer, holdTime)
	r := startRouter(t, tp.Topology, tp.A, b.String())
	capt := startCapture(t, tp.Topology, tp.A, "eth0", t.TempDir(), "tcp port 179")

	// FRR's password is the far end of the key: it sends with our recv-id.
	pw := func(k mkt) string {
		alg := "sha1"
		if k.alg == "cmac(aes128)" {
			alg = "cmac"
		}
		return fmt.Sprintf("ao:%d:%d:%s:%s", k.recvID, k.sendID, alg, k.secret)
	}
	var c strings.Builder
	fmt.Fprintf(&c, "frr defaults traditional\nhostname frr\nlog stdout informational\n!\n")
	fmt.Fprintf(&c, "router bgp %d\n bgp router-id %s\n bgp log-neighbor-changes\n", asPeer, peer4)
	c.WriteString(" no bgp default ipv4-unicast\n no bgp ebgp-requires-policy\n no bgp network import-check\n")
	for _, n := range []struct {
		addr, pw string
	}{{rtr4.String(), pw(f4)}, {rtr6.String(), pw(f6)}} {
		fmt.Fprintf(&c, " neighbor %s remote-as %d\n neighbor %s timers 5 15\n neighbor %s timers connect 5\n neighbor %s password %s\n",
			n.addr, asRouter, n.addr, n.addr, n.addr, n.pw)
	}
	fmt.Fprintf(&c, " address-family ipv4 unicast\n  neighbor %s activate\n  network 198.51.100.0/24\n exit-address-family\n", rtr4)
	fmt.Fprintf(&c, " address-family ipv6 unicast\n  neighbor %s activate\n  network 2001:db8:100::/48\n exit-address-family\n!\n", rtr6)
	conf := filepath.Join(dir, "bgpd.conf")
	if err := os.WriteFile(conf, []byte(c.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	// -Z: no zebra; -n: no kernel routes; -S: stay root; -P 0: no vty port.
	_, flog := startProc(t, tp.Topology, tp.B, dir, "bgpd", []string{"LD_PRELOAD=" + shim}, bgpd,
		"-Z", "-n", "-S", "-P", "0", "-f", conf, "-i", filepath.Join(dir, "bgpd.pid"), "--vty_socket", dir, "--log", "stdout")

	for _, p := range []string{peer4.String(), peer6.String()} {
		st := r.waitPeer(t, p, 60*time.Second, "established over TCP-AO", func(p *status.Peer) bool {
			return established(p) && len(p.Families) == 1 && p.Families[0].Accepted == 1
		})
		t.Logf("%s up after %v: %s", p, time.Since(start).Round(time.Millisecond), peerString(st))
	}
	log, _ := os.ReadFile(flog)
	for _, l := range linesWith(string(log), "ao_preload") {
		t.Log(l)
	}
	for _, n := range []string{rtr4.String(), rtr6.String()} {
		// %ADJCHANGE: neighbor 192.0.2.1(Unknown) in vrf default Up
		if up := linesWith(string(log), "neighbor "+n+"("); len(linesWith(strings.Join(up, "\n"), " Up")) == 0 {
			t.Errorf("FRR did not log its session with %s up:\n%s", n, strings.Join(linesWith(string(log), "ADJCHANGE"), "\n"))
		}
	}
	time.Sleep(time.Second)
	capt.stop()
	out, err := exec.Command(r.bin, "verify-pcap", "-f", r.conf, "--fail-on", "any", capt.file).CombinedOutput()
	t.Logf("authbgpd verify-pcap --fail-on any:\n%s", out)
	if err != nil {
		t.Errorf("verify-pcap: %v", err)
	}
	segs := segments(t, capt.file)
	unsigned := 0
	for _, s := range segs {
		if s.ao == nil {
			unsigned++
		}
	}
	if len(segs) == 0 || unsigned != 0 {
		t.Errorf("%d of %d BGP segments without TCP-AO", unsigned, len(segs))
	}
}
