package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The known answers of issue 5 (the HMAC layout: docs/ARCHITECTURE.md, facts).
const (
	srv6Secret   = "0123456789abcdef0123456789abcdef"
	srv6SHA256KA = "eeb5d2e260d837a8e5f591fd96a05d92209b20ef28e8c22d6b59dd65b2fe1d1e"
	srv6SHA1KA   = "83b58420a6fa017fb57b1bc318b1251d8c131d87000000000000000000000000"
)

func writeKey(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func runSRv6(args ...string) (rc int, stdout, stderr string) {
	var out, errb bytes.Buffer
	rc = run(append([]string{"srv6"}, args...), &out, &errb)
	return rc, out.String(), errb.String()
}

func TestSRv6HMACKnownAnswers(t *testing.T) {
	for _, c := range []struct {
		alg, file, want string
	}{
		{"sha256", srv6Secret, srv6SHA256KA},
		{"sha256", srv6Secret + "\n", srv6SHA256KA},   // one trailing newline is trimmed
		{"sha256", srv6Secret + "\r\n", srv6SHA256KA}, // as in config secret files
		{"SHA256", srv6Secret, srv6SHA256KA},
		{"sha1", srv6Secret + "\n", srv6SHA1KA},
	} {
		key := writeKey(t, c.file)
		rc, out, errs := runSRv6("hmac", "--algorithm", c.alg, "--key-file", key, "--key-id", "42",
			"--source", "2001:db8::1", "--segments", "fc00:0:1::1,fc00:0:2::1,fc00:0:3::1")
		if rc != 0 || out != c.want+"\n" || errs != "" {
			t.Fatalf("%s %q: rc %d, stdout %q, stderr %q", c.alg, c.file, rc, out, errs)
		}
	}
	// Single-dash flags and "=" work too (package flag).
	key := writeKey(t, srv6Secret)
	rc, out, _ := runSRv6("hmac", "-algorithm=sha1", "-key-file="+key, "-key-id=42",
		"-source=2001:db8::1", "-segments=fc00:0:1::1, fc00:0:2::1, fc00:0:3::1")
	if rc != 0 || out != srv6SHA1KA+"\n" {
		t.Fatalf("rc %d, %q", rc, out)
	}
	// Two newlines: only one is trimmed, so the secret (and HMAC) differ.
	key2 := writeKey(t, srv6Secret+"\n\n")
	if rc, out, _ := runSRv6("hmac", "--algorithm", "sha256", "--key-file", key2, "--key-id", "42",
		"--source", "2001:db8::1", "--segments", "fc00:0:1::1,fc00:0:2::1,fc00:0:3::1"); rc != 0 || out == srv6SHA256KA+"\n" {
		t.Fatalf("two newlines: rc %d, %q", rc, out)
	}
}

func TestSRv6HMACErrors(t *testing.T) {
	secret := "Pa55-Word-Never-Shown"
	key := writeKey(t, secret+"\n")
	long := writeKey(t, strings.Repeat("Pa55-Word-Never-Shown", 4))
	empty := writeKey(t, "\n")
	dir := t.TempDir()
	ok := map[string]string{
		"--algorithm": "sha256", "--key-file": key, "--key-id": "42",
		"--source": "2001:db8::1", "--segments": "fc00::1,fc00::2",
	}
	args := func(over ...string) []string {
		m := map[string]string{}
		for k, v := range ok {
			m[k] = v
		}
		for i := 0; i+1 < len(over); i += 2 {
			m[over[i]] = over[i+1]
		}
		a := []string{"hmac"}
		for _, k := range []string{"--algorithm", "--key-file", "--key-id", "--source", "--segments"} {
			if v, ok := m[k]; ok && v != "<none>" {
				a = append(a, k, v)
			}
		}
		return a
	}
	fifteen := strings.TrimSuffix(strings.Repeat("fc00::1,", 15), ",")
	for _, c := range []struct {
		name string
		args []string
		rc   int
		msg  string
	}{
		{"ok", args(), 0, ""},
		{"no subcommand", nil, 2, "usage"},
		{"unknown subcommand", []string{"nope"}, 2, "unknown subcommand"},
		{"unknown flag", append(args(), "--nope"), 2, "nope"},
		{"extra argument", append(args(), "extra"), 2, "unexpected argument"},
		{"missing algorithm", args("--algorithm", "<none>"), 2, "--algorithm is required"},
		{"missing key file", args("--key-file", "<none>"), 2, "--key-file is required"},
		{"missing key id", args("--key-id", "<none>"), 2, "--key-id is required"},
		{"missing source", args("--source", "<none>"), 2, "--source is required"},
		{"missing segments", args("--segments", "<none>"), 2, "--segments is required"},
		{"bad algorithm", args("--algorithm", "md5"), 2, "sha1 or sha256"},
		{"key id text", args("--key-id", "forty-two"), 2, "--key-id"},
		{"key id too big", args("--key-id", "4294967296"), 2, "--key-id"},
		{"key id negative", args("--key-id", "-1"), 2, "--key-id"},
		{"bad source", args("--source", "nope"), 2, "--source"},
		{"bad segment", args("--segments", "fc00::1,,fc00::2"), 2, "--segments"},
		{"key id 0", args("--key-id", "0"), 1, "key ID 0"},
		{"ipv4 source", args("--source", "192.0.2.1"), 1, "not an IPv6"},
		{"mapped source", args("--source", "::ffff:192.0.2.1"), 1, "not an IPv6"},
		{"ipv4 segment", args("--segments", "fc00::1,192.0.2.1"), 1, "not an IPv6"},
		{"15 segments", args("--segments", fifteen), 1, "at most 14 segments"},
		{"missing key file", args("--key-file", filepath.Join(dir, "absent")), 1, "no such file"},
		{"key file is a dir", args("--key-file", dir), 1, "directory"},
		{"empty secret", args("--key-file", empty), 1, "empty"},
		{"secret too long", args("--key-file", long), 1, "longer than 64"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rc, out, errs := runSRv6(c.args...)
			if rc != c.rc {
				t.Fatalf("rc %d, want %d; stdout %q stderr %q", rc, c.rc, out, errs)
			}
			if c.rc != 0 && (out != "" || !strings.Contains(errs, c.msg)) {
				t.Fatalf("stdout %q, stderr %q, want a message with %q", out, errs, c.msg)
			}
			if strings.Contains(out+errs, "Never-Shown") {
				t.Fatalf("the secret was printed: %q %q", out, errs)
			}
		})
	}
	if rc, out, _ := runSRv6("help"); rc != 0 || !strings.Contains(out, "srv6 hmac") {
		t.Fatalf("help: %d %q", rc, out)
	}
	var out bytes.Buffer
	run([]string{"help"}, &out, &out)
	if !strings.Contains(out.String(), "authbgpd srv6 hmac") {
		t.Fatalf("main usage does not list srv6 hmac:\n%s", out.String())
	}
}

