package shadow

import (
	"fmt"
	"net/netip"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/authbgp/authbgpd/keys"
	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/tcpao"
	"github.com/authbgp/authbgpd/tcpopt"
)

// Verdict classifies one segment.
type Verdict uint8

const (
	// Ignored: not a BGP segment of a configured peer, or an unsigned
	// segment of a peer without a key (nothing to check).
	Ignored Verdict = iota
	Valid
	BadDigest
	Missing
	Unexpected
	// Malformed: options or headers could not be parsed (or carry both
	// TCP-MD5 and TCP-AO).
	Malformed
	// BadMAC (TCP-AO): our key of the segment's KeyID gives another MAC.
	BadMAC
	// UnknownKey (TCP-AO): the KeyID is none of the peer's keys' (RecvID
	// for a received segment, SendID for ours).
	UnknownKey
	// NoHandshake (TCP-AO): the connection's handshake was not seen (it
	// began before the capture), so its traffic keys are unknown.
	NoHandshake
)

var verdictNames = [...]string{"ignored", "valid", "bad_digest", "missing", "unexpected", "malformed", "bad_mac", "unknown_key", "no_handshake"}

func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return fmt.Sprintf("verdict(%d)", uint8(v))
}

// Diagnoses, as /status shows them.
const (
	DiagOK         = "ok"
	DiagBadDigest  = "bad-digest"
	DiagMissing    = "missing"
	DiagUnexpected = "unexpected"
	DiagOtherKey   = "other-key"
	DiagNoTraffic  = "no-traffic"
	// TCP-AO.
	DiagBadMAC          = "bad-mac"             // the peer's MACs are not our key's
	DiagUnknownKey      = "unknown-key"         // the peer sends a KeyID we hold no key for (PeerKeyID)
	DiagOptionsMismatch = "options-mismatch"    // the MACs verify with include-tcp-options flipped
	DiagMACLenMismatch  = "mac-length-mismatch" // the MAC fields are not our key's mac-length
	DiagWrongMechanism  = "wrong-mechanism"     // TCP-MD5 where TCP-AO is configured, or the reverse
	DiagNoHandshake     = "no-handshake"        // the connection began before the capture
)

// Key is one TCP-MD5 key, or one TCP-AO master key tuple (Peer.TCPAO), a
// peer may use.
type Key struct {
	// ID is the keychain key id, or -1 for a single password.
	ID     int
	Secret md5auth.Secret
	// SendFrom: the key is the active one from this time on (zero: always).
	SendFrom time.Time
	// TCP-AO only: the MAC algorithm, the KeyIDs we send (SendID) and the
	// peer sends (RecvID), whether the MAC covers the TCP options, and the
	// MAC length in bytes (0: tcpao.MACLen, 12).
	Alg            tcpao.Algorithm
	SendID, RecvID uint8
	IncludeOptions bool
	MACLen         int
}

// macLen is k's MAC length (0 is the default, 12).
func (k *Key) macLen() int {
	if k.MACLen == 0 {
		return tcpao.MACLen
	}
	return k.MACLen
}

// Peer describes what the checker expects of one configured peer.
type Peer struct {
	// ID names the peer in metrics and callbacks: its address, or the
	// prefix of a dynamic range.
	ID string
	// Prefix is the peer's address as a full-length prefix, or the range.
	Prefix netip.Prefix
	// Keys are the peer's keys; empty means the peer is not keyed.
	Keys []Key
	// TCPAO: Keys are TCP-AO master key tuples (RFC 5925), all valid at
	// once: a segment is checked with the one its KeyID names.
	TCPAO bool
	// Pinned, if ≥ 0, is the key id in use regardless of time (a key
	// switched to by follow-peer-rollover).
	Pinned int

	sched keys.Schedule // Keys' ids and send-from times, index for index
	// single: sched is one key sent from the start (a password, the
	// common case), active whatever the time and the pin.
	single bool
}

