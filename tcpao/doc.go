// Package tcpao is a portable codec for the TCP Authentication Option
// (TCP-AO, RFC 5925) with the two algorithms every implementation has
// (RFC 5926): HMAC-SHA-1-96 with KDF_HMAC_SHA1, and AES-128-CMAC-96 with
// KDF_AES_128_CMAC; and with those Linux and BIRD offer besides: HMAC with
// SHA-224, -256, -384 and -512, whose KDF is RFC 5926's over that HMAC with
// a traffic key of the whole digest, and MAC lengths other than 12 bytes
// (MasterKey.MACLen), exactly as Linux computes them. It makes no system
// calls: it derives traffic keys,
// computes and verifies MACs of captured segments, parses and encodes the
// option and extends sequence numbers, so that a shadow checker can verify
// what the kernel sends and receives.
//
// # Per connection
//
// A MasterKey (MKT: algorithm, secret, SendID, RecvID, whether options are
// covered, MAC length) and a Connection (the local and remote address and port and the
// two ISNs seen in the handshake) give the four traffic keys of RFC 5925
// §5.2, prepared once:
//
//	keys, err := mk.Keys(conn)                        // *Keys
//	err = keys.Verify(tcpao.Receive, sne, segment)    // nil, or wraps ErrBadMAC, ErrNoOption, ...
//
// A SYN segment (SYN set, ACK clear) uses the SYN keys, whose context has
// the other side's ISN as 0; every other segment, the SYN-ACK included,
// uses the "other" keys. Keys.Select picks the key, Keys.Verify also checks
// the KeyID and the MAC field's length (ErrMACLength) and refuses
// segments that carry TCP-MD5.
//
// A TrafficKey is one prepared traffic key (the HMAC's inner and outer
// states, or the CMAC's expanded AES key and subkeys K1, K2).
// TrafficKey.MAC appends the MAC (12 bytes by default) of a Segment to a caller's buffer
// and TrafficKey.Verify compares it in constant time; neither allocates.
// TrafficKey.VerifyParsed is Verify for a caller that has parsed the
// options already (tcpopt.ParseSegment, as the shadow checker does): it
// checks that they describe the segment, fails closed with
// ErrParsedOptions when they do not, and does not walk them again.
// The MAC covers, as RFC 5925 §5.1 says: the SNE (4 bytes), the
// pseudo-header (IPv4: source, destination, zero, protocol 6, TCP length;
// IPv6: source, destination, TCP length (4 bytes), three zero bytes, next
// header 6), the 20-byte TCP header with its checksum zeroed, the options
// (all of them, or only the TCP-AO option when the MKT excludes options;
// the TCP-AO option always with its MAC field zeroed) and the payload.
// IPv4-mapped IPv6 addresses count as IPv4, as for TCP-MD5.
//
// DeriveTrafficKey is the bare KDF (RFC 5926 §3.1) for one Context.
//
// # Sequence number extension
//
// An SNETracker per direction (RFC 5925 §6.2) turns the 32-bit sequence
// numbers of a long session into the SNE that the MAC covers. It follows
// the highest sequence number seen, so segments reordered around a wrap
// still get the SNE of their side of it.
//
// # Options
//
// ParseOptions and SegmentOptions find the TCP-AO option (kind 29) in a
// TCP option list and tell whether a TCP-MD5 option (kind 19) is there too;
// Option.Append encodes one.
//
// # Errors and secrets
//
// Errors wrap the sentinels of this package (ErrNoOption, ErrBadMAC,
// ErrKeyLength, ...) for errors.Is and say which segment or key they are
// about, never with key material: MasterKey and TrafficKey print their
// algorithm and key IDs only, whatever the fmt verb.
//
// Under GODEBUG=fips140=only, where crypto/hmac panics on SHA-1, the
// HMAC-SHA-1 algorithm is refused with ErrFIPS140Only, and an HMAC-SHA-2
// master key shorter than 14 bytes with ErrFIPS140ShortSecret;
// AES-128-CMAC and the longer HMAC-SHA-2 keys work.
//
// A TrafficKey, and so Keys, holds scratch state and is not safe for
// concurrent use: give each goroutine its own (Clone).
package tcpao
