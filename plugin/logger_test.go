package plugin

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	gobgplog "github.com/osrg/gobgp/v3/pkg/log"
	"github.com/sirupsen/logrus"
)

// TestLogAdapterJSONFields: GoBGP's log fields come out under our names
// (Key is the peer, Topic the topic, ...), with component=gobgp, so every
// JSON line has snake_case keys only; secrets stay scrubbed.
func TestLogAdapterJSONFields(t *testing.T) {
	const pw = "json-l0g-secret"
	var buf syncBuffer
	secrets := &secretSet{}
	secrets.add(pw)
	a := newLogAdapter(newTestLogger(&buf, logrus.DebugLevel, true), secrets)
	a.Info("Peer Up", gobgplog.Fields{"Topic": "Peer", "Key": "192.0.2.2", "State": "BGP_FSM_OPENCONFIRM", "AdminState": "up"})
	a.Warn("sent notification", gobgplog.Fields{"Topic": "Peer", "Key": "192.0.2.2", "Code": 6, "Subcode": 2, "Data": "x " + pw})
	a.Error("failed", gobgplog.Fields{"Topic": "config", "Error": "bad " + pw, "VRF": "red", "ReceivedRf": "ipv4", gobgplog.FieldFacility: "fsm"})
	// One of ours, through the same logger, for the shared schema.
	a.l.WithFields(logrus.Fields{"component": "peers", "peer": "192.0.2.2"}).Info("ours")

	snake := regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	want := []map[string]any{
		{"topic": "Peer", "peer": "192.0.2.2", "state": "BGP_FSM_OPENCONFIRM", "admin_state": "up", "component": "gobgp"},
		{"topic": "Peer", "peer": "192.0.2.2", "code": 6.0, "subcode": 2.0, "component": "gobgp"},
		{"topic": "config", "vrf": "red", "received_rf": "ipv4", "facility": "fsm", "component": "gobgp"},
		{"component": "peers", "peer": "192.0.2.2"},
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines:\n%s", len(lines), buf.String())
	}
	for i, line := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line %d is not JSON: %v: %s", i, err, line)
		}
		for k := range m {
			if !snake.MatchString(k) {
				t.Errorf("line %d: key %q is not ours (snake_case): %s", i, k, line)
			}
		}
		for k, v := range want[i] {
			if m[k] != v {
				t.Errorf("line %d: %s = %v, want %v: %s", i, k, m[k], v, line)
			}
		}
	}
	if strings.Contains(buf.String(), pw) {
		t.Fatalf("secret in JSON log:\n%s", buf.String())
	}
	if !strings.Contains(lines[2], `"error":"bad `) {
		t.Errorf("GoBGP's Error is not our error field: %s", lines[2])
	}
}

func TestFieldName(t *testing.T) {
	for in, want := range map[string]string{
		"Key": "peer", "Topic": "topic", "Err": "error", "AdminState": "admin_state", "VRF": "vrf",
		"PeerType": "peer_type", "OldShutdownThresholdPct": "old_shutdown_threshold_pct", "RouteType": "route_type",
		"MplsLabel": "mpls_label", "Nlri": "nlri", "already_lower": "already_lower", "RFCName": "rfc_name",
	} {
		if got := fieldName(in); got != want {
			t.Errorf("fieldName(%q) = %q, want %q", in, got, want)
		}
	}
}
