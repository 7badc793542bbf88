package config

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestShadowMode: [shadow] mode, enabled (its old spelling) and the
// default, decoded to Mode, Enabled (= On) and EffectiveMode.
func TestShadowMode(t *testing.T) {
	for _, tc := range []struct {
		name, shadow string
		want         ShadowMode
	}{
		{"no [shadow]", "", ShadowOff},
		{"empty [shadow]", "[shadow]\n", ShadowOff},
		{"enabled = true", "[shadow]\nenabled = true\n", ShadowAlways},
		{"enabled = false", "[shadow]\nenabled = false\n", ShadowOff},
		{"mode always", "[shadow]\nmode = \"always\"\n", ShadowAlways},
		{"mode on-demand", "[shadow]\nmode = \"on-demand\"\n", ShadowOnDemand},
		{"mode off", "[shadow]\nmode = \"off\"\n", ShadowOff},
		{"always and enabled = true", "[shadow]\nenabled = true\nmode = \"always\"\n", ShadowAlways},
		{"off and enabled = false", "[shadow]\nmode = \"off\"\nenabled = false\n", ShadowOff},
	} {
		c, err := parseTest(t, "r1.toml", G+tc.shadow)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		s := c.Shadow
		if s.Mode != tc.want || s.EffectiveMode() != tc.want || s.On() != (tc.want != ShadowOff) || s.Enabled != s.On() {
			t.Errorf("%s: Mode %q, EffectiveMode %q, On %v, Enabled %v; want %q", tc.name, s.Mode, s.EffectiveMode(), s.On(), s.Enabled, tc.want)
		}
		if s.Window() != DefaultOnDemandWindow || s.SegmentLimit() != DefaultOnDemandSegments || len(c.Warnings) != 0 {
			t.Errorf("%s: window %v, segments %d, warnings %v", tc.name, s.Window(), s.SegmentLimit(), c.Warnings)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("%s: re-validate: %v", tc.name, err)
		}
	}

	// A Shadow built in code without a Mode: Enabled says.
	for _, s := range []Shadow{{Enabled: true}, {}} {
		want := ShadowOff
		if s.Enabled {
			want = ShadowAlways
		}
		if s.EffectiveMode() != want || s.On() != s.Enabled {
			t.Errorf("%+v: EffectiveMode %q, On %v", s, s.EffectiveMode(), s.On())
		}
	}
}

func TestShadowOnDemandKnobs(t *testing.T) {
	c, err := parseTest(t, "r1.toml", G+"[shadow]\nmode = \"on-demand\"\non-demand-window = \"1m30s\"\non-demand-segments = 50\n")
	if err != nil {
		t.Fatal(err)
	}
	if s := c.Shadow; s.Window() != 90*time.Second || s.SegmentLimit() != 50 || s.OnDemandWindow != 90*time.Second || s.OnDemandSegments != 50 {
		t.Errorf("knobs: %+v", s)
	}
	for _, w := range []string{"1s", "10m", "20s"} {
		if _, err := parseTest(t, "r1.toml", G+"[shadow]\nmode = \"on-demand\"\non-demand-window = \""+w+"\"\n"); err != nil {
			t.Errorf("window %s: %v", w, err)
		}
	}
	// The knobs without on-demand: legal, with a warning naming the line.
	c, err = parseTest(t, "r1.toml", G+"[shadow]\nenabled = true\non-demand-window = \"5s\"\non-demand-segments = 10\n")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range c.Warnings {
		got = append(got, w.String())
	}
	want := []string{
		`r1.toml:6: on-demand-window has no effect unless [shadow] mode = "on-demand"`,
		`r1.toml:7: on-demand-segments has no effect unless [shadow] mode = "on-demand"`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings %q, want %q", got, want)
	}
}

func TestShadowModeBad(t *testing.T) {
	for _, tc := range []struct {
		name, shadow string
		want         []string
	}{
		{"unknown mode", "mode = \"sometimes\"\n",
			[]string{`r1.toml:5: mode: "sometimes" is not one of always, on-demand, off`}},
		{"mode wrong type", "mode = true\n",
			[]string{`r1.toml:5: mode: expected string, got boolean`}},
		{"on-demand with enabled = true", "enabled = true\nmode = \"on-demand\"\n",
			[]string{`r1.toml:6: mode: "on-demand" contradicts enabled = true on line 5 (enabled = true means mode = "always", false "off"): drop enabled`}},
		{"on-demand with enabled = false", "mode = \"on-demand\"\nenabled = false\n",
			[]string{`r1.toml:5: mode: "on-demand" contradicts enabled = false on line 6`}},
		{"always with enabled = false", "enabled = false\nmode = \"always\"\n",
			[]string{`r1.toml:6: mode: "always" contradicts enabled = false`}},
		{"off with enabled = true", "enabled = true\nmode = \"off\"\n",
			[]string{`r1.toml:6: mode: "off" contradicts enabled = true`}},
		{"window not a duration", "mode = \"on-demand\"\non-demand-window = \"20\"\n",
			[]string{`r1.toml:6: on-demand-window: "20" is not a duration (e.g. "20s", "1m30s")`}},
		{"window an integer", "mode = \"on-demand\"\non-demand-window = 20\n",
			[]string{`r1.toml:6: on-demand-window: expected string, got integer`}},
		{"window too short", "mode = \"on-demand\"\non-demand-window = \"500ms\"\n",
			[]string{`r1.toml:6: on-demand-window: 500ms is out of range 1s..10m0s`}},
		{"window zero", "mode = \"on-demand\"\non-demand-window = \"0s\"\n",
			[]string{`r1.toml:6: on-demand-window: 0s is out of range 1s..10m0s`}},
		{"window negative", "mode = \"on-demand\"\non-demand-window = \"-20s\"\n",
			[]string{`r1.toml:6: on-demand-window: -20s is out of range`}},
		{"window too long", "mode = \"on-demand\"\non-demand-window = \"10m1s\"\n",
			[]string{`r1.toml:6: on-demand-window: 10m1s is out of range`}},
		{"segments zero", "mode = \"on-demand\"\non-demand-segments = 0\n",
			[]string{`r1.toml:6: on-demand-segments: 0 is out of range 1..1000000`}},
		{"segments too many", "mode = \"on-demand\"\non-demand-segments = 1000001\n",
			[]string{`r1.toml:6: on-demand-segments: 1000001 is out of range 1..1000000`}},
		{"segments a string", "mode = \"on-demand\"\non-demand-segments = \"1000\"\n",
			[]string{`r1.toml:6: on-demand-segments: expected integer, got string`}},
		{"typo", "mode = \"on-demand\"\non-demand-windows = \"20s\"\n",
			[]string{`r1.toml:6: unknown key "on-demand-windows" in [shadow]`}},
	} {
		doc := G + "[shadow]\n" + tc.shadow
		c, err := parseTest(t, "r1.toml", doc)
		if err == nil || c != nil {
			t.Errorf("%s: no error (config %+v)", tc.name, c)
			continue
		}
		got := errStrings(err)
		if len(got) != len(tc.want) {
			t.Errorf("%s: %d errors %q, want %d", tc.name, len(got), got, len(tc.want))
		}
		for _, w := range tc.want {
			if !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, w) }) {
				t.Errorf("%s: no error starts with %q; got %q", tc.name, w, got)
			}
		}
	}
}

