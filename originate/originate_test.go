package originate

import (
	"context"
	"errors"
	"io"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/status"
)

func net(prefix, vrf string, cs ...config.Community) config.Network {
	return config.Network{Prefix: netip.MustParsePrefix(prefix), VRF: vrf, Communities: cs}
}

func k(prefix, vrf string) key { return key{vrf: vrf, prefix: netip.MustParsePrefix(prefix)} }

func wantOf(nets ...config.Network) map[key]route {
	m := map[key]route{}
	for i := range nets {
		r := routeOf(&nets[i])
		m[r.key] = r
	}
	return m
}

func ids(rs []route) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.id)
	}
	return out
}

func TestPlan(t *testing.T) {
	a, b := net("192.0.2.0/24", ""), net("2001:db8::/32", "", 65001<<16|1)
	c := net("198.51.100.0/24", "blue")
	want := wantOf(a, b, c)
	// Nothing held: everything is added, in VRF then prefix order.
	p := makePlan(want, map[key]string{}, map[key]route{}, map[key]bool{})
	if got := ids(p.add); !slices.Equal(got, []string{"192.0.2.0/24", "2001:db8::/32", "198.51.100.0/24 in VRF blue"}) || len(p.withdraw)+len(p.forget) != 0 {
		t.Errorf("from nothing: %v %+v", got, p)
	}
	// All held as wanted: nothing to do.
	held := map[key]string{}
	for kk, r := range want {
		held[kk] = r.attrs
	}
	if p := makePlan(want, held, want, map[key]bool{}); len(p.add)+len(p.withdraw)+len(p.forget) != 0 {
		t.Errorf("steady: %+v", p)
	}
	// Another path of ours at b's prefix (other communities: the API's, or
	// the config's before a reload): b is added again (replacing it).
	held[k("2001:db8::/32", "")] = attrsOf(nil, nil)
	if p := makePlan(want, held, want, map[key]bool{}); !slices.Equal(ids(p.add), []string{"2001:db8::/32"}) {
		t.Errorf("changed communities: %+v", p)
	}
	// a is no longer wanted: withdrawn, being ours and held; c is no
	// longer wanted and gone already: forgotten.
	delete(held, k("198.51.100.0/24", "blue"))
	p = makePlan(wantOf(b), held, want, map[key]bool{})
	if !slices.Equal(ids(p.withdraw), []string{"192.0.2.0/24"}) || !slices.Equal(p.forget, []key{k("198.51.100.0/24", "blue")}) {
		t.Errorf("removed: %+v", p)
	}
	// Keys whose RIB could not be read are neither added, withdrawn nor
	// forgotten.
	blind := map[key]bool{k("192.0.2.0/24", ""): true, k("198.51.100.0/24", "blue"): true}
	if p := makePlan(wantOf(b), map[key]string{}, want, blind); len(p.add) != 1 || len(p.withdraw)+len(p.forget) != 0 {
		t.Errorf("blind: %+v", p)
	}
	// A path of ours no network names and we did not add (the gRPC API's)
	// is left alone.
	held[k("203.0.113.0/24", "")] = ""
	if p := makePlan(want, map[key]string{k("203.0.113.0/24", ""): ""}, map[key]route{}, map[key]bool{}); len(p.withdraw) != 0 {
		t.Errorf("the API's path: %+v", p)
	}
}

func TestPathOf(t *testing.T) {
	n := net("2001:db8:1::/48", "", 65001<<16|100, config.CommunityNoExport)
	n.LargeCommunities = []config.LargeCommunity{{Global: 65001, Local1: 1, Local2: 2}}
	r := routeOf(&n)
	p, err := pathOf(r)
	if err != nil {
		t.Fatal(err)
	}
	if p.Family.Afi != api.Family_AFI_IP6 {
		t.Errorf("family %v", p.Family)
	}
	var mp api.MpReachNLRIAttribute
	var origin api.OriginAttribute
	found := 0
	for _, a := range p.Pattrs {
		if a.UnmarshalTo(&mp) == nil {
			found++
			if !slices.Equal(mp.NextHops, []string{"::"}) || len(mp.Nlris) != 1 {
				t.Errorf("MP_REACH: %v", &mp)
			}
		}
		if a.UnmarshalTo(&origin) == nil {
			found++
			if origin.Origin != 0 {
				t.Errorf("origin %d", origin.Origin)
			}
		}
	}
	if found != 2 {
		t.Errorf("MP_REACH and ORIGIN: %d found", found)
	}
	pfx, attrs, err := observedAttrs(p)
	if err != nil || pfx != n.Prefix || attrs != r.attrs {
		t.Errorf("observed %v %q %v, want %v %q", pfx, attrs, err, n.Prefix, r.attrs)
	}
	v4, _ := pathOf(routeOf(&config.Network{Prefix: netip.MustParsePrefix("192.0.2.0/24")}))
	var nh api.NextHopAttribute
	ok := false
	for _, a := range v4.Pattrs {
		ok = ok || a.UnmarshalTo(&nh) == nil && nh.NextHop == "0.0.0.0"
	}
	if !ok || v4.Family.Afi != api.Family_AFI_IP {
		t.Errorf("IPv4: %v", v4)
	}
}

