package fib

import (
	"fmt"
	"net/netip"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/kroute"
	"github.com/authbgp/authbgpd/plugin"
)

// A numbered eBGP neighbor's best paths go into the main table through
// the next hop the kernel reaches; a withdrawal takes them out; a session
// that ends takes out every route of its neighbor.
func TestBestPathsIntoTheMainTable(t *testing.T) {
	s := newScene(t)
	s.begin()
	s.up("192.0.2.2", "192.0.2.1")
	s.r.Record("", []plugin.BestPathChange{
		change("198.51.100.128/25", hop("192.0.2.2", "192.0.2.2", "192.0.2.1")),
		change("203.0.113.0/24", hop("192.0.2.2", "192.0.2.2", "192.0.2.1")),
	}, true)
	s.pass(time.Second)
	s.want("installed",
		"198.51.100.128/25 table 254 via 192.0.2.2 dev #2",
		"203.0.113.0/24 table 254 via 192.0.2.2 dev #2")
	if st := s.r.Status(); len(st.Tables) != 1 || st.Tables[0].Table != kroute.MainTable || st.Tables[0].Routes != 2 {
		t.Errorf("status tables: %+v", st.Tables)
	}

	s.r.Record("", []plugin.BestPathChange{change("203.0.113.0/24")}, false)
	s.pass(time.Second)
	s.want("withdrawn", "198.51.100.128/25 table 254 via 192.0.2.2 dev #2")

	// A pass with nothing to do writes nothing.
	s.k.takeWrites()
	s.pass(time.Second)
	if w := s.k.takeWrites(); len(w) != 0 {
		t.Errorf("an idle pass wrote %v", w)
	}

	// GoBGP withdraws a dead session's paths; before it does, the session's
	// end alone takes them out.
	s.down("192.0.2.2")
	s.pass(time.Second)
	s.want("session down")
}

// iBGP and multihop next hops are resolved through the kernel's own
// routes; one that the kernel cannot reach is refused, reported, and the
// others still go in.
func TestNextHopsResolvedAndRefused(t *testing.T) {
	s := newScene(t)
	s.begin()
	s.up("203.0.113.9", "192.0.2.1")
	s.r.Record("", []plugin.BestPathChange{
		change("198.51.100.64/26", hop("203.0.113.9", "203.0.113.9", "192.0.2.1")),
		change("198.51.100.192/26", hop("203.0.113.77", "203.0.113.9", "192.0.2.1")),
	}, true)
	s.pass(time.Second)
	s.want("resolved", "198.51.100.64/26 table 254 via 192.0.2.254 dev #2")
	st := s.r.Status()
	if len(st.Refused) != 1 || st.Refused[0].Prefix != "198.51.100.192/26" || st.Refused[0].Reason != ReasonUnresolved || st.Tables[0].Refused != 1 {
		t.Fatalf("refused: %+v tables %+v", st.Refused, st.Tables)
	}
	if m := s.r.MetricState(); len(m.Refused) != 1 || m.Refused[0].Reason != ReasonUnresolved || m.Refused[0].Count != 1 {
		t.Errorf("metrics refused: %+v", m.Refused)
	}
	// The next hop becomes reachable (an IGP route): the next look
	// resolves it again and the route goes in.
	s.k.via[netip.MustParseAddr("203.0.113.77")] = kroute.NextHop{Gateway: netip.MustParseAddr("192.0.2.254"), Ifindex: 2}
	s.pass(time.Minute)
	s.want("resolved after a look",
		"198.51.100.64/26 table 254 via 192.0.2.254 dev #2",
		"198.51.100.192/26 table 254 via 192.0.2.254 dev #2")
	if st := s.r.Status(); len(st.Refused) != 0 {
		t.Errorf("still refused: %+v", st.Refused)
	}
}

