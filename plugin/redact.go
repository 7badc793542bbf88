package plugin

import (
	"google.golang.org/protobuf/proto"

	"github.com/authbgp/authbgpd/redact"
)

// Redaction lives in package redact; the Host uses it for every answer,
// every object read back and every GoBGP log line. These forwarders keep
// the names callers outside plugin used before the move.

// Redacted replaces secrets in everything the Host hands out (gRPC answers,
// ListPeer/ListPeerGroup results, log fields); AddPeer, UpdatePeer,
// AddPeerGroup and UpdatePeerGroup, in process and over gRPC, refuse it as
// a password.
//
// Deprecated: use redact.Placeholder.
const Redacted = redact.Placeholder

// RedactProto returns m with every secret field replaced by Redacted,
// never modifying m.
//
// Deprecated: use redact.Proto.
func RedactProto[M proto.Message](m M) M { return redact.Proto(m) }

// IsSecretName reports whether a field, log key or proto field named name
// holds secret material.
//
// Deprecated: use redact.IsSecretName.
func IsSecretName(name string) bool { return redact.IsSecretName(name) }
