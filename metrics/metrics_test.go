package metrics

import (
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
)

// gather returns the families of the registry by name.
func gather(t *testing.T, m *Metrics) map[string]*dto.MetricFamily {
	t.Helper()
	mfs, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]*dto.MetricFamily, len(mfs))
	for _, mf := range mfs {
		out[mf.GetName()] = mf
	}
	return out
}

// value returns the value of the series of family name with exactly labels,
// and whether it exists.
func value(t *testing.T, m *Metrics, name string, labels map[string]string) (float64, bool) {
	t.Helper()
	mf := gather(t, m)[name]
	if mf == nil {
		return 0, false
	}
next:
	for _, s := range mf.GetMetric() {
		if len(s.GetLabel()) != len(labels) {
			continue
		}
		for _, l := range s.GetLabel() {
			if v, ok := labels[l.GetName()]; !ok || v != l.GetValue() {
				continue next
			}
		}
		switch {
		case s.Counter != nil:
			return s.Counter.GetValue(), true
		case s.Gauge != nil:
			return s.Gauge.GetValue(), true
		}
	}
	return 0, false
}

func mustValue(t *testing.T, m *Metrics, name string, labels map[string]string, want float64) {
	t.Helper()
	got, ok := value(t, m, name, labels)
	if !ok {
		t.Fatalf("%s%v: no such series", name, labels)
	}
	if got != want {
		t.Fatalf("%s%v = %v, want %v", name, labels, got, want)
	}
}

func mustAbsent(t *testing.T, m *Metrics, name string, labels map[string]string) {
	t.Helper()
	if v, ok := value(t, m, name, labels); ok {
		t.Fatalf("%s%v = %v, want no series", name, labels, v)
	}
}

