package config

import (
	"strconv"
	"strings"
)

// subTable returns the table under key (a TOML table, or absent: empty).
func (t *table) subTable(key, name string, mt *meta) (*table, bool) {
	v, ok := t.get(key)
	if !ok {
		st := t.d.newTable(map[string]any{}, t.child(key), name, mt)
		st.line = t.lineOf(key)
		return st, false
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.typeErr(key, "table", v)
		st := t.d.newTable(map[string]any{}, t.child(key), name, mt)
		st.line = t.lineOf(key)
		if mt != nil {
			mt.broken = true
		}
		return st, false
	}
	return t.d.newTable(m, t.child(key), name, mt), true
}

// tables returns the elements of an array of tables under key.
func (t *table) tables(key, name string) []map[string]any {
	v, ok := t.get(key)
	if !ok {
		return nil
	}
	arr, ok := v.([]any)
	if !ok {
		t.typeErr(key, "array of tables ([["+strings.Trim(name, "[]")+"]])", v)
		return nil
	}
	out := make([]map[string]any, 0, len(arr))
	for i, e := range arr {
		m, ok := e.(map[string]any)
		if !ok {
			line := t.d.pos.line(append(t.child(key), strconv.Itoa(i)))
			if line == 0 {
				line = t.lineOf(key)
			}
			t.bad(key)
			t.d.errorf(line, "%s[%d]: expected table, got %s", key, i, typeName(e))
			out = append(out, nil)
			continue
		}
		out = append(out, m)
	}
	return out
}

// elem returns the table for element i of the array of tables key.
func (t *table) elem(key string, i int, m map[string]any, name string, mt *meta) *table {
	return t.d.newTable(m, append(t.child(key), strconv.Itoa(i)), name, mt)
}

// entry is a pointer to one element type of an array of tables: it gives
// the element's meta and line for the decoder to fill.
type entry[E any] interface {
	*E
	header() (*meta, *int)
}

func (k *Keychain) header() (*meta, *int) { return &k.m, &k.Line }
func (k *Key) header() (*meta, *int)      { return &k.m, &k.Line }
func (p *Peer) header() (*meta, *int)     { return &p.m, &p.Line }
func (h *HMACKey) header() (*meta, *int)  { return &h.m, &h.Line }
func (p *Policy) header() (*meta, *int)   { return &p.m, &p.Line }

// appendTables decodes the array of tables key of t (name is its header,
// for errors) and appends its elements to out. Every element that is a
// table starts as a copy of zero, gets its meta and line, is filled by
// fill from its table, and has its unknown keys reported.
func appendTables[E any, P entry[E]](out []E, t *table, key, name string, zero E, fill func(*table, P)) []E {
	for i, m := range t.tables(key, name) {
		if m == nil {
			continue
		}
		e := zero
		mt, line := P(&e).header()
		et := t.elem(key, i, m, name, mt)
		*line = et.line
		fill(et, &e)
		et.finish()
		out = append(out, e)
	}
	return out
}
