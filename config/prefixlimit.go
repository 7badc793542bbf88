package config

// A peer's prefix limit: max-prefixes and max-prefixes-warning.
//
// max-prefixes counts per address family, as GoBGP's prefix-limit (one
// PrefixLimit per AfiSafi), FRR's maximum-prefix and BIRD's import limit
// do: a peer with families ipv4-unicast and ipv6-unicast may send up to
// max-prefixes of each. What is counted is what the peer sent and still
// holds (its Adj-RIB-In), before import policy. One more closes the session
// with a Cease NOTIFICATION, subcode 1 (Maximum Number of Prefixes Reached,
// RFC 4486); the peer is tried again after GoBGP's idle hold. A
// change applies in place to a static peer (GoBGP's UpdatePeer takes a
// prefix limit without a session reset, and a peer now over its new limit
// is closed at once); a dynamic range is re-added with it (GoBGP cannot
// change its accepted sessions' limits), which resets the range's sessions.

// decodeMin1 decodes an integer key whose values are 1..max (0 is refused:
// leave the key out instead).
func decodeMin1[T ~uint8 | ~uint32](t *table, key string, max int64, to *T) {
	if n, ok := t.integer(key, 1, max); ok {
		*to = T(n)
	}
}

// validatePrefixLimit checks that max-prefixes-warning comes with
// max-prefixes (decoding checked their ranges).
func validatePrefixLimit(p *problems, pr *Peer) {
	if pr.MaxPrefixesWarning != 0 && pr.MaxPrefixes == 0 && !pr.m.isBad("max-prefixes") {
		p.errorf(pr.LineOf("max-prefixes-warning"), "max-prefixes-warning: %d%% of what? set max-prefixes too (the limit it warns before)", pr.MaxPrefixesWarning)
	}
}

// prefixLimitFields are the PeerChange fields of the prefix limit.
var prefixLimitFields = []string{"max-prefixes", "max-prefixes-warning"}
