package config

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, data string, perm os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), perm); err != nil {
		t.Fatal(err)
	}
	// WriteFile's perm is filtered by the umask: set it exactly.
	if err := os.Chmod(path, perm); err != nil {
		t.Fatal(err)
	}
}

func peerWith(line string) string {
	return G + "[[peers]]\naddress = \"192.0.2.2\"\nasn = 2\n" + line + "\n"
}

func TestSecretFiles(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "private"), "private-key\n", 0o600)
	writeFile(t, filepath.Join(dir, "group"), "group-key\n", 0o640)
	writeFile(t, filepath.Join(dir, "world"), "world-key\n", 0o604)
	writeFile(t, filepath.Join(dir, "crlf"), "crlf-key\r\n", 0o600)
	writeFile(t, filepath.Join(dir, "two"), "two-newlines\n\n", 0o600)
	writeFile(t, filepath.Join(dir, "none"), "no-newline", 0o600)
	writeFile(t, filepath.Join(dir, "spaces"), " spaced \n", 0o400)
	writeFile(t, filepath.Join(dir, "empty"), "\n", 0o600)
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "sub", "nested"), "nested-key\n", 0o600)
	if err := os.Symlink("private", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		file, want string
		warn       bool
	}{
		{"private", "private-key", false},
		{"group", "group-key", true},
		{"world", "world-key", true},
		{"crlf", "crlf-key", false},
		{"two", "two-newlines\n", false}, // exactly one newline is trimmed
		{"none", "no-newline", false},
		{"spaces", " spaced ", false}, // other whitespace is kept
		{"sub/nested", "nested-key", false},
		{"link", "private-key", false},
		{filepath.Join(dir, "private"), "private-key", false}, // absolute
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			// Relative files are read from the config file's directory.
			c, err := parseTest(t, filepath.Join(dir, "r1.toml"), peerWith(fmt.Sprintf("password-file = %q", tc.file)))
			if err != nil {
				t.Fatal(err)
			}
			p := c.Peers[0]
			if string(p.Password) != tc.want {
				t.Errorf("secret %q, want %q", string(p.Password), tc.want)
			}
			if a := p.Auth(); a.Mode != AuthMD5 || a.Source != SourcePasswordFile {
				t.Errorf("auth %+v", a)
			}
			if !filepath.IsAbs(p.PasswordRef) {
				t.Errorf("ref %q is not the resolved path", p.PasswordRef)
			}
			warned := false
			for _, w := range c.Warnings {
				if strings.Contains(w.Msg, "readable by group or others") {
					warned = true
					if w.Line != 7 || !strings.HasPrefix(w.Msg, "password-file: secret file "+p.PasswordRef) {
						t.Errorf("warning %q", w)
					}
				}
			}
			if warned != tc.warn {
				t.Errorf("permission warning %v, want %v (%v)", warned, tc.warn, c.Warnings)
			}
		})
	}

	// A file with only a newline is an empty secret.
	_, err := parseTest(t, filepath.Join(dir, "r1.toml"), peerWith(`password-file = "empty"`))
	if err == nil || !strings.Contains(err.Error(), "r1.toml:7: password-file: secret is empty") {
		t.Errorf("empty file: %v", err)
	}
	// A symlink to a non-regular file is refused (no blocking on FIFOs).
	if err := os.Symlink("/dev/null", filepath.Join(dir, "devnull")); err != nil {
		t.Fatal(err)
	}
	_, err = parseTest(t, filepath.Join(dir, "r1.toml"), peerWith(`password-file = "devnull"`))
	if err == nil || !strings.Contains(err.Error(), "is not a regular file") {
		t.Errorf("device: %v", err)
	}
}

