package plugin

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/anypb"
)

// Redacted replaces secrets (AuthPassword and any other field whose name
// looks like a password or secret) in everything this package hands out:
// gRPC answers, ListPeer/ListPeerGroup results and log fields. An empty
// secret stays empty, so "has a password" remains visible.
//
// AddPeer, UpdatePeer, AddPeerGroup and UpdatePeerGroup (in process and over
// gRPC) refuse a secret equal to Redacted, so a redacted object read back
// and written again can never install "<redacted>" as a key.
const Redacted = "<redacted>"

// secretWords are matched against field names lower-cased with '_', '-',
// ' ' and '.' removed. A bare "key" is deliberately absent: GoBGP logs the
// peer address under the field "Key".
var secretWords = []string{
	"password", "passwd", "passphrase", "secret",
	"privatekey", "authkey", "md5key", "presharedkey", "apikey",
}

// IsSecretName reports whether a field, log key or proto field named name
// holds secret material and must be redacted.
func IsSecretName(name string) bool {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch r {
		case '_', '-', ' ', '.':
			continue
		}
		b.WriteRune(r)
	}
	n := b.String()
	for _, w := range secretWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// ---------------------------------------------------------------------------
// Protobuf messages (gRPC answers, api.Peer, api.PeerGroup, ...)

// protoVisit walks m and calls fn for every non-empty string or bytes field
// whose name is secret (fn returns the replacement and whether to set it).
// It descends into nested messages, lists, maps and google.protobuf.Any
// (unpacked with the global registry; repacked only if changed).
// It reports whether anything was replaced.
func protoVisit(m protoreflect.Message, fn func(old string) (string, bool), depth int) bool {
	if depth > 64 || !m.IsValid() || !descMayHold(m.Descriptor()) {
		return false
	}
	if m.Descriptor().FullName() == anyName {
		return anyVisit(m, fn, depth)
	}
	var later []func() // fields are set after Range, which forbids it
	changed := false
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		secret := fieldIsSecret(fd)
		switch {
		case fd.IsList():
			changed = visitList(v.List(), fd.Kind(), secret, fn, depth) || changed
		case fd.IsMap():
			changed = visitMap(v.Map(), fd, secret, fn, depth) || changed
		case fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind:
			changed = protoVisit(v.Message(), fn, depth+1) || changed
		case secret:
			if nv, ok := visitLeaf(fd.Kind(), v, fn); ok {
				later = append(later, func() { m.Set(fd, nv) })
			}
		}
		return true
	})
	return runLater(later) || changed
}

// runLater runs the deferred changes and reports whether there were any.
func runLater(later []func()) bool {
	for _, f := range later {
		f()
	}
	return len(later) > 0
}

// visitLeaf asks fn for the replacement of a string or bytes value.
func visitLeaf(k protoreflect.Kind, v protoreflect.Value, fn func(string) (string, bool)) (protoreflect.Value, bool) {
	switch k {
	case protoreflect.StringKind:
		if nv, ok := fn(v.String()); ok {
			return protoreflect.ValueOfString(nv), true
		}
	case protoreflect.BytesKind:
		if nv, ok := fn(string(v.Bytes())); ok {
			return protoreflect.ValueOfBytes([]byte(nv)), true
		}
	}
	return protoreflect.Value{}, false
}

// visitList is protoVisit for the elements of a repeated field of kind k.
func visitList(l protoreflect.List, k protoreflect.Kind, secret bool, fn func(string) (string, bool), depth int) bool {
	changed := false
	for i := 0; i < l.Len(); i++ {
		switch {
		case k == protoreflect.MessageKind || k == protoreflect.GroupKind:
			changed = protoVisit(l.Get(i).Message(), fn, depth+1) || changed
		case secret:
			if nv, ok := visitLeaf(k, l.Get(i), fn); ok {
				l.Set(i, nv)
				changed = true
			}
		}
	}
	return changed
}

// visitMap is protoVisit for the values of a map field; a string-keyed
// entry whose key is a secret name counts as a secret field.
func visitMap(mp protoreflect.Map, fd protoreflect.FieldDescriptor, secret bool, fn func(string) (string, bool), depth int) bool {
	vk := fd.MapValue().Kind()
	keySecret := fd.MapKey().Kind() == protoreflect.StringKind
	var later []func()
	changed := false
	mp.Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
		switch {
		case vk == protoreflect.MessageKind || vk == protoreflect.GroupKind:
			changed = protoVisit(mv.Message(), fn, depth+1) || changed
		case secret || (keySecret && IsSecretName(k.String())):
			if nv, ok := visitLeaf(vk, mv, fn); ok {
				later = append(later, func() { mp.Set(k, nv) })
			}
		}
		return true
	})
	return runLater(later) || changed
}

