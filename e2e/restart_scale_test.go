//go:build linux

package e2e

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
)

// TestGracefulRestartScale measures, at BENCH_RESTART_PEERS keyed peers
// (each its own TCP-MD5 key and address, all one FRR bgpd as graceful
// restart helper), the time from the start of the new process after a
// graceful stop (SIGTERM, graceful-restart = true) until every session is
// Established again (issue 45's "time until every session is back"). It
// runs only with BENCH_RESTART_PEERS set, never in the test command:
//
//	BENCH_RESTART_PEERS=100 go test ./e2e -run TestGracefulRestartScale -count=1 -v
func TestGracefulRestartScale(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("BENCH_RESTART_PEERS"))
	if n <= 0 {
		t.Skip("BENCH_RESTART_PEERS=N measures a graceful restart at N keyed peers")
	}
	if n > 250 {
		t.Fatalf("BENCH_RESTART_PEERS=%d: at most 250 (IPv4 documentation space)", n)
	}
	testenv.RequireRoot(t)
	testenv.RequireBinary(t, "bgpd", "/usr/lib/frr")
	pair := netns.NewPair(t, "grsc", netns.End{NS: "a", If: "eth0"}, netns.End{NS: "f", If: "eth0"})
	tp, nsA, nsF := pair.Topology, pair.A, pair.B
	recvAddr := func(i int) netip.Addr { return netip.AddrFrom4([4]byte{203, 0, 113, byte(1 + i)}) }
	peerAddr := func(i int) netip.Addr { return netip.AddrFrom4([4]byte{192, 0, 2, byte(1 + i)}) }
	var ba, bf strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&ba, "addr add %s/32 dev eth0\n", recvAddr(i))
		fmt.Fprintf(&bf, "addr add %s/32 dev eth0\n", peerAddr(i))
	}
	ba.WriteString("route add 192.0.2.0/24 dev eth0\n")
	bf.WriteString("route add 203.0.113.0/24 dev eth0\n")
	for _, x := range []struct{ ns, batch string }{{nsA, ba.String()}, {nsF, bf.String()}} {
		f := filepath.Join(t.TempDir(), "ip.batch")
		if err := os.WriteFile(f, []byte(x.batch), 0o600); err != nil {
			t.Fatal(err)
		}
		netns.Run(t, "ip", "-n", x.ns, "-batch", f)
	}
	key := func(i int) string { return fmt.Sprintf("gr-scale-key-%d", i) }
	var fc strings.Builder
	fc.WriteString("frr defaults traditional\nhostname gr-peers\nlog stdout informational\n!\n")
	fc.WriteString("router bgp 65002\n bgp router-id 192.0.2.250\n no bgp default ipv4-unicast\n no bgp ebgp-requires-policy\n bgp graceful-restart\n")
	for i := 0; i < n; i++ {
		r := recvAddr(i)
		fmt.Fprintf(&fc, " neighbor %s remote-as 65001\n neighbor %s update-source %s\n neighbor %s timers connect %d\n neighbor %s password %s\n",
			r, r, peerAddr(i), r, connectRetry, r, key(i))
	}
	fc.WriteString(" address-family ipv4 unicast\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&fc, "  neighbor %s activate\n", recvAddr(i))
	}
	fc.WriteString(" exit-address-family\n!\n")

	c := abConf{RouterID: "192.0.2.1"}
	files := map[string]string{}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("k%d", i)
		files[name] = key(i) + "\n"
		c.Peers = append(c.Peers, abPeer{addr: peerAddr(i).String(), asn: 65002, local: recvAddr(i).String(), src: "password-file", ref: name})
	}
	conf := strings.Replace(c.String(), "\n[api]", "graceful-restart = true\ngraceful-restart-time = 120\n\n[api]", 1)
	authbgpdBinary(t, "") // built before the clock starts
	up := func(a *Authbgpd) int {
		s, err := a.TryStatus()
		if err != nil {
			return 0
		}
		k := 0
		for _, p := range s.Peers {
			if p.State == Established {
				k++
			}
		}
		return k
	}
	waitAll := func(a *Authbgpd, what string) time.Time {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		last := 0
		if !netns.WaitFor(ctx, func() bool { last = up(a); return last >= n }) {
			t.Fatalf("%s: %d of %d sessions Established after 3 min", what, last, n)
		}
		return time.Now()
	}
	a := StartAuthbgpd(t, tp, nsA, conf, AuthbgpdOptions{Files: files, LogLevel: "info"})
	startFRRConf(t, tp, nsF, fc.String())
	waitAll(a, "first start")
	time.Sleep(2 * time.Second)
	a.StopClean()
	t0 := time.Now()
	a = StartAuthbgpd(t, tp, nsA, conf, AuthbgpdOptions{Files: files, LogLevel: "info"})
	done := waitAll(a, "after the graceful restart")
	t.Logf("RESULT graceful restart (SIGTERM, then start), %d TCP-MD5 peers: start of the new process -> every session Established: %.2f s", n, done.Sub(t0).Seconds())
}
