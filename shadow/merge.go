package shadow

import (
	"net/netip"
	"sort"
)

// MergeReports combines the reports of several checkers that each saw a
// share of the segments (the Runner's workers, split by address pair) into
// one report per address, sorted by address. An address normally lives on
// one checker only; it shows up on several when the peer talks to more
// than one of our addresses (each address pair has its own worker) or when
// SetSession prepared state on every checker. Then the counts are summed,
// Last is the latest, and the diagnosis and what goes with it (key ids,
// session port) come from the checker that heard from the peer last: it
// describes the peer's most recent traffic, as one checker would.
func MergeReports(lists ...[]PeerReport) []PeerReport {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	out := make([]PeerReport, 0, n)
	at := make(map[netip.Addr]int, n)
	for _, l := range lists {
		for _, r := range l {
			i, ok := at[r.Address]
			if !ok {
				at[r.Address] = len(out)
				out = append(out, r)
				continue
			}
			m := &out[i]
			recv, sent, last, ids, ao := m.Received, m.Sent, m.Last, m.KeyIDs, m.TCPAO
			if r.Last.After(m.Last) {
				*m = r
			}
			m.Received = Counts{
				Valid:       recv.Valid + r.Received.Valid,
				BadDigest:   recv.BadDigest + r.Received.BadDigest,
				Missing:     recv.Missing + r.Received.Missing,
				Unexpected:  recv.Unexpected + r.Received.Unexpected,
				BadMAC:      recv.BadMAC + r.Received.BadMAC,
				UnknownKey:  recv.UnknownKey + r.Received.UnknownKey,
				NoHandshake: recv.NoHandshake + r.Received.NoHandshake,
			}
			m.Sent = Sent{
				Valid:       sent.Valid + r.Sent.Valid,
				Invalid:     sent.Invalid + r.Sent.Invalid,
				Unsigned:    sent.Unsigned + r.Sent.Unsigned,
				NoHandshake: sent.NoHandshake + r.Sent.NoHandshake,
			}
			m.KeyIDs = mergeKeyIDs(ids, r.KeyIDs)
			m.TCPAO = ao || r.TCPAO
			if last.After(m.Last) {
				m.Last = last
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Address.Less(out[j].Address) })
	return out
}

// mergeKeyIDs adds the pair counts of b to those of a (a new slice; a's
// order first, then b's new pairs).
func mergeKeyIDs(a, b []KeyIDCount) []KeyIDCount {
	if len(b) == 0 {
		return a
	}
	out := append([]KeyIDCount(nil), a...)
next:
	for _, k := range b {
		for i := range out {
			if out[i].KeyID == k.KeyID && out[i].RNextKeyID == k.RNextKeyID {
				out[i].Segments += k.Segments
				continue next
			}
		}
		out = append(out, k)
	}
	return out
}
