package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/httpapi"
	"github.com/authbgp/authbgpd/status"
)

// statusFixture is a /status document as the daemon serves it (indented),
// with two peers, a dynamic session, an HMAC key and two policies.
const statusFixture = `{
  "router_id": "192.0.2.1",
  "asn": 65001,
  "peers": [
    {
      "address": "192.0.2.2",
      "asn": 65002,
      "state": "established",
      "uptime_seconds": 42,
      "auth": {"mode": "md5", "source": "keychain", "keychain": "core", "key_id": 1, "installed": true, "error": "",
               "verified": "kernel", "next_key_id": 2, "next_key_at": "2026-12-04T16:00:00Z"},
      "shadow": {"diagnosis": "ok", "peer_key_id": null,
                 "segments": {"valid": 120, "bad_digest": 0, "missing": 0, "unexpected": 0},
                 "sent": {"valid": 118, "invalid": 0, "unsigned": 0},
                 "history": [{"diagnosis": "bad-digest", "at": "2026-12-01T11:50:00Z"},
                             {"diagnosis": "ok", "at": "2026-12-01T11:59:18Z"}]},
      "local_address": "192.0.2.1",
      "local_port": 179,
      "remote_port": 40211,
      "timers": {"hold_time": 90, "keepalive_interval": 30, "connect_retry": 120,
                 "negotiated_hold_time": 9, "negotiated_keepalive_interval": 3},
      "families": [{"family": "ipv4-unicast", "negotiated": true, "received": 5, "accepted": 4, "sent": 2},
                   {"family": "ipv6-unicast", "negotiated": true, "received": 3, "accepted": 3, "sent": 1}],
      "messages": {"sent": {"open": 1, "update": 2, "notification": 0, "keepalive": 10, "refresh": 0, "total": 13},
                   "received": {"open": 1, "update": 6, "notification": 1, "keepalive": 9, "refresh": 0, "total": 17}},
      "last_error": {"reason": "notification-received code 6(cease) subcode 3(peer deconfigured)", "at": "2026-12-01T11:55:00Z"},
      "last_notification": {"code": 6, "subcode": 3, "text": "code 6(cease) subcode 3(peer deconfigured)",
                            "direction": "received", "at": "2026-12-01T11:55:00Z"},
      "malformed": {"updates": 2, "other": 0, "by_handling": {"treat-as-withdraw": 2}, "panics": 0,
                    "last": {"message": "update", "handling": "treat-as-withdraw", "code": 3, "subcode": 5,
                             "text": "code 3(update) subcode 5(attribute length error)", "reason": "nexthop length isn't correct",
                             "at": "2026-12-01T11:58:00Z"}}
    },
    {
      "address": "192.0.2.3",
      "asn": 65003,
      "state": "active",
      "uptime_seconds": 0,
      "auth": {"mode": "md5", "source": "password-file", "key_id": null, "installed": false,
               "error": "cannot install key:\toperation not permitted"},
      "shadow": {"diagnosis": "other-key", "peer_key_id": 2,
                 "segments": {"valid": 0, "bad_digest": 7, "missing": 0, "unexpected": 0}},
      "downtime_seconds": 312,
      "timers": {"hold_time": 90, "keepalive_interval": 30, "connect_retry": 120,
                 "negotiated_hold_time": 0, "negotiated_keepalive_interval": 0},
      "families": [{"family": "ipv4-unicast", "negotiated": false, "received": 0, "accepted": 0, "sent": 0}],
      "last_error": {"reason": "hold-timer-expired", "at": "2026-12-01T11:54:48Z"}
    },
    {
      "address": "198.51.100.7",
      "prefix": "198.51.100.0/24",
      "asn": 65010,
      "state": "established",
      "uptime_seconds": 273600,
      "auth": {"mode": "none", "key_id": null, "installed": false, "error": ""}
    }
  ],
  "srv6": {
    "hmac_keys": [{"id": 42, "algorithm": "sha256", "installed": true}],
    "policies": [
      {"name": "gold-to-pe3", "advertised": true, "installed": false},
      {"name": "silver", "advertised": false, "installed": true}
    ]
  },
  "kernel": {"tcp_md5_drops": {"missing": 5, "unexpected": 0, "bad_digest": 19},
             "tcp_md5_drops_since_start": {"missing": 0, "unexpected": 0, "bad_digest": 7}}
}
`

