package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/authbgp/authbgpd/metrics"
	"github.com/authbgp/authbgpd/status"
)

// contracts returns docs/CONTRACTS.md.
func contracts(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../docs/CONTRACTS.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// designStatus is the GET /status example of docs/CONTRACTS.md, verbatim.
func designStatus(t *testing.T) string {
	s := contracts(t)
	i := strings.Index(s, "## `GET /status`")
	j := strings.Index(s[max(i, 0):], "```json\n")
	if i < 0 || j < 0 {
		t.Fatal("docs/CONTRACTS.md has no /status section with a json block")
	}
	s = s[i+j+len("```json\n"):]
	return s[:strings.Index(s, "```")]
}

// designMetrics are the metric names of the table in docs/CONTRACTS.md.
func designMetrics(t *testing.T) []string {
	s := contracts(t)
	s = s[strings.Index(s, "## Metrics"):]
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "| `authbgpd_") {
			out = append(out, strings.Trim(strings.Fields(l)[1], "`"))
		}
	}
	if len(out) < 6 {
		t.Fatalf("docs/CONTRACTS.md lists %d metrics", len(out))
	}
	return out
}

type fakeSource struct {
	mu     sync.Mutex
	st     status.Status
	health error
}

func (f *fakeSource) Status() status.Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.st
}

func (f *fakeSource) Healthy() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.health
}

func intp(i int) *int { return &i }

// designSource reports what the docs/CONTRACTS.md example shows.
func designSource() *fakeSource {
	return &fakeSource{st: status.Status{
		RouterID: "192.0.2.1",
		ASN:      65001,
		Peers: []status.Peer{{
			Address:       "192.0.2.2",
			ASN:           65002,
			State:         "established",
			UptimeSeconds: 42,
			Auth:          status.Auth{Mode: "md5", Source: "password-file", KeyID: intp(1), Installed: true},
			Shadow: &status.Shadow{
				Diagnosis: "ok",
				Segments:  status.Segments{Valid: 120},
			},
		}},
		SRv6: status.SRv6{
			HMACKeys: []status.HMACKey{{ID: 42, Algorithm: "sha256", Installed: true}},
			Policies: []status.Policy{{Name: "gold-to-pe3", Advertised: true}},
		},
	}}
}

// start runs a server for src on a free loopback port.
func start(t *testing.T, src Source, m *metrics.Metrics) (*Server, string) {
	t.Helper()
	s := New("127.0.0.1:0", src, m, nil)
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Error(err)
		}
	})
	return s, "http://" + s.Addr().String()
}

func get(t *testing.T, url string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// shape returns the sorted key paths of a decoded JSON document, with array
// elements as "[]".
func shape(v any, prefix string, out *[]string) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			p := prefix + "." + k
			*out = append(*out, p)
			shape(e, p, out)
		}
	case []any:
		for _, e := range v {
			shape(e, prefix+"[]", out)
		}
	}
}

func keyPaths(t *testing.T, doc []byte) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, doc)
	}
	var out []string
	shape(v, "", &out)
	sort.Strings(out)
	// Dedupe (arrays with several elements).
	n := 0
	for i, p := range out {
		if i == 0 || p != out[i-1] {
			out[n] = p
			n++
		}
	}
	return out[:n]
}

func TestStatusMatchesDesign(t *testing.T) {
	_, base := start(t, designSource(), nil)
	resp, body := get(t, base+"/status")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /status: %s\n%s", resp.Status, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	if !strings.Contains(string(body), "\n  \"router_id\"") {
		t.Errorf("not indented:\n%s", body)
	}
	// Exactly the keys of the example...
	designStatus := designStatus(t)
	got, want := keyPaths(t, body), keyPaths(t, []byte(designStatus))
	if !reflect.DeepEqual(got, want) {
		t.Errorf("key paths differ from docs/CONTRACTS.md\n got: %v\nwant: %v", got, want)
	}
	// ...with the same values and JSON types (null key IDs, numbers, bools).
	var g, w any
	json.Unmarshal(body, &g)
	json.Unmarshal([]byte(designStatus), &w)
	if !reflect.DeepEqual(g, w) {
		t.Errorf("document differs from docs/CONTRACTS.md\n got: %s\nwant: %s", body, designStatus)
	}
}

