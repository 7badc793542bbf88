package main

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/authbgp/authbgpd/httpapi"
)

// TestTuneRuntime: GOGC is gcPercent unless the environment sets one, and
// the heap profile's sampling is off unless a rate other than the default
// was asked for.
func TestTuneRuntime(t *testing.T) {
	gc := debug.SetGCPercent(100)
	rate := runtime.MemProfileRate
	t.Cleanup(func() { debug.SetGCPercent(gc); runtime.MemProfileRate = rate })
	unset := func(string) (string, bool) { return "", false }
	set := func(k string) (string, bool) { return "100", k == "GOGC" }

	runtime.MemProfileRate = httpapi.DefaultMemProfileRate
	tuneRuntime(unset)
	if got := debug.SetGCPercent(100); got != gcPercent {
		t.Errorf("GOGC unset: the GC percent is %d, want %d", got, gcPercent)
	}
	if runtime.MemProfileRate != 0 {
		t.Errorf("the default heap profile rate was left on (%d)", runtime.MemProfileRate)
	}

	debug.SetGCPercent(100)
	runtime.MemProfileRate = 1 // GODEBUG=memprofilerate=1
	tuneRuntime(set)
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC set in the environment: the GC percent became %d", got)
	}
	if runtime.MemProfileRate != 1 {
		t.Errorf("a heap profile rate asked for was changed to %d", runtime.MemProfileRate)
	}
}
