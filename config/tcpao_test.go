package config

import (
	"strings"
	"testing"

	"github.com/authbgp/authbgpd/tcpao"
)

const aoChain = G + `
[[keychains]]
name = "ao"
type = "tcp-ao"
  [[keychains.keys]]
  id = 3
  secret = "AO-Key-Three"
  [[keychains.keys]]
  id = 4
  send-id = 40
  recv-id = 41
  algorithm = "aes-128-cmac-96"
  include-tcp-options = false
  secret = "AO-Key-Four"
  send-from = 2026-07-01T00:00:00Z
[[peers]]
address = "192.0.2.2"
asn = 65002
keychain = "ao"
[[peers]]
prefix = "198.51.100.0/24"
asn = 65010
keychain = "ao"
[[peers]]
address = "192.0.2.3"
asn = 65003
password = "md5-stays"
`

// TestTCPAOKeychain: a TCP-AO keychain's keys, their defaults (both
// KeyIDs from id, HMAC-SHA-1-96, options included), and the peers that
// use it in mode tcp-ao beside a TCP-MD5 peer.
func TestTCPAOKeychain(t *testing.T) {
	c, err := parseTest(t, "r1.toml", aoChain)
	if err != nil {
		t.Fatal(err)
	}
	kc := c.Keychain("ao")
	if !kc.IsTCPAO() || len(kc.Keys) != 2 {
		t.Fatalf("keychain %+v", kc)
	}
	k3, k4 := kc.Keys[0], kc.Keys[1]
	if k3.SendID != 3 || k3.RecvID != 3 || k3.Algorithm != AlgHMACSHA196 || !k3.IncludeTCPOptions {
		t.Fatalf("defaults: %+v", k3)
	}
	if k4.SendID != 40 || k4.RecvID != 41 || k4.Algorithm != AlgAESCMAC96 || k4.IncludeTCPOptions {
		t.Fatalf("key 4: %+v", k4)
	}
	for _, id := range []string{"192.0.2.2", "198.51.100.0/24"} {
		if a := c.Peer(id).Auth(); a.Mode != AuthTCPAO || a.Source != SourceKeychain || a.Keychain != "ao" {
			t.Fatalf("%s: auth %+v", id, a)
		}
	}
	for _, w := range c.Warnings {
		// authbgpd signs what it dials (the carried GoBGP's dial hook):
		// a TCP-AO peer is not passive, and nothing warns that it is.
		if strings.Contains(w.String(), "uses TCP-AO") || strings.Contains(w.String(), "passive") {
			t.Errorf("a TCP-AO peer needs no warning: %s", w)
		}
	}
	if a := c.Peer("192.0.2.3").Auth(); a.Mode != AuthMD5 {
		t.Fatalf("password peer: %+v", a)
	}
	if s, id, ok := c.PeerKey(c.Peer("192.0.2.2"), testNow); !ok || id != 3 || string(s) != "AO-Key-Three" {
		t.Fatalf("active key %d ok=%v", id, ok)
	}
	if _, err := parseTest(t, "r1.toml", strings.Replace(aoChain, `type = "tcp-ao"`, `type = "md5"`, 1)); err == nil {
		t.Fatal("TCP-AO fields in an md5 keychain must not parse")
	}
	if kc.AcceptICMPs {
		t.Fatal("accept-icmps defaults to true; RFC 5925 §7.8 and Linux: off")
	}
	on, err := parseTest(t, "r1.toml", strings.Replace(aoChain, `type = "tcp-ao"`, "type = \"tcp-ao\"\naccept-icmps = true", 1))
	if err != nil {
		t.Fatal(err)
	}
	if !on.Keychain("ao").AcceptICMPs {
		t.Fatal("accept-icmps = true not read")
	}
	if ch := Diff(c, on); len(ch.Changed) != 2 || !ch.Changed[0].KeyChanged || len(ch.KeychainsChanged) != 1 {
		t.Fatalf("accept-icmps on: not a change of the keychain's peers: %+v", ch)
	}
}

