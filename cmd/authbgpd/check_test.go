package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// check says what it took from the environment: the router ID and a
// network's prefix (one DaemonSet config for every node).
func TestCheckSaysWhatItTook(t *testing.T) {
	t.Setenv("AUTHBGPD_TEST_NODE_IP", "192.0.2.77")
	t.Setenv("AUTHBGPD_TEST_POD_CIDR", "10.244.7.0/24")
	cfg := filepath.Join(t.TempDir(), "a.toml")
	conf := `[global]
asn = 65001
router-id-env = "AUTHBGPD_TEST_NODE_IP"

[[networks]]
prefix-env = "AUTHBGPD_TEST_POD_CIDR"

[[networks]]
prefix = "2001:db8::/32"
`
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI("check", "-f", cfg)
	want := "router-id 192.0.2.77 (from environment variable AUTHBGPD_TEST_NODE_IP)\n" +
		"network 10.244.7.0/24 (prefix from environment variable AUTHBGPD_TEST_POD_CIDR)\n" +
		"network 2001:db8::/32\n"
	if code != 0 || !strings.HasSuffix(out, want) {
		t.Errorf("exit %d\n%s%s\nwant the output to end with\n%s", code, out, errs, want)
	}
	os.Unsetenv("AUTHBGPD_TEST_POD_CIDR")
	code, _, errs = runCLI("check", "-f", cfg)
	if code != 1 || !strings.Contains(errs, "a.toml:6: prefix-env: environment variable AUTHBGPD_TEST_POD_CIDR is not set") {
		t.Errorf("unset: exit %d\n%s", code, errs)
	}
}
