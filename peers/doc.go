// Package peers turns the configured peers into GoBGP neighbors and TCP-MD5
// keys, and keeps the two consistent while sessions run.
//
// The rules it enforces:
//
//   - Fail closed. A keyed peer's key is put on every listener of its
//     family before GoBGP learns of the peer. If that fails (a multipath-TCP
//     listener, a kernel without TCP-MD5, a FIPS kernel, any setsockopt
//     error) the peer is added administratively down — GoBGP then refuses
//     its connections and never dials it — its status carries the error and
//     an error is logged. A dynamic range whose key fails is not given to
//     GoBGP at all. There is never an unauthenticated session for a keyed
//     peer.
//   - Keys go when peers go. GoBGP's DeletePeer leaves the listener key
//     behind; the manager deletes it.
//   - Hitless key changes. A changed key (reload or keychain switch) is
//     installed in place on the listener and on the established socket;
//     GoBGP's own copy of the password (which it uses to dial) is brought in
//     line only when the session next leaves Established, because GoBGP
//     resets a session whose password changes. Until then the peer's auth
//     status says "pending". Dynamic ranges never give GoBGP a password:
//     GoBGP never dials them, so the manager alone keys their listeners.
package peers
