// Package shadow verifies the TCP-MD5 signature or TCP-AO MAC of every BGP
// segment it is shown — live from an AF_PACKET capture or offline from
// pcap/pcapng files — and turns the verdicts into a per-peer diagnosis: why a session will not
// come up. The kernel drops badly signed segments silently and names no
// peer; this package names the peer and the cause.
//
// Verdicts per received segment: valid, bad_digest (signed, not with our
// key), missing (we need a signature, none came), unexpected (signed, but we
// hold no key). A bad digest is retried with the other keys of the peer's
// keychain: if one verifies, the peer is on that key ("other-key"). Our own
// outgoing segments are checked too: a valid signature proves our key is
// installed on the socket.
//
// TCP-AO (RFC 5925) peers are checked too, side by side with TCP-MD5 ones
// (tcpao.go): each connection is followed from its SYN and SYN-ACK, whose
// ISNs give the traffic keys (derived once per connection and master key,
// with package tcpao), and an SNE tracker per direction extends the
// sequence numbers. A received segment is valid, bad_mac, missing,
// unknown_key (its KeyID is none of our recv-ids), unexpected, or
// no_handshake (its connection began before the capture); a bad MAC that
// verifies with include-tcp-options flipped is diagnosed options-mismatch,
// a MAC field of another length than the key's mac-length
// mac-length-mismatch, and TCP-MD5 where TCP-AO is configured (or the reverse) wrong-mechanism.
//
// The per-segment path does not allocate (for TCP-AO: once the
// connection's handshake was seen).
package shadow
