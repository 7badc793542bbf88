package srv6policy

import (
	"net/netip"
	"sort"
)

// Candidate is a received policy path competing for its (color,
// endpoint).
type Candidate struct {
	*Received
	Neighbor  netip.Addr // who sent it
	SourceASN uint32
}

// SelectBest returns, for each (color, endpoint), the index in cands of the
// winning candidate among those for which valid reports true: the highest
// preference, then (RFC 9256 §2.9) the lowest originator (ASN, then
// neighbor address), then the highest distinguisher.
func SelectBest(cands []Candidate, valid func(i int) bool) map[string]int {
	best := map[string]int{}
	idx := make([]int, 0, len(cands))
	for i := range cands {
		if valid == nil || valid(i) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return better(&cands[idx[a]], &cands[idx[b]]) })
	for _, i := range idx {
		k := cands[i].Key()
		if _, ok := best[k]; !ok {
			best[k] = i
		}
	}
	return best
}

// better reports whether a beats b.
func better(a, b *Candidate) bool {
	if a.Preference != b.Preference {
		return a.Preference > b.Preference
	}
	if a.SourceASN != b.SourceASN {
		return a.SourceASN < b.SourceASN
	}
	if c := a.Neighbor.Compare(b.Neighbor); c != 0 {
		return c < 0
	}
	return a.Distinguisher > b.Distinguisher
}
