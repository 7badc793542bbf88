package main

import (
	"os"
	"strings"
	"testing"

	"github.com/authbgp/authbgpd/shadow"
)

// TestDiagnosesDocumented: every diagnosis of shadow.Diagnoses has a row
// in docs/OPERATIONS.md's tables and is named in verify-pcap's help, and
// --fail-on takes exactly the failures (and "any").
func TestDiagnosesDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/OPERATIONS.md")
	if err != nil {
		t.Fatal(err)
	}
	ops := string(b)
	for _, d := range shadow.Diagnoses {
		if !strings.Contains(ops, "\n| `"+d.Code+"`") {
			t.Errorf("docs/OPERATIONS.md has no table row for diagnosis %s", d.Code)
		}
		if d.Code != shadow.DiagNoTraffic && !strings.Contains(verifyPcapCommand.detail, d.Code) {
			t.Errorf("verify-pcap's help does not name diagnosis %s", d.Code)
		}
		if _, err := parseFailOn(d.Code); (err == nil) != d.Failure {
			t.Errorf("--fail-on %s: %v, want accepted %v", d.Code, err, d.Failure)
		}
	}
	if _, err := parseFailOn("any"); err != nil {
		t.Errorf("--fail-on any: %v", err)
	}
}
