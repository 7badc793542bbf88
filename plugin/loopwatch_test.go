package plugin

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
)

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// fakeLoop stands for GoBGP's loop: each question waits until the test
// answers it.
type fakeLoop struct {
	asked  chan struct{} // one per question asked
	answer chan struct{} // one per question answered
}

func newFakeLoop() *fakeLoop {
	return &fakeLoop{asked: make(chan struct{}, 100), answer: make(chan struct{})}
}

func (l *fakeLoop) ask() {
	l.asked <- struct{}{}
	<-l.answer
}

// questions is how many questions were asked since the last call (the
// asks run on their own goroutines: it waits a little for one due).
func (l *fakeLoop) questions(t *testing.T, want int) {
	t.Helper()
	got := 0
	timeout := time.After(2 * time.Second)
	for got < want {
		select {
		case <-l.asked:
			got++
		case <-timeout:
			t.Fatalf("%d questions asked, want %d", got, want)
		}
	}
	select {
	case <-l.asked:
		t.Fatalf("more than %d questions asked", want)
	case <-time.After(20 * time.Millisecond):
	}
}

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// newTestWatch is a loopWatch on a fake clock that never ticks by itself:
// the test calls check, as each tick would.
func newTestWatch(t *testing.T, l *fakeLoop) (*loopWatch, *fakeClock, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	w := newLoopWatch(l.ask, newTestLogger(logs, logrus.DebugLevel, false))
	clk := &fakeClock{t: t0}
	w.now = clk.now
	w.ticks = func(time.Duration) (<-chan time.Time, func()) { return nil, func() {} }
	w.start()
	t.Cleanup(w.stop)
	return w, clk, logs
}

