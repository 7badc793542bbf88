package redact

import (
	"errors"
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/anypb"
)

// Protobuf messages (gRPC answers, api.Peer, api.PeerGroup, ...).

// ErrPlaceholder is returned by Secrets for a message that carries the
// Placeholder as a secret: a redacted object was written back.
var ErrPlaceholder = errors.New("redact: a password is the redaction placeholder " + Placeholder + " (a redacted object was written back); refusing to install it as a key")

// Proto returns m with every secret field replaced by Placeholder. m is
// never modified: if it carries a secret, a redacted clone (or, for a peer,
// a shallow copy with redacted copies of the parts holding the password) is
// returned, otherwise m itself.
func Proto[M proto.Message](m M) M {
	if ribAnswer(m) {
		return m
	}
	if r, ok := peerAnswer(m); ok {
		return r.(M)
	}
	if !HasSecret(m) {
		return m
	}
	c := proto.Clone(m).(M)
	protoVisit(c.ProtoReflect(), redactFn, 0)
	return c
}

// HasSecret reports whether m carries a non-empty secret field (other than
// the Placeholder), by the reflective walk.
func HasSecret(m proto.Message) bool {
	if m == nil {
		return false
	}
	found := false
	// The visitor never asks for a replacement, so m is not modified
	// (Any payloads are unpacked into copies).
	protoVisit(m.ProtoReflect(), func(old string) (string, bool) {
		if old != "" && old != Placeholder {
			found = true
		}
		return "", false
	}, 0)
	return found
}

// Secrets returns the non-empty secret values found in m, and ErrPlaceholder
// if one of them is the Placeholder.
func Secrets(m proto.Message) ([]string, error) {
	if m == nil {
		return nil, nil
	}
	var out []string
	var bad bool
	protoVisit(m.ProtoReflect(), func(old string) (string, bool) {
		switch old {
		case "":
		case Placeholder:
			bad = true
		default:
			out = append(out, old)
		}
		return "", false
	}, 0)
	if bad {
		return out, ErrPlaceholder
	}
	return out, nil
}

func redactFn(old string) (string, bool) {
	if old == "" || old == Placeholder {
		return "", false
	}
	return Placeholder, true
}

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
