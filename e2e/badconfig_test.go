//go:build linux

package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/testenv"
)

// Broken configuration files, through the real binary: `authbgpd check -f
// FILE` and `authbgpd -f FILE` both exit 1 promptly with every error as
// FILE:LINE: message and no secret; a broken file sent to a running daemon
// with SIGHUP is rejected whole and the running config and sessions stay.

// badConfigHead is the start of every broken file: lines 1-7. It neither
// listens nor serves an API, so a file that wrongly passed would not touch
// the host's network while the test waits for the daemon to exit.
const badConfigHead = `[global]
asn = 65001
router-id = "192.0.2.1"
listen-port = -1
[api]
grpc = ""
http = ""
`

// longSecret is 88 bytes: over the 80-byte TCP-MD5 limit.
var longSecret = "Zk-long-" + strings.Repeat("x", 80)

type badConfig struct {
	name string
	body string   // lines 8 on (after badConfigHead)
	want []string // "LINE: message" lines ({dir}: the file's directory), output as FILE:LINE: message
	// secret must not appear in the output.
	secret string
	// head replaces badConfigHead when set.
	head string
}

var badConfigs = []badConfig{
	{name: "unknown-key", body: `[[peers]]
address = "192.0.2.2"
asn = 65002
pasword = "x"
`, want: []string{`11: unknown key "pasword" in [[peers]]`}},
	{name: "unknown-key-global", body: `[[peers]]
address = "192.0.2.2"
asn = 65002
`, head: strings.Replace(badConfigHead, "listen-port = -1\n", "listen-port = -1\nrouter_id = \"192.0.2.9\"\n", 1),
		want: []string{`5: unknown key "router_id" in [global]`}},
	{name: "wrong-type", body: `[[peers]]
address = "192.0.2.2"
asn = "65002"
`, want: []string{`10: asn: expected integer, got string`}},
	{name: "wrong-type-secret", body: `[[peers]]
address = "192.0.2.2"
asn = 65002
password = 987654321987
`, want: []string{`11: password: expected string, got integer`}, secret: "987654321987"},
	{name: "duplicate-key", body: `[[peers]]
address = "192.0.2.2"
asn = 65002
asn = 65003
`, want: []string{`11: invalid TOML: key asn is already defined`}},
	{name: "duplicate-peer", body: `[[peers]]
address = "192.0.2.2"
asn = 65002
[[peers]]
address = "192.0.2.2"
asn = 65003
`, want: []string{`12: address: duplicate peer 192.0.2.2 (also at line 9)`}},
	{name: "address-and-prefix", body: `[[peers]]
address = "192.0.2.2"
prefix = "192.0.2.0/24"
asn = 65002
`, want: []string{`10: prefix: set address or prefix, not both (address is at line 9)`}},
	{name: "two-key-sources", body: `[[peers]]
address = "192.0.2.2"
asn = 65002
password = "Zk-two-sources-inline"
password-file = "pw"
`, want: []string{`12: password-file: only one of password, password-file, password-env, keychain may be set (password is at line 11)`},
		secret: "Zk-two-sources-inline"},
	{name: "password-and-keychain", body: `[[keychains]]
name = "k"
  [[keychains.keys]]
  id = 1
  secret = "Zk-kc-pw-and-kc"
[[peers]]
address = "192.0.2.2"
asn = 65002
password-env = "HOME"
keychain = "k"
`, want: []string{`17: keychain: only one of password, password-file, password-env, keychain may be set (password-env is at line 16)`},
		secret: "Zk-kc-pw-and-kc"},
	{name: "unknown-keychain", body: `[[peers]]
address = "192.0.2.2"
asn = 65002
keychain = "nope"
`, want: []string{`11: keychain: unknown keychain "nope"`}},
	{name: "key-too-long", body: `[[peers]]
address = "192.0.2.2"
asn = 65002
password = "` + longSecret + `"
`, want: []string{`11: password: secret is 88 bytes, longer than 80`}, secret: longSecret},
	{name: "keychain-key-too-long", body: `[[keychains]]
name = "k"
  [[keychains.keys]]
  id = 1
  secret-file = "long.key"
[[peers]]
address = "192.0.2.2"
asn = 65002
keychain = "k"
`, want: []string{`12: secret-file: secret is 88 bytes, longer than 80`}, secret: longSecret},
	{name: "bad-send-from", body: `[[keychains]]
name = "k"
  [[keychains.keys]]
  id = 1
  secret = "Zk-kc-bad-send-from"
  send-from = "tomorrow"
[[peers]]
address = "192.0.2.2"
asn = 65002
keychain = "k"
`, want: []string{`13: send-from: "tomorrow" is not an RFC 3339 date-time with a time zone (e.g. 2026-01-01T00:00:00Z)`},
		secret: "Zk-kc-bad-send-from"},
	{name: "impossible-send-from", body: `[[keychains]]
name = "k"
  [[keychains.keys]]
  id = 1
  secret = "Zk-kc-impossible"
  send-from = 2026-13-01T00:00:00Z
[[peers]]
address = "192.0.2.2"
asn = 65002
keychain = "k"
`, want: []string{`13: invalid TOML: impossible date`}, secret: "Zk-kc-impossible"},
	{name: "duplicate-key-id", body: `[[keychains]]
name = "k"
  [[keychains.keys]]
  id = 1
  secret = "Zk-kc-dup-id-1"
  [[keychains.keys]]
  id = 1
  secret = "Zk-kc-dup-id-2"
  send-from = 2026-01-01T00:00:00Z
[[peers]]
address = "192.0.2.2"
asn = 65002
keychain = "k"
`, want: []string{`14: id: duplicate key id 1 in [[keychains]] "k" (also at line 11)`}, secret: "Zk-kc-dup-id"},
	{name: "unset-password-env", body: `[[peers]]
address = "192.0.2.2"
asn = 65002
password-env = "AUTHBGPD_E2E_NEVER_SET"
`, want: []string{`11: password-env: environment variable AUTHBGPD_E2E_NEVER_SET is not set`}},
	{name: "missing-password-file", body: `[[peers]]
address = "192.0.2.2"
asn = 65002
password-file = "no-such.key"
`, want: []string{`11: password-file: cannot read secret file: stat {dir}/no-such.key: no such file or directory`}},
	{name: "empty-password-file", body: `[[peers]]
address = "192.0.2.2"
asn = 65002
password-file = "empty.key"
`, want: []string{`11: password-file: secret is empty`}},
	{name: "bad-family", body: `[[peers]]
address = "192.0.2.2"
asn = 65002
families = ["ipv4-multicast"]
`, want: []string{`11: families: unknown family "ipv4-multicast" (want ipv4-unicast, ipv6-unicast, ipv4-srpolicy, ipv6-srpolicy)`}},
	{name: "asn-0", body: `[[peers]]
address = "192.0.2.2"
asn = 0
`, want: []string{`10: asn: 0 is not a valid AS number (1..4294967295)`}},
	{name: "global-asn-0", head: strings.Replace(badConfigHead, "asn = 65001", "asn = 0", 1), body: `[[peers]]
address = "192.0.2.2"
asn = 65002
`, want: []string{`2: asn: 0 is not a valid AS number (1..4294967295)`}},
	{name: "router-id-ipv6", head: strings.Replace(badConfigHead, `"192.0.2.1"`, `"2001:db8::1"`, 1), body: `[[peers]]
address = "192.0.2.2"
asn = 65002
`, want: []string{`3: router-id: 2001:db8::1 is not an IPv4 address`}},
	{name: "bad-address", body: `[[peers]]
address = "192.0.2.256"
asn = 65002
`, want: []string{`9: address: "192.0.2.256" is not an IP address`}},
	{name: "prefix-host-bits", body: `[[peers]]
prefix = "192.0.2.1/24"
asn = 65002
`, want: []string{`9: prefix: 192.0.2.1/24 has host bits set (did you mean 192.0.2.0/24?)`}},
	{name: "prefix-not-passive", body: `[[peers]]
prefix = "192.0.2.0/24"
asn = 65002
passive = false
`, want: []string{`11: passive: a prefix of dynamic neighbors is always passive`}},
	{name: "local-address-family", body: `[[peers]]
address = "192.0.2.2"
asn = 65002
local-address = "2001:db8::1"
`, want: []string{`11: local-address: 2001:db8::1 is not of the peer's address family`}},
	{name: "syntax-error-in-secret", body: `[[peers]]
address = "192.0.2.2"
asn = 65002
password = "Zk-unterminated-secret
`, want: []string{`11: invalid TOML: basic strings cannot have new lines`}, secret: "Zk-unterminated"},
	// Every error at once, in line order.
	{name: "many-errors", body: `[[peers]]
address = "192.0.2.2"
asn = 0
pasword = "Zk-many-typo"
keychain = "nope"
[[peers]]
address = "192.0.2.2"
asn = 65002
password = "` + longSecret + `"
`, want: []string{
		`10: asn: 0 is not a valid AS number (1..4294967295)`,
		`11: unknown key "pasword" in [[peers]]`,
		`12: keychain: unknown keychain "nope"`,
		`14: address: duplicate peer 192.0.2.2 (also at line 9)`,
		`16: password: secret is 88 bytes, longer than 80`,
	}, secret: longSecret},
}

