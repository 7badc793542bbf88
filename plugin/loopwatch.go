package plugin

import (
	"context"
	"fmt"
	"sync"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/sirupsen/logrus"
)

// The liveness watchdog of GoBGP's main loop. Every API call and every FSM
// message goes through BgpServer.Serve, one at a time, and GoBGP's calls
// take no deadline (mgmtOperation waits for the loop however long it
// takes): if the loop stops answering (a deadlock, a stuck call, an
// endless loop), sessions stop moving and every caller waits forever,
// while the rest of the daemon looks fine. So the Host asks the loop a
// cheap question (GetBgp) every LoopWatchPeriod, one question at a time.
//
// A long wait alone does not make a stall: one turn of the loop that drops
// a full table (a session with 1M routes going down) or copies it (a
// ListPath of the RIB) computes for seconds, and the more so on a busy
// node. So while a question is overdue the watchdog looks at the loop's
// goroutine (loopstack.go): a loop seen waiting at the same place (a
// channel, a lock, a system call) in two looks in a row is stuck once the
// question has waited LoopWatchThreshold; a loop that computes is given
// LoopWatchBusyThreshold, far above the longest turn measured
// (docs/OPERATIONS.md, "Liveness"; TestLoopWatchHeavyLoad, LOOPWATCH_SCALE).
const (
	// LoopWatchPeriod is how often the loop is asked, and looked at while
	// a question is overdue.
	LoopWatchPeriod = time.Second
	// LoopWatchThreshold is how long a question may wait while the loop
	// waits on something at one place: a stuck loop is reported at most
	// LoopWatchThreshold + LoopWatchPeriod after it stuck.
	LoopWatchThreshold = 5 * time.Second
	// LoopWatchBusyThreshold is how long a question may wait while the
	// loop computes (an endless loop is reported after it): over three
	// times the longest turn measured (docs/OPERATIONS.md, "Liveness").
	LoopWatchBusyThreshold = 2 * time.Minute
)

// LoopStallError is LoopHealth's answer while GoBGP's main loop does not
// answer.
type LoopStallError struct {
	For        time.Duration // since LastAnswer
	LastAnswer time.Time     // the loop's last answer (StartBgp's, before any question)
	// How is what the loop does: "blocked (chan receive) in FUNC
	// (file.go:LINE)", "busy (running) in ...", or "" when unknown.
	How string
}

func (e *LoopStallError) Error() string {
	s := fmt.Sprintf("gobgp: main loop has not answered for %.1fs (last answer %s)",
		e.For.Seconds(), e.LastAnswer.UTC().Format(time.RFC3339))
	if e.How != "" {
		s += ": " + e.How
	}
	return s
}

// loopWatch asks GoBGP's loop a question every period. The question runs on
// a goroutine of its own, so a stuck one never holds the watch: while it is
// unanswered no other is asked (one goroutine waits on a stuck loop, never
// more), it is reported once it counts as stuck, and its answer, whenever
// it comes, makes the loop healthy again.
type loopWatch struct {
	ask       func() // one cheap question to the loop; returns with its answer
	period    time.Duration
	threshold time.Duration // a question's wait while the loop is blocked
	busy      time.Duration // a question's wait while the loop computes
	now       func() time.Time
	// ticks makes the clock of the questions (time.NewTicker but in
	// tests).
	ticks func(time.Duration) (<-chan time.Time, func())
	log   *logrus.Logger
	// sample looks at the loop's goroutine; nil: every overdue question
	// counts as blocked.
	sample func() loopSample

	mu       sync.Mutex
	last     time.Time     // the loop's last answer
	asked    time.Time     // when the question in flight was asked
	inflight chan struct{} // closed on its answer; nil: none in flight
	looks    [2]loopSample // the last two looks at the loop during the question, newest first
	looked   int           // looks during the question
	alarmed  bool          // the question in flight was reported stuck
	slowest  time.Duration // the slowest answer yet (tests, the log)
	answers  uint64        // answers so far (tests)

	running, stopped bool
	quit, done       chan struct{}
}

func newLoopWatch(ask func(), log *logrus.Logger) *loopWatch {
	return &loopWatch{
		ask:       ask,
		period:    LoopWatchPeriod,
		threshold: LoopWatchThreshold,
		busy:      LoopWatchBusyThreshold,
		now:       time.Now,
		ticks: func(d time.Duration) (<-chan time.Time, func()) {
			t := time.NewTicker(d)
			return t.C, t.Stop
		},
		log:  log,
		quit: make(chan struct{}),
		done: make(chan struct{}),
	}
}

// askGetBgp is the Host's question: GetBgp is answered inside the loop
// (mgmtOperation, whether BGP runs or not) and costs a copy of a few
// fields.
func (h *Host) askGetBgp() {
	_, _ = h.bgp.GetBgp(context.Background(), &api.GetBgpRequest{})
}