func fixtureServer(t *testing.T, body string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	hits := new(atomic.Int32)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != "GET" || r.URL.Path != "/status" {
			http.NotFound(w, r)
			return
		}
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(body))
	}))
	t.Cleanup(ts.Close)
	return ts, hits
}

func hostPort(ts *httptest.Server) string { return strings.TrimPrefix(ts.URL, "http://") }

func runStatus(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	rc := cmdStatus(args, &out, &errb)
	return rc, out.String(), errb.String()
}

// fixNow fixes the clock "ago" counts from: 2026-12-01T12:00:00Z.
func fixNow(t *testing.T) {
	old := statusNow
	statusNow = func() time.Time { return time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC) }
	t.Cleanup(func() { statusNow = old })
}

func TestStatusTable(t *testing.T) {
	fixNow(t)
	ts, _ := fixtureServer(t, statusFixture)
	rc, out, errs := runStatus("--api", hostPort(ts))
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, errs)
	}
	want := `router-id 192.0.2.1  asn 65001
capture: off (no shadow checker)
PEER                            ASN    STATE        UP/DOWN  RCVD  ACC  SENT  AUTH  KEY  INSTALLED  DIAGNOSIS     VALID  BAD  MISSING  UNEXPECTED  KERNEL-DROPS  LAST-ERROR                                       ERROR
192.0.2.2                       65002  established  42s      8     7    3     md5   1    yes        ok            120    0    0        0           -             received cease/peer deconfigured (6/3) 5m0s ago
192.0.2.3                       65003  active       5m12s    0     0    0     md5   -    no         other-key(2)  0      7    0        0           -             hold-timer-expired 5m12s ago                     cannot install key: operation not permitted
198.51.100.7 (198.51.100.0/24)  65010  established  3d4h     -     -    -     none  -    -          -             -      -    -        -           -             -
kernel TCP-MD5 drops since start (all peers): missing 0, unexpected 0, bad_digest 7 (since the namespace was made: 5, 0, 19)
SRV6 HMAC KEY  ALGORITHM  INSTALLED  ERROR
42             sha256     yes
SR POLICY    ADVERTISED  INSTALLED  REASON
gold-to-pe3  yes         no
silver       no          yes
`
	if out != want {
		t.Errorf("table:\n%s\nwant:\n%s", out, want)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.TrimRight(line, " ") != line {
			t.Errorf("trailing blanks: %q", line)
		}
	}
}

// TestStatusKernelQuiet: kernel drops that did not move since the start
// print nothing (the namespace's older drops are not news).
func TestStatusKernelQuiet(t *testing.T) {
	var buf bytes.Buffer
	printKernel(&buf, &status.Kernel{MD5Drops: status.Drops{Missing: 4}})
	printKernel(&buf, nil)
	if buf.Len() != 0 {
		t.Errorf("printed %q", buf.String())
	}
}

func TestStatusJSONAsServed(t *testing.T) {
	ts, _ := fixtureServer(t, statusFixture)
	rc, out, errs := runStatus("--json", "--api", hostPort(ts))
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, errs)
	}
	if out != statusFixture {
		t.Errorf("--json changed the document:\n%s", out)
	}
	// Single-dash flags work too (Go flag package).
	if rc, out, _ := runStatus("-json", "-api", "http://"+hostPort(ts)); rc != 0 || out != statusFixture {
		t.Errorf("-json -api URL: exit %d\n%s", rc, out)
	}
}

func TestStatusEmptyDaemon(t *testing.T) {
	ts, _ := fixtureServer(t, `{"router_id":"192.0.2.9","asn":65009,"peers":[],"srv6":{"hmac_keys":[],"policies":[]}}`)
	rc, out, errs := runStatus("--api", hostPort(ts))
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, errs)
	}
	want := "router-id 192.0.2.9  asn 65009\n" +
		"capture: off (no shadow checker)\n" +
		"PEER  ASN  STATE  UP/DOWN  RCVD  ACC  SENT  AUTH  KEY  INSTALLED  DIAGNOSIS  VALID  BAD  MISSING  UNEXPECTED  KERNEL-DROPS  LAST-ERROR  ERROR\n"
	if out != want {
		t.Errorf("got:\n%q\nwant:\n%q", out, want)
	}
}

func TestStatusConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	rc, out, errs := runStatus("--api", addr)
	if rc != 1 {
		t.Fatalf("exit %d, want 1", rc)
	}
	if out != "" {
		t.Errorf("stdout: %q", out)
	}
	prefix := "authbgpd status: cannot reach http://" + addr + "/status: "
	if !strings.HasPrefix(errs, prefix) {
		t.Errorf("stderr %q\nwant prefix %q", errs, prefix)
	}
	if !strings.Contains(errs, "connection refused") || !strings.Contains(errs, "daemon running") ||
		!strings.Contains(errs, "[api] http") {
		t.Errorf("stderr does not say why: %q", errs)
	}
	if strings.Count(errs, "\n") != 1 {
		t.Errorf("want one line: %q", errs)
	}
}

func TestStatusServerErrors(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/status" {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		w.Write([]byte("not json"))
	}))
	defer ts.Close()
	rc, _, errs := runStatus("--api", hostPort(ts))
	if rc != 1 || !strings.Contains(errs, "500 Internal Server Error: boom") {
		t.Errorf("500: exit %d, %q", rc, errs)
	}
	bad, _ := fixtureServer(t, "not json")
	rc, _, errs = runStatus("--api", hostPort(bad))
	if rc != 1 || !strings.Contains(errs, "not a status document") {
		t.Errorf("bad JSON: exit %d, %q", rc, errs)
	}
}

func writeConfig(t *testing.T, http string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "authbgpd.toml")
	cfg := "[global]\nasn = 65001\nrouter-id = \"192.0.2.1\"\n\n[api]\nhttp = \"" + http + "\"\n"
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := config.Load(path); err != nil {
		t.Fatalf("test config does not load: %v", err)
	}
	return path
}

func TestStatusFromConfigFile(t *testing.T) {
	ts, hits := fixtureServer(t, statusFixture)
	path := writeConfig(t, hostPort(ts))
	rc, out, errs := runStatus("-f", path, "--json")
	if rc != 0 || out != statusFixture || hits.Load() != 1 {
		t.Fatalf("-f: exit %d, %d hits, %s\n%s", rc, hits.Load(), errs, out)
	}

	off := writeConfig(t, "")
	rc, _, errs = runStatus("-f", off)
	if rc != 1 || !strings.Contains(errs, "[api] http is off") || !strings.HasPrefix(errs, "authbgpd status: "+off+":") {
		t.Errorf("http off: exit %d, %q", rc, errs)
	}

	rc, _, errs = runStatus("-f", filepath.Join(t.TempDir(), "missing.toml"))
	if rc != 1 || !strings.Contains(errs, "missing.toml") {
		t.Errorf("missing config: exit %d, %q", rc, errs)
	}
}

func TestStatusUsage(t *testing.T) {
	for _, args := range [][]string{
		{"one", "two"},
		{"192.0.2.2", "--health"},
		{"--api", "127.0.0.1:1", "-f", "x.toml"},
		{"--bogus"},
		{"--api", "no-port"},
	} {
		if rc, _, _ := runStatus(args...); rc != 2 {
			t.Errorf("%q: exit %d, want 2", args, rc)
		}
	}
}

func TestStatusHelp(t *testing.T) {
	rc, _, errs := runStatus("-h")
	if rc != 0 || !strings.Contains(errs, "usage: authbgpd status") {
		t.Errorf("-h: exit %d, %q", rc, errs)
	}
}

func TestStatusViaRun(t *testing.T) {
	ts, _ := fixtureServer(t, statusFixture)
	var out, errb bytes.Buffer
	if rc := run([]string{"status", "--json", "--api", hostPort(ts)}, &out, &errb); rc != 0 || out.String() != statusFixture {
		t.Fatalf("run status: exit %d, %s", rc, errb.String())
	}
}

