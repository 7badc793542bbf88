// Package status defines the JSON document served at GET /status and
// printed by `authbgpd status` (and, for peers, by `verify-pcap --json`).
// Field names are a contract (docs/CONTRACTS.md): extend, never rename.
// Nothing in this document may ever hold a secret.
package status

import "github.com/authbgp/authbgpd/aocount"

// Status is the whole document.
type Status struct {
	RouterID string `json:"router_id"`
	ASN      uint32 `json:"asn"`
	Peers    []Peer `json:"peers"`
	SRv6     SRv6   `json:"srv6"`
	// Capture is the shadow checker's packet capture (absent when the
	// shadow checker is off).
	Capture *Capture `json:"capture,omitempty"`
	// Kernel is what the kernel itself counts (absent when it cannot be
	// read).
	Kernel *Kernel `json:"kernel,omitempty"`
	// KernelDrops says whether the kernel's own per-peer drop verdicts
	// (Peer.KernelDrops, counted with eBPF) are available, and counts the
	// drops from addresses that are no configured peer (absent when the
	// daemon does not watch them).
	KernelDrops *KernelDropsInfo `json:"kernel_drops,omitempty"`
	// FIB is what the forwarding table reconciler put into the kernel's
	// routing tables (absent when [fib] is off).
	FIB *FIB `json:"fib,omitempty"`
	// Networks are the config's [[networks]], in its order (absent when
	// it has none).
	Networks []Network `json:"networks,omitempty"`
}

// Network is one [[networks]] entry and whether it is announced.
type Network struct {
	Prefix string `json:"prefix"`
	VRF    string `json:"vrf"` // "" for the default VRF
	// Announced: a path of ours with the network's communities is in its
	// VRF's RIB, sent to the VRF's peers (as their export lets it).
	Announced bool `json:"announced"`
	// LastError is why the last pass could not add (or withdraw) it; ""
	// when it did. A failed network is tried again every 5 s.
	LastError string `json:"last_error"`
}

// FIB is the state of the best paths in the kernel's routing tables.
type FIB struct {
	// Tables are the routing tables authbgpd writes, one per VRF (the
	// main table for the default VRF), in table order.
	Tables []FIBTable `json:"tables"`
	// Pending counts the best-path changes not yet written (waiting for
	// the next pass).
	Pending int `json:"pending"`
	// Refused are the routes the kernel (or the next hop's resolution)
	// refused at the last attempt; each is retried on later passes. At
	// most 100 are listed; FIBTable.Refused counts them all.
	Refused []FIBRefusal `json:"refused"`
	// LastError is the last error of a pass that was not a route's own
	// (a dump of the kernel's routes, the netlink socket); "" when fine.
	LastError string `json:"last_error"`
	// LastLook is when the kernel's routes of ours were last read whole
	// (RFC 3339; "" before the first).
	LastLook string `json:"last_look"`
}

// FIBTable is one routing table's routes of ours.
type FIBTable struct {
	VRF   string `json:"vrf"` // "" for the default VRF
	Table uint32 `json:"table"`
	// Routes are the routes of ours in the table (proto bgp, 186).
	Routes int `json:"routes"`
	// Refused counts the routes refused in this table.
	Refused int `json:"refused"`
}

// FIBRefusal is one route that is not in the kernel, and why.
type FIBRefusal struct {
	VRF    string `json:"vrf"`
	Table  uint32 `json:"table"`
	Prefix string `json:"prefix"`
	// Reason is short and fixed ("next hop unreachable", "no such table",
	// "next hop unresolved", "kernel error"), for metrics' labels; Error
	// is the kernel's own answer.
	Reason string `json:"reason"`
	Error  string `json:"error"`
	Since  string `json:"since"` // RFC 3339
}

