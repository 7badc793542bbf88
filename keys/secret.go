package keys

import (
	"crypto/subtle"
	"fmt"
)

// Redacted is what a Secret prints as, whatever the verb or encoding.
const Redacted = "<redacted>"

// Secret is key material (a TCP-MD5 key, an SRv6 HMAC secret). It never
// prints its contents: every fmt verb, String, GoString, MarshalText and
// MarshalJSON give a redacted placeholder, so a Secret that reaches a log
// line, an error, an encoding or a test failure does not leak.
type Secret []byte

// String implements fmt.Stringer without revealing the secret.
func (Secret) String() string { return Redacted }

// GoString implements fmt.GoStringer without revealing the secret.
func (Secret) GoString() string { return "keys.Secret(" + Redacted + ")" }

// Format implements fmt.Formatter so that %x, %q, %v and friends are
// redacted too.
func (Secret) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(Redacted)) }

// MarshalText keeps secrets out of text encodings (TOML, YAML...).
func (Secret) MarshalText() ([]byte, error) { return []byte(Redacted), nil }

// MarshalJSON keeps secrets out of JSON: a Secret encodes as "<redacted>".
func (Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + Redacted + `"`), nil }

// Equal reports whether s and o hold the same bytes, in time that depends
// on their lengths only, not on their contents.
func (s Secret) Equal(o Secret) bool { return subtle.ConstantTimeCompare(s, o) == 1 }

// Wipe overwrites the secret's bytes with zeros in place (every Secret
// sharing the array sees zeros). The length is kept.
func (s Secret) Wipe() { clear(s) }