func anyVisit(m protoreflect.Message, fn func(string) (string, bool), depth int) bool {
	a, ok := m.Interface().(*anypb.Any)
	if !ok || a == nil || a.TypeUrl == "" {
		return false
	}
	// Path attributes and NLRIs travel as Any: skip the unpacking unless
	// the payload's type can hold a secret at all.
	mt, err := protoregistry.GlobalTypes.FindMessageByURL(a.TypeUrl)
	if err != nil || !descMayHold(mt.Descriptor()) {
		return false
	}
	inner, err := a.UnmarshalNew()
	if err != nil {
		return false
	}
	if !protoVisit(inner.ProtoReflect(), fn, depth+1) {
		return false
	}
	if err := a.MarshalFrom(inner); err != nil {
		// Cannot repack: drop the payload rather than leak it.
		a.Value = nil
	}
	return true
}

const anyName = "google.protobuf.Any"

var descCache sync.Map // protoreflect.FullName -> bool

// descMayHold reports whether messages of type md can carry a secret: a
// string or bytes field with a secret name, a map with string values (keyed
// by name), or an Any, anywhere inside. Cached per message type.
func descMayHold(md protoreflect.MessageDescriptor) bool {
	if b, ok := descCache.Load(md.FullName()); ok {
		return b.(bool)
	}
	b := descWalk(md, map[protoreflect.FullName]bool{})
	descCache.Store(md.FullName(), b)
	return b
}

func descWalk(md protoreflect.MessageDescriptor, seen map[protoreflect.FullName]bool) bool {
	if md.FullName() == anyName {
		return true
	}
	if seen[md.FullName()] {
		return false
	}
	seen[md.FullName()] = true
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.IsMap() {
			fd = fd.MapValue()
			if fd.Kind() == protoreflect.StringKind || fd.Kind() == protoreflect.BytesKind {
				return true
			}
		}
		switch fd.Kind() {
		case protoreflect.StringKind, protoreflect.BytesKind:
			if IsSecretName(string(fields.Get(i).Name())) {
				return true
			}
		case protoreflect.MessageKind, protoreflect.GroupKind:
			if descWalk(fd.Message(), seen) {
				return true
			}
		}
	}
	return false
}

var fieldCache sync.Map // protoreflect.FullName of a field -> bool

// fieldIsSecret is IsSecretName of fd's name, cached per field (the walk
// asks it for every field of every message).
func fieldIsSecret(fd protoreflect.FieldDescriptor) bool {
	if b, ok := fieldCache.Load(fd.FullName()); ok {
		return b.(bool)
	}
	b := IsSecretName(string(fd.Name()))
	fieldCache.Store(fd.FullName(), b)
	return b
}

func redactFn(old string) (string, bool) {
	if old == "" || old == Redacted {
		return "", false
	}
	return Redacted, true
}

// protoHasSecret reports whether m carries a non-empty secret field.
func protoHasSecret(m proto.Message) bool {
	if m == nil {
		return false
	}
	found := false
	// The visitor never asks for a replacement, so m is not modified
	// (Any payloads are unpacked into copies).
	protoVisit(m.ProtoReflect(), func(old string) (string, bool) {
		if old != "" && old != Redacted {
			found = true
		}
		return "", false
	}, 0)
	return found
}

// RedactProto returns m with every secret field replaced by Redacted. m is
// never modified: if it carries a secret, a redacted clone is returned,
// otherwise m itself.
func RedactProto[M proto.Message](m M) M {
	if ribAnswer(m) {
		return m
	}
	if r, ok := peerAnswer(m); ok {
		return r.(M)
	}
	if !protoHasSecret(m) {
		return m
	}
	c := proto.Clone(m).(M)
	protoVisit(c.ProtoReflect(), redactFn, 0)
	return c
}