// KernelDropsInfo is the namespace-level part of the kernel's per-peer
// drop verdicts.
type KernelDropsInfo struct {
	// Available: the counters are loaded; when false Error says why (no
	// kernel BTF, a kernel older than 6.7, missing CAP_BPF/CAP_PERFMON)
	// and no peer has kernel_drops.
	Available bool `json:"available"`
	// Error is why the counters are unavailable, or why the last read
	// failed; empty when fine.
	Error string `json:"error"`
	// Tracepoints are the kernel tracepoints counted (without the "tcp:"
	// prefix); empty when unavailable.
	Tracepoints []string `json:"tracepoints"`
	// Other counts, since the daemon started, the drops from addresses
	// that are no configured peer, and those whose address the kernel-side
	// table could not record.
	Other uint64 `json:"other"`
	// Missed counts, since the daemon started, the drops that were not
	// counted at all: the kernel skipped the counting program's run (its
	// per-CPU recursion guard; bpf_prog_info recursion_misses). Per-peer
	// and Other counts are short by up to this many. 0 normally.
	Missed uint64 `json:"missed"`
}

// Kernel holds the kernel's TCP-MD5 drop counters of the daemon's network
// namespace (all peers; TcpExt TCPMD5NotFound, TCPMD5Unexpected,
// TCPMD5Failure), named by the shadow's verdicts.
type Kernel struct {
	// MD5Drops are the counters since the namespace was made.
	MD5Drops Drops `json:"tcp_md5_drops"`
	// MD5DropsSinceStart are the drops since this daemon started.
	MD5DropsSinceStart Drops `json:"tcp_md5_drops_since_start"`
	// AO and AOSinceStart are the namespace's TCP-AO counters (TcpExt
	// TCPAOGood, TCPAOBad, TCPAOKeyNotFound, TCPAORequired,
	// TCPAODroppedIcmps), absent on a kernel without TCP-AO.
	AO           *AOCounters `json:"tcp_ao,omitempty"`
	AOSinceStart *AOCounters `json:"tcp_ao_since_start,omitempty"`
	// Release is the running kernel's release (uname -r); absent when
	// unknown.
	Release string `json:"release,omitempty"`
	// TCPAOAlgorithms are the names a keychain's `algorithm` may have
	// (hmac-sha-1-96, hmac-sha-1, aes-128-cmac-96, aes-128-cmac,
	// hmac-sha-224, hmac-sha-256, hmac-sha-384, hmac-sha-512) whose
	// algorithm the running kernel accepts for TCP-AO keys, in that order,
	// as probed at start and at the last reload (Linux 7.2 keeps
	// HMAC-SHA-1, AES-128-CMAC and HMAC-SHA-256). Absent when the kernel
	// has no TCP-AO or the probe failed (TCPAOAlgorithmsError says why).
	TCPAOAlgorithms []string `json:"tcp_ao_algorithms,omitempty"`
	// TCPAOAlgorithmsMissing are those names whose algorithm the kernel
	// refused: a key with one holds its peer down, and a reload to a
	// config with one is refused. Absent when none was refused.
	TCPAOAlgorithmsMissing []string `json:"tcp_ao_algorithms_missing,omitempty"`
	// TCPAOAlgorithmsError is why nothing is known of the algorithms: the
	// kernel has no TCP-AO (CONFIG_TCP_AO), or the probe failed.
	TCPAOAlgorithmsError string `json:"tcp_ao_algorithms_error,omitempty"`
}

// AOCounters are TCP-AO segment counts: the kernel's per-socket
// TCP_AO_INFO counters, or its namespace-wide TcpExt ones. It is the one
// TCP-AO counter type, aocount.Counts (an alias, not a copy), whose JSON
// names are good, bad, key_not_found, ao_required and dropped_icmp.
type AOCounters = aocount.Counts

// Drops counts segments the kernel dropped, by reason.
type Drops struct {
	Missing    uint64 `json:"missing"`
	Unexpected uint64 `json:"unexpected"`
	BadDigest  uint64 `json:"bad_digest"`
}

// Capture describes the shadow checker's live capture.
type Capture struct {
	Running    bool     `json:"running"`
	Workers    int      `json:"workers"`    // capture rings, one checker each (0: not running)
	Interfaces []string `json:"interfaces"` // empty: all
	Packets    uint64   `json:"packets"`    // frames that passed the filter
	Drops      uint64   `json:"drops"`      // frames the kernel dropped (ring full)
	Truncated  uint64   `json:"truncated"`  // frames too long to verify
	Error      string   `json:"error"`
	// Mode is [shadow] mode: "always", or "on-demand" (capturing only
	// the peers in OnDemand, each for a bounded time and segment count,
	// when the kernel's drops of them move; Running while any is).
	Mode     string          `json:"mode"`
	OnDemand []CaptureDemand `json:"on_demand,omitempty"`
}