func TestStatusURL(t *testing.T) {
	cases := map[string]string{
		"127.0.0.1:9179":               "http://127.0.0.1:9179/status",
		":9179":                        "http://127.0.0.1:9179/status",
		"0.0.0.0:9179":                 "http://127.0.0.1:9179/status",
		"[::]:9179":                    "http://[::1]:9179/status",
		"[2001:db8::1]:9179":           "http://[2001:db8::1]:9179/status",
		"localhost:9179":               "http://localhost:9179/status",
		"http://192.0.2.1:9179":        "http://192.0.2.1:9179/status",
		"http://192.0.2.1:9179/":       "http://192.0.2.1:9179/status",
		"http://192.0.2.1:9179/status": "http://192.0.2.1:9179/status",
	}
	for in, want := range cases {
		got, err := statusURL(in)
		if err != nil || got != want {
			t.Errorf("statusURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"9179", "127.0.0.1", "127.0.0.1:http", "127.0.0.1:70000"} {
		if got, err := statusURL(bad); err == nil {
			t.Errorf("statusURL(%q) = %q, want an error", bad, got)
		}
	}
}

func TestHumanDuration(t *testing.T) {
	cases := map[int64]string{
		0: "0s", 42: "42s", 59: "59s", 60: "1m0s", 312: "5m12s", 3599: "59m59s",
		3600: "1h0m", 3*3600 + 7*60 + 5: "3h7m", 86399: "23h59m",
		86400: "1d0h", 3*86400 + 4*3600 + 59: "3d4h", 400 * 86400: "400d0h",
	}
	for in, want := range cases {
		if got := humanDuration(in); got != want {
			t.Errorf("humanDuration(%d) = %q, want %q", in, got, want)
		}
	}
}

type staticSource struct{ st status.Status }

func (s staticSource) Status() status.Status { return s.st }
func (s staticSource) Healthy() error        { return nil }

// The CLI reads what the real server serves.
func TestStatusAgainstHTTPAPI(t *testing.T) {
	one := 1
	srv := httpapi.New("127.0.0.1:0", staticSource{status.Status{
		RouterID: "192.0.2.1", ASN: 65001,
		Peers: []status.Peer{{Address: "192.0.2.2", ASN: 65002, State: "established", UptimeSeconds: 312,
			Auth:   status.Auth{Mode: "md5", Source: "keychain", KeyID: &one, Installed: true},
			Shadow: &status.Shadow{Diagnosis: "ok", Segments: status.Segments{Valid: 3}}}},
	}}, nil, nil)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(context.Background())
	rc, out, errs := runStatus("--api", srv.Addr().String())
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, errs)
	}
	want := "router-id 192.0.2.1  asn 65001\n" +
		"capture: off (no shadow checker)\n" +
		"PEER       ASN    STATE        UP/DOWN  RCVD  ACC  SENT  AUTH  KEY  INSTALLED  DIAGNOSIS  VALID  BAD  MISSING  UNEXPECTED  KERNEL-DROPS  LAST-ERROR  ERROR\n" +
		"192.0.2.2  65002  established  5m12s    -     -    -     md5   1    yes        ok         3      0    0        0           -             -\n"
	if out != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
}

// TestStatusHealth: --health GETs /healthz with a bounded timeout; exit 0
// and silence when healthy, 1 with the reason on stderr otherwise.
func TestStatusHealth(t *testing.T) {
	var healthy atomic.Bool
	healthy.Store(true)
	block := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		if !healthy.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte("peer 192.0.2.2: md5 key not installed\n"))
			return
		}
		w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /status", func(w http.ResponseWriter, r *http.Request) {
		t.Error("--health asked /status")
	})
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)

	if rc, out, errs := runStatus("--health", "--api", hostPort(ts)); rc != 0 || out != "" || errs != "" {
		t.Errorf("healthy: exit %d, stdout %q, stderr %q", rc, out, errs)
	}
	// URL form, with and without /status.
	if rc, _, errs := runStatus("--health", "--api", ts.URL+"/status"); rc != 0 {
		t.Errorf("healthy (URL): exit %d: %s", rc, errs)
	}
	// From a config file's [api] http.
	cfg := writeConfig(t, hostPort(ts))
	if rc, _, errs := runStatus("--health", "-f", cfg); rc != 0 {
		t.Errorf("healthy (-f): exit %d: %s", rc, errs)
	}

	healthy.Store(false)
	rc, out, errs := runStatus("--health", "--api", hostPort(ts))
	if rc != 1 || out != "" || !strings.Contains(errs, "503") || !strings.Contains(errs, "md5 key not installed") {
		t.Errorf("unhealthy: exit %d, stdout %q, stderr %q", rc, out, errs)
	}

	// Nothing listening.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	if rc, _, errs := runStatus("--health", "--api", dead); rc != 1 || !strings.Contains(errs, "cannot reach") {
		t.Errorf("refused: exit %d, stderr %q", rc, errs)
	}

	// A daemon that accepts but never answers: bounded by healthTimeout.
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-block }))
	t.Cleanup(func() { close(block); hung.Close() })
	start := time.Now()
	rc, _, errs = runStatus("--health", "--api", hostPort(hung))
	if took := time.Since(start); rc != 1 || took > healthTimeout+time.Second {
		t.Errorf("hung daemon: exit %d after %v (stderr %q)", rc, took, errs)
	}

	// --health with --json is a usage error.
	if rc, _, _ := runStatus("--health", "--json", "--api", hostPort(ts)); rc != 2 {
		t.Errorf("--health --json: exit %d, want 2", rc)
	}
}

