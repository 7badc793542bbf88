//go:build linux

package e2e

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/testenv"
)

// TestWatchSecretSwap: a peer's password-file points into a Secret volume
// laid out as the kubelet does (dir/..2026_a/pw, dir/..data -> ..2026_a,
// dir/pw -> ..data/pw). The kubelet's atomic update — a new timestamped
// directory, a temporary symlink to it renamed onto ..data — is followed
// with no signal sent:
//
//   - watch (the default): the new key is installed by the reload the
//     change triggers (one reload, no double), and the session with FRR,
//     re-keyed to it, comes back on the new key; then a swap to an empty
//     file (as a half-written one) is refused with its reason logged, and
//     the old key stays: FRR's cleared session comes back on it, an
//     unsigned SYN is still dropped;
//   - watch=false: the same swap is not picked up (no reload, FRR on the
//     new key gets no session) until SIGHUP.
//
// Neither key is ever in the daemon's log.
func TestWatchSecretSwap(t *testing.T) {
	testenv.RequireRoot(t)
	testenv.RequireBinary(t, "gobgp")
	authbgpdBinary(t, "") // build once, before the parallel subtests start
	t.Run("watch", func(t *testing.T) {
		t.Parallel()
		testWatchSwap(t, "wat1", true)
	})
	t.Run("watch=false", func(t *testing.T) {
		t.Parallel()
		testWatchSwap(t, "wat0", false)
	})
}

// noWatch is the [config] table of a daemon that reloads only when told
// (SIGHUP, `authbgpd reload`), not when its files change.
const noWatch = "\n[config]\nwatch = false\n"

// k8sSecretDir lays out dir as a Secret volume holding the key "pw".
func k8sSecretDir(t *testing.T, dir, stamp, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, stamp), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, stamp, "pw"), content)
	for link, target := range map[string]string{"..data": stamp, "pw": "..data/pw"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
}

// kubeletSwap updates dir the way the kubelet does: a new timestamped
// directory with the new content, a temporary symlink to it renamed
// atomically onto ..data, then the old directory removed.
func kubeletSwap(t *testing.T, dir, stamp, content string) {
	t.Helper()
	old, err := os.Readlink(filepath.Join(dir, "..data"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, stamp), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, stamp, "pw"), content)
	if err := os.Symlink(stamp, filepath.Join(dir, "..data_tmp")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "..data_tmp"), filepath.Join(dir, "..data")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, old)); err != nil {
		t.Fatal(err)
	}
}

func reloads(a *Authbgpd, result string) float64 {
	body, _ := a.HTTPGet("/metrics")
	v, _ := metricValue(body, "authbgpd_config_reloads_total", `result="`+result+`"`)
	return v
}

