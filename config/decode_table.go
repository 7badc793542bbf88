package config

import (
	"fmt"
	"sort"
	"strings"
)

// table is one TOML table being decoded.
type table struct {
	d     *decoder
	m     map[string]any
	path  []string
	name  string // for messages: "[global]", "[[peers]]", "" for the root
	line  int
	meta  *meta
	known map[string]bool
}

func (d *decoder) newTable(m map[string]any, path []string, name string, mt *meta) *table {
	line := d.pos.line(path)
	if line == 0 {
		line = 1
	}
	t := &table{d: d, m: m, path: path, name: name, line: line, meta: mt, known: map[string]bool{}}
	if mt != nil {
		mt.parsed = true
		for k := range m {
			mt.setLine(k, t.lineOf(k))
		}
	}
	return t
}

func (t *table) child(key string) []string {
	return append(append([]string(nil), t.path...), key)
}

// lineOf returns the line of key, or the table's line.
func (t *table) lineOf(key string) int {
	if l := t.d.pos.line(t.child(key)); l > 0 {
		return l
	}
	return t.line
}

// get returns the raw value of key, marking it known.
func (t *table) get(key string) (any, bool) {
	t.known[key] = true
	v, ok := t.m[key]
	return v, ok
}

func (t *table) has(key string) bool {
	t.known[key] = true
	_, ok := t.m[key]
	return ok
}

func (t *table) bad(key string) {
	if t.meta != nil {
		t.meta.markBad(key)
	}
}

// typeErr reports a value of the wrong type.
func (t *table) typeErr(key, want string, v any) {
	t.bad(key)
	t.d.errorf(t.lineOf(key), "%s: expected %s, got %s", key, want, typeName(v))
}

// invalid reports a value of the right type that is not acceptable.
func (t *table) invalid(key, format string, args ...any) {
	t.bad(key)
	t.d.errorf(t.lineOf(key), "%s: %s", key, fmt.Sprintf(format, args...))
}

// finish reports keys that the schema does not know.
func (t *table) finish() {
	var unknown []string
	for k := range t.m {
		if !t.known[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Slice(unknown, func(i, j int) bool {
		li, lj := t.lineOf(unknown[i]), t.lineOf(unknown[j])
		if li != lj {
			return li < lj
		}
		return unknown[i] < unknown[j]
	})
	for _, k := range unknown {
		if t.name == "" {
			t.d.errorf(t.lineOf(k), "unknown key %q", k)
		} else {
			t.d.errorf(t.lineOf(k), "unknown key %q in %s", k, t.name)
		}
	}
}

// exclusive returns the keys of t, among keys, that are set, first by line,
// and reports every one after the first: at most one may be set.
func (d *decoder) exclusive(t *table, keys ...string) []string {
	var set []string
	for _, k := range keys {
		if t.has(k) {
			set = append(set, k)
		}
	}
	sort.SliceStable(set, func(i, j int) bool { return t.lineOf(set[i]) < t.lineOf(set[j]) })
	for _, k := range set[min(1, len(set)):] {
		t.bad(k)
		d.errorf(t.lineOf(k), "%s: only one of %s may be set (%s is at line %d)",
			k, strings.Join(keys, ", "), set[0], t.lineOf(set[0]))
	}
	return set
}
