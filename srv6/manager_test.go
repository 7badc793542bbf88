package srv6

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/osrg/gobgp/v3/pkg/apiutil"
	"github.com/osrg/gobgp/v3/pkg/packet/bgp"
	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/metrics"
	"github.com/authbgp/authbgpd/plugin"
	"github.com/authbgp/authbgpd/srv6policy"
)

// ops is the ordered log of what the fakes did to the "kernel" and to
// "GoBGP", shared so tests can check ordering across them.
type ops struct {
	mu  sync.Mutex
	log []string
}

func (o *ops) add(format string, a ...any) {
	o.mu.Lock()
	o.log = append(o.log, fmt.Sprintf(format, a...))
	o.mu.Unlock()
}

func (o *ops) take() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	l := o.log
	o.log = nil
	return l
}

// index returns the position of the first entry starting with prefix, or -1.
func index(l []string, prefix string) int {
	for i, s := range l {
		if strings.HasPrefix(s, prefix) {
			return i
		}
	}
	return -1
}

type fakeKeys struct {
	o      *ops
	keys   map[uint32]string // id -> "alg/secret"
	tunsrc netip.Addr
	setErr error
}

func (k *fakeKeys) Set(id uint32, alg srv6policy.Algorithm, secret []byte) error {
	if k.setErr != nil {
		return k.setErr
	}
	k.keys[id] = alg.String() + "/" + string(secret)
	k.o.add("key set %d", id)
	return nil
}

func (k *fakeKeys) Delete(id uint32) error {
	if _, ok := k.keys[id]; !ok {
		return srv6policy.ErrKeyNotFound
	}
	delete(k.keys, id)
	k.o.add("key del %d", id)
	return nil
}

func (k *fakeKeys) Dump() ([]srv6policy.KernelKey, error) {
	var out []srv6policy.KernelKey
	for id, v := range k.keys {
		alg, sec, _ := strings.Cut(v, "/")
		a, _ := srv6policy.ParseAlgorithm(alg)
		out = append(out, srv6policy.KernelKey{ID: id, Algorithm: a, Secret: srv6policy.Secret(sec)})
	}
	return out, nil
}

func (k *fakeKeys) TunnelSource() (netip.Addr, error) { return k.tunsrc, nil }

func (k *fakeKeys) SetTunnelSource(a netip.Addr) error {
	k.tunsrc = a
	k.o.add("tunsrc %s", a)
	return nil
}

func (k *fakeKeys) Close() error { return nil }

type fakeRoutes struct {
	o      *ops
	mu     sync.Mutex
	routes map[netip.Prefix]srv6policy.Route
	noPath map[netip.Addr]bool    // first segments without a route
	fail   map[netip.Prefix]error // Add, Replace and Delete of these fail
}

func (r *fakeRoutes) Add(rt srv6policy.Route) error { return r.put(rt, false) }

func (r *fakeRoutes) Replace(rt srv6policy.Route) error { return r.put(rt, true) }

func (r *fakeRoutes) put(rt srv6policy.Route, replace bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.fail[rt.Dst]; err != nil {
		return err
	}
	if _, ok := r.routes[rt.Dst]; ok && !replace {
		return srv6policy.ErrRouteExists
	}
	r.routes[rt.Dst] = rt
	r.o.add("route %s %s", map[bool]string{false: "add", true: "replace"}[replace], rt)
	return nil
}

func (r *fakeRoutes) Delete(dst netip.Prefix) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.fail[dst]; err != nil {
		return err
	}
	if _, ok := r.routes[dst]; !ok {
		return srv6policy.ErrRouteNotFound
	}
	delete(r.routes, dst)
	r.o.add("route del %s", dst)
	return nil
}

func (r *fakeRoutes) Flush() (int, error) { return 0, nil }

func (r *fakeRoutes) InterfaceTo(a netip.Addr) (int, error) {
	if r.noPath[a] {
		return 0, fmt.Errorf("no route to %s", a)
	}
	return 2, nil
}

func (r *fakeRoutes) Close() error { return nil }

func (r *fakeRoutes) snapshot() map[netip.Prefix]srv6policy.Route {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[netip.Prefix]srv6policy.Route{}
	for k, v := range r.routes {
		out[k] = v
	}
	return out
}

