//go:build linux

package e2e

import (
	"encoding/base64"
	"encoding/hex"
	"net/netip"
	"sort"
	"strings"
	"testing"
)

// No secret may leave authbgpd: not in its log (the tests run it at debug
// level), not in /status, /metrics or /healthz, not through the GoBGP gRPC
// API the stock gobgp CLI reads. The interop, dynamic-neighbor, reload,
// fail-closed and bad-config tests call assertNoSecrets with every key they
// configured, after their sessions are up and again after reloads.

// secretForms are the spellings of a secret that must not appear: as is,
// hex (both cases: a key dumped as bytes) and base64 (a key marshalled as
// []byte into JSON, as gRPC's JSON does for bytes fields).
func secretForms(s string) map[string]string {
	h := hex.EncodeToString([]byte(s))
	return map[string]string{
		"raw":        s,
		"hex":        h,
		"HEX":        strings.ToUpper(h),
		"base64":     base64.StdEncoding.EncodeToString([]byte(s)),
		"base64-raw": base64.RawStdEncoding.EncodeToString([]byte(s)),
	}
}

// assertNoSecrets searches what authbgpd a shows to anyone — its log, GET
// /status, /metrics, /healthz and /livez, `gobgp neighbor`, and `gobgp neighbor
// ADDR` and `gobgp neighbor ADDR -j` for every peer /status lists (static
// peers and sessions accepted from dynamic ranges) — for every form of
// every secret.
func assertNoSecrets(t testing.TB, a *Authbgpd, secrets ...string) {
	t.Helper()
	if len(secrets) == 0 {
		t.Fatal("assertNoSecrets: no secrets to look for")
	}
	for _, s := range secrets {
		if len(s) < 8 {
			t.Fatalf("assertNoSecrets: secret %q is too short to search for", s)
		}
	}
	outputs := map[string]string{"log": a.Log()}
	if !strings.Contains(outputs["log"], "level=debug") {
		t.Errorf("assertNoSecrets: authbgpd's log has no debug lines: the search would miss what debug logging shows")
	}
	for _, path := range []string{"/status", "/metrics", "/healthz", "/livez"} {
		body, err := a.HTTPGet(path)
		if err != nil {
			t.Errorf("GET %s: %v", path, err)
		}
		outputs["GET "+path] = body
	}
	run := func(args ...string) {
		out, err := cli(a, args...)
		if err != nil {
			t.Errorf("gobgp %s: %v", strings.Join(args, " "), err)
		}
		outputs["gobgp "+strings.Join(args, " ")] = out
	}
	run("neighbor")
	for _, p := range a.Status().Peers {
		if addr, err := netip.ParseAddr(p.Address); err == nil {
			run("neighbor", addr.String())
			run("neighbor", addr.String(), "-j")
		}
	}
	names := make([]string, 0, len(outputs))
	size := 0
	for name, text := range outputs {
		names = append(names, name)
		size += len(text)
	}
	sort.Strings(names)
	for _, name := range names {
		text := outputs[name]
		for i, s := range secrets {
			for form, v := range secretForms(s) {
				if strings.Contains(text, v) {
					at := strings.Index(text, v)
					t.Errorf("secret #%d (%s form) leaked in %s: …%s…", i, form, name,
						text[max(0, at-120):min(len(text), at+len(v)+40)])
				}
			}
		}
	}
	t.Logf("no-leak check: %d secrets (%d forms each) in %d outputs, %d bytes: %s",
		len(secrets), len(secretForms("x")), len(outputs), size, strings.Join(names, ", "))
}
