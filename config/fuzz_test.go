package config

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse checks that Parse never panics, that a config it accepts
// validates again, and that every error names a line of the file.
func FuzzParse(f *testing.F) {
	seeds, err := filepath.Glob("testdata/*.toml")
	if err != nil || len(seeds) == 0 {
		f.Fatalf("no seeds: %v", err)
	}
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(""))
	f.Add([]byte(G + "[[peers]]\naddress = \"192.0.2.2\"\nasn = 2\npassword = \"x\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Secret files resolve under testdata (the seeds name testdata/secrets/*).
		const name = "testdata/fuzz.toml"
		c, err := parse(name, data, testEnv, testNow)
		if err == nil {
			if c == nil {
				t.Fatal("nil config without error")
			}
			if err := c.Validate(); err != nil {
				t.Fatalf("accepted config does not validate again: %v", err)
			}
			_ = Diff(c, c)
			return
		}
		if c != nil {
			t.Fatal("config returned with an error")
		}
		n := lineCount(data)
		errs := Errors(err)
		if len(errs) == 0 {
			t.Fatalf("error without *Error: %v", err)
		}
		for _, e := range errs {
			if e.File != name || e.Line < 1 || e.Line > n {
				t.Fatalf("error %q: file %q line %d, file has %d lines", e, e.File, e.Line, n)
			}
		}
	})
}
