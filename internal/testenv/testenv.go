// Package testenv decides whether privileged and end-to-end tests can run,
// and makes sure they never vanish silently: a skip always prints its reason,
// and with E2E_REQUIRED=1 (set by CI) a missing precondition fails the test,
// except a kernel feature this machine lacks, which is named in the skip.
package testenv

import (
	"bufio"
	"compress/gzip"
	"os"
	"os/exec"
	"strings"
	"sync"
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

// RequireSRv6HMAC skips t, naming what is missing, unless the running
// kernel has SRv6 with HMAC: seg6 encapsulation routes
// (CONFIG_IPV6_SEG6_LWTUNNEL) and HMAC keys (CONFIG_IPV6_SEG6_HMAC, which
// also brings the seg6_require_hmac sysctl). Without them the SEG6 family
// still answers, but every HMAC command is ENOTSUPP (524) and `encap
// seg6` routes are refused. A kernel feature, so allowed under
// E2E_REQUIRED=1.
func RequireSRv6HMAC(t testing.TB) {
	t.Helper()
	for _, opt := range []string{"CONFIG_IPV6_SEG6_LWTUNNEL", "CONFIG_IPV6_SEG6_HMAC"} {
		if set, known := kernelConfig(opt); known && !set {
			SkipKernelLacks(t, "SRv6 with HMAC ("+opt+")", "/proc/config.gz: "+opt+" is not set")
		}
	}
	if _, err := os.Stat("/proc/sys/net/ipv6/conf/all/seg6_require_hmac"); err != nil {
		SkipKernelLacks(t, "SRv6 HMAC (CONFIG_IPV6_SEG6_HMAC)", err.Error())
	}
}

var kconfig struct {
	once sync.Once
	opts map[string]string // option -> value ("n" when "is not set"); nil: no /proc/config.gz
}

// kernelConfig reports whether the running kernel's build option opt (say
// CONFIG_IPV6_SEG6_HMAC) is set, built in or as a module; known is false
// when the kernel does not publish its config (/proc/config.gz).
func kernelConfig(opt string) (set, known bool) {
	kconfig.once.Do(func() { kconfig.opts = readKernelConfig("/proc/config.gz") })
	if kconfig.opts == nil {
		return false, false
	}
	v := kconfig.opts[opt]
	return v == "y" || v == "m", true
}

// readKernelConfig parses a gzipped kernel config (nil if unreadable).
func readKernelConfig(path string) map[string]string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil
	}
	opts := map[string]string{}
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "# "); ok {
			if opt, ok := strings.CutSuffix(name, " is not set"); ok {
				opts[opt] = "n"
			}
			continue
		}
		if opt, v, ok := strings.Cut(line, "="); ok && strings.HasPrefix(opt, "CONFIG_") {
			opts[opt] = v
		}
	}
	if sc.Err() != nil {
		return nil
	}
	return opts
}
