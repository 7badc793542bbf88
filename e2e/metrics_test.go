//go:build linux

package e2e

import (
	"net/netip"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"gopkg.in/yaml.v3"

	"github.com/authbgp/authbgpd/internal/testenv"
)

const rulesFile = "../deploy/prometheus/authbgpd-rules.yml"

// rulesSRv6Only are the metrics of rules that only have series with SRv6
// configured; TestGrafanaMetrics requires them on its SRv6 headend.
var rulesSRv6Only = map[string]bool{"authbgpd_srh_hmac_total": true, "authbgpd_srv6_policy_installed": true}

// rulesTCPAOOnly are the metrics of rules that only have series with a
// TCP-AO peer configured (and the shadow on); shadow's TestRunnerTCPAO
// requires them, at 0 from the start, of a Runner with TCP-AO peers.
// The kernel's TCP-AO counters exist only with TCP-AO peers (per peer)
// or a kernel with TCP-AO (the namespace's).
var rulesTCPAOOnly = map[string]bool{"authbgpd_tcpao_segments_total": true,
	"authbgpd_tcp_ao_segments_total": true, "authbgpd_kernel_tcp_ao_segments_total": true}

// promRule is an alerting rule of the rules file.
type promRule struct {
	Alert       string            `yaml:"alert"`
	Expr        string            `yaml:"expr"`
	Annotations map[string]string `yaml:"annotations"`
}

func loadRules(t *testing.T) []promRule {
	t.Helper()
	b, err := os.ReadFile(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Groups []struct {
			Rules []promRule `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatalf("%s: %v", rulesFile, err)
	}
	var out []promRule
	for _, g := range f.Groups {
		out = append(out, g.Rules...)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no rules", rulesFile)
	}
	return out
}

var (
	matcherRE   = regexp.MustCompile(`([a-z_]+)\s*(=~|!=|!~|=)\s*"([^"]*)"`)
	byRE        = regexp.MustCompile(`\b(?:by|without)\s*\(([^)]*)\)`)
	labelsRefRE = regexp.MustCompile(`\$labels\.([a-z_]+)`)
)

// targetLabels are added by Prometheus, not by authbgpd.
var targetLabels = map[string]bool{"instance": true, "job": true}

// checkRule reports what rule uses that mfs lacks: a metric name, a label
// (in a matcher, a by(), or $labels in an annotation) that none of the
// rule's metrics has, or a matched value no series has.
func checkRule(r promRule, mfs map[string]*dto.MetricFamily) []string {
	var bad []string
	var fams []*dto.MetricFamily
	for _, n := range metricNameRE.FindAllString(r.Expr, -1) {
		if rulesSRv6Only[n] || rulesTCPAOOnly[n] {
			return nil
		}
		if mfs[n] == nil {
			bad = append(bad, "metric "+n+" not exported")
			continue
		}
		fams = append(fams, mfs[n])
	}
	values := func(label string) map[string]bool {
		vs := map[string]bool{}
		for _, mf := range fams {
			for _, m := range mf.GetMetric() {
				for _, l := range m.GetLabel() {
					if l.GetName() == label {
						vs[l.GetValue()] = true
					}
				}
			}
		}
		return vs
	}
	var used []string
	for _, m := range matcherRE.FindAllStringSubmatch(r.Expr, -1) {
		used = append(used, m[1])
		if m[2] != "=" && m[2] != "=~" || targetLabels[m[1]] {
			continue
		}
		vs := values(m[1])
		for _, v := range strings.Split(m[3], "|") {
			if !vs[v] {
				bad = append(bad, m[1]+`="`+v+`" has no series`)
			}
		}
	}
	for _, m := range byRE.FindAllStringSubmatch(r.Expr, -1) {
		for _, l := range strings.Split(m[1], ",") {
			used = append(used, strings.TrimSpace(l))
		}
	}
	for _, a := range r.Annotations {
		for _, m := range labelsRefRE.FindAllStringSubmatch(a, -1) {
			used = append(used, m[1])
		}
	}
	for _, l := range used {
		if !targetLabels[l] && len(values(l)) == 0 {
			bad = append(bad, "label "+l+" on none of its metrics")
		}
	}
	return bad
}

func parseMetrics(t *testing.T, body string) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("/metrics: %v", err)
	}
	return mfs
}

// sample is the value of the series of name with labels (a subset), and
// whether there is one.
func sample(mfs map[string]*dto.MetricFamily, name string, labels map[string]string) (float64, bool) {
next:
	for _, m := range mfs[name].GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for k, v := range labels {
			if have[k] != v {
				continue next
			}
		}
		switch {
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		}
	}
	return 0, false
}