// A route the kernel refuses is counted with its reason, the others of
// the batch go in, and it is retried until it goes in too.
func TestKernelRefusalRetried(t *testing.T) {
	s := newScene(t)
	s.begin()
	s.up("192.0.2.2", "192.0.2.1")
	s.k.fail[netip.MustParsePrefix("198.51.100.0/25")] = syscall.ENETUNREACH
	var cs []plugin.BestPathChange
	for i := range 8 {
		cs = append(cs, change(fmt.Sprintf("203.0.113.%d/32", i), hop("192.0.2.2", "192.0.2.2", "192.0.2.1")))
	}
	cs = append(cs, change("198.51.100.0/25", hop("192.0.2.2", "192.0.2.2", "192.0.2.1")))
	s.r.Record("", cs, true)
	s.pass(time.Second)
	if got := len(s.k.table()); got != 8 {
		t.Fatalf("%d routes in, want the 8 the kernel took", got)
	}
	st := s.r.Status()
	if len(st.Refused) != 1 || st.Refused[0].Reason != ReasonUnreachable || !strings.Contains(st.Refused[0].Error, "unreachable") {
		t.Fatalf("refused: %+v", st.Refused)
	}
	since := st.Refused[0].Since
	if m := s.r.MetricState(); m.Refusals != 1 {
		t.Errorf("refusals counted: %d", m.Refusals)
	}
	s.pass(5 * time.Second)
	if st := s.r.Status(); len(st.Refused) != 1 || st.Refused[0].Since != since {
		t.Errorf("retried and still refused: %+v (since %s)", st.Refused, since)
	}
	delete(s.k.fail, netip.MustParsePrefix("198.51.100.0/25"))
	s.pass(5 * time.Second)
	if got := len(s.k.table()); got != 9 {
		t.Errorf("%d routes in after the retry, want 9", got)
	}
	if st := s.r.Status(); len(st.Refused) != 0 {
		t.Errorf("still refused: %+v", st.Refused)
	}
}

// An operator's `ip route del` (a notification) is repaired at the next
// pass; a change no notification told (a lost message) at the next look.
func TestRepairs(t *testing.T) {
	s := newScene(t)
	s.begin()
	s.up("192.0.2.2", "192.0.2.1")
	s.r.Record("", []plugin.BestPathChange{change("198.51.100.0/25", hop("192.0.2.2", "192.0.2.2", "192.0.2.1"))}, true)
	s.pass(time.Second)
	want := "198.51.100.0/25 table 254 via 192.0.2.2 dev #2"
	s.want("installed", want)

	k := kroute.Key{Table: kroute.MainTable, Dst: netip.MustParsePrefix("198.51.100.0/25")}
	gone := s.k.routes[k]
	delete(s.k.routes, k)
	s.r.kernelEvent(kroute.Event{Deleted: true, Protocol: kroute.Protocol, Type: kroute.TypeUnicast, Metric: kroute.Metric, Route: gone})
	s.pass(100 * time.Millisecond)
	s.want("deleted by hand, told", want)

	// Changed behind our back, untold: repaired by the next look only.
	s.k.routes[k] = kroute.Route{Key: k, NextHops: []kroute.NextHop{{Gateway: netip.MustParseAddr("192.0.2.99"), Ifindex: 2}}}
	s.pass(time.Second)
	s.want("untold: not seen yet", "198.51.100.0/25 table 254 via 192.0.2.99 dev #2")
	s.pass(time.Minute)
	s.want("repaired by the look", want)

	// Our own writes coming back change nothing.
	s.k.takeWrites()
	s.r.kernelEvent(kroute.Event{Protocol: kroute.Protocol, Type: kroute.TypeUnicast, Metric: kroute.Metric, Route: s.k.routes[k]})
	s.pass(100 * time.Millisecond)
	if w := s.k.takeWrites(); len(w) != 0 {
		t.Errorf("our own write's notification wrote %v", w)
	}

	// An operator's static route in our place (ip route replace ... metric
	// 20): ours is put back.
	s.k.routes[k] = kroute.Route{Key: k, NextHops: []kroute.NextHop{{Gateway: netip.MustParseAddr("192.0.2.77"), Ifindex: 2}}}
	s.r.kernelEvent(kroute.Event{Protocol: 4, Type: kroute.TypeUnicast, Metric: kroute.Metric, Route: s.k.routes[k]})
	s.pass(100 * time.Millisecond)
	s.want("replaced by a static route, told", want)

	// A lost notification asks for a look at once.
	delete(s.k.routes, k)
	s.r.kernelEvent(kroute.Event{Lost: true})
	s.pass(100 * time.Millisecond)
	s.want("lost notification", want)
}

