package peers

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/internal/testlog"
	"github.com/authbgp/authbgpd/tcpsock"
)

// fakeScopes is a kernel of interfaces and VRFs for the reconciler.
type fakeScopes struct {
	mu    sync.Mutex
	links map[string]Link
	vrfs  map[string]VRF
}

func (f *fakeScopes) Link(n string) Link {
	f.mu.Lock()
	defer f.mu.Unlock()
	l, ok := f.links[n]
	if !ok {
		return Link{Err: fmt.Errorf("interface %s: %w", n, ErrNoDevice)}
	}
	return l
}

func (f *fakeScopes) VRF(n string) VRF {
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.vrfs[n]
	if !ok {
		return VRF{Err: fmt.Errorf("VRF %s: %w", n, ErrNoDevice)}
	}
	return v
}

func (f *fakeScopes) set(n string, l Link) {
	f.mu.Lock()
	f.links[n] = l
	f.mu.Unlock()
}

func startScoped(t *testing.T, body string, s *fakeSockets, sc *fakeScopes) (*Manager, *fakeBGP, *testlog.Buffer) {
	t.Helper()
	var logs testlog.Buffer
	l := logrus.New()
	l.SetOutput(&logs)
	l.SetLevel(logrus.DebugLevel)
	m := New(Options{Config: cfg(t, body), Logger: l, Sockets: s, Scopes: sc})
	b := newFakeBGP()
	if err := m.start(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Stop(context.Background()) })
	return m, b, &logs
}

const unnumbered = `
[[peers]]
interface = "eth1"
asn = 65002
password = "Eth-One-Key"
[[peers]]
interface = "eth2"
asn = 65003
password = "Eth-Two-Key"
`

// TestInterfacePeerLearnt: an interface peer is not in GoBGP, and nothing
// is keyed or dialed for it, until its far end's link-local address is
// learnt; then GoBGP gets the zoned address, the listeners the key for the
// bare address and dials the key. The address stays when the neighbor
// entry goes, and a new address replaces the old neighbor and key.
func TestInterfacePeerLearnt(t *testing.T) {
	s := newFakeSockets()
	s.visible = true
	sc := &fakeScopes{links: map[string]Link{"eth1": {Err: errors.New("no IPv6 link-local neighbor on eth1 yet")}}, vrfs: map[string]VRF{}}
	m, b, _ := startScoped(t, unnumbered[:strings.Index(unnumbered, "[[peers]]\ninterface = \"eth2\"")], s, sc)
	if n := len(b.peers); n != 0 {
		t.Fatalf("GoBGP has %d neighbors before the address is learnt", n)
	}
	if len(s.listener) != 0 {
		t.Fatalf("listener keys before the address is learnt: %v", s.listener)
	}
	st := m.Status()
	if len(st) != 1 || st[0].Interface != "eth1" || st[0].Address != "" || st[0].State != "idle" || !strings.Contains(st[0].Auth.Error, "not known yet") {
		t.Fatalf("status before learning: %+v", st)
	}

	sc.set("eth1", Link{Peer: netip.MustParseAddr("fe80::2%eth1")})
	if err := m.pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	if p := b.peer("fe80::2%eth1"); p == nil || p.Conf.AdminDown {
		t.Fatalf("GoBGP neighbor fe80::2%%eth1: %v (all: %v)", p, b.calls)
	}
	if v, _ := s.key("fe80::2"); v != "Eth-One-Key" {
		t.Fatalf("listener key for fe80::2: %q (%v)", v, s.listener)
	}
	if err := m.dialKey(context.Background(), "", netip.MustParseAddr("fe80::2%eth1"), netip.MustParseAddrPort("[fe80::2%eth1]:179"), nil); err != nil {
		t.Fatal(err)
	}
	if got := s.dialedWith("[fe80::2%eth1]:179"); got != "Eth-One-Key" {
		t.Fatalf("dial got %q", got)
	}
	if st := m.Status(); st[0].Address != "fe80::2%eth1" || st[0].Interface != "eth1" || st[0].Auth.Error != "" {
		t.Fatalf("status once learnt: %+v", st[0])
	}

	// The neighbor entry expires: the peer keeps its address.
	sc.set("eth1", Link{Err: errors.New("no IPv6 link-local neighbor on eth1 yet")})
	if err := m.pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	if b.peer("fe80::2%eth1") == nil {
		t.Fatal("the neighbor went with its table entry")
	}

	// The far end is replaced (another address): the old neighbor and key go.
	sc.set("eth1", Link{Peer: netip.MustParseAddr("fe80::3%eth1")})
	if err := m.pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	if b.peer("fe80::2%eth1") != nil || b.peer("fe80::3%eth1") == nil {
		t.Fatalf("after the address changed: %v", b.calls)
	}
	if _, ok := s.key("fe80::2"); ok {
		t.Fatal("the old address's key stayed on the listeners")
	}
	if v, _ := s.key("fe80::3"); v != "Eth-One-Key" {
		t.Fatalf("listener key for fe80::3: %q", v)
	}
	if err := m.dialKey(context.Background(), "", netip.MustParseAddr("fe80::2%eth1"), netip.MustParseAddrPort("[fe80::2%eth1]:179"), nil); !errors.Is(err, ErrDialRefused) {
		t.Fatalf("dial to the old address: %v", err)
	}
}

