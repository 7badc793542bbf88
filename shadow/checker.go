package shadow

import (
	"encoding/binary"
	"net/netip"
	"sync"
	"time"

	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/peerindex"
	"github.com/authbgp/authbgpd/tcpao"
	"github.com/authbgp/authbgpd/tcpopt"
)

// Checker classifies segments. It is safe for concurrent use; the capture
// loop calls Check, status readers call Reports.
type Checker struct {
	opts Options
	mu   sync.Mutex
	d    *md5auth.Digester
	// peers are the peers SetPeers gave (the checker's copies), owners
	// their owner index (lookup).
	peers  []*Peer
	owners *peerindex.Owners
	state  map[netip.Addr]*addrState
	// retired holds, per peer ID, the keys SetPeers replaced less than
	// opts.RetiredFor ago, newest last (see offSession).
	retired map[string][]retiredKey
	// pins are the key ids Pin was told, by peer ID: SetPeers gives them
	// to its peers (a peer the checker has not been given yet included:
	// the peers manager installs a new peer's key before the reload
	// reaches the checker), and forgets those of peers it was not given.
	pins   map[string]int
	events []func()
	// A one-entry cache of the last remote address: segments come in
	// bursts from one session, and two map lookups cost as much as
	// digesting a keepalive.
	lastAddr  netip.Addr
	lastLocal netip.Addr // an address known not to be a peer's (ours)
	lastPeer  *Peer
	lastSt    *addrState
	// gen counts SetPeers calls: TCP-AO traffic keys derived for an older
	// generation are derived again from the new keys.
	gen uint64
}

// addrState is the diagnosis state of one remote address.
type addrState struct {
	rep     PeerReport
	diag    diagCode // rep.Diagnosis as observe set it (0: not yet)
	cand    diagCode // candidate diagnosis
	candKey int
	run     int // consecutive segments supporting cand
	// runs are the same per connection (the peer's port): segments of
	// other connections from the address (a SYN flood from it, signed or
	// not) interleave with a failing peer's, and must not keep its
	// diagnosis from ever changing.
	runs    [maxConnRuns]connRun
	runTick uint64
	lastRun uint8 // the index in runs of the last segment's connection
	rollKey int   // candidate rollover key
	rollRun int
	// steady caches isSteady (observe's steady state): observe and
	// newAddrState are the only writers of the fields it depends on,
	// and observe sets it again each time.
	steady bool
	// conn is the peer's port of the established session (SetSession);
	// connBad counts the consecutive segments on it that failed; stale is
	// set once OnStale fired for it.
	conn    uint16
	connBad int
	stale   bool
	// rx and tx are the pseudo-headers of segments from and to the
	// remote address, prepared once so that verifying a segment does no
	// address work.
	rx, tx prepared
	// ao are the TCP-AO connections followed (tcpao.go), aoLast the index
	// of the last one used.
	ao     []*aoConn
	aoLast int
}

// prepared is the pseudo-header of one direction of a remote address's
// segments and the local address it was made for: a host may reach a peer
// from several addresses, so it is made again when the local end differs.
type prepared struct {
	local netip.Addr
	ph    md5auth.PseudoHeader
}

// header returns the pseudo-header of a segment from src to dst whose local
// end is local. A pair NewPseudoHeader refuses (mixed families) leaves the
// zero PseudoHeader, with which the digest fails as CheckSignature would.
func (p *prepared) header(src, dst, local netip.Addr) *md5auth.PseudoHeader {
	if p.local != local { // (the rest inlined: one call less per segment)
		p.make(src, dst, local)
	}
	return &p.ph
}

// make prepares the pseudo-header for local.
func (p *prepared) make(src, dst, local netip.Addr) {
	p.ph, _ = md5auth.NewPseudoHeader(src, dst)
	p.local = local
}