// CaptureDemand is one peer address captured on demand.
type CaptureDemand struct {
	Address  string `json:"address"`
	Why      string `json:"why"`
	Since    string `json:"since"`    // RFC 3339
	Until    string `json:"until"`    // RFC 3339: the window's end
	Segments int64  `json:"segments"` // checked so far (the window ends at on-demand-segments)
}

// Peer is one configured peer (static address or dynamic range) or one
// session accepted from a dynamic range.
type Peer struct {
	Address string `json:"address"`
	// Prefix is set for dynamic-neighbor ranges and for sessions accepted
	// from one (then Address is the session's peer).
	Prefix string `json:"prefix,omitempty"`
	// Interface is an interface ("unnumbered") peer's interface; its
	// Address is the far end's learnt link-local address with the
	// interface as zone (fe80::2%eth1), "" until one is learnt.
	Interface string `json:"interface,omitempty"`
	// VRF is the VRF device the peer's session is bound to and its keys
	// are scoped to ("" for the default VRF).
	VRF           string  `json:"vrf,omitempty"`
	ASN           uint32  `json:"asn"`
	State         string  `json:"state"` // idle, connect, active, opensent, openconfirm, established, admin-down
	UptimeSeconds int64   `json:"uptime_seconds"`
	Auth          Auth    `json:"auth"`
	Shadow        *Shadow `json:"shadow,omitempty"`
	// KernelDrops are the segments the kernel itself dropped from this
	// peer for TCP-MD5/TCP-AO since the daemon started, by reason (present
	// for keyed peers while the counters are available; for an unkeyed
	// peer once the kernel dropped something of it). A dynamic range's own
	// entry sums its sessions.
	KernelDrops *KernelDrops `json:"kernel_drops,omitempty"`
	// Policy is the peer's routing policy assignment, as GoBGP evaluates
	// it (present when the config defines policies or sets
	// ebgp-requires-policy).
	Policy *RoutingPolicy `json:"policy,omitempty"`

	// The session as GoBGP reports it (absent until GoBGP has answered;
	// dynamic ranges have none).

	// DowntimeSeconds is how long the session has not been Established
	// (since the last time it was, or since the peer was added); absent
	// while Established.
	DowntimeSeconds *int64 `json:"downtime_seconds,omitempty"`
	// LocalAddress, LocalPort and RemotePort are the TCP session's ends
	// (absent without a session).
	LocalAddress string    `json:"local_address,omitempty"`
	LocalPort    uint16    `json:"local_port,omitempty"`
	RemotePort   uint16    `json:"remote_port,omitempty"`
	Timers       *Timers   `json:"timers,omitempty"`
	Families     []Family  `json:"families,omitempty"`
	Messages     *Messages `json:"messages,omitempty"`
	// LastError is why the session last left Established, since start.
	LastError *LastError `json:"last_error,omitempty"`
	// Malformed counts the messages of this peer that GoBGP found
	// malformed or whose processing panicked, since start (absent while
	// there are none).
	Malformed *Malformed `json:"malformed,omitempty"`
	// LastNotification is the last NOTIFICATION sent or received, since
	// start.
	LastNotification *Notification `json:"last_notification,omitempty"`
	// PrefixLimit is the peer's max-prefixes and how often it was
	// exceeded (absent without a limit, unless it was exceeded before a
	// reload took it away). A session of a range shows its range's.
	PrefixLimit *PrefixLimit `json:"prefix_limit,omitempty"`
}

// PrefixLimit is a peer's prefix limit (max-prefixes), per family.
type PrefixLimit struct {
	MaxPrefixes uint32 `json:"max_prefixes"`          // 0: none (any more)
	WarningPct  uint8  `json:"warning_pct,omitempty"` // max-prefixes-warning
	// Exceeded counts the sessions closed because the peer sent more (a
	// range: its sessions), since the daemon started.
	Exceeded uint64 `json:"exceeded"`
}

