package plugin

import (
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const secretWord = 0x5ec7e75ec7e7

//go:noinline
func parkedForTest(secret [2]uint64, ch chan struct{}) uint64 {
	<-ch
	return secret[0]
}

//go:noinline
func spinForTest(stop *atomic.Bool) int {
	n := 0
	for !stop.Load() {
		n++
	}
	return n
}

// goroutineWith returns the goroutine of a dump of all that has fn.
func goroutineWith(t *testing.T, fn string) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		buf := make([]byte, 8<<20)
		for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
			if strings.Contains(g, fn) {
				return g
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no goroutine in %s", fn)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestParseGoroutine reads the real runtime's dump: a goroutine parked on
// a channel is blocked, where it waits named and its argument words (a
// stand-in secret) gone; a computing one is not blocked.
func TestParseGoroutine(t *testing.T) {
	ch := make(chan struct{})
	defer close(ch)
	go parkedForTest([2]uint64{secretWord, secretWord}, ch)
	var stop atomic.Bool
	defer stop.Store(true)
	go spinForTest(&stop)

	// Parked: runtime.gopark ... chanrecv ... plugin.parkedForTest.
	var raw string
	for {
		raw = goroutineWith(t, "plugin.parkedForTest(")
		if strings.Contains(raw, "[chan receive") {
			break
		}
	}
	s := parseGoroutine(raw)
	if !s.found || s.state != "chan receive" || !s.blocked {
		t.Errorf("parked: %+v, want found, chan receive, blocked", s)
	}
	if !strings.HasPrefix(s.where, "github.com/authbgp/authbgpd/plugin.parkedForTest (loopstack_test.go:") {
		t.Errorf("parked: where %q", s.where)
	}
	if !strings.Contains(raw, "0x5ec7e75ec7e7") {
		t.Logf("the runtime did not print the argument words this time:\n%s", raw)
	}
	if strings.Contains(s.frames, "5ec7e7") || strings.Contains(s.frames, "+0x") {
		t.Errorf("frames keep argument words or offsets:\n%s", s.frames)
	}
	if !strings.Contains(s.frames, "plugin.parkedForTest(...)\n\t") {
		t.Errorf("frames:\n%s", s.frames)
	}

	busy := parseGoroutine(goroutineWith(t, "plugin.spinForTest("))
	if !busy.found || busy.blocked || !strings.Contains(busy.where, "plugin.spinForTest (loopstack_test.go:") {
		t.Errorf("spinning: %+v, want found, not blocked, in spinForTest", busy)
	}
	t.Logf("spinning goroutine's state: %s", busy.state)
}

func TestParseGoroutineText(t *testing.T) {
	const dump = `goroutine 7 [chan receive, 3 minutes, locked to thread]:
runtime.gopark(0xc000012345?, 0x2?)
	/usr/lib/go/src/runtime/proc.go:460 +0xce
runtime.chanrecv1(0xc0001, 0xdeadbeef)
	/usr/lib/go/src/runtime/chan.go:506 +0x12
sync.(*Mutex).Lock(...)
	/usr/lib/go/src/sync/mutex.go:90
github.com/osrg/gobgp/v3/pkg/server.(*BgpServer).handleFSMMessage(0xc000200008, 0xc0003, {0xdeadbeef, 0x10})
	/src/third_party/gobgp/v3/pkg/server/server.go:1234 +0x5d
github.com/osrg/gobgp/v3/pkg/server.(*BgpServer).Serve(0xc000200008)
	/src/third_party/gobgp/v3/pkg/server/server.go:555 +0x1a
created by github.com/authbgp/authbgpd/plugin.New in goroutine 1
	/src/plugin/host.go:160 +0x4f0`
	other := "goroutine 9 [select]:\nmain.other()\n\t/src/x.go:1 +0x1"
	s := sampleServe(other+"\n\n"+dump, ".(*BgpServer).Serve(0xc000200008")
	want := loopSample{found: true, state: "chan receive", blocked: true,
		where: "github.com/osrg/gobgp/v3/pkg/server.(*BgpServer).handleFSMMessage (server.go:1234)",
		frames: `runtime.gopark(...)
	/usr/lib/go/src/runtime/proc.go:460
runtime.chanrecv1(...)
	/usr/lib/go/src/runtime/chan.go:506
sync.(*Mutex).Lock(...)
	/usr/lib/go/src/sync/mutex.go:90
github.com/osrg/gobgp/v3/pkg/server.(*BgpServer).handleFSMMessage(...)
	/src/third_party/gobgp/v3/pkg/server/server.go:1234
github.com/osrg/gobgp/v3/pkg/server.(*BgpServer).Serve(...)
	/src/third_party/gobgp/v3/pkg/server/server.go:555
created by github.com/authbgp/authbgpd/plugin.New in goroutine 1
	/src/plugin/host.go:160`}
	if s != want {
		t.Errorf("got  %+v\nwant %+v", s, want)
	}
	if s := sampleServe(other, ".(*BgpServer).Serve(0x1"); s.found {
		t.Errorf("no Serve goroutine: %+v", s)
	}
	for state, blocked := range map[string]bool{"running": false, "runnable": false, "preempted": false, "GC assist wait": false,
		"select": true, "sync.RWMutex.RLock": true, "semacquire": true, "IO wait": true, "syscall": true, "sleep": true, "chan send (nil chan)": true} {
		if blockedState(state) != blocked {
			t.Errorf("blockedState(%q) = %v", state, !blocked)
		}
	}
}

// TestWhereSkipsStandardLibrary: a loop sampled inside a standard library
// call (time.Now, a map or JSON routine) is placed at the program's frame
// that called it; a stack of Go's own code only keeps the innermost frame
// outside the runtime.
func TestWhereSkipsStandardLibrary(t *testing.T) {
	const dump = `goroutine 7 [running]:
time.Now()
	/usr/lib/go/src/time/time.go:1347 +0x1
encoding/json.(*encodeState).marshal(0xc0, {0x1, 0x2})
	/usr/lib/go/src/encoding/json/encode.go:300 +0x2
github.com/authbgp/authbgpd/plugin.(*stallHook).Fire(0xc0)
	/src/plugin/loopwatch_gobgp_test.go:40 +0x3
github.com/osrg/gobgp/v3/pkg/server.(*BgpServer).Serve(0xc000200008)
	/src/third_party/gobgp/v3/pkg/server/server.go:555 +0x1a`
	s := sampleServe(dump, ".(*BgpServer).Serve(0xc000200008")
	if want := "github.com/authbgp/authbgpd/plugin.(*stallHook).Fire (loopwatch_gobgp_test.go:40)"; s.where != want {
		t.Errorf("where %q, want %q", s.where, want)
	}
	const stdOnly = `goroutine 8 [running]:
runtime.mapaccess1(0x1)
	/usr/lib/go/src/runtime/map.go:10 +0x1
time.Now()
	/usr/lib/go/src/time/time.go:1347 +0x1
reflect.Value.Call(0x1)
	/usr/lib/go/src/reflect/value.go:380 +0x2`
	if s := parseGoroutine(stdOnly); s.where != "time.Now (time.go:1347)" {
		t.Errorf("standard library only: where %q", s.where)
	}
	for fn, std := range map[string]bool{"time.Now": true, "encoding/json.Marshal": true, "main.run": false,
		"github.com/osrg/gobgp/v3/pkg/server.(*BgpServer).Serve": false, "golang.org/x/sys/unix.Syscall": false} {
		if stdFrame(fn) != std {
			t.Errorf("stdFrame(%q) = %v", fn, !std)
		}
	}
}