// answer answers the question in flight and waits until the watch has it.
func (l *fakeLoop) answerNow(t *testing.T, w *loopWatch) {
	t.Helper()
	l.answer <- struct{}{}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := w.wait(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestLoopWatchStallAndRecovery: a question unanswered for more than the
// threshold makes the loop stalled (not a moment before), with the reason
// and the last answer; no second question is asked meanwhile, the stall is
// logged once, and the answer makes the loop healthy again.
func TestLoopWatchStallAndRecovery(t *testing.T) {
	l := newFakeLoop()
	w, clk, logs := newTestWatch(t, l)
	if err := w.health(); err != nil || w.age() != 0 {
		t.Fatalf("at start: %v, age %v", err, w.age())
	}
	w.check()
	l.questions(t, 1)
	clk.add(10 * time.Millisecond)
	l.answerNow(t, w)
	if err := w.health(); err != nil || w.age() != 0 {
		t.Fatalf("answered: %v, age %v", err, w.age())
	}

	clk.add(LoopWatchPeriod)
	w.check()
	l.questions(t, 1)
	clk.add(LoopWatchThreshold)
	for range 3 {
		w.check()
	}
	if err := w.health(); err != nil {
		t.Fatalf("unanswered for exactly the threshold: %v, want healthy", err)
	}
	clk.add(time.Millisecond)
	err := w.health()
	var stall *LoopStallError
	if !errors.As(err, &stall) {
		t.Fatalf("unanswered for more than the threshold: %v, want a *LoopStallError", err)
	}
	const want = "gobgp: main loop has not answered for 6.0s (last answer 2026-01-02T03:04:05Z)"
	if err.Error() != want || stall.For != LoopWatchPeriod+LoopWatchThreshold+time.Millisecond {
		t.Errorf("stall: %q (for %v), want %q", err, stall.For, want)
	}
	if w.age() != stall.For {
		t.Errorf("age %v, want %v", w.age(), stall.For)
	}
	for range 5 {
		w.check()
		clk.add(LoopWatchPeriod)
	}
	l.questions(t, 0) // one question at a time: the stuck one
	if n := strings.Count(logs.String(), "main loop has not answered"); n != 1 {
		t.Errorf("the stall was logged %d times, want once:\n%s", n, logs)
	}

	l.answerNow(t, w)
	if err := w.health(); err != nil {
		t.Fatalf("answered again: %v", err)
	}
	eventually(t, "the recovery logged", func() bool {
		return strings.Contains(logs.String(), "main loop answered again, after 10.0s")
	})
	w.check()
	l.questions(t, 1)
	l.answerNow(t, w)
}

// TestLoopWatchBlockedOrBusy: with looks at the loop, a question overdue
// past the threshold is a stall only when the loop was seen blocked at the
// same place twice; a computing loop (a long normal turn) gets the busy
// threshold; a look that cannot find the loop falls back to the
// threshold.
func TestLoopWatchBlockedOrBusy(t *testing.T) {
	blocked := loopSample{found: true, state: "chan receive", blocked: true, frames: "a\nb", where: "x.f (f.go:1)"}
	blocked2 := blocked
	blocked2.frames, blocked2.where = "a\nc", "x.g (g.go:2)"
	busy := loopSample{found: true, state: "running", frames: "t\nu", where: "table.(*Table).drop (table.go:9)"}
	for _, c := range []struct {
		name  string
		looks []loopSample // one per tick, cycled
		after time.Duration
		how   string // "" with after: healthy
	}{
		{"blocked at one place", []loopSample{blocked}, LoopWatchThreshold, "blocked (chan receive) in x.f (f.go:1)"},
		{"busy", []loopSample{busy}, LoopWatchBusyThreshold, "busy (running) in table.(*Table).drop (table.go:9)"},
		{"blocked at many places", []loopSample{blocked, blocked2}, LoopWatchBusyThreshold, "blocked (chan receive) in x.f (f.go:1)"},
		// looks at 3, 4, 5, 6 s busy; 7 and 8 s blocked: stuck at 8 s
		{"busy, then blocked", []loopSample{busy, busy, busy, busy, blocked, blocked}, 7 * time.Second, "blocked (chan receive) in x.f (f.go:1)"},
		{"goroutine not found", []loopSample{{}}, LoopWatchThreshold, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := newFakeLoop()
			w, clk, _ := newTestWatch(t, l)
			i := 0
			w.sample = func() loopSample { s := c.looks[i%len(c.looks)]; i++; return s }
			w.check()
			l.questions(t, 1)
			var stalledAt time.Duration
			for waited := time.Duration(0); waited <= LoopWatchBusyThreshold+LoopWatchPeriod; waited += LoopWatchPeriod {
				w.check()
				if err := w.health(); err != nil && stalledAt == 0 {
					stalledAt = waited
					var s *LoopStallError
					if !errors.As(err, &s) || s.How != c.how {
						t.Errorf("stall %q, want how %q", err, c.how)
					}
				}
				clk.add(LoopWatchPeriod)
			}
			if want := c.after + LoopWatchPeriod; stalledAt != want { // the first tick past it
				t.Errorf("stalled after %v, want %v", stalledAt, want)
			}
			l.answerNow(t, w)
		})
	}
}

// TestLoopWatchStop: Stop returns at once with a question stuck, no
// question is asked after it, wait says the question still waits, and its
// goroutine (the only one left) ends with the answer.
func TestLoopWatchStop(t *testing.T) {
	l := newFakeLoop()
	logs := &syncBuffer{}
	w := newLoopWatch(l.ask, newTestLogger(logs, logrus.DebugLevel, false))
	ticks := make(chan time.Time)
	w.ticks = func(time.Duration) (<-chan time.Time, func()) { return ticks, func() {} }
	w.period, w.threshold = time.Millisecond, 2*time.Millisecond
	w.start()
	ticks <- time.Now()
	l.questions(t, 1)
	ticks <- time.Now() // the question in flight: no other
	ticks <- time.Now()
	l.questions(t, 0)

	done := make(chan struct{})
	go func() { w.stop(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("stop waited for the stuck question")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := w.wait(ctx); err == nil || !strings.Contains(err.Error(), "still waiting on GoBGP's main loop") {
		t.Errorf("wait with a stuck question: %v", err)
	}
	if n := goroutinesIn("(*loopWatch)."); n != 1 {
		t.Errorf("%d goroutines of the watch after stop, want 1 (the stuck question's)", n)
	}
	w.stop()  // idempotent
	w.start() // never after stop
	l.answer <- struct{}{}
	if err := w.wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for goroutinesIn("(*loopWatch).") != 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := goroutinesIn("(*loopWatch)."); n != 0 {
		t.Errorf("%d goroutines of the watch after the answer, want 0", n)
	}
	l.questions(t, 0)
}

// goroutinesIn counts the goroutines with a frame whose function name
// contains fn.
func goroutinesIn(fn string) int {
	buf := make([]byte, 8<<20)
	n := 0
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if strings.Contains(g, fn) {
			n++
		}
	}
	return n
}

// eventually polls cond for up to 5 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
