package peers

import (
	"context"
	"io"
	"net/netip"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"

	"github.com/authbgp/authbgpd/plugin"
	"github.com/authbgp/authbgpd/status"
)

// TestPrefixLimitNeighbor: max-prefixes is GoBGP's PrefixLimit on each of
// the neighbor's (and the range's group's) families, with the warning as
// its ShutdownThresholdPct; none without max-prefixes.
func TestPrefixLimitNeighbor(t *testing.T) {
	c := cfg(t, `
[[peers]]
address = "192.0.2.2"
asn = 65002
families = ["ipv4-unicast", "ipv6-unicast"]
max-prefixes = 100
max-prefixes-warning = 90
[[peers]]
prefix = "198.51.100.0/24"
asn = 65010
max-prefixes = 7
[[peers]]
address = "192.0.2.3"
asn = 65003
`)
	ap, err := apiPeer(c.Peer("192.0.2.2"), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(ap.AfiSafis) != 2 {
		t.Fatalf("families %v", ap.AfiSafis)
	}
	for _, af := range ap.AfiSafis {
		l := af.GetPrefixLimits()
		if l.GetMaxPrefixes() != 100 || l.GetShutdownThresholdPct() != 90 || !reflect.DeepEqual(l.GetFamily(), af.GetConfig().GetFamily()) {
			t.Errorf("%v: prefix limit %v", af.GetConfig().GetFamily(), l)
		}
	}
	g, err := apiPeerGroup(c.Peer("198.51.100.0/24"))
	if err != nil {
		t.Fatal(err)
	}
	if l := g.AfiSafis[0].GetPrefixLimits(); l.GetMaxPrefixes() != 7 || l.GetShutdownThresholdPct() != 0 {
		t.Errorf("range: prefix limit %v", l)
	}
	none, _ := apiPeer(c.Peer("192.0.2.3"), false)
	if l := none.AfiSafis[0].GetPrefixLimits(); l != nil {
		t.Errorf("no max-prefixes: prefix limit %v", l)
	}
}

// TestPrefixLimitPlan: a static peer's limit change is an in-place update
// (UpdatePeer), not a re-add, unless something else re-adds the neighbor
// anyway; a range's limit is its shape (re-added).
func TestPrefixLimitPlan(t *testing.T) {
	c := cfg(t, twoPeers)
	static := c.Peer("192.0.2.2")
	lim := *static
	lim.MaxPrefixes = 10
	ok := Want{Cfg: &lim}
	for _, tc := range []struct {
		name string
		f    gobgpFacts
		want []action
	}{
		{"limit changed", gobgpFacts{w: ok, inGoBGP: true, limits: true}, []action{{kind: actUpdateLimits, peer: &lim, step: stepLimits}}},
		{"limit changed, password in GoBGP", gobgpFacts{w: ok, inGoBGP: true, force: true, limits: true}, []action{{kind: actReaddNeighbor, peer: &lim, step: stepAdmin}}},
		{"limit changed, not in GoBGP", gobgpFacts{w: ok, known: true, limits: true}, []action{{kind: actReaddNeighbor, peer: &lim, step: stepAdd}}},
	} {
		if got := planGoBGP([]gobgpFacts{tc.f}); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: plan %+v, want %+v", tc.name, got, tc.want)
		}
	}
	if !sameShape(static, &lim) || !limitsDiffer(static, &lim) {
		t.Error("a static peer's limit: same shape, limits differ")
	}
	if other := lim; limitsDiffer(&lim, &other) {
		t.Error("the same limit differs")
	}
	if warn := lim; func() bool { warn.MaxPrefixesWarning = 80; return !limitsDiffer(&lim, &warn) }() {
		t.Error("another warning percent: the limits do not differ")
	}
	rng := c.Peer("198.51.100.0/24")
	rlim := *rng
	rlim.MaxPrefixes = 10
	if sameShape(rng, &rlim) || limitsDiffer(rng, &rlim) {
		t.Error("a range's limit: another shape, no in-place update")
	}
}

