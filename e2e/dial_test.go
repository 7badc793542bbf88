package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/status"
)

// frrPassive is FRR's config for cfg with every neighbor passive: FRR
// never dials, so a session exists only if authbgpd dials it.
func frrPassive(cfg PeerConfig) string {
	conf := frrConfig(cfg)
	for _, n := range cfg.Neighbors {
		conf = strings.Replace(conf, fmt.Sprintf(" neighbor %s remote-as %d\n", n.Addr, n.ASN),
			fmt.Sprintf(" neighbor %s remote-as %d\n neighbor %s passive\n", n.Addr, n.ASN, n.Addr), 1)
	}
	return conf
}

// startPassiveFRR starts a passive FRR in pair's b with key for pairA4.
func startPassiveFRR(t *testing.T, pair *netns.Pair, key string) {
	t.Helper()
	f := startBgpd(t, pair.Topology, pair.B, "frr", frrPassive(PeerConfig{ASN: 65002, RouterID: pairB4,
		Neighbors: []Neighbor{{pairA4, 65001, key}}}))
	f.waitVty(t)
}

// ourSegments reads a capture with tcpdump -M key and returns the verdict
// of every segment authbgpd (pairA4) sent, and how many of them are SYNs.
func ourSegments(t *testing.T, file, key string) (verdicts map[md5auth.Verdict]int, syns int) {
	t.Helper()
	verdicts = map[md5auth.Verdict]int{}
	td := tcpdumpVerdicts(t, file, key)
	for _, s := range readSegments(t, file) {
		if s.src.Addr() != pairA4 {
			continue
		}
		p := td[s.num]
		if p == nil {
			t.Fatalf("tcpdump printed nothing for packet %d", s.num)
		}
		verdicts[p.verdict]++
		if s.syn {
			syns++
		}
	}
	return verdicts, syns
}

// TestDialSigned: authbgpd dials a passive FRR with TCP-MD5. GoBGP holds no
// password (the stock CLI shows none), so the SYN can only be signed by
// authbgpd's dial hook; tcpdump -M (an independent RFC 2385 check) finds
// every segment authbgpd sent, its SYN included, signed with the key.
func TestDialSigned(t *testing.T) {
	testenv.RequireRoot(t)
	testenv.RequireBinary(t, "tcpdump")
	t.Parallel()
	pair := newPair(t, "dials", false)
	key := newSecret("dials")
	c := startTcpdump(t, pair.Topology, pair.A, filepath.Join(t.TempDir(), "dial.pcap"), "-i", "eth0", "--immediate-mode")
	startPassiveFRR(t, pair, key)
	a := StartAuthbgpd(t, pair.Topology, pair.A, abConfig("", abPeer{addr: pairB4.String(), asn: 65002, src: "password-file", ref: "b.key"}),
		AuthbgpdOptions{Files: map[string]string{"b.key": key + "\n"}})
	t0 := time.Now()
	waitPeer(t, a, pairB4.String(), 40*time.Second, "established with the passive FRR", func(p *status.Peer) bool {
		return p.State == Established
	})
	t.Logf("authbgpd dialed the passive FRR: established %v after start", time.Since(t0).Round(time.Millisecond))
	out, err := a.CLI(context.Background(), "neighbor", pairB4.String(), "-j")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "auth-password") || strings.Contains(out, key) {
		t.Errorf("gobgp neighbor -j shows a password: GoBGP must hold none:\n%s", tail(out, 1000))
	}
	if p := a.Peer(pairB4.String()); p == nil || p.Auth.DialError != "" || !p.Auth.Installed {
		t.Errorf("/status %+v", p)
	}
	time.Sleep(time.Second) // a few KEEPALIVEs each way
	c.stop(t)
	v, syns := ourSegments(t, c.file, key)
	t.Logf("authbgpd's segments per tcpdump -M: %v (%d SYNs)", v, syns)
	if syns == 0 || v[md5auth.Valid] == 0 || v[md5auth.Unsigned] != 0 || v[md5auth.Invalid] != 0 || len(v) != 1 {
		t.Fatalf("authbgpd's segments per tcpdump -M: %v with %d SYNs: want all valid, SYNs included", v, syns)
	}
	if strings.Contains(a.Log(), key) {
		t.Fatal("the key is in authbgpd's log")
	}
}

