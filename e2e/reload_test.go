//go:build linux

package e2e

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/status"
)

// abCLI runs the authbgpd binary with args in namespace ns and returns its
// exit code and output.
func abCLI(t testing.TB, ns string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	code, stderr, stdout, _ = runBinary(t, "ip", "", 90*time.Second, append([]string{"netns", "exec", ns, authbgpdBinary(t, "")}, args...)...)
	return code, stdout, stderr
}

// TestReloadAimed: two authbgpd in two namespaces, both with [api] http on
// 127.0.0.1:9179 (each its own loopback). `authbgpd reload` run in A's
// namespace reloads A only; a refused reload names FILE:LINE and the key;
// `check --diff` previews an edit (re-key without the secret, a timer
// change that resets, a refused key) without applying it.
func TestReloadAimed(t *testing.T) {
	testenv.RequireRoot(t)
	t.Parallel()
	pair := newPair(t, "rld1", false)
	tp, nsA, nsB := pair.Topology, pair.A, pair.B
	key, newKey := newSecret("rld1"), newSecret("rld1new")
	// Neither daemon watches its files ([config] watch = false): B must not
	// reload when its file changes, and A's reloads are the ones asked for.
	confA := func(extra ...abPeer) string {
		return abConfig(noWatch, append([]abPeer{{addr: "192.0.2.2", asn: 65002, src: "password-file", ref: "b.key"}}, extra...)...)
	}
	confB := func(extra ...abPeer) string {
		return abConf{ASN: 65002, RouterID: "192.0.2.2", Extra: noWatch,
			Peers: append([]abPeer{{addr: "192.0.2.1", asn: 65001, src: "password-file", ref: "a.key"}}, extra...)}.String()
	}
	a := StartAuthbgpd(t, tp, nsA, confA(), AuthbgpdOptions{Files: map[string]string{"b.key": key + "\n"}})
	b := StartAuthbgpd(t, tp, nsB, confB(), AuthbgpdOptions{Files: map[string]string{"a.key": key + "\n"}})
	waitPeer(t, a, "192.0.2.2", 60*time.Second, "A-B session", func(p *status.Peer) bool { return p.State == "established" })

	// Both files gain a peer; only A is told to reload.
	extra := abPeer{addr: "192.0.2.77", asn: 65077}
	write(t, a.Config, confA(extra))
	write(t, b.Config, confB(extra))
	code, out, errs := abCLI(t, nsA, "reload")
	if code != 0 || !strings.Contains(out, a.Config+": reload applied") || !strings.Contains(out, "add       192.0.2.77") {
		t.Fatalf("reload in A: exit %d\n%s%s", code, out, errs)
	}
	if a.Peer("192.0.2.77") == nil {
		t.Fatal("A: 192.0.2.77 not added by the reload")
	}
	if b.Peer("192.0.2.77") != nil {
		t.Fatal("B reloaded too: the reload was not aimed")
	}

	// check --diff: a re-key, a timer change and a refused router-id.
	next := filepath.Join(filepath.Dir(a.Config), "next.toml")
	write(t, filepath.Join(filepath.Dir(a.Config), "b-new.key"), newKey+"\n")
	write(t, next, confA(extra)+"hold-time = 30\n") // on the last peer
	code, out, errs = abCLI(t, nsA, "check", "-f", next, "--diff")
	if code != 0 || !strings.Contains(out, "a reload would be accepted") ||
		!strings.Contains(out, "192.0.2.77: hold-time, keepalive-interval (session reset)") {
		t.Fatalf("check --diff: exit %d\n%s%s", code, out, errs)
	}
	rekey := strings.Replace(confA(extra), `"b.key"`, `"b-new.key"`, 1)
	write(t, next, rekey)
	if code, out, errs = abCLI(t, nsA, "check", next, "--diff", "-f"); code != 2 {
		t.Fatalf("check NEXT --diff -f: exit %d, want 2 (usage)", code)
	}
	code, out, errs = abCLI(t, nsA, "check", "--diff", "-f", next)
	if code != 0 || !strings.Contains(out, "re-key    192.0.2.2: secret (in place, no session reset)") {
		t.Fatalf("check --diff (re-key): exit %d\n%s%s", code, out, errs)
	}
	refused := strings.Replace(rekey, `router-id = "192.0.2.1"`, `router-id = "192.0.2.100"`, 1)
	write(t, next, refused)
	code, out, errs = abCLI(t, nsA, "check", "-f", next, "--diff")
	if code != 1 || !strings.Contains(out, "refused   "+next+":3: global.router-id: 192.0.2.1 -> 192.0.2.100: needs a restart") {
		t.Fatalf("check --diff (refused): exit %d\n%s%s", code, out, errs)
	}
	// A preview outside the config's directory is refused by the daemon.
	outside := filepath.Join(t.TempDir(), "x.toml")
	write(t, outside, rekey)
	write(t, filepath.Join(filepath.Dir(outside), "b-new.key"), newKey+"\n")
	if code, out, errs = abCLI(t, nsA, "check", "-f", outside, "--diff"); code != 1 || !strings.Contains(out, "only files in the directory") {
		t.Fatalf("check --diff outside: exit %d\n%s%s", code, out, errs)
	}
	// Nothing of that was applied: A still runs the old key, and a real
	// refused reload names the key and keeps the config.
	if p := a.Peer("192.0.2.2"); p == nil || p.State != "established" {
		t.Fatalf("A-B after previews: %s", peerString(p))
	}
	write(t, a.Config, refused)
	code, out, errs = abCLI(t, nsA, "reload", "-f", a.Config)
	if code != 1 || !strings.Contains(out, "reload refused; the running config stays") || !strings.Contains(out, a.Config+":3: global.router-id") {
		t.Fatalf("refused reload: exit %d\n%s%s", code, out, errs)
	}
	if st := a.Status(); st.RouterID != "192.0.2.1" {
		t.Fatalf("router-id %s after a refused reload", st.RouterID)
	}
	// The log names the key and its line too (the SIGHUP path says the same).
	if want := a.Config + ":3: global.router-id: 192.0.2.1 -> 192.0.2.100"; !strings.Contains(a.Log(), want) {
		t.Errorf("the log of the refused reload lacks %q", want)
	}
	for _, s := range []string{key, newKey} {
		if strings.Contains(out+errs+a.Log(), s) {
			t.Fatal("a secret is in the CLI output or the log")
		}
	}
}

