package plugin

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/osrg/gobgp/v3/pkg/config/oc"
	gobgplog "github.com/osrg/gobgp/v3/pkg/log"
	"github.com/osrg/gobgp/v3/pkg/packet/bgp"
	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/redact"
)

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newTestLogger(w *syncBuffer, level logrus.Level, json bool) *logrus.Logger {
	l := logrus.New()
	l.SetOutput(w)
	l.SetLevel(level)
	if json {
		l.SetFormatter(&logrus.JSONFormatter{})
	} else {
		l.SetFormatter(&logrus.TextFormatter{DisableColors: true, DisableTimestamp: true})
	}
	l.ExitFunc = func(code int) { panic("logrus ExitFunc called") }
	return l
}

// TestLogAdapterRedactsGoBGPConfigLogs drives the place where GoBGP v3.37.0
// logs whole neighbor and peer-group configs, AuthPassword included:
// pkg/config/oc UpdateNeighborConfig / UpdatePeerGroupConfig (Debug,
// "Key": oc.Neighbor / oc.PeerGroup).
func TestLogAdapterRedactsGoBGPConfigLogs(t *testing.T) {
	const pw = "c0nfig-l0g-pw"
	for _, json := range []bool{false, true} {
		var buf syncBuffer
		a := newLogAdapter(newTestLogger(&buf, logrus.DebugLevel, json), &redact.Set{})
		n := func(pw string) oc.Neighbor {
			return oc.Neighbor{
				Config: oc.NeighborConfig{NeighborAddress: "192.0.2.2", PeerAs: 65002, AuthPassword: pw},
				State:  oc.NeighborState{NeighborAddress: "192.0.2.2", AuthPassword: pw},
			}
		}
		g := func(pw string) oc.PeerGroup {
			return oc.PeerGroup{Config: oc.PeerGroupConfig{PeerGroupName: "g", PeerAs: 65002, AuthPassword: pw}}
		}
		cur := &oc.BgpConfigSet{Neighbors: []oc.Neighbor{n(pw)}, PeerGroups: []oc.PeerGroup{g(pw)}}
		next := &oc.BgpConfigSet{Neighbors: []oc.Neighbor{n(pw + "-new")}, PeerGroups: []oc.PeerGroup{g(pw + "-new")}}
		if _, _, upd := oc.UpdateNeighborConfig(a, cur, next); len(upd) != 1 {
			t.Fatalf("UpdateNeighborConfig: %d updated", len(upd))
		}
		if _, _, upd := oc.UpdatePeerGroupConfig(a, cur, next); len(upd) != 1 {
			t.Fatalf("UpdatePeerGroupConfig: %d updated", len(upd))
		}
		out := buf.String()
		if !strings.Contains(out, "Current neighbor config") || !strings.Contains(out, "New peer-group config") {
			t.Fatalf("GoBGP did not log the configs:\n%s", out)
		}
		if strings.Contains(out, pw) {
			t.Fatalf("password in log (json=%v):\n%s", json, out)
		}
		if !strings.Contains(out, "192.0.2.2") || !strings.Contains(out, "redacted") {
			t.Fatalf("log lost the config or the placeholder (json=%v):\n%s", json, out)
		}
	}
}

