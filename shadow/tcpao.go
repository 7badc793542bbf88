package shadow

import (
	"encoding/binary"
	"net/netip"
	"time"

	"github.com/authbgp/authbgpd/tcpao"
	"github.com/authbgp/authbgpd/tcpopt"
)

// TCP-AO (RFC 5925) in the checker. A TCP-AO MAC is keyed by traffic keys
// derived from the connection's two ISNs, so the checker follows each
// connection of a TCP-AO peer from its handshake: the SYN gives the
// initiator's ISN (and with it the initiator's SYN traffic key), the
// SYN-ACK the responder's (and the traffic keys of every other segment,
// both ways). The keys are derived and prepared once per connection and
// master key (tcpao.TrafficKey, allocation-free afterwards); each
// direction has its tcpao.SNETracker for the sequence number extension. A
// segment of a connection whose handshake was not seen cannot be checked:
// no_handshake.
//
// This file is the adapter between the checker and package tcpao: it uses
// tcpao.DeriveTrafficKey and tcpao.NewTrafficKey rather than
// MasterKey.Keys, because a bad MAC is also tried with the master key's
// include-tcp-options flipped (the options-mismatch diagnosis) and the two
// prepared keys share one derivation.

// Directions of a connection's segments, seen from our end.
const (
	dirRecv = 0 // from the peer to us
	dirSent = 1 // ours, to the peer
)

// maxAOConns bounds the connections followed per remote address: the
// session's and the reconnection attempts of a while. The one heard from
// least recently gives way (evictable). A peer may retransmit its last
// data and FIN into a closed connection for ~30 s (when our closed socket
// drops them); in the TCP-AO soak 9-10 newer connections of the same
// address (refused ones, flaps, restarts) came within such a tail, and
// with 8 records the tail's last segments read no-handshake, in about
// half of the soak's runs. Each record holds the traffic keys of the
// peer's MKTs, so the bound is also what a flood from the peer's address
// can make the checker keep.
const maxAOConns = 16

// maxKeyIDPairs bounds the (KeyID, RNextKeyID) pairs counted per remote
// address (they come off the wire).
const maxKeyIDPairs = 16

// KeyIDCount is one TCP-AO (KeyID, RNextKeyID) pair a peer sent, and how
// many received segments carried it.
type KeyIDCount struct {
	KeyID, RNextKeyID uint8
	Segments          uint64
}

// aoConn is one connection of a peer's address, as far as its handshake
// was seen.
type aoConn struct {
	local      netip.AddrPort
	remotePort uint16
	init       int       // the direction of the SYN (dirRecv: the peer dialed)
	isn        [2]uint32 // by direction
	known      [2]bool   // isn[d] was seen
	ao         bool      // the handshake carried TCP-AO: keys are derived
	sne        [2]tcpao.SNETracker
	keys       []aoTraffic // by index of the peer's Keys; nil until derived
	gen        uint64      // the Checker's peers generation keys were derived for
	last       time.Time
	closed     bool // a FIN or RST was seen: the connection is ending
	// ph are the MAC pseudo-headers of the two directions' segments, by
	// direction, prepared once from the connection's ends (a pair of
	// mixed families leaves the zero PseudoHeader, with which
	// VerifyPrepared fails: malformed, as from VerifyParsed).
	ph [2]tcpao.PseudoHeader
}

// aoTraffic are the prepared traffic keys of one master key on one
// connection, each as configured ([0]) and with include-tcp-options
// flipped ([1]). syn is the initiator's SYN key; other the keys of every
// other segment, by direction.
type aoTraffic struct {
	syn   [2]*tcpao.TrafficKey
	other [2][2]*tcpao.TrafficKey
	bad   bool // derivation failed (secret length, FIPS 140-only HMAC-SHA-1)
}

// tcpaoDir is d as package tcpao names it.
func tcpaoDir(d int) tcpao.Direction {
	if d == dirSent {
		return tcpao.Send
	}
	return tcpao.Receive
}

