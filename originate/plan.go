package originate

import (
	"sort"
)

// plan is what a pass does: the routes to add (absent from GoBGP's RIB, or
// there as a path of ours with other communities: an add replaces it) and
// the routes of ours to withdraw (no network wants them any more), each in
// prefix order; forget are the routes of ours no network wants that the
// RIB no longer holds (withdrawn already, by the API).
type plan struct {
	add, withdraw []route
	forget        []key
}

// makePlan compares want (the config's networks) with have (the
// attributes of the paths of ours GoBGP's RIBs hold at the prefixes
// looked up) and owned (what earlier passes added and did not withdraw).
// Only routes of ours are ever withdrawn: a path the gRPC API added at a
// prefix no network names is left alone. Routes at blind keys (whose RIB
// could not be read) are not touched, nor forgotten. Pure.
func makePlan[E any](want map[key]route, have map[key]string, owned map[key]route, blind map[key]E) plan {
	var p plan
	for k, w := range want {
		if _, b := blind[k]; b {
			continue
		}
		if attrs, ok := have[k]; !ok || attrs != w.attrs {
			p.add = append(p.add, w)
		}
	}
	for k, o := range owned {
		if _, wanted := want[k]; wanted {
			continue
		}
		if _, b := blind[k]; b {
			continue
		}
		if _, held := have[k]; held {
			p.withdraw = append(p.withdraw, o)
		} else {
			p.forget = append(p.forget, k)
		}
	}
	sortRoutes(p.add)
	sortRoutes(p.withdraw)
	sort.Slice(p.forget, func(i, j int) bool { return keyLess(p.forget[i], p.forget[j]) })
	return p
}

func sortRoutes(rs []route) {
	sort.Slice(rs, func(i, j int) bool { return keyLess(rs[i].key, rs[j].key) })
}

func keyLess(a, b key) bool {
	if a.vrf != b.vrf {
		return a.vrf < b.vrf
	}
	if c := a.prefix.Addr().Compare(b.prefix.Addr()); c != 0 {
		return c < 0
	}
	return a.prefix.Bits() < b.prefix.Bits()
}