// TestPrefixLimitReload: a reload that changes a static peer's limit
// updates its neighbor in place (UpdatePeer with the new limit, no delete
// and re-add: its session stays) and is no re-add in the reload's plan; a
// range's limit change re-adds the range.
func TestPrefixLimitReload(t *testing.T) {
	s := newFakeSockets()
	m, b := start(t, cfg(t, twoPeers), s, io.Discard)
	established(b, "192.0.2.2")
	waitFor(t, "established", func() bool { return m.Status()[0].State == "established" })
	next := strings.Replace(twoPeers, "asn = 65002\n", "asn = 65002\nmax-prefixes = 10\nmax-prefixes-warning = 80\n", 1)
	if got := m.Plan(cfg(t, next)).Readds; len(got) != 0 {
		t.Errorf("readds %q, want none", got)
	}
	rngNext := strings.Replace(twoPeers, "asn = 65010\n", "asn = 65010\nmax-prefixes = 10\n", 1)
	if got := m.Plan(cfg(t, rngNext)).Readds; !slices.Equal(got, []string{"198.51.100.0/24"}) {
		t.Errorf("range: readds %q", got)
	}
	before := len(b.calls)
	if _, err := m.Reload(context.Background(), cfg(t, next)); err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	got := slices.Clone(b.calls[before:])
	p := b.peers["192.0.2.2"]
	b.mu.Unlock()
	if !slices.Equal(got, []string{"update 192.0.2.2"}) {
		t.Fatalf("GoBGP calls %q, want one UpdatePeer", got)
	}
	want := &api.PrefixLimit{Family: p.AfiSafis[0].GetConfig().GetFamily(), MaxPrefixes: 10, ShutdownThresholdPct: 80}
	if l := p.AfiSafis[0].GetPrefixLimits(); !reflect.DeepEqual(l, want) {
		t.Errorf("limit %v, want %v", l, want)
	}
	// The next pass has nothing left to do.
	before = len(b.calls)
	m.Reconcile(context.Background())
	if got := b.calls[before:]; len(got) != 0 {
		t.Errorf("after the update: GoBGP calls %q", got)
	}
}

// TestPrefixLimitExceeded: GoBGP's prefix-limit Cease counts for the
// configured peer that owns the address (a range for its sessions), is
// logged naming the peer and its limit, and shows in /status: the peer's
// prefix_limit, and last_error's max_prefixes when the session's end was
// the limit's.
func TestPrefixLimitExceeded(t *testing.T) {
	c := cfg(t, strings.Replace(strings.Replace(twoPeers, "asn = 65002\n", "asn = 65002\nmax-prefixes = 3\nmax-prefixes-warning = 80\n", 1),
		"asn = 65010\n", "asn = 65010\nmax-prefixes = 9\n", 1))
	logs := &strings.Builder{}
	m, b := start(t, c, newFakeSockets(), logs)
	// The sessions' events come first (each reads the index the hook
	// reads too).
	established(b, "192.0.2.2")
	waitFor(t, "established", func() bool { return m.Status()[0].State == "established" })
	a2 := netip.MustParseAddr("192.0.2.2")
	m.PrefixLimitExceeded("", a2)
	m.PrefixLimitExceeded("", a2)
	m.PrefixLimitExceeded("", netip.MustParseAddr("198.51.100.7"))
	if l := logs.String(); !strings.Contains(l, "max-prefixes exceeded") || !strings.Contains(l, "peer=192.0.2.2") ||
		!strings.Contains(l, "max_prefixes=3") || !strings.Contains(l, "exceeded=2") ||
		!strings.Contains(l, "peer=198.51.100.7") || !strings.Contains(l, "range=198.51.100.0/24") || !strings.Contains(l, "max_prefixes=9") {
		t.Errorf("log:\n%s", l)
	}
	byID := map[string]status.Peer{}
	for _, p := range m.Status() {
		byID[p.Address] = p
	}
	for id, want := range map[string]*status.PrefixLimit{
		"192.0.2.2":       {MaxPrefixes: 3, WarningPct: 80, Exceeded: 2},
		"198.51.100.0/24": {MaxPrefixes: 9, Exceeded: 1},
		"192.0.2.3":       nil,
	} {
		if got := byID[id].PrefixLimit; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: prefix_limit %+v, want %+v", id, got, want)
		}
	}

	// The session's end: named for the limit when it was the limit's.
	a3 := netip.MustParseAddr("192.0.2.3")
	src := fakeSessions{down: map[netip.Addr]plugin.Down{
		a2: {Reason: "notification-sent code 6(cease) subcode 1(maximum number of prefixes reached)", PrefixLimit: true},
		a3: {Reason: "hold-timer-expired"},
	}}
	out := []status.Peer{byID["192.0.2.2"], {Address: "192.0.2.3", PrefixLimit: &status.PrefixLimit{MaxPrefixes: 4}}}
	addSessions(context.Background(), out, src, time.Now(), time.Now())
	if e := out[0].LastError; e == nil || e.MaxPrefixes != 3 {
		t.Errorf("the limit's end: last error %+v, want max_prefixes 3", e)
	}
	if e := out[1].LastError; e == nil || e.MaxPrefixes != 0 {
		t.Errorf("another end: last error %+v, want no max_prefixes", e)
	}
}
