package redact

import (
	"reflect"
	"sync"

	"google.golang.org/protobuf/proto"
)

// Arbitrary Go values (GoBGP log fields: oc.Neighbor, oc.PeerGroup, ...).

// Value returns a copy of v in which every exported, non-empty string (or
// []byte) struct field and map entry with a secret name is replaced by
// Placeholder, descending into pointers, interfaces, structs, slices,
// arrays and maps (to a bounded depth; slices beyond 4096 elements are not
// walked further). Protobuf messages are redacted with Proto. v itself is
// never modified; changed is false, and v is returned as it is, when
// nothing needed redacting. Unexported fields are not looked at: Set.Field
// also scrubs known secrets from a value's text.
func Value(v any) (out any, changed bool) {
	nv, changed := scrubValue(reflect.ValueOf(v), 0)
	if !changed || !nv.CanInterface() {
		return v, false
	}
	return nv.Interface(), true
}

const maxScrubDepth = 10

// scrubValue is Value on a reflect.Value.
func scrubValue(v reflect.Value, depth int) (reflect.Value, bool) {
	if depth > maxScrubDepth || !v.IsValid() {
		return v, false
	}
	if v.Kind() == reflect.Pointer && !v.IsNil() && v.CanInterface() {
		if pm, ok := v.Interface().(proto.Message); ok {
			if !HasSecret(pm) {
				return v, false
			}
			return reflect.ValueOf(Proto(pm)), true
		}
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		return scrubIndirect(v, depth)
	case reflect.Struct:
		return scrubStruct(v, depth)
	case reflect.Slice, reflect.Array:
		return scrubSeq(v, depth)
	case reflect.Map:
		return scrubMap(v, depth)
	}
	return v, false
}

// scrubIndirect scrubs what a pointer or an interface holds, into a new
// pointer or interface.
func scrubIndirect(v reflect.Value, depth int) (reflect.Value, bool) {
	if v.IsNil() {
		return v, false
	}
	inner, changed := scrubValue(v.Elem(), depth+1)
	if !changed {
		return v, false
	}
	if v.Kind() == reflect.Pointer {
		p := reflect.New(v.Type().Elem())
		p.Elem().Set(inner)
		return p, true
	}
	nv := reflect.New(v.Type()).Elem()
	nv.Set(inner)
	return nv, true
}

// scrubNamed scrubs one struct field or map value; named is whether its
// name is a secret name (then the value itself is redacted).
func scrubNamed(v reflect.Value, named bool, depth int) (reflect.Value, bool) {
	if named {
		if nv, changed := redactLeaf(v); changed {
			return nv, true
		}
	}
	return scrubValue(v, depth+1)
}

func scrubStruct(v reflect.Value, depth int) (reflect.Value, bool) {
	t := v.Type()
	var out reflect.Value
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		nv, changed := scrubNamed(v.Field(i), IsSecretName(f.Name), depth)
		if !changed {
			continue
		}
		if !out.IsValid() {
			out = reflect.New(t).Elem()
			out.Set(v)
		}
		out.Field(i).Set(nv)
	}
	return orig(v, out)
}

// orig returns out if it was made (something changed), else v.
func orig(v, out reflect.Value) (reflect.Value, bool) {
	if out.IsValid() {
		return out, true
	}
	return v, false
}

func scrubSeq(v reflect.Value, depth int) (reflect.Value, bool) {
	if v.Kind() == reflect.Slice && v.IsNil() || !mayHold(v.Type().Elem()) {
		return v, false
	}
	var out reflect.Value
	n := min(v.Len(), 4096)
	for i := 0; i < n; i++ {
		nv, changed := scrubValue(v.Index(i), depth+1)
		if !changed {
			continue
		}
		if !out.IsValid() {
			if v.Kind() == reflect.Slice {
				out = reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			} else {
				out = reflect.New(v.Type()).Elem()
			}
			reflect.Copy(out, v)
		}
		out.Index(i).Set(nv)
	}
	return orig(v, out)
}

func scrubMap(v reflect.Value, depth int) (reflect.Value, bool) {
	if v.IsNil() {
		return v, false
	}
	strKey := v.Type().Key().Kind() == reflect.String
	type kv struct{ k, v reflect.Value }
	var sets []kv
	it := v.MapRange()
	for it.Next() {
		k := it.Key()
		if nv, changed := scrubNamed(it.Value(), strKey && IsSecretName(k.String()), depth); changed {
			sets = append(sets, kv{k, nv})
		}
	}
	if len(sets) == 0 {
		return v, false
	}
	out := reflect.MakeMapWithSize(v.Type(), v.Len())
	it = v.MapRange()
	for it.Next() {
		out.SetMapIndex(it.Key(), it.Value())
	}
	for _, s := range sets {
		out.SetMapIndex(s.k, s.v)
	}
	return out, true
}

// redactLeaf replaces a secret-named leaf value (string, []byte, or an
// interface/pointer holding one; anything else non-zero becomes the string
// Placeholder if the type allows it).
func redactLeaf(v reflect.Value) (reflect.Value, bool) {
	switch v.Kind() {
	case reflect.String:
		if v.Len() == 0 || v.String() == Placeholder {
			return v, false
		}
		return reflect.ValueOf(Placeholder).Convert(v.Type()), true
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			if v.Len() == 0 {
				return v, false
			}
			return reflect.ValueOf([]byte(Placeholder)).Convert(v.Type()), true
		}
	case reflect.Interface:
		if v.IsNil() {
			return v, false
		}
		if v.Type().NumMethod() == 0 {
			// any: replace whatever it holds.
			nv := reflect.New(v.Type()).Elem()
			nv.Set(reflect.ValueOf(Placeholder))
			return nv, true
		}
	case reflect.Pointer:
		if v.IsNil() {
			return v, false
		}
		inner, changed := redactLeaf(v.Elem())
		if changed {
			p := reflect.New(v.Type().Elem())
			p.Elem().Set(inner)
			return p, true
		}
	}
	return v, false
}

var mayHoldCache sync.Map // reflect.Type -> bool

// mayHold reports whether values of type t can contain a secret (a struct
// field, map or interface anywhere inside); slices of plain numbers, for
// instance, are skipped without walking them.
func mayHold(t reflect.Type) bool {
	if b, ok := mayHoldCache.Load(t); ok {
		return b.(bool)
	}
	b := mayHoldWalk(t, map[reflect.Type]bool{})
	mayHoldCache.Store(t, b)
	return b
}

func mayHoldWalk(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Interface, reflect.Map:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return mayHoldWalk(t.Elem(), seen)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			if IsSecretName(f.Name) || mayHoldWalk(f.Type, seen) {
				return true
			}
		}
	}
	return false
}
