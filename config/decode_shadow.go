package config

import (
	"slices"
	"time"
)

func (d *decoder) shadow(rt *table, s *Shadow) {
	t, _ := rt.subTable("shadow", "[shadow]", &s.m)
	s.Line = t.line
	enabled, hasEnabled := t.boolean("enabled")
	s.Mode = ShadowOff
	if hasEnabled && enabled {
		s.Mode = ShadowAlways
	}
	if m, ok := t.str("mode"); ok {
		switch mode := ShadowMode(m); {
		case !slices.Contains(ShadowModes, mode):
			t.invalid("mode", "%q is not one of always, on-demand, off", m)
		case hasEnabled && (mode == ShadowOnDemand || enabled != (mode == ShadowAlways)):
			// enabled = true is mode "always", false is "off".
			t.invalid("mode", "%q contradicts enabled = %v on line %d (enabled = true means mode = \"always\", false \"off\"): drop enabled", m, enabled, t.lineOf("enabled"))
			s.Mode = mode
		default:
			s.Mode = mode
		}
	}
	s.Enabled = s.Mode != ShadowOff
	if v, ok := t.str("on-demand-window"); ok {
		dur, err := time.ParseDuration(v)
		if err != nil {
			t.invalid("on-demand-window", "%q is not a duration (e.g. \"20s\", \"1m30s\")", v)
		} else {
			s.OnDemandWindow = dur
		}
	}
	if n, ok := t.integer("on-demand-segments", 1, MaxOnDemandSegments); ok {
		s.OnDemandSegments = int(n)
	}
	if s.Mode != ShadowOnDemand {
		for _, k := range []string{"on-demand-window", "on-demand-segments"} {
			if t.has(k) && !t.meta.isBad(k) && !t.meta.isBad("mode") {
				d.warnf(t.lineOf(k), "%s has no effect unless [shadow] mode = \"on-demand\"", k)
			}
		}
	}
	if t.has("interfaces") {
		s.Interfaces, _, _ = t.strings("interfaces")
	}
	if b, ok := t.boolean("follow-peer-rollover"); ok {
		s.FollowPeerRollover = b
	}
	if n, ok := t.integer("workers", 0, MaxShadowWorkers); ok {
		s.Workers = int(n)
	}
	t.finish()
}