// TestShadowModeInCode: Validate on a Shadow built in code.
func TestShadowModeInCode(t *testing.T) {
	base := func() *Config {
		c, err := parseTest(t, "code", G)
		if err != nil {
			t.Fatal(err)
		}
		c.Shadow = Shadow{}
		return c
	}
	for _, tc := range []struct {
		s    Shadow
		want string // "" valid
	}{
		{Shadow{}, ""},
		{Shadow{Enabled: true}, ""},
		{Shadow{Mode: ShadowOnDemand, Enabled: true, OnDemandWindow: time.Minute, OnDemandSegments: 5}, ""},
		{Shadow{Mode: ShadowOff}, ""},
		{Shadow{Mode: "sometimes"}, `code: mode: "sometimes" is not one of always, on-demand, off`},
		{Shadow{Mode: ShadowOnDemand}, `code: mode: "on-demand" disagrees with enabled = false`},
		{Shadow{Mode: ShadowOff, Enabled: true}, `code: mode: "off" disagrees with enabled = true`},
		{Shadow{Mode: ShadowOnDemand, Enabled: true, OnDemandWindow: time.Millisecond}, `code: on-demand-window: 1ms is out of range 1s..10m0s`},
		{Shadow{Mode: ShadowOnDemand, Enabled: true, OnDemandSegments: -1}, `code: on-demand-segments: -1 is out of range 1..1000000`},
	} {
		c := base()
		c.Shadow = tc.s
		got := errStrings(c.Validate())
		switch {
		case tc.want == "" && len(got) != 0:
			t.Errorf("%+v: %q", tc.s, got)
		case tc.want != "" && !slices.Equal(got, []string{tc.want}):
			t.Errorf("%+v: %q, want %q", tc.s, got, tc.want)
		}
	}
}

// TestDiffShadowMode: a change of mode, or of an on-demand knob, is a
// [shadow] change; enabled = true and mode = "always" are the same.
func TestDiffShadowMode(t *testing.T) {
	docs := map[string]string{
		"enabled":   "[shadow]\nenabled = true\n",
		"always":    "[shadow]\nmode = \"always\"\n",
		"on-demand": "[shadow]\nmode = \"on-demand\"\n",
		"window":    "[shadow]\nmode = \"on-demand\"\non-demand-window = \"30s\"\n",
		"default":   "[shadow]\nmode = \"on-demand\"\non-demand-window = \"20s\"\non-demand-segments = 1000\n",
		"segments":  "[shadow]\nmode = \"on-demand\"\non-demand-segments = 10\n",
		"off":       "[shadow]\nmode = \"off\"\n",
		"none":      "",
	}
	same := [][2]string{{"enabled", "always"}, {"off", "none"}, {"on-demand", "default"}}
	changed := [][2]string{{"always", "on-demand"}, {"on-demand", "off"}, {"enabled", "none"}, {"on-demand", "window"}, {"on-demand", "segments"}, {"window", "segments"}}
	for _, p := range same {
		if ch := Diff(mustParse(t, G+docs[p[0]]), mustParse(t, G+docs[p[1]])); ch.Shadow || !ch.Empty() {
			t.Errorf("%s → %s: %+v", p[0], p[1], ch)
		}
	}
	for _, p := range changed {
		for _, d := range [][2]string{p, {p[1], p[0]}} {
			if ch := Diff(mustParse(t, G+docs[d[0]]), mustParse(t, G+docs[d[1]])); !ch.Shadow || ch.Empty() || ch.NeedsRestart() {
				t.Errorf("%s → %s: %+v", d[0], d[1], ch)
			}
		}
	}
	// A config built in code with only Enabled compares by what it means.
	a := mustParse(t, G+docs["always"])
	b := mustParse(t, G+docs["always"])
	b.Shadow.Mode = ""
	if ch := Diff(a, b); ch.Shadow {
		t.Errorf("Mode \"\" with Enabled vs always: %+v", ch)
	}
}