// TestSRv6HMACFIPSOnly runs the command in a child process with
// GODEBUG=fips140=only: HMAC-SHA1 is refused with exit 1 and a message,
// never a panic; HMAC-SHA256 with a 256-bit key still works.
func TestSRv6HMACFIPSOnly(t *testing.T) {
	if os.Getenv("AUTHBGPD_SRV6_FIPS_CHILD") == "1" {
		key := writeKey(t, srv6Secret)
		common := []string{"--key-file", key, "--key-id", "42", "--source", "2001:db8::1",
			"--segments", "fc00:0:1::1,fc00:0:2::1,fc00:0:3::1"}
		rc, out, errs := runSRv6(append([]string{"hmac", "--algorithm", "sha1"}, common...)...)
		if rc != 1 || out != "" || !strings.Contains(errs, "FIPS 140-only") {
			t.Fatalf("sha1: rc %d, stdout %q, stderr %q", rc, out, errs)
		}
		rc, out, errs = runSRv6(append([]string{"hmac", "--algorithm", "sha256"}, common...)...)
		if rc != 0 || out != srv6SHA256KA+"\n" {
			t.Fatalf("sha256: rc %d, stdout %q, stderr %q", rc, out, errs)
		}
		return
	}
	if testing.Short() {
		t.Skip("short")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSRv6HMACFIPSOnly$", "-test.count=1")
	cmd.Env = append(os.Environ(), "AUTHBGPD_SRV6_FIPS_CHILD=1", "GODEBUG=fips140=only")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
}