// TestDialKeyRefusedNoSYN: the kernel itself refuses the key of a dial (the
// namespace's option memory is too small for one more TCP-MD5 key, as in
// tcpsocktest; the listener's key went on before): authbgpd aborts the dial
// before connect, so no SYN leaves at all, and /status says why. With the
// memory back, the next dial is keyed and the session comes up.
func TestDialKeyRefusedNoSYN(t *testing.T) {
	testenv.RequireRoot(t)
	testenv.RequireBinary(t, "tcpdump")
	t.Parallel()
	pair := newPair(t, "dialr", false)
	key := newSecret("dialr")
	startPassiveFRR(t, pair, key)
	peer := abPeer{addr: pairB4.String(), asn: 65002, src: "password-file", ref: "b.key", passive: true}
	a := StartAuthbgpd(t, pair.Topology, pair.A, abConfig("", peer), AuthbgpdOptions{Files: map[string]string{"b.key": key + "\n"}})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("authbgpd's log:\n%s", tail(a.Log(), 6000))
		}
	})
	waitPeer(t, a, pairB4.String(), 10*time.Second, "the listener key installed", func(p *status.Peer) bool { return p.Auth.Installed })

	// optmem sets the namespace's net.core.optmem_max from a thread in it
	// (no process start: it must be quick, see below).
	optmem := func(v string) {
		t.Helper()
		if err := netns.Do(pair.A, func() error { return os.WriteFile("/proc/sys/net/core/optmem_max", []byte(v), 0) }); err != nil {
			t.Fatal(err)
		}
	}
	old := strings.TrimSpace(netns.Run(t, "ip", "netns", "exec", pair.A, "sysctl", "-n", "net.core.optmem_max"))
	defer optmem(old)
	c := startTcpdump(t, pair.Topology, pair.A, filepath.Join(t.TempDir(), "refused.pcap"), "-i", "eth0", "--immediate-mode")
	// The reload re-adds the neighbor dialing (its pass is done when
	// authbgpd reload returns) and runs the TCP-MD5 preflight, which needs
	// option memory; GoBGP's first dial comes at least 1 s after the add.
	// So the memory is taken away right after the reload returns: well
	// within that second, or the attempt does not count.
	peer.passive = false
	if err := os.WriteFile(a.Config, []byte(abConfig("", peer)), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := abCLI(t, pair.A, "reload", "-f", a.Config)
	returned := time.Now()
	optmem("64")
	if gap := time.Since(returned); gap > 500*time.Millisecond {
		t.Fatalf("option memory lowered %v after the reload returned: too late to be sure GoBGP had not dialed yet (it waits >= 1 s)", gap)
	}
	if code != 0 {
		t.Fatalf("reload: exit %d\n%s%s", code, out, errs)
	}
	p := waitPeer(t, a, pairB4.String(), 30*time.Second, "a dial refused", func(p *status.Peer) bool {
		return strings.Contains(p.Auth.DialError, "cannot allocate memory")
	})
	t.Logf("/status auth.dial_error: %s", p.Auth.DialError)
	if strings.Contains(p.Auth.DialError, key) {
		t.Fatal("the key is in /status")
	}
	time.Sleep(2 * time.Second)
	if p := a.Peer(pairB4.String()); p.State == Established {
		t.Fatalf("established while its dial key cannot be set: %+v", p)
	}
	c.stop(t)
	for _, s := range readSegments(t, c.file) {
		if s.src.Addr() == pairA4 {
			t.Fatalf("authbgpd sent a segment while its dial key was refused (packet %d, %v -> %v, SYN %v)", s.num, s.src, s.dst, s.syn)
		}
	}

	optmem(old)
	c2 := startTcpdump(t, pair.Topology, pair.A, filepath.Join(t.TempDir(), "keyed.pcap"), "-i", "eth0", "--immediate-mode")
	waitPeer(t, a, pairB4.String(), 40*time.Second, "established once the dial key can be set", func(p *status.Peer) bool {
		return p.State == Established && p.Auth.DialError == ""
	})
	c2.stop(t)
	v, syns := ourSegments(t, c2.file, key)
	if syns == 0 || v[md5auth.Unsigned] != 0 || v[md5auth.Invalid] != 0 {
		t.Fatalf("after the memory came back, authbgpd's segments per tcpdump -M: %v with %d SYNs: want every one signed", v, syns)
	}
}
