package shadow

import (
	"encoding/json"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/capture"
	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/frame"
	"github.com/authbgp/authbgpd/internal/testlog"
	"github.com/authbgp/authbgpd/metrics"
	"github.com/authbgp/authbgpd/peerindex"
	"github.com/authbgp/authbgpd/status"
)

// metricValue is the value of name{peer,verdict} in an exposition.
func metricValue(t *testing.T, expo, name, peer, verdict string) string {
	t.Helper()
	prefix := name + `{peer="` + peer + `",verdict="` + verdict + `"} `
	for _, l := range strings.Split(expo, "\n") {
		if strings.HasPrefix(l, prefix) {
			return strings.TrimPrefix(l, prefix)
		}
	}
	return "absent"
}

// TestRunnerTCPAO is the live path without a capture ring: the Runner of
// a config with TCP-AO and TCP-MD5 peers is handed the generated frames as
// its capture loop hands them over (Runner.handle, the checker's lock
// taken per block), and must give every peer its diagnosis, count TCP-AO
// verdicts in authbgpd_tcpao_segments_total (every TCP-AO peer's six
// series at 0 from the start) and TCP-MD5 ones where they were, log the
// diagnoses, and never show a secret in the log, the metrics or /status.
func TestRunnerTCPAO(t *testing.T) {
	cfg, err := config.Parse("r.toml", []byte(aoConfig+"\n[shadow]\nenabled = true\nworkers = 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	var logs testlog.Buffer
	log := logrus.New()
	log.SetOutput(&logs)
	log.SetFormatter(&logrus.JSONFormatter{})
	m := metrics.New("test")
	r := NewRunner(peerindex.New(cfg), log, m, RunnerOptions{})
	scrape := func() string {
		rec := httptest.NewRecorder()
		m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		b, _ := io.ReadAll(rec.Body)
		return string(b)
	}
	first := scrape()
	for _, p := range cfg.Peers {
		for _, v := range []string{"valid", "bad_mac", "missing", "unknown_key", "unexpected", "no_handshake"} {
			got := metricValue(t, first, "authbgpd_tcpao_segments_total", p.ID(), v)
			if want := "0"; p.Auth().Mode == config.AuthTCPAO && got != want {
				t.Errorf("before any segment: tcpao %s %s = %s, want 0", p.ID(), v, got)
			} else if p.Auth().Mode != config.AuthTCPAO && got != "absent" {
				t.Errorf("before any segment: tcpao series for %s peer %s", p.Auth().Mode, p.ID())
			}
		}
	}

	mixed, _ := generateAO(t)
	chk := r.chks[0]
	var w worker
	for i := 0; i < len(mixed); i += 16 { // ring blocks
		chk.Begin()
		for _, p := range mixed[i:min(i+16, len(mixed))] {
			r.handle(chk, &w, capture.Packet{Data: p.frame, LinkType: frame.LinkEthernet, Time: time.Now()}) // live: seen now
		}
		chk.End()
	}
	reps := r.Reports()
	for _, w := range aoWant {
		if got := reps[w.peer].Diagnosis; got != w.diag {
			t.Errorf("%s: %s, want %s", w.peer, got, w.diag)
		}
	}
	expo := scrape()
	for _, c := range []struct{ name, peer, verdict, want string }{
		{"authbgpd_tcpao_segments_total", "192.0.2.10", "valid", "6"},
		{"authbgpd_tcpao_segments_total", "192.0.2.12", "valid", "11"},
		{"authbgpd_tcpao_segments_total", "192.0.2.13", "bad_mac", "4"},
		{"authbgpd_tcpao_segments_total", "192.0.2.14", "unknown_key", "4"},
		{"authbgpd_tcpao_segments_total", "192.0.2.15", "bad_mac", "4"},
		{"authbgpd_tcpao_segments_total", "192.0.2.16", "missing", "4"},
		{"authbgpd_tcpao_segments_total", "192.0.2.19", "unexpected", "4"},
		{"authbgpd_tcpao_segments_total", "192.0.2.20", "missing", "4"},
		{"authbgpd_tcpao_segments_total", "2001:db8::12", "bad_mac", "4"},
		{"authbgpd_md5_segments_total", "192.0.2.17", "missing", "4"},
		{"authbgpd_md5_segments_total", "192.0.2.18", "valid", "6"},
	} {
		if got := metricValue(t, expo, c.name, c.peer, c.verdict); got != c.want {
			t.Errorf("%s{peer=%q,verdict=%q} = %s, want %s", c.name, c.peer, c.verdict, got, c.want)
		}
	}
	// /status: the peers as the speaker lists them, with the shadow's view.
	st := status.Status{}
	for _, p := range cfg.Peers {
		st.Peers = append(st.Peers, status.Peer{Address: p.ID(), Auth: status.Auth{Mode: p.Auth().Mode}})
	}
	st.Peers = append(st.Peers, status.Peer{Address: "192.0.2.99", Auth: status.Auth{Mode: config.AuthTCPAO}})
	MergeStatus(&st, reps)
	doc, _ := json.Marshal(st)
	var back status.Status
	json.Unmarshal(doc, &back)
	for _, p := range back.Peers {
		sh := p.Shadow
		switch {
		case sh == nil:
			t.Errorf("%s: no shadow", p.Address)
		case p.Auth.Mode == config.AuthTCPAO && (sh.Segments.BadMAC == nil || sh.Segments.UnknownKey == nil || sh.Segments.NoHandshake == nil):
			t.Errorf("%s: TCP-AO peer without the TCP-AO counters: %s", p.Address, doc)
		case p.Auth.Mode != config.AuthTCPAO && sh.Segments.BadMAC != nil:
			t.Errorf("%s: %s peer with TCP-AO counters", p.Address, p.Auth.Mode)
		}
		if p.Address == "192.0.2.99" && sh.Diagnosis != DiagNoTraffic {
			t.Errorf("silent TCP-AO peer: %+v", sh)
		}
		if p.Address == "192.0.2.12" && len(sh.KeyIDs) != 3 {
			t.Errorf("rollover peer key_ids %+v", sh.KeyIDs)
		}
	}
	all := logs.String()
	for _, d := range []string{DiagBadMAC, DiagUnknownKey, DiagOptionsMismatch, DiagWrongMechanism, DiagMissing, DiagUnexpected} {
		if !strings.Contains(all, `"diagnosis":"`+d+`"`) {
			t.Errorf("no log line for %s:\n%s", d, all)
		}
	}
	for name, secret := range aoSecrets {
		for where, text := range map[string]string{"log": all, "metrics": expo, "/status": string(doc)} {
			if strings.Contains(text, secret) {
				t.Errorf("the %s shows the %s secret", where, name)
			}
		}
	}
}
