package shadow

// From verdicts to a diagnosis: the counters, the per-connection
// hysteresis runs, the diagnosis of each address, and the reports.

import (
	"slices"
	"sort"
	"time"
)

// connRun is the hysteresis run of one connection of an address.
type connRun struct {
	port uint16
	diag diagCode
	key  int
	run  int
	used uint64 // runTick when last updated: the oldest is replaced
}

// maxConnRuns bounds the connections whose runs are kept per address.
const maxConnRuns = 4

// connRunOf counts a segment of diagnosis diag (key) on the connection
// from port and returns that connection's run.
func (st *addrState) connRunOf(port uint16, diag diagCode, key int) int {
	st.runTick++
	return st.connRunTicked(port, diag, key)
}

// connRunTicked is connRunOf after its st.runTick++ (CheckHeld's steady
// state does that and the common case itself).
func (st *addrState) connRunTicked(port uint16, diag diagCode, key int) int {
	// The slot of the last segment's connection first: a used slot's port
	// is in no other used slot, so it is the one the walk would find.
	slot := &st.runs[st.lastRun%maxConnRuns]
	if slot.used == 0 || slot.port != port {
		n := 0
		for i := range st.runs {
			r := &st.runs[i]
			if r.used != 0 && r.port == port {
				n = i
				break
			}
			if r.used < st.runs[n].used {
				n = i
			}
		}
		slot, st.lastRun = &st.runs[n], uint8(n)
	}
	if slot.used == 0 || slot.port != port || slot.diag != diag || slot.key != key {
		*slot = connRun{port: port, diag: diag, key: key}
	}
	slot.run++
	slot.used = st.runTick
	return slot.run
}

// diagnosis is what a received segment's result says of the peer; ok is
// false for verdicts that say nothing (key: the other key, for other-key).
// The diagnosis is a code (diagNames has its name): the hysteresis
// compares codes, not strings, on every segment.
func diagnosis(r *Result) (diag diagCode, key int, ok bool) {
	switch r.Verdict {
	case Valid:
		return dcOK, -1, true
	case BadDigest:
		if r.Other {
			return dcOtherKey, r.KeyID, true
		}
		return dcBadDigest, -1, true
	case BadMAC:
		if r.MACLenMismatch {
			return dcMACLenMismatch, -1, true
		}
		if r.Flipped {
			return dcOptionsMismatch, -1, true
		}
		return dcBadMAC, -1, true
	case Missing:
		if r.WrongMech {
			return dcWrongMechanism, -1, true
		}
		return dcMissing, -1, true
	case Unexpected:
		return dcUnexpected, -1, true
	case UnknownKey:
		return dcUnknownKey, int(r.AOKeyID), true
	case NoHandshake:
		return dcNoHandshake, -1, true
	}
	return 0, -1, false
}

// diagCode is a diagnosis a segment supports, as the hysteresis counts
// it; 0 is none.
type diagCode uint8

const (
	dcOK diagCode = 1 + iota
	dcBadDigest
	dcOtherKey
	dcBadMAC
	dcMACLenMismatch
	dcOptionsMismatch
	dcWrongMechanism
	dcMissing
	dcUnexpected
	dcUnknownKey
	dcNoHandshake
)

// diagNames are the diagnoses of the codes, as PeerReport shows them.
var diagNames = [...]string{
	dcOK: DiagOK, dcBadDigest: DiagBadDigest, dcOtherKey: DiagOtherKey, dcBadMAC: DiagBadMAC,
	dcMACLenMismatch: DiagMACLenMismatch, dcOptionsMismatch: DiagOptionsMismatch, dcWrongMechanism: DiagWrongMechanism,
	dcMissing: DiagMissing, dcUnexpected: DiagUnexpected, dcUnknownKey: DiagUnknownKey, dcNoHandshake: DiagNoHandshake,
}

// count adds r to the received or, for our own segments, sent counters
// of st.
func (c *Checker) count(st *addrState, r *Result) {
	if r.Outgoing {
		switch r.Verdict {
		case Valid:
			st.rep.Sent.Valid++
		case Missing:
			st.rep.Sent.Unsigned++
		case BadDigest, BadMAC, UnknownKey:
			st.rep.Sent.Invalid++
		case NoHandshake:
			st.rep.Sent.NoHandshake++
		}
		return
	}
	switch r.Verdict {
	case Valid:
		st.rep.Received.Valid++
	case BadDigest:
		st.rep.Received.BadDigest++
	case Missing:
		st.rep.Received.Missing++
	case Unexpected:
		st.rep.Received.Unexpected++
	case BadMAC:
		st.rep.Received.BadMAC++
	case UnknownKey:
		st.rep.Received.UnknownKey++
	case NoHandshake:
		st.rep.Received.NoHandshake++
	}
}

// observe applies hysteresis and rollover detection to a received
// segment from port.
func (c *Checker) observe(p *Peer, st *addrState, diag diagCode, key, act int, port uint16) {
	if diag == st.cand && key == st.candKey {
		st.run++
	} else {
		st.cand, st.candKey, st.run = diag, key, 1
	}
	run := max(st.run, st.connRunOf(port, diag, key))
	if run >= c.opts.Hysteresis && (st.diag != diag || !sameKey(st.rep.PeerKeyID, key)) {
		st.diag, st.rep.Diagnosis = diag, diagNames[diag]
		st.rep.PeerKeyID = nil
		if key >= 0 {
			k := key
			st.rep.PeerKeyID = &k
		}
		if c.opts.OnChange != nil {
			rep := st.rep
			c.events = append(c.events, func() { c.opts.OnChange(rep) })
		}
	}
	// Rollover: the peer signs with a keychain key newer than ours.
	if diag == dcOtherKey && act >= 0 && p.sched.StartsAfter(key, p.sched[act].SendFrom) {
		if st.rollKey == key {
			st.rollRun++
		} else {
			st.rollKey, st.rollRun = key, 1
		}
		if st.rollRun >= c.opts.Rollover {
			k := key
			st.rep.ProvenKeyID = &k
		}
		if st.rollRun == c.opts.Rollover && c.opts.OnRollover != nil {
			id := p.ID
			c.events = append(c.events, func() { c.opts.OnRollover(id, key) })
		}
	} else if st.rollKey != -1 || st.rollRun != 0 || st.rep.ProvenKeyID != nil { // (no stores on every segment)
		st.rollKey, st.rollRun = -1, 0
		st.rep.ProvenKeyID = nil
	}
	st.steady = st.isSteady()
}

func sameKey(a *int, k int) bool {
	if a == nil {
		return k < 0
	}
	return *a == k
}

// Reports returns the state of every remote address seen, sorted by
// address. Diagnoses of addresses silent for IdleAfter read no-traffic.
func (c *Checker) Reports(now time.Time) []PeerReport {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]PeerReport, 0, len(c.state))
	for _, st := range c.state {
		rep := st.rep
		if rep.PeerKeyID != nil {
			k := *rep.PeerKeyID
			rep.PeerKeyID = &k
		}
		if rep.ProvenKeyID != nil {
			k := *rep.ProvenKeyID
			rep.ProvenKeyID = &k
		}
		rep.KeyIDs = slices.Clone(rep.KeyIDs)
		if c.opts.IdleAfter > 0 && !rep.Last.IsZero() && now.Sub(rep.Last) > c.opts.IdleAfter {
			rep.Diagnosis, rep.PeerKeyID, rep.ProvenKeyID = DiagNoTraffic, nil, nil
		}
		out = append(out, rep)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Address.Less(out[j].Address) })
	return out
}