// runBinary runs the authbgpd binary with args (in dir, with no extra
// environment) and returns its exit code, stderr and stdout. It fails t if
// the command does not exit within limit.
func runBinary(t testing.TB, bin, dir string, limit time.Duration, args ...string) (int, string, string, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if ctx.Err() != nil {
		t.Fatalf("authbgpd %s did not exit within %s\nstderr:\n%s", strings.Join(args, " "), limit, tail(stderr.String(), 4000))
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, stderr.String(), stdout.String(), took
	case errors.As(err, &ee):
		return ee.ExitCode(), stderr.String(), stdout.String(), took
	}
	t.Fatalf("authbgpd %s: %v", strings.Join(args, " "), err)
	return 0, "", "", took
}

// TestBadConfigs runs every broken file through `authbgpd check -f FILE`
// and `authbgpd -f FILE`. It needs no root: the files fail before anything
// touches the network.
func TestBadConfigs(t *testing.T) {
	t.Parallel()
	bin := authbgpdBinary(t, "")
	for _, tc := range badConfigs {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for name, content := range map[string]string{"pw": "Zk-pw-file\n", "empty.key": "", "long.key": longSecret + "\n"} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			head := badConfigHead
			if tc.head != "" {
				head = tc.head
			}
			file := filepath.Join(dir, tc.name+".toml")
			if err := os.WriteFile(file, []byte(head+tc.body), 0o600); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{{"check", "-f", file}, {"-f", file}} {
				code, stderr, stdout, took := runBinary(t, bin, dir, 10*time.Second, args...)
				what := "authbgpd " + strings.Join(args[:len(args)-1], " ") + " FILE"
				if code != 1 {
					t.Errorf("%s: exit %d, want 1\nstderr:\n%s", what, code, stderr)
				}
				if took > 5*time.Second {
					t.Errorf("%s: took %s to exit", what, took.Round(time.Millisecond))
				}
				for _, w := range tc.want {
					w = file + ":" + strings.ReplaceAll(w, "{dir}", dir)
					if !strings.Contains(stderr, w+"\n") {
						t.Errorf("%s: stderr lacks the line %q\nstderr:\n%s", what, w, stderr)
					}
				}
				for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
					if !strings.HasPrefix(l, file+":") && !strings.HasPrefix(l, "warning: "+file+":") {
						t.Errorf("%s: stderr line %q is not FILE:LINE: message", what, l)
					}
				}
				if tc.secret != "" && (strings.Contains(stderr, tc.secret) || strings.Contains(stdout, tc.secret)) {
					t.Errorf("%s: the output shows the secret:\n%s%s", what, stdout, stderr)
				}
			}
		})
	}
}

