package speaker

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// maxLines bounds package speaker's non-test Go files together
// (docs/ARCHITECTURE.md): it wires the parts, and what is not wiring lives
// in the package whose job it is.
const maxLines = 400

// TestWiringOnly fails when speaker's non-test Go files (as `wc -l
// speaker/*.go` counts them, tests excluded) pass maxLines, naming each
// file's count.
func TestWiringOnly(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	var counts []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n := bytes.Count(b, []byte("\n"))
		total += n
		counts = append(counts, f+" "+strconv.Itoa(n))
	}
	if len(counts) == 0 {
		t.Fatal("no Go files in speaker")
	}
	if total > maxLines {
		t.Fatalf("speaker has %d lines of non-test Go, more than %d (%s): move what is not wiring to the package whose job it is",
			total, maxLines, strings.Join(counts, ", "))
	}
	t.Logf("speaker: %d of %d lines (%s)", total, maxLines, strings.Join(counts, ", "))
}
