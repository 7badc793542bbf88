//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/status"
)

// grafana/authbgpd-dashboard.json is the Grafana dashboard for authbgpd's
// metrics. TestGrafanaDashboard checks its shape; TestGrafanaMetrics checks
// that every metric it queries exists on a running daemon.

const dashboardFile = "../grafana/authbgpd-dashboard.json"

// metricNameRE finds metric names in PromQL (md5, srv6: digits too).
var metricNameRE = regexp.MustCompile(`\bauthbgpd_[a-z0-9_]+`)

type grafanaPanel struct {
	ID         int             `json:"id"`
	Type       string          `json:"type"`
	Title      string          `json:"title"`
	Datasource json.RawMessage `json:"datasource"`
	GridPos    *struct {
		H, W, X, Y int
	} `json:"gridPos"`
	Targets []struct {
		Expr       string          `json:"expr"`
		RefID      string          `json:"refId"`
		Datasource json.RawMessage `json:"datasource"`
	} `json:"targets"`
	Panels []grafanaPanel `json:"panels"` // rows
}

type grafanaDashboard struct {
	Title         string         `json:"title"`
	UID           string         `json:"uid"`
	SchemaVersion int            `json:"schemaVersion"`
	Panels        []grafanaPanel `json:"panels"`
	Templating    struct {
		List []struct {
			Name       string          `json:"name"`
			Type       string          `json:"type"`
			Query      json.RawMessage `json:"query"`
			Definition string          `json:"definition"`
		} `json:"list"`
	} `json:"templating"`
	Annotations struct {
		List []struct {
			Expr string `json:"expr"`
		} `json:"list"`
	} `json:"annotations"`
}

func dashLoad(t *testing.T) *grafanaDashboard {
	t.Helper()
	data, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d grafanaDashboard
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	return &d
}

