package kdrops

import (
	"errors"
	"strconv"
)

// Reason is why the kernel dropped a segment. Its names (String) are
// stable: /status and the metrics use them.
type Reason uint8

// The reasons, in the order Reasons returns them. The zero Reason is not a
// reason.
const (
	// BadDigest: the segment's MD5 signature is wrong (wrong key), the
	// TcpExt counter TCPMD5Failure (tracepoint tcp_hash_md5_mismatch).
	BadDigest Reason = iota + 1
	// Missing: we have an MD5 key for the peer but the segment is not
	// signed, TCPMD5NotFound (tcp_hash_md5_required).
	Missing
	// Unexpected: the segment is MD5-signed but we have no key for the
	// peer, TCPMD5Unexpected (tcp_hash_md5_unexpected).
	Unexpected
	// BadOption: malformed authentication options: MD5 and AO (or an
	// option twice) in one segment (tcp_hash_bad_header), or an AO MAC of
	// the wrong length (tcp_ao_wrong_maclen).
	BadOption
	// AOBad: the TCP-AO MAC is wrong (tcp_ao_mismatch), or a handshake
	// segment is signed with AO when the connection does not use it or the
	// other way round (tcp_ao_handshake_failure; both count TCPAOBad).
	AOBad
	// AOKeyNotFound: the segment names a TCP-AO key ID we do not have,
	// TCPAOKeyNotFound (tcp_ao_key_not_found).
	AOKeyNotFound
	// AORequired: we require TCP-AO from the peer and the segment has no
	// AO option, TCPAORequired (tcp_hash_ao_required).
	AORequired

	numReasons = iota + 1 // one more than the last reason
)

var reasonNames = [numReasons]string{
	BadDigest:     "bad_digest",
	Missing:       "missing",
	Unexpected:    "unexpected",
	BadOption:     "bad_option",
	AOBad:         "ao_bad",
	AOKeyNotFound: "ao_key_not_found",
	AORequired:    "ao_required",
}

// String returns the reason's stable snake_case name, e.g. "bad_digest".
func (r Reason) String() string {
	if r.Valid() {
		return reasonNames[r]
	}
	return "reason(" + strconv.Itoa(int(r)) + ")"
}

// Valid reports whether r is one of the defined reasons.
func (r Reason) Valid() bool { return r > 0 && r < numReasons }

// ParseReason returns the reason named s (as String returns it).
func ParseReason(s string) (Reason, bool) {
	for r := Reason(1); r < numReasons; r++ {
		if reasonNames[r] == s {
			return r, true
		}
	}
	return 0, false
}

// Reasons returns every reason, in a fixed order.
func Reasons() []Reason {
	return []Reason{BadDigest, Missing, Unexpected, BadOption, AOBad, AOKeyNotFound, AORequired}
}

// MD5Reasons returns the reasons a TCP-MD5 session can see (a kernel
// without TCP-AO reports only these), in the order of Reasons.
func MD5Reasons() []Reason {
	return []Reason{BadDigest, Missing, Unexpected, BadOption}
}

// tracepoint is one kernel tracepoint this package counts.
type tracepoint struct {
	name   string
	reason Reason
	// required: Open fails when the kernel lacks it (the MD5 tracepoints,
	// all added in Linux 6.7); an optional one is skipped.
	required bool
}

// tracepoints are the drop tracepoints, in attach order. Their first two
// arguments are (const struct sock *sk, const struct sk_buff *skb), with
// skb->data at the TCP header and skb's network header set (the IP header).
//
// tcp_ao_rnext_request is left out: it fires when the peer asks us to
// switch to another send key (RNext), on a segment that is then verified
// and accepted, not dropped. tcp_ao_handshake_failure is a drop
// (SKB_DROP_REASON_TCP_AOFAILURE after TCPAOBad), so it is counted.
// tcp_ao_synack_no_key is not about an inbound segment (it has no skb).
var tracepoints = []tracepoint{
	{"tcp_hash_md5_mismatch", BadDigest, true},
	{"tcp_hash_md5_required", Missing, true},
	{"tcp_hash_md5_unexpected", Unexpected, true},
	{"tcp_hash_bad_header", BadOption, true},
	{"tcp_hash_ao_required", AORequired, false},
	{"tcp_ao_handshake_failure", AOBad, false},
	{"tcp_ao_wrong_maclen", BadOption, false},
	{"tcp_ao_mismatch", AOBad, false},
	{"tcp_ao_key_not_found", AOKeyNotFound, false},
}

// tracepointReason returns the reason counted for the tracepoint name
// (without the "tcp:" system prefix, which it also accepts).
func tracepointReason(name string) (Reason, bool) {
	if len(name) > 4 && name[:4] == "tcp:" {
		name = name[4:]
	}
	for _, tp := range tracepoints {
		if tp.name == name {
			return tp.reason, true
		}
	}
	return 0, false
}

// ErrUnsupported: this system cannot count kernel drops: not Linux, no
// kernel BTF, a kernel older than 6.7 (no drop tracepoints), or no network
// namespace cookies. The error names what is missing.
var ErrUnsupported = errors.New("kernel drop counters are not supported")

// ErrPermission: the process lacks the capabilities: Open needs CAP_BPF
// and CAP_PERFMON (or CAP_SYS_ADMIN), EnableStats CAP_SYS_ADMIN, in the
// initial user namespace (a rootless container has neither). The error
// says which.
var ErrPermission = errors.New("missing capabilities for eBPF")
