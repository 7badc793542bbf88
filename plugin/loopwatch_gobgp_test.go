package plugin

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/httpapi"
	"github.com/authbgp/authbgpd/status"
)

// stallHook holds GoBGP's main loop inside one turn: GoBGP logs "Add a
// peer group configuration" from inside the loop (AddPeerGroup's
// mgmtOperation runs addPeerGroup there), and logrus runs its hooks on the
// goroutine that logs. For a peer group named with the hook's prefix it
// either waits until released (a stuck call) or computes (spins) for spin.
type stallHook struct {
	prefix  string
	spin    atomic.Int64 // nanoseconds; 0: wait for release
	entered chan time.Time
	release chan struct{}
	once    sync.Once
}

// free releases the loop (once; again at cleanup, before the Host stops).
func (h *stallHook) free() { h.once.Do(func() { close(h.release) }) }

func newStallHook(prefix string, spin time.Duration) *stallHook {
	h := &stallHook{prefix: prefix, entered: make(chan time.Time, 1), release: make(chan struct{})}
	h.spin.Store(int64(spin))
	return h
}

func (*stallHook) Levels() []logrus.Level { return logrus.AllLevels }

func (h *stallHook) Fire(e *logrus.Entry) error {
	if e.Message != "Add a peer group configuration" || !hasValue(e.Data, h.prefix) {
		return nil
	}
	h.entered <- time.Now()
	spin := time.Duration(h.spin.Load())
	if spin == 0 {
		<-h.release
		return nil
	}
	end := time.Now().Add(spin)
	for i := 0; i%(1<<20) != 0 || time.Now().Before(end); i++ { // computes, mostly here
	}
	return nil
}