func TestLogAdapterFatalDoesNotExit(t *testing.T) {
	var buf syncBuffer
	l := newTestLogger(&buf, logrus.InfoLevel, false)
	a := newLogAdapter(l, &redact.Set{})
	var hooked []string
	a.onFatal = func(msg string, _ logrus.Fields) { hooked = append(hooked, msg) }
	a.Fatal("failed to listen grpc port", gobgplog.Fields{"Topic": "grpc", "Err": "address in use"})
	a.Panic("code logic bug", gobgplog.Fields{"Topic": "Peer", "Key": "192.0.2.2"})
	out := buf.String()
	for _, want := range []string{"level=error", "gobgp_level=fatal", "gobgp_level=panic", "failed to listen grpc port", "peer=192.0.2.2", "component=gobgp"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	if a.fatals.Load() != 2 || len(hooked) != 2 {
		t.Fatalf("fatals=%d hooked=%v", a.fatals.Load(), hooked)
	}

	// Level plumbing: GoBGP checks GetLevel before expensive debug logs.
	a.SetLevel(gobgplog.DebugLevel)
	if l.GetLevel() != logrus.DebugLevel || a.GetLevel() != gobgplog.DebugLevel {
		t.Fatalf("SetLevel(debug): logrus %v, adapter %v", l.GetLevel(), a.GetLevel())
	}
	a.SetLevel(gobgplog.FatalLevel)
	if l.GetLevel() != logrus.ErrorLevel {
		t.Fatalf("SetLevel(fatal) should clamp to error, got %v", l.GetLevel())
	}
	a.Info("hidden", nil)
	if strings.Contains(buf.String(), "hidden") {
		t.Fatal("info logged at error level")
	}
}

// TestLogAdapterJSONFields: GoBGP's log fields come out under our names
// (Key is the peer, Topic the topic, ...), with component=gobgp, so every
// JSON line has snake_case keys only; secrets stay scrubbed.
func TestLogAdapterJSONFields(t *testing.T) {
	const pw = "json-l0g-secret"
	var buf syncBuffer
	secrets := &redact.Set{}
	secrets.Add(pw)
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

// TestLogAdapterScrubsMessage: a known secret in the text of a GoBGP log
// message (not only in its fields) is scrubbed, whatever the level.
func TestLogAdapterScrubsMessage(t *testing.T) {
	const pw = "msg-t3xt-secret"
	var buf syncBuffer
	secrets := &redact.Set{}
	secrets.Add(pw)
	a := newLogAdapter(newTestLogger(&buf, logrus.DebugLevel, false), secrets)
	a.Debug("failed to set md5 "+pw+" on listener", gobgplog.Fields{"Topic": "Peer", "Key": "192.0.2.2"})
	a.Fatal("cannot use "+pw, nil)
	out := buf.String()
	if strings.Contains(out, pw) {
		t.Fatal("a known secret in a GoBGP log message was logged")
	}
	if strings.Count(out, redact.Placeholder) != 2 || !strings.Contains(out, "failed to set md5") {
		t.Fatalf("messages lost their text or their placeholder: %d placeholders", strings.Count(out, redact.Placeholder))
	}
}

// TestLogAdapterSurvivesPanickingFields: a GoBGP value whose MarshalJSON
// panics (an SR Binding SID sub-TLV without its SID, as v3.37 decoded one
// from a peer) logged at debug with the JSON formatter costs the line its
// fields, not the process: GoBGP logs every received UPDATE's attributes
// so, on its main loop.
func TestLogAdapterSurvivesPanickingFields(t *testing.T) {
	var buf bytes.Buffer
	l := logrus.New()
	l.SetOutput(&buf)
	l.SetFormatter(&logrus.JSONFormatter{})
	l.SetLevel(logrus.DebugLevel)
	a := newLogAdapter(l, nil)
	sub := &bgp.TunnelEncapSubTLVSRBSID{TunnelEncapSubTLV: bgp.TunnelEncapSubTLV{Type: 13, Length: 2}} // BSID nil
	attr := bgp.NewPathAttributeTunnelEncap([]*bgp.TunnelEncapTLV{bgp.NewTunnelEncapTLV(15, []bgp.TunnelEncapSubTLVInterface{sub})})
	a.Debug("received update", gobgplog.Fields{"Key": "192.0.2.2", "attributes": []bgp.PathAttributeInterface{attr}})
	if out := buf.String(); !strings.Contains(out, `"msg":"received update (its fields could not be formatted)"`) || !strings.Contains(out, `"fields_dropped":true`) {
		t.Errorf("logged %q", out)
	}
}
