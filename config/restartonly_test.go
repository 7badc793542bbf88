package config

import (
	"slices"
	"strings"
	"testing"
)

// TestRestartOnly: what a reload leaves for the next restart is judged
// against the config the daemon started with: the API servers, the shadow
// checker turned on or off, its mode, interfaces and workers; anything
// else, and next equal to started, gives nothing.
func TestRestartOnly(t *testing.T) {
	const (
		apiRestart   = "[api] changed: takes effect at the next restart (the running API servers keep their settings)"
		shadowOn     = "[shadow] enabled by reload: it starts at the next restart"
		shadowOff    = "[shadow] disabled by reload: the checker keeps running until the next restart"
		shadowMode   = "[shadow] mode changed (running always, configured on-demand): takes effect at the next restart"
		shadowIfaces = "[shadow] interfaces changed: the capture keeps its interfaces until the next restart"
		shadowWork   = "[shadow] workers changed (running 2, configured 4): the capture keeps its rings until the next restart"
	)
	base := G + "[api]\nhttp = \"127.0.0.1:9179\"\n"
	always := "[shadow]\nmode = \"always\"\ninterfaces = [\"eth0\", \"eth1\"]\nworkers = 2\n"
	for _, c := range []struct {
		name, started, next string
		want                []string
	}{
		{"same", base + always, base + always, nil},
		{"log and follow are applied", base + always, strings.Replace(base, "[api]", "[log]\nlevel = \"debug\"\n[api]", 1) + always + "follow-peer-rollover = true\n", nil},
		{"api", base, strings.Replace(base, "9179", "9180", 1), []string{apiRestart}},
		{"api pprof", base, base + "pprof = true\n", []string{apiRestart}},
		{"shadow on", base, base + always, []string{shadowOn}},
		{"shadow off", base + always, base, []string{shadowOff}},
		{"shadow mode", base + always, base + strings.Replace(always, "always", "on-demand", 1), []string{shadowMode}},
		{"interfaces, reordered", base + always, base + strings.Replace(always, `"eth0", "eth1"`, `"eth1", "eth0"`, 1), nil},
		{"interfaces", base + always, base + strings.Replace(always, `, "eth1"`, "", 1), []string{shadowIfaces}},
		{"workers and api", base + always, strings.Replace(base, "9179", "9180", 1) + strings.Replace(always, "workers = 2", "workers = 4", 1), []string{apiRestart, shadowWork}},
		{"off stays off", base, base + "[shadow]\nmode = \"off\"\nworkers = 3\n", nil},
	} {
		got := RestartOnly(mustParse(t, c.started), mustParse(t, c.next))
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: RestartOnly =\n%q\nwant\n%q", c.name, got, c.want)
		}
	}
}

// TestReloadPreviewRestart: the preview (what `check --diff` prints) says
// what waits for the restart against the config the daemon started with:
// a reload back to it says nothing of [api], though the running config
// differs, and a reload that keeps a pending [api] change still says so.
func TestReloadPreviewRestart(t *testing.T) {
	started := mustParse(t, G+"[api]\nhttp = \"127.0.0.1:9179\"\n")
	cur := mustParse(t, G+"[api]\nhttp = \"127.0.0.1:9180\"\n")
	if p := NewReloadPreview(started, cur, started); slices.ContainsFunc(p.Other, func(s string) bool { return strings.HasPrefix(s, "[api]") }) {
		t.Errorf("back to the started [api]: Other = %q", p.Other)
	}
	p := NewReloadPreview(started, cur, cur)
	if !slices.Contains(p.Other, "[api] changed: takes effect at the next restart (the running API servers keep their settings)") {
		t.Errorf("a pending [api] change: Other = %q", p.Other)
	}
	if !p.OK() {
		t.Errorf("refused: %+v", p.Refused)
	}
	if p := NewPreview(started, cur); !slices.Contains(p.Other, "[api] changed: takes effect at the next restart (the running API servers keep their settings)") {
		t.Errorf("NewPreview: Other = %q", p.Other)
	}
	if got := RestartOnly(nil, started); !slices.Equal(got, []string{"[api] changed: takes effect at the next restart (the running API servers keep their settings)"}) {
		t.Errorf("RestartOnly(nil, ...) = %q", got)
	}
}
