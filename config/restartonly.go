package config

import (
	"fmt"
	"slices"
)

// RestartOnly lists what a reload to next accepts but leaves for the next
// restart of a daemon that started with started: the API servers and the
// shadow checker (its mode, capture interfaces and rings) are made once, at
// start. One line per setting, as the preview's Other shows it and the
// daemon logs it at the reload; empty when next runs as started does.
func RestartOnly(started, next *Config) []string {
	if started == nil {
		started = &Config{FIB: FIB{Enabled: DefaultFIBEnabled}}
	}
	var out []string
	sa, na := &started.API, &next.API
	if sa.GRPC != na.GRPC || sa.HTTP != na.HTTP || sa.GRPCAllowRemote != na.GRPCAllowRemote ||
		sa.ReloadAllowRemote != na.ReloadAllowRemote || sa.Pprof != na.Pprof {
		out = append(out, "[api] changed: takes effect at the next restart (the running API servers keep their settings)")
	}
	ss, ns := &started.Shadow, &next.Shadow
	switch {
	case !ss.On() && ns.On():
		out = append(out, "[shadow] enabled by reload: it starts at the next restart")
	case ss.On() && !ns.On():
		out = append(out, "[shadow] disabled by reload: the checker keeps running until the next restart")
	case ss.On():
		if ss.EffectiveMode() != ns.EffectiveMode() {
			out = append(out, fmt.Sprintf("[shadow] mode changed (running %s, configured %s): takes effect at the next restart", ss.EffectiveMode(), ns.EffectiveMode()))
		}
		if !slices.Equal(sortedCopy(ss.Interfaces), sortedCopy(ns.Interfaces)) {
			out = append(out, "[shadow] interfaces changed: the capture keeps its interfaces until the next restart")
		}
		if ss.Workers != ns.Workers {
			out = append(out, fmt.Sprintf("[shadow] workers changed (running %d, configured %d): the capture keeps its rings until the next restart", ss.WorkerCount(), ns.WorkerCount()))
		}
	}
	sf, nf := &started.FIB, &next.FIB
	if sf.Enabled != nf.Enabled {
		out = append(out, fmt.Sprintf("[fib] enabled changed (running %v, configured %v): takes effect at the next restart", sf.Enabled, nf.Enabled))
	}
	if sf.Multipath != nf.Multipath {
		out = append(out, fmt.Sprintf("[fib] multipath changed (running %v, configured %v): takes effect at the next restart", sf.Multipath, nf.Multipath))
	}
	return out
}

// NewReloadPreview describes a reload from cur, the running config, to
// next in a daemon that started with started: NewPreview, whose Other says
// what waits for the next restart (RestartOnly) against what runs, not
// against cur.
func NewReloadPreview(started, cur, next *Config) Preview {
	return PlanReload(cur, next).Preview(started)
}

// Plan is one reload: the running config, the next one, and what changes
// between them, diffed once (PlanReload) for the preview and for every
// part of the daemon that applies it.
type Plan struct {
	Old, New *Config
	Changes  Changes
	// Refused are the refusals of New that the config alone cannot tell,
	// found by who made the plan: a keychain key whose TCP-AO algorithm
	// the running kernel does not offer (peers.Manager.Plan). The preview
	// lists them after Changes.Refusals; the reload refuses them too.
	Refused []Refusal
	// Readds are the peers (IDs) of both configs whose GoBGP neighbor or
	// range the reload takes out and puts back (their sessions reset), as
	// the reconciler's planner decides it against what it applied
	// (peers.Manager.Plan); nil when no planner was asked. The preview
	// marks them Reset, a peer the diff missed included.
	Readds []string
}

// PlanReload diffs old against new.
func PlanReload(old, new *Config) Plan { return Plan{Old: old, New: new, Changes: Diff(old, new)} }

// Preview is NewReloadPreview of the plan, in a daemon that started with
// started.
func (pl Plan) Preview(started *Config) Preview { return newPreview(started, pl) }
