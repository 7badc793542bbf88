package config

import (
	"slices"
	"testing"
)

// TestSecrets: every secret of a config, whatever its source and
// mechanism, once; a peer without one adds nothing.
func TestSecrets(t *testing.T) {
	c, err := Parse("s.toml", []byte(`[global]
asn = 65001
router-id = "192.0.2.1"

[[keychains]]
name = "md5"
  [[keychains.keys]]
  id = 1
  secret = "Chain-Key-One"
  [[keychains.keys]]
  id = 2
  secret = "Peer-Inline-Secret"
  send-from = 2026-03-01T00:00:00Z

[[keychains]]
name = "ao"
type = "tcp-ao"
  [[keychains.keys]]
  id = 3
  secret = "AO-Key-Three"

[[peers]]
address = "192.0.2.2"
asn = 65002
password = "Peer-Inline-Secret"

[[peers]]
address = "192.0.2.3"
asn = 65003
keychain = "md5"

[[peers]]
address = "192.0.2.4"
asn = 65004
keychain = "ao"

[[peers]]
address = "192.0.2.5"
asn = 65005

[srv6]
hmac-keys = [{id = 7, algorithm = "sha1", secret = "HMAC-Key-Seven"}]
`))
	if err != nil {
		t.Fatal(err)
	}
	got := c.Secrets()
	want := []string{"Peer-Inline-Secret", "Chain-Key-One", "AO-Key-Three", "HMAC-Key-Seven"}
	if !slices.Equal(got, want) {
		t.Fatalf("Secrets() = %d secrets, want %d (in order: peers, keychains, SRv6)", len(got), len(want)) // never print them
	}
	if s := (&Config{}).Secrets(); len(s) != 0 {
		t.Fatalf("an empty config has %d secrets", len(s))
	}
}