func hasValue(d logrus.Fields, prefix string) bool {
	for _, x := range d {
		if s, ok := x.(string); ok && strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

func addGroup(h *Host, name string, done chan<- error) {
	done <- h.AddPeerGroup(context.Background(), &api.PeerGroup{Conf: &api.PeerGroupConf{PeerGroupName: name}})
}

// loopSource serves a Host's loop health as /healthz and /livez do in
// the daemon (speaker: Healthy and Alive both report LoopHealth).
type loopSource struct{ h *Host }

func (loopSource) Status() status.Status { return status.Status{} }
func (s loopSource) Healthy() error      { return s.h.LoopHealth() }
func (s loopSource) Alive() error        { return s.h.LoopHealth() }

func get(h http.Handler, path string) (int, string) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Code, rec.Body.String()
}

// Timings of the stall tests: short, so that twenty runs take seconds; the
// daemon's own are exercised by speaker's TestHealthzGoBGPStall.
const (
	testPeriod    = 100 * time.Millisecond
	testThreshold = 500 * time.Millisecond
	testBusy      = 1500 * time.Millisecond
	// testLate is how late the watchdog's tick (and so its question) may
	// come on this shared 2-core machine: its goroutine waits for a CPU,
	// and a look stops the world. Measured over 20 runs at load average
	// 15 (beside a 1M-route measurement): 503 came 591-660 ms after the
	// stall began, once 824 ms, i.e. up to 224 ms after threshold +
	// period.
	testLate = 300 * time.Millisecond
)

// watchedHost is a started Host whose loop is watched with the test
// timings, and the hook that stalls it.
func watchedHost(t *testing.T, hook *stallHook) (*testHost, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	l := newTestLogger(logs, logrus.InfoLevel, false)
	l.AddHook(hook)
	h := newTestHost(t, Options{ListenPort: -1, Logger: l})
	t.Cleanup(hook.free) // before the Host's Stop: a failed test leaves no loop stuck
	h.loop.period, h.loop.threshold, h.loop.busy = testPeriod, testThreshold, testBusy
	if err := h.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return h, logs
}

// waitStatus polls GET path until it answers code, and returns when.
func waitStatus(t *testing.T, hd http.Handler, path string, code int, limit time.Duration) (time.Time, string) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		c, body := get(hd, path)
		now := time.Now()
		if c == code {
			return now, body
		}
		if now.After(deadline) {
			t.Fatalf("GET %s still %d %q after %v, want %d", path, c, body, limit, code)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestLoopWatchGoBGPStall stalls the real GoBGP loop inside one turn and
// requires: /healthz and /livez 503 with the reason no sooner than the
// threshold and no later than threshold + period after the stall began; one
// question in flight however long it lasts; ListPeer failing at once
// instead of waiting; the stall logged with where the loop waits; and 200
// again as soon as the loop answers.
func TestLoopWatchGoBGPStall(t *testing.T) {
	hook := newStallHook("loopwatch-stall", 0)
	h, logs := watchedHost(t, hook)
	hd := httpapi.New("127.0.0.1:0", loopSource{h.Host}, nil, nil).Handler()
	for _, p := range []string{"/healthz", "/livez"} {
		if c, body := get(hd, p); c != http.StatusOK {
			t.Fatalf("GET %s before the stall: %d %q", p, c, body)
		}
	}

	added := make(chan error, 1)
	go addGroup(h.Host, "loopwatch-stall", added)
	began := <-hook.entered

	// Before the stall is known, a ListPeer waits no longer than its
	// context (the call's goroutine waits for the loop).
	ctx, cancel := context.WithTimeout(context.Background(), testPeriod)
	_, err := h.ListPeer(ctx, "")
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(began) > testThreshold {
		t.Errorf("ListPeer early in the stall: %v after %v, want its deadline", err, time.Since(began))
	}
	at, body := waitStatus(t, hd, "/healthz", http.StatusServiceUnavailable, testThreshold+testPeriod+5*time.Second)
	took := at.Sub(began)
	t.Logf("503 %v after the stall began: %s", took.Round(time.Millisecond), strings.TrimSpace(body))
	if took < testThreshold-testPeriod/2 || took > testThreshold+testPeriod+testLate {
		t.Errorf("503 %v after the stall began, want within [%v, %v]", took, testThreshold-testPeriod/2, testThreshold+testPeriod+testLate)
	}
	if !strings.HasPrefix(body, "gobgp: main loop has not answered for ") ||
		!strings.Contains(body, "blocked (chan receive) in github.com/authbgp/authbgpd/plugin.(*stallHook).Fire (loopwatch_gobgp_test.go:") {
		t.Errorf("/healthz reason %q", body)
	}
	if c, lbody := get(hd, "/livez"); c != http.StatusServiceUnavailable || !strings.HasPrefix(lbody, "gobgp: main loop") {
		t.Errorf("/livez: %d %q", c, lbody)
	}

	// ListPeer does not wait on a loop known to be stuck.
	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
	start := time.Now()
	_, err = h.ListPeer(ctx, "")
	cancel()
	var stall *LoopStallError
	if !errors.As(err, &stall) || time.Since(start) > time.Second {
		t.Errorf("ListPeer during the stall: %v after %v, want the stall at once", err, time.Since(start))
	}

	// However long it lasts: one question waits, no other is asked.
	time.Sleep(10 * testPeriod)
	if n := goroutinesIn("(*Host).askGetBgp"); n != 1 {
		t.Errorf("%d questions wait on the stuck loop, want 1", n)
	}
	if n := strings.Count(logs.String(), "main loop has not answered"); n != 1 {
		t.Errorf("the stall logged %d times, want once", n)
	}
	if !strings.Contains(logs.String(), `stack="`) || !strings.Contains(logs.String(), "(*BgpServer).Serve(...)") {
		t.Errorf("the stall's log line has no stack of the loop:\n%s", logs)
	}

	hook.free()
	released := time.Now()
	at, _ = waitStatus(t, hd, "/healthz", http.StatusOK, 5*time.Second)
	t.Logf("200 %v after the loop was released", at.Sub(released).Round(time.Millisecond))
	if d := at.Sub(released); d > testPeriod+testLate {
		t.Errorf("healthy again %v after the release, want within %v", d, testPeriod+testLate)
	}
	if c, _ := get(hd, "/livez"); c != http.StatusOK {
		t.Errorf("/livez after the release: %d", c)
	}
	if err := <-added; err != nil {
		t.Fatalf("AddPeerGroup: %v", err)
	}
	eventually(t, "the recovery logged", func() bool { return strings.Contains(logs.String(), "main loop answered again") })
	if _, err := h.ListPeer(context.Background(), ""); err != nil {
		t.Errorf("ListPeer after the stall: %v", err)
	}
}

// TestLoopWatchGoBGPBusy: a turn of the real loop that computes longer
// than the threshold (a full table dropped) is not a stall; one that
// computes past the busy threshold is, named busy.
func TestLoopWatchGoBGPBusy(t *testing.T) {
	spin := testThreshold + 4*testPeriod
	hook := newStallHook("loopwatch-busy", spin)
	h, _ := watchedHost(t, hook)
	var worst atomic.Pointer[error]
	added := make(chan error, 1)
	go addGroup(h.Host, "loopwatch-busy-1", added)
	<-hook.entered
	for done := false; !done; {
		select {
		case err := <-added:
			if err != nil {
				t.Fatal(err)
			}
			done = true
		case <-time.After(5 * time.Millisecond):
			if err := h.LoopHealth(); err != nil {
				worst.Store(&err)
			}
		}
	}
	if e := worst.Load(); e != nil {
		t.Errorf("a loop computing for %v (threshold %v, busy %v) was reported: %v", spin, testThreshold, testBusy, *e)
	}

	hook.spin.Store(int64(testBusy + 3*testPeriod))
	go addGroup(h.Host, "loopwatch-busy-2", added)
	began := <-hook.entered
	var err error
	for err == nil && time.Since(began) < testBusy+3*testPeriod {
		time.Sleep(5 * time.Millisecond)
		err = h.LoopHealth()
	}
	took := time.Since(began)
	if err == nil || !strings.Contains(err.Error(), ": busy (") || !strings.Contains(err.Error(), "plugin.(*stallHook).Fire") {
		t.Errorf("a loop computing for %v: %v, want a busy stall in the hook", took, err)
	} else if took < testBusy-testPeriod/2 || took > testBusy+testPeriod+testLate {
		t.Errorf("busy stall reported %v after it began, want within [%v, %v]", took, testBusy-testPeriod/2, testBusy+testPeriod+testLate)
	}
	t.Logf("busy for %v: %v", took.Round(time.Millisecond), err)
	if e := <-added; e != nil {
		t.Error(e)
	}
}

// TestLoopWatchGoBGPStopWhileStalled: Stop returns by its deadline with the
// loop stuck, saying so; the watchdog's ticker is gone, its one question
// still waits, and ends with the loop's answer.
func TestLoopWatchGoBGPStopWhileStalled(t *testing.T) {
	hook := newStallHook("loopwatch-stop", 0)
	h, _ := watchedHost(t, hook)
	added := make(chan error, 1)
	go addGroup(h.Host, "loopwatch-stop", added)
	<-hook.entered
	eventually(t, "the stall noticed", func() bool { return h.LoopHealth() != nil })

	ctx, cancel := context.WithTimeout(context.Background(), testThreshold)
	defer cancel()
	start := time.Now()
	err := h.Stop(ctx)
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "GoBGP did not stop") || took > testThreshold+testLate {
		t.Errorf("Stop with the loop stuck: %v after %v, want GoBGP did not stop within %v", err, took, testThreshold)
	}
	if n := goroutinesIn("(*loopWatch).run"); n != 0 {
		t.Errorf("%d watchdog tickers after Stop", n)
	}
	if n := goroutinesIn("(*Host).askGetBgp"); n != 1 {
		t.Errorf("%d watchdog questions after Stop, want the 1 stuck", n)
	}
	hook.free()
	eventually(t, "the stuck question answered", func() bool { return goroutinesIn("(*Host).askGetBgp") == 0 })
	<-added
}