// start begins watching (once; never after stop); the loop's last answer
// is now: the caller has just had one (StartBgp's).
func (w *loopWatch) start() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.running || w.stopped {
		return
	}
	w.running, w.last = true, w.now()
	tick, stop := w.ticks(w.period)
	go w.run(tick, stop)
}

func (w *loopWatch) run(tick <-chan time.Time, stop func()) {
	defer close(w.done)
	defer stop()
	for {
		select {
		case <-w.quit:
			return
		case <-tick:
			w.check()
		}
	}
}

// check asks a question or, while one is in flight, looks at the loop once
// the question has waited half the threshold, and reports the question
// once it counts as stuck.
func (w *loopWatch) check() {
	w.mu.Lock()
	now := w.now()
	if w.inflight == nil {
		ch := make(chan struct{})
		w.asked, w.inflight, w.looks, w.looked = now, ch, [2]loopSample{}, 0
		w.mu.Unlock()
		go w.probe(ch)
		return
	}
	ch, look := w.inflight, w.sample != nil && now.Sub(w.asked) > w.threshold/2
	w.mu.Unlock()
	var s loopSample
	if look {
		s = w.sample() // without the lock: the dump stops the world
	}
	w.mu.Lock()
	if w.inflight != ch { // answered meanwhile
		w.mu.Unlock()
		return
	}
	if look {
		w.looks, w.looked = [2]loopSample{s, w.looks[0]}, w.looked+1
	}
	err := w.stallLocked(now)
	report := err != nil && !w.alarmed
	w.alarmed = w.alarmed || report
	frames := w.looks[0].frames
	w.mu.Unlock()
	if report {
		e := w.log.WithField("component", "plugin")
		if frames != "" {
			e = e.WithField("stack", frames)
		}
		e.Error(err.Error() + ": /healthz and /livez fail until it answers")
	}
}

func (w *loopWatch) probe(ch chan struct{}) {
	w.ask()
	w.mu.Lock()
	now := w.now()
	took := now.Sub(w.asked)
	w.last, w.inflight, w.answers = now, nil, w.answers+1
	w.slowest = max(w.slowest, took)
	alarmed := w.alarmed
	w.alarmed = false
	w.mu.Unlock()
	if alarmed {
		w.log.WithField("component", "plugin").Warnf("gobgp: main loop answered again, after %.1fs", took.Seconds())
	}
	close(ch)
}

// stallLocked is the error of a question in flight that counts as stuck at
// now, or nil: it has waited longer than the busy threshold, or longer
// than the threshold with the loop blocked at one place in the last two
// looks (or no way to look: no sampler, or a look that did not find the
// loop's goroutine).
func (w *loopWatch) stallLocked(now time.Time) error {
	if w.inflight == nil {
		return nil
	}
	waited := now.Sub(w.asked)
	a, b := w.looks[0], w.looks[1]
	var how string
	switch {
	case waited > w.threshold && (w.sample == nil || w.looked > 0 && !a.found):
	case a.found && a.blocked && b.found && b.blocked && a.frames == b.frames && waited > w.threshold:
		how = "blocked (" + a.state + ") in " + a.where
	case waited > w.busy:
		if a.found {
			how = "busy (" + a.state + ") in " + a.where
		}
		if a.blocked {
			how = "blocked (" + a.state + ") in " + a.where
		}
	default:
		return nil
	}
	return &LoopStallError{For: now.Sub(w.last), LastAnswer: w.last, How: how}
}

// health is nil, or a *LoopStallError while the loop is stalled.
func (w *loopWatch) health() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stallLocked(w.now())
}

// age is the time since the loop last answered: up to the period (plus the
// answer's own time) while it answers.
func (w *loopWatch) age() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.last.IsZero() {
		return 0
	}
	return w.now().Sub(w.last)
}

// stop ends the questions: none is asked after it returns. A question in
// flight is left to wait for its answer (see wait).
func (w *loopWatch) stop() {
	w.mu.Lock()
	running := w.running && !w.stopped
	w.stopped = true
	w.mu.Unlock()
	if running {
		close(w.quit)
		<-w.done
	}
}

// wait waits until the question in flight, if any, is answered, or ctx is
// done: then its goroutine is still waiting on a stuck loop, and wait says
// so.
func (w *loopWatch) wait(ctx context.Context) error {
	w.mu.Lock()
	ch, asked := w.inflight, w.asked
	w.mu.Unlock()
	if ch == nil {
		return nil
	}
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("plugin: the watchdog's GetBgp, asked %s ago, is still waiting on GoBGP's main loop: %w",
			w.now().Sub(asked).Round(time.Millisecond), ctx.Err())
	}
}