// TestHoldTimeNegotiated: FRR (hold 180 s) negotiates the hold time
// authbgpd offers (9 s: the smaller wins); after `authbgpd reload` with
// hold-time = 30 the session is re-made with 30 s.
func TestHoldTimeNegotiated(t *testing.T) {
	testenv.RequireRoot(t)
	t.Parallel()
	pair := newPair(t, "hold1", false)
	tp, nsA, nsB := pair.Topology, pair.A, pair.B
	a4, b4 := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	key := newSecret("hold1")
	conf := func(hold, keepalive int) string {
		return abConfig("", abPeer{addr: b4.String(), asn: 65002, src: "password-file", ref: "b.key"}) +
			fmt.Sprintf("hold-time = %d\nkeepalive-interval = %d\n", hold, keepalive)
	}
	a := StartAuthbgpd(t, tp, nsA, conf(9, 3), AuthbgpdOptions{Files: map[string]string{"b.key": key + "\n"}})
	f := StartFRR(t, tp, nsB, PeerConfig{ASN: 65002, RouterID: b4, Neighbors: []Neighbor{{a4, 65001, key}}})
	hold := func(want int64) func() error {
		return func() error {
			s, err := edgFRRSession(f, a4)
			if err != nil {
				return err
			}
			if s.state != "established" || s.holdMsec != want {
				return fmt.Errorf("frr: %s", s)
			}
			return nil
		}
	}
	waitFor(t, 60*time.Second, "FRR established with hold time 9 s", hold(9000))
	write(t, a.Config, conf(30, 10))
	if code, out, errs := abCLI(t, nsA, "reload"); code != 0 || !strings.Contains(out, "192.0.2.2: hold-time, keepalive-interval (session reset)") {
		t.Fatalf("reload: exit %d\n%s%s", code, out, errs)
	}
	waitFor(t, 60*time.Second, "FRR re-established with hold time 30 s", hold(30000))
}

func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestReloadLogLevel: a reload applies [log] level at once when the
// command line does not set it (before, it was accepted and ignored):
// after a reload to "warn" the reload's own "config reloaded" (info) line
// is not logged; after one back to "info" it is.
func TestReloadLogLevel(t *testing.T) {
	testenv.RequireRoot(t)
	t.Parallel()
	pair := newPair(t, "rll", false)
	peer := abPeer{addr: "192.0.2.2", asn: 65002, src: "password", ref: "rll-pw"}
	conf := func(level string) string { return abConfig("\n[log]\nlevel = \""+level+"\"\n", peer) }
	a := StartAuthbgpd(t, pair.Topology, pair.A, conf("info"), AuthbgpdOptions{LogLevel: "config"})
	reloaded := func() int { return strings.Count(a.Log(), "config reloaded") }
	for _, c := range []struct {
		level string
		lines int
	}{{"warn", 0}, {"info", 1}} {
		write(t, a.Config, conf(c.level))
		if code, out, errs := abCLI(t, pair.A, "reload", "-f", a.Config); code != 0 {
			t.Fatalf("reload to %s: exit %d\n%s%s", c.level, code, out, errs)
		}
		if got := reloaded(); got != c.lines {
			t.Fatalf("after the reload to %s: %d \"config reloaded\" lines, want %d:\n%s", c.level, got, c.lines, tail(a.Log(), 2000))
		}
	}
}