// sameAddressScopes are eth1 and eth2 whose far ends both use fe80::2.
func sameAddressScopes() *fakeScopes {
	return &fakeScopes{links: map[string]Link{
		"eth1": {Peer: netip.MustParseAddr("fe80::2%eth1"), IfIndex: 11},
		"eth2": {Peer: netip.MustParseAddr("fe80::2%eth2"), IfIndex: 12},
	}, vrfs: map[string]VRF{}}
}

// TestInterfacePeersSameAddress: two interface peers whose far ends both
// use fe80::2, with different keys. The listeners carry one key per
// address: the first peer's, installed once (no flapping between the two),
// and each peer's dials get its own key.
func TestInterfacePeersSameAddress(t *testing.T) {
	s := newFakeSockets()
	s.visible = true
	sc := sameAddressScopes()
	m, b, logs := startScoped(t, unnumbered, s, sc)
	if want := []tcpsock.Guard{{Addr: netip.MustParseAddr("fe80::2"), IfIndex: 11}}; !slices.Equal(s.guards, want) {
		t.Fatalf("listener guards %v, want %v", s.guards, want)
	}
	for i := 0; i < 3; i++ {
		if err := m.pass(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if v, _ := s.key("fe80::2"); v != "Eth-One-Key" {
		t.Fatalf("listener key for fe80::2: %q", v)
	}
	if n := strings.Count(logs.String(), "TCP-MD5 key changed in place"); n != 0 {
		t.Fatalf("the listener key flapped %d times:\n%s", n, logs.String())
	}
	if b.peer("fe80::2%eth1") == nil || b.peer("fe80::2%eth2") == nil {
		t.Fatalf("GoBGP neighbors: %v", b.calls)
	}
	for remote, want := range map[string]string{"[fe80::2%eth1]:179": "Eth-One-Key", "[fe80::2%eth2]:179": "Eth-Two-Key"} {
		ap := netip.MustParseAddrPort(remote)
		if err := m.dialKey(context.Background(), "", ap.Addr(), ap, nil); err != nil {
			t.Fatal(err)
		}
		if got := s.dialedWith(remote); got != want {
			t.Fatalf("dial %s got %q, want %q", remote, got, want)
		}
	}
	if !strings.Contains(logs.String(), "comes up by our dial") {
		t.Fatalf("the shared listener is not explained:\n%s", logs.String())
	}
	for _, p := range m.Status() {
		if !p.Auth.Installed || p.Auth.Error != "" {
			t.Fatalf("status of %s: %+v", p.Interface, p.Auth)
		}
	}
	if strings.Contains(logs.String(), "Eth-Two-Key") || strings.Contains(logs.String(), "Eth-One-Key") {
		t.Fatal("a secret is in the log")
	}
}

const vrfPeer = `
[[peers]]
address = "192.0.2.2"
vrf = "blue"
asn = 65002
password = "Blue-Key"
`

// TestVRFPeerScoped: a VRF peer's keys carry the VRF's ifindex, its dials
// are bound to the device, and a missing VRF holds it down with nothing
// installed (a key that cannot be scoped is not installed unscoped).
func TestVRFPeerScoped(t *testing.T) {
	s := newFakeSockets()
	s.visible = true
	sc := &fakeScopes{links: map[string]Link{}, vrfs: map[string]VRF{}}
	m, b, _ := startScoped(t, vrfPeer, s, sc)
	if len(s.listener) != 0 {
		t.Fatalf("keys installed for a VRF that does not exist: %v", s.listener)
	}
	if p := b.peer("blue/192.0.2.2"); p == nil || !p.Conf.AdminDown {
		t.Fatalf("GoBGP neighbor of the missing VRF: %v", p)
	}
	st := m.Status()
	if st[0].VRF != "blue" || !strings.Contains(st[0].Auth.Error, `VRF "blue"`) || st[0].State != "admin-down" {
		t.Fatalf("status: %+v", st[0])
	}
	if err := m.dialKey(context.Background(), "", netip.MustParseAddr("192.0.2.2"), netip.MustParseAddrPort("192.0.2.2:179"), nil); !errors.Is(err, ErrDialRefused) {
		t.Fatalf("dial in a missing VRF: %v", err)
	}

	sc.mu.Lock()
	sc.vrfs["blue"] = VRF{Index: 7}
	sc.mu.Unlock()
	if err := m.pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.key("192.0.2.2 ifindex 7"); v != "Blue-Key" {
		t.Fatalf("scoped listener key: %q (%v)", v, s.listener)
	}
	if _, ok := s.key("192.0.2.2"); ok {
		t.Fatal("an unscoped key was installed")
	}
	p := b.peer("blue/192.0.2.2")
	if p == nil || p.Conf.AdminDown || p.Transport.GetBindInterface() != "blue" {
		t.Fatalf("GoBGP neighbor: %v", p)
	}
	if err := m.dialKey(context.Background(), "blue", netip.MustParseAddr("192.0.2.2"), netip.MustParseAddrPort("192.0.2.2:179"), nil); err != nil {
		t.Fatal(err)
	}
	// The default VRF's instance has no peer at that address: its dial is
	// refused, never keyed with blue's peer's key.
	if err := m.dialKey(context.Background(), "", netip.MustParseAddr("192.0.2.2"), netip.MustParseAddrPort("192.0.2.2:179"), nil); !errors.Is(err, ErrDialRefused) {
		t.Fatalf("a dial of the default VRF's instance to blue's peer's address: %v, want refused", err)
	}
}

// TestInterfaceInOtherVRF: an interface peer whose interface is in a VRF
// the config does not name is held down, naming both.
func TestInterfaceInOtherVRF(t *testing.T) {
	s := newFakeSockets()
	sc := &fakeScopes{links: map[string]Link{"eth1": {Peer: netip.MustParseAddr("fe80::2%eth1"), VRF: "red", VRFIndex: 9}}, vrfs: map[string]VRF{}}
	m, b, _ := startScoped(t, unnumbered[:strings.Index(unnumbered, "[[peers]]\ninterface = \"eth2\"")], s, sc)
	st := m.Status()
	if !strings.Contains(st[0].Auth.Error, "interface eth1 is in VRF red, but the peer's vrf is the default VRF") || !strings.Contains(st[0].Auth.Error, "r1.toml:") {
		t.Fatalf("status: %+v", st[0])
	}
	if len(s.listener) != 0 {
		t.Fatalf("keys installed: %v", s.listener)
	}
	if p := b.peer("fe80::2%eth1"); p != nil && !p.Conf.AdminDown {
		t.Fatalf("GoBGP runs the peer: %v", p)
	}
}

// TestLearnKeepsAddress: a learnt address stays through an empty neighbor
// table and a failed read of the interface's master, and goes with the
// interface.
func TestLearnKeepsAddress(t *testing.T) {
	l := logrus.New()
	l.SetOutput(&testlog.Buffer{})
	m := New(Options{Config: cfg(t, unnumbered), Logger: l, Sockets: newFakeSockets()})
	a := netip.MustParseAddr("fe80::2%eth1")
	steps := []struct {
		name string
		link Link
		want netip.Addr
	}{
		{"learnt", Link{Peer: a}, a},
		{"table empty", Link{Err: errors.New("no IPv6 link-local neighbor on eth1 yet")}, a},
		{"master unreadable", Link{MasterErr: errors.New("netlink: busy")}, a},
		{"interface gone", Link{Err: fmt.Errorf("interface eth1: %w", ErrNoDevice)}, netip.Addr{}},
	}
	for _, s := range steps {
		got := m.learn(map[string]Link{"eth1": s.link})["eth1"].Peer
		if got != s.want {
			t.Fatalf("%s: peer address %v, want %v", s.name, got, s.want)
		}
	}
	m.learn(map[string]Link{"eth1": {Peer: a}})
	if _, ok := m.learn(map[string]Link{})["eth1"]; ok || len(m.learnt) != 0 {
		t.Fatalf("an interface no peer names any more is still learnt: %v", m.learnt)
	}
}

// TestSharedAddressUnguarded: when the listeners cannot be guarded, the
// interface peer that does not own the listeners' key for a shared address
// is held down (GoBGP refuses its connections), and the owner runs.
func TestSharedAddressUnguarded(t *testing.T) {
	s := newFakeSockets()
	s.visible, s.noGuards = true, true
	sc := sameAddressScopes()
	m, b, _ := startScoped(t, unnumbered, s, sc)
	if p := b.peer("fe80::2%eth2"); p == nil || !p.Conf.AdminDown {
		t.Fatalf("eth2's neighbor without a guard: %v", p)
	}
	if p := b.peer("fe80::2%eth1"); p == nil || p.Conf.AdminDown {
		t.Fatalf("eth1's neighbor: %v", p)
	}
	for _, p := range m.Status() {
		if p.Interface == "eth2" && (p.State != "admin-down" || !strings.Contains(p.Auth.Error, "cannot be guarded")) {
			t.Fatalf("eth2: %+v", p)
		}
	}
	s.mu.Lock()
	s.noGuards = false
	s.mu.Unlock()
	if err := m.pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := m.pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	if p := b.peer("fe80::2%eth2"); p == nil || p.Conf.AdminDown {
		t.Fatalf("eth2's neighbor once guarded: %v", p)
	}
}

// TestVRFPeerTCPAOScoped: a TCP-AO peer in a VRF gets its MKTs scoped to the
// VRF's ifindex, the set and every key (the TCP-MD5 twin is
// TestVRFPeerScoped). Installed unscoped, they would sign and accept the
// peer's address in every VRF, and the VRF's listener would have no key.
func TestVRFPeerTCPAOScoped(t *testing.T) {
	s := newFakeAO()
	s.visible = true
	sc := &fakeScopes{links: map[string]Link{}, vrfs: map[string]VRF{"blue": {Index: 7}}}
	body := strings.Replace(aoConfig(time.Now().Add(time.Hour)), "[[peers]]\naddress = \"192.0.2.2\"\n", "[[peers]]\naddress = \"192.0.2.2\"\nvrf = \"blue\"\n", 1)
	if !strings.Contains(body, "vrf = \"blue\"") {
		t.Fatal("no VRF peer in the config")
	}
	var logs testlog.Buffer
	l := logrus.New()
	l.SetOutput(&logs)
	m := New(Options{Config: cfg(t, body), Logger: l, Sockets: s, Scopes: sc})
	b := newFakeBGP()
	if err := m.start(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Stop(context.Background()) })
	set := s.listener("192.0.2.2/32")
	if len(set.Keys) != 2 || set.IfIndex != 7 {
		t.Fatalf("VRF peer's listener MKTs: %d keys, set scoped to ifindex %d, want 2 keys, ifindex 7", len(set.Keys), set.IfIndex)
	}
	for i, k := range set.Keys {
		if k.IfIndex != 7 {
			t.Fatalf("MKT %d of the VRF peer scoped to ifindex %d, want 7", i, k.IfIndex)
		}
	}
	// The default-VRF TCP-AO peer beside it stays unscoped.
	if set := s.listener("198.51.100.0/24"); len(set.Keys) != 2 || set.IfIndex != 0 {
		t.Fatalf("default-VRF peer's listener MKTs: %d keys, ifindex %d", len(set.Keys), set.IfIndex)
	}
	if p := b.peer("blue/192.0.2.2"); p == nil || p.Conf.AdminDown || p.Transport.GetBindInterface() != "blue" {
		t.Fatalf("GoBGP neighbor of the VRF peer: %v", p)
	}
}