// active returns the index in p.Keys of the key active at t (-1: none): the
// pinned key when it is one of p's, else the schedule's. sched mirrors Keys
// (set by SetPeers).
func (p *Peer) active(t time.Time) int {
	// One key sent from the start (a password, the common case) is active
	// whatever t and the pin: skip the schedule's walk on every segment.
	if p.single {
		return 0
	}
	return p.sched.Active(t, p.Pinned)
}

// Counts are segment verdict counters (BadMAC, UnknownKey and NoHandshake:
// TCP-AO only).
type Counts struct {
	Valid, BadDigest, Missing, Unexpected uint64
	BadMAC, UnknownKey, NoHandshake       uint64
}

// Sent counts our own outgoing segments by verdict (NoHandshake: TCP-AO
// segments of connections whose handshake was not seen).
type Sent struct {
	Valid, Invalid, Unsigned, NoHandshake uint64
}

// PeerReport is the checker's view of one remote address.
type PeerReport struct {
	Address   netip.Addr
	PeerID    string // the configured peer (address or range)
	Diagnosis string
	// PeerKeyID is the keychain key the peer is proven to sign with
	// (other-key), or the TCP-AO KeyID it sends that none of our keys
	// receives (unknown-key).
	PeerKeyID *int
	// TCPAO: the configured peer uses TCP-AO.
	TCPAO bool
	// KeyIDs are the TCP-AO (KeyID, RNextKeyID) pairs received, in the
	// order first seen (at most 16).
	KeyIDs   []KeyIDCount
	Received Counts
	Sent     Sent
	Last     time.Time // last segment seen from the peer
	// ProvenKeyID is set while the peer is proven (Options.Rollover
	// consecutive segments) to sign with a keychain key newer than our
	// active one: a standing fact, not an event, so a decision taken later
	// (follow-peer-rollover switched on by a reload) can still act on it.
	ProvenKeyID *int
	// SessionPort is the peer's port of the established session the
	// diagnosis describes (0: none known; then every segment counts).
	SessionPort uint16
	// History is the last diagnosis changes (set by Runner.Reports).
	History []Change
}

// Result is what Check says of one segment.
type Result struct {
	Verdict  Verdict
	Outgoing bool   // the segment was ours, to the peer
	PeerID   string // configured peer, "" when Ignored for not being one
	KeyID    int    // for Valid: the key id that verified (-1 password)
	Other    bool   // BadDigest where another keychain key verified (KeyID names it)
	// AO: a TCP-AO verdict (the peer is a TCP-AO peer, or an unkeyed peer
	// sent TCP-AO): counted in authbgpd_tcpao_segments_total.
	AO bool
	// Flipped: a BadMAC that verifies with the master key's
	// include-tcp-options flipped (options-mismatch).
	Flipped bool
	// MACLenMismatch: a BadMAC whose TCP-AO option has a MAC field of
	// another length than the master key's mac-length
	// (mac-length-mismatch; the kernel's tcp_ao_wrong_maclen).
	MACLenMismatch bool
	// WrongMech: a Missing segment that carries the other mechanism's
	// option (TCP-MD5 to a TCP-AO peer, TCP-AO to a TCP-MD5 peer).
	WrongMech bool
	// AOKeyID and RNextKeyID are the segment's TCP-AO KeyID and
	// RNextKeyID, when it carries the option.
	AOKeyID, RNextKeyID uint8
}

