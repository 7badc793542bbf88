package tcpao

// SNETracker computes the Sequence Number Extension (RFC 5925 §6.2) of the
// segments of one direction of a connection: the high 32 bits of a 64-bit
// sequence number whose low 32 bits are the TCP sequence number and which
// starts at the ISN with SNE 0. The SNE goes up by one each time the
// sequence number wraps past 2^32-1.
//
// The tracker remembers the highest sequence number seen (in 64 bits) and
// gives any sequence number the extension that puts it nearest to it:
// within 2^31 before it (a retransmission or a segment reordered from
// before a wrap, which keeps the old SNE) or after it (which may carry the
// new one). That is the rule of RFC 5925 §6.2 — a segment from before the
// rollover that arrives after it still gets the pre-increment SNE — without
// its pseudo-code's flag, whose constants (0x7fff) are too small for 32-bit
// sequence numbers; Linux computes it the same way. A TCP window is at most
// 2^30 bytes, so live segments are never 2^31 away from the highest.
//
// The zero SNETracker starts at sequence number 0; use NewSNETracker with
// the direction's ISN (the SYN's sequence number).
type SNETracker struct {
	seq uint32 // the highest sequence number seen
	sne uint32 // its extension
}

// NewSNETracker returns a tracker for the direction whose ISN is isn.
func NewSNETracker(isn uint32) SNETracker { return SNETracker{seq: isn} }

// SNE returns the extension of sequence number seq, without changing the
// tracker (to check a segment's MAC before Observe accepts it).
func (t *SNETracker) SNE(seq uint32) uint32 {
	sne, _ := t.lookup(seq)
	return sne
}

// Observe returns the extension of seq and, when seq is after the highest
// sequence number seen, makes it the highest. Feed it the sequence numbers
// of verified segments only, so that forged ones cannot move it.
func (t *SNETracker) Observe(seq uint32) uint32 {
	sne, after := t.lookup(seq)
	if after {
		t.seq, t.sne = seq, sne
	}
	return sne
}

// Highest returns the highest sequence number seen, extended to 64 bits.
func (t *SNETracker) Highest() uint64 { return uint64(t.sne)<<32 | uint64(t.seq) }

// lookup returns the extension of seq and whether seq is after the
// highest sequence number (in TCP's modulo 2^32 order).
func (t *SNETracker) lookup(seq uint32) (sne uint32, after bool) {
	if int32(seq-t.seq) >= 0 { // at or after the highest
		if seq < t.seq { // and across a wrap
			return t.sne + 1, true
		}
		return t.sne, seq != t.seq
	}
	if seq > t.seq { // before the highest, from before a wrap
		return t.sne - 1, false
	}
	return t.sne, false
}
