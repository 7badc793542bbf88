package dropwatch

import (
	"time"

	"github.com/authbgp/authbgpd/kdrops"
	"github.com/authbgp/authbgpd/status"
)

// Window is how far back the diagnosis looks.
const Window = time.Minute

// maxRecent bounds a tally's recent drops (with the default 1 s poll a
// tally holds at most 7 reasons x 60 polls); past it the oldest go.
const maxRecent = 1024

// event is one poll's growth of one reason.
type event struct {
	at time.Time
	r  kdrops.Reason
	n  uint64
}

// tally is what the kernel dropped from one peer or one address: counts
// since the daemon started, and the recent drops for the diagnosis.
type tally struct {
	counts counts
	recent []event // oldest first
	last   time.Time
}

// add counts n drops of r seen at now.
func (t *tally) add(r kdrops.Reason, n uint64, now time.Time) {
	t.counts[r] += n
	if now.After(t.last) {
		t.last = now
	}
	t.prune(now)
	t.recent = append(t.recent, event{at: now, r: r, n: n})
	if len(t.recent) > maxRecent {
		t.recent = append(t.recent[:0], t.recent[len(t.recent)-maxRecent:]...)
	}
}

// prune forgets the drops older than Window.
func (t *tally) prune(now time.Time) {
	i := 0
	for i < len(t.recent) && now.Sub(t.recent[i].at) >= Window {
		i++
	}
	if i > 0 {
		t.recent = append(t.recent[:0], t.recent[i:]...)
	}
}

// diagnosis is the reason with the most drops in the Window before now
// (ties: the one that moved last, then the first in kdrops.Reasons), or 0.
func (t *tally) diagnosis(now time.Time) kdrops.Reason {
	var sum counts
	var at [len(counts{})]time.Time
	for _, e := range t.recent {
		if now.Sub(e.at) >= Window {
			continue
		}
		sum[e.r] += e.n
		if e.at.After(at[e.r]) {
			at[e.r] = e.at
		}
	}
	var best kdrops.Reason
	for _, r := range kdrops.Reasons() {
		switch {
		case sum[r] == 0:
		case best == 0, sum[r] > sum[best], sum[r] == sum[best] && at[r].After(at[best]):
			best = r
		}
	}
	return best
}

// status is t as /status shows it (t nil: nothing dropped). ao gives the
// TCP-AO counters even at 0; they are there anyway once one moved.
func (t *tally) status(now time.Time, ao bool) *status.KernelDrops {
	if t == nil {
		t = &tally{}
	}
	c := &t.counts
	kd := &status.KernelDrops{
		BadDigest:  c[kdrops.BadDigest],
		Missing:    c[kdrops.Missing],
		Unexpected: c[kdrops.Unexpected],
		BadOption:  c[kdrops.BadOption],
		Diagnosis:  Diagnosis(t.diagnosis(now)),
	}
	if ao || c.aoMoved() {
		bad, nf, req := c[kdrops.AOBad], c[kdrops.AOKeyNotFound], c[kdrops.AORequired]
		kd.AOBad, kd.AOKeyNotFound, kd.AORequired = &bad, &nf, &req
	}
	if !t.last.IsZero() {
		kd.LastDrop = t.last.UTC().Format(time.RFC3339)
	}
	return kd
}
