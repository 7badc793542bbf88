package shadow

// The checker's vocabulary: the verdict of a segment, the diagnoses,
// the peers and keys it is told of, its counters, reports and options.

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/authbgp/authbgpd/keys"
	"github.com/authbgp/authbgpd/peerindex"
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

// Diagnosis is one of the checker's diagnoses: its code (/status, metrics,
// verify-pcap), the mechanism it is for, what it means to the operator, and
// whether it is a failure of the peer's keys (verify-pcap --fail-on takes
// those).
type Diagnosis struct {
	Code      string
	Mechanism string // "tcp-md5", "tcp-ao", or "" for both
	Meaning   string // "" when the code says it all
	Failure   bool
}

// Diagnoses are every diagnosis, in the order the docs list them: a new
// diagnosis is its constant above and its row here. explain, verify-pcap
// (--fail-on and its help) and the docs' test (every code has a row in
// docs/OPERATIONS.md) read it.
var Diagnoses = []Diagnosis{
	{DiagOK, "", "the peer signs with our key", false},
	{DiagBadDigest, "tcp-md5", "the peer signs, but not with our key (wrong key on one side)", true},
	{DiagMissing, "tcp-md5", "we require a TCP-MD5 signature and the peer sends none (no password on the peer)", true},
	{DiagUnexpected, "tcp-md5", "the peer signs but we hold no key for it (password only on the peer)", true},
	{DiagOtherKey, "tcp-md5", "the peer signs with another key of our keychain", true},
	{DiagNoTraffic, "", "", false},
	{DiagBadMAC, "tcp-ao", "the peer's TCP-AO MACs are not those of our key of that KeyID (wrong secret or algorithm on one side)", true},
	{DiagUnknownKey, "tcp-ao", "the peer sends a TCP-AO KeyID none of our keys has as recv-id (peer_key_id names it)", true},
	{DiagOptionsMismatch, "tcp-ao", "the peer's TCP-AO MACs verify only with include-tcp-options flipped: the two ends disagree on it", true},
	{DiagMACLenMismatch, "tcp-ao", "the peer's TCP-AO MACs are not as long as our key's mac-length: the two ends disagree on it (the kernel drops them as TCPAOBad)", true},
	{DiagWrongMechanism, "", "the peer signs with TCP-MD5 where we configured TCP-AO, or with TCP-AO where we configured TCP-MD5", true},
	{DiagNoHandshake, "tcp-ao", "the connection began before the capture, so its TCP-AO traffic keys cannot be derived (the next connection is checked)", true},
}

// FailureCodes are the codes of the diagnoses that are failures.
func FailureCodes() []string {
	var out []string
	for _, d := range Diagnoses {
		if d.Failure {
			out = append(out, d.Code)
		}
	}
	return out
}

// Key is one TCP-MD5 key, or one TCP-AO master key tuple (Peer.TCPAO), a
// peer may use: the peer index's (PeersOf).
type Key = peerindex.Key

// Peer describes what the checker expects of one configured peer.
type Peer struct {
	// ID names the peer in metrics and callbacks: its address, the
	// prefix of a dynamic range, or an interface peer's interface.
	ID string
	// Prefix is the peer's address as a full-length prefix, or the range;
	// not valid for an interface peer.
	Prefix netip.Prefix
	// Interface is an unnumbered peer's interface: an unnumbered link is
	// point to point, so every link-local BGP segment seen on it is this
	// peer's, whatever its link-local address (see Checker.CheckHeld for
	// how a segment says which interface it was seen on).
	Interface string
	// VRF is the VRF the peer's sessions are bound to ("": the default
	// one). Shown in reports only: the capture knows no VRF, so an address
	// that is a peer in two VRFs is neither's (peerindex.Owners.Lookup)
	// and the address tells the numbered peers it judges apart.
	VRF string
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
	// Address is the remote address; a link-local one carries the
	// interface it was seen on as its zone (fe80::2%eth1), so the same
	// address on two links is two reports.
	Address netip.Addr
	PeerID  string // the configured peer (address, range or interface)
	// Interface and VRF are the configured peer's (an interface peer's
	// interface; "" for others), for display.
	Interface, VRF string
	Diagnosis      string
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