// prepareAO derives one traffic key of k for ctx and prepares it twice
// (options as configured, and flipped). The derived bytes are wiped.
func prepareAO(k *Key, ctx tcpao.Context) ([2]*tcpao.TrafficKey, bool) {
	var out [2]*tcpao.TrafficKey
	raw, err := tcpao.DeriveTrafficKey(k.Alg, k.Secret, ctx)
	if err != nil {
		return out, false
	}
	defer clear(raw)
	for i, inc := range [2]bool{k.IncludeOptions, !k.IncludeOptions} {
		if out[i], err = tcpao.NewTrafficKeyMACLen(k.Alg, raw, k.MACLength(), inc); err != nil {
			return [2]*tcpao.TrafficKey{}, false
		}
	}
	return out, true
}

// deriveAO prepares the traffic keys of every master key of p that what
// the connection's handshake showed allows, and are not prepared yet for
// the current peers (a reload makes them again).
func (c *Checker) deriveAO(cn *aoConn, p *Peer, remote netip.Addr) {
	if cn.gen != c.gen || len(cn.keys) != len(p.Keys) {
		cn.keys, cn.gen = make([]aoTraffic, len(p.Keys)), c.gen
	}
	conn := tcpao.Connection{Local: cn.local, Remote: netip.AddrPortFrom(remote, cn.remotePort), LocalISN: cn.isn[dirSent], RemoteISN: cn.isn[dirRecv]}
	both := cn.known[dirRecv] && cn.known[dirSent]
	for i := range p.Keys {
		k, t := &p.Keys[i], &cn.keys[i]
		if t.bad {
			continue
		}
		ok := true
		if cn.known[cn.init] && t.syn[0] == nil {
			t.syn, ok = prepareAO(k, conn.Context(tcpaoDir(cn.init), true))
		}
		if ok && both && t.other[dirRecv][0] == nil {
			t.other[dirRecv], ok = prepareAO(k, conn.Context(tcpao.Receive, false))
			if ok {
				t.other[dirSent], ok = prepareAO(k, conn.Context(tcpao.Send, false))
			}
		}
		if !ok {
			*t = aoTraffic{bad: true}
		}
	}
}

// findConn returns st's connection with local end local and the peer's
// port remotePort, or nil.
func (st *addrState) findConn(local netip.AddrPort, remotePort uint16) *aoConn {
	if n := st.aoLast; n < len(st.ao) {
		if cn := st.ao[n]; cn.remotePort == remotePort && cn.local == local {
			return cn
		}
	}
	for i, cn := range st.ao {
		if cn.remotePort == remotePort && cn.local == local {
			st.aoLast = i
			return cn
		}
	}
	return nil
}

// newConn returns a fresh connection record for the ends, replacing the
// one of the same ends, or the least recently heard from when maxAOConns
// are followed.
func (st *addrState) newConn(old *aoConn, local netip.AddrPort, remotePort uint16, t time.Time) *aoConn {
	cn := old
	if cn == nil && len(st.ao) < maxAOConns {
		cn = &aoConn{}
		st.ao = append(st.ao, cn)
		st.aoLast = len(st.ao) - 1
	}
	if cn == nil {
		i := st.evictable()
		cn, st.aoLast = st.ao[i], i
	}
	// st is the remote address's state (its Address, as CheckHeld
	// attributes the segment); local is our end, both unmapped.
	remote := st.rep.Address
	*cn = aoConn{local: local, remotePort: remotePort, last: t}
	cn.ph[dirRecv], _ = tcpao.NewPseudoHeader(remote, local.Addr())
	cn.ph[dirSent], _ = tcpao.NewPseudoHeader(local.Addr(), remote)
	return cn
}

// evictable is the index of the connection record to reuse when
// maxAOConns are followed: never the established session's (SetSession);
// first the least recently heard from of those that cannot or no longer
// matter, in this order: half-open without TCP-AO (a SYN we never answered:
// an unsigned or TCP-MD5 flood from the peer's address), connections that
// are ending (FIN or RST seen: GoBGP refusing a connection, old sessions),
// half-open with TCP-AO, and only then live ones. Without this, SYNs from
// the peer's address or a burst of refused connections would push the
// live session's ISNs out and leave its segments unverifiable
// (no-handshake).
func (st *addrState) evictable() int {
	rank := func(x *aoConn) int {
		half := !(x.known[0] && x.known[1])
		switch {
		case half && !x.ao:
			return 0
		case x.closed:
			return 1
		case half:
			return 2
		}
		return 3
	}
	best := -1
	for i, x := range st.ao {
		if st.conn != 0 && x.remotePort == st.conn {
			continue
		}
		if best < 0 {
			best = i
			continue
		}
		b := st.ao[best]
		if rx, rb := rank(x), rank(b); rx < rb || rx == rb && x.last.Before(b.last) {
			best = i
		}
	}
	if best < 0 { // only the session's (maxAOConns 1)
		best = 0
	}
	return best
}

