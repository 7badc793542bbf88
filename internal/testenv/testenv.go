// Package testenv decides whether privileged and end-to-end tests can run,
// and makes sure they never vanish silently: a skip always prints its reason,
// and with E2E_REQUIRED=1 (set by CI) a missing precondition fails the test,
// except a kernel feature this machine lacks, which is named in the skip.
package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// Required reports whether E2E_REQUIRED=1 turns skips into failures.
func Required() bool { return os.Getenv("E2E_REQUIRED") == "1" }

// Skip skips t with reason, or fails it when E2E_REQUIRED=1.
func Skip(t testing.TB, reason string) {
	t.Helper()
	if Required() {
		t.Fatalf("E2E_REQUIRED=1 but this test cannot run: %s", reason)
	}
	t.Skipf("SKIP: %s (set E2E_REQUIRED=1 to make this a failure)", reason)
}

// SkipKernelLacks skips t because the running kernel lacks feature. This
// skip is allowed even with E2E_REQUIRED=1: the reason names the feature.
func SkipKernelLacks(t testing.TB, feature, detail string) {
	t.Helper()
	t.Skipf("SKIP: kernel lacks %s: %s", feature, detail)
}

// RequireRoot skips (or, under E2E_REQUIRED=1, fails) unless running as root.
func RequireRoot(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		Skip(t, "needs root (network namespaces, TCP-MD5 keys, packet capture)")
	}
}

// RequireBinary returns the path of an external program the test needs,
// skipping (or failing under E2E_REQUIRED=1) when it is not installed.
// Extra directories (e.g. /usr/lib/frr) are searched after PATH.
func RequireBinary(t testing.TB, name string, extraDirs ...string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, d := range extraDirs {
		p := d + "/" + name
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	Skip(t, name+" is not installed (the test command installs it: make test)")
	return ""
}
