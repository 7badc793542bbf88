package main

import (
	"bytes"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

// words is how a command is typed.
func words(c *command) []string { return strings.Fields(c.name) }

// TestHelpEveryCommand: --help, -h and `help COMMAND` print the same help
// on stdout with exit 0, for every command; a bad flag is exit 2.
func TestHelpEveryCommand(t *testing.T) {
	for _, c := range commands {
		t.Run(c.fullName(), func(t *testing.T) {
			code, out, errs := runCLI(append(words(c), "--help")...)
			if c.name == "" { // the daemon: `authbgpd --help` is the global usage
				code, out, errs = 0, helpOf(c), ""
			}
			if code != 0 || !strings.HasPrefix(out, "usage: "+c.usageLine()+"\n") || errs != "" {
				t.Fatalf("--help: exit %d, stdout %q, stderr %q", code, out, errs)
			}
			if c.name == "" {
				return
			}
			for _, h := range [][]string{append(words(c), "-h"), append([]string{"help"}, words(c)...), append(words(c), "x", "--help")} {
				if code2, out2, _ := runCLI(h...); code2 != 0 || out2 != out {
					t.Errorf("%q: exit %d, output differs from --help:\n%s", h, code2, out2)
				}
			}
			if code, _, errs := runCLI(append(words(c), "--no-such-flag")...); code != 2 || !strings.Contains(errs, "no-such-flag") {
				t.Errorf("bad flag: exit %d, stderr %q", code, errs)
			}
		})
	}
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		if code, out, _ := runCLI(args...); code != 0 || !strings.Contains(out, "authbgpd verify-pcap") {
			t.Errorf("%q: exit %d\n%s", args, code, out)
		}
	}
	for _, args := range [][]string{{"nosuch"}, {"help", "nosuch"}, {"check"}, {"verify-pcap", "-f", "x"}, {"-f", "x", "extra"}, {"version", "x"}, {"completion", "fish"}, {"srv6"}} {
		if code, _, _ := runCLI(args...); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
}

func helpOf(c *command) string {
	var b bytes.Buffer
	c.printHelp(&b)
	return b.String()
}

// TestFlagOrder: flags work before or after the positional arguments, for
// every command that has both; "--" ends the flags.
func TestFlagOrder(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "r.toml")
	if err := os.WriteFile(cfg, []byte(vpConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("VP_TEST_KEY_V4", "authbgpd-e2e-md5-key")
	t.Setenv("VP_TEST_KEY_V6", "Wrong-Key-Xylophone")
	capture := "../../e2e/testdata/frr-gobgpd-md5-v4.pcap"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"router_id":"192.0.2.1","asn":65001,"peers":[]}` + "\n"))
	}))
	defer srv.Close()
	pairs := [][2][]string{
		{{"verify-pcap", "-f", cfg, "--json", capture}, {"verify-pcap", capture, "--json", "-f", cfg}},
		{{"verify-pcap", "-f", cfg, capture}, {"verify-pcap", capture, "-f=" + cfg}},
		{{"help", "status"}, {"help", "--", "status"}},
		{{"check", "-f", cfg}, {"check", "-f=" + cfg}},
		{{"status", "--api", srv.URL, "--json"}, {"status", "--json", "--api", srv.URL}},
		{{"reload", "--api", "127.0.0.1:1", "--json"}, {"reload", "--json", "--api", "127.0.0.1:1"}},
		{{"srv6", "hmac", "--algorithm", "sha256", "--key-file", cfg, "--key-id", "1", "--source", "2001:db8::1", "--segments", "2001:db8::2"},
			{"srv6", "hmac", "--segments", "2001:db8::2", "--source", "2001:db8::1", "--key-id", "1", "--key-file", cfg, "--algorithm", "sha256"}},
	}
	for _, p := range pairs {
		c1, o1, e1 := runCLI(p[0]...)
		c2, o2, e2 := runCLI(p[1]...)
		if c1 != c2 || o1 != o2 || e1 != e2 {
			t.Errorf("%q: exit %d\n%s%s\n%q: exit %d\n%s%s", p[0], c1, o1, e1, p[1], c2, o2, e2)
		}
	}
	// --json after the capture is a flag, not a file.
	if code, out, errs := runCLI("verify-pcap", capture, "--json", "-f", cfg); code != 0 || !strings.HasPrefix(out, "{") {
		t.Errorf("exit %d: %s%s", code, out, errs)
	}
	// After "--" a dash argument is a file.
	if code, _, errs := runCLI("verify-pcap", "-f", cfg, "--", "--json"); code != 1 || !strings.Contains(errs, "--json") {
		t.Errorf("-- --json: exit %d, %s", code, errs)
	}
}

// TestStatusFlagsMatch: the status entry of the command table declares the
// flags cmdStatus (status.go) parses.
func TestStatusFlagsMatch(t *testing.T) {
	for _, name := range statusCommand.flagNames() {
		if name == "--help" {
			continue
		}
		_, _, errs := runCLI("status", name, "127.0.0.1:1")
		if strings.Contains(errs, "not defined") {
			t.Errorf("%s: %s", name, errs)
		}
	}
}

// TestVerifyPcapFailOn: --fail-on makes a diagnosis exit 1; an unknown
// diagnosis is a usage error.
func TestVerifyPcapFailOn(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "r.toml")
	os.WriteFile(cfg, []byte(vpConfig), 0o600)
	t.Setenv("VP_TEST_KEY_V4", "authbgpd-e2e-md5-key")
	t.Setenv("VP_TEST_KEY_V6", "Wrong-Key-Xylophone")
	caps := []string{"../../e2e/testdata/frr-gobgpd-md5-v4.pcap", "../../e2e/testdata/frr-gobgpd-md5-v6.pcap"}
	cases := []struct {
		failOn string
		caps   []string
		code   int
	}{
		{"bad-digest", caps, 1},
		{"missing,bad-digest", caps, 1},
		{"any", caps, 1},
		{"missing", caps, 0},
		{"bad-digest", caps[:1], 0}, // the v4 capture is all ok
		{"any", caps[:1], 0},
		{"nonsense", caps, 2},
	}
	for _, tc := range cases {
		code, _, errs := runCLI(append([]string{"verify-pcap", "-f", cfg, "--fail-on", tc.failOn}, tc.caps...)...)
		if code != tc.code {
			t.Errorf("--fail-on %s on %d captures: exit %d, want %d: %s", tc.failOn, len(tc.caps), code, tc.code, errs)
		}
		if code == 1 && !strings.Contains(errs, "2001:db8::2 bad-digest") {
			t.Errorf("--fail-on %s: stderr does not name the peer: %q", tc.failOn, errs)
		}
	}
}

// TestCompletionAndMan: the bash script is valid bash and offers every
// command and flag; the man page has a section per command.
func TestCompletionAndMan(t *testing.T) {
	code, script, _ := runCLI("completion", "bash")
	if code != 0 {
		t.Fatal("completion bash failed")
	}
	for _, c := range commands {
		for _, f := range c.flagNames() {
			if !strings.Contains(script, f) {
				t.Errorf("completion lacks %s of %q", f, c.name)
			}
		}
		if c.name != "" && !strings.Contains(script, c.name) {
			t.Errorf("completion lacks %q", c.name)
		}
	}
	if bash, err := exec.LookPath("bash"); err == nil {
		f := filepath.Join(t.TempDir(), "c.bash")
		os.WriteFile(f, []byte(script), 0o600)
		// Complete "authbgpd verify-pcap --j" in a real bash.
		out, err := exec.Command(bash, "-c", `source `+f+`; COMP_WORDS=(authbgpd verify-pcap --j); COMP_CWORD=2; _authbgpd; echo "${COMPREPLY[@]}"; COMP_WORDS=(authbgpd he); COMP_CWORD=1; _authbgpd; echo "${COMPREPLY[@]}"`).CombinedOutput()
		if err != nil || string(out) != "--json\nhelp\n" {
			t.Errorf("bash completion: %v: %q", err, out)
		}
	}
	code, man, _ := runCLI("man")
	if code != 0 || !strings.HasPrefix(man, ".TH AUTHBGPD 8") {
		t.Fatalf("man: exit %d", code)
	}
	for _, c := range commands {
		if !strings.Contains(man, ".SS "+roff(c.usageLine())+"\n") {
			t.Errorf("man page lacks %q", c.usageLine())
		}
	}
	if strings.Contains(man, "\n.B -") {
		t.Error("man page has an unescaped dash")
	}
}

// TestFlagsFromHelp: the flags of a command whose parser is elsewhere are
// read back from its -h output, booleans told from flags with a value.
func TestFlagsFromHelp(t *testing.T) {
	fake := func(args []string, stderr io.Writer) int {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.SetOutput(stderr)
		fs.Bool("j", false, "one-letter boolean")
		fs.String("api", "127.0.0.1:1", "an address")
		fs.Int("count", 3, "a number")
		fs.Bool("verbose", false, "a boolean\non two lines")
		fs.Parse(args)
		return 0
	}
	fs := flag.NewFlagSet("y", flag.ContinueOnError)
	flagsFromHelp(fake)(fs)
	want := map[string]bool{"j": true, "api": false, "count": false, "verbose": true}
	n := 0
	fs.VisitAll(func(f *flag.Flag) {
		n++
		isBool, known := want[f.Name]
		if _, b := f.Value.(interface{ IsBoolFlag() bool }); !known || b != isBool {
			t.Errorf("flag %s: known %v, boolean %v", f.Name, known, b)
		}
	})
	if n != len(want) || !strings.Contains(fs.Lookup("verbose").Usage, "two lines") || fs.Lookup("j").Usage != "one-letter boolean" {
		t.Errorf("%d flags; usages %q, %q", n, fs.Lookup("verbose").Usage, fs.Lookup("j").Usage)
	}
	for _, name := range []string{"api", "f", "json", "health"} {
		if statusCommand.flagSet(io.Discard).Lookup(name) == nil {
			t.Errorf("status: flag %s not learnt from cmdStatus", name)
		}
	}
}
