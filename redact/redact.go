// Package redact keeps secrets (TCP-MD5 passwords, any field named like a
// password or secret) out of what authbgpd hands out: gRPC answers, API
// objects read back, and log lines. It has three mechanisms, used together
// by the embedded GoBGP host (package plugin) and usable by anyone:
//
//   - Proto redacts protobuf messages structurally: every string or bytes
//     field whose name is a secret name (IsSecretName), in nested messages,
//     lists, maps and google.protobuf.Any payloads, with fast paths for the
//     GoBGP answers polled most (peers, RIB dumps);
//   - Value does the same for arbitrary Go values by reflection (GoBGP logs
//     whole oc.Neighbor configurations, passwords included);
//   - Set remembers the secrets handed to GoBGP and scrubs them from any
//     text (log messages, errors, formatted values), as defence in depth
//     behind the structural redaction.
//
// An empty secret stays empty, so "has a password" remains visible, and
// Secrets refuses a message that carries the Placeholder as a secret, so a
// redacted object read back and written again can never install
// "<redacted>" as a key.
//
// The package imports GoBGP's protobuf API (github.com/osrg/gobgp/v3/api)
// only, never its server.
package redact

import "strings"

// Placeholder replaces every non-empty secret.
const Placeholder = "<redacted>"

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
