package fib

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/internal/testlog"
	"github.com/authbgp/authbgpd/kroute"
	"github.com/authbgp/authbgpd/peerindex"
	"github.com/authbgp/authbgpd/plugin"
)

// fakeKernel is the kernel's routing tables as a map: connected networks
// resolve next hops, a route may be made to fail.
type fakeKernel struct {
	mu        sync.Mutex
	routes    map[kroute.Key]kroute.Route
	fail      map[netip.Prefix]error        // writes of these destinations fail
	connected map[netip.Prefix]int          // connected networks and their device
	via       map[netip.Addr]kroute.NextHop // addresses reached through a router
	writes    []kroute.Op
	dumps     int
}

func newFakeKernel() *fakeKernel {
	return &fakeKernel{routes: map[kroute.Key]kroute.Route{}, fail: map[netip.Prefix]error{}, connected: map[netip.Prefix]int{}, via: map[netip.Addr]kroute.NextHop{}}
}

func (k *fakeKernel) Write(ops []kroute.Op, errs []error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for i, op := range ops {
		k.writes = append(k.writes, op)
		if err, ok := k.fail[op.Route.Dst]; ok && !op.Delete {
			errs[i] = fmt.Errorf("fib: replace %s: %w", op.Route, err)
			continue
		}
		if op.Delete {
			if _, ok := k.routes[op.Route.Key]; !ok {
				errs[i] = fmt.Errorf("fib: delete %s: %w", op.Route, kroute.ErrNotFound)
				continue
			}
			delete(k.routes, op.Route.Key)
			continue
		}
		r := op.Route
		r.NextHops = slices.Clone(r.NextHops)
		k.routes[r.Key] = r
	}
}

func (k *fakeKernel) Each(fn func(kroute.Route)) error {
	k.mu.Lock()
	rs := make([]kroute.Route, 0, len(k.routes))
	for _, r := range k.routes {
		r.NextHops = slices.Clone(r.NextHops)
		rs = append(rs, r)
	}
	k.dumps++
	k.mu.Unlock()
	for _, r := range rs {
		fn(r)
		clear(r.NextHops) // valid during fn only
	}
	return nil
}

func (k *fakeKernel) Resolve(table uint32, a netip.Addr) (kroute.NextHop, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for p, dev := range k.connected {
		if p.Contains(a) {
			return kroute.NextHop{Gateway: a, Ifindex: dev}, nil
		}
	}
	if nh, ok := k.via[a]; ok {
		return nh, nil
	}
	return kroute.NextHop{}, fmt.Errorf("fib: resolve %s in table %d: %w", a, table, kroute.ErrUnreachable)
}

func (k *fakeKernel) Watch(context.Context, func(kroute.Event)) error { return nil }
func (k *fakeKernel) Close() error                                    { return nil }

// table is what the kernel has, as strings, sorted.
func (k *fakeKernel) table() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []string
	for _, r := range k.routes {
		out = append(out, r.String())
	}
	slices.Sort(out)
	return out
}

func (k *fakeKernel) takeWrites() []kroute.Op {
	k.mu.Lock()
	defer k.mu.Unlock()
	w := k.writes
	k.writes = nil
	return w
}

type fakeDevices struct {
	ifs  map[string]int
	vrfs map[string]uint32
}

func (d fakeDevices) IfIndex(name string) (int, error) {
	if i, ok := d.ifs[name]; ok {
		return i, nil
	}
	return 0, fmt.Errorf("no device %s", name)
}

func (d fakeDevices) VRFTable(name string) (uint32, error) {
	if t, ok := d.vrfs[name]; ok {
		return t, nil
	}
	return 0, fmt.Errorf("no VRF %s", name)
}

// scene is a reconciler on a fake kernel with a config's peers, driven
// pass by pass (no goroutine: the test is the loop).
type scene struct {
	t   *testing.T
	k   *fakeKernel
	r   *Reconciler
	idx *peerindex.Index
	now time.Time
	sn  *peerindex.Snapshot
}

