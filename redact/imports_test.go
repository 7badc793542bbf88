package redact

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoGoBGPServer: redaction is importable by anyone because it never
// pulls in GoBGP's server (only package plugin embeds it); GoBGP's
// protobuf API is fine.
func TestNoGoBGPServer(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("SKIP: no go command to list the dependencies: %v", err)
	}
	out, err := exec.Command(goBin, "list", "-deps", "-f", "{{.ImportPath}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	api := false
	for _, d := range deps {
		switch {
		case d == "github.com/osrg/gobgp/v3/pkg/server":
			t.Errorf("package redact depends on %s", d)
		case d == "github.com/osrg/gobgp/v3/api":
			api = true
		}
	}
	if !api {
		t.Errorf("GoBGP's api package is not among the dependencies: is the list right?\n%s", out)
	}
}
