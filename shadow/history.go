package shadow

import (
	"sync"
	"time"

	"github.com/authbgp/authbgpd/status"
)

// historyLen bounds the diagnosis changes kept per peer address, and
// historyPeers the addresses (dynamic ranges accept any number over time).
const (
	historyLen   = 10
	historyPeers = 4096
)

// Change is one change of a peer's diagnosis.
type Change struct {
	Diagnosis string
	At        time.Time
}

// history keeps the last historyLen diagnosis changes per remote address,
// so `authbgpd status PEER` can say when a peer went bad (the log is
// rate-limited; this is not). Changes are rare: appending may allocate.
type history struct {
	mu sync.Mutex
	m  map[string][]Change
}

// add records that key's diagnosis became d at t (a repeat of the last
// diagnosis is not a change).
func (h *history) add(key, d string, t time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil {
		h.m = map[string][]Change{}
	}
	l, ok := h.m[key]
	if n := len(l); n > 0 && l[n-1].Diagnosis == d {
		return
	}
	if !ok && len(h.m) >= historyPeers {
		for k := range h.m { // forget one other address
			delete(h.m, k)
			break
		}
	}
	if len(l) == historyLen {
		l = append(l[:0], l[1:]...)
	}
	h.m[key] = append(l, Change{Diagnosis: d, At: t})
}

// get returns a copy of key's changes, oldest first.
func (h *history) get(key string) []Change {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Change(nil), h.m[key]...)
}

// historyOf converts changes to the /status shape.
func historyOf(l []Change) []status.DiagnosisChange {
	if len(l) == 0 {
		return nil
	}
	out := make([]status.DiagnosisChange, len(l))
	for i, c := range l {
		out[i] = status.DiagnosisChange{Diagnosis: c.Diagnosis, At: c.At.UTC().Format(time.RFC3339)}
	}
	return out
}
