package config

import (
	"slices"
	"strings"
	"testing"
)

const fibBase = `
[global]
asn = 65001
router-id = "192.0.2.1"
`

func TestFIBTable(t *testing.T) {
	for _, tc := range []struct {
		name, doc          string
		enabled, multipath bool
	}{
		{"absent: on, a router forwards", "", true, false},
		{"off", "[fib]\nenabled = false\n", false, false},
		{"multipath", "[fib]\nmultipath = true\n", true, true},
	} {
		c := mustParse(t, fibBase+tc.doc)
		if c.FIB.Enabled != tc.enabled || c.FIB.Multipath != tc.multipath {
			t.Errorf("%s: [fib] = %+v, want enabled %v multipath %v", tc.name, c.FIB, tc.enabled, tc.multipath)
		}
	}
	_, err := Parse("r.toml", []byte(fibBase+"[fib]\nenabled = true\ntable = 10\n"))
	if err == nil || !strings.Contains(err.Error(), "r.toml:7:") || !strings.Contains(err.Error(), "table") {
		t.Errorf("an unknown [fib] key: %v, want r.toml:7 naming it", err)
	}
	_, err = Parse("r.toml", []byte(fibBase+"[fib]\nenabled = \"yes\"\n"))
	if err == nil || !strings.Contains(err.Error(), "r.toml:6:") {
		t.Errorf("[fib] enabled not a boolean: %v, want r.toml:6", err)
	}
}

func TestFIBRestartOnly(t *testing.T) {
	on := mustParse(t, fibBase)
	off := mustParse(t, fibBase+"[fib]\nenabled = false\nmultipath = true\n")
	got := RestartOnly(on, off)
	want := []string{
		"[fib] enabled changed (running true, configured false): takes effect at the next restart",
		"[fib] multipath changed (running false, configured true): takes effect at the next restart",
	}
	if !slices.Equal(got, want) {
		t.Errorf("RestartOnly = %q, want %q", got, want)
	}
	if got := RestartOnly(on, mustParse(t, fibBase+"[fib]\n")); len(got) != 0 {
		t.Errorf("an empty [fib] is the default: %q", got)
	}
}