func TestSecretEnvAndInline(t *testing.T) {
	t.Setenv("AUTHBGPD_TEST_KEY", "from-env\r\n")
	t.Setenv("AUTHBGPD_TEST_EMPTY", "")
	c, err := Parse("r1.toml", []byte(peerWith(`password-env = "AUTHBGPD_TEST_KEY"`)))
	if err != nil {
		t.Fatal(err)
	}
	if p := c.Peers[0]; string(p.Password) != "from-env" || p.PasswordSource != SourcePasswordEnv || p.PasswordRef != "AUTHBGPD_TEST_KEY" {
		t.Errorf("env: %+v", p)
	}
	if len(c.Warnings) != 0 {
		t.Errorf("env warnings: %v", c.Warnings)
	}
	_, err = Parse("r1.toml", []byte(peerWith(`password-env = "AUTHBGPD_TEST_EMPTY"`)))
	if err == nil || err.Error() != "r1.toml:7: password-env: environment variable AUTHBGPD_TEST_EMPTY is empty" {
		t.Errorf("empty env: %v", err)
	}
	_, err = Parse("r1.toml", []byte(peerWith(`password-env = "AUTHBGPD_TEST_UNSET_VARIABLE"`)))
	if err == nil || err.Error() != "r1.toml:7: password-env: environment variable AUTHBGPD_TEST_UNSET_VARIABLE is not set" {
		t.Errorf("unset env: %v", err)
	}

	c, err = Parse("r1.toml", []byte(peerWith(`password = "inline-pw"`)))
	if err != nil {
		t.Fatal(err)
	}
	if p := c.Peers[0]; string(p.Password) != "inline-pw" || p.PasswordSource != SourcePassword {
		t.Errorf("inline: %+v", p)
	}
	if len(c.Warnings) != 1 || c.Warnings[0].String() != "r1.toml:7: password: inline secrets are discouraged; use password-file or password-env" {
		t.Errorf("inline warnings: %v", c.Warnings)
	}
	// Inline secrets are taken verbatim (no newline trimming).
	c, err = Parse("r1.toml", []byte(peerWith(`password = "a\n"`)))
	if err != nil || string(c.Peers[0].Password) != "a\n" {
		t.Errorf("inline newline: %v", err)
	}
}

