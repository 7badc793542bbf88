package shadow

import (
	"encoding/json"
	"net/netip"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/internal/testlog"
	"github.com/authbgp/authbgpd/metrics"
	"github.com/authbgp/authbgpd/peerindex"
)

// TestDiagnosisLogFields: the diagnosis log line of a TCP-AO peer carries
// its bad_mac, unknown_key and no_handshake counts, each its own (not
// bad_digest); a TCP-MD5 peer's carries bad_digest and none of them.
func TestDiagnosisLogFields(t *testing.T) {
	cfg, err := config.Parse("log.toml", []byte("[global]\nasn = 65001\nrouter-id = \"192.0.2.1\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	var logs testlog.Buffer
	log := logrus.New()
	log.SetOutput(&logs)
	log.SetFormatter(&logrus.JSONFormatter{})
	r := NewRunner(peerindex.New(cfg), log, metrics.New("test"), RunnerOptions{})
	ao := PeerReport{Address: netip.MustParseAddr("192.0.2.7"), PeerID: "192.0.2.7", Diagnosis: DiagBadMAC, TCPAO: true,
		Received: Counts{Valid: 11, BadDigest: 99, Missing: 2, Unexpected: 1, BadMAC: 7, UnknownKey: 5, NoHandshake: 3}}
	md5 := PeerReport{Address: netip.MustParseAddr("192.0.2.8"), PeerID: "192.0.2.8", Diagnosis: DiagBadDigest,
		Received: Counts{Valid: 4, BadDigest: 6}}
	r.onChange(ao)
	r.onChange(md5)
	lines := map[string]map[string]any{}
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		if p, ok := m["peer"].(string); ok {
			lines[p] = m
		}
	}
	a, m := lines["192.0.2.7"], lines["192.0.2.8"]
	if a == nil || m == nil {
		t.Fatalf("log lines %v", lines)
	}
	for k, want := range map[string]float64{"valid": 11, "bad_mac": 7, "unknown_key": 5, "no_handshake": 3, "missing": 2, "unexpected": 1} {
		if got, ok := a[k].(float64); !ok || got != want {
			t.Errorf("TCP-AO line: %s = %v, want %v (%v)", k, a[k], want, a)
		}
	}
	if _, ok := a["bad_digest"]; ok {
		t.Errorf("TCP-AO line has bad_digest: %v", a)
	}
	if got, ok := m["bad_digest"].(float64); !ok || got != 6 {
		t.Errorf("TCP-MD5 line: bad_digest %v", m["bad_digest"])
	}
	for _, k := range []string{"bad_mac", "unknown_key", "no_handshake"} {
		if _, ok := m[k]; ok {
			t.Errorf("TCP-MD5 line has %s: %v", k, m)
		}
	}
}