// Options tune a Checker.
type Options struct {
	// Port is the BGP port (default 179).
	Port uint16
	// Hysteresis is the number of consecutive segments needed to change a
	// diagnosis (default 3): consecutive among the address's segments, or
	// among those of one of its connections (so that a SYN flood from the
	// peer's address cannot keep a failing peer's diagnosis unchanged).
	Hysteresis int
	// Rollover is the number of consecutive valid segments under a newer
	// keychain key that prove the peer moved to it (default 3).
	Rollover int
	// IdleAfter turns the diagnosis into no-traffic when nothing came from
	// the peer for this long (default 5 minutes; 0 keeps the default,
	// negative disables).
	IdleAfter time.Duration
	// OnChange is called (outside the checker's lock) when a diagnosis
	// changes.
	OnChange func(PeerReport)
	// OnRollover is called (outside the lock) when a peer is proven to
	// sign with keychain key id newer than our active one.
	OnRollover func(peerID string, keyID int)
	// OnSegment is called under the lock for every classified segment of
	// a configured peer (metrics); it must not block.
	OnSegment func(peerID string, r Result)
	// OnStale is called (outside the lock) when the established session
	// with addr (the peer's end on port sessionPort, see SetSession) is
	// stale: its last segments from the peer failed verification and the
	// peer opened a new connection with a valid signature (a SYN verified
	// with our active key, or with a key a reload replaced less than
	// RetiredFor ago). Called once per session.
	OnStale func(peerID string, addr netip.Addr, sessionPort uint16)
	// RetiredFor is how long a key that SetPeers replaced (a reload
	// changed the peer's key) still counts as the peer's for OnStale: a
	// new connection signed with it comes from the peer, which gave its
	// session up. Without it, a peer that reconnects after we re-keyed
	// once more (its SYN now fails in our kernel and never reaches BGP)
	// keeps its stale session until it catches up or the hold timer
	// fires. Default 90 s (BGP's usual hold time); negative: never.
	RetiredFor time.Duration
	// Now is the clock SetPeers retires keys by, the segments' clock
	// (default time.Now).
	Now func() time.Time
}

