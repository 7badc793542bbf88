package main

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/authbgp/authbgpd/config"
)

var envRef = regexp.MustCompile(`(?m)^\s*(?:password|secret)-env\s*=\s*"([^"]+)"`)

// TestReadmeTOMLBlocks parses every ```toml block of README.md with the real
// config loader, so the docs cannot drift from the schema. Variables named by
// *-env keys are given throw-away values.
func TestReadmeTOMLBlocks(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	n := 0
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```toml" {
			continue
		}
		start := i + 1
		var block bytes.Buffer
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			block.WriteString(lines[i] + "\n")
		}
		n++
		for _, m := range envRef.FindAllStringSubmatch(block.String(), -1) {
			t.Setenv(m[1], "readme-test-secret")
		}
		name := fmt.Sprintf("README.md block at line %d", start)
		if _, err := config.Parse(name, block.Bytes()); err != nil {
			t.Errorf("%s does not parse:\n%v", name, err)
		}
	}
	if n < 2 {
		t.Fatalf("found %d TOML blocks in README.md; expected the configuration examples", n)
	}
}

func TestCheckExampleConfig(t *testing.T) {
	var out, errb bytes.Buffer
	if rc := run([]string{"check", "-f", "../../examples/authbgpd.toml"}, &out, &errb); rc != 0 {
		t.Fatalf("check examples/authbgpd.toml: exit %d\n%s", rc, errb.String())
	}
}

func TestVersion(t *testing.T) {
	var out bytes.Buffer
	if rc := run([]string{"version"}, &out, &out); rc != 0 || !strings.HasPrefix(out.String(), "authbgpd ") {
		t.Fatalf("version: exit %d, %q", rc, out.String())
	}
}
