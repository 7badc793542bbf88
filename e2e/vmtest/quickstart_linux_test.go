package vmtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestQuickstartTCPAO runs the README's quickstart's TCP-AO part
// (scripts/quickstart-tcpao.sh, which `make quickstart` runs in this VM when
// the host kernel has no TCP-AO) as a user would: two authbgpd routers, both
// dialing, come up on TCP-AO; r2 restarted with a wrong secret is
// diagnosed bad-mac by r1; fixed, the session is back; nothing is left.
func TestQuickstartTCPAO(t *testing.T) {
	requireVM(t)
	root := repoRoot(t)
	bin := authbgpdBinary(t)
	if bin != filepath.Join(root, "bin", "authbgpd") {
		t.Skipf("SKIP: the script runs bin/authbgpd, and the binary under test is %s", bin)
	}
	start := time.Now()
	cmd := exec.Command("bash", filepath.Join(root, "scripts", "quickstart-tcpao.sh"))
	cmd.Env = append(os.Environ(), "QUICKSTART_TIMEOUT=40")
	out, err := cmd.CombinedOutput()
	t.Logf("quickstart-tcpao.sh took %v", time.Since(start).Round(100*time.Millisecond))
	if err != nil {
		t.Fatalf("quickstart-tcpao.sh: %v\n%s", err, out)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^\s+192\.0\.2\.2\s+65002\s+established\s.*\stcp-ao\s+1\s+yes\s+ok\s`),
		regexp.MustCompile(`(?m)^\s+192\.0\.2\.2\s+65002\s+\S+\s.*\stcp-ao\s.*\sbad-mac\s`),
		regexp.MustCompile(`established and ok again after`),
		regexp.MustCompile(`quickstart \(TCP-AO\): cleaned up`),
	} {
		if !want.Match(out) {
			t.Errorf("output does not match %s:\n%s", want, out)
		}
	}
	ns, _ := exec.Command("ip", "netns", "list").Output()
	if strings.Contains(string(ns), "abqa-") {
		t.Errorf("namespaces left behind:\n%s", ns)
	}
}
