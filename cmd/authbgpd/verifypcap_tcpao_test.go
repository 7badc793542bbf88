package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/authbgp/authbgpd/internal/testenv"
)

// The generated TCP-AO captures and their config (shadow/aogen_test.go
// makes them: go test ./shadow -run TestAOCaptures -update-ao).
const (
	aoCfg   = "../../shadow/testdata/tcpao.toml"
	aoMixed = "../../shadow/testdata/tcpao-mixed.pcap"
	aoMid   = "../../shadow/testdata/tcpao-midstream.pcap"
)

type aoReport struct {
	Files []struct {
		Name  string            `json:"name"`
		Stats map[string]uint64 `json:"stats"`
	} `json:"files"`
	Peers []struct {
		Address string          `json:"address"`
		Peer    string          `json:"peer"`
		Shadow  json.RawMessage `json:"shadow"`
	} `json:"peers"`
}

type aoShadow struct {
	Diagnosis string            `json:"diagnosis"`
	PeerKeyID *int              `json:"peer_key_id"`
	Segments  map[string]uint64 `json:"segments"`
	Sent      map[string]uint64 `json:"sent"`
	KeyIDs    []map[string]int  `json:"key_ids"`
}

// aoSecretRE matches the generated config's inline secrets.
var aoSecretRE = regexp.MustCompile(`(?m)^\s*(?:secret|password) = "([^"]+)"`)

func aoSecrets(t *testing.T) []string {
	b, err := os.ReadFile(aoCfg)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range aoSecretRE.FindAllStringSubmatch(string(b), -1) {
		out = append(out, m[1])
	}
	if len(out) < 10 {
		t.Fatalf("%d secrets in %s", len(out), aoCfg)
	}
	return out
}

func noSecrets(t *testing.T, what string, texts ...string) {
	t.Helper()
	for _, s := range aoSecrets(t) {
		for _, text := range texts {
			if strings.Contains(text, s) {
				t.Fatalf("%s shows a secret of the config (%d bytes)", what, len(s))
			}
		}
	}
}