// fakeRIB is GoBGP's RIBs: the paths of ours by VRF and prefix.
type fakeRIB struct {
	mu      sync.Mutex
	paths   map[key]*api.Path
	failAdd map[string]error // by VRF
	failLs  error
	adds    int
}

func newFake() *fakeRIB { return &fakeRIB{paths: map[key]*api.Path{}, failAdd: map[string]error{}} }

func (f *fakeRIB) AddPathIn(_ context.Context, vrf string, p *api.Path) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failAdd[vrf]; err != nil {
		return err
	}
	pfx, _, _ := observedAttrs(p)
	f.paths[key{vrf, pfx}] = p
	f.adds++
	return nil
}

func (f *fakeRIB) DeletePathIn(_ context.Context, vrf string, p *api.Path) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	pfx, _, _ := observedAttrs(p)
	delete(f.paths, key{vrf, pfx})
	return nil
}

func (f *fakeRIB) LocalPathsIn(_ context.Context, vrf string, fam *api.Family, prefixes []string) ([]*api.Path, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failLs != nil {
		return nil, f.failLs
	}
	var out []*api.Path
	for _, s := range prefixes {
		if p, ok := f.paths[key{vrf, netip.MustParsePrefix(s)}]; ok && p.Family.Afi == fam.Afi {
			out = append(out, p)
		}
	}
	return out, nil
}

func (f *fakeRIB) held() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for kk := range f.paths {
		out = append(out, kk.prefix.String()+"@"+kk.vrf)
	}
	slices.Sort(out)
	return out
}

func quiet() *logrus.Logger { l := logrus.New(); l.SetOutput(io.Discard); return l }

func TestOriginator(t *testing.T) {
	ctx := context.Background()
	f := newFake()
	f.failAdd["blue"] = errors.New("plugin: start BGP in VRF blue: no such device")
	nets := []config.Network{net("192.0.2.0/24", ""), net("2001:db8::/32", "", 65001<<16|1), net("198.51.100.0/24", "blue")}
	o := New(nets, quiet())
	if err := o.start(ctx, f); err != nil {
		t.Fatal(err)
	}
	defer o.Stop(ctx)
	if got := f.held(); !slices.Equal(got, []string{"192.0.2.0/24@", "2001:db8::/32@"}) {
		t.Errorf("after start: %v", got)
	}
	st := o.Status()
	want := []status.Network{{Prefix: "192.0.2.0/24", Announced: true}, {Prefix: "2001:db8::/32", Announced: true},
		{Prefix: "198.51.100.0/24", VRF: "blue", LastError: "plugin: start BGP in VRF blue: no such device"}}
	if !slices.Equal(st, want) {
		t.Errorf("status: %+v", st)
	}
	// A reload: one removed, one added, one with other communities; the
	// failing one is retried and its error returned.
	next := []config.Network{net("2001:db8::/32", "", 65001<<16|2), net("203.0.113.0/24", ""), net("198.51.100.0/24", "blue")}
	err := o.Set(ctx, next)
	if err == nil || !strings.Contains(err.Error(), "network 198.51.100.0/24 in VRF blue: plugin: start BGP in VRF blue") {
		t.Errorf("Set: %v", err)
	}
	if got := f.held(); !slices.Equal(got, []string{"2001:db8::/32@", "203.0.113.0/24@"}) {
		t.Errorf("after reload: %v", got)
	}
	_, attrs, _ := observedAttrs(f.paths[k("2001:db8::/32", "")])
	if attrs != attrsOf([]uint32{65001<<16 | 2}, nil) {
		t.Errorf("communities not replaced: %q", attrs)
	}
	// The VRF comes up: the next pass announces it.
	f.mu.Lock()
	delete(f.failAdd, "blue")
	f.mu.Unlock()
	if err := o.Set(ctx, next); err != nil {
		t.Errorf("Set again: %v", err)
	}
	for _, n := range o.Status() {
		if !n.Announced || n.LastError != "" {
			t.Errorf("status after recovery: %+v", n)
		}
	}
	// A path withdrawn behind our back (the gRPC API) comes back, and an
	// unchanged config adds nothing else.
	f.mu.Lock()
	delete(f.paths, k("203.0.113.0/24", ""))
	adds := f.adds
	f.mu.Unlock()
	if err := o.Set(ctx, next); err != nil || f.adds != adds+1 || len(f.held()) != 3 {
		t.Errorf("repair: %v adds %d -> %d, %v", err, adds, f.adds, f.held())
	}
	// GoBGP cannot be read: nothing is touched, the networks say why.
	f.mu.Lock()
	f.failLs = errors.New("plugin: list paths: boom")
	f.mu.Unlock()
	if err := o.Set(ctx, nil); err == nil || len(f.held()) != 3 {
		t.Errorf("blind: %v %v", err, f.held())
	}
	f.mu.Lock()
	f.failLs = nil
	f.mu.Unlock()
	if err := o.Set(ctx, nil); err != nil || len(f.held()) != 0 || len(o.Status()) != 0 {
		t.Errorf("all removed: %v %v %v", err, f.held(), o.Status())
	}
}