// TestMetricsTellTheTruth scrapes a real authbgpd with one peer up (FRR,
// TCP-MD5, the shadow on) and one configured peer that never comes up, and
// requires the series the alert rules need from the first scrape — peer_up
// 0 for the never-up peer, counters at 0 — and every metric, label and
// matched value that deploy/prometheus/authbgpd-rules.yml uses.
func TestMetricsTellTheTruth(t *testing.T) {
	testenv.RequireRoot(t)
	t.Parallel()
	rules := loadRules(t)
	pair := newPair(t, "met1", false)
	tp, nsA, nsB := pair.Topology, pair.A, pair.B
	a4, b4 := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	never := "192.0.2.9" // configured, nobody there
	keyB, keyNever := newSecret("met1b"), newSecret("met1never")
	a := StartAuthbgpd(t, tp, nsA, abConfig(shadowSection(false),
		abPeer{addr: b4.String(), asn: 65002, src: "password-file", ref: "b.key"},
		abPeer{addr: never, asn: 65003, src: "password-file", ref: "never.key"}),
		AuthbgpdOptions{Files: map[string]string{"b.key": keyB + "\n", "never.key": keyNever + "\n"}})

	// The first scrape, before any session: the never-up peer is there.
	body, err := a.HTTPGet("/metrics")
	if err != nil {
		t.Fatal(err)
	}
	first := parseMetrics(t, body)
	for _, peer := range []string{b4.String(), never} {
		p := map[string]string{"peer": peer}
		if v, ok := sample(first, "authbgpd_peer_up", p); !ok || v != 0 {
			t.Errorf("first scrape: authbgpd_peer_up{peer=%q} = %v (present %v), want 0", peer, v, ok)
		}
		if _, ok := sample(first, "authbgpd_md5_key_installed", p); !ok {
			t.Errorf("first scrape: no authbgpd_md5_key_installed{peer=%q}", peer)
		}
		if v, ok := sample(first, "authbgpd_md5_key_changes_total", p); !ok || v != 0 {
			t.Errorf("first scrape: authbgpd_md5_key_changes_total{peer=%q} = %v (present %v), want 0", peer, v, ok)
		}
		for _, verdict := range []string{"valid", "bad_digest", "missing", "unexpected"} {
			if _, ok := sample(first, "authbgpd_md5_segments_total", map[string]string{"peer": peer, "verdict": verdict}); !ok {
				t.Errorf("first scrape: no authbgpd_md5_segments_total{peer=%q,verdict=%q}", peer, verdict)
			}
		}
	}
	if v, ok := sample(first, "authbgpd_shadow_capture_running", nil); !ok || v != 1 {
		t.Errorf("authbgpd_shadow_capture_running = %v (present %v), want 1 (root has CAP_NET_RAW)", v, ok)
	}
	bi := first["authbgpd_build_info"].GetMetric()
	if len(bi) != 1 || len(bi[0].GetLabel()) != 3 {
		t.Errorf("authbgpd_build_info: %v, want one series with version, gobgp, go", bi)
	} else if v, _ := sample(first, "authbgpd_build_info", nil); v != 1 {
		t.Errorf("authbgpd_build_info = %v, want 1", v)
	}

	StartFRR(t, tp, nsB, PeerConfig{ASN: 65002, RouterID: b4,
		Neighbors: []Neighbor{{a4, 65001, keyB}},
		Networks:  []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24")}})
	waitSessions(t, 60*time.Second, 1, sessionCheck{a, b4})
	var mfs map[string]*dto.MetricFamily
	waitFor(t, 20*time.Second, "peer_up 1 and 1 prefix received from FRR on /metrics", func() error {
		body, err := a.HTTPGet("/metrics")
		if err != nil {
			return err
		}
		mfs = parseMetrics(t, body)
		up, _ := sample(mfs, "authbgpd_peer_up", map[string]string{"peer": b4.String()})
		rcv, _ := sample(mfs, "authbgpd_peer_prefixes", map[string]string{"peer": b4.String(), "family": "ipv4-unicast", "direction": "received"})
		acc, _ := sample(mfs, "authbgpd_peer_prefixes", map[string]string{"peer": b4.String(), "family": "ipv4-unicast", "direction": "accepted"})
		return holds(up == 1 && rcv == 1 && acc == 1)
	})
	if v, ok := sample(mfs, "authbgpd_peer_up", map[string]string{"peer": never}); !ok || v != 0 {
		t.Errorf("authbgpd_peer_up{peer=%q} = %v (present %v), want 0: AuthbgpdPeerDown could not fire", never, v, ok)
	}
	if strings.Contains(body, keyB) || strings.Contains(body, keyNever) {
		t.Fatal("/metrics holds a secret")
	}
	for _, r := range rules {
		for _, b := range checkRule(r, mfs) {
			t.Errorf("%s: %s: %s", rulesFile, r.Alert, b)
		}
	}
}