// TestStatusPeerDetail: status PEER prints one peer in detail, flags
// before or after PEER.
func TestStatusPeerDetail(t *testing.T) {
	fixNow(t)
	ts, _ := fixtureServer(t, statusFixture)
	want := `peer 192.0.2.2  asn 65002  state established  up 42s
  local 192.0.2.1:179  remote port 40211
  timers: configured hold 90s keepalive 30s connect-retry 120s; negotiated hold 9s keepalive 3s
  last error: notification-received code 6(cease) subcode 3(peer deconfigured) at 2026-12-01T11:55:00Z (5m0s ago)
  last notification: received cease/peer deconfigured (6/3) at 2026-12-01T11:55:00Z (5m0s ago)
  malformed: 2 UPDATE(s), 0 other message(s); treat-as-withdraw 2
    last: update: nexthop length isn't correct (treat-as-withdraw, code 3(update) subcode 5(attribute length error)) at 2026-12-01T11:58:00Z (2m0s ago)
  FAMILY        NEGOTIATED  RECEIVED  ACCEPTED  SENT
  ipv4-unicast  yes         5         4         2
  ipv6-unicast  yes         3         3         1
  MESSAGES  OPEN  UPDATE  NOTIFICATION  KEEPALIVE  REFRESH  TOTAL
  sent      1     2       0             10         0        13
  received  1     6       1             9          0        17
  auth: md5 from keychain core, key 1, installed yes, verified kernel, error -
  keychain core: active key 1, next key 2 at 2026-12-04T16:00:00Z (in 3d4h)
  shadow: diagnosis ok; received valid 120, bad-digest 0, missing 0, unexpected 0; sent valid 118, invalid 0, unsigned 0
  diagnosis history (oldest first):
    2026-12-01T11:50:00Z  bad-digest (10m0s ago)
    2026-12-01T11:59:18Z  ok (42s ago)
`
	for _, args := range [][]string{{"--api", hostPort(ts), "192.0.2.2"}, {"192.0.2.2", "--api", hostPort(ts)}} {
		rc, out, errs := runStatus(args...)
		if rc != 0 {
			t.Fatalf("%q: exit %d: %s", args, rc, errs)
		}
		if out != want {
			t.Errorf("%q:\n%s\nwant:\n%s", args, out, want)
		}
	}
}