// handshake records what a SYN (synack false) or a SYN-ACK going in
// direction dir says of its connection (cn: the record of its ends, or
// nil) and returns the connection's record. A retransmission changes
// nothing; a SYN or SYN-ACK with other ISNs is a new connection on the
// same ends. Traffic keys are derived when the handshake carries TCP-AO.
func (c *Checker) handshake(st *addrState, p *Peer, cn *aoConn, remote netip.Addr, local netip.AddrPort, remotePort uint16,
	dir int, synack bool, seq, ack uint32, hasAO bool, t time.Time) *aoConn {
	if !synack {
		if cn != nil && cn.init == dir && cn.known[dir] && cn.isn[dir] == seq && (cn.ao || !hasAO) {
			return cn // a retransmitted SYN
		}
		cn = st.newConn(cn, local, remotePort, t)
		cn.init, cn.isn[dir], cn.known[dir], cn.ao = dir, seq, true, hasAO
		cn.sne[dir] = tcpao.NewSNETracker(seq)
	} else {
		o := 1 - dir // the initiator
		switch {
		case cn != nil && cn.init == o && cn.known[o] && cn.isn[o] == ack-1 && cn.known[dir] && cn.isn[dir] == seq && (cn.ao || !hasAO):
			return cn // a retransmitted SYN-ACK
		case cn != nil && cn.init == o && cn.known[o] && cn.isn[o] == ack-1:
			// The answer to the SYN seen.
		default:
			// The SYN was not seen (or was for an older connection): the
			// SYN-ACK has both ISNs.
			cn = st.newConn(cn, local, remotePort, t)
			cn.init, cn.isn[o], cn.known[o] = o, ack-1, true
			cn.sne[o] = tcpao.NewSNETracker(ack - 1)
		}
		cn.isn[dir], cn.known[dir] = seq, true
		cn.sne[dir] = tcpao.NewSNETracker(seq)
		cn.ao = cn.ao || hasAO
		for i := range cn.keys { // made again with this ISN
			cn.keys[i].other = [2][2]*tcpao.TrafficKey{}
		}
	}
	if cn.ao {
		c.deriveAO(cn, p, remote)
	}
	return cn
}

// countKeyIDs counts a received segment's (KeyID, RNextKeyID) pair.
func (st *addrState) countKeyIDs(id, rnext uint8) {
	l := st.rep.KeyIDs
	for i := range l {
		if l[i].KeyID == id && l[i].RNextKeyID == rnext {
			l[i].Segments++
			return
		}
	}
	if len(l) >= maxKeyIDPairs {
		return
	}
	if l == nil {
		l = make([]KeyIDCount, 0, maxKeyIDPairs)
	}
	st.rep.KeyIDs = append(l, KeyIDCount{KeyID: id, RNextKeyID: rnext, Segments: 1})
}

// aoKeyIndex is the index in p.Keys of the master key whose RecvID (a
// received segment) or SendID (ours: outgoing) is keyID, or -1.
func aoKeyIndex(p *Peer, keyID uint8, outgoing bool) int {
	for i := range p.Keys {
		id := p.Keys[i].RecvID
		if outgoing {
			id = p.Keys[i].SendID
		}
		if id == keyID {
			return i
		}
	}
	return -1
}