const sceneConfig = `
[global]
asn = 65001
router-id = "192.0.2.1"

[[peers]]
address = "192.0.2.2"
asn = 65002

[[peers]]
address = "192.0.2.3"
asn = 65003

[[peers]]
address = "203.0.113.9"
asn = 65001
multihop-ttl = 3

[[peers]]
interface = "eth1"
asn = 65101

[[peers]]
address = "198.51.100.2"
asn = 65010
vrf = "blue"

[[peers]]
address = "198.51.100.6"
asn = 65011
vrf = "gone"
`

func newScene(t *testing.T) *scene {
	t.Helper()
	cfg, err := config.Parse("fib.toml", []byte(sceneConfig))
	if err != nil {
		t.Fatal(err)
	}
	k := newFakeKernel()
	k.connected[netip.MustParsePrefix("192.0.2.0/24")] = 2
	k.connected[netip.MustParsePrefix("198.51.100.0/30")] = 5
	k.via[netip.MustParseAddr("203.0.113.9")] = kroute.NextHop{Gateway: netip.MustParseAddr("192.0.2.254"), Ifindex: 2}
	log := logrus.New()
	log.SetOutput(&testlog.Buffer{})
	r := New(Options{Kernel: k, Devices: fakeDevices{ifs: map[string]int{"eth1": 3}, vrfs: map[string]uint32{"blue": 10}}, Logger: log, TakeoverHold: 10 * time.Second})
	r.SetIndex(peerindex.New(cfg))
	s := &scene{t: t, k: k, r: r, idx: peerindex.New(cfg), now: time.Unix(1_800_000_000, 0), sn: &peerindex.Snapshot{Sessions: map[peerindex.Neighbor]peerindex.Session{}}}
	return s
}

func (s *scene) begin() {
	s.t.Helper()
	if err := s.r.begin(s.now); err != nil {
		s.t.Fatal(err)
	}
}

// up records an established session with peer (zoned when link-local)
// from our address local, in the VRF of its configured peer.
func (s *scene) up(peer, local string) {
	vrf := ""
	if p := s.idx.Owner(netip.MustParseAddr(peer).WithZone("")); p != nil {
		vrf = p.Config.VRF
	}
	s.upIn(vrf, peer, local)
}

// upIn is up in vrf's GoBGP instance.
func (s *scene) upIn(vrf, peer, local string) {
	sessions := map[peerindex.Neighbor]peerindex.Session{}
	for a, v := range s.sn.Sessions {
		sessions[a] = v
	}
	a := netip.MustParseAddr(peer)
	sessions[peerindex.Neighbor{VRF: vrf, Addr: a}] = peerindex.Session{Established: true, Local: netip.AddrPortFrom(netip.MustParseAddr(local), 179), Remote: netip.AddrPortFrom(a, 40000)}
	s.sn = &peerindex.Snapshot{Sessions: sessions}
	s.r.Apply(s.sn)
}

func (s *scene) down(peer string) {
	sessions := map[peerindex.Neighbor]peerindex.Session{}
	for a, v := range s.sn.Sessions {
		if a.Addr != netip.MustParseAddr(peer) {
			sessions[a] = v
		}
	}
	s.sn = &peerindex.Snapshot{Sessions: sessions}
	s.r.Apply(s.sn)
}

func (s *scene) pass(d time.Duration) {
	s.now = s.now.Add(d)
	s.r.runPass(s.now)
}

func (s *scene) want(what string, routes ...string) {
	s.t.Helper()
	slices.Sort(routes)
	if got := s.k.table(); !slices.Equal(got, routes) {
		s.t.Errorf("%s: the kernel has\n  %q\nwant\n  %q", what, got, routes)
	}
}

// hop is a best path from neighbor (our end local) with next hop nh.
func hop(nh, neighbor, local string) plugin.BestPathHop {
	h := plugin.BestPathHop{Nexthop: netip.MustParseAddr(nh)}
	if neighbor != "" {
		h.Neighbor, h.NeighborLocal = netip.MustParseAddr(neighbor), netip.MustParseAddr(local)
	}
	return h
}

func change(pfx string, hops ...plugin.BestPathHop) plugin.BestPathChange {
	return plugin.BestPathChange{Prefix: netip.MustParsePrefix(pfx), Paths: hops}
}