// TestStatusPeerRangeAndJSON: a range names its sessions; --json prints
// the one peer's object; an unknown peer exits 1 and says so.
func TestStatusPeerRangeAndJSON(t *testing.T) {
	fixNow(t)
	body := strings.Replace(statusFixture, `"peers": [`, `"peers": [
    {"address": "198.51.100.0/24", "prefix": "198.51.100.0/24", "asn": 65010, "state": "listening",
     "uptime_seconds": 0, "auth": {"mode": "none", "key_id": null, "installed": false, "error": ""}},`, 1)
	ts, _ := fixtureServer(t, body)
	rc, out, errs := runStatus("--api", hostPort(ts), "198.51.100.0/24")
	want := "peer 198.51.100.0/24  asn 65010  state listening\n  sessions: 198.51.100.7\n  auth: none\n  shadow: -\n"
	if rc != 0 || out != want {
		t.Errorf("range: exit %d %s\n%s\nwant:\n%s", rc, errs, out, want)
	}
	rc, out, _ = runStatus("--api", hostPort(ts), "192.0.2.3")
	if rc != 0 || !strings.HasPrefix(out, "peer 192.0.2.3  asn 65003  state active  down 5m12s\n") ||
		!strings.Contains(out, "connect-retry 120s; not negotiated (no session)\n") {
		t.Errorf("a peer that is down:\n%s", out)
	}
	rc, out, errs = runStatus("192.0.2.3", "--json", "--api", hostPort(ts))
	var p status.Peer
	if rc != 0 || json.Unmarshal([]byte(out), &p) != nil || p.Address != "192.0.2.3" || p.LastError == nil ||
		p.LastError.Reason != "hold-timer-expired" || *p.DowntimeSeconds != 312 {
		t.Errorf("--json PEER: exit %d %s\n%s", rc, errs, out)
	}
	rc, out, errs = runStatus("--api", hostPort(ts), "192.0.2.99")
	if rc != 1 || out != "" || !strings.Contains(errs, `no peer "192.0.2.99"`) {
		t.Errorf("unknown peer: exit %d, out %q, err %q", rc, out, errs)
	}
}

// TestStatusNoCapture: without a running capture the table says why, and
// a peer without traffic reads no-capture, not no-traffic.
func TestStatusNoCapture(t *testing.T) {
	body := `{"router_id":"192.0.2.9","asn":65009,"srv6":{"hmac_keys":[],"policies":[]},
	  "capture": {"running": false, "interfaces": [], "packets": 0, "drops": 0, "truncated": 0,
	              "error": "capture: socket(AF_PACKET): operation not permitted (needs CAP_NET_RAW)"},
	  "peers":[{"address":"192.0.2.2","asn":65002,"state":"active","uptime_seconds":0,
	            "auth":{"mode":"md5","source":"password","key_id":null,"installed":true,"error":""},
	            "shadow":{"diagnosis":"no-traffic","peer_key_id":null,"segments":{"valid":0,"bad_digest":0,"missing":0,"unexpected":0}}}]}`
	ts, _ := fixtureServer(t, body)
	rc, out, errs := runStatus("--api", hostPort(ts))
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, errs)
	}
	if !strings.Contains(out, "\ncapture: not running: capture: socket(AF_PACKET): operation not permitted (needs CAP_NET_RAW)\n") ||
		!strings.Contains(out, " no-capture ") || strings.Contains(out, "no-traffic") {
		t.Errorf("table:\n%s", out)
	}
	if _, out, _ = runStatus("--api", hostPort(ts), "192.0.2.2"); !strings.Contains(out, "diagnosis no-capture;") ||
		!strings.Contains(out, "  capture: not running: ") {
		t.Errorf("detail:\n%s", out)
	}
	var buf bytes.Buffer
	printStatus(&buf, &status.Status{Capture: &status.Capture{Running: true, Workers: 1, Interfaces: []string{"eth0"}, Packets: 7}})
	if !strings.Contains(buf.String(), "capture: running on eth0: 7 packets, 0 dropped, 0 truncated\n") {
		t.Errorf("running:\n%s", buf.String())
	}
	buf.Reset()
	printStatus(&buf, &status.Status{Capture: &status.Capture{Running: true, Workers: 2, Packets: 7}})
	if !strings.Contains(buf.String(), "capture: running on all interfaces (2 workers): 7 packets, 0 dropped, 0 truncated\n") {
		t.Errorf("running, 2 workers:\n%s", buf.String())
	}
}

