package config

import (
	"net/netip"
	"strconv"
	"time"

	toml "github.com/pelletier/go-toml/v2"
)

func (t *table) str(key string) (string, bool) {
	v, ok := t.get(key)
	if !ok {
		return "", false
	}
	s, ok := v.(string)
	if !ok {
		t.typeErr(key, "string", v)
		return "", false
	}
	return s, true
}

// integer returns the value of key if it is an integer in [min, max].
func (t *table) integer(key string, min, max int64) (int64, bool) {
	v, ok := t.get(key)
	if !ok {
		return 0, false
	}
	n, ok := v.(int64)
	if !ok {
		t.typeErr(key, "integer", v)
		return 0, false
	}
	if n < min || n > max {
		t.invalid(key, "%d is out of range %d..%d", n, min, max)
		return 0, false
	}
	return n, true
}

func (t *table) boolean(key string) (bool, bool) {
	v, ok := t.get(key)
	if !ok {
		return false, false
	}
	b, ok := v.(bool)
	if !ok {
		t.typeErr(key, "boolean", v)
		return false, false
	}
	return b, true
}

// strings returns an array of strings; elements of other types are
// reported (at their own line) and skipped, making ok false.
func (t *table) strings(key string) ([]string, []int, bool) {
	v, ok := t.get(key)
	if !ok {
		return nil, nil, false
	}
	arr, ok := v.([]any)
	if !ok {
		t.typeErr(key, "array of strings", v)
		return nil, nil, false
	}
	out := make([]string, 0, len(arr))
	lines := make([]int, 0, len(arr))
	good := true
	for i, e := range arr {
		line := t.d.pos.line(append(t.child(key), strconv.Itoa(i)))
		if line == 0 {
			line = t.lineOf(key)
		}
		s, ok := e.(string)
		if !ok {
			t.bad(key)
			t.d.errorf(line, "%s[%d]: expected string, got %s", key, i, typeName(e))
			good = false
			continue
		}
		out = append(out, s)
		lines = append(lines, line)
	}
	return out, lines, good
}

// addrs decodes an array of IP addresses.
func (t *table) addrs(key string) ([]netip.Addr, bool) {
	ss, lines, ok := t.strings(key)
	if ss == nil && !ok {
		return nil, false
	}
	out := make([]netip.Addr, 0, len(ss))
	for i, s := range ss {
		a, err := netip.ParseAddr(s)
		if err != nil {
			t.bad(key)
			t.d.errorf(lines[i], "%s: %q is not an IP address", key, s)
			ok = false
			continue
		}
		out = append(out, a.Unmap())
	}
	return out, ok
}

// addr decodes one IP address.
func (t *table) addr(key string) (netip.Addr, bool) {
	s, ok := t.str(key)
	if !ok {
		return netip.Addr{}, false
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		t.invalid(key, "%q is not an IP address", s)
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}

// dateTime decodes an offset date-time (or an RFC 3339 string).
func (t *table) dateTime(key string) (time.Time, bool) {
	v, ok := t.get(key)
	if !ok {
		return time.Time{}, false
	}
	switch x := v.(type) {
	case time.Time:
		return x, true
	case string:
		tm, err := time.Parse(time.RFC3339Nano, x)
		if err != nil {
			t.invalid(key, "%q is not an RFC 3339 date-time with a time zone (e.g. 2026-01-01T00:00:00Z)", x)
			return time.Time{}, false
		}
		return tm, true
	case toml.LocalDateTime, toml.LocalDate:
		t.invalid(key, "%s has no time zone offset: write e.g. 2026-01-01T00:00:00Z", typeName(v))
		return time.Time{}, false
	default:
		t.typeErr(key, "date-time", v)
		return time.Time{}, false
	}
}
