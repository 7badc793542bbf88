package vmtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Package tests that need the guest's kernel: tcpsock's and netdev's own
// tests of keys scoped to a VRF (TCP_MD5SIG_FLAG_IFINDEX, TCP_AO_KEYF_IFINDEX)
// and of VRF devices skip on the host (no CONFIG_NET_VRF, no CONFIG_TCP_AO),
// and srv6policy's kernel tests on a host without SRv6 HMAC.
// make vmtest builds their test binaries on the host (bin/tcpsock.test,
// bin/netdev.test, like bin/vmtest.test) and these tests run them here, in
// their package directories, so that they are not only ever skipped.

// guestPackages are the package test binaries run in the guest and the
// tests of each that need it ($VMTEST_<PKG>_RUN overrides the pattern,
// e.g. VMTEST_TCPSOCK_RUN=. for the whole package).
var guestPackages = []struct {
	pkg, run string
}{
	{"tcpsock", `^(TestVRF.*|TestKernelFeatures|TestKernelFeatureProbes|TestTCPAOProbe|TestTCPAOAlgorithmsProbe.*|TestObservedKeyMatchesIgnoresL3Scope|TestObservedAOKeyScope|TestAOSetScoped)$`},
	{"netdev", `.`},
	// SRv6 HMAC: hosts whose kernel lacks seg6 routes or HMAC keys skip these.
	{"srv6policy", `^(TestKernel.*|TestTunnelSource|TestGenlTunnelSource)$`},
}

// lacksFeature is a skip that names a kernel feature the guest exists to
// have: in the guest that is a failure.
var lacksFeature = regexp.MustCompile(`SKIP: kernel lacks (CONFIG_NET_VRF|CONFIG_TCP_AO|VRF devices|TCP-AO|SRv6|IPv6 segment routing)`)

// TestTCPSockInGuest runs tcpsock's VRF tests (TestVRFScopedKey among
// them) in the guest; TestNetdevInGuest netdev's.
func TestTCPSockInGuest(t *testing.T) { runGuestPackage(t, "tcpsock") }

func TestNetdevInGuest(t *testing.T) { runGuestPackage(t, "netdev") }

// TestSRv6PolicyInGuest runs srv6policy's kernel tests (SRH HMACs the
// kernel computes, HMAC keys through SEG6, seg6 routes) in the guest,
// whose kernel has CONFIG_IPV6_SEG6_LWTUNNEL and CONFIG_IPV6_SEG6_HMAC.
func TestSRv6PolicyInGuest(t *testing.T) { runGuestPackage(t, "srv6policy") }

func runGuestPackage(t *testing.T, pkg string) {
	requireVM(t)
	root := repoRoot(t)
	run := ""
	for _, p := range guestPackages {
		if p.pkg == pkg {
			run = p.run
		}
	}
	if v := os.Getenv("VMTEST_" + strings.ToUpper(pkg) + "_RUN"); v != "" {
		run = v
	}
	bin := filepath.Join(root, "bin", pkg+".test")
	if err := freshTestBinary(root, pkg, bin); err != nil {
		t.Fatalf("%v: make vmtest builds it (CGO_ENABLED=0 go test -c -o bin/%s.test ./%s)", err, pkg, pkg)
	}
	start := time.Now()
	cmd := exec.Command(bin, "-test.v", "-test.count=1", "-test.timeout=15m", "-test.run="+run)
	cmd.Dir = filepath.Join(root, pkg)
	out, err := cmd.CombinedOutput()
	text := string(out)
	var summary []string
	for _, line := range strings.Split(text, "\n") {
		if s := strings.TrimSpace(line); strings.HasPrefix(s, "--- ") || strings.HasPrefix(s, "SKIP") || strings.Contains(s, "SKIP:") {
			summary = append(summary, line)
		}
	}
	t.Logf("%s -test.run=%q in %s (%v):\n%s", bin, run, cmd.Dir, time.Since(start).Round(time.Millisecond), strings.Join(summary, "\n"))
	if err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, text)
	}
	if m := lacksFeature.FindString(text); m != "" {
		t.Fatalf("%s: a test skipped for a feature the guest kernel has (%q):\n%s", bin, m, text)
	}
	if !strings.Contains(text, "--- PASS") {
		t.Fatalf("%s -test.run=%q ran no test:\n%s", bin, run, text)
	}
}

// freshTestBinary checks that bin exists and is newer than the Go files
// of package pkg (the ones most likely to change; make vmtest rebuilds it
// on every run anyway).
func freshTestBinary(root, pkg, bin string) error {
	st, err := os.Stat(bin)
	if err != nil {
		return err
	}
	files, err := filepath.Glob(filepath.Join(root, pkg, "*.go"))
	if err != nil {
		return err
	}
	for _, f := range files {
		if fs, err := os.Stat(f); err == nil && fs.ModTime().After(st.ModTime()) {
			return fmt.Errorf("%s is older than %s", bin, f)
		}
	}
	return nil
}
