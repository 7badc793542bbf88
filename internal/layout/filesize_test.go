package layout

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxFileLines bounds a production Go file: past it, a file holds more
// than one job (issue 27: split along the seams, one job per file).
const maxFileLines = 700

// TestNoLongFiles fails for every production .go file of the module (not
// tests, not the carried GoBGP) longer than maxFileLines, naming it.
func TestNoLongFiles(t *testing.T) {
	root := filepath.Join("..", "..")
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "third_party", "testdata", ".git", "node_modules", "bin":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		if lines := bytes.Count(b, []byte("\n")); lines > maxFileLines {
			rel, _ := filepath.Rel(root, p)
			t.Errorf("%s: %d lines, more than %d: split it by job", rel, lines, maxFileLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Fatalf("only %d production files found under %s", n, root)
	}
}
