// Package peers turns the configured peers into GoBGP neighbors and their
// TCP-MD5 keys or TCP-AO MKTs, and keeps them consistent while sessions run.
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
//   - Keys before listen. Every listener GoBGP creates (the default VRF's at
//     start, a VRF's with its first neighbor) gets every listener key of
//     the desired state before it listens, through the manager's listen
//     hook (the carried GoBGP's ListenerControlOption, patch 0035; the
//     table published by Prepare before GoBGP starts, then by each pass):
//     no SYN is accepted unsigned, even for a moment. A socket that cannot
//     take keys (multipath TCP) aborts that listener (GoBGP does not
//     listen; at start, the start fails); a single key the kernel refuses
//     leaves its peer held down by the key stage, as on any listener.
//   - Keys go when peers go. GoBGP's DeletePeer leaves the listener key
//     behind; the manager deletes it.
//   - Hitless key changes. A changed key (reload or keychain switch) is
//     installed in place on the listener and on the established socket,
//     and the next dial uses it: GoBGP is not touched, so no session resets.
//   - GoBGP holds no secret. Its neighbors carry no password; every socket
//     GoBGP dials is keyed before connect by the manager's dial hook (the
//     carried GoBGP's PeerDialControlOption, third_party/gobgp) with the key
//     the last pass decided — TCP-MD5, or TCP-AO's MKTs with the current key
//     and RNextKeyID — and a dial whose key cannot be set sends no SYN.
package peers