// Timers are the session's timers in seconds: configured, and negotiated
// in the OPEN exchange (0 before it).
type Timers struct {
	HoldTime            uint64 `json:"hold_time"`
	Keepalive           uint64 `json:"keepalive_interval"`
	ConnectRetry        uint64 `json:"connect_retry"`
	NegotiatedHoldTime  uint64 `json:"negotiated_hold_time"`
	NegotiatedKeepalive uint64 `json:"negotiated_keepalive_interval"`
}

// Family is one configured address family and its prefix counts.
type Family struct {
	Name string `json:"family"` // ipv4-unicast, ipv6-unicast, ...
	// Negotiated: both sides announced it in their OPEN.
	Negotiated bool   `json:"negotiated"`
	Received   uint64 `json:"received"`
	Accepted   uint64 `json:"accepted"`
	Sent       uint64 `json:"sent"`
}

// Messages counts BGP messages by type, each way.
type Messages struct {
	Sent     MessageCounts `json:"sent"`
	Received MessageCounts `json:"received"`
}

// MessageCounts counts messages of one direction.
type MessageCounts struct {
	Open         uint64 `json:"open"`
	Update       uint64 `json:"update"`
	Notification uint64 `json:"notification"`
	Keepalive    uint64 `json:"keepalive"`
	Refresh      uint64 `json:"refresh"`
	Total        uint64 `json:"total"`
}

// LastError is why a session last went down.
type LastError struct {
	Reason string `json:"reason"` // GoBGP's words: hold-timer-expired, notification-received code 6(cease) ...
	At     string `json:"at"`     // RFC 3339
	// Malformed says what the peer sent that ended the session, when a
	// malformed message (or one whose processing panicked) did:
	// "malformed update: nexthop length isn't correct (session-reset,
	// code 3(update) subcode 5(attribute length error))".
	Malformed string `json:"malformed,omitempty"`
	// MaxPrefixes, when the session ended because the peer sent more
	// prefixes in a family than its max-prefixes (we sent a Cease,
	// subcode 1: Reason says so), is that limit, as configured now.
	MaxPrefixes uint32 `json:"max_prefixes,omitempty"`
}

// Malformed counts a peer's messages that GoBGP's receive path found
// malformed (RFC 4271 section 6, RFC 7606) or whose processing panicked
// (a GoBGP bug, recovered: the session alone was reset).
type Malformed struct {
	// Updates and Other count malformed UPDATEs and malformed messages of
	// other types (OPEN, a bad header, an unknown type, ...).
	Updates uint64 `json:"updates"`
	Other   uint64 `json:"other"`
	// ByHandling counts them by what was done: session-reset,
	// treat-as-withdraw, attribute-discard, afi-safi-disable.
	ByHandling map[string]uint64 `json:"by_handling"`
	// Panics counts those whose processing panicked.
	Panics uint64           `json:"panics"`
	Last   MalformedMessage `json:"last"`
}

// MalformedMessage is one malformed message.
type MalformedMessage struct {
	Message  string `json:"message"`  // update, open, notification, keepalive, route-refresh, header, type N
	Handling string `json:"handling"` // session-reset, treat-as-withdraw, attribute-discard, afi-safi-disable
	Code     uint8  `json:"code"`     // the NOTIFICATION it calls for (sent with session-reset)
	Subcode  uint8  `json:"subcode"`
	Text     string `json:"text"`            // code 3(update) subcode 1(malformed attribute list)
	Reason   string `json:"reason"`          // GoBGP's words for what was malformed
	Panic    string `json:"panic,omitempty"` // where a recovered panic was raised
	At       string `json:"at"`              // RFC 3339
}

// Notification is a BGP NOTIFICATION message.
type Notification struct {
	Code      uint8  `json:"code"`
	Subcode   uint8  `json:"subcode"`
	Text      string `json:"text"`      // code 6(cease) subcode 2(administrative shutdown)
	Direction string `json:"direction"` // sent or received
	At        string `json:"at"`        // RFC 3339
}

