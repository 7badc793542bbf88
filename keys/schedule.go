package keys

import "time"

// Entry is one key of a keychain schedule.
type Entry struct {
	// ID is the key id (a TCP-MD5 keychain key: 0..255; -1 is allowed for
	// a lone password and is never a pin).
	ID int
	// SendFrom is when the key starts being sent; zero means from the
	// start (earlier than any key with a SendFrom).
	SendFrom time.Time
}

// Schedule is a keychain's keys in configuration order: the one answer to
// "which key is active at time t". Its methods do not allocate.
type Schedule []Entry

// Active returns the index in s of the key to use at t, or -1 when there
// is none.
//
// pin ≥ 0 names a key the caller decided to use regardless of time (a key
// the peer was proven to use, switched to by follow-peer-rollover, or the
// key actually installed): when it is a key of s, it wins. A pin that is
// not in s, or pin < 0, leaves the choice to the schedule: the key with the
// latest SendFrom not after t; keys without SendFrom count as the
// earliest; of keys starting at the same time, the first listed wins.
func (s Schedule) Active(t time.Time, pin int) int {
	best := -1
	for i := range s {
		e := &s[i]
		if pin >= 0 && e.ID == pin {
			return i
		}
		if !e.SendFrom.IsZero() && e.SendFrom.After(t) {
			continue
		}
		if best < 0 || e.SendFrom.After(s[best].SendFrom) {
			best = i
		}
	}
	return best
}

// Ahead reports whether pin is still ahead of the schedule at t: it names a
// key of s that starts after the key the schedule alone gives at t, or the
// schedule gives none yet. A pin the schedule has reached or passed, or
// whose key left s, has done its job and should be dropped.
func (s Schedule) Ahead(t time.Time, pin int) bool {
	if pin < 0 || s.Index(pin) < 0 {
		return false
	}
	cur := s.Active(t, -1)
	return cur < 0 || s.StartsAfter(pin, s[cur].SendFrom)
}

// NextSwitch returns when the schedule's choice next changes after t: the
// earliest SendFrom strictly after t. ok is false when no key starts later.
func (s Schedule) NextSwitch(t time.Time) (next time.Time, ok bool) {
	for i := range s {
		st := s[i].SendFrom
		if st.IsZero() || !st.After(t) {
			continue
		}
		if !ok || st.Before(next) {
			next, ok = st, true
		}
	}
	return next, ok
}

// Index returns the index in s of the first key with the given id, or -1.
func (s Schedule) Index(id int) int {
	for i := range s {
		if s[i].ID == id {
			return i
		}
	}
	return -1
}

// StartsAfter reports whether key id is in s and starts being sent after t.
func (s Schedule) StartsAfter(id int, t time.Time) bool {
	i := s.Index(id)
	return i >= 0 && s[i].SendFrom.After(t)
}

// Newer reports whether key id starts being sent after key than. An id
// not in s is never newer; a than not in s is older than every key of s.
func (s Schedule) Newer(id, than int) bool {
	j := s.Index(than)
	if j < 0 {
		return s.Index(id) >= 0
	}
	return s.StartsAfter(id, s[j].SendFrom)
}
