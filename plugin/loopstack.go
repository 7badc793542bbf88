package plugin

import (
	"fmt"
	"path"
	"runtime"
	"strings"
)

// loopSample is what a goroutine dump says of the goroutine running
// GoBGP's Serve loop: whether it waits on something (a channel, a lock, a
// sleep, a system call) or computes, and where. The watchdog tells a loop
// that is stuck (waiting at one place) from one busy with a long turn (a
// full table dropped, a RIB copied), which is normal (loopwatch.go).
type loopSample struct {
	found   bool
	state   string // the dump's word: "chan receive", "sync.Mutex.Lock", "running", ...
	blocked bool   // state is a wait on something else than the CPU
	frames  string // the stack, arguments elided: the identity of a place
	where   string // the innermost frame of the program's own code (else outside the runtime), "func (file.go:123)"
}

// serveSample dumps every goroutine's stack (the runtime stops the world
// for it: the watchdog does it only for a question that is overdue) and
// samples h's Serve goroutine.
func (h *Host) serveSample() loopSample {
	buf := make([]byte, 256<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) || len(buf) >= 64<<20 {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	return sampleServe(string(buf), fmt.Sprintf(".(*BgpServer).Serve(%p", h.bgp))
}

// sampleServe picks, from a dump of all goroutines, the one whose frames
// hold serve (Serve with its receiver), else the first one in a Serve.
func sampleServe(all, serve string) loopSample {
	var first string
	for _, g := range strings.Split(all, "\n\n") {
		if strings.Contains(g, serve) {
			return parseGoroutine(g)
		}
		if first == "" && strings.Contains(g, ".(*BgpServer).Serve(") {
			first = g
		}
	}
	if first == "" {
		return loopSample{}
	}
	return parseGoroutine(first)
}

// parseGoroutine reads one goroutine of a dump: "goroutine 7 [chan
// receive, 2 minutes]:", then function lines and their "\tfile:line +0x.."
// lines. Argument words are elided from the frames: they are raw memory,
// which could hold bytes of a secret.
func parseGoroutine(g string) loopSample {
	lines := strings.Split(strings.TrimSpace(g), "\n")
	head, _ := strings.CutPrefix(lines[0], "goroutine ")
	_, state, ok := strings.Cut(head, "[")
	if !ok {
		return loopSample{}
	}
	state, _, _ = strings.Cut(strings.TrimSuffix(state, "]:"), ",")
	state, _, _ = strings.Cut(state, " labels:") // GODEBUG=tracebacklabels=1
	for _, suffix := range []string{" (scan)", " (leaked)", " (durable)"} {
		state = strings.TrimSuffix(state, suffix)
	}
	s := loopSample{found: true, state: state, blocked: blockedState(state)}
	frames := make([]string, 0, len(lines)-1)
	fallback := "" // the innermost frame outside the runtime, when all are Go's own
	for i := 1; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "\t") {
			l, _, _ = strings.Cut(l, " +0x")
			frames = append(frames, l)
			continue
		}
		fn := l
		if j := strings.LastIndexByte(l, '('); j > 0 && strings.HasSuffix(l, ")") {
			fn = l[:j]
			l = fn + "(...)"
		}
		frames = append(frames, l)
		if s.where == "" && !runtimeFrame(fn) && i+1 < len(lines) {
			file, _, _ := strings.Cut(strings.TrimSpace(lines[i+1]), " +0x")
			at := fn + " (" + path.Base(file) + ")"
			if fallback == "" {
				fallback = at
			}
			if !stdFrame(fn) {
				// The program's own place: a loop computing in
				// GoBGP's code is there, not in the time.Now or
				// the map lookup it happens to be in when sampled.
				s.where = at
			}
		}
	}
	if s.where == "" {
		s.where = fallback
	}
	s.frames = strings.Join(frames, "\n")
	return s
}

// stdFrame says whether fn (a dump's function name) is in Go's standard
// library: its import path's first element has no dot ("time.Now",
// "encoding/json.(*encodeState).marshal"). main's functions are the
// program's own.
func stdFrame(fn string) bool {
	if strings.HasPrefix(fn, "main.") {
		return false
	}
	first, _, hasSlash := strings.Cut(fn, "/")
	if !hasSlash {
		return true // "time.Now": a one-element path
	}
	return !strings.Contains(first, ".")
}

// blockedState says whether a goroutine in state waits on another
// goroutine or the kernel (what a stuck loop does) rather than computing
// (running, runnable, preempted, helping the garbage collector).
func blockedState(state string) bool {
	for _, p := range []string{"chan ", "select", "semacquire", "sync.", "sleep", "IO wait", "syscall"} {
		if strings.HasPrefix(state, p) {
			return true
		}
	}
	return false
}

func runtimeFrame(fn string) bool {
	for _, p := range []string{"runtime.", "internal/", "sync.", "sync/atomic.", "created by "} {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}
