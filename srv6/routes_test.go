package srv6

import (
	"errors"
	"net/netip"
	"slices"
	"testing"

	"github.com/authbgp/authbgpd/srv6policy"
)

// TestRouteTableSet: Set converges on the desired routes: extra ones
// deleted first, missing ones added, changed ones replaced, the same ones
// left alone; a route that fails is reported and the rest still applied.
func TestRouteTableSet(t *testing.T) {
	o := &ops{}
	kr := &fakeRoutes{o: o, routes: map[netip.Prefix]srv6policy.Route{}, fail: map[netip.Prefix]error{}}
	tab := routeTable{kr: kr, log: testLogger().WithField("t", 1), installed: map[netip.Prefix]Planned{}}
	segs := []netip.Addr{netip.MustParseAddr("fc00:0:3::1")}
	route := func(kind srv6policy.RouteKind, dst string, s ...netip.Addr) Planned {
		return Planned{Route: srv6policy.Route{Kind: kind, Dst: netip.MustParsePrefix(dst), Segments: s, KeyID: 42, OIF: 2}, Owner: "p " + dst}
	}
	plan := func(ps ...Planned) map[netip.Prefix]Planned {
		m := map[netip.Prefix]Planned{}
		for _, p := range ps {
			m[p.Route.Dst] = p
		}
		return m
	}
	same := route(srv6policy.RouteBSID, "fc00::1/128", segs...)
	changed := route(srv6policy.RouteSteer, "2001:db8::2/128", segs...)
	extra := route(srv6policy.RouteSteer, "2001:db8::3/128", segs...)
	kind := route(srv6policy.RouteSteer, "fc00::4/128", segs...)
	if failed := tab.Set(plan(same, changed, extra, kind)); len(failed) != 0 {
		t.Fatalf("first Set: %v", failed)
	}
	o.take()

	changed2 := route(srv6policy.RouteSteer, "2001:db8::2/128", netip.MustParseAddr("fc00:0:9::1"))
	kind2 := route(srv6policy.RouteBSID, "fc00::4/128", segs...) // another kind: deleted, then added
	missing := route(srv6policy.RouteBSID, "fc00::5/128", segs...)
	broken := route(srv6policy.RouteBSID, "fc00::6/128", segs...)
	boom := errors.New("boom")
	kr.fail[broken.Route.Dst] = boom
	failed := tab.Set(plan(same, changed2, kind2, missing, broken))
	l := o.take()
	t.Logf("ops %q", l)
	if len(failed) != 1 || !errors.Is(failed[broken.Route.Dst], boom) {
		t.Fatalf("failed %v; want only %s", failed, broken.Route.Dst)
	}
	for _, w := range []string{"route del 2001:db8::3/128", "route del fc00::4/128", "route replace", "route add fc00::4/128", "route add fc00::5/128"} {
		if index(l, w) < 0 {
			t.Errorf("no %q in %q", w, l)
		}
	}
	if index(l, "route del fc00::4/128") > index(l, "route add fc00::4/128") || index(l, "route del 2001:db8::3") > index(l, "route replace") {
		t.Errorf("deletes not first: %q", l)
	}
	if index(l, "route add fc00::1") >= 0 || index(l, "route replace fc00::1") >= 0 {
		t.Errorf("an unchanged route was touched: %q", l)
	}
	got := sortedPrefixes(tab.installed)
	want := []netip.Prefix{changed2.Route.Dst, same.Route.Dst, kind2.Route.Dst, missing.Route.Dst}
	slices.SortFunc(want, func(a, b netip.Prefix) int { return a.Addr().Compare(b.Addr()) })
	if !slices.Equal(got, want) || !slices.Equal(tab.installed[changed2.Route.Dst].Route.Segments, changed2.Route.Segments) {
		t.Fatalf("installed %v, want %v", got, want)
	}

	// A route that cannot be deleted stays installed, is reported, and is
	// deleted by a later Set.
	kr.fail[missing.Route.Dst] = boom
	failed = tab.Set(plan(same))
	if len(failed) != 1 || failed[missing.Route.Dst] == nil {
		t.Fatalf("failed %v", failed)
	}
	if _, ok := tab.installed[missing.Route.Dst]; !ok || len(tab.installed) != 2 {
		t.Fatalf("installed %v", sortedPrefixes(tab.installed))
	}
	delete(kr.fail, missing.Route.Dst)
	if failed := tab.Set(plan(same)); len(failed) != 0 || len(tab.installed) != 1 || len(kr.snapshot()) != 1 {
		t.Fatalf("failed %v installed %v kernel %v", failed, sortedPrefixes(tab.installed), kr.snapshot())
	}
}