// queries returns every PromQL expression of the dashboard (panel targets,
// variables, annotations), keyed by where it is.
func (d *grafanaDashboard) queries() map[string]string {
	q := map[string]string{}
	var walk func(ps []grafanaPanel)
	walk = func(ps []grafanaPanel) {
		for _, p := range ps {
			for _, tg := range p.Targets {
				q["panel "+p.Title+" target "+tg.RefID] = tg.Expr
			}
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	for _, v := range d.Templating.List {
		if v.Type == "query" {
			q["variable "+v.Name] = v.Definition
		}
	}
	for i, a := range d.Annotations.List {
		if a.Expr != "" {
			q["annotation "+string(rune('0'+i))] = a.Expr
		}
	}
	return q
}

// metricNames returns the authbgpd metric names the dashboard queries.
func (d *grafanaDashboard) metricNames() []string {
	set := map[string]bool{}
	for _, e := range d.queries() {
		for _, m := range metricNameRE.FindAllString(e, -1) {
			set[m] = true
		}
	}
	names := make([]string, 0, len(set))
	for m := range set {
		names = append(names, m)
	}
	sort.Strings(names)
	return names
}

// TestGrafanaDashboard: valid JSON of a recent schema, a Prometheus
// datasource variable every panel and target uses, unique panel IDs, every
// panel placed, every target with a query, and panels for every metric of
// the contract (and reloads, key changes).
func TestGrafanaDashboard(t *testing.T) {
	d := dashLoad(t)
	if d.SchemaVersion < 36 {
		t.Errorf("schemaVersion %d: want 36 or later", d.SchemaVersion)
	}
	if d.Title == "" || d.UID == "" {
		t.Errorf("title %q uid %q: want both", d.Title, d.UID)
	}
	dsVar := ""
	for _, v := range d.Templating.List {
		if v.Type == "datasource" && strings.Contains(string(v.Query), "prometheus") {
			dsVar = v.Name
		}
	}
	if dsVar == "" {
		t.Fatalf("no Prometheus datasource variable in templating")
	}
	wantDS := `"${` + dsVar + `}"`
	ids := map[int]string{}
	var walk func(ps []grafanaPanel)
	walk = func(ps []grafanaPanel) {
		for _, p := range ps {
			if prev, dup := ids[p.ID]; dup || p.ID == 0 {
				t.Errorf("panel %q: id %d (also %q)", p.Title, p.ID, prev)
			}
			ids[p.ID] = p.Title
			if p.GridPos == nil || p.GridPos.W == 0 || p.GridPos.H == 0 || p.GridPos.X+p.GridPos.W > 24 {
				t.Errorf("panel %q: bad gridPos %+v", p.Title, p.GridPos)
			}
			if p.Type != "row" {
				if !strings.Contains(string(p.Datasource), wantDS) {
					t.Errorf("panel %q: datasource %s, want the ${%s} variable", p.Title, p.Datasource, dsVar)
				}
				if len(p.Targets) == 0 {
					t.Errorf("panel %q: no targets", p.Title)
				}
				for _, tg := range p.Targets {
					if strings.TrimSpace(tg.Expr) == "" || !metricNameRE.MatchString(tg.Expr) {
						t.Errorf("panel %q target %s: expr %q queries no authbgpd metric", p.Title, tg.RefID, tg.Expr)
					}
					if !strings.Contains(string(tg.Datasource), wantDS) {
						t.Errorf("panel %q target %s: datasource %s, want ${%s}", p.Title, tg.RefID, tg.Datasource, dsVar)
					}
				}
			}
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	names := d.metricNames()
	t.Logf("the dashboard queries %d metrics: %v", len(names), names)
	for _, want := range []string{
		"authbgpd_peer_up", "authbgpd_md5_key_installed", "authbgpd_md5_segments_total",
		"authbgpd_shadow_drops_total", "authbgpd_srh_hmac_total", "authbgpd_srv6_policy_installed",
		"authbgpd_config_reloads_total", "authbgpd_md5_key_changes_total", "authbgpd_peer_kernel_drops_total",
	} {
		if !dashContains(names, want) {
			t.Errorf("no panel queries %s", want)
		}
	}
}

func dashContains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// TestGrafanaMetrics runs the SRv6 containerlab topology on namespaces
// (e2e/clab/srv6-hmac.clab.yml: a TCP-MD5 session with the shadow checker
// on, an SR policy with HMAC key 42 installed on the headend, traffic
// through it) plus one key change by reload, and requires a sample of every
// metric the dashboard queries (and every authbgpd_* name docs/*.md
// mention) on the headend's /metrics. (The Prometheus
// client exposes a labelled metric only once it has a series: the test
// makes every one of them happen.)
func TestGrafanaMetrics(t *testing.T) {
	testenv.RequireRoot(t)
	requireSRv6HMACKernel(t, "")
	testenv.RequireBinary(t, "gobgp")
	names := dashLoad(t).metricNames()
	// The operator docs and the alert rules (deploy/prometheus) name
	// metrics too: they must exist as well (TestMetricsTellTheTruth checks
	// the rules' labels and values, except these SRv6 ones).
	docs, _ := filepath.Glob("../docs/*.md")
	docs = append(docs, rulesFile)
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range metricNameRE.FindAllString(string(b), -1) {
			if rulesTCPAOOnly[m] {
				continue // no TCP-AO peer (nor kernel) in this lab
			}
			if !dashContains(names, m) {
				names = append(names, m)
			}
		}
	}
	sort.Strings(names)
	lab := buildClab(t, filepath.Join(clabDir, "srv6-hmac.clab.yml"))
	ctl := lab.startAuthbgpdNode(t, "controller")
	he := lab.startAuthbgpdNodeCopy(t, "headend")
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	ctlAddr := netip.MustParseAddr("2001:db8:12::1")
	if err := WaitSession(ctx, he, ctlAddr, 0); err != nil {
		t.Fatal(err)
	}
	waitShadow(t, he, ctlAddr.String(), 10*time.Second, "ok", func(p *status.Peer) bool { return p.Shadow.Diagnosis == "ok" })
	if st := he.Status(); len(st.SRv6.HMACKeys) == 0 {
		t.Fatalf("SRv6 is not wired in this build (/status srv6.hmac_keys empty): the dashboard's SRv6 panels query metrics it never produces")
	}
	if !netns.WaitFor(ctx, func() bool {
		for _, p := range he.Status().SRv6.Policies {
			if p.Installed {
				return true
			}
		}
		return false
	}) {
		t.Fatalf("headend: no SR policy installed: %+v", he.Status().SRv6.Policies)
	}
	if !sendThroughPolicy(t, lab) {
		t.Fatalf("no traffic through the SR policy")
	}
	// A key change (and a reload): the headend's key for the controller
	// changes in place.
	writeSecretFile(t, he, "secrets/controller-headend.key", newSecret("grafana")+"\n")
	if err := he.cmd.Process.Signal(unix.SIGHUP); err != nil {
		t.Fatal(err)
	}
	var body string
	var missing []string
	netns.WaitFor(ctx, func() bool {
		var err error
		if body, err = he.HTTPGet("/metrics"); err != nil {
			return false
		}
		missing = missing[:0]
		for _, n := range names {
			if !regexp.MustCompile(`(?m)^` + n + `(\{|\s)`).MatchString(body) {
				missing = append(missing, n)
			}
		}
		return len(missing) == 0
	})
	if len(missing) > 0 {
		t.Fatalf("metrics the dashboard queries (or docs/*.md name) but the headend's /metrics does not expose: %v", missing)
	}
	for _, n := range names {
		t.Logf("%s: %s", n, dashFirstSample(body, n))
	}
	_ = ctl
}

func dashFirstSample(body, name string) string {
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, name+"{") || strings.HasPrefix(l, name+" ") {
			return l
		}
	}
	return ""
}