// TestVerifyPcapTCPAO: verify-pcap --json on the generated captures gives
// every peer — TCP-AO and TCP-MD5 side by side, IPv4 and IPv6 — its
// diagnosis, with the TCP-AO fields (segments.bad_mac, unknown_key,
// no_handshake, sent.no_handshake, key_ids) for TCP-AO peers only.
func TestVerifyPcapTCPAO(t *testing.T) {
	var out, errb bytes.Buffer
	if rc := run([]string{"verify-pcap", "-f", aoCfg, "--json", aoMixed}, &out, &errb); rc != 0 {
		t.Fatalf("exit %d: %s", rc, errb.String())
	}
	noSecrets(t, "verify-pcap --json", out.String(), errb.String())
	var rep aoReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	want := map[string]string{
		"192.0.2.10": "ok", "192.0.2.11": "ok", "2001:db8::10": "ok", "2001:db8::11": "ok", "192.0.2.12": "ok",
		"192.0.2.13": "bad-mac", "192.0.2.14": "unknown-key", "192.0.2.15": "options-mismatch",
		"192.0.2.16": "wrong-mechanism", "192.0.2.17": "wrong-mechanism", "192.0.2.18": "ok",
		"192.0.2.19": "unexpected", "192.0.2.20": "missing", "2001:db8::12": "bad-mac", "192.0.2.21": "ok",
	}
	md5Peers := map[string]bool{"192.0.2.17": true, "192.0.2.18": true, "192.0.2.19": true}
	if len(rep.Peers) != len(want) || len(rep.Files) != 1 || rep.Files[0].Stats["checked"] != rep.Files[0].Stats["packets"] {
		t.Fatalf("%d peers, files %+v", len(rep.Peers), rep.Files)
	}
	for _, p := range rep.Peers {
		var sh aoShadow
		if err := json.Unmarshal(p.Shadow, &sh); err != nil {
			t.Fatal(err)
		}
		if sh.Diagnosis != want[p.Address] {
			t.Errorf("%s: %s, want %s", p.Address, sh.Diagnosis, want[p.Address])
		}
		_, hasBadMAC := sh.Segments["bad_mac"]
		_, hasNoHS := sh.Sent["no_handshake"]
		if hasBadMAC == md5Peers[p.Address] || hasNoHS == md5Peers[p.Address] {
			t.Errorf("%s: TCP-AO fields %v/%v: %s", p.Address, hasBadMAC, hasNoHS, p.Shadow)
		}
		switch p.Address {
		case "192.0.2.14":
			if sh.PeerKeyID == nil || *sh.PeerKeyID != 9 || sh.Segments["unknown_key"] != 4 {
				t.Errorf("unknown-key: %s", p.Shadow)
			}
		case "192.0.2.15":
			if sh.Segments["bad_mac"] != 4 {
				t.Errorf("options-mismatch: %s", p.Shadow)
			}
		case "192.0.2.12":
			if got := fmt.Sprint(sh.KeyIDs); got != "[map[key_id:1 rnext_key_id:1 segments:6] map[key_id:1 rnext_key_id:2 segments:2] map[key_id:2 rnext_key_id:2 segments:3]]" {
				t.Errorf("rollover key_ids %s", got)
			}
			if sh.Segments["valid"] != 11 || sh.Sent["valid"] != 9 {
				t.Errorf("rollover: %s", p.Shadow)
			}
		case "192.0.2.21":
			if sh.Segments["valid"] != 14 || sh.Sent["valid"] != 12 {
				t.Errorf("SNE wrap: %s", p.Shadow)
			}
		case "192.0.2.18":
			if sh.Segments["valid"] != 6 || len(sh.KeyIDs) != 0 {
				t.Errorf("TCP-MD5 peer: %s", p.Shadow)
			}
		}
	}

	// The capture that starts mid-connection.
	out.Reset()
	if rc := run([]string{"verify-pcap", "-f", aoCfg, "--json", aoMid}, &out, &errb); rc != 0 {
		t.Fatalf("midstream: exit %d: %s", rc, errb.String())
	}
	rep = aoReport{}
	json.Unmarshal(out.Bytes(), &rep)
	if len(rep.Peers) != 2 {
		t.Fatalf("midstream: %s", out.String())
	}
	for _, p := range rep.Peers {
		var sh aoShadow
		json.Unmarshal(p.Shadow, &sh)
		if sh.Diagnosis != "no-handshake" || sh.Segments["no_handshake"] != 3 || sh.Sent["no_handshake"] != 2 {
			t.Errorf("midstream %s: %s", p.Address, p.Shadow)
		}
	}

	// The table: TCP-AO peers' diagnoses, BAD counting bad MACs, the
	// TCP-AO columns, the KeyID pairs.
	out.Reset()
	if rc := run([]string{"verify-pcap", "-f", aoCfg, aoMixed}, &out, &errb); rc != 0 {
		t.Fatalf("text: exit %d", rc)
	}
	text := out.String()
	noSecrets(t, "verify-pcap", text)
	for _, s := range []string{"UNKNOWN-KEY", "NO-HANDSHAKE", "unknown-key(9)", "options-mismatch", "wrong-mechanism",
		"192.0.2.12: TCP-AO KeyID/RNextKeyID sent: 1/1 (6 segments), 1/2 (2 segments), 2/2 (3 segments)"} {
		if !strings.Contains(text, s) {
			t.Errorf("table lacks %q:\n%s", s, text)
		}
	}
	for _, l := range strings.Split(text, "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) > 0 && f[0] == "192.0.2.13":
			if f[4] != "4" || f[10] != "0" {
				t.Errorf("bad-mac row: %q", l)
			}
		case len(f) > 0 && f[0] == "192.0.2.18":
			if f[10] != "-" || f[11] != "-" {
				t.Errorf("TCP-MD5 row: %q", l)
			}
		}
	}
}

