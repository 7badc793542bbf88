package peers

import (
	"context"
	"time"

	"github.com/authbgp/authbgpd/config"
)

// The reconciler's goroutine. Triggers record their input and ask:
//
//   - pass: a full pass, and wait for it (Start, Reload, the shadow's
//     proposals, Reconcile);
//   - kickSessions: a light pass soon (a session changed state: GoBGP's
//     event told it, so the pass need not read every neighbor back);
//   - askStale / ConnectionRefused: judge the sessions asked to be ended
//     now, not behind a kicked pass's delay.
//
// The timer's full pass runs m.every after the last full pass, and the
// desired state's next keychain switch is the time of another. A full
// pass that found nothing to do (steady: no action, no error, no drift,
// no peer held down) sets the timer's next one m.idleEvery away instead,
// when the config has nothing a pass polls for (idleCadence); a pass that
// is not steady brings it back to m.every. (What a full
// pass costs: docs/PERFORMANCE.md, "Figures behind the code's comments".)

// passReq is a caller waiting for a full pass.
type passReq struct{ done chan error }

// pass asks the reconciler for a full pass and waits for it. It returns
// what GoBGP refused in it. Before start and after stop it does nothing.
func (m *Manager) pass(ctx context.Context) error {
	m.mu.Lock()
	stop := m.stop
	m.mu.Unlock()
	if stop == nil {
		return nil
	}
	r := &passReq{done: make(chan error, 1)}
	select {
	case m.reqs <- r:
	case <-stop:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-r.done:
		return err
	case <-stop:
		return nil
	}
}

// kickSessions asks for a pass soon that need not read GoBGP's view: a
// session changed state, which GoBGP's event already told (never blocks).
// With many neighbors, asking GoBGP for all of them is most of a pass's
// cost; the next full pass (the timer's, at the latest) reads it.
func (m *Manager) kickSessions() {
	select {
	case m.kick <- struct{}{}:
	default:
	}
}

// kickUp asks for a light pass within upDelay (never blocks): a session
// moved on its way up (Active, OpenSent, ..., Established). Nothing waits
// on that pass: the listeners' key, or the dial hook's, keyed the
// connection before it connected, and the pass only verifies it (the
// kernel's view for /status) and follows it (TCP-AO RNextKeyID, counters).
// So a burst of sessions coming up — 1,000 at start-up, each through four
// states — makes a pass a second instead of one per kickDelay; a session
// that ends (kickSessions) still gets one soon.
func (m *Manager) kickUp() {
	select {
	case m.upKick <- struct{}{}:
	default:
	}
}

// askStale asks for the recorded stale sessions to be judged now.
func (m *Manager) askStale() {
	select {
	case m.refused <- neighbor{}:
	default:
	}
}

// kickDelay is how long a kicked pass waits after the kick, given what the
// last pass cost: 100 ms to coalesce a burst, and 9 times the last cost
// (at most the timer's 2 s) so that passes take at most a tenth of a core.
func kickDelay(cost time.Duration) time.Duration {
	return min(max(100*time.Millisecond, 9*cost), 2*time.Second)
}

// restartKickDelay is how long a pass kicked by a session that ended
// around its peer's key change (kickRestart) waits, whatever the last pass
// cost: the restart it makes (restartNow) must come before the peer's next
// dial, about 2 s after the end (FRR), or GoBGP, Idle, turns that dial
// away. kickDelay scales with the last pass's cost, and the pass of a
// reload that changed 100 keys at 1,000 peers made it 2 s.
const restartKickDelay = 100 * time.Millisecond

// kickRestart asks for a light pass within restartKickDelay (never
// blocks).
func (m *Manager) kickRestart() {
	select {
	case m.nowKick <- struct{}{}:
	default:
	}
}

// upDelay is how long a pass kicked by sessions coming up (kickUp) waits:
// a second to gather the burst, longer when passes are costly (as
// kickDelay), at most the timer's 2 s.
func upDelay(cost time.Duration) time.Duration {
	return min(max(time.Second, 9*cost), 2*time.Second)
}