// lineOf is the 1-based number of the first line of text containing s.
func lineOf(t testing.TB, text, s string) int {
	t.Helper()
	for i, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	t.Fatalf("lineOf: %q not in\n%s", s, text)
	return 0
}

// TestReloadBadConfig sends SIGHUP to a running authbgpd whose config file
// has become broken, then one that changes the global ASN (which needs a
// restart): both are rejected whole, with the errors logged as
// FILE:LINE: message, and the running config and FRR session stay (same
// uptime, no new peer). authbgpd_config_reloads_total counts them as errors,
// and a good reload afterwards as ok.
func TestReloadBadConfig(t *testing.T) {
	testenv.RequireRoot(t)
	t.Parallel()
	pair := newPair(t, "badrl", false)
	tp, nsA, nsB := pair.Topology, pair.A, pair.B
	a4, b4 := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	key, newKey := newSecret("badrl"), newSecret("badrl-new")
	good := abConfig("", abPeer{addr: "192.0.2.2", asn: 65002, src: "password-file", ref: "pw.key"})
	a := StartAuthbgpd(t, tp, nsA, good, AuthbgpdOptions{Files: map[string]string{"pw.key": key + "\n"}})
	announce(t, a, "198.51.100.0/24")
	f := StartFRR(t, tp, nsB, PeerConfig{ASN: 65002, RouterID: b4,
		Neighbors: []Neighbor{{a4, 65001, key}},
		Networks:  []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24")}})
	waitSessions(t, 60*time.Second, 1, sessionCheck{a, b4}, sessionCheck{f, a4})
	before := mustPeer(t, a, "192.0.2.2").UptimeSeconds
	start := time.Now()

	// Broken: the peer's key file is gone, a new peer has a wrong type, a
	// typo and an inline key (a new secret) that is too long.
	long := newKey + strings.Repeat("y", 81-len(newKey))
	broken := abConfig("",
		abPeer{addr: "192.0.2.2", asn: 65002, src: "password-file", ref: "gone.key"},
		abPeer{addr: "192.0.2.3", asn: 65003, src: "password", ref: long}) +
		"pasword = \"typo\"\n"
	broken = strings.Replace(broken, "asn = 65003", `asn = "65003"`, 1)
	a.Reload(broken)
	wantLog := []string{
		fmt.Sprintf("%s:%d: password-file: cannot read secret file", a.Config, lineOf(t, broken, "gone.key")),
		fmt.Sprintf("%s:%d: asn: expected integer, got string", a.Config, lineOf(t, broken, `"65003"`)),
		fmt.Sprintf("%s:%d: password: secret is 81 bytes, longer than 80", a.Config, lineOf(t, broken, newKey)),
		fmt.Sprintf("%s:%d: unknown key \\\"pasword\\\" in [[peers]]", a.Config, lineOf(t, broken, "pasword")),
	}
	waitLog(t, a, "reload rejected", 10*time.Second)
	time.Sleep(500 * time.Millisecond) // every error line
	log := a.Log()
	for _, w := range wantLog {
		found := false
		for _, l := range strings.Split(log, "\n") {
			if strings.Contains(l, "level=error") && strings.Contains(l, w) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("authbgpd logged no error line with %q", w)
		}
	}
	requireMetric(t, a, "authbgpd_config_reloads_total", `result="error"`, 1)

	// Needs a restart: rejected too.
	a.Reload(strings.Replace(good, "asn = 65001", "asn = 65009", 1))
	_ = poll(10*time.Second, until(func() bool {
		body, _ := a.HTTPGet("/metrics")
		v, _ := metricValue(body, "authbgpd_config_reloads_total", `result="error"`)
		return v == 2
	}))
	requireMetric(t, a, "authbgpd_config_reloads_total", `result="error"`, 2)

	// The running config and session stayed.
	time.Sleep(2 * time.Second)
	st := a.Status()
	if st.ASN != 65001 || len(st.Peers) != 1 {
		t.Errorf("/status after rejected reloads: asn %d, peers %+v; want the old config", st.ASN, st.Peers)
	}
	p := mustPeer(t, a, "192.0.2.2")
	el := int64(time.Since(start).Seconds())
	if p.State != Established || p.UptimeSeconds < before+el-2 || !p.Auth.Installed || p.Auth.Error != "" {
		t.Errorf("/status peer after rejected reloads: %+v (uptime was %d s %d s ago)", p, before, el)
	}
	if s, err := f.State(a4); err != nil || s != Established {
		t.Errorf("frr: session %q (%v) after rejected reloads", s, err)
	}
	requireHealthy(t, a)

	// A good reload is still applied.
	a.Reload(good)
	waitLog(t, a, "config reloaded", 10*time.Second)
	requireMetric(t, a, "authbgpd_config_reloads_total", `result="ok"`, 1)
	requireMetric(t, a, "authbgpd_config_reloads_total", `result="error"`, 2)
	assertNoSecrets(t, a, key, long, newKey)
	a.StopClean()
}
