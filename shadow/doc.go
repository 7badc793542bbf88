// Package shadow verifies the TCP-MD5 signature of every BGP segment it is
// shown — live from an AF_PACKET capture or offline from pcap/pcapng files —
// and turns the verdicts into a per-peer diagnosis: why a session will not
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
// The per-segment path does not allocate.
package shadow
