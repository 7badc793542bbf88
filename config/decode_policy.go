package config

import (
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/osrg/gobgp/v3/pkg/config/oc"
)

// The policy sections are gobgpd's, unchanged: [defined-sets] (prefix,
// neighbor and BGP defined sets) and [[policy-definitions]] decode into
// GoBGP's own config types (oc.DefinedSets, oc.PolicyDefinition), by the
// mapstructure tags gobgpd's file reader uses, field by field: every key
// those types do not have is an error at its line, and so is a value of
// the wrong type or an enumeration value GoBGP's Validate refuses
// ("match-set-options", "route-disposition", ...).

// policies decodes the policy sections of the root table into c.Policies.
func (d *decoder) policies(rt *table, c *Config) {
	p := &c.Policies
	p.lines = map[string]int{}
	if rt.has("defined-sets") {
		st, ok := rt.subTable("defined-sets", "[defined-sets]", nil)
		if ok {
			d.ocStruct(st, reflect.ValueOf(&p.DefinedSets).Elem(), p.lines)
		}
		st.finish()
	}
	defs := reflect.ValueOf(&p.PolicyDefinitions).Elem()
	d.ocTables(rt, "policy-definitions", "[[policy-definitions]]", defs, p.lines)
	// gobgpd's default (oc's setDefaultPolicyConfigValuesWithViper): a
	// statement without route-disposition neither accepts nor rejects.
	for i := range p.PolicyDefinitions {
		for j := range p.PolicyDefinitions[i].Statements {
			s := &p.PolicyDefinitions[i].Statements[j]
			if s.Actions.RouteDisposition == "" {
				s.Actions.RouteDisposition = oc.ROUTE_DISPOSITION_NONE
			}
		}
	}
}

// pathKey names a decoded key by its TOML path (indices included), as
// Policies' lines record it.
func pathKey(path []string) string { return strings.Join(path, ".") }

// validator is the Validate of GoBGP's enumeration types.
type validator interface{ Validate() error }

// ocStruct fills the struct v from t by v's mapstructure tags, recording
// the line of every key it decodes in lines.
func (d *decoder) ocStruct(t *table, v reflect.Value, lines map[string]int) {
	typ := v.Type()
	for i := range typ.NumField() {
		f := typ.Field(i)
		key := f.Tag.Get("mapstructure")
		if key == "" || key == "-" || !t.has(key) {
			continue
		}
		lines[pathKey(t.child(key))] = t.lineOf(key)
		fv := v.Field(i)
		name := "[" + tablePath(t.child(key)) + "]"
		switch {
		case fv.Kind() == reflect.Struct:
			st, ok := t.subTable(key, name, nil)
			if ok {
				d.ocStruct(st, fv, lines)
			}
			st.finish()
		case fv.Kind() == reflect.Slice && fv.Type().Elem().Kind() == reflect.Struct:
			d.ocTables(t, key, "["+name+"]", fv, lines)
			continue
		case fv.Kind() == reflect.Slice && fv.Type().Elem().Kind() == reflect.String:
			ss, elemLines, _ := t.strings(key)
			out := reflect.MakeSlice(fv.Type(), 0, len(ss))
			for j, s := range ss {
				e := reflect.New(fv.Type().Elem()).Elem()
				e.SetString(s)
				if !ocValid(t, key, e) {
					continue
				}
				lines[pathKey(append(t.child(key), strconv.Itoa(out.Len())))] = elemLines[j]
				out = reflect.Append(out, e)
			}
			fv.Set(out)
		default:
			ocScalar(t, key, fv)
		}
	}
}

// ocTables decodes the array of tables key of t into the slice v.
func (d *decoder) ocTables(t *table, key, name string, v reflect.Value, lines map[string]int) {
	for i, m := range t.tables(key, name) {
		if m == nil {
			continue
		}
		et := t.elem(key, i, m, name, nil)
		lines[pathKey(et.path)] = et.line
		e := reflect.New(v.Type().Elem()).Elem()
		d.ocStruct(et, e, lines)
		et.finish()
		v.Set(reflect.Append(v, e))
	}
}

// ocScalar decodes a string, integer or boolean key into v.
func ocScalar(t *table, key string, v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if s, ok := t.str(key); ok {
			v.SetString(s)
			if !ocValid(t, key, v) {
				v.SetString("")
			}
		}
	case reflect.Bool:
		if b, ok := t.boolean(key); ok {
			v.SetBool(b)
		}
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		hi := int64(math.MaxInt64)
		if bits := v.Type().Bits(); bits < 64 {
			hi = 1<<bits - 1
		}
		if n, ok := t.integer(key, 0, hi); ok {
			v.SetUint(uint64(n))
		}
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
		bits := v.Type().Bits()
		if n, ok := t.integer(key, -1<<(bits-1), 1<<(bits-1)-1); ok {
			v.SetInt(n)
		}
	default:
		t.invalid(key, "not supported by authbgpd (a %s)", v.Type())
	}
}

// ocValid runs GoBGP's Validate of an enumeration value, reporting a
// value it refuses at key's line.
func ocValid(t *table, key string, v reflect.Value) bool {
	val, ok := v.Interface().(validator)
	if !ok || v.String() == "" {
		return true
	}
	if err := val.Validate(); err != nil {
		t.invalid(key, "%q: %v", v.String(), err)
		return false
	}
	return true
}

// tablePath is a TOML path as a table header names it (no indices):
// "policy-definitions.statements.actions".
func tablePath(path []string) string {
	var keep []string
	for _, p := range path {
		if _, err := strconv.Atoi(p); err != nil {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, ".")
}