// Checker classifies segments. It is safe for concurrent use; the capture
// loop calls Check, status readers call Reports.
type Checker struct {
	opts Options
	mu   sync.Mutex
	d    *md5auth.Digester
	// exact maps single peer addresses; ranges holds dynamic ranges
	// (longest prefix first).
	exact  map[netip.Addr]*Peer
	ranges []*Peer
	state  map[netip.Addr]*addrState
	// retired holds, per peer ID, the keys SetPeers replaced less than
	// opts.RetiredFor ago, newest last (see offSession).
	retired map[string][]retiredKey
	events  []func()
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

// retiredKey is a key a peer had until SetPeers replaced it at at.
type retiredKey struct {
	secret md5auth.Secret
	at     time.Time
}

// maxRetired bounds the retired keys kept per peer (a burst of reloads).
const maxRetired = 8

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
	rollKey int // candidate rollover key
	rollRun int
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

// connRun is the hysteresis run of one connection of an address.
type connRun struct {
	port uint16
	diag diagCode
	key  int
	run  int
	used uint64 // runTick when last updated: the oldest is replaced
}

// maxConnRuns bounds the connections whose runs are kept per address.
const maxConnRuns = 4

// connRunOf counts a segment of diagnosis diag (key) on the connection
// from port and returns that connection's run.
func (st *addrState) connRunOf(port uint16, diag diagCode, key int) int {
	st.runTick++
	slot := &st.runs[0]
	for i := range st.runs {
		r := &st.runs[i]
		if r.used != 0 && r.port == port {
			slot = r
			break
		}
		if r.used < slot.used {
			slot = r
		}
	}
	if slot.used == 0 || slot.port != port || slot.diag != diag || slot.key != key {
		*slot = connRun{port: port, diag: diag, key: key}
	}
	slot.run++
	slot.used = st.runTick
	return slot.run
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

// SetPeers replaces the configured peers (reload). State of addresses that
// still belong to a peer is kept. The checker keeps its own copy of the
// peers' secrets (the caller's are not retained) and wipes the copies it
// replaces.
func (c *Checker) SetPeers(peers []Peer) {
	exact := map[netip.Addr]*Peer{}
	var ranges []*Peer
	for i := range peers {
		p := peers[i]
		p.Keys = append([]Key(nil), p.Keys...)
		p.sched = make(keys.Schedule, len(p.Keys))
		for j, k := range p.Keys {
			p.Keys[j].Secret = slices.Clone(k.Secret)
			p.sched[j] = keys.Entry{ID: k.ID, SendFrom: k.SendFrom}
		}
		p.single = len(p.sched) == 1 && p.sched[0].SendFrom.IsZero()
		if p.Prefix.Bits() == p.Prefix.Addr().BitLen() {
			exact[p.Prefix.Addr()] = &p
		} else {
			ranges = append(ranges, &p)
		}
	}
	sort.SliceStable(ranges, func(i, j int) bool { return ranges[i].Prefix.Bits() > ranges[j].Prefix.Bits() })
	c.mu.Lock()
	c.retire(exact, ranges)     // copies the replaced keys it keeps
	wipeKeys(c.exact, c.ranges) // only ever read under c.mu
	c.exact, c.ranges = exact, ranges
	c.lastAddr, c.lastLocal, c.lastPeer, c.lastSt = netip.Addr{}, netip.Addr{}, nil, nil
	c.gen++
	for a, st := range c.state {
		p := c.lookup(a)
		if p == nil {
			delete(c.state, a)
			continue
		}
		st.rep.PeerID, st.rep.TCPAO = p.ID, p.TCPAO
		for _, cn := range st.ao {
			cn.keys = nil // derived from the replaced secrets
		}
	}
	c.mu.Unlock()
}

// wipeKeys wipes the secrets of the checker's peers being replaced.
func wipeKeys(exact map[netip.Addr]*Peer, ranges []*Peer) {
	for _, p := range exact {
		for _, k := range p.Keys {
			k.Secret.Wipe()
		}
	}
	for _, p := range ranges {
		for _, k := range p.Keys {
			k.Secret.Wipe()
		}
	}
}

// retire records the keys of the current peers that the next ones
// (exact, ranges) no longer have, and forgets retired keys that expired,
// came back, or belong to peers that are gone. c.mu is held.
func (c *Checker) retire(exact map[netip.Addr]*Peer, ranges []*Peer) {
	if c.opts.RetiredFor < 0 {
		return
	}
	now := c.opts.Now()
	old := map[string]*Peer{}
	for _, p := range c.exact {
		old[p.ID] = p
	}
	for _, p := range c.ranges {
		old[p.ID] = p
	}
	next := map[string]*Peer{}
	for _, p := range exact {
		next[p.ID] = p
	}
	for _, p := range ranges {
		next[p.ID] = p
	}
	retired := map[string][]retiredKey{}
	for id, np := range next {
		if np.TCPAO {
			continue // only the TCP-MD5 stale proof uses retired keys
		}
		has := func(secret md5auth.Secret) bool {
			for _, k := range np.Keys {
				if k.Secret.Equal(secret) {
					return true
				}
			}
			return false
		}
		var keep []retiredKey
		for _, rk := range c.retired[id] {
			if now.Sub(rk.at) <= c.opts.RetiredFor && !has(rk.secret) {
				keep = append(keep, rk)
			}
		}
		if op := old[id]; op != nil {
			for _, k := range op.Keys {
				if len(k.Secret) > 0 && !has(k.Secret) {
					keep = append(keep, retiredKey{secret: append(md5auth.Secret(nil), k.Secret...), at: now})
				}
			}
		}
		if len(keep) > maxRetired {
			keep = keep[len(keep)-maxRetired:]
		}
		if len(keep) > 0 {
			retired[id] = keep
		}
	}
	wipeDropped(c.retired, retired)
	c.retired = retired
}

// wipeDropped wipes the retired keys of old that next no longer keeps.
func wipeDropped(old, next map[string][]retiredKey) {
	kept := map[*byte]bool{}
	for _, rks := range next {
		for _, rk := range rks {
			kept[&rk.secret[0]] = true
		}
	}
	for _, rks := range old {
		for _, rk := range rks {
			if !kept[&rk.secret[0]] {
				rk.secret.Wipe()
			}
		}
	}
}

// retiredVerifies reports whether the received segment (pseudo-header ph)
// of peer p, seen at t, is signed with a key p had until less than
// opts.RetiredFor before t. c.mu is held.
func (c *Checker) retiredVerifies(p *Peer, ph *md5auth.PseudoHeader, segment []byte, t time.Time) bool {
	rks := c.retired[p.ID]
	if len(rks) == 0 {
		return false
	}
	sig, err := md5auth.SignatureOf(segment)
	if err != nil || sig == nil {
		return false
	}
	for i := len(rks) - 1; i >= 0; i-- {
		if t.Sub(rks[i].at) <= c.opts.RetiredFor && c.verify(ph, segment, sig, rks[i].secret) {
			return true
		}
	}
	return false
}

// Pin makes the checker treat key id as peerID's active key (after a
// follow-peer-rollover switch); -1 returns to the schedule.
func (c *Checker) Pin(peerID string, id int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.exact {
		if p.ID == peerID {
			p.Pinned = id
		}
	}
	for _, p := range c.ranges {
		if p.ID == peerID {
			p.Pinned = id
		}
	}
}

// SetSession tells the checker which connection carries the established
// BGP session with addr: the peer's end is port (0: no session). While a
// session stands, the diagnosis describes that connection's segments, and
// other connections from the peer (new SYNs) do not change it.
func (c *Checker) SetSession(addr netip.Addr, port uint16) {
	addr = addr.Unmap()
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.state[addr]
	if st == nil {
		if port == 0 {
			return
		}
		p := c.lookup(addr)
		if p == nil {
			return
		}
		st = &addrState{rep: PeerReport{Address: addr, PeerID: p.ID, TCPAO: p.TCPAO, Diagnosis: DiagNoTraffic}, rollKey: -1}
		c.state[addr] = st
	}
	if st.conn != port {
		st.conn, st.connBad, st.stale = port, 0, false
		st.rep.SessionPort = port
	}
}

func (c *Checker) lookup(a netip.Addr) *Peer {
	if p := c.exact[a]; p != nil {
		return p
	}
	for _, p := range c.ranges {
		if p.Prefix.Contains(a) {
			return p
		}
	}
	return nil
}

// Check classifies one TCP segment (header, options, payload) from src to
// dst seen at time t. The peer is recognised by address (see attribute):
// a segment from a peer's address is received, one to it is ours.
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
// not through a helper: on the per-segment path a call passing this many
// argument words (more than fit in registers) and the Result back costs
// a measurable share of a keepalive's digest.
func (c *Checker) CheckHeld(src, dst netip.Addr, srcPort, dstPort uint16, segment []byte, t time.Time) Result {
	if srcPort != c.opts.Port && dstPort != c.opts.Port {
		return Result{}
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
			return Result{}
		}
		if outgoing {
			c.lastLocal = src
		}
	}
	r := Result{Outgoing: outgoing, PeerID: p.ID, KeyID: -1}
	act := -1
	if p.TCPAO {
		if st == nil {
			st = c.stateOf(remote, p)
		}
		c.checkAO(p, st, &r, src, dst, srcPort, dstPort, segment, t)
		if r.Verdict == Malformed {
			return r
		}
	} else {
		// One walk of the options, by tcpopt's rules (the TCP-AO
		// checker's too): a malformed list, or TCP-MD5 with TCP-AO.
		opts, hl, err := tcpopt.ParseSegment(segment)
		if err != nil {
			r.Verdict = Malformed
			return r
		}
		sig := opts.Signature(segment[20:hl])
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
			if act >= 0 && sig != nil && c.verify(ph, segment, sig, p.Keys[act].Secret) {
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
	if ps != nil && ps.Prefix.IsSingleIP() {
		return ps, src, false
	}
	pd := c.lookup(dst)
	switch {
	case pd == nil:
		return ps, src, false // ps may be nil: not a peer's segment
	case ps == nil, pd.Prefix.IsSingleIP():
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
			st = &addrState{rep: PeerReport{Address: remote, PeerID: p.ID, TCPAO: p.TCPAO, Diagnosis: DiagNoTraffic}, rollKey: -1}
			c.state[remote] = st
		}
		c.lastAddr, c.lastPeer, c.lastSt = remote, p, st
	}
	return st
}

// offSession handles a received segment while a session with the peer
// stands (st.conn set). It reports whether the segment came on another
// connection: then it is counted here and the diagnosis stays the
// session's. A valid SYN after the session's own segments stopped
// verifying means the peer gave the session up (its NOTIFICATION and FIN,
// signed with a key we no longer hold, never reached BGP): OnStale. So
// does a SYN signed with a key the peer had until a reload replaced it
// less than Options.RetiredFor ago (a retired key proves as much as ours
// that the SYN is the peer's): the peer reconnects with the key it was
// given before, after we re-keyed once more. Our kernel drops that SYN, so
// BGP never sees it, and without this the session would stand until the
// peer reconnects with our current key (which, while the keys keep
// changing, it may not do for long) or the hold timer fires.
func (c *Checker) offSession(p *Peer, st *addrState, remote netip.Addr, srcPort uint16, segment []byte, r *Result) bool {
	if srcPort == st.conn {
		switch r.Verdict {
		case Valid:
			st.connBad = 0
		case NoHandshake:
			// Not checked: says nothing of the session's keys.
		default:
			st.connBad++
		}
		return false
	}
	c.count(st, r)
	// (st.rx.ph is the pseudo-header CheckHeld verified this segment
	// with, st.rep.Last its time.)
	if isSYN(segment) && st.connBad > 0 && !st.stale && c.opts.OnStale != nil &&
		(r.Verdict == Valid || r.Verdict == BadDigest && c.retiredVerifies(p, &st.rx.ph, segment, st.rep.Last)) {
		st.stale = true
		id, addr, port := p.ID, remote, st.conn
		c.events = append(c.events, func() { c.opts.OnStale(id, addr, port) })
	}
	return true
}

// diagnosis is what a received segment's result says of the peer; ok is
// false for verdicts that say nothing (key: the other key, for other-key).
// The diagnosis is a code (diagNames has its name): the hysteresis
// compares codes, not strings, on every segment.
func diagnosis(r *Result) (diag diagCode, key int, ok bool) {
	switch r.Verdict {
	case Valid:
		return dcOK, -1, true
	case BadDigest:
		if r.Other {
			return dcOtherKey, r.KeyID, true
		}
		return dcBadDigest, -1, true
	case BadMAC:
		if r.MACLenMismatch {
			return dcMACLenMismatch, -1, true
		}
		if r.Flipped {
			return dcOptionsMismatch, -1, true
		}
		return dcBadMAC, -1, true
	case Missing:
		if r.WrongMech {
			return dcWrongMechanism, -1, true
		}
		return dcMissing, -1, true
	case Unexpected:
		return dcUnexpected, -1, true
	case UnknownKey:
		return dcUnknownKey, int(r.AOKeyID), true
	case NoHandshake:
		return dcNoHandshake, -1, true
	}
	return 0, -1, false
}

// diagCode is a diagnosis a segment supports, as the hysteresis counts
// it; 0 is none.
type diagCode uint8

const (
	dcOK diagCode = 1 + iota
	dcBadDigest
	dcOtherKey
	dcBadMAC
	dcMACLenMismatch
	dcOptionsMismatch
	dcWrongMechanism
	dcMissing
	dcUnexpected
	dcUnknownKey
	dcNoHandshake
)

// diagNames are the diagnoses of the codes, as PeerReport shows them.
var diagNames = [...]string{
	dcOK: DiagOK, dcBadDigest: DiagBadDigest, dcOtherKey: DiagOtherKey, dcBadMAC: DiagBadMAC,
	dcMACLenMismatch: DiagMACLenMismatch, dcOptionsMismatch: DiagOptionsMismatch, dcWrongMechanism: DiagWrongMechanism,
	dcMissing: DiagMissing, dcUnexpected: DiagUnexpected, dcUnknownKey: DiagUnknownKey, dcNoHandshake: DiagNoHandshake,
}

// count adds r to the received or, for our own segments, sent counters
// of st.
func (c *Checker) count(st *addrState, r *Result) {
	if r.Outgoing {
		switch r.Verdict {
		case Valid:
			st.rep.Sent.Valid++
		case Missing:
			st.rep.Sent.Unsigned++
		case BadDigest, BadMAC, UnknownKey:
			st.rep.Sent.Invalid++
		case NoHandshake:
			st.rep.Sent.NoHandshake++
		}
		return
	}
	switch r.Verdict {
	case Valid:
		st.rep.Received.Valid++
	case BadDigest:
		st.rep.Received.BadDigest++
	case Missing:
		st.rep.Received.Missing++
	case Unexpected:
		st.rep.Received.Unexpected++
	case BadMAC:
		st.rep.Received.BadMAC++
	case UnknownKey:
		st.rep.Received.UnknownKey++
	case NoHandshake:
		st.rep.Received.NoHandshake++
	}
}

// isSYN reports a SYN without ACK (a new connection attempt).
func isSYN(segment []byte) bool {
	return len(segment) > 13 && segment[13]&0x12 == 0x02
}

func (c *Checker) verify(ph *md5auth.PseudoHeader, segment, sig, secret []byte) bool {
	v, err := c.d.CheckSignaturePrepared(ph, segment, sig, secret)
	return err == nil && v == md5auth.Valid
}

// observe applies hysteresis and rollover detection to a received
// segment from port.
func (c *Checker) observe(p *Peer, st *addrState, diag diagCode, key, act int, port uint16) {
	if diag == st.cand && key == st.candKey {
		st.run++
	} else {
		st.cand, st.candKey, st.run = diag, key, 1
	}
	run := max(st.run, st.connRunOf(port, diag, key))
	if run >= c.opts.Hysteresis && (st.diag != diag || !sameKey(st.rep.PeerKeyID, key)) {
		st.diag, st.rep.Diagnosis = diag, diagNames[diag]
		st.rep.PeerKeyID = nil
		if key >= 0 {
			k := key
			st.rep.PeerKeyID = &k
		}
		if c.opts.OnChange != nil {
			rep := st.rep
			c.events = append(c.events, func() { c.opts.OnChange(rep) })
		}
	}
	// Rollover: the peer signs with a keychain key newer than ours.
	if diag == dcOtherKey && act >= 0 && p.sched.StartsAfter(key, p.sched[act].SendFrom) {
		if st.rollKey == key {
			st.rollRun++
		} else {
			st.rollKey, st.rollRun = key, 1
		}
		if st.rollRun >= c.opts.Rollover {
			k := key
			st.rep.ProvenKeyID = &k
		}
		if st.rollRun == c.opts.Rollover && c.opts.OnRollover != nil {
			id := p.ID
			c.events = append(c.events, func() { c.opts.OnRollover(id, key) })
		}
	} else if st.rollKey != -1 || st.rollRun != 0 || st.rep.ProvenKeyID != nil { // (no stores on every segment)
		st.rollKey, st.rollRun = -1, 0
		st.rep.ProvenKeyID = nil
	}
}

func sameKey(a *int, k int) bool {
	if a == nil {
		return k < 0
	}
	return *a == k
}

// Reports returns the state of every remote address seen, sorted by
// address. Diagnoses of addresses silent for IdleAfter read no-traffic.
func (c *Checker) Reports(now time.Time) []PeerReport {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]PeerReport, 0, len(c.state))
	for _, st := range c.state {
		rep := st.rep
		if rep.PeerKeyID != nil {
			k := *rep.PeerKeyID
			rep.PeerKeyID = &k
		}
		if rep.ProvenKeyID != nil {
			k := *rep.ProvenKeyID
			rep.ProvenKeyID = &k
		}
		rep.KeyIDs = slices.Clone(rep.KeyIDs)
		if c.opts.IdleAfter > 0 && !rep.Last.IsZero() && now.Sub(rep.Last) > c.opts.IdleAfter {
			rep.Diagnosis, rep.PeerKeyID, rep.ProvenKeyID = DiagNoTraffic, nil, nil
		}
		out = append(out, rep)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Address.Less(out[j].Address) })
	return out
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