// checkAO classifies a segment of TCP-AO peer p (state st) into r: the
// handshake is followed first, then the segment's TCP-AO option is checked
// with the master key whose RecvID (a received segment) or SendID (ours)
// is its KeyID. A MAC that fails is tried again with that key's
// include-tcp-options flipped: if that verifies, the verdict is still
// BadMAC, with Flipped set (options-mismatch). A MAC field of another
// length than the key's mac-length is BadMAC with MACLenMismatch set
// (mac-length-mismatch), not checked further.
func (c *Checker) checkAO(p *Peer, st *addrState, r *Result, src, dst netip.Addr, srcPort, dstPort uint16, segment []byte, t time.Time) {
	r.AO = true
	// The one walk of the options (tcpopt's rules): VerifyParsed takes
	// its result rather than walking them again.
	opts, hl, err := tcpopt.ParseSegment(segment)
	if err != nil {
		// Unparsable options, or both TCP-MD5 and TCP-AO (RFC 5925 §7.7:
		// discarded): nothing to verify.
		r.Verdict = Malformed
		return
	}
	dir, local, remote, remotePort := dirRecv, netip.AddrPortFrom(dst, dstPort), src, srcPort
	if r.Outgoing {
		dir, local, remote, remotePort = dirSent, netip.AddrPortFrom(src, srcPort), dst, dstPort
	}
	if opts.HasAO() {
		r.AOKeyID, r.RNextKeyID = opts.AOKeyIDs(segment[tcpopt.FixedHeaderLen:hl])
		if !r.Outgoing {
			st.countKeyIDs(r.AOKeyID, r.RNextKeyID)
		}
	}
	// Then the connection's handshake, the master key of the segment's
	// KeyID, and its MAC, in this one function: split, it cost up to 3.3%
	// more (docs/PERFORMANCE-shadow.md, "CheckHeld and checkAO stay whole").
	be := binary.BigEndian
	seq, flags := be.Uint32(segment[4:8]), segment[13]
	cn := st.findConn(local, remotePort)
	if flags&0x02 != 0 { // SYN or SYN-ACK
		cn = c.handshake(st, p, cn, remote, local, remotePort, dir, flags&0x10 != 0, seq, be.Uint32(segment[8:12]), opts.HasAO(), t)
	}
	ending := flags&0x05 != 0 // FIN, RST
	if cn != nil {
		cn.last = t
		// A TCP-AO connection ends only on a FIN or RST whose MAC
		// verifies (below): a forged one, which the kernel drops, must
		// not make the live session the first record to give way.
		if ending && (!cn.ao || len(p.Keys) == 0) {
			cn.closed = true
		}
	}
	if len(p.Keys) == 0 { // a TCP-AO keychain the config does not have
		if opts.HasAO() && !r.Outgoing {
			r.Verdict = Unexpected
		}
		return
	}
	if !opts.HasAO() {
		r.Verdict = Missing
		r.WrongMech = opts.HasMD5() && !r.Outgoing
		return
	}
	idx := aoKeyIndex(p, r.AOKeyID, r.Outgoing)
	if idx < 0 {
		r.Verdict = UnknownKey
		return
	}
	if cn == nil || !cn.ao {
		r.Verdict = NoHandshake
		return
	}
	if cn.gen != c.gen || cn.keys == nil {
		c.deriveAO(cn, p, remote) // after a reload
	}
	tk := &cn.keys[idx]
	if tk.bad {
		r.Verdict = Malformed
		return
	}
	keys := &tk.other[dir]
	if flags&0x12 == 0x02 { // a SYN: the initiator's SYN key
		keys = &noKeys
		if cn.init == dir {
			keys = &tk.syn
		}
	}
	key := keys[0]
	if key == nil {
		r.Verdict = NoHandshake
		return
	}
	if opts.AOLen(segment[tcpopt.FixedHeaderLen:hl])-tcpopt.AOMinLen != key.MACLen() {
		// The kernel drops it unchecked (tcp_ao_wrong_maclen, TCPAOBad).
		r.Verdict, r.MACLenMismatch = BadMAC, true
		return
	}
	sne := cn.sne[dir].SNE(seq)
	ok, err := key.VerifyPrepared(sne, &cn.ph[dir], segment, opts, hl)
	switch {
	case err != nil:
		r.Verdict = Malformed
	case ok:
		r.Verdict, r.KeyID = Valid, p.Keys[idx].ID
		cn.sne[dir].Observe(seq)
		cn.closed = cn.closed || ending
	default:
		r.Verdict = BadMAC
		r.Flipped, _ = keys[1].VerifyPrepared(sne, &cn.ph[dir], segment, opts, hl)
	}
}

// noKeys are the traffic keys of a SYN in the direction that did not
// initiate the connection: none.
var noKeys [2]*tcpao.TrafficKey