func TestStatusEmptyListsAreArrays(t *testing.T) {
	_, base := start(t, &fakeSource{st: status.Status{RouterID: "192.0.2.1", ASN: 65001}}, nil)
	_, body := get(t, base+"/status")
	var doc struct {
		Peers json.RawMessage `json:"peers"`
		SRv6  struct {
			HMACKeys json.RawMessage `json:"hmac_keys"`
			Policies json.RawMessage `json:"policies"`
		} `json:"srv6"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	for name, raw := range map[string]json.RawMessage{
		"peers": doc.Peers, "srv6.hmac_keys": doc.SRv6.HMACKeys, "srv6.policies": doc.SRv6.Policies,
	} {
		if string(raw) != "[]" {
			t.Errorf("%s = %s, want []", name, raw)
		}
	}
}

// No field of the status document can hold a secret: none is named like one.
func TestStatusHasNoSecretFields(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type, string)
	walk = func(typ reflect.Type, path string) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] {
			return
		}
		seen[typ] = true
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			name := strings.ToLower(f.Name + " " + f.Tag.Get("json"))
			for _, bad := range []string{"secret", "password", "passwd"} {
				if strings.Contains(name, bad) {
					t.Errorf("%s.%s looks like it holds a secret", path, f.Name)
				}
			}
			walk(f.Type, path+"."+f.Name)
		}
	}
	walk(reflect.TypeOf(status.Status{}), "Status")
}

func TestHealthz(t *testing.T) {
	src := designSource()
	_, base := start(t, src, nil)
	resp, body := get(t, base+"/healthz")
	if resp.StatusCode != 200 || strings.TrimSpace(string(body)) != "ok" {
		t.Fatalf("healthy: %s %q", resp.Status, body)
	}
	src.mu.Lock()
	src.health = errors.New("gobgp server not running")
	src.mu.Unlock()
	resp, body = get(t, base+"/healthz")
	if resp.StatusCode != http.StatusServiceUnavailable || strings.TrimSpace(string(body)) != "gobgp server not running" {
		t.Fatalf("unhealthy: %s %q", resp.Status, body)
	}
}

// liveSource is a source with a liveness check apart from its health.
type liveSource struct {
	*fakeSource
	alive error
}

func (l liveSource) Alive() error { return l.alive }

// TestLivez: /livez answers the source's Alive alone (200 without one),
// /healthz its Healthy alone: a router unhealthy for a reason a restart
// does not fix stays live.
func TestLivez(t *testing.T) {
	for _, c := range []struct {
		name             string
		src              Source
		healthz, livez   int
		hreason, lreason string
	}{
		{"no liveness check", &fakeSource{health: errors.New("tcp-md5: kernel in FIPS mode")}, 503, 200, "tcp-md5: kernel in FIPS mode", "ok"},
		{"unhealthy, live", liveSource{&fakeSource{health: errors.New("tcp-md5: kernel in FIPS mode")}, nil}, 503, 200, "tcp-md5: kernel in FIPS mode", "ok"},
		{"stalled", liveSource{&fakeSource{health: errors.New("gobgp: stalled")}, errors.New("gobgp: stalled")}, 503, 503, "gobgp: stalled", "gobgp: stalled"},
		{"fine", liveSource{&fakeSource{}, nil}, 200, 200, "ok", "ok"},
	} {
		h := New("127.0.0.1:0", c.src, nil, nil).Handler()
		for _, p := range []struct {
			path, reason string
			code         int
		}{{"/healthz", c.hreason, c.healthz}, {"/livez", c.lreason, c.livez}} {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", p.path, nil))
			if rec.Code != p.code || strings.TrimSpace(rec.Body.String()) != p.reason || rec.Header().Get("Cache-Control") != "no-store" {
				t.Errorf("%s: GET %s: %d %q, want %d %q", c.name, p.path, rec.Code, rec.Body.String(), p.code, p.reason)
			}
		}
	}
}

func TestRoutes(t *testing.T) {
	s := New("127.0.0.1:0", designSource(), metrics.New("test"), nil)
	cases := []struct {
		method, path string
		code         int
	}{
		{"GET", "/status", 200},
		{"HEAD", "/status", 200},
		{"GET", "/metrics", 200},
		{"GET", "/healthz", 200},
		{"GET", "/livez", 200},
		{"HEAD", "/livez", 200},
		{"GET", "/", 404},
		{"GET", "/status/", 404},
		{"GET", "/statusx", 404},
		{"GET", "/debug/pprof/", 404},
		{"POST", "/status", 405},
		{"PUT", "/metrics", 405},
		{"DELETE", "/healthz", 405},
		{"POST", "/livez", 405},
		{"POST", "/nope", 404},
	}
	for _, c := range cases {
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, httptest.NewRequest(c.method, c.path, nil))
		if rec.Code != c.code {
			t.Errorf("%s %s: %d, want %d", c.method, c.path, rec.Code, c.code)
		}
		if c.code == 405 && !strings.Contains(rec.Header().Get("Allow"), "GET") {
			t.Errorf("%s %s: Allow %q", c.method, c.path, rec.Header().Get("Allow"))
		}
	}
	// Without metrics, /metrics does not exist.
	s = New("127.0.0.1:0", designSource(), nil, nil)
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 404 {
		t.Errorf("GET /metrics without metrics: %d", rec.Code)
	}
}

func TestMetricsExposed(t *testing.T) {
	m := metrics.New("test")
	// Touch every metric once.
	m.SegmentCounters("192.0.2.2").Valid.Inc()
	m.TCPAOSegmentCounters("192.0.2.6").Valid.Inc()
	m.SetPeerUp("192.0.2.2", true)
	m.SetKeyInstalled("192.0.2.2", true)
	m.KeyChanged("192.0.2.2")
	m.AddShadowDrops(2)
	m.AddSRHHMAC(42, metrics.HMACValid, 1)
	m.SetPolicyInstalled("gold-to-pe3", false)
	m.ConfigReloaded(nil)
	m.AddTCPAOKernel("192.0.2.6", metrics.AOKernelCounts{Good: 5})
	if err := m.ReadKernelDrops(func() (metrics.KernelMD5Drops, error) {
		return metrics.KernelMD5Drops{BadDigest: 3, AO: &metrics.AOKernelCounts{Bad: 1}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	// The readers the daemon attaches at start.
	if err := m.ReadPeers(func() ([]metrics.PeerState, error) {
		return []metrics.PeerState{{Peer: "192.0.2.2", Up: true, Prefixes: []metrics.FamilyPrefixes{{Family: "ipv4-unicast", Received: 2}}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := m.ReadCaptureRunning(func() bool { return true }); err != nil {
		t.Fatal(err)
	}
	if err := m.ReadPeerKernelDrops(func() []metrics.PeerKernelDrops {
		return []metrics.PeerKernelDrops{{Peer: "192.0.2.2", Reason: "bad_digest", Count: 4}}
	}); err != nil {
		t.Fatal(err)
	}

	if err := m.ReadGoBGPLoop(func() time.Duration { return time.Second }, func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := m.ReadReconcilePasses(func() metrics.ReconcilePasses {
		return metrics.ReconcilePasses{Full: metrics.PassCount{Passes: 3, Seconds: 0.25}, Light: metrics.PassCount{Passes: 7, Seconds: 0.5}}
	}); err != nil {
		t.Fatal(err)
	}
	if err := m.ReadAOAlgorithms(func() ([]string, []string) {
		return []string{"hmac-sha-1-96", "hmac-sha-256"}, []string{"hmac-sha-512"}
	}); err != nil {
		t.Fatal(err)
	}
	if err := m.ReadFIB(func() metrics.FIBState {
		return metrics.FIBState{Tables: []metrics.FIBTable{{Table: 254, Routes: 4}}, Refused: []metrics.FIBRefused{{Reason: "next hop unresolved", Count: 1}},
			Writes: 5, Refusals: 1, Looks: 2}
	}); err != nil {
		t.Fatal(err)
	}

	_, base := start(t, designSource(), m)
	req, _ := http.NewRequest("GET", base+"/metrics", nil)
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET /metrics: %s", resp.Status)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Fatalf("Content-Type %q", ct)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	names := append([]string{
		"authbgpd_md5_key_changes_total", "authbgpd_config_reloads_total", "authbgpd_build_info",
		"go_goroutines",
	}, designMetrics(t)...)
	for _, name := range names {
		mf := mfs[name]
		if mf == nil || len(mf.GetMetric()) == 0 {
			t.Errorf("%s is not exposed", name)
			continue
		}
		if mf.GetHelp() == "" {
			t.Errorf("%s has no HELP", name)
		}
	}
	for _, c := range []struct {
		name, kind string
		want       float64
	}{{"authbgpd_reconcile_passes_total", "full", 3}, {"authbgpd_reconcile_passes_total", "light", 7},
		{"authbgpd_reconcile_pass_seconds_total", "full", 0.25}, {"authbgpd_reconcile_pass_seconds_total", "light", 0.5}} {
		found := false
		for _, mt := range mfs[c.name].GetMetric() {
			for _, l := range mt.GetLabel() {
				if l.GetName() == "kind" && l.GetValue() == c.kind {
					found = true
					if v := mt.GetCounter().GetValue(); v != c.want {
						t.Errorf("%s{kind=%q} = %v, want %v", c.name, c.kind, v, c.want)
					}
				}
			}
		}
		if !found {
			t.Errorf("%s{kind=%q} is not exposed", c.name, c.kind)
		}
	}
	if v := mfs["authbgpd_shadow_drops_total"].GetMetric()[0].GetCounter().GetValue(); v != 2 {
		t.Errorf("authbgpd_shadow_drops_total = %v", v)
	}
}

func TestStartAddressInUse(t *testing.T) {
	s1, _ := start(t, designSource(), nil)
	s2 := New(s1.Addr().String(), designSource(), nil, nil)
	err := s2.Start()
	if err == nil {
		s2.Shutdown(context.Background())
		t.Fatal("second server on the same address started")
	}
	if !strings.Contains(err.Error(), s1.Addr().String()) {
		t.Errorf("error does not name the address: %v", err)
	}
	if s2.Addr() != nil {
		t.Errorf("Addr after a failed Start = %v", s2.Addr())
	}
	if err := s2.Shutdown(context.Background()); err != nil {
		t.Errorf("Shutdown of a server that never started: %v", err)
	}
	if err := s1.Start(); err == nil {
		t.Error("Start twice succeeded")
	}
}

func TestShutdownStopsServing(t *testing.T) {
	s := New("127.0.0.1:0", designSource(), nil, nil)
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	base := "http://" + s.Addr().String()
	get(t, base+"/healthz")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	http.DefaultClient.CloseIdleConnections()
	if resp, err := http.Get(base + "/healthz"); err == nil {
		resp.Body.Close()
		t.Fatal("still serving after Shutdown")
	}
}

func TestTimeoutsSet(t *testing.T) {
	s, _ := start(t, designSource(), nil)
	s.mu.Lock()
	srv := s.srv
	s.mu.Unlock()
	if srv.ReadHeaderTimeout <= 0 || srv.ReadTimeout <= 0 || srv.WriteTimeout <= 0 ||
		srv.IdleTimeout <= 0 || srv.MaxHeaderBytes <= 0 {
		t.Fatalf("timeouts not all set: %+v", srv)
	}
}