// loop is the reconciler: the one goroutine that acts.
func (m *Manager) loop(stop, done chan struct{}) {
	defer close(done)
	tick := time.NewTimer(m.every)
	defer tick.Stop()
	due := time.Now().Add(m.every) // of the timer's next full pass
	next := time.NewTimer(time.Hour)
	next.Stop()
	defer next.Stop()
	var cost time.Duration // of the last pass
	var lastDropped uint64
	for {
		full := true
		var reqs []*passReq
		var kicked time.Duration // a kick's wait before its light pass
		select {
		case <-stop:
			return
		case r := <-m.reqs:
			reqs = append(reqs, r)
		case <-tick.C:
		case <-next.C:
		case a := <-m.refused:
			m.judgeStale(a)
			continue
		case <-m.kick:
			kicked = kickDelay(cost)
		case <-m.upKick:
			kicked = upDelay(cost)
		case <-m.nowKick:
			kicked = restartKickDelay
		}
		if kicked > 0 {
			r, ok := m.coalesce(stop, kicked, kickDelay(cost))
			if !ok {
				return
			}
			if r != nil {
				reqs = append(reqs, r)
			} else {
				full = false
			}
		}
		if m.dropped != nil {
			if d := m.dropped(); d != lastDropped {
				m.log.WithField("dropped_events", d-lastDropped).Warn("GoBGP peer events were dropped: resynchronising from GoBGP and the sockets")
				lastDropped, full = d, true // the session table cannot be trusted
			}
		}
		t0 := time.Now()
		res := m.runPass(context.Background(), full)
		cost = time.Since(t0)
		m.countPass(full, cost)
		if !res.next.IsZero() {
			next.Reset(max(time.Until(res.next), 0) + time.Millisecond)
		}
		due = m.nextFull(due, time.Now(), full, res.steady)
		tick.Reset(max(time.Until(due), 0))
		for _, r := range reqs {
			r.done <- res.err
		}
	}
}

// nextFull is when the timer's next full pass is due after a pass at now
// (full: it read GoBGP; steady: it found nothing to do): m.idleEvery
// away after a steady full pass when the config allows (idleCadence),
// m.every after any other full pass, unchanged after a steady light one,
// and no later than m.every after a light one that was not.
func (m *Manager) nextFull(due, now time.Time, full, steady bool) time.Time {
	m.mu.Lock()
	cfg := m.cfg
	m.mu.Unlock()
	return nextFull(due, now, full, steady, idleCadence(cfg), m.every, m.idleEvery)
}

// nextFull is Manager.nextFull's rule (pure; idle: the config allows the
// idle cadence). A light pass runs after session events, which GoBGP
// told (a lost one makes the next pass full): one that found nothing to do
// leaves the timer as it is, so a settled burst of sessions coming up does
// not cost a full pass.
func nextFull(due, now time.Time, full, steady, idle bool, every, idleEvery time.Duration) time.Time {
	switch {
	case full && steady && idle:
		return now.Add(max(idleEvery, every))
	case full:
		return now.Add(every)
	case steady:
		return due
	default:
		return minTime(due, now.Add(every))
	}
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// idleCadence reports whether cfg's passes may slow to m.idleEvery while
// steady: not when a pass polls for something no event tells, namely the
// interfaces and VRF devices of interface and VRF peers (observeScopes)
// and the kernel's per-connection TCP-AO counters (/status, metrics).
func idleCadence(cfg *config.Config) bool {
	if cfg == nil || needs(cfg, config.AuthTCPAO) {
		return false
	}
	ifs, vrfs := scopeNames(cfg)
	return len(ifs) == 0 && len(vrfs) == 0
}

// coalesce waits d after a kick (a burst of events makes one pass),
// judging stale sessions meanwhile. Kicks while it waits are answered by
// the pass it ends in (its look comes after them); an urgent one (kick)
// shortens the wait to urgent from then, a restart's (kickRestart) to
// restartKickDelay. A caller asking for a full pass ends the wait (its
// pass answers the kick too). ok is false on stop.
func (m *Manager) coalesce(stop chan struct{}, d, urgent time.Duration) (*passReq, bool) {
	end := time.Now().Add(d)
	wait := time.NewTimer(d)
	defer wait.Stop()
	shorten := func(d time.Duration) {
		if e := time.Now().Add(d); e.Before(end) {
			end = e
			wait.Reset(d)
		}
	}
	for {
		select {
		case <-stop:
			return nil, false
		case a := <-m.refused:
			m.judgeStale(a)
		case <-m.kick:
			shorten(urgent)
		case <-m.nowKick:
			shorten(restartKickDelay)
		case <-m.upKick:
		case r := <-m.reqs:
			return r, true
		case <-wait.C:
			return nil, true
		}
	}
}

// judgeStale records a refused connection from a (a zero a only asks) and
// ends the sessions that are stale.
func (m *Manager) judgeStale(a neighbor) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stopping {
		return
	}
	if a.Addr.IsValid() {
		if _, ok := m.stale[a]; !ok {
			m.stale[a] = staleWant{}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p := &pass{m: m, ctx: ctx, in: m.inputs()}
	p.endStale()
}