// TestPrintAOAuth: the detail view of a TCP-AO peer names its KeyIDs, the
// peer's RNextKeyID, its sessions' kernel counters and why its last dial
// was refused; the namespace's TCP-AO counters get a line of their own.
func TestPrintAOAuth(t *testing.T) {
	id, send, recv := 2, 20, 21
	var b strings.Builder
	printAuth(&b, status.Auth{Mode: "tcp-ao", Source: "keychain", Keychain: "ao", KeyID: &id, Installed: true, Verified: "kernel",
		SendID: &send, RecvID: &recv, PeerRNextKeyID: &send, DialError: "peers: dial to peer 192.0.2.2: key not set\nENOMEM",
		Kernel: &status.AOCounters{Good: 7, Bad: 1}})
	printKernel(&b, &status.Kernel{AO: &status.AOCounters{Good: 9}, AOSinceStart: &status.AOCounters{Good: 9, AORequired: 4}})
	out := b.String()
	for _, want := range []string{"tcp-ao: send id 20, recv id 21 (our RNextKeyID), peer's RNextKeyID 20",
		"tcp-ao kernel counters (its sessions): good 7, bad 1,", "dial: refused before its SYN: peers: dial to peer 192.0.2.2: key not set",
		"kernel TCP-AO since start (all peers): good 9, bad 0, key_not_found 0, ao_required 4"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}

// TestStatusKernelDrops: the kernel's per-peer drops are a column, and
// its verdict stands in for the shadow's diagnosis when the shadow has
// none (off, or nothing captured); the shadow's own diagnosis wins.
func TestStatusKernelDrops(t *testing.T) {
	ts, _ := fixtureServer(t, `{"router_id":"192.0.2.9","asn":65009,
	 "kernel_drops":{"available":true,"error":"","tracepoints":["tcp_hash_md5_mismatch","tcp_hash_md5_required"],"other":2},
	 "peers":[
	  {"address":"192.0.2.6","asn":65006,"state":"active","auth":{"mode":"md5","installed":true},
	   "kernel_drops":{"bad_digest":4,"missing":0,"unexpected":0,"bad_option":0,"diagnosis":"bad-digest","last_drop":"2026-12-02T10:00:00Z"}},
	  {"address":"192.0.2.7","asn":65007,"state":"active","auth":{"mode":"tcp-ao","installed":true},
	   "shadow":{"diagnosis":"other-key","peer_key_id":2,"segments":{"valid":0,"bad_digest":0,"missing":0,"unexpected":0}},
	   "kernel_drops":{"bad_digest":0,"missing":0,"unexpected":0,"bad_option":0,"ao_bad":3,"ao_key_not_found":1,"ao_required":0,"diagnosis":"bad-mac"}},
	  {"address":"192.0.2.8","asn":65008,"state":"established","auth":{"mode":"md5","installed":true},
	   "kernel_drops":{"bad_digest":0,"missing":0,"unexpected":0,"bad_option":0,"diagnosis":""}}],
	 "srv6":{"hmac_keys":[],"policies":[]}}`)
	rc, out, errs := runStatus("--api", hostPort(ts))
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, errs)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^kernel drop verdicts: counting \(2 tracepoints\), 2 from addresses of no peer$`),
		regexp.MustCompile(`(?m)^192\.0\.2\.6 .* bad-digest\(kernel\) +- +- +- +- +4 `),
		regexp.MustCompile(`(?m)^192\.0\.2\.7 .* other-key\(2\) +0 +0 +0 +0 +4 `),
		regexp.MustCompile(`(?m)^192\.0\.2\.8 .* established .* - +- +- +- +- +0 `),
	} {
		if !want.MatchString(out) {
			t.Errorf("output does not match %s:\n%s", want, out)
		}
	}
	ts, _ = fixtureServer(t, `{"router_id":"192.0.2.9","asn":65009,"peers":[],"srv6":{"hmac_keys":[],"policies":[]},
	 "kernel_drops":{"available":false,"error":"kernel drop counters unavailable: needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN): operation not permitted"}}`)
	if _, out, _ = runStatus("--api", hostPort(ts)); !strings.Contains(out, "kernel drop verdicts: unavailable: kernel drop counters unavailable: needs CAP_BPF") {
		t.Errorf("unavailable counters not said:\n%s", out)
	}
	// Drops the kernel did not let us count are said.
	ts, _ = fixtureServer(t, `{"router_id":"192.0.2.9","asn":65009,"peers":[],"srv6":{"hmac_keys":[],"policies":[]},
	 "kernel_drops":{"available":true,"error":"","tracepoints":["tcp_hash_md5_mismatch"],"other":0,"missed":3}}`)
	if _, out, _ = runStatus("--api", hostPort(ts)); !strings.Contains(out, "kernel drop verdicts: counting (1 tracepoints), 0 from addresses of no peer, 3 not counted (runs the kernel skipped)\n") {
		t.Errorf("missed drops not said:\n%s", out)
	}
	// The on-demand capture: what it captures, or that it captures nothing.
	for doc, want := range map[string]string{
		`"capture":{"running":true,"workers":1,"interfaces":[],"packets":9,"drops":0,"truncated":0,"error":"","mode":"on-demand",
		  "on_demand":[{"address":"192.0.2.6","why":"kernel dropped 3 segments from it (bad TCP-MD5 digest)","since":"2026-12-02T10:00:00Z","until":"2026-12-02T10:00:20Z","segments":7}]}`: "capture: on demand: capturing 192.0.2.6 until 2026-12-02T10:00:20Z (7 segments; kernel dropped 3 segments from it (bad TCP-MD5 digest))\n",
		`"capture":{"running":false,"workers":0,"interfaces":[],"packets":9,"drops":0,"truncated":0,"error":"","mode":"on-demand"}`: "capture: on demand: no peer captured now (9 packets so far)\n",
	} {
		ts, _ = fixtureServer(t, `{"router_id":"192.0.2.9","asn":65009,"peers":[],"srv6":{"hmac_keys":[],"policies":[]},`+doc+`}`)
		if _, out, _ = runStatus("--api", hostPort(ts)); !strings.Contains(out, want) {
			t.Errorf("want %q in:\n%s", want, out)
		}
	}
}

// TestStatusKernelAOAlgorithms: the TCP-AO algorithms the kernel offers
// get a line, with those it refused; a kernel without TCP-AO says why.
func TestStatusKernelAOAlgorithms(t *testing.T) {
	var b strings.Builder
	printKernel(&b, &status.Kernel{Release: "7.2.0", TCPAOAlgorithms: []string{"hmac-sha-1-96", "hmac-sha-256"},
		TCPAOAlgorithmsMissing: []string{"hmac-sha-384", "hmac-sha-512"}})
	want := "kernel 7.2.0 TCP-AO algorithms: hmac-sha-1-96, hmac-sha-256; not offered (a key with one holds its peer down): hmac-sha-384, hmac-sha-512\n"
	if b.String() != want {
		t.Errorf("printed %q, want %q", b.String(), want)
	}
	b.Reset()
	printKernel(&b, &status.Kernel{Release: "6.18.0", TCPAOAlgorithmsError: "tcpsock: the kernel has no TCP-AO (RFC 5925) support (CONFIG_TCP_AO)"})
	if want := "kernel 6.18.0 TCP-AO algorithms: none known: tcpsock: the kernel has no TCP-AO (RFC 5925) support (CONFIG_TCP_AO)\n"; b.String() != want {
		t.Errorf("printed %q, want %q", b.String(), want)
	}
}

func TestStatusFIBText(t *testing.T) {
	var b bytes.Buffer
	printFIB(&b, nil)
	if b.Len() != 0 {
		t.Errorf("[fib] off printed %q", b.String())
	}
	printFIB(&b, &status.FIB{
		Tables:  []status.FIBTable{{Table: 10, VRF: "blue", Routes: 3, Refused: 1}, {Table: 254, Routes: 1000}},
		Pending: 2, LastLook: "2026-12-07T18:00:00Z",
		Refused: []status.FIBRefusal{{VRF: "blue", Table: 10, Prefix: "203.0.113.0/24", Reason: "next hop unresolved", Error: "fib: resolve\n203.0.113.254", Since: "2026-12-07T18:00:01Z"}},
	})
	out := b.String()
	for _, want := range []string{"FIB", "table 10", "blue", "table 254", "default", "1000", "REFUSED ROUTE", "203.0.113.0/24", "next hop unresolved", "fib: resolve 203.0.113.254"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

func TestStatusNetworksText(t *testing.T) {
	var b bytes.Buffer
	printNetworks(&b, nil)
	if b.Len() != 0 {
		t.Errorf("no networks printed %q", b.String())
	}
	printNetworks(&b, []status.Network{{Prefix: "198.51.100.0/24", Announced: true},
		{Prefix: "203.0.113.0/24", VRF: "blue", LastError: "plugin: start BGP in VRF blue:\nno such device"}})
	out := b.String()
	for _, want := range []string{"NETWORK", "198.51.100.0/24", "default", "yes", "203.0.113.0/24", "blue", "no", "plugin: start BGP in VRF blue: no such device"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}