// Auth is the peer's keyed authentication as installed.
type Auth struct {
	Mode      string `json:"mode"`             // "md5", "tcp-ao" or "none"
	Source    string `json:"source,omitempty"` // password, password-file, password-env, keychain
	Keychain  string `json:"keychain,omitempty"`
	KeyID     *int   `json:"key_id"` // keychain key id in use, null otherwise
	Installed bool   `json:"installed"`
	// Error says why the key is not installed; the peer is then held
	// administratively down (fail closed). Empty when fine.
	Error string `json:"error"`
	// DialError says why the last dial to the peer was refused before its
	// SYN (its key could not be set on the socket, or the peer is held
	// down); empty once a dial's key is set.
	DialError string `json:"dial_error,omitempty"`
	// Verified says how Installed is known: "kernel" (the keys were read
	// back from every listener and established socket through sock_diag
	// and matched), "install" (the kernel hides keys from this process —
	// no CAP_NET_ADMIN — so only the install calls' success is known).
	// Empty before the first check and for peers without a key.
	Verified string `json:"verified,omitempty"`
	// NextKeyID and NextKeyAt are the keychain's next scheduled key and
	// when (RFC 3339) it becomes active; absent when no key starts later.
	NextKeyID *int   `json:"next_key_id,omitempty"`
	NextKeyAt string `json:"next_key_at,omitempty"`
	// TCP-AO peers: SendID and RecvID of the key in use (the current key
	// and the RNextKeyID we ask for).
	SendID *int `json:"send_id,omitempty"`
	RecvID *int `json:"recv_id,omitempty"`
	// PeerRNextKeyID is the KeyID the peer asks us to send with (its
	// RNextKeyID), which the kernel's current key follows; Kernel sums
	// the TCP_AO_INFO counters of the peer's established connections.
	PeerRNextKeyID *int        `json:"peer_rnext_key_id,omitempty"`
	Kernel         *AOCounters `json:"kernel,omitempty"`
	// AcceptICMPs: a TCP-AO peer's sessions act on ICMP hard errors (its
	// keychain's accept-icmps); absent: they ignore them.
	AcceptICMPs bool `json:"accept_icmps,omitempty"`
}

// Shadow is the shadow checker's view of a peer.
type Shadow struct {
	// Diagnosis: ok, bad-digest, missing, unexpected, other-key,
	// no-traffic; for TCP-AO also bad-mac, unknown-key, options-mismatch,
	// mac-length-mismatch, no-handshake, and wrong-mechanism (TCP-MD5 where TCP-AO is
	// configured, or the reverse).
	Diagnosis string `json:"diagnosis"`
	// PeerKeyID: for other-key the keychain key the peer signs with; for
	// unknown-key the TCP-AO KeyID it sends (none of our recv-ids).
	PeerKeyID *int     `json:"peer_key_id"`
	Segments  Segments `json:"segments"`
	// KeyIDs are the TCP-AO (KeyID, RNextKeyID) pairs the peer sent, with
	// how many segments carried each (absent when it sent no TCP-AO
	// option).
	KeyIDs []KeyIDCount `json:"key_ids,omitempty"`
	// Sent counts our own segments to the peer as the checker verified
	// them: valid ones prove our key is installed on the socket.
	Sent *Sent `json:"sent,omitempty"`
	// History is the last changes of Diagnosis, oldest first (bounded).
	History []DiagnosisChange `json:"history,omitempty"`
}

// DiagnosisChange is one change of a peer's shadow diagnosis.
type DiagnosisChange struct {
	Diagnosis string `json:"diagnosis"`
	At        string `json:"at"` // RFC 3339
}

// Sent counts our own outgoing segments by verdict.
type Sent struct {
	Valid    uint64 `json:"valid"`
	Invalid  uint64 `json:"invalid"`
	Unsigned uint64 `json:"unsigned"`
	// NoHandshake (TCP-AO peers only; absent for others): our segments of
	// connections that began before the capture, which cannot be checked.
	NoHandshake *uint64 `json:"no_handshake,omitempty"`
}

