// Package fieldtest helps tests that walk every field of a config type by
// reflection, so that a field added to it is not missed by the code that
// compares two of them (config's diffPeer, peers' sameShape).
package fieldtest

import (
	"net/netip"
	"reflect"

	"github.com/authbgp/authbgpd/config"
)

// OtherValue sets v (an addressable field) to a value unlike its own and
// reports whether it knows how for v's type.
func OtherValue(v reflect.Value) bool {
	switch x := v.Addr().Interface().(type) {
	case *netip.Addr:
		if *x == netip.MustParseAddr("192.0.2.99") {
			*x = netip.MustParseAddr("192.0.2.98")
		} else {
			*x = netip.MustParseAddr("192.0.2.99")
		}
		return true
	case *config.Secret:
		*x = append(config.Secret("Other-"), *x...)
		return true
	case *[]string:
		*x = append(*x, "other")
		return true
	case *[]config.Family:
		if len(*x) == 1 && (*x)[0] == config.IPv6Unicast {
			*x = []config.Family{config.IPv4Unicast}
		} else {
			*x = []config.Family{config.IPv6Unicast}
		}
		return true
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(v.String() + "-other")
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(v.Uint() + 1)
	case reflect.Int, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + 1)
	default:
		return false
	}
	return true
}

// Exported lists the names of t's exported fields, in order.
func Exported(t reflect.Type) []string {
	var names []string
	for i := range t.NumField() {
		if f := t.Field(i); f.IsExported() {
			names = append(names, f.Name)
		}
	}
	return names
}