// TestTCPAOKeychainErrors: every mistake in a TCP-AO keychain is reported
// at its line, all at once; secrets never appear.
func TestTCPAOKeychainErrors(t *testing.T) {
	long81 := strings.Repeat("a", 81)
	for _, tc := range []struct {
		name, from, to string
		want           []string
	}{
		{"unknown type", `type = "tcp-ao"`, `type = "ao"`, []string{`r1.toml:7: type: "ao" is not a keychain type (md5 or tcp-ao)`}},
		{"type not a string", `type = "tcp-ao"`, `type = 29`, []string{`r1.toml:7: type: expected string`}},
		{"md5 keychain with TCP-AO fields", `type = "tcp-ao"`, `type = "md5"`, []string{
			`r1.toml:13: send-id: only keys of a keychain of type = "tcp-ao" have it ([[keychains]] "ao" is md5)`, `r1.toml:14: recv-id:`, `r1.toml:15: algorithm:`, `r1.toml:16: include-tcp-options:`}},
		{"bad algorithm", `"aes-128-cmac-96"`, `"hmac-sha-3-256"`, []string{`r1.toml:15: algorithm: "hmac-sha-3-256" is not a TCP-AO algorithm (` + strings.Join(tcpao.ConfigNames(), ", ") + ")"}},
		{"send-id shared", "send-id = 40", "send-id = 3", []string{`r1.toml:13: send-id: 3 is used by two keys of [[keychains]] "ao" (also at line 8)`}},
		{"recv-id shared", "recv-id = 41", "recv-id = 3", []string{`r1.toml:14: recv-id: 3 is used by two keys of [[keychains]] "ao" (also at line 8)`}},
		{"send-id out of range", "send-id = 40", "send-id = 256", []string{`r1.toml:13: send-id: 256 is out of range 0..255`}},
		{"secret too long", `"AO-Key-Four"`, `"` + long81 + `"`, []string{`r1.toml:17: secret: secret is 81 bytes, longer than 80`}},
		{"accept-icmps in an md5 keychain", "type = \"tcp-ao\"\n", "type = \"md5\"\naccept-icmps = true\n", []string{
			`r1.toml:8: accept-icmps: only a keychain of type = "tcp-ao" has it ([[keychains]] "ao" is md5; TCP-MD5 sessions always act on ICMP errors)`}},
		{"accept-icmps not a bool", "type = \"tcp-ao\"\n", "type = \"tcp-ao\"\naccept-icmps = 1\n", []string{`r1.toml:8: accept-icmps: expected boolean`}},
		{"include-tcp-options not a bool", "include-tcp-options = false", `include-tcp-options = "no"`, []string{`r1.toml:16: include-tcp-options: expected boolean`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := strings.Replace(aoChain, tc.from, tc.to, 1)
			_, err := parseTest(t, "r1.toml", doc)
			if err == nil {
				t.Fatal("parsed")
			}
			got := strings.Join(errStrings(err), "\n")
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %q in:\n%s", w, got)
				}
			}
			if strings.Contains(got, "AO-Key") || strings.Contains(got, long81) {
				t.Errorf("secret in errors:\n%s", got)
			}
		})
	}
}

// TestTCPAODiff: a change of a TCP-AO key's KeyIDs, algorithm or options
// flag is a key change; moving a peer from TCP-MD5 to TCP-AO too.
func TestTCPAODiff(t *testing.T) {
	a := mustParse(t, aoChain)
	for _, to := range []string{"send-id = 42", "recv-id = 42", "include-tcp-options = true", `algorithm = "hmac-sha-1-96"`} {
		from := strings.SplitN(to, " = ", 2)[0]
		var line string
		for _, l := range strings.Split(aoChain, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), from+" = ") {
				line = strings.TrimSpace(l)
			}
		}
		b := mustParse(t, strings.Replace(aoChain, line, to, 1))
		ch := Diff(a, b)
		if len(ch.Changed) != 2 || !ch.Changed[0].KeyChanged {
			t.Fatalf("%s: %+v", to, ch.Changed)
		}
	}
	b := mustParse(t, strings.Replace(aoChain, `password = "md5-stays"`, `keychain = "ao"`, 1))
	ch := Diff(a, b)
	if len(ch.Changed) != 1 || !ch.Changed[0].KeyChanged || !ch.Changed[0].Has("secret") {
		t.Fatalf("md5 -> tcp-ao: %+v", ch.Changed)
	}
}
