package redact

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Known secrets: every password handed to GoBGP is remembered, and scrubbed
// from log messages and field values wherever it appears (defence in depth
// behind the structural redaction of Proto and Value).

// MinScrubLen is the shortest secret Set scrubs as a substring: shorter
// ones would mangle unrelated text (a password "1" in every address).
const MinScrubLen = 4

// maxSecrets bounds a Set; the oldest entries go first.
const maxSecrets = 4096

// Set is a registry of known secrets, scrubbed from any text. The zero
// value is an empty set ready to use; a Set is safe for concurrent use and
// must not be copied after first use.
type Set struct {
	mu    sync.RWMutex
	set   map[string]struct{}
	order []string // insertion order (the oldest go first when full)
	// byLen holds the secrets longest first: Scrub replaces a secret before
	// any shorter one it contains, so no tail of a longer secret survives.
	byLen []string
}

// Add remembers secret v. Secrets shorter than MinScrubLen and the
// Placeholder are ignored; beyond 4096 secrets the oldest is forgotten.
func (s *Set) Add(v string) {
	if len(v) < MinScrubLen || v == Placeholder {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.set == nil {
		s.set = map[string]struct{}{}
	}
	if _, ok := s.set[v]; ok {
		return
	}
	if len(s.order) >= maxSecrets {
		old := s.order[0]
		delete(s.set, old)
		s.order = s.order[1:]
		if i := slices.Index(s.byLen, old); i >= 0 {
			s.byLen = slices.Delete(s.byLen, i, i+1)
		}
	}
	s.set[v] = struct{}{}
	s.order = append(s.order, v)
	i, _ := slices.BinarySearchFunc(s.byLen, v, func(e, t string) int { return len(t) - len(e) })
	s.byLen = slices.Insert(s.byLen, i, v)
}

// Empty reports whether no secret is known.
func (s *Set) Empty() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.set) == 0
}

// Scrub replaces every known secret in str by Placeholder; changed reports
// whether there was any.
func (s *Set) Scrub(str string) (out string, changed bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, v := range s.byLen {
		if strings.Contains(str, v) {
			str = strings.ReplaceAll(str, v, Placeholder)
			changed = true
		}
	}
	return str, changed
}

// Field returns the value to log for field key: secret-named keys are
// redacted outright (an empty string stays empty), other values
// structurally (Value), and if a known secret still shows in the value's
// text, the value is replaced by its scrubbed text. Errors keep being
// errors (with scrubbed text).
func (s *Set) Field(key string, val any) any {
	if val == nil {
		return nil
	}
	if IsSecretName(key) {
		if str, ok := val.(string); ok && str == "" {
			return val
		}
		return Placeholder
	}
	switch x := val.(type) {
	case string:
		if out, ok := s.Scrub(x); ok {
			return out
		}
		return x
	case bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
		return x
	case error:
		if out, ok := s.Scrub(x.Error()); ok {
			return errors.New(out)
		}
		return x
	}
	val, _ = Value(val)
	if !s.Empty() {
		if out, ok := s.Scrub(fmt.Sprintf("%+v", val)); ok {
			return out
		}
	}
	return val
}