func testWatchSwap(t *testing.T, prefix string, watch bool) {
	pair := newPair(t, prefix, false)
	tp, nsA, nsB := pair.Topology, pair.A, pair.B
	a4, b4 := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	k1, k2 := newSecret(prefix+"k1"), newSecret(prefix+"k2")
	secrets := filepath.Join(t.TempDir(), "bgp-secret")
	k8sSecretDir(t, secrets, "..2026_12_02_10_00_00.1", k1+"\n")
	extra := ""
	if !watch {
		extra = noWatch
	}
	cfg := abConfig(extra, abPeer{addr: b4.String(), asn: 65002, src: "password-file", ref: filepath.Join(secrets, "pw")})
	a := StartAuthbgpd(t, tp, nsA, cfg, AuthbgpdOptions{})
	announce(t, a, "198.51.100.0/24")
	f := StartFRR(t, tp, nsB, PeerConfig{ASN: 65002, RouterID: b4,
		Neighbors: []Neighbor{{a4, 65001, k1}},
		Networks:  []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24")}})
	waitSessions(t, 60*time.Second, 1, sessionCheck{a, b4}, sessionCheck{f, a4})
	s0 := edgMustFRR(t, f, a4)
	t.Logf("established on K1: frr %s", s0)
	if watch && !strings.Contains(a.Log(), "[config] watch: the config and secret files are watched") {
		t.Errorf("the log does not say the files are watched")
	}

	// The kubelet's update; then FRR moves to K2 as well.
	kubeletSwap(t, secrets, "..2026_12_02_10_05_00.2", k2+"\n")
	swapped := time.Now()
	if watch {
		waitLog(t, a, "config reloaded", 10*time.Second)
		t.Logf("reloaded %v after the swap", time.Since(swapped).Round(time.Millisecond))
	} else {
		time.Sleep(5 * time.Second) // debounce (1 s) and a reload, many times over
	}
	if _, err := f.Vtysh(context.Background(), "configure terminal", "router bgp 65002", "neighbor "+a4.String()+" password "+k2); err != nil {
		t.Fatalf("frr: change the password: %v", err)
	}
	frrChange := time.Now()
	newSession := func(after int) error {
		s, err := edgFRRSession(f, a4)
		if err != nil {
			return err
		}
		if s.state != Established || s.established <= after {
			return fmt.Errorf("frr %s", s)
		}
		return nil
	}

	if !watch {
		// Not picked up: FRR on K2 gets no session, nothing reloaded.
		if err := poll(15*time.Second, func() error { return newSession(s0.established) }); err == nil {
			t.Fatalf("with watch = false, a session on K2 came up without a reload: the swap was picked up")
		}
		if n := reloads(a, "ok") + reloads(a, "error"); n != 0 || strings.Contains(a.Log(), "config reloaded") {
			t.Fatalf("with watch = false: %v reloads after the swap, want none", n)
		}
		// SIGHUP still reloads (the config itself is unchanged).
		a.Reload(cfg)
		waitFor(t, 60*time.Second, "a session on K2 after SIGHUP", func() error { return newSession(s0.established) })
		assertNoSecrets(t, a, k1, k2)
		a.StopClean()
		return
	}

	waitFor(t, 60*time.Second, "a new session on K2 after the swap, no signal sent", func() error { return newSession(s0.established) })
	t.Logf("a new session on K2 %v after FRR's change", time.Since(frrChange).Round(time.Millisecond))
	requireAuth(t, mustPeer(t, a, b4.String()), "password-file", true)
	time.Sleep(3 * time.Second) // any second reload would have come by now
	if ok, bad := reloads(a, "ok"), reloads(a, "error"); ok != 1 || bad != 0 {
		t.Errorf("reloads after one swap: %v ok, %v error; want exactly 1 ok", ok, bad)
	}
	s1 := edgMustFRR(t, f, a4)

	// A swap to an empty file (as a half-written one): refused, the reason
	// logged, and K2 stays on the sockets.
	kubeletSwap(t, secrets, "..2026_12_02_10_10_00.3", "")
	waitLog(t, a, "[config] watch: reload refused; the running config and its keys stay", 10*time.Second)
	var refusal string
	for _, l := range strings.Split(a.Log(), "\n") {
		if strings.Contains(l, "[config] watch: reload refused") {
			refusal = l
		}
	}
	if !strings.Contains(refusal, "password-file: secret is empty") {
		t.Errorf("the refusal gives no reason (want \"password-file: secret is empty\"): %s", refusal)
	}
	time.Sleep(3 * time.Second) // no retries of an unchanged refused file
	if ok, bad := reloads(a, "ok"), reloads(a, "error"); ok != 1 || bad != 1 {
		t.Errorf("reloads after the empty swap: %v ok, %v error; want 1 and 1", ok, bad)
	}
	requireAuth(t, mustPeer(t, a, b4.String()), "password-file", true)
	requireDropped(t, "unsigned connect from the peer after the refused swap", dialTCP(nsB, b4, netip.AddrPortFrom(a4, 179), ""))
	if _, err := f.Vtysh(context.Background(), "clear bgp "+a4.String()); err != nil {
		t.Fatalf("frr: clear bgp: %v", err)
	}
	waitFor(t, 60*time.Second, "FRR's cleared session back on K2 after the refused swap", func() error { return newSession(s1.established) })
	assertNoSecrets(t, a, k1, k2)
	a.StopClean()
}