// IPv4 routes over an interface peer's link-local next hop (RFC 8950),
// IPv6 ones too; ECMP over two neighbors is one multipath route.
func TestLinkLocalAndECMP(t *testing.T) {
	s := newScene(t)
	s.begin()
	s.up("fe80::2%eth1", "fe80::1")
	s.up("192.0.2.2", "192.0.2.1")
	s.up("192.0.2.3", "192.0.2.1")
	ll := plugin.BestPathHop{Nexthop: netip.MustParseAddr("fe80::2"), Neighbor: netip.MustParseAddr("fe80::2"), NeighborLocal: netip.MustParseAddr("fe80::1")}
	llGlobal := plugin.BestPathHop{Nexthop: netip.MustParseAddr("2001:db8:a1::1"), LinkLocal: netip.MustParseAddr("fe80::2"), Neighbor: netip.MustParseAddr("fe80::2"), NeighborLocal: netip.MustParseAddr("fe80::1")}
	s.r.Record("", []plugin.BestPathChange{
		change("198.51.100.0/25", ll),
		change("2001:db8:a1::/48", llGlobal),
		change("203.0.113.0/24", hop("192.0.2.3", "192.0.2.3", "192.0.2.1"), hop("192.0.2.2", "192.0.2.2", "192.0.2.1")),
	}, true)
	s.pass(time.Second)
	s.want("link-local and ECMP",
		"198.51.100.0/25 table 254 via fe80::2 dev #3",
		"2001:db8:a1::/48 table 254 via fe80::2 dev #3",
		"203.0.113.0/24 table 254 via 192.0.2.2 dev #2 via 192.0.2.3 dev #2")
	// One path of the set goes: the route is changed in place.
	s.r.Record("", []plugin.BestPathChange{change("203.0.113.0/24", hop("192.0.2.3", "192.0.2.3", "192.0.2.1"))}, false)
	s.k.takeWrites()
	s.pass(time.Second)
	if w := s.k.takeWrites(); len(w) != 1 || w[0].Delete {
		t.Errorf("a smaller ECMP set: writes %v, want one replace", w)
	}
}

// Each VRF's best paths go into its own table (one RIB per VRF: the same
// prefix in two VRFs is two routes), never the main table; a VRF without a
// device is refused with "no such table"; a path told in another VRF's RIB
// than its neighbor's is not installed.
func TestVRFTables(t *testing.T) {
	s := newScene(t)
	s.begin()
	s.up("198.51.100.2", "198.51.100.1")
	s.up("198.51.100.6", "198.51.100.5")
	s.up("192.0.2.2", "192.0.2.1")
	s.k.via[netip.MustParseAddr("198.51.100.6")] = kroute.NextHop{Gateway: netip.MustParseAddr("198.51.100.6"), Ifindex: 6}
	s.r.Record("blue", []plugin.BestPathChange{
		change("203.0.113.0/25", hop("198.51.100.2", "198.51.100.2", "198.51.100.1")),
		change("192.0.2.128/25", hop("198.51.100.2", "198.51.100.2", "198.51.100.1")),
	}, true)
	s.r.Record("gone", []plugin.BestPathChange{
		change("203.0.113.128/25", hop("198.51.100.6", "198.51.100.6", "198.51.100.5")),
	}, true)
	s.r.Record("", []plugin.BestPathChange{
		change("192.0.2.128/25", hop("192.0.2.2", "192.0.2.2", "192.0.2.1")),
		// A blue neighbor's path in the default VRF's RIB: not ours to install.
		change("203.0.113.64/26", hop("198.51.100.2", "198.51.100.2", "198.51.100.1")),
	}, true)
	s.pass(time.Second)
	s.want("per VRF",
		"203.0.113.0/25 table 10 via 198.51.100.2 dev #5",
		"192.0.2.128/25 table 10 via 198.51.100.2 dev #5",
		"192.0.2.128/25 table 254 via 192.0.2.2 dev #2")
	st := s.r.Status()
	if len(st.Refused) != 1 || st.Refused[0].VRF != "gone" || st.Refused[0].Reason != ReasonNoTable {
		t.Errorf("refused: %+v", st.Refused)
	}
	var blue bool
	for _, tb := range st.Tables {
		if tb.Table == 10 {
			blue = tb.VRF == "blue" && tb.Routes == 2
		}
	}
	if !blue {
		t.Errorf("status tables: %+v, want blue's table 10 with 2 routes", st.Tables)
	}
	// Blue withdraws its 192.0.2.128/25: the default VRF's stays.
	s.r.Record("blue", []plugin.BestPathChange{change("192.0.2.128/25")}, false)
	s.pass(time.Second)
	s.want("blue's withdrawn",
		"203.0.113.0/25 table 10 via 198.51.100.2 dev #5",
		"192.0.2.128/25 table 254 via 192.0.2.2 dev #2")
}

