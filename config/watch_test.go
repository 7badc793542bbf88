package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestConfigWatch: [config] watch is on by default, off with false; a
// wrong type and an unknown key in [config] are errors at their lines.
func TestConfigWatch(t *testing.T) {
	base := "[global]\nasn = 65001\nrouter-id = \"192.0.2.1\"\n"
	for _, c := range []struct {
		text string
		want bool
	}{{"", true}, {"\n[config]\nwatch = true\n", true}, {"\n[config]\nwatch = false\n", false}} {
		cfg, err := Parse("/x/a.toml", []byte(base+c.text))
		if err != nil {
			t.Fatalf("%q: %v", c.text, err)
		}
		if cfg.Config.Watch != c.want {
			t.Errorf("%q: watch %v, want %v", c.text, cfg.Config.Watch, c.want)
		}
	}
	_, err := Parse("/x/a.toml", []byte(base+"\n[config]\nwatch = \"no\"\nwatsh = true\n"))
	for _, want := range []string{"/x/a.toml:6: watch: expected boolean, got string", "/x/a.toml:7: unknown key \"watsh\" in [config]"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
}

// TestFiles: the config file and every *-file secret, resolved against the
// config's directory, each once; variables and inline secrets are no files.
func TestFiles(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"pw", "k1", "hmac"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("secret-"+f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	abs := filepath.Join(dir, "hmac")
	text := `[global]
asn = 65001
router-id = "192.0.2.1"

[[keychains]]
name = "k"
  [[keychains.keys]]
  id = 1
  secret-file = "k1"
  [[keychains.keys]]
  id = 2
  secret = "inline-two"
  send-from = 2026-06-01T00:00:00Z

[[peers]]
address = "192.0.2.2"
asn = 65002
password-file = "pw"

[[peers]]
address = "192.0.2.3"
asn = 65003
password-file = "pw"

[[peers]]
address = "192.0.2.4"
asn = 65004
keychain = "k"

[[peers]]
address = "192.0.2.5"
asn = 65005
password-env = "AUTHBGPD_FILES_TEST"

[[srv6.hmac-keys]]
id = 42
algorithm = "sha256"
secret-file = "` + abs + `"
`
	t.Setenv("AUTHBGPD_FILES_TEST", "from-env")
	conf := filepath.Join(dir, "authbgpd.toml")
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(conf)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{conf, filepath.Join(dir, "pw"), filepath.Join(dir, "k1"), abs}
	if got := c.Files(); !slices.Equal(got, want) {
		t.Fatalf("Files:\n got %q\nwant %q", got, want)
	}
}
