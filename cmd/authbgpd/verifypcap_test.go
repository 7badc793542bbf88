package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const vpConfig = `[global]
asn = 65001
router-id = "192.0.2.1"
[[peers]]
address = "192.0.2.2"
asn = 65002
password-env = "VP_TEST_KEY_V4"
[[peers]]
address = "2001:db8::2"
asn = 65002
password-env = "VP_TEST_KEY_V6"
`

func TestVerifyPcap(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "r.toml")
	if err := os.WriteFile(cfg, []byte(vpConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("VP_TEST_KEY_V4", "authbgpd-e2e-md5-key") // the captures' key
	t.Setenv("VP_TEST_KEY_V6", "Wrong-Key-Xylophone")
	caps := []string{"../../e2e/testdata/frr-gobgpd-md5-v4.pcap", "../../e2e/testdata/frr-gobgpd-md5-v6.pcap"}
	var out, errb bytes.Buffer
	if rc := run(append([]string{"verify-pcap", "-f", cfg, "--json"}, caps...), &out, &errb); rc != 0 {
		t.Fatalf("exit %d: %s", rc, errb.String())
	}
	var rep struct {
		Peers []struct {
			Address string `json:"address"`
			Shadow  struct {
				Diagnosis string `json:"diagnosis"`
				Segments  struct {
					Valid     uint64 `json:"valid"`
					BadDigest uint64 `json:"bad_digest"`
				} `json:"segments"`
			} `json:"shadow"`
		} `json:"peers"`
		SRH map[string]uint64 `json:"srh"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	got := map[string]string{}
	for _, p := range rep.Peers {
		got[p.Address] = p.Shadow.Diagnosis
	}
	if got["192.0.2.2"] != "ok" || got["2001:db8::2"] != "bad-digest" || len(got) != 2 {
		t.Fatalf("diagnoses %v", got)
	}
	for _, k := range []string{"valid", "invalid", "no_hmac", "unknown_key"} {
		if _, ok := rep.SRH[k]; !ok {
			t.Fatalf("srh.%s missing: %s", k, out.String())
		}
	}
	if strings.Contains(out.String()+errb.String(), "Wrong-Key-Xylophone") {
		t.Fatal("report leaks a secret")
	}

	// Text output names the peers and diagnoses.
	out.Reset()
	if rc := run(append([]string{"verify-pcap", "-f", cfg}, caps...), &out, &errb); rc != 0 || !strings.Contains(out.String(), "bad-digest") {
		t.Fatalf("text: exit %d\n%s", rc, out.String())
	}

	// A truncated capture is an error naming the file, exit 1.
	b, _ := os.ReadFile(caps[0])
	trunc := filepath.Join(dir, "cut.pcap")
	os.WriteFile(trunc, b[:len(b)/2], 0o600)
	errb.Reset()
	if rc := run([]string{"verify-pcap", "-f", cfg, trunc}, &out, &errb); rc != 1 || !strings.Contains(errb.String(), "cut.pcap") {
		t.Fatalf("truncated: exit %d, %q", rc, errb.String())
	}
	errb.Reset()
	if rc := run([]string{"verify-pcap", "-f", cfg, cfg}, &out, &errb); rc != 1 || !strings.Contains(errb.String(), "r.toml") {
		t.Fatalf("not a capture: exit %d, %q", rc, errb.String())
	}
}