// At start the routes an earlier run left are taken over: those still
// wanted are kept without a write, the others are removed when the
// takeover hold ends; a stop removes every route of ours.
func TestTakeoverAndStop(t *testing.T) {
	s := newScene(t)
	kept := kroute.Route{Key: kroute.Key{Table: kroute.MainTable, Dst: netip.MustParsePrefix("198.51.100.0/25")}, NextHops: []kroute.NextHop{{Gateway: netip.MustParseAddr("192.0.2.2"), Ifindex: 2}}}
	stale := kroute.Route{Key: kroute.Key{Table: kroute.MainTable, Dst: netip.MustParsePrefix("198.51.100.128/25")}, NextHops: []kroute.NextHop{{Gateway: netip.MustParseAddr("192.0.2.3"), Ifindex: 2}}}
	s.k.routes[kept.Key], s.k.routes[stale.Key] = kept, stale
	s.begin()
	s.up("192.0.2.2", "192.0.2.1")
	s.r.Record("", []plugin.BestPathChange{change("198.51.100.0/25", hop("192.0.2.2", "192.0.2.2", "192.0.2.1"))}, true)
	s.pass(time.Second)
	if w := s.k.takeWrites(); len(w) != 0 {
		t.Errorf("taking over wrote %v", w)
	}
	s.want("during the hold", kept.String(), stale.String())
	s.pass(10 * time.Second)
	s.want("after the hold", kept.String())
	if err := s.r.removeAll(); err != nil {
		t.Fatal(err)
	}
	s.want("stopped")
}

// A route whose next hop can no longer be resolved is taken out, not
// left forwarding into nowhere.
func TestUnresolvableRouteRemoved(t *testing.T) {
	s := newScene(t)
	s.begin()
	s.up("203.0.113.9", "192.0.2.1")
	s.r.Record("", []plugin.BestPathChange{change("198.51.100.64/26", hop("203.0.113.9", "203.0.113.9", "192.0.2.1"))}, true)
	s.pass(time.Second)
	s.want("resolved", "198.51.100.64/26 table 254 via 192.0.2.254 dev #2")
	delete(s.k.via, netip.MustParseAddr("203.0.113.9"))
	s.r.kernelEvent(kroute.Event{Deleted: true, Protocol: 2, Type: kroute.TypeUnicast}) // an IGP route went: resolve again
	s.pass(100 * time.Millisecond)
	s.want("unresolvable")
	if st := s.r.Status(); len(st.Refused) != 1 || st.Refused[0].Reason != ReasonUnresolved {
		t.Errorf("refused: %+v", st.Refused)
	}
}

// Paths of our own never go into the kernel as BGP routes.
func TestOwnPathsNotInstalled(t *testing.T) {
	s := newScene(t)
	s.begin()
	s.r.Record("", []plugin.BestPathChange{change("198.51.100.0/25", plugin.BestPathHop{Nexthop: netip.MustParseAddr("0.0.0.0"), Local: true})}, true)
	s.pass(time.Second)
	s.want("own path")
	if st := s.r.Status(); len(st.Refused) != 0 {
		t.Errorf("refused: %+v", st.Refused)
	}
}