// TestVerifyPcapFailOnTCPAO: --fail-on takes the TCP-AO diagnoses, and
// "any"; the failing peers are named on stderr.
func TestVerifyPcapFailOnTCPAO(t *testing.T) {
	for _, c := range []struct {
		file, failOn string
		rc           int
		names        []string
	}{
		{aoMixed, "bad-mac", 1, []string{"192.0.2.13 bad-mac", "2001:db8::12 bad-mac"}},
		{aoMixed, "unknown-key", 1, []string{"192.0.2.14 unknown-key"}},
		{aoMixed, "options-mismatch", 1, []string{"192.0.2.15 options-mismatch"}},
		{aoMixed, "wrong-mechanism", 1, []string{"192.0.2.16 wrong-mechanism", "192.0.2.17 wrong-mechanism"}},
		{aoMixed, "no-handshake", 0, nil},
		{aoMid, "no-handshake", 1, []string{"192.0.2.10 no-handshake", "2001:db8::10 no-handshake"}},
		{aoMid, "bad-mac,unknown-key", 0, nil},
		{aoMixed, "any", 1, []string{"192.0.2.13 bad-mac", "192.0.2.19 unexpected", "192.0.2.20 missing"}},
	} {
		var out, errb bytes.Buffer
		rc := run([]string{"verify-pcap", "-f", aoCfg, "--fail-on", c.failOn, c.file}, &out, &errb)
		if rc != c.rc {
			t.Errorf("--fail-on %s %s: exit %d, want %d: %s", c.failOn, c.file, rc, c.rc, errb.String())
		}
		for _, n := range c.names {
			if !strings.Contains(errb.String(), n) {
				t.Errorf("--fail-on %s: stderr %q does not name %q", c.failOn, errb.String(), n)
			}
		}
		noSecrets(t, "verify-pcap --fail-on", out.String(), errb.String())
	}
	var out, errb bytes.Buffer
	if rc := run([]string{"verify-pcap", "-f", aoCfg, "--fail-on", "bad-macs", aoMixed}, &out, &errb); rc != 2 || !strings.Contains(errb.String(), "options-mismatch") {
		t.Errorf("unknown --fail-on: exit %d, %q", rc, errb.String())
	}
}

// TestVerifyPcapTCPAOAgainstTcpdump: in the mixed capture, the TCP-MD5
// peer's segments (both directions) that verify-pcap calls valid are the
// ones tcpdump -M, an independent RFC 2385 implementation, calls valid —
// and with another key tcpdump calls them invalid (the oracle can fail).
// The TCP-AO peers' MACs are checked against scapy in shadow's
// TestScapyCrossCheck.
func TestVerifyPcapTCPAOAgainstTcpdump(t *testing.T) {
	td := testenv.RequireBinary(t, "tcpdump", "/usr/sbin", "/usr/bin")
	var out, errb bytes.Buffer
	if rc := run([]string{"verify-pcap", "-f", aoCfg, "--json", aoMixed}, &out, &errb); rc != 0 {
		t.Fatalf("exit %d: %s", rc, errb.String())
	}
	var rep aoReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	var ours uint64
	for _, p := range rep.Peers {
		if p.Address == "192.0.2.18" {
			var sh aoShadow
			if err := json.Unmarshal(p.Shadow, &sh); err != nil {
				t.Fatal(err)
			}
			ours = sh.Segments["valid"] + sh.Sent["valid"]
		}
	}
	count := func(key, word string) uint64 {
		b, err := exec.Command(td, "-r", aoMixed, "-nn", "-v", "-M", key, "host 192.0.2.18").Output()
		if err != nil {
			t.Fatalf("tcpdump: %v", err)
		}
		return uint64(strings.Count(string(b), word))
	}
	if valid := count("Md5-Ok-Password-Gecko", "md5 valid"); ours == 0 || valid != ours {
		t.Fatalf("192.0.2.18: verify-pcap %d valid, tcpdump -M %d", ours, valid)
	}
	if n := count("not-the-key", "(invalid)"); n != ours {
		t.Fatalf("tcpdump -M with another key: %d invalid of %d", n, ours)
	}
}
