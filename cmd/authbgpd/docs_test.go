package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/authbgp/authbgpd/config"
)

// nodeEnvRef finds the keys whose variables hold a node's values.
var nodeEnvRef = regexp.MustCompile(`(?m)^\s*(router-id|prefix)-env\s*=\s*"([^"]+)"`)

var fileRef = regexp.MustCompile(`(?m)^\s*(?:password|secret)-file\s*=\s*"([^"]+)"`)

// tomlBlock is one ```toml block of a Markdown file.
type tomlBlock struct {
	file string
	line int // of the block's first line
	text string
}

func tomlBlocks(t *testing.T, path string) []tomlBlock {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var out []tomlBlock
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```toml" {
			continue
		}
		b := tomlBlock{file: path, line: i + 2}
		var text strings.Builder
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			text.WriteString(lines[i] + "\n")
		}
		b.text = text.String()
		out = append(out, b)
	}
	return out
}

// TestDocsTOMLBlocks checks every ```toml block of docs/*.md with the real
// config loader and with `authbgpd check`, so the docs cannot drift from
// the schema. Every block is a complete config file. Variables named by
// *-env keys get throw-away values; files named by *-file keys (relative
// paths only: they are read next to the config) are created with mode 0600.
func TestDocsTOMLBlocks(t *testing.T) {
	docs, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	perFile := map[string]int{}
	for _, doc := range docs {
		for _, b := range tomlBlocks(t, doc) {
			perFile[filepath.Base(doc)]++
			name := fmt.Sprintf("%s:%d", strings.TrimPrefix(doc, "../../"), b.line)
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				for _, m := range envRef.FindAllStringSubmatch(b.text, -1) {
					t.Setenv(m[1], "docs-test-secret-"+m[1])
				}
				// A node's values: an address for router-id-env, a prefix of
				// its own for each prefix-env.
				for i, m := range nodeEnvRef.FindAllStringSubmatch(b.text, -1) {
					v := "192.0.2.254"
					if m[1] == "prefix" {
						v = fmt.Sprintf("10.%d.0.0/16", i)
					}
					t.Setenv(m[2], v)
				}
				for _, m := range fileRef.FindAllStringSubmatch(b.text, -1) {
					if filepath.IsAbs(m[1]) {
						t.Errorf("%s: secret file %q: use a path relative to the config in examples, so the test can provide it", name, m[1])
						continue
					}
					p := filepath.Join(dir, m[1])
					if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(p, []byte("docs-test-secret\n"), 0o600); err != nil {
						t.Fatal(err)
					}
				}
				file := filepath.Join(dir, "authbgpd.toml")
				if err := os.WriteFile(file, []byte(b.text), 0o600); err != nil {
					t.Fatal(err)
				}
				if _, err := config.Parse(file, []byte(b.text)); err != nil {
					t.Errorf("%s does not parse:\n%v", name, err)
					return
				}
				var out, errb bytes.Buffer
				if rc := run([]string{"check", "-f", file}, &out, &errb); rc != 0 {
					t.Errorf("authbgpd check on %s: exit %d\n%s", name, rc, errb.String())
				}
			})
		}
	}
	// The reference and the operations guide are made of examples.
	for doc, min := range map[string]int{"CONFIGURATION.md": 10, "OPERATIONS.md": 3} {
		if perFile[doc] < min {
			t.Errorf("docs/%s has %d TOML blocks; expected at least %d", doc, perFile[doc], min)
		}
	}
}
