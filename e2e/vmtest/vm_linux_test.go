package vmtest

import (
	"os"
	"strings"
	"testing"
)

// vmMarker is on the kernel command line of the VM that scripts/vm.sh boots.
const vmMarker = "authbgpd_vm=1"

// inVM reports whether this process runs in scripts/vm.sh's guest.
func inVM() bool {
	b, err := os.ReadFile("/proc/cmdline")
	if err != nil {
		return false
	}
	for _, f := range strings.Fields(string(b)) {
		if f == vmMarker {
			return true
		}
	}
	return false
}

// requireVM skips t outside the VM. This skip is not turned into a failure
// by E2E_REQUIRED=1: `make vmtest` (part of `make test`) runs these tests
// where they belong.
func requireVM(t *testing.T) {
	t.Helper()
	if !inVM() {
		t.Skip("SKIP: not in the TCP-AO VM; run make vmtest")
	}
	if os.Geteuid() != 0 {
		t.Fatal("in the VM but not root: scripts/vm.sh runs commands as root")
	}
}
