package main

import (
	"runtime"
	"runtime/debug"

	"github.com/authbgp/authbgpd/httpapi"
)

// gcPercent is the daemon's GOGC when the environment sets none: between
// collections the heap grows by half its live size, not by all of it (Go's
// default, 100). Most of a speaker's heap is GoBGP's per-neighbor state,
// live for as long as the neighbors are, and the collector is cheap next to
// GoBGP's own work: a few MB less RSS for a little CPU (docs/PERFORMANCE.md,
// "GOGC=50 unless the environment sets it"). GOGC=100 in the environment
// restores Go's default.
const gcPercent = 50

// tuneRuntime sets the daemon's runtime defaults, leaving what the
// environment sets (lookup: os.LookupEnv) alone:
//   - GOGC: gcPercent;
//   - the heap profile's sampling, off: it keeps a hash of the sampled
//     stacks (1.4 MB of address space, a page touched per stack) that only
//     [api] pprof reads, and httpapi.EnablePprof turns it back on. A rate
//     set with GODEBUG=memprofilerate=N is not the default, and stays.
func tuneRuntime(lookup func(string) (string, bool)) {
	if _, set := lookup("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
	if runtime.MemProfileRate == httpapi.DefaultMemProfileRate {
		runtime.MemProfileRate = 0
	}
}