func TestContractNamesAndTypes(t *testing.T) {
	m := New("1.2.3")
	m.SetPeerUp("192.0.2.2", true)
	m.SetKeyInstalled("192.0.2.2", true)
	m.KeyChanged("192.0.2.2")
	m.AddSegments("192.0.2.2", SegmentValid, 1)
	m.TCPAOSegmentCounters("192.0.2.6").Valid.Inc()
	m.AddShadowDrops(1)
	m.AddSRHHMAC(42, HMACValid, 1)
	m.SetPolicyInstalled("gold-to-pe3", true)
	m.ConfigReloaded(nil)
	if err := m.ReadPeers(func() ([]PeerState, error) {
		return []PeerState{{Peer: "192.0.2.2", Up: true, Prefixes: []FamilyPrefixes{{Family: "ipv4-unicast", Received: 1}},
			Malformed:           PeerMalformed{Updates: 3, Panics: 1, ByHandling: map[string]uint64{"treat-as-withdraw": 2, "session-reset": 2}},
			MaxPrefixesExceeded: 4}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := m.ReadCaptureRunning(func() bool { return true }); err != nil {
		t.Fatal(err)
	}
	if err := m.ReadGoBGPLoop(func() time.Duration { return time.Second }, func() error { return nil }); err != nil {
		t.Fatal(err)
	}

	want := map[string]dto.MetricType{
		"authbgpd_md5_segments_total":               dto.MetricType_COUNTER,
		"authbgpd_tcpao_segments_total":             dto.MetricType_COUNTER,
		"authbgpd_peer_up":                          dto.MetricType_GAUGE,
		"authbgpd_md5_key_installed":                dto.MetricType_GAUGE,
		"authbgpd_shadow_drops_total":               dto.MetricType_COUNTER,
		"authbgpd_srh_hmac_total":                   dto.MetricType_COUNTER,
		"authbgpd_srv6_policy_installed":            dto.MetricType_GAUGE,
		"authbgpd_md5_key_changes_total":            dto.MetricType_COUNTER,
		"authbgpd_config_reloads_total":             dto.MetricType_COUNTER,
		"authbgpd_build_info":                       dto.MetricType_GAUGE,
		"authbgpd_peer_prefixes":                    dto.MetricType_GAUGE,
		"authbgpd_peer_malformed_updates_total":     dto.MetricType_COUNTER,
		"authbgpd_peer_malformed_messages_total":    dto.MetricType_COUNTER,
		"authbgpd_peer_receive_panics_total":        dto.MetricType_COUNTER,
		"authbgpd_peer_max_prefixes_exceeded_total": dto.MetricType_COUNTER,
		"authbgpd_shadow_capture_running":           dto.MetricType_GAUGE,

		"authbgpd_gobgp_loop_last_answer_age_seconds": dto.MetricType_GAUGE,
		"authbgpd_gobgp_loop_stalled":                 dto.MetricType_GAUGE,
		// The Go runtime and process collectors.
		"go_goroutines":              dto.MetricType_GAUGE,
		"process_cpu_seconds_total":  dto.MetricType_COUNTER,
		"process_start_time_seconds": dto.MetricType_GAUGE,
	}
	got := gather(t, m)
	for name, typ := range want {
		mf := got[name]
		if mf == nil {
			if strings.HasPrefix(name, "process_") && !processCollectorSupported() {
				continue
			}
			t.Errorf("%s is not exposed", name)
			continue
		}
		if mf.GetType() != typ {
			t.Errorf("%s is a %v, want %v", name, mf.GetType(), typ)
		}
		if strings.HasPrefix(name, "authbgpd_") && len(mf.GetHelp()) < 20 {
			t.Errorf("%s: HELP %q is too short", name, mf.GetHelp())
		}
	}
	for name := range got {
		if strings.HasPrefix(name, "authbgpd_") {
			if _, ok := want[name]; !ok {
				t.Errorf("%s is exposed but not tested here", name)
			}
		}
	}
	mustValue(t, m, "authbgpd_peer_malformed_updates_total", map[string]string{"peer": "192.0.2.2"}, 3)
	mustValue(t, m, "authbgpd_peer_malformed_messages_total", map[string]string{"peer": "192.0.2.2", "handling": "session-reset"}, 2)
	mustValue(t, m, "authbgpd_peer_receive_panics_total", map[string]string{"peer": "192.0.2.2"}, 1)
	mustValue(t, m, "authbgpd_peer_max_prefixes_exceeded_total", map[string]string{"peer": "192.0.2.2"}, 4)
	mustValue(t, m, "authbgpd_build_info", map[string]string{"version": "1.2.3", "gobgp": linkedGoBGP(), "go": runtime.Version()}, 1)

	// Lint the exposition the way promtool does.
	problems, err := testutil.GatherAndLint(m.Registry())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		if strings.HasPrefix(p.Metric, "authbgpd_") {
			t.Errorf("lint: %s: %s", p.Metric, p.Text)
		}
	}
}

// processCollectorSupported: the process collector only reports on some OSes.
func processCollectorSupported() bool {
	m := New("x")
	mfs, _ := m.Registry().Gather()
	for _, mf := range mfs {
		if strings.HasPrefix(mf.GetName(), "process_") {
			return true
		}
	}
	return false
}

func TestPrivateRegistry(t *testing.T) {
	a, b := New("a"), New("b")
	a.SetPeerUp("192.0.2.2", true)
	mustAbsent(t, b, "authbgpd_peer_up", map[string]string{"peer": "192.0.2.2"})
	// Two instances in one process must not collide (no global registry).
	if a.Registry() == b.Registry() {
		t.Fatal("registries are shared")
	}
}

func TestPeerGauges(t *testing.T) {
	m := New("dev")
	p := map[string]string{"peer": "192.0.2.2"}
	m.SetPeerUp("192.0.2.2", true)
	mustValue(t, m, "authbgpd_peer_up", p, 1)
	m.SetPeerUp("192.0.2.2", false)
	mustValue(t, m, "authbgpd_peer_up", p, 0)
	m.SetKeyInstalled("192.0.2.2", true)
	mustValue(t, m, "authbgpd_md5_key_installed", p, 1)
	m.SetKeyInstalled("192.0.2.2", false)
	mustValue(t, m, "authbgpd_md5_key_installed", p, 0)
	m.KeyChanged("192.0.2.2")
	m.KeyChanged("192.0.2.2")
	mustValue(t, m, "authbgpd_md5_key_changes_total", p, 2)
}

func TestSegments(t *testing.T) {
	m := New("dev")
	c := m.SegmentCounters("192.0.2.2")
	if c2 := m.SegmentCounters("192.0.2.2"); c2 != c {
		t.Fatal("SegmentCounters is not cached")
	}
	// All four verdicts exist at 0 once the peer is known.
	for _, v := range []string{SegmentValid, SegmentBadDigest, SegmentMissing, SegmentUnexpected} {
		mustValue(t, m, "authbgpd_md5_segments_total", map[string]string{"peer": "192.0.2.2", "verdict": v}, 0)
	}
	c.Valid.Inc()
	c.Valid.Inc()
	c.BadDigest.Inc()
	if !m.AddSegments("192.0.2.2", SegmentMissing, 5) {
		t.Fatal("AddSegments(missing) = false")
	}
	if !c.Add(SegmentUnexpected, 7) {
		t.Fatal("Add(unexpected) = false")
	}
	if m.AddSegments("192.0.2.2", "bad-digest", 1) {
		t.Fatal("AddSegments accepted an unknown verdict")
	}
	want := map[string]float64{SegmentValid: 2, SegmentBadDigest: 1, SegmentMissing: 5, SegmentUnexpected: 7}
	for v, n := range want {
		mustValue(t, m, "authbgpd_md5_segments_total", map[string]string{"peer": "192.0.2.2", "verdict": v}, n)
	}
	mustAbsent(t, m, "authbgpd_md5_segments_total", map[string]string{"peer": "192.0.2.2", "verdict": "bad-digest"})
	if n := len(gather(t, m)["authbgpd_md5_segments_total"].GetMetric()); n != 4 {
		t.Fatalf("%d segment series, want 4", n)
	}
}

// TestTCPAOSegments: a TCP-AO peer's six verdicts exist at 0 once it is
// known, count apart from the TCP-MD5 series, and go with DeletePeer.
func TestTCPAOSegments(t *testing.T) {
	m := New("dev")
	c := m.TCPAOSegmentCounters("192.0.2.6")
	if m.TCPAOSegmentCounters("192.0.2.6") != c {
		t.Fatal("TCPAOSegmentCounters is not cached")
	}
	verdicts := []string{SegmentValid, SegmentBadMAC, SegmentMissing, SegmentUnknownKey, SegmentUnexpected, SegmentNoHandshake}
	for _, v := range verdicts {
		mustValue(t, m, "authbgpd_tcpao_segments_total", map[string]string{"peer": "192.0.2.6", "verdict": v}, 0)
	}
	mustAbsent(t, m, "authbgpd_md5_segments_total", map[string]string{"peer": "192.0.2.6", "verdict": SegmentValid})
	for i, v := range verdicts {
		if !c.Add(v, uint64(i+1)) {
			t.Fatalf("Add(%s) = false", v)
		}
	}
	if c.Add(SegmentBadDigest, 1) || c.Add("bad-mac", 1) {
		t.Fatal("Add accepted a verdict TCP-AO does not have")
	}
	c.BadMAC.Inc()
	for i, v := range verdicts {
		want := float64(i + 1)
		if v == SegmentBadMAC {
			want++
		}
		mustValue(t, m, "authbgpd_tcpao_segments_total", map[string]string{"peer": "192.0.2.6", "verdict": v}, want)
	}
	if n := len(gather(t, m)["authbgpd_tcpao_segments_total"].GetMetric()); n != 6 {
		t.Fatalf("%d series, want 6", n)
	}
	m.DeletePeer("192.0.2.6")
	if mf := gather(t, m)["authbgpd_tcpao_segments_total"]; len(mf.GetMetric()) != 0 {
		t.Fatalf("series of the deleted peer remain: %v", mf.GetMetric())
	}
	if m.TCPAOSegmentCounters("192.0.2.6") == c {
		t.Fatal("TCPAOSegmentCounters returned the deleted peer's counters")
	}
	mustValue(t, m, "authbgpd_tcpao_segments_total", map[string]string{"peer": "192.0.2.6", "verdict": SegmentValid}, 0)
	var nilm *Metrics
	nilm.TCPAOSegmentCounters("x").Valid.Inc() // goes nowhere, no panic
}

func TestDeletePeer(t *testing.T) {
	m := New("dev")
	for _, peer := range []string{"192.0.2.2", "192.0.2.3"} {
		m.SetPeerUp(peer, true)
		m.SetKeyInstalled(peer, true)
		m.KeyChanged(peer)
		m.AddSegments(peer, SegmentValid, 3)
	}
	old := m.SegmentCounters("192.0.2.2")
	m.DeletePeer("192.0.2.2")

	gone := map[string]string{"peer": "192.0.2.2"}
	mustAbsent(t, m, "authbgpd_peer_up", gone)
	mustAbsent(t, m, "authbgpd_md5_key_installed", gone)
	mustAbsent(t, m, "authbgpd_md5_key_changes_total", gone)
	for _, s := range gather(t, m)["authbgpd_md5_segments_total"].GetMetric() {
		for _, l := range s.GetLabel() {
			if l.GetName() == "peer" && l.GetValue() == "192.0.2.2" {
				t.Fatalf("segment series of the deleted peer remain: %v", s)
			}
		}
	}
	// The other peer is untouched.
	kept := map[string]string{"peer": "192.0.2.3"}
	mustValue(t, m, "authbgpd_peer_up", kept, 1)
	mustValue(t, m, "authbgpd_md5_segments_total", map[string]string{"peer": "192.0.2.3", "verdict": SegmentValid}, 3)

	// Stale counters count nowhere; the peer configured again starts at 0.
	old.Valid.Inc()
	c := m.SegmentCounters("192.0.2.2")
	if c == old {
		t.Fatal("SegmentCounters returned the deleted peer's counters")
	}
	mustValue(t, m, "authbgpd_md5_segments_total", map[string]string{"peer": "192.0.2.2", "verdict": SegmentValid}, 0)
	c.Valid.Inc()
	mustValue(t, m, "authbgpd_md5_segments_total", map[string]string{"peer": "192.0.2.2", "verdict": SegmentValid}, 1)

	m.DeletePeer("198.51.100.1") // unknown: no-op
}

func TestSRH(t *testing.T) {
	m := New("dev")
	c := m.SRHCounters(42)
	if m.SRHCounters(42) != c {
		t.Fatal("SRHCounters is not cached")
	}
	c.Valid.Inc()
	m.AddSRHHMAC(42, HMACInvalid, 2)
	m.AddSRHHMAC(0, HMACNoHMAC, 3)
	m.AddSRHHMAC(7, HMACUnknownKey, 4)
	if m.AddSRHHMAC(42, "bogus", 1) {
		t.Fatal("AddSRHHMAC accepted an unknown verdict")
	}
	mustValue(t, m, "authbgpd_srh_hmac_total", map[string]string{"key_id": "42", "verdict": HMACValid}, 1)
	mustValue(t, m, "authbgpd_srh_hmac_total", map[string]string{"key_id": "42", "verdict": HMACInvalid}, 2)
	mustValue(t, m, "authbgpd_srh_hmac_total", map[string]string{"key_id": "42", "verdict": HMACNoHMAC}, 0)
	mustValue(t, m, "authbgpd_srh_hmac_total", map[string]string{"key_id": "0", "verdict": HMACNoHMAC}, 3)
	mustValue(t, m, "authbgpd_srh_hmac_total", map[string]string{"key_id": "7", "verdict": HMACUnknownKey}, 4)

	m.DeleteSRHKey(7)
	mustAbsent(t, m, "authbgpd_srh_hmac_total", map[string]string{"key_id": "7", "verdict": HMACUnknownKey})
	mustValue(t, m, "authbgpd_srh_hmac_total", map[string]string{"key_id": "42", "verdict": HMACValid}, 1)
	m.DeleteSRHKey(7) // twice: no-op
}

func TestSRHKeyIDBound(t *testing.T) {
	m := New("dev")
	for id := uint32(1); id <= MaxSRHKeyIDs+50; id++ {
		m.AddSRHHMAC(id, HMACUnknownKey, 1)
	}
	series := gather(t, m)["authbgpd_srh_hmac_total"].GetMetric()
	if want := (MaxSRHKeyIDs + 1) * 4; len(series) != want {
		t.Fatalf("%d series, want %d", len(series), want)
	}
	mustValue(t, m, "authbgpd_srh_hmac_total", map[string]string{"key_id": OtherKeyID, "verdict": HMACUnknownKey}, 50)
	// Known IDs keep their own series.
	m.AddSRHHMAC(1, HMACValid, 1)
	mustValue(t, m, "authbgpd_srh_hmac_total", map[string]string{"key_id": "1", "verdict": HMACValid}, 1)
}

func TestShadowDropsPoliciesReloads(t *testing.T) {
	m := New("dev")
	mustValue(t, m, "authbgpd_shadow_drops_total", nil, 0)
	m.AddShadowDrops(3)
	m.AddShadowDrops(0)
	mustValue(t, m, "authbgpd_shadow_drops_total", nil, 3)

	m.SetPolicyInstalled("gold-to-pe3", true)
	mustValue(t, m, "authbgpd_srv6_policy_installed", map[string]string{"name": "gold-to-pe3"}, 1)
	m.SetPolicyInstalled("gold-to-pe3", false)
	mustValue(t, m, "authbgpd_srv6_policy_installed", map[string]string{"name": "gold-to-pe3"}, 0)
	m.DeletePolicy("gold-to-pe3")
	mustAbsent(t, m, "authbgpd_srv6_policy_installed", map[string]string{"name": "gold-to-pe3"})

	mustValue(t, m, "authbgpd_config_reloads_total", map[string]string{"result": ReloadOK}, 0)
	mustValue(t, m, "authbgpd_config_reloads_total", map[string]string{"result": ReloadError}, 0)
	m.ConfigReloaded(nil)
	m.ConfigReloaded(errors.New("bad"))
	m.ConfigReloaded(errors.New("bad"))
	mustValue(t, m, "authbgpd_config_reloads_total", map[string]string{"result": ReloadOK}, 1)
	mustValue(t, m, "authbgpd_config_reloads_total", map[string]string{"result": ReloadError}, 2)
}

func TestNilMetrics(t *testing.T) {
	var m *Metrics
	m.SetPeerUp("p", true)
	m.SetKeyInstalled("p", true)
	m.KeyChanged("p")
	m.AddShadowDrops(1)
	m.SetPolicyInstalled("x", true)
	m.DeletePolicy("x")
	m.ConfigReloaded(nil)
	m.DeletePeer("p")
	m.DeleteSRHKey(1)
	m.SegmentCounters("p").Valid.Inc()
	m.SRHCounters(1).Valid.Inc()
	if !m.AddSegments("p", SegmentValid, 1) || m.AddSegments("p", "nope", 1) {
		t.Fatal("nil AddSegments verdict check")
	}
	if !m.AddSRHHMAC(1, HMACValid, 1) {
		t.Fatal("nil AddSRHHMAC")
	}
	if m.Registry() != nil {
		t.Fatal("nil Registry")
	}
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 404 {
		t.Fatalf("nil Handler: %d", rec.Code)
	}
}

func TestHandler(t *testing.T) {
	m := New("dev")
	m.AddSegments("192.0.2.2", SegmentBadDigest, 9)
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	if rec.Code != 200 {
		t.Fatalf("status %d", rec.Code)
	}
	for _, want := range []string{
		"# TYPE authbgpd_md5_segments_total counter",
		`authbgpd_md5_segments_total{peer="192.0.2.2",verdict="bad_digest"} 9`,
		"go_goroutines",
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("exposition lacks %q", want)
		}
	}
}

func TestConcurrent(t *testing.T) {
	m := New("dev")
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			peer := fmt.Sprintf("192.0.2.%d", g%3)
			for i := 0; i < 200; i++ {
				m.SegmentCounters(peer).Valid.Inc()
				m.SetPeerUp(peer, i%2 == 0)
				m.AddSRHHMAC(uint32(i%5), HMACValid, 1)
				if i%50 == 0 {
					m.DeletePeer(peer)
				}
			}
		}(g)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 20; i++ {
			if _, err := m.Registry().Gather(); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	wg.Wait()
}

// The shadow checker's per-segment path must not allocate.
func TestSegmentIncrementNoAlloc(t *testing.T) {
	m := New("dev")
	c := m.SegmentCounters("192.0.2.2")
	h := m.SRHCounters(42)
	ao := m.TCPAOSegmentCounters("192.0.2.6")
	allocs := testing.AllocsPerRun(1000, func() {
		ao.Valid.Inc()
		ao.Add(SegmentNoHandshake, 1)
		c.Valid.Inc()
		c.BadDigest.Inc()
		c.Add(SegmentMissing, 1)
		h.Valid.Inc()
		h.Add(HMACInvalid, 1)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per increment, want 0", allocs)
	}
	if got := testutil.ToFloat64(c.Valid); got != 1001 { // AllocsPerRun runs once more to warm up
		t.Fatalf("valid = %v, want 1001", got)
	}
}

func BenchmarkSegmentCountersInc(b *testing.B) {
	m := New("dev")
	c := m.SegmentCounters("192.0.2.2")
	b.ReportAllocs()
	for b.Loop() {
		c.Valid.Inc()
	}
}

func BenchmarkSegmentCountersIncParallel(b *testing.B) {
	m := New("dev")
	c := m.SegmentCounters("192.0.2.2")
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c.Valid.Inc()
		}
	})
}

// BenchmarkAddSegments is the label-lookup path, for comparison.
func BenchmarkAddSegments(b *testing.B) {
	m := New("dev")
	b.ReportAllocs()
	for b.Loop() {
		m.AddSegments("192.0.2.2", SegmentValid, 1)
	}
}