// fakeHost is GoBGP: AddPath and DeletePathByUUID are logged, ListPath
// returns rib (binary form, as with EnableOnlyBinary).
type fakeHost struct {
	o    *ops
	mu   sync.Mutex
	n    int
	rib  []*api.Path // received paths
	live map[string]string
}

func (h *fakeHost) AddPath(_ context.Context, p *api.Path) ([]byte, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.n++
	n, _ := apiutil.GetNativeNlri(p)
	h.o.add("addpath %s", n)
	id := fmt.Sprintf("uuid-%d", h.n)
	h.live[id] = n.String()
	return []byte(id), nil
}

func (h *fakeHost) DeletePathByUUID(_ context.Context, uuid []byte) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	n, ok := h.live[string(uuid)]
	if !ok {
		return fmt.Errorf("can't find a specified path")
	}
	delete(h.live, string(uuid))
	h.o.add("delpath %s", n)
	return nil
}

func (h *fakeHost) ListPath(_ context.Context, fam *api.Family, opts ...plugin.ListPathOption) ([]*api.Destination, error) {
	r := &api.ListPathRequest{}
	for _, o := range opts {
		o(r)
	}
	if !r.EnableOnlyBinary {
		return nil, fmt.Errorf("ListPath without EnableOnlyBinary")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []*api.Destination
	for _, p := range h.rib {
		if p.Family.Afi == fam.Afi {
			out = append(out, &api.Destination{Prefix: "x", Paths: []*api.Path{p}})
		}
	}
	return out, nil
}

func (h *fakeHost) Subscribe(int) (<-chan plugin.PeerEvent, func()) {
	ch := make(chan plugin.PeerEvent)
	return ch, func() {}
}

func (h *fakeHost) setRIB(paths ...*api.Path) {
	h.mu.Lock()
	h.rib = paths
	h.mu.Unlock()
}

// receivedPath is the binary ListPath form of p as received from neighbor.
func receivedPath(t *testing.T, p srv6policy.Policy, asn uint32, neighbor string) *api.Path {
	t.Helper()
	ap, err := p.Path(asn)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := apiutil.GetNativeNlri(ap)
	nb, _ := n.Serialize()
	attrs, err := apiutil.GetNativePathAttributes(ap)
	if err != nil {
		t.Fatal(err)
	}
	out := &api.Path{Family: ap.Family, NlriBinary: nb, NeighborIp: neighbor, SourceAsn: asn}
	for _, a := range attrs {
		if nh, ok := a.(*bgp.PathAttributeNextHop); ok {
			a = bgp.NewPathAttributeMpReachNLRI(nh.Value.String(), []bgp.AddrPrefixInterface{n})
		}
		b, _ := a.Serialize()
		out.PattrsBinary = append(out.PattrsBinary, b)
	}
	return out
}

func testLogger() *logrus.Logger {
	l := logrus.New()
	l.SetOutput(io.Discard)
	return l
}

type srv6Fixture struct {
	t      *testing.T
	o      *ops
	keys   *fakeKeys
	routes *fakeRoutes
	host   *fakeHost
	m      *metrics.Metrics
	s      *Manager
	logs   *bytes.Buffer
}

func newSRv6Fixture(t *testing.T, cfg *config.Config) *srv6Fixture {
	o := &ops{}
	f := &srv6Fixture{
		t: t, o: o,
		keys:   &fakeKeys{o: o, keys: map[uint32]string{}, tunsrc: netip.IPv6Unspecified()},
		routes: &fakeRoutes{o: o, routes: map[netip.Prefix]srv6policy.Route{}, noPath: map[netip.Addr]bool{}},
		host:   &fakeHost{o: o, live: map[string]string{}},
		m:      metrics.New("test"),
		logs:   &bytes.Buffer{},
	}
	l := logrus.New()
	l.SetOutput(&syncWriter{w: f.logs})
	l.SetLevel(logrus.DebugLevel)
	f.s = New(cfg, l, f.m)
	f.s.poll = time.Hour // passes run on demand in tests
	f.s.openKeys = func() (kernelKeys, error) { return f.keys, nil }
	f.s.openRoutes = func() (kernelRoutes, error) { return f.routes, nil }
	f.s.direct = func(a netip.Addr) bool { return strings.HasPrefix(a.String(), "2001:db8:12::") }
	return f
}

type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

// start is Start with a fake host.
func (s *Manager) start(ctx context.Context, h bgpHost) error {
	s.begin(ctx, h)
	return nil
}

// pass runs one headend pass now (the loop's first pass runs at start).
func (f *srv6Fixture) pass() {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	f.s.passLocked(context.Background())
}

// waitFirstPass waits for the loop's first pass after start.
func (f *srv6Fixture) waitFirstPass() {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		f.s.mu.Lock()
		done := f.s.he == nil || f.s.he.passes > 0
		f.s.mu.Unlock()
		if done {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	f.t.Fatal("no headend pass")
}

func mustConfig(t *testing.T, s string) *config.Config {
	t.Helper()
	c, err := config.Parse("t.toml", []byte(s))
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	return c
}

const srv6Global = `
[global]
asn = 65002
router-id = "192.0.2.2"
listen-port = -1
[api]
grpc = ""
http = ""
`

func srv6Key(id int, secret string) string {
	return fmt.Sprintf("[[srv6.hmac-keys]]\nid = %d\nalgorithm = \"sha256\"\nsecret = %q\n", id, secret)
}

const srv6Headend = `
[srv6.headend]
enabled = true
source = "2001:db8:ff::2"
steer-endpoint = true
`

const polA = `
[[srv6.policies]]
name = "a"
color = 100
endpoint = "2001:db8:3::30"
distinguisher = 1
binding-sid = "fc00:0:2:b6::a"
segments = ["fc00:0:3::1"]
hmac-key-id = 42
headends = ["192.0.2.9"]
`

var (
	rcvBase = srv6policy.Policy{
		Color: 100, Endpoint: netip.MustParseAddr("2001:db8:3::3"), Distinguisher: 1, Preference: 100,
		BindingSID: netip.MustParseAddr("fc00:0:1:b6::100"),
		Segments:   []netip.Addr{netip.MustParseAddr("fc00:0:3::e"), netip.MustParseAddr("fc00:0:3::d6")},
		KeyID:      42, Headends: []netip.Addr{netip.MustParseAddr("192.0.2.2")},
	}
	bsidP  = netip.MustParsePrefix("fc00:0:1:b6::100/128")
	steerP = netip.MustParsePrefix("2001:db8:3::3/128")
)

// TestSRv6KeysPoliciesHeadend walks through start, reloads and stop,
// checking the order of kernel and BGP operations, the refusal of a
// changed key in use, /status and metrics.
func TestSRv6KeysPoliciesHeadend(t *testing.T) {
	ctx := context.Background()
	cfg1 := mustConfig(t, srv6Global+srv6Key(42, "secret-42")+srv6Key(43, "secret-43")+polA+srv6Headend)
	f := newSRv6Fixture(t, cfg1)
	f.host.setRIB(receivedPath(t, rcvBase, 65001, "2001:db8:12::1"))
	if err := f.s.start(ctx, f.host); err != nil {
		t.Fatal(err)
	}
	f.waitFirstPass()
	l := f.o.take()
	t.Logf("start: %q", l)
	for _, want := range []string{"key set 42", "key set 43", "addpath", "tunsrc 2001:db8:ff::2", "route add fc00:0:1:b6::100/128", "route add 2001:db8:3::3/128"} {
		if index(l, want) < 0 {
			t.Fatalf("start did not %q: %q", want, l)
		}
	}
	if index(l, "key set 42") > index(l, "route add") || index(l, "key set 43") > index(l, "addpath") {
		t.Fatalf("keys not first: %q", l)
	}
	r := f.routes.snapshot()
	if got := r[bsidP]; got.Kind != srv6policy.RouteBSID || got.KeyID != 42 || !slices.Equal(got.Segments, rcvBase.Segments) || got.OIF != 2 {
		t.Fatalf("BSID route %+v", got)
	}
	if got := r[steerP]; got.Kind != srv6policy.RouteSteer || got.KeyID != 42 {
		t.Fatalf("steer route %+v", got)
	}
	st := f.s.Status()
	if len(st.HMACKeys) != 2 || !st.HMACKeys[0].Installed || st.HMACKeys[0].Error != "" {
		t.Fatalf("status keys %+v", st.HMACKeys)
	}
	rname := "[1][100][2001:db8:3::3] from 2001:db8:12::1"
	if len(st.Policies) != 2 || st.Policies[0].Name != "a" || !st.Policies[0].Advertised ||
		st.Policies[1].Name != rname || !st.Policies[1].Installed || st.Policies[1].Reason != "" {
		t.Fatalf("status policies %+v", st.Policies)
	}
	if v, ok := metricValue(t, f.m, "authbgpd_srv6_policy_installed", "name", rname); !ok || v != 1 {
		t.Fatalf("authbgpd_srv6_policy_installed{name=%q} = %v (present %v)", rname, v, ok)
	}

	// Reload: key 42's secret changes while in use (policy a, installed
	// routes): refused; key 44 added; key 43 no longer configured:
	// removed; policy a removed: withdrawn.
	cfg2 := mustConfig(t, srv6Global+srv6Key(42, "CHANGED-42")+srv6Key(44, "secret-44")+srv6Headend)
	err := f.s.Reload(ctx, cfg2)
	if err == nil || !strings.Contains(err.Error(), "rotate to a NEW key ID") || strings.Contains(err.Error(), "CHANGED") {
		t.Fatalf("reload: %v", err)
	}
	l = f.o.take()
	t.Logf("reload 2: %q", l)
	if index(l, "key set 42") >= 0 || index(l, "key set 44") < 0 || index(l, "key del 43") < 0 || index(l, "delpath") < 0 {
		t.Fatalf("reload 2 ops %q", l)
	}
	if f.keys.keys[42] != "sha256/secret-42" {
		t.Fatalf("key 42 in the kernel: %q", f.keys.keys[42])
	}
	st = f.s.Status()
	if k := st.HMACKeys[0]; k.ID != 42 || !k.Installed || !strings.Contains(k.Error, "rotate to a NEW key ID") {
		t.Fatalf("status key 42: %+v", k)
	}
	if len(f.routes.snapshot()) != 2 {
		t.Fatal("routes gone after a refused key change")
	}
	// Changing it back clears the error.
	cfg2b := mustConfig(t, srv6Global+srv6Key(42, "secret-42")+srv6Key(44, "secret-44")+srv6Headend)
	if err := f.s.Reload(ctx, cfg2b); err != nil {
		t.Fatal(err)
	}
	if k := f.s.Status().HMACKeys[0]; k.Error != "" || !k.Installed {
		t.Fatalf("status key 42 after undo: %+v", k)
	}
	f.o.take()

	// Reload: key 42 removed: the routes that use it go first, then the
	// key.
	cfg3 := mustConfig(t, srv6Global+srv6Key(44, "secret-44")+srv6Headend)
	if err := f.s.Reload(ctx, cfg3); err != nil {
		t.Fatal(err)
	}
	l = f.o.take()
	t.Logf("reload 3: %q", l)
	if i, j := index(l, "route del"), index(l, "key del 42"); i < 0 || j < 0 || i > j {
		t.Fatalf("routes not removed before their key: %q", l)
	}
	st = f.s.Status()
	if len(st.Policies) != 1 || st.Policies[0].Installed || !strings.Contains(st.Policies[0].Reason, "HMAC key ID 42 not in our key table") {
		t.Fatalf("status after key removal: %+v", st.Policies)
	}
	if v, _ := metricValue(t, f.m, "authbgpd_srv6_policy_installed", "name", rname); v != 0 {
		t.Fatal("metric says installed")
	}

	// Key 42 back (not in use: installed), then a changed secret while
	// routes use it is refused again; Stop removes routes, then keys, and
	// restores the tunnel source.
	if err := f.s.Reload(ctx, cfg2b); err != nil {
		t.Fatal(err)
	}
	if len(f.routes.snapshot()) != 2 {
		t.Fatalf("routes not back: %v", f.routes.snapshot())
	}
	f.o.take()
	if err := f.s.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	l = f.o.take()
	t.Logf("stop: %q", l)
	if i, j := index(l, "route del"), index(l, "key del"); i < 0 || j < 0 || i > j || index(l, "tunsrc ::") < 0 {
		t.Fatalf("stop: %q", l)
	}
	if len(f.keys.keys) != 0 || len(f.routes.snapshot()) != 0 {
		t.Fatalf("left behind: keys %v routes %v", f.keys.keys, f.routes.snapshot())
	}
	if strings.Contains(f.logs.String(), "secret-4") || strings.Contains(f.logs.String(), "CHANGED") {
		t.Fatalf("a secret was logged:\n%s", f.logs.String())
	}
}

// metricValue returns the value of the sample of metric name whose label
// has value.
func metricValue(t *testing.T, m *metrics.Metrics, name, label, value string) (float64, bool) {
	t.Helper()
	mfs, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, s := range mf.GetMetric() {
			for _, lp := range s.GetLabel() {
				if lp.GetName() == label && lp.GetValue() == value {
					if c := s.GetCounter(); c != nil {
						return c.GetValue(), true
					}
					return s.GetGauge().GetValue(), true
				}
			}
		}
	}
	return 0, false
}

// TestSRv6HeadendSelection: validity rules, per (color, endpoint) the
// highest preference, withdrawal and a better candidate, conflicts.
func TestSRv6HeadendSelection(t *testing.T) {
	ctx := context.Background()
	cfg := mustConfig(t, srv6Global+srv6Key(42, "secret-42")+srv6Headend)
	f := newSRv6Fixture(t, cfg)
	if err := f.s.start(ctx, f.host); err != nil {
		t.Fatal(err)
	}
	f.waitFirstPass()
	defer f.s.Stop(ctx)

	low := rcvBase
	high := rcvBase
	high.Distinguisher, high.Preference = 2, 200
	high.Segments = []netip.Addr{netip.MustParseAddr("fc00:0:4::1")}
	high.BindingSID = netip.MustParseAddr("fc00:0:1:b6::200")
	otherRT := rcvBase
	otherRT.Color, otherRT.Headends = 300, []netip.Addr{netip.MustParseAddr("192.0.2.99")}
	unknownKey := rcvBase
	unknownKey.Color, unknownKey.KeyID = 400, 77
	noAdvDirect := rcvBase
	noAdvDirect.Color, noAdvDirect.Headends, noAdvDirect.BindingSID = 500, nil, netip.MustParseAddr("fc00:0:1:b6::500")
	noAdvDirect.Endpoint = netip.MustParseAddr("2001:db8:3::5")
	noAdvFar := noAdvDirect
	noAdvFar.Color = 600
	noRoute := rcvBase
	noRoute.Color, noRoute.Endpoint, noRoute.BindingSID = 700, netip.MustParseAddr("2001:db8:3::7"), netip.Addr{}
	noRoute.Segments = []netip.Addr{netip.MustParseAddr("fc00:0:9::1")}
	f.routes.noPath[netip.MustParseAddr("fc00:0:9::1")] = true
	sameBSID := rcvBase
	sameBSID.Color, sameBSID.Endpoint = 800, netip.MustParseAddr("2001:db8:3::8")
	sameBSID.BindingSID = high.BindingSID
	sameBSID.Preference = 50

	f.host.setRIB(
		receivedPath(t, low, 65001, "2001:db8:12::1"),
		receivedPath(t, high, 65001, "2001:db8:12::1"),
		receivedPath(t, otherRT, 65001, "2001:db8:12::1"),
		receivedPath(t, unknownKey, 65001, "2001:db8:12::1"),
		receivedPath(t, noAdvDirect, 65001, "2001:db8:12::1"),
		receivedPath(t, noAdvFar, 65001, "2001:db8:99::1"),
		receivedPath(t, noRoute, 65001, "2001:db8:12::1"),
		receivedPath(t, sameBSID, 65001, "2001:db8:12::1"),
		&api.Path{Family: rcvPath(t).Family, NlriBinary: []byte{0xc0, 1}, NeighborIp: "2001:db8:12::1"}, // malformed
		receivedPath(t, high, 65002, "<nil>"),                                                           // locally originated: ignored
	)
	f.pass()
	reasons := map[string]string{}
	installed := map[string]bool{}
	for _, p := range f.s.Status().Policies {
		reasons[p.Name], installed[p.Name] = p.Reason, p.Installed
	}
	t.Logf("%d policies:", len(reasons))
	for n, r := range reasons {
		t.Logf("  %s installed=%v %s", n, installed[n], r)
	}
	name := func(p srv6policy.Policy, nb string) string { return p.NLRIKey() + " from " + nb }
	expect := func(p srv6policy.Policy, nb string, inst bool, reason string) {
		t.Helper()
		n := name(p, nb)
		if installed[n] != inst || !strings.Contains(reasons[n], reason) {
			t.Errorf("%s: installed=%v reason %q; want %v, %q", n, installed[n], reasons[n], inst, reason)
		}
	}
	expect(high, "2001:db8:12::1", true, "")
	expect(low, "2001:db8:12::1", false, "not selected: [2][100][2001:db8:3::3] from 2001:db8:12::1 wins")
	expect(otherRT, "2001:db8:12::1", false, "for another headend: Route Target 192.0.2.99:0, our router ID is 192.0.2.2")
	expect(unknownKey, "2001:db8:12::1", false, "HMAC key ID 77 not in our key table")
	expect(noAdvDirect, "2001:db8:12::1", true, "")
	expect(noAdvFar, "2001:db8:99::1", false, "not directly connected")
	expect(noRoute, "2001:db8:12::1", false, "no route to the first segment fc00:0:9::1")
	expect(sameBSID, "2001:db8:12::1", true, "bsid route fc00:0:1:b6::200/128 is held by [2][100][2001:db8:3::3] from 2001:db8:12::1")
	if len(reasons) != 9 {
		t.Errorf("%d policies in /status, want 9 (the local one is not a received policy)", len(reasons))
	}
	r := f.routes.snapshot()
	if got := r[netip.MustParsePrefix("fc00:0:1:b6::200/128")]; !slices.Equal(got.Segments, high.Segments) {
		t.Fatalf("BSID of the best candidate: %+v", got)
	}
	if got := r[steerP]; !slices.Equal(got.Segments, high.Segments) {
		t.Fatalf("steer route of the best candidate: %+v", got)
	}
	if _, ok := r[bsidP]; ok {
		t.Fatal("the losing candidate's BSID is installed")
	}
	f.o.take()

	// The better candidate is withdrawn: the other one takes over (the
	// steer route replaced in place, the BSIDs swapped).
	f.host.setRIB(receivedPath(t, low, 65001, "2001:db8:12::1"))
	f.pass()
	l := f.o.take()
	t.Logf("withdrawal: %q", l)
	if index(l, "route replace 2001:db8:3::3/128") < 0 || index(l, "route del fc00:0:1:b6::200/128") < 0 || index(l, "route add fc00:0:1:b6::100/128") < 0 {
		t.Fatalf("withdrawal ops %q", l)
	}
	if n := len(f.routes.snapshot()); n != 2 {
		t.Fatalf("%d routes", n)
	}
	// All withdrawn: nothing left, metrics series gone.
	f.host.setRIB()
	f.pass()
	if n := len(f.routes.snapshot()); n != 0 {
		t.Fatalf("%d routes after withdrawal", n)
	}
	if _, ok := metricValue(t, f.m, "authbgpd_srv6_policy_installed", "name", name(low, "2001:db8:12::1")); ok {
		t.Fatal("metric of a withdrawn policy remains")
	}
	if st := f.s.Status(); len(st.Policies) != 0 {
		t.Fatalf("status %+v", st.Policies)
	}
}

func rcvPath(t *testing.T) *api.Path { return receivedPath(t, rcvBase, 65001, "2001:db8:12::1") }

// TestSRv6NoKernel: without CAP_NET_ADMIN every key says so in /status, no
// route is attempted, and policies are still advertised.
func TestSRv6NoKernel(t *testing.T) {
	ctx := context.Background()
	cfg := mustConfig(t, srv6Global+srv6Key(42, "secret-42")+polA+srv6Headend)
	f := newSRv6Fixture(t, cfg)
	perm := fmt.Errorf("%w: set HMAC key 42: operation not permitted", srv6policy.ErrPermission)
	f.s.openKeys = func() (kernelKeys, error) { return nil, perm }
	f.host.setRIB(rcvPath(t))
	if err := f.s.start(ctx, f.host); err != nil {
		t.Fatal(err)
	}
	f.waitFirstPass()
	defer f.s.Stop(ctx)
	st := f.s.Status()
	if k := st.HMACKeys[0]; k.Installed || !strings.Contains(k.Error, "CAP_NET_ADMIN") {
		t.Fatalf("key status %+v", k)
	}
	if !st.Policies[0].Advertised {
		t.Fatalf("policy not advertised: %+v", st.Policies[0])
	}
	if p := st.Policies[1]; p.Installed || !strings.Contains(p.Reason, "CAP_NET_ADMIN") {
		t.Fatalf("received policy %+v", p)
	}
	if len(f.routes.snapshot()) != 0 {
		t.Fatal("routes installed without keys")
	}
	// The kernel holds no key 42: the shadow still verifies other routers'
	// SRHs with the configured secret.
	src := netip.MustParseAddr("2001:db8::1")
	f.s.Verifier().Check(src, srhWith(t, src, "secret-42"), false)
	if got := srhCount(t, f.m, "42", "valid"); got != 1 {
		t.Errorf("valid{42} = %v without CAP_NET_ADMIN: the configured key is not used", got)
	}
}

// TestSRHVerifier: captured SRHs are counted per key ID and verdict, our
// own outgoing packets once, forwarded ones on the way in only.
func TestSRHVerifier(t *testing.T) {
	cfg := mustConfig(t, srv6Global+srv6Key(42, "srv6key"))
	m := metrics.New("test")
	v := newSRHVerifier(m)
	keys, errs := SRHKeys(cfg)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	v.setKeys(keys, true)
	if !v.Enabled() {
		t.Fatal("not enabled with a key")
	}
	key, _ := srv6policy.NewKey(42, srv6policy.SHA256, []byte("srv6key"))
	src := netip.MustParseAddr("2001:db8::1")
	srh, _ := srv6policy.EncapSRH([]netip.Addr{netip.MustParseAddr("fc00::1"), netip.MustParseAddr("fc00::2")}, 42)
	pc, err := key.Precompute(src, srh)
	if err != nil {
		t.Fatal(err)
	}
	good := pc.SRH()
	bad := pc.SRH()
	bad[len(bad)-1] ^= 1
	forwarded := pc.SRH()
	forwarded[3] = 0 // Segments Left moved on
	other := pc.SRH()
	other[len(other)-33] = 7 // key ID 42 -> 7 + ...
	nohmac, _ := srv6policy.EncapSRH([]netip.Addr{netip.MustParseAddr("fc00::1")}, 0)
	nb, _ := nohmac.Encode()
	v.Check(src, good, false)
	v.Check(src, good, true)
	v.Check(src, forwarded, false)
	v.Check(src, forwarded, true) // not counted
	v.Check(src, bad, false)
	v.Check(src, other, false)
	v.Check(src, nb, false)
	for _, c := range []struct {
		key, verdict string
		want         float64
	}{
		{"42", "valid", 3}, {"42", "invalid", 1}, {"0", "no_hmac", 1},
	} {
		if got := srhCount(t, m, c.key, c.verdict); got != c.want {
			t.Errorf("authbgpd_srh_hmac_total{key_id=%s,verdict=%s} = %v, want %v", c.key, c.verdict, got, c.want)
		}
	}
	var unknown float64
	mfs, _ := m.Registry().Gather()
	for _, mf := range mfs {
		if mf.GetName() == "authbgpd_srh_hmac_total" {
			for _, s := range mf.GetMetric() {
				for _, lp := range s.GetLabel() {
					if lp.GetName() == "verdict" && lp.GetValue() == "unknown_key" {
						unknown += s.GetCounter().GetValue()
					}
				}
			}
		}
	}
	if unknown != 1 {
		t.Errorf("unknown_key total %v, want 1", unknown)
	}
	// Keys removed by reload: the verifier forgets them.
	v.setKeys(map[uint32]*srv6policy.Key{}, false)
	if v.Enabled() {
		t.Fatal("enabled without keys")
	}
	v.Check(src, good, false)
	if got := srhCount(t, m, "42", "unknown_key"); got != 1 {
		t.Errorf("after removal: unknown_key{42} = %v", got)
	}
}

func srhCount(t *testing.T, m *metrics.Metrics, key, verdict string) float64 {
	t.Helper()
	mfs, _ := m.Registry().Gather()
	for _, mf := range mfs {
		if mf.GetName() != "authbgpd_srh_hmac_total" {
			continue
		}
		for _, s := range mf.GetMetric() {
			var k, v string
			for _, lp := range s.GetLabel() {
				switch lp.GetName() {
				case "key_id":
					k = lp.GetValue()
				case "verdict":
					v = lp.GetValue()
				}
			}
			if k == key && v == verdict {
				return s.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// TestSRv6OverGoBGP: a controller's policy, advertised by a real embedded
// GoBGP, received by another over a session on the loopback, is read back
// by the headend (ListPath in binary form) and installed (fake kernel),
// then withdrawn by a reload. Unprivileged.
func TestSRv6OverGoBGP(t *testing.T) {
	ctx := context.Background()
	pA, pB := freePort(t), freePort(t)
	fam := &api.Family{Afi: api.Family_AFI_IP6, Safi: api.Family_SAFI_SR_POLICY}
	newHost := func(asn uint32, rid, addr string, port int, nb string, nbPort int, passive bool) *plugin.Host {
		h, err := plugin.New(plugin.Options{ASN: asn, RouterID: rid, ListenPort: int32(port), ListenAddresses: []string{addr}, Logger: testLogger()})
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Stop(context.Background()) })
		err = h.AddPeer(ctx, &api.Peer{
			Conf:      &api.PeerConf{NeighborAddress: nb, PeerAsn: map[uint32]uint32{65001: 65002, 65002: 65001}[asn]},
			Timers:    &api.Timers{Config: &api.TimersConfig{ConnectRetry: 1, HoldTime: 90, KeepaliveInterval: 30}},
			Transport: &api.Transport{LocalAddress: addr, RemotePort: uint32(nbPort), PassiveMode: passive},
			AfiSafis:  []*api.AfiSafi{{Config: &api.AfiSafiConfig{Family: fam, Enabled: true}}},
		})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	ctrlHost := newHost(65001, "192.0.2.1", "127.0.0.1", pA, "127.0.0.2", pB, true)
	headHost := newHost(65002, "192.0.2.2", "127.0.0.2", pB, "127.0.0.1", pA, false)

	pol := `
[[srv6.policies]]
name = "gold"
color = 100
endpoint = "2001:db8:3::3"
distinguisher = 1
preference = 150
binding-sid = "fc00:0:1:b6::1f2e"
segments = ["fc00:0:3::e", "fc00:0:3::d6"]
hmac-key-id = 42
headends = ["192.0.2.2"]
`
	ctrlGlobal := strings.Replace(srv6Global, "65002", "65001", 1)
	ctrlGlobal = strings.Replace(ctrlGlobal, "192.0.2.2", "192.0.2.1", 1)
	ctrl := newSRv6Fixture(t, mustConfig(t, ctrlGlobal+srv6Key(42, "k42")+pol))
	if err := ctrl.s.start(ctx, ctrlHost); err != nil {
		t.Fatal(err)
	}
	head := newSRv6Fixture(t, mustConfig(t, srv6Global+srv6Key(42, "k42")+srv6Headend))
	head.s.poll = 100 * time.Millisecond
	if err := head.s.start(ctx, headHost); err != nil {
		t.Fatal(err)
	}
	defer head.s.Stop(ctx)
	waitRoutes := func(n int) map[netip.Prefix]srv6policy.Route {
		deadline := time.Now().Add(30 * time.Second)
		for {
			r := head.routes.snapshot()
			if len(r) == n {
				return r
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d headend routes, want %d; status %+v", len(r), n, head.s.Status())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	r := waitRoutes(2)
	segs := []netip.Addr{netip.MustParseAddr("fc00:0:3::e"), netip.MustParseAddr("fc00:0:3::d6")}
	if b := r[netip.MustParsePrefix("fc00:0:1:b6::1f2e/128")]; b.Kind != srv6policy.RouteBSID || b.KeyID != 42 || !slices.Equal(b.Segments, segs) {
		t.Fatalf("BSID route %+v (the BSID must keep all 16 bytes)", b)
	}
	if s := r[steerP]; s.Kind != srv6policy.RouteSteer || s.KeyID != 42 || !slices.Equal(s.Segments, segs) {
		t.Fatalf("steer route %+v", s)
	}
	st := head.s.Status()
	if len(st.Policies) != 1 || !st.Policies[0].Installed || !strings.HasPrefix(st.Policies[0].Name, "[1][100][2001:db8:3::3] from 127.0.0.1") {
		t.Fatalf("headend status %+v", st.Policies)
	}
	// The controller withdraws it (reload without the policy).
	if err := ctrl.s.Reload(ctx, mustConfig(t, ctrlGlobal+srv6Key(42, "k42"))); err != nil {
		t.Fatal(err)
	}
	waitRoutes(0)
	ctrl.s.Stop(ctx)
}

// freePort returns a TCP port that was free on 127.0.0.1 a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
