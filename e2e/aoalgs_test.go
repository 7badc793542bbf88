package e2e

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/authbgp/authbgpd/internal/testenv"
)

// aoKeychain is a [[keychains]] entry of type tcp-ao whose key 2 has
// algorithm alg2.
func aoKeychain(name, secret1, secret2, alg2 string) string {
	return fmt.Sprintf(`
[[keychains]]
name = %q
type = "tcp-ao"
  [[keychains.keys]]
  id = 1
  algorithm = "hmac-sha-256"
  secret = %q
  [[keychains.keys]]
  id = 2
  algorithm = %q
  secret = %q
  send-from = 2030-01-01T00:00:00Z
`, name, secret1, alg2, secret2)
}

// TestCheckDiffRefusesAlgorithm: a daemon whose kernel offers only what
// Linux 7.2 keeps (the test build's probe answer, AUTHBGPD_TEST_AO_ALGS:
// HMAC-SHA-1, AES-128-CMAC, HMAC-SHA-256) refuses, in `check --diff`'s
// preview and in the reload itself, a config whose keychain has an
// HMAC-SHA-512 key, naming FILE:LINE of the key's algorithm, the
// algorithm and the kernel; the running config stays. `authbgpd status`
// and /status say what the kernel offers. No secret is printed, logged
// or served (assertNoSecrets).
func TestCheckDiffRefusesAlgorithm(t *testing.T) {
	testenv.RequireRoot(t)
	t.Parallel()
	pair := newPair(t, "algs", false)
	s1, s2 := newSecret("algs1"), newSecret("algs2")
	peer := abPeer{addr: "192.0.2.2", asn: 65002, src: "keychain", ref: "ao"}
	good := abConfig(noWatch+aoKeychain("ao", s1, s2, "hmac-sha-256"), peer)
	a := StartAuthbgpd(t, pair.Topology, pair.A, good, AuthbgpdOptions{
		Tags: "authbgpd_testhooks",
		Env:  []string{"AUTHBGPD_TEST_AO_ALGS=7.2.0:hmac(sha1),cmac(aes128),hmac(sha256)"},
	})

	st := a.Status()
	want := []string{"hmac-sha-1-96", "aes-128-cmac-96", "hmac-sha-1", "aes-128-cmac", "hmac-sha-256"}
	if k := st.Kernel; k == nil || k.Release != "7.2.0" || !slices.Equal(k.TCPAOAlgorithms, want) ||
		!slices.Equal(k.TCPAOAlgorithmsMissing, []string{"hmac-sha-224", "hmac-sha-384", "hmac-sha-512"}) {
		t.Fatalf("/status kernel: %+v", k)
	}
	code, out, errs := abCLI(t, pair.A, "status")
	if code != 0 || !strings.Contains(out, "kernel 7.2.0 TCP-AO algorithms: "+strings.Join(want, ", ")+"; not offered") {
		t.Fatalf("authbgpd status: exit %d\n%s%s", code, out, errs)
	}

	bad := abConfig(noWatch+aoKeychain("ao", s1, s2, "hmac-sha-512"), peer)
	line := strings.Count(bad[:strings.Index(bad, `algorithm = "hmac-sha-512"`)], "\n") + 1
	next := filepath.Join(filepath.Dir(a.Config), "next.toml")
	write(t, next, bad)
	if code, out, errs := abCLI(t, pair.A, "check", "-f", next); code != 0 {
		t.Fatalf("check without --diff (the file is valid): exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = abCLI(t, pair.A, "check", "-f", next, "--diff")
	wantRefusal := fmt.Sprintf(`refused   %s:%d: keychains "ao" key 2: algorithm = "hmac-sha-512": tcp-ao algorithm hmac-sha-512 is not offered by this kernel (Linux 7.2.0)`, next, line)
	if code != 1 || !strings.Contains(out, "a reload would be refused") || !strings.Contains(out, wantRefusal) {
		t.Fatalf("check --diff: exit %d, want 1 with %q\n%s%s", code, wantRefusal, out, errs)
	}

	write(t, a.Config, bad)
	code, out, errs = abCLI(t, pair.A, "reload", "-f", a.Config)
	if code != 1 || !strings.Contains(out, "reload refused; the running config stays") || !strings.Contains(out, a.Config+fmt.Sprintf(":%d: keychains \"ao\" key 2", line)) {
		t.Fatalf("reload: exit %d\n%s%s", code, out, errs)
	}
	for _, s := range []string{s1, s2} {
		if strings.Contains(out+errs, s) {
			t.Fatal("a secret is in the CLI output")
		}
	}
	assertNoSecrets(t, a, s1, s2)
}
