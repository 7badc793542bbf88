package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The kernel-made SRv6 captures and their keys (see srv6policy's tests):
// testdata/kernel_hmac.pcap has 20 SRHs with key 4201 (HMAC-SHA256) and 20
// with key 4202 (HMAC-SHA1); frame/testdata/srv6.pcap has 11 with key 42.
var vpSRv6Caps = []string{"../../srv6policy/testdata/kernel_hmac.pcap", "../../frame/testdata/srv6.pcap"}

const vpSRv6Global = `[global]
asn = 65001
router-id = "192.0.2.1"
`

func vpSRv6Key(id int, alg, secret string) string {
	return "[[srv6.hmac-keys]]\nid = " + itoa(id) + "\nalgorithm = \"" + alg + "\"\nsecret = \"" + secret + "\"\n"
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// TestVerifyPcapSRH: verify-pcap checks every SRH HMAC of the captures with
// the config's [[srv6.hmac-keys]] and counts valid, invalid, no_hmac and
// unknown_key, in JSON and in text; secrets never show.
func TestVerifyPcapSRH(t *testing.T) {
	k4201 := vpSRv6Key(4201, "sha256", "authbgpd-srv6-sha256-test-key")
	k4202 := vpSRv6Key(4202, "sha1", "authbgpd-srv6-sha1-test-key")
	k42 := vpSRv6Key(42, "sha256", "srv6key")
	for _, c := range []struct {
		name                              string
		keys                              string
		valid, invalid, noHMAC, unknownID uint64
	}{
		{"all keys", k4201 + k4202 + k42, 51, 0, 0, 0},
		{"no key 42", k4201 + k4202, 40, 0, 0, 11},
		{"wrong sha1 secret", k4201 + vpSRv6Key(4202, "sha1", "Wrong-Secret-Quokka") + k42, 31, 20, 0, 0},
		{"sha256 instead of sha1", k4201 + vpSRv6Key(4202, "sha256", "authbgpd-srv6-sha1-test-key") + k42, 31, 20, 0, 0},
		{"no keys", "", 0, 0, 0, 51},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := filepath.Join(t.TempDir(), "r.toml")
			if err := os.WriteFile(cfg, []byte(vpSRv6Global+c.keys), 0o600); err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			if rc := run(append([]string{"verify-pcap", "-f", cfg, "--json"}, vpSRv6Caps...), &out, &errb); rc != 0 {
				t.Fatalf("exit %d: %s", rc, errb.String())
			}
			var rep struct {
				SRH struct {
					Valid      uint64 `json:"valid"`
					Invalid    uint64 `json:"invalid"`
					NoHMAC     uint64 `json:"no_hmac"`
					UnknownKey uint64 `json:"unknown_key"`
				} `json:"srh"`
			}
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
				t.Fatalf("%v: %s", err, out.String())
			}
			h := rep.SRH
			if h.Valid != c.valid || h.Invalid != c.invalid || h.NoHMAC != c.noHMAC || h.UnknownKey != c.unknownID {
				t.Fatalf("srh %+v, want valid %d invalid %d no_hmac %d unknown_key %d", h, c.valid, c.invalid, c.noHMAC, c.unknownID)
			}
			if s := out.String() + errb.String(); strings.Contains(s, "Quokka") || strings.Contains(s, "test-key") {
				t.Fatal("the report shows a secret")
			}
			out.Reset()
			if rc := run(append([]string{"verify-pcap", "-f", cfg}, vpSRv6Caps...), &out, &errb); rc != 0 ||
				!strings.Contains(out.String(), "SRv6 SRH HMACs: "+itoa(int(c.valid))+" valid, "+itoa(int(c.invalid))+" invalid") {
				t.Fatalf("text: exit %d\n%s", rc, out.String())
			}
		})
	}
}
