package config

import (
	"errors"
	"sort"
	"strconv"
	"strings"
	"time"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// The TOML layer: go-toml/v2 decodes the document into generic values
// (map[string]any, []any, int64, float64, string, bool, time.Time and the
// toml.Local* types) and enforces TOML's own rules (syntax, duplicate keys,
// redefined tables, integer ranges, valid dates). A second pass over the
// document with go-toml's unstable parser records the line of every key,
// table header and array element, addressed by its path in the generic tree.

// pathSep joins path parts. Quoted TOML keys may contain dots; a key that
// contains a NUL could only make a line number wrong.
const pathSep = "\x00"

func joinPath(parts []string) string { return strings.Join(parts, pathSep) }

// positions maps a path in the decoded tree to a 1-based line.
type positions struct {
	lines      map[string]int
	lineStarts []int // offset of the first byte of each line
}

// lineCount is the number of lines of data, counting a last line without
// a newline, and 1 for empty data.
func lineCount(data []byte) int {
	n := 1
	for _, b := range data {
		if b == '\n' {
			n++
		}
	}
	return n
}

func newPositions(data []byte) *positions {
	ps := &positions{lines: map[string]int{}, lineStarts: []int{0}}
	for i, b := range data {
		if b == '\n' {
			ps.lineStarts = append(ps.lineStarts, i+1)
		}
	}
	return ps
}

// lineAt returns the line holding byte offset off.
func (ps *positions) lineAt(off int) int {
	return sort.Search(len(ps.lineStarts), func(i int) bool { return ps.lineStarts[i] > off })
}

// line returns the recorded line of path, or 0.
func (ps *positions) line(path []string) int { return ps.lines[joinPath(path)] }

func (ps *positions) set(path []string, line int) {
	if len(path) > maxPathDepth {
		return
	}
	k := joinPath(path)
	if _, ok := ps.lines[k]; !ok {
		ps.lines[k] = line
	}
}

// setAll records line for path and for each of its prefixes not yet seen
// (tables created implicitly by dotted keys or headers), down to from parts.
func (ps *positions) setAll(path []string, from, line int) {
	for i := from + 1; i <= len(path); i++ {
		ps.set(path[:i], line)
	}
}

// decodeTOML parses data. On a TOML error it returns an *Error at the
// offending line.
func decodeTOML(file string, data []byte) (map[string]any, *positions, *Error) {
	var root map[string]any
	if err := toml.Unmarshal(data, &root); err != nil {
		line := 1
		msg := err.Error()
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, _ = de.Position()
		}
		msg = strings.TrimPrefix(msg, "toml: ")
		if n := lineCount(data); line > n {
			line = n
		}
		if line < 1 {
			line = 1
		}
		return nil, nil, &Error{File: file, Line: line, Msg: "invalid TOML: " + msg}
	}
	if root == nil {
		root = map[string]any{}
	}
	ps := newPositions(data)
	ps.walk(data)
	return root, ps, nil
}

// walk records positions. It never fails: a document go-toml accepted is
// one the unstable parser accepts; if not, some lines stay unknown and
// messages fall back to the enclosing table's line or line 1.
func (ps *positions) walk(data []byte) {
	defer func() { _ = recover() }() // positions are best effort
	var p unstable.Parser
	p.Reset(data)
	var cur []string
	counts := map[string]int{} // array-of-tables path -> number of elements
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			keys, line := ps.keyParts(e.Key())
			if len(keys) > maxPathDepth {
				ps.set(keys[:1], line)
				cur = []string{pathSep + "too deep"} // matches no schema path
				continue
			}
			var path []string
			for i, k := range keys {
				path = append(path, k)
				last := i == len(keys)-1
				if n, ok := counts[joinPath(path)]; ok && (!last || e.Kind == unstable.Table) {
					path = append(path, strconv.Itoa(n-1))
				}
				ps.set(path, line)
			}
			if e.Kind == unstable.ArrayTable {
				k := joinPath(path)
				n := counts[k]
				counts[k] = n + 1
				path = append(path, strconv.Itoa(n))
				ps.set(path, line)
			}
			cur = path
		case unstable.KeyValue:
			ps.keyValue(e, cur)
		}
	}
}

func (ps *positions) keyParts(it unstable.Iterator) ([]string, int) {
	var keys []string
	line := 0
	for it.Next() {
		n := it.Node()
		if line == 0 {
			line = ps.lineAt(int(n.Raw.Offset))
		}
		keys = append(keys, string(n.Data))
	}
	return keys, line
}

func (ps *positions) keyValue(e *unstable.Node, base []string) {
	keys, line := ps.keyParts(e.Key())
	if len(base)+len(keys) > maxPathDepth {
		return
	}
	path := append(append([]string(nil), base...), keys...)
	ps.setAll(path, len(base), line)
	ps.value(e.Value(), path, line)
}

// maxPathDepth bounds the depth of recorded positions: the schema is
// shallow, and recording every level of a deeply nested value would cost
// quadratic memory.
const maxPathDepth = 12

func (ps *positions) value(v *unstable.Node, path []string, line int) {
	if len(path) >= maxPathDepth {
		return
	}
	switch v.Kind {
	case unstable.Array:
		i := 0
		it := v.Children()
		for it.Next() {
			c := it.Node()
			if c.Kind == unstable.Comment {
				continue
			}
			l := line
			if c.Kind != unstable.Array {
				l = ps.lineAt(int(c.Raw.Offset))
			}
			elem := append(append([]string(nil), path...), strconv.Itoa(i))
			ps.set(elem, l)
			ps.value(c, elem, l)
			i++
		}
	case unstable.InlineTable:
		it := v.Children()
		for it.Next() {
			c := it.Node()
			if c.Kind == unstable.KeyValue {
				ps.keyValue(c, path)
			}
		}
	}
}

// typeName names the TOML type of a decoded value for messages.
func typeName(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case int64:
		return "integer"
	case float64:
		return "float"
	case bool:
		return "boolean"
	case time.Time:
		return "date-time"
	case toml.LocalDateTime:
		return "local date-time"
	case toml.LocalDate:
		return "local date"
	case toml.LocalTime:
		return "local time"
	case []any:
		return "array"
	case map[string]any:
		return "table"
	default:
		return "value"
	}
}