// New returns a checker for peers.
func New(peers []Peer, o Options) *Checker {
	if o.Port == 0 {
		o.Port = 179
	}
	if o.Hysteresis <= 0 {
		o.Hysteresis = 3
	}
	if o.Rollover <= 0 {
		o.Rollover = 3
	}
	if o.IdleAfter == 0 {
		o.IdleAfter = 5 * time.Minute
	}
	if o.RetiredFor == 0 {
		o.RetiredFor = 90 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	c := &Checker{opts: o, d: md5auth.NewDigester(), state: map[netip.Addr]*addrState{}, retired: map[string][]retiredKey{}}
	c.SetPeers(peers)
	return c
}

// Check classifies one TCP segment (header, options, payload) from src to
// dst seen at time t. The peer is recognised by address (see attribute):
// a segment from a peer's address is received, one to it is ours.
//
// Interfaces: a link-local address that carries a zone (an IPv6 zone,
// netip.Addr.WithZone) was seen on the interface the zone names, and is
// the peer's end. An interface peer owns every link-local address zoned
// with its interface; a link-local address zoned with an interface that
// has no interface peer is looked up by address as any other (and never
// given to the peer of another interface): peerindex.Owners.Lookup. The
// zone is part of the address's identity: fe80::2%eth1 and fe80::2%eth2
// have their own state, connections and reports. A caller that knows a segment's direction
// zones the remote end only (LinkLocalZone); one that does not may zone
// both ends, and then a segment between two link-local addresses of one
// interface peer is not attributed (which end is ours is unknown).
func (c *Checker) Check(src, dst netip.Addr, srcPort, dstPort uint16, segment []byte, t time.Time) Result {
	if srcPort != c.opts.Port && dstPort != c.opts.Port {
		return Result{}
	}
	c.Begin()
	r := c.CheckHeld(src, dst, srcPort, dstPort, segment, t)
	c.End()
	return r
}

// Begin takes the checker's lock for a batch of CheckHeld calls (the
// frames of one capture ring block), so the per-segment path pays for no
// lock; End releases it. Callbacks due to the batch run in End, outside
// the lock.
func (c *Checker) Begin() { c.mu.Lock() }

// CheckHeld is Check between Begin and End. It does the checking itself,
// not through helpers: split, it cost up to 2.7% more per segment
// (docs/PERFORMANCE-shadow.md, "CheckHeld and checkAO stay whole").
func (c *Checker) CheckHeld(src, dst netip.Addr, srcPort, dstPort uint16, segment []byte, t time.Time) (r Result) {
	if srcPort != c.opts.Port && dstPort != c.opts.Port {
		return r
	}
	src, dst = src.Unmap(), dst.Unmap()
	// The one-entry cache of the last remote address answers most
	// segments without a map lookup.
	// (A hit also gives the address's state, cached with the peer.)
	p, remote, outgoing, st := c.lastPeer, src, false, c.lastSt
	switch {
	case p != nil && src == c.lastAddr:
	case p != nil && dst == c.lastAddr && src == c.lastLocal:
		remote, outgoing = dst, true
	default:
		st = nil
		if p, remote, outgoing = c.attribute(src, dst, srcPort, dstPort); p == nil {
			return r
		}
		if outgoing {
			c.lastLocal = src
		}
	}
	r.Outgoing, r.PeerID, r.KeyID = outgoing, p.ID, -1
	act := -1
	if p.TCPAO {
		if st == nil {
			st = c.stateOf(remote, p)
		}
		// checkAO's common segment, here: not a SYN, carrying TCP-AO,
		// on the last connection used, whose traffic key of the
		// segment's KeyID is derived for the current peers and has the
		// option's MAC length. Everything else (and the handshakes)
		// goes through checkAO.
		opts, hl, known := tcpopt.RecognisedAO(segment)
		var err error
		if !known {
			opts, hl, err = tcpopt.ParseSegment(segment)
		}
		dir, lAddr, lPort, rPort := dirRecv, dst, dstPort, srcPort
		if outgoing {
			dir, lAddr, lPort, rPort = dirSent, src, srcPort, dstPort
		}
		var cn *aoConn
		var key *tcpao.TrafficKey
		idx := -1
		if err == nil && opts.HasAO() && segment[13]&0x02 == 0 && len(p.Keys) > 0 && st.aoLast < len(st.ao) {
			cn = st.ao[st.aoLast]
			if cn.remotePort == rPort && cn.local.Port() == lPort && cn.local.Addr() == lAddr && cn.ao && cn.gen == c.gen && cn.keys != nil {
				list := segment[tcpopt.FixedHeaderLen:hl]
				r.AOKeyID, r.RNextKeyID = opts.AOKeyIDs(list)
				if idx = aoKeyIndex(p, r.AOKeyID, outgoing); idx >= 0 && idx < len(cn.keys) && !cn.keys[idx].bad {
					if key = cn.keys[idx].other[dir][0]; key != nil && opts.AOLen(list)-tcpopt.AOMinLen != key.MACLen() {
						key = nil
					}
				}
			}
		}
		if key == nil {
			r.AOKeyID, r.RNextKeyID = 0, 0
			c.checkAO(p, st, &r, src, dst, srcPort, dstPort, segment, t)
			if r.Verdict == Malformed {
				return r
			}
		} else {
			r.AO = true
			if !outgoing {
				st.countKeyIDs(r.AOKeyID, r.RNextKeyID)
			}
			cn.last = t
			seq := binary.BigEndian.Uint32(segment[4:8])
			sne := cn.sne[dir].SNE(seq)
			ok, err := key.VerifyPrepared(sne, &cn.ph[dir], segment, opts, hl)
			switch {
			case err != nil:
				r.Verdict = Malformed
				return r
			case ok:
				r.Verdict, r.KeyID = Valid, p.Keys[idx].ID
				cn.sne[dir].Observe(seq)
				cn.closed = cn.closed || segment[13]&0x05 != 0 // a FIN or RST that verifies
			default:
				r.Verdict = BadMAC
				r.Flipped, _ = cn.keys[idx].other[dir][1].VerifyPrepared(sne, &cn.ph[dir], segment, opts, hl)
			}
		}
	} else {
		// One walk of the options, by tcpopt's rules (the TCP-AO
		// checker's too): a malformed list, or TCP-MD5 with TCP-AO.
		// Linux's TCP-MD5 list is answered inline.
		// (Its signature is segment[24:40], what Signature finds in the
		// list RecognisedMD5 answers: no slicing of the list.)
		opts, hl, known := tcpopt.RecognisedMD5(segment)
		var sig []byte
		if known {
			sig = segment[24:40:40]
		} else {
			var err error
			if opts, hl, err = tcpopt.ParseSegment(segment); err != nil {
				r.Verdict = Malformed
				return r
			}
			sig = opts.Signature(segment[20:hl])
		}
		// An unsigned segment may carry TCP-AO: to a peer without keys
		// it is unexpected, to a TCP-MD5 peer the wrong mechanism.
		if sig == nil && !opts.HasAO() && len(p.Keys) == 0 {
			// Ignored: nothing to check, and no state made for it.
			// Decided here, before stateOf, whose prepared
			// pseudo-headers classify needs.
			return r
		}
		if st == nil {
			st = c.stateOf(remote, p)
		}
		switch {
		case opts.HasAO():
			keyID, rnext := opts.AOKeyIDs(segment[20:hl])
			aoOnMD5Peer(p, st, &r, keyID, rnext)
		default:
			var ph *md5auth.PseudoHeader
			if outgoing {
				ph = st.tx.header(src, dst, src)
			} else {
				ph = st.rx.header(src, dst, dst)
			}
			act = p.active(t)
			// The active key first, here: on the per-segment path a
			// call to classify costs more than its test.
			if act >= 0 && sig != nil && c.d.VerifyPrepared(ph, segment, hl, sig, p.Keys[act].Secret) {
				r.Verdict, r.KeyID = Valid, p.Keys[act].ID
			} else {
				r.Verdict, r.KeyID, r.Other = c.classify(p, ph, segment, sig, act)
			}
		}
	}
	if c.opts.OnSegment != nil {
		c.opts.OnSegment(p.ID, r)
	}
	if outgoing {
		c.count(st, &r)
		return r
	}
	st.rep.Last = t
	if st.conn != 0 && c.offSession(p, st, remote, srcPort, segment, &r) {
		return r
	}
	if r.Verdict == Valid { // count's common case, inlined
		st.rep.Received.Valid++
		if st.steady {
			// observe's steady state, inlined: ok diagnosed and
			// supported, no rollover pending (isSteady, cached).
			// Only the runs grow.
			// And connRunOf's common case: the last segment's
			// connection, ok.
			st.run++
			st.runTick++
			if s := &st.runs[st.lastRun%maxConnRuns]; s.used != 0 && s.port == srcPort && s.diag == dcOK && s.key == -1 {
				s.run++
				s.used = st.runTick
			} else {
				st.connRunTicked(srcPort, dcOK, -1)
			}
			return r
		}
	} else {
		c.count(st, &r)
	}
	if diag, key, ok := diagnosis(&r); ok {
		c.observe(p, st, diag, key, act, srcPort)
	}
	return r
}

// aoOnMD5Peer classifies a TCP-AO segment of a peer configured without
// TCP-AO: unexpected when it has no key at all, the wrong mechanism (a
// missing TCP-MD5 signature) when it has a TCP-MD5 key.
func aoOnMD5Peer(p *Peer, st *addrState, r *Result, keyID, rnextKeyID uint8) {
	r.AOKeyID, r.RNextKeyID = keyID, rnextKeyID
	if !r.Outgoing {
		st.countKeyIDs(keyID, rnextKeyID)
	}
	if len(p.Keys) == 0 {
		r.Verdict, r.AO = Unexpected, true
	} else {
		r.Verdict, r.WrongMech = Missing, !r.Outgoing
	}
}

// End ends a batch begun with Begin.
func (c *Checker) End() {
	ev := c.events
	if len(ev) > 0 {
		c.events = nil
	}
	c.mu.Unlock()
	for _, f := range ev {
		f()
	}
}

// attribute decides which end of a segment is the peer. A configured
// address is never ours, so an exact peer wins over a dynamic range. When
// both ends fall in ranges (our own address usually lies in the range we
// accept neighbors from), the end on the BGP port is ours: range peers are
// passive, we never dial them, so in such a session only our side listens.
// Otherwise src is the peer when it is one.
func (c *Checker) attribute(src, dst netip.Addr, srcPort, dstPort uint16) (p *Peer, remote netip.Addr, outgoing bool) {
	ps := c.lookup(src)
	if ps != nil && ps.Interface != "" {
		if dst.Zone() != "" && c.lookup(dst) == ps {
			return nil, netip.Addr{}, false // both ends zoned: which is ours?
		}
		return ps, src, false
	}
	if ps != nil && ps.Prefix.IsSingleIP() {
		return ps, src, false
	}
	pd := c.lookup(dst)
	switch {
	case pd == nil:
		return ps, src, false // ps may be nil: not a peer's segment
	case ps == nil, pd.Interface != "", pd.Prefix.IsSingleIP():
		return pd, dst, true
	case srcPort == c.opts.Port && dstPort != c.opts.Port:
		return pd, dst, true
	}
	return ps, src, false
}

// classify verifies signature sig of segment (pseudo-header ph) against
// p's keys other than the active one (index act), which CheckHeld has
// tried (a valid segment never gets here). keyID is the key that verified
// (-1: none); other is set for a BadDigest that another key of p verified.
// CheckHeld has already set aside the unsigned segments of unkeyed peers
// (Ignored).
func (c *Checker) classify(p *Peer, ph *md5auth.PseudoHeader, segment, sig []byte, act int) (v Verdict, keyID int, other bool) {
	switch {
	case sig == nil:
		return Missing, -1, false
	case len(p.Keys) == 0:
		return Unexpected, -1, false
	}
	for i := range p.Keys {
		if i != act && c.verify(ph, segment, sig, p.Keys[i].Secret) {
			return BadDigest, p.Keys[i].ID, true
		}
	}
	return BadDigest, -1, false
}

// stateOf returns the state of remote (peer p), created on first sight,
// and makes it the cached last one.
func (c *Checker) stateOf(remote netip.Addr, p *Peer) *addrState {
	st := c.lastSt
	if remote != c.lastAddr || st == nil {
		st = c.state[remote]
		if st == nil {
			st = newAddrState(remote, p)
			c.state[remote] = st
		}
		c.lastAddr, c.lastPeer, c.lastSt = remote, p, st
	}
	return st
}

// newAddrState is the state of remote, an address of peer p, before its
// first segment.
func newAddrState(remote netip.Addr, p *Peer) *addrState {
	return &addrState{rep: PeerReport{Address: remote, PeerID: p.ID, Interface: p.Interface, VRF: p.VRF, TCPAO: p.TCPAO, Diagnosis: DiagNoTraffic}, rollKey: -1}
}

// isSteady reports observe's steady state: ok diagnosed and supported, no
// rollover pending, so that a valid segment only makes the runs grow.
// st.steady caches it.
func (st *addrState) isSteady() bool {
	return st.diag == dcOK && st.cand == dcOK && st.candKey == -1 && st.rep.PeerKeyID == nil &&
		st.rollKey == -1 && st.rollRun == 0 && st.rep.ProvenKeyID == nil
}

// isSYN reports a SYN without ACK (a new connection attempt).
func isSYN(segment []byte) bool {
	return len(segment) > 13 && segment[13]&0x12 == 0x02
}

func (c *Checker) verify(ph *md5auth.PseudoHeader, segment, sig, secret []byte) bool {
	v, err := c.d.CheckSignaturePrepared(ph, segment, sig, secret)
	return err == nil && v == md5auth.Valid
}

// Remote returns the address a segment from src to dst belongs to, as
// Check would attribute it (the peer's end), and false when it is not a
// BGP segment of a configured peer. It changes no state.
func (c *Checker) Remote(src, dst netip.Addr, srcPort, dstPort uint16) (netip.Addr, bool) {
	if srcPort != c.opts.Port && dstPort != c.opts.Port {
		return netip.Addr{}, false
	}
	c.mu.Lock()
	p, remote, _ := c.attribute(src.Unmap(), dst.Unmap(), srcPort, dstPort)
	c.mu.Unlock()
	return remote, p != nil
}