// Segments counts verdicts of checked TCP segments.
type Segments struct {
	Valid      uint64 `json:"valid"`
	BadDigest  uint64 `json:"bad_digest"`
	Missing    uint64 `json:"missing"`
	Unexpected uint64 `json:"unexpected"`
	// TCP-AO peers only (absent for TCP-MD5 and unkeyed peers): MACs our
	// key of that KeyID does not give (options-mismatch ones included),
	// KeyIDs none of our keys receives, and segments of connections that
	// began before the capture (their traffic keys cannot be derived).
	BadMAC      *uint64 `json:"bad_mac,omitempty"`
	UnknownKey  *uint64 `json:"unknown_key,omitempty"`
	NoHandshake *uint64 `json:"no_handshake,omitempty"`
}

// KernelDrops counts the segments the kernel dropped from a peer, by the
// kernel's reason (the tracepoint that fired), and names the reason of
// the recent ones.
type KernelDrops struct {
	BadDigest  uint64 `json:"bad_digest"` // wrong TCP-MD5 signature (TcpExt TCPMD5Failure)
	Missing    uint64 `json:"missing"`    // no TCP-MD5 signature, we have a key (TCPMD5NotFound)
	Unexpected uint64 `json:"unexpected"` // TCP-MD5 signed, we have no key (TCPMD5Unexpected)
	BadOption  uint64 `json:"bad_option"` // malformed or duplicate MD5/AO options, wrong AO MAC length
	// TCP-AO peers only (absent for TCP-MD5 and unkeyed peers unless the
	// kernel dropped such segments of them, e.g. a TCP-MD5 peer that signs
	// with TCP-AO: ao_key_not_found): a wrong TCP-AO MAC (TCPAOBad), a
	// KeyID we have no key of (TCPAOKeyNotFound), no TCP-AO option
	// (TCPAORequired).
	AOBad         *uint64 `json:"ao_bad,omitempty"`
	AOKeyNotFound *uint64 `json:"ao_key_not_found,omitempty"`
	AORequired    *uint64 `json:"ao_required,omitempty"`
	// Diagnosis is the kernel's verdict: the reason of most drops in the
	// last minute (ties: the latest): bad-digest, missing, unexpected,
	// bad-option; for TCP-AO bad-mac (ao_bad), unknown-key
	// (ao_key_not_found), missing (ao_required). Empty when the kernel
	// dropped nothing of the peer in the last minute.
	Diagnosis string `json:"diagnosis"`
	// LastDrop is when a drop was last seen (RFC 3339); absent if never.
	LastDrop string `json:"last_drop,omitempty"`
}

// KeyIDCount is one TCP-AO (KeyID, RNextKeyID) pair a peer sent and how
// many segments carried it.
type KeyIDCount struct {
	KeyID      uint8  `json:"key_id"`
	RNextKeyID uint8  `json:"rnext_key_id"`
	Segments   uint64 `json:"segments"`
}

// SRv6 is the state of SRv6 HMAC keys and SR policies.
type SRv6 struct {
	HMACKeys []HMACKey `json:"hmac_keys"`
	Policies []Policy  `json:"policies"`
}

// HMACKey is one SRv6 HMAC key (never its secret).
type HMACKey struct {
	ID        uint32 `json:"id"`
	Algorithm string `json:"algorithm"`
	Installed bool   `json:"installed"`
	Error     string `json:"error,omitempty"`
}

// Policy is one SR policy, configured (advertised) or received (installed).
type Policy struct {
	Name       string `json:"name"`
	Advertised bool   `json:"advertised"`
	Installed  bool   `json:"installed"`
	Reason     string `json:"reason,omitempty"`
}

// RoutingPolicy is a peer's import and export policies (the names of the
// config's [[policy-definitions]], in order) and the default action
// after them: "accept-route" or "reject-route" (gobgpd's values).
type RoutingPolicy struct {
	Import        []string `json:"import"`
	DefaultImport string   `json:"default_import"`
	Export        []string `json:"export"`
	DefaultExport string   `json:"default_export"`
}