// protoSecrets returns the non-empty secret values found in m, and an error
// if one of them is the Redacted placeholder.
func protoSecrets(m proto.Message) ([]string, error) {
	if m == nil {
		return nil, nil
	}
	var out []string
	var bad bool
	protoVisit(m.ProtoReflect(), func(old string) (string, bool) {
		switch old {
		case "":
		case Redacted:
			bad = true
		default:
			out = append(out, old)
		}
		return "", false
	}, 0)
	if bad {
		return out, errRedactedSecret
	}
	return out, nil
}

var errRedactedSecret = errors.New("plugin: a password is the redaction placeholder " + Redacted + " (a redacted object was written back); refusing to install it as a key")

// ---------------------------------------------------------------------------
// Arbitrary Go values (GoBGP log fields: oc.Neighbor, oc.PeerGroup, ...)

const maxScrubDepth = 10

// scrubValue returns a copy of v in which every exported, non-empty string
// (or []byte) struct field and map entry with a secret name is replaced by
// Redacted, descending into pointers, interfaces, structs, slices, arrays
// and maps. Protobuf messages are redacted with RedactProto. v itself is
// never modified; when nothing needs redacting v is returned unchanged.
func scrubValue(v reflect.Value, depth int) (reflect.Value, bool) {
	if depth > maxScrubDepth || !v.IsValid() {
		return v, false
	}
	if v.Kind() == reflect.Pointer && !v.IsNil() && v.CanInterface() {
		if pm, ok := v.Interface().(proto.Message); ok {
			if !protoHasSecret(pm) {
				return v, false
			}
			return reflect.ValueOf(RedactProto(pm)), true
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
// Redacted if the type allows it).
func redactLeaf(v reflect.Value) (reflect.Value, bool) {
	switch v.Kind() {
	case reflect.String:
		if v.Len() == 0 || v.String() == Redacted {
			return v, false
		}
		return reflect.ValueOf(Redacted).Convert(v.Type()), true
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			if v.Len() == 0 {
				return v, false
			}
			return reflect.ValueOf([]byte(Redacted)).Convert(v.Type()), true
		}
	case reflect.Interface:
		if v.IsNil() {
			return v, false
		}
		if v.Type().NumMethod() == 0 {
			// any: replace whatever it holds.
			nv := reflect.New(v.Type()).Elem()
			nv.Set(reflect.ValueOf(Redacted))
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

// ---------------------------------------------------------------------------
// Known secrets: every password handed to GoBGP through this package is
// remembered, and scrubbed from log messages and field values wherever it
// appears (defence in depth behind the structural redaction above).

// minScrubLen is the shortest secret scrubbed as a substring: shorter ones
// would mangle unrelated text (a password "1" in every address).
const minScrubLen = 4

// maxSecrets bounds the registry; the oldest entries go first.
const maxSecrets = 4096

type secretSet struct {
	mu    sync.RWMutex
	set   map[string]struct{}
	order []string // insertion order (the oldest go first when full)
	// byLen holds the secrets longest first: scrub replaces a secret before
	// any shorter one it contains, so no tail of a longer secret survives.
	byLen []string
}

func (s *secretSet) add(v string) {
	if len(v) < minScrubLen || v == Redacted {
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

func (s *secretSet) empty() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.set) == 0
}

// scrub replaces every known secret in str by Redacted.
func (s *secretSet) scrub(str string) (string, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	changed := false
	for _, v := range s.byLen {
		if strings.Contains(str, v) {
			str = strings.ReplaceAll(str, v, Redacted)
			changed = true
		}
	}
	return str, changed
}

// scrubField returns the value to log for field key: secret-named keys are
// redacted outright, other values structurally, and if a known secret still
// shows in the value's text, the value is replaced by its scrubbed text.
func (s *secretSet) scrubField(key string, val any) any {
	if val == nil {
		return nil
	}
	if IsSecretName(key) {
		if str, ok := val.(string); ok && str == "" {
			return val
		}
		return Redacted
	}
	switch x := val.(type) {
	case string:
		if out, ok := s.scrub(x); ok {
			return out
		}
		return x
	case bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
		return x
	case error:
		if out, ok := s.scrub(x.Error()); ok {
			return errors.New(out)
		}
		return x
	}
	if nv, changed := scrubValue(reflect.ValueOf(val), 0); changed && nv.CanInterface() {
		val = nv.Interface()
	}
	if !s.empty() {
		if out, ok := s.scrub(fmt.Sprintf("%+v", val)); ok {
			return out
		}
	}
	return val
}