// TestSecretsNeverInMessages runs configurations whose secrets are
// distinctive strings through every path that produces an error or a
// warning, and checks no message (nor any formatting of the Config)
// contains one.
func TestSecretsNeverInMessages(t *testing.T) {
	dir := t.TempDir()
	secrets := []string{}
	mk := func(n int) string {
		s := fmt.Sprintf("Zq%dXsekritValue%d", n, n*7919)
		secrets = append(secrets, s)
		return s
	}
	long := func(n, size int) string {
		s := mk(n)
		for len(s) < size {
			s += "Y"
		}
		secrets = append(secrets, s)
		return s
	}
	fileWith := func(name, content string, perm os.FileMode) string {
		writeFile(t, filepath.Join(dir, name), content, perm)
		return name
	}
	s1, s2, s3, s4 := mk(1), mk(2), mk(3), mk(4)
	t.Setenv("AUTHBGPD_SECRET_A", s1)
	t.Setenv("AUTHBGPD_SECRET_LONG", long(5, 100))
	keychain := func(secretLine string) string {
		return G + "[[keychains]]\nname = \"k\"\n[[keychains.keys]]\nid = 1\n" + secretLine + "\n"
	}
	hmac := func(secretLine string) string {
		return G + "[[srv6.hmac-keys]]\nid = 1\nalgorithm = \"sha256\"\n" + secretLine + "\n"
	}
	configs := []string{
		// Valid, with warnings (inline, group-readable file, unused keychain).
		peerWith(fmt.Sprintf("password = %q", s2)),
		peerWith(fmt.Sprintf("password-file = %q", fileWith("f1", s3+"\n", 0o644))),
		peerWith(`password-env = "AUTHBGPD_SECRET_A"`),
		keychain(fmt.Sprintf("secret = %q", s4)),
		hmac(fmt.Sprintf("secret = %q", mk(6))),
		// Too long, from every source.
		peerWith(fmt.Sprintf("password = %q", long(7, 81))),
		peerWith(fmt.Sprintf("password-file = %q", fileWith("f2", long(8, 200), 0o600))),
		peerWith(`password-env = "AUTHBGPD_SECRET_LONG"`),
		keychain(fmt.Sprintf("secret = %q", long(9, 81))),
		keychain(fmt.Sprintf("secret-file = %q", fileWith("f3", long(10, 90)+"\n", 0o666))),
		hmac(fmt.Sprintf("secret = %q", long(11, 65))),
		hmac(fmt.Sprintf("secret-file = %q", fileWith("f4", long(12, 65), 0o600))),
		// Secrets next to other errors.
		peerWith(fmt.Sprintf("password = %q\npassword-env = \"AUTHBGPD_SECRET_A\"", mk(13))),
		peerWith(fmt.Sprintf("password = %q\nkeychain = \"nope\"\nmultihop-ttl = 999", mk(14))),
		peerWith(fmt.Sprintf("pasword = %q", mk(15))),                      // unknown key
		peerWith(fmt.Sprintf("password = [%q]", mk(16))),                   // wrong type
		peerWith(fmt.Sprintf("password = { v = %q }", mk(17))),             // wrong type
		keychain(fmt.Sprintf("secret = %q\nsecret-file = \"f1\"", mk(19))), // two sources
		keychain(fmt.Sprintf("secret = %q\nsend-from = 2026-01-01T00:00:00", mk(20))),
		hmac(fmt.Sprintf("secret = %q\nsecret-env = \"NOPE\"", mk(21))),
		hmac(fmt.Sprintf("secret = %q\nid = 0", mk(22))), // TOML duplicate key error
		peerWith(fmt.Sprintf("password = %q\nfamilies = [\"x\"]", mk(23))),
		// Broken TOML near a secret.
		peerWith(fmt.Sprintf("password = %q extra", mk(24))),
		peerWith(fmt.Sprintf("password = %q\npassword = %q", mk(25), mk(26))),
		peerWith(fmt.Sprintf("password = \"%s", mk(27))),
		peerWith(fmt.Sprintf("password = '''%s", mk(28))),
	}
	check := func(t *testing.T, what, s string) {
		t.Helper()
		for _, sec := range secrets {
			if strings.Contains(s, sec) || strings.Contains(s, hex.EncodeToString([]byte(sec))) ||
				strings.Contains(s, sec[:12]) {
				t.Errorf("%s contains secret %q:\n%s", what, sec, s)
			}
		}
	}
	for i, doc := range configs {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			c, err := Parse(filepath.Join(dir, "r1.toml"), []byte(doc))
			if err != nil {
				check(t, "error", err.Error())
				for _, e := range Errors(err) {
					check(t, "error", e.Msg)
					check(t, "error", fmt.Sprintf("%+v %#v", e, e))
				}
				return
			}
			for _, w := range c.Warnings {
				check(t, "warning", w.String())
			}
			for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%x", "%q"} {
				check(t, "config "+verb, fmt.Sprintf(verb, c))
				check(t, "config "+verb, fmt.Sprintf(verb, *c))
			}
			js, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			check(t, "json", string(js))
			if err := c.Validate(); err != nil {
				check(t, "validate", err.Error())
			}
			ch := Diff(c, c)
			check(t, "diff", fmt.Sprintf("%+v", ch))
		})
	}
	// The checks above must be able to see a secret.
	if !strings.Contains(fmt.Sprint(string(Secret(s1))), s1) {
		t.Fatal("check is blind")
	}
}

// TestReadSecretFileExact: a secret read from its file is an exact copy
// (no read buffer kept behind it: 1,000 files keep no 512 B each), its
// newline trimmed, whatever the file's size.
func TestReadSecretFileExact(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ body, want string }{
		{"s3cret\n", "s3cret"},
		{"s3cret\r\n", "s3cret"},
		{"no-newline", "no-newline"},
		{strings.Repeat("k", 3000) + "\n", strings.Repeat("k", 3000)},
	} {
		f := filepath.Join(dir, "key")
		if err := os.WriteFile(f, []byte(c.body), 0o600); err != nil {
			t.Fatal(err)
		}
		got, _, err := readSecretFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.want || cap(got) >= len(got)+128 { // at most the allocator's size class above it

			t.Errorf("%d-byte file: read %d bytes (cap %d), want %d", len(c.body), len(got), cap(got), len(c.want))
		}
	}
}
