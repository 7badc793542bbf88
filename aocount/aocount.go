// Package aocount is the one type of the Linux kernel's TCP-AO segment
// counters, from the kernel's read (tcpsock: a socket's TCP_AO_INFO, the
// namespace's TcpExt TCPAO*) through /status (status, whose JSON names are
// these) and the metrics (their verdict and reason labels): good, bad,
// key_not_found, ao_required, dropped_icmp. A leaf: it imports nothing of
// ours, so a codec, a runtime and the status document can all use it.
package aocount

// The names of the counters: the JSON keys in /status and the verdict and
// reason labels of the metrics.
const (
	Good        = "good"
	Bad         = "bad"
	KeyNotFound = "key_not_found"
	AORequired  = "ao_required"
	DroppedICMP = "dropped_icmp"
)

// Counts are TCP-AO segment counts as the kernel keeps them: a socket's
// (struct tcp_ao_info_opt) or a network namespace's (TcpExt TCPAOGood,
// TCPAOBad, TCPAOKeyNotFound, TCPAORequired, TCPAODroppedIcmps). The JSON
// names are a contract of /status.
type Counts struct {
	// Good: segments whose MAC verified.
	Good uint64 `json:"good"`
	// Bad: segments whose MAC did not verify.
	Bad uint64 `json:"bad"`
	// KeyNotFound: segments naming a KeyID we hold no key for.
	KeyNotFound uint64 `json:"key_not_found"`
	// AORequired: segments without TCP-AO where it is required.
	AORequired uint64 `json:"ao_required"`
	// DroppedICMP: ICMP hard errors ignored (accept_icmps off).
	DroppedICMP uint64 `json:"dropped_icmp"`
}

// Add is c plus o, field by field.
func (c Counts) Add(o Counts) Counts {
	return Counts{Good: c.Good + o.Good, Bad: c.Bad + o.Bad, KeyNotFound: c.KeyNotFound + o.KeyNotFound,
		AORequired: c.AORequired + o.AORequired, DroppedICMP: c.DroppedICMP + o.DroppedICMP}
}

// Delta is how much c grew since prev, field by field. The kernel's
// counters only grow: a field below prev's was reset (a new connection on
// the same addresses) and counts from 0, so its delta is its value.
func (c Counts) Delta(prev Counts) Counts {
	return Counts{Good: grow(c.Good, prev.Good), Bad: grow(c.Bad, prev.Bad), KeyNotFound: grow(c.KeyNotFound, prev.KeyNotFound),
		AORequired: grow(c.AORequired, prev.AORequired), DroppedICMP: grow(c.DroppedICMP, prev.DroppedICMP)}
}

func grow(now, prev uint64) uint64 {
	if now < prev {
		return now
	}
	return now - prev
}

// Each calls fn with every counter's name and value, in the order of the
// constants.
func (c Counts) Each(fn func(name string, n uint64)) {
	fn(Good, c.Good)
	fn(Bad, c.Bad)
	fn(KeyNotFound, c.KeyNotFound)
	fn(AORequired, c.AORequired)
	fn(DroppedICMP, c.DroppedICMP)
}
