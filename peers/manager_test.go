package peers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/sirupsen/logrus"
	"google.golang.org/protobuf/proto"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/internal/testlog"
	"github.com/authbgp/authbgpd/keys"
	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/peerindex"
	"github.com/authbgp/authbgpd/plugin"
	"github.com/authbgp/authbgpd/redact"
	"github.com/authbgp/authbgpd/tcpsock"
)

// fakeBGP records what the manager asks of GoBGP.
type fakeBGP struct {
	mu     sync.Mutex
	peers  map[string]*api.Peer
	groups map[string]*api.PeerGroup
	dyn    map[string]string
	calls  []string
	events chan plugin.PeerEvent
	views  int // PeersAndPasswords calls (a reconcile pass reading GoBGP's view)
	lost   atomic.Uint64
	vrfOf  map[string]string // the VRF each neighbor (by fakeKey) and peer group was added in
}

// fakeKey is the fake's key of neighbor addr of vrf: the address in the
// default VRF, "VRF/ADDRESS" in another (one address may be a neighbor in
// two VRFs' instances).
func fakeKey(vrf, addr string) string {
	if vrf == "" {
		return addr
	}
	return vrf + "/" + addr
}

// DroppedEvents is how many peer events the fake "lost" (lost.Add).
func (f *fakeBGP) DroppedEvents() uint64 { return f.lost.Load() }

// The fake keeps no session state beyond its neighbors' (setState): /status
// reads nothing more of it.
func (f *fakeBGP) PeerStates(context.Context, time.Time) ([]*api.Peer, time.Time, error) {
	return nil, time.Time{}, nil
}
func (f *fakeBGP) LastNotification(string, netip.Addr) (plugin.Notification, bool) {
	return plugin.Notification{}, false
}
func (f *fakeBGP) LastDown(string, netip.Addr) (plugin.Down, bool) { return plugin.Down{}, false }
func (f *fakeBGP) Malformed(string, netip.Addr) (plugin.Malformed, bool) {
	return plugin.Malformed{}, false
}

func newFakeBGP() *fakeBGP {
	return &fakeBGP{peers: map[string]*api.Peer{}, groups: map[string]*api.PeerGroup{}, dyn: map[string]string{}, events: make(chan plugin.PeerEvent, 64)}
}

func (f *fakeBGP) log(s string) { f.calls = append(f.calls, s) }

func (f *fakeBGP) AddPeerIn(_ context.Context, vrf string, p *api.Peer) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := fakeKey(vrf, p.Conf.NeighborAddress)
	f.log("add " + k)
	f.peers[k] = p
	if f.vrfOf == nil {
		f.vrfOf = map[string]string{}
	}
	f.vrfOf[k] = vrf
	return nil
}
func (f *fakeBGP) UpdatePeerIn(_ context.Context, vrf string, p *api.Peer) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := fakeKey(vrf, p.Conf.NeighborAddress)
	f.log("update " + k)
	f.peers[k] = p
	return false, nil
}
func (f *fakeBGP) DeletePeerIn(_ context.Context, vrf, a string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := fakeKey(vrf, a)
	f.log("delete " + k)
	delete(f.peers, k)
	return nil
}
func (f *fakeBGP) AddPeerGroupIn(_ context.Context, vrf string, g *api.PeerGroup) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.groups[g.Conf.PeerGroupName] = g
	if f.vrfOf == nil {
		f.vrfOf = map[string]string{}
	}
	f.vrfOf[g.Conf.PeerGroupName] = vrf
	return nil
}
func (f *fakeBGP) DeletePeerGroup(_ context.Context, n string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.groups, n)
	return nil
}
func (f *fakeBGP) AddDynamicNeighbor(_ context.Context, d *api.DynamicNeighbor) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.groups[d.PeerGroup] == nil {
		return errors.New("no group")
	}
	f.dyn[d.Prefix] = d.PeerGroup
	return nil
}
func (f *fakeBGP) DeleteDynamicNeighbor(_ context.Context, p, g string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.dyn, p)
	return nil
}
func (f *fakeBGP) Subscribe(int) (<-chan plugin.PeerEvent, func()) {
	var once sync.Once
	return f.events, func() { once.Do(func() { close(f.events) }) }
}
func (f *fakeBGP) ResetPeerIn(_ context.Context, vrf, a, _ string, _ bool, _ api.ResetPeerRequest_SoftResetDirection) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log("reset " + fakeKey(vrf, a))
	return nil
}
func (f *fakeBGP) ListPeerIn(ctx context.Context, vrf, addr string) ([]*api.Peer, error) {
	return f.ListPeer(ctx, fakeKey(vrf, addr))
}

// ListPeer lists the neighbor of fake key k ("" all), each with its VRF in
// Conf.Vrf as the Host's.
func (f *fakeBGP) ListPeer(_ context.Context, k string) ([]*api.Peer, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*api.Peer
	for a, p := range f.peers {
		if k != "" && a != k {
			continue
		}
		c := proto.Clone(p).(*api.Peer)
		if c.State == nil {
			c.State = &api.PeerState{NeighborAddress: a[strings.LastIndex(a, "/")+1:]}
		}
		if v := f.vrfOf[a]; v != "" {
			c.Conf.Vrf = v
		}
		if c.Conf.AdminDown {
			c.State.AdminState = api.PeerState_DOWN
		}
		if c.Conf.AuthPassword != "" {
			c.Conf.AuthPassword = redact.Placeholder
		}
		out = append(out, c)
	}
	return out, nil
}
func (f *fakeBGP) PeersAndPasswords(ctx context.Context) ([]*api.Peer, []keys.Secret, error) {
	ps, err := f.ListPeer(ctx, "")
	f.mu.Lock()
	defer f.mu.Unlock()
	f.views++
	out := make([]keys.Secret, len(ps))
	for i, p := range ps {
		if q := f.peers[fakeKey(p.Conf.Vrf, p.Conf.NeighborAddress)]; q != nil {
			out[i] = keys.Secret(q.Conf.AuthPassword)
		}
	}
	return ps, out, err
}
func (f *fakeBGP) ListDynamicNeighbor(context.Context, string) ([]*api.DynamicNeighbor, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*api.DynamicNeighbor
	for p, g := range f.dyn {
		out = append(out, &api.DynamicNeighbor{Prefix: p, PeerGroup: g})
	}
	return out, nil
}

// setState makes ListPeer report the session state GoBGP's events said
// (the reconciliation reads GoBGP's state, as it would from the real one).
func (f *fakeBGP) setState(a string, st api.PeerState_SessionState) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.peers[a]
	if p == nil {
		return
	}
	if p.State == nil {
		p.State = &api.PeerState{NeighborAddress: a}
	}
	p.State.SessionState = st
}
func (f *fakeBGP) peer(a string) *api.Peer {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.peers[a]
}

// fakeSockets records keys; fail lists scopes whose install fails.
type fakeSockets struct {
	mu       sync.Mutex
	listener map[string]string // scope -> secret
	conns    map[string]string // remote -> secret
	fail     map[string]bool
	pre      error
	visible  bool                 // Observe shows keys
	hide     map[string]bool      // scopes Observe does not show (drift)
	socks    []tcpsock.SocketKeys // extra observed sockets (connections)
	dialed   map[string]string    // dialed remote -> the key its socket got
	listened map[string][]string  // a listener (ListenKeys) -> the keys it got before listen
	guards   []tcpsock.Guard      // the listeners' link-local guards
	noGuards bool                 // SetListenerGuards fails
	look     time.Duration        // each Observe takes this long (a costly pass)
	// connGone: SetConnKey finds no socket; onConnKey runs in it.
	connGone  bool
	onConnKey func()
	// looks counts the looks (Look); ops the key operations, stale those
	// through a look that was not the last one made (a pass acting on an
	// older look than its own).
	looks, ops, stale atomic.Int64
}

// fakeKernel is the per-port face of the tests' fakes, which their looks
// (fakeLook) call. A fake that changes one of these methods has its own
// Look, which hands itself to lookAt, so that its look calls its method.
type fakeKernel interface {
	Observe(port uint16) (Observed, error)
	ObserveAO(port uint16) ([]tcpsock.AOSocket, error)
	SetListenerKey(port uint16, k md5auth.Key) (int, error)
	DeleteListenerKey(port uint16, k md5auth.Key) error
	SetConnKey(local, remote netip.AddrPort, k md5auth.Key) error
	SetListenerAO(port uint16, set tcpsock.AOSet) (int, error)
	DeleteListenerAO(port uint16, p netip.Prefix) error
	SetConnAO(local, remote netip.AddrPort, set tcpsock.AOSet) error
	SetListenerGuards(port uint16, g []tcpsock.Guard) error
}

// fakeLook is a fake's Look: the fake's state (like the kernel's) outlives
// it, and every operation is counted against the fake's last look.
type fakeLook struct {
	k    fakeKernel
	s    *fakeSockets
	port uint16
	n    int64 // which look of the fake's this is
}

func (s *fakeSockets) Look(port uint16, _ bool) Look { return s.lookAt(s, port) }

func (s *fakeSockets) lookAt(k fakeKernel, port uint16) Look {
	return fakeLook{k: k, s: s, port: port, n: s.looks.Add(1)}
}

// kernel is the fake behind the look, for one key operation: counted, and
// counted stale when a newer look has been made since.
func (l fakeLook) kernel() fakeKernel {
	l.s.ops.Add(1)
	if l.s.looks.Load() != l.n {
		l.s.stale.Add(1)
	}
	return l.k
}

func (l fakeLook) Observe() (Observed, error)             { return l.k.Observe(l.port) }
func (l fakeLook) ObserveAO() ([]tcpsock.AOSocket, error) { return l.k.ObserveAO(l.port) }
func (l fakeLook) SetListenerKey(k md5auth.Key) (int, error) {
	return l.kernel().SetListenerKey(l.port, k)
}
func (l fakeLook) DeleteListenerKey(k md5auth.Key) error {
	return l.kernel().DeleteListenerKey(l.port, k)
}
func (l fakeLook) SetConnKey(local, remote netip.AddrPort, k md5auth.Key) error {
	return l.kernel().SetConnKey(local, remote, k)
}
func (l fakeLook) SetListenerAO(set tcpsock.AOSet) (int, error) {
	return l.kernel().SetListenerAO(l.port, set)
}
func (l fakeLook) DeleteListenerAO(p netip.Prefix) error {
	return l.kernel().DeleteListenerAO(l.port, p)
}
func (l fakeLook) SetConnAO(local, remote netip.AddrPort, set tcpsock.AOSet) error {
	return l.kernel().SetConnAO(local, remote, set)
}
func (l fakeLook) SetListenerGuards(g []tcpsock.Guard) error {
	return l.kernel().SetListenerGuards(l.port, g)
}
func (l fakeLook) Walks() int { return 0 }
func (l fakeLook) Dumps() int { return 0 }

// fakeSockets has no TCP-AO (fakeAO adds it): its preflight says so
// (errFakeNoAO), and its operations fail otherwise (errFakeAOOp), should
// they be tried despite it.
var (
	errFakeNoAO = errors.New("the socket layer cannot put TCP-AO keys on sockets")
	errFakeAOOp = errors.New("fakeSockets: no TCP-AO operations")
)

func (s *fakeSockets) PreflightAO() error { return errFakeNoAO }
func (s *fakeSockets) SetListenerAO(uint16, tcpsock.AOSet) (int, error) {
	return 0, errFakeAOOp
}
func (s *fakeSockets) DeleteListenerAO(uint16, netip.Prefix) error { return errFakeAOOp }
func (s *fakeSockets) SetConnAO(_, _ netip.AddrPort, _ tcpsock.AOSet) error {
	return errFakeAOOp
}
func (s *fakeSockets) ObserveAO(uint16) ([]tcpsock.AOSocket, error) { return nil, errFakeAOOp }
func (s *fakeSockets) AOAlgorithms() tcpsock.AOAlgorithms {
	return tcpsock.AOAlgorithms{Err: errNoAOProbe}
}

func (s *fakeSockets) SetListenerGuards(_ uint16, g []tcpsock.Guard) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.noGuards {
		return errors.New("injected: no socket filters here")
	}
	s.guards = append([]tcpsock.Guard(nil), g...)
	return nil
}

func newFakeSockets() *fakeSockets {
	return &fakeSockets{listener: map[string]string{}, conns: map[string]string{}, fail: map[string]bool{}, hide: map[string]bool{}}
}

func (s *fakeSockets) SetListenerKey(port uint16, k md5auth.Key) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail[k.Scope()] {
		return 0, fmt.Errorf("tcpsock: set key for %s on listener 0.0.0.0:%d: %w", k.Scope(), port, errors.New("injected"))
	}
	s.listener[k.Scope()] = string(k.Secret)
	return 1, nil
}
func (s *fakeSockets) DeleteListenerKey(_ uint16, k md5auth.Key) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.listener, k.Scope())
	return nil
}
func (s *fakeSockets) SetConnKey(local, remote netip.AddrPort, k md5auth.Key) error {
	s.mu.Lock()
	gone, hook := s.connGone, s.onConnKey
	if !gone {
		s.conns[remote.String()] = string(k.Secret)
	}
	s.mu.Unlock()
	if hook != nil {
		hook()
	}
	if gone {
		return fmt.Errorf("tcpsock: re-key session %s-%s: %w", remote, local, tcpsock.ErrSocketNotFound)
	}
	return nil
}
func (s *fakeSockets) Preflight() error { return s.pre }

// DialMD5 records the key a dial to remote got (s.dialed), or fails for a
// scope in s.fail as "dial <scope>".
func (s *fakeSockets) DialMD5(_ syscall.RawConn, remote netip.AddrPort, k md5auth.Key) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail["dial "+k.Scope()] {
		return fmt.Errorf("tcpsock: set key for %s on socket dialing %s: %w", k.Scope(), remote, errors.New("injected"))
	}
	if s.dialed == nil {
		s.dialed = map[string]string{}
	}
	s.dialed[remote.String()] = string(k.Secret)
	return nil
}

// DialAO records the current SendID a dial to remote got (s.dialed), or
// fails for a prefix in s.fail as "dial <prefix>".
func (s *fakeSockets) DialAO(_ syscall.RawConn, remote netip.AddrPort, set tcpsock.AOSet) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail["dial "+set.Prefix.String()] {
		return fmt.Errorf("tcpsock: add tcp-ao key for %s on socket dialing %s: %w", set.Prefix, remote, errors.New("injected"))
	}
	if s.dialed == nil {
		s.dialed = map[string]string{}
	}
	s.dialed[remote.String()] = fmt.Sprintf("tcp-ao %d keys, current %d, rnext %d", len(set.Keys), set.Current, set.RNext)
	if set.AcceptICMPs {
		s.dialed[remote.String()] += ", accept icmps"
	}
	return nil
}

func (s *fakeSockets) dialedWith(remote string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dialed[remote]
}

// Observe shows the recorded listener keys as one dual-stack pair of
// listeners when visible is set; otherwise the kernel "hides" keys.
func (s *fakeSockets) Observe(port uint16) (Observed, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	time.Sleep(s.look)
	if !s.visible {
		return Observed{}, nil
	}
	v4 := tcpsock.SocketKeys{Local: netip.AddrPortFrom(netip.IPv4Unspecified(), port), Listening: true, Family: afInet}
	v6 := tcpsock.SocketKeys{Local: netip.AddrPortFrom(netip.IPv6Unspecified(), port), Listening: true, Family: afInet6}
	for scope, sec := range s.listener {
		if s.hide[scope] {
			continue
		}
		scope, _, _ := strings.Cut(scope, " ifindex ") // sock_diag shows no l3index
		pfx, err := netip.ParsePrefix(scope)
		if err != nil {
			a := netip.MustParseAddr(scope)
			pfx = netip.PrefixFrom(a, a.BitLen())
		}
		k := tcpsock.ObservedKey{Prefix: pfx, Secret: keys.Secret(sec)}
		if pfx.Addr().Is4() {
			v4.Keys = append(v4.Keys, k)
		} else {
			v6.Keys = append(v6.Keys, k)
		}
	}
	return Observed{KeysVisible: true, Sockets: append([]tcpsock.SocketKeys{v4, v6}, s.socks...)}, nil
}
func (s *fakeSockets) key(scope string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.listener[scope]
	return v, ok
}

// quietLogger logs everything to w.
func quietLogger(w io.Writer) *logrus.Logger {
	l := logrus.New()
	l.SetOutput(w)
	l.SetLevel(logrus.DebugLevel)
	return l
}

func cfg(t testing.TB, body string) *config.Config {
	t.Helper()
	c, err := config.Parse("r1.toml", []byte("[global]\nasn = 65001\nrouter-id = \"192.0.2.1\"\n"+body))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const twoPeers = `
[[peers]]
address = "192.0.2.2"
asn = 65002
password = "Secret-Alpha"
[[peers]]
prefix = "198.51.100.0/24"
asn = 65010
password = "Secret-Bravo"
[[peers]]
address = "192.0.2.3"
asn = 65003
`

// testRekeyHold is the tests' hold of a replaced key on established
// connections (rekeyhold.go; 2 s in the daemon).
const testRekeyHold = 100 * time.Millisecond

func start(t *testing.T, c *config.Config, s *fakeSockets, logw io.Writer) (*Manager, *fakeBGP) {
	t.Helper()
	l := logrus.New()
	l.SetOutput(logw)
	l.SetLevel(logrus.DebugLevel)
	m := New(Options{Config: c, Logger: l, Sockets: s})
	m.rekeyHold = testRekeyHold
	b := newFakeBGP()
	if err := m.start(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Stop(context.Background()) })
	return m, b
}

func TestKeysBeforePeers(t *testing.T) {
	s := newFakeSockets()
	var logs testlog.Buffer
	m, b := start(t, cfg(t, twoPeers), s, &logs)
	if v, _ := s.key("192.0.2.2"); v != "Secret-Alpha" {
		t.Fatalf("static key on listener: %q", v)
	}
	if v, _ := s.key("198.51.100.0/24"); v != "Secret-Bravo" {
		t.Fatalf("prefix key on listener: %q", v)
	}
	if _, ok := s.key("192.0.2.3"); ok {
		t.Fatal("unkeyed peer got a key")
	}
	p := b.peer("192.0.2.2")
	if p == nil || p.Conf.AuthPassword != "" || p.Conf.AdminDown {
		t.Fatalf("GoBGP peer %+v: must hold no password", p)
	}
	g := b.groups[groupName("", netip.MustParsePrefix("198.51.100.0/24"))]
	if g == nil || g.Conf.AuthPassword != "" || !g.Transport.PassiveMode {
		t.Fatalf("dynamic group must be passive and hold no password: %+v", g)
	}
	for _, ps := range m.Status() {
		if ps.Auth.Mode == "md5" && (!ps.Auth.Installed || ps.Auth.Error != "") {
			t.Fatalf("status %+v", ps)
		}
	}
	if strings.Contains(logs.String(), "Secret-") {
		t.Fatal("secret in logs")
	}
}

func TestFailClosed(t *testing.T) {
	s := newFakeSockets()
	s.fail["192.0.2.2"] = true
	s.fail["198.51.100.0/24"] = true
	var logs testlog.Buffer
	m, b := start(t, cfg(t, twoPeers), s, &logs)
	p := b.peer("192.0.2.2")
	if p == nil || !p.Conf.AdminDown {
		t.Fatalf("keyed peer whose key failed must be admin down: %+v", p)
	}
	if len(b.dyn) != 0 || len(b.groups) != 0 {
		t.Fatalf("a range whose key failed must not reach GoBGP: %v %v", b.dyn, b.groups)
	}
	if b.peer("192.0.2.3") == nil || b.peer("192.0.2.3").Conf.AdminDown {
		t.Fatal("unkeyed peer must be unaffected")
	}
	n := 0
	for _, ps := range m.Status() {
		if ps.Auth.Mode != "md5" {
			continue
		}
		n++
		if ps.Auth.Installed || ps.Auth.Error == "" || ps.State != "admin-down" || strings.Contains(ps.Auth.Error, "Secret") {
			t.Fatalf("status %+v", ps)
		}
	}
	if n != 2 || !strings.Contains(logs.String(), "fail closed") || strings.Contains(logs.String(), "Secret-") {
		t.Fatalf("n=%d logs:\n%s", n, logs.String())
	}

	// A reload with a key that installs releases the peer.
	s.mu.Lock()
	delete(s.fail, "192.0.2.2")
	s.mu.Unlock()
	if _, err := m.Reload(context.Background(), cfg(t, strings.Replace(twoPeers, "Secret-Alpha", "Secret-Charlie", 1))); err != nil {
		t.Fatal(err)
	}
	if p := b.peer("192.0.2.2"); p.Conf.AdminDown || p.Conf.AuthPassword != "" {
		t.Fatalf("after fixing: %+v", p.Conf)
	}
	dial(t, m, "192.0.2.2")
	if got := s.dialedWith("192.0.2.2:179"); got != "Secret-Charlie" {
		t.Fatalf("after fixing, a dial got %q", got)
	}
	noUpdatePeer(t, b)
}

func TestPreflightFailureHoldsKeyedPeers(t *testing.T) {
	s := newFakeSockets()
	s.pre = tcpsock.ErrKernelFIPS
	m, b := start(t, cfg(t, twoPeers), s, io.Discard)
	if !b.peer("192.0.2.2").Conf.AdminDown || b.peer("192.0.2.3").Conf.AdminDown {
		t.Fatal("FIPS kernel: keyed peers down, others up")
	}
	if !errors.Is(m.Healthy(), tcpsock.ErrKernelFIPS) {
		t.Fatalf("Healthy = %v", m.Healthy())
	}
}

func established(b *fakeBGP, addr string) {
	b.setState(addr, api.PeerState_ESTABLISHED)
	b.events <- plugin.PeerEvent{Peer: netip.MustParseAddr(addr), State: "established", Time: time.Now(),
		Local: netip.MustParseAddrPort("192.0.2.1:179"), Remote: netip.AddrPortFrom(netip.MustParseAddr(addr), 40000)}
}

// connKey is the key the fake established connection conn carries ("":
// none set by the reconciler).
func (s *fakeSockets) connKey(conn string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns[conn]
}

// rekeyedAfterHold checks that the established connection conn keeps its
// key through the hold on a replaced key (rekeyhold.go) and carries want
// once it has run out.
func rekeyedAfterHold(t *testing.T, s *fakeSockets, conn, want string) {
	t.Helper()
	if got := s.connKey(conn); got == want {
		t.Fatalf("connection %s re-keyed at once, before the hold on the replaced key ran out", conn)
	}
	waitFor(t, "connection "+conn+" re-keyed after the hold", func() bool { return s.connKey(conn) == want })
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for i := 0; i < 200; i++ {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

func TestHitlessKeyChange(t *testing.T) {
	s := newFakeSockets()
	m, b := start(t, cfg(t, twoPeers), s, io.Discard)
	established(b, "192.0.2.2")
	waitFor(t, "established", func() bool { return m.Status()[0].State == "established" })
	before := len(b.calls)
	if _, err := m.Reload(context.Background(), cfg(t, strings.Replace(twoPeers, "Secret-Alpha", "Secret-Delta", 1))); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.key("192.0.2.2"); v != "Secret-Delta" {
		t.Fatalf("listener key %q", v)
	}
	rekeyedAfterHold(t, s, "192.0.2.2:40000", "Secret-Delta")
	if got := b.calls[before:]; len(got) != 0 {
		t.Fatalf("GoBGP touched while Established (would reset the session): %v", got)
	}
	if b.peer("192.0.2.2").Conf.AuthPassword != "" {
		t.Fatal("GoBGP must hold no password")
	}
	// The next dial (the session dropped, or GoBGP's collision dial) is
	// keyed with the new key at once: nothing waits for GoBGP.
	dial(t, m, "192.0.2.2")
	if got := s.dialedWith("192.0.2.2:179"); got != "Secret-Delta" {
		t.Fatalf("a dial after the change got key %q", got)
	}
	b.events <- plugin.PeerEvent{Peer: netip.MustParseAddr("192.0.2.2"), State: "active", Time: time.Now()}
	m.Reconcile(context.Background())
	if got := b.calls[before:]; len(got) != 0 {
		t.Fatalf("GoBGP touched after the session dropped: %v", got)
	}
	noUpdatePeer(t, b)
}

// noUpdatePeer checks the manager never used GoBGP's UpdatePeer, which
// deletes and re-installs the listener key, opening a moment for an
// unsigned connection (see readd).
func noUpdatePeer(t *testing.T, b *fakeBGP) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range b.calls {
		if strings.HasPrefix(c, "update ") {
			t.Fatalf("GoBGP UpdatePeer called (%s): calls %v", c, b.calls)
		}
	}
}

func TestReloadRemovesKeysAndRejectsGlobalChanges(t *testing.T) {
	s := newFakeSockets()
	m, b := start(t, cfg(t, twoPeers), s, io.Discard)
	next := cfg(t, `
[[peers]]
address = "192.0.2.3"
asn = 65003
`)
	ch, err := m.Reload(context.Background(), next)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Removed) != 2 || len(ch.Unchanged) != 1 {
		t.Fatalf("changes %+v", ch)
	}
	if _, ok := s.key("192.0.2.2"); ok {
		t.Fatal("removed peer's key still on the listener")
	}
	if _, ok := s.key("198.51.100.0/24"); ok {
		t.Fatal("removed range's key still on the listener")
	}
	if b.peer("192.0.2.2") != nil || len(b.dyn) != 0 {
		t.Fatal("removed peers still in GoBGP")
	}
	bad, err := config.Parse("r1.toml", []byte("[global]\nasn = 65009\nrouter-id = \"192.0.2.1\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Reload(context.Background(), bad); !errors.Is(err, ErrNeedsRestart) {
		t.Fatalf("asn change: %v", err)
	}
	if b.peer("192.0.2.3") == nil {
		t.Fatal("rejected reload must keep the running peers")
	}
}

// keychainSwitchingSoon is peer 192.0.2.2 on keychain "core": key 1 now,
// key 2 from 300 ms on.
func keychainSwitchingSoon() string {
	at := time.Now().Add(300 * time.Millisecond).UTC().Format(time.RFC3339Nano)
	return fmt.Sprintf(`
[[keychains]]
name = "core"
  [[keychains.keys]]
  id = 1
  secret = "Chain-One"
  [[keychains.keys]]
  id = 2
  secret = "Chain-Two"
  send-from = %q
[[peers]]
address = "192.0.2.2"
asn = 65002
keychain = "core"
`, at)
}

func TestKeychainSwitch(t *testing.T) {
	s := newFakeSockets()
	c := cfg(t, keychainSwitchingSoon())
	m, b := start(t, c, s, io.Discard)
	if v, _ := s.key("192.0.2.2"); v != "Chain-One" {
		t.Fatalf("before switch: %q", v)
	}
	established(b, "192.0.2.2")
	waitFor(t, "switch to key 2", func() bool { v, _ := s.key("192.0.2.2"); return v == "Chain-Two" })
	waitFor(t, "status key id 2", func() bool { k := m.Status()[0].Auth.KeyID; return k != nil && *k == 2 })
	waitFor(t, "the established socket on key 2 after the hold", func() bool { return s.connKey("192.0.2.2:40000") == "Chain-Two" })
}

// dial runs the manager's dial hook as GoBGP's dialer would for addr.
// fakeClock makes m's clock one the test moves, starting now.
func fakeClock(m *Manager) *atomic.Int64 {
	clock := new(atomic.Int64)
	clock.Store(time.Now().UnixNano())
	m.mu.Lock()
	m.now = func() time.Time { return time.Unix(0, clock.Load()) }
	m.mu.Unlock()
	return clock
}

// dial is GoBGP dialing addr with a timeout no dial deferral fits in:
// a deferred dial is refused at once (TestDialWaitsOutTheDeferral has
// dials that wait).
func dial(t *testing.T, m *Manager, addr string) error {
	t.Helper()
	a := netip.MustParseAddr(addr)
	ctx, cancel := context.WithTimeout(context.Background(), dialMargin/2)
	defer cancel()
	return m.dialKey(ctx, "", a, netip.AddrPortFrom(a, 179), nil)
}

// keyObserver records what the reconciler tells of keys.
type keyObserver struct {
	nopObserver
	mu sync.Mutex
	// inUse: each peer's installed key, as the snapshots gave it in turn
	// ("peer=id"); changed: KeyChanged ("peer=id").
	inUse, changed []string
	last           map[string]int
	published      int
}

func (o *keyObserver) Published(s *peerindex.Snapshot) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.published++
	if o.last == nil {
		o.last = map[string]int{}
	}
	for id, k := range s.Keys {
		if was, ok := o.last[id]; k.Installed && (!ok || was != k.KeyID) {
			o.inUse = append(o.inUse, fmt.Sprintf("%s=%d", id, k.KeyID))
			o.last[id] = k.KeyID
		}
	}
}

func (o *keyObserver) KeyChanged(peer string, id int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.changed = append(o.changed, fmt.Sprintf("%s=%d", peer, id))
}

func (o *keyObserver) told() (inUse, changed []string, published int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.inUse), slices.Clone(o.changed), o.published
}

// TestKeyInUsePublishedOncePerKey: the snapshot the reconciler publishes
// (what the shadow checker pins) gives a peer's installed key at the first
// install and at each change after it; a pass that changes nothing
// publishes nothing, however many run; a key change (KeyChanged, counted
// in the metrics) is told only at the change. Manager.Snapshot is the last
// one published.
func TestKeyInUsePublishedOncePerKey(t *testing.T) {
	s := newFakeSockets()
	c := cfg(t, keychainSwitchingSoon()+`
[[peers]]
address = "192.0.2.3"
asn = 65003
password = "Secret-Alpha"
`)
	o := &keyObserver{}
	l := logrus.New()
	l.SetOutput(io.Discard)
	m := New(Options{Config: c, Logger: l, Sockets: s, Observer: o, ReconcileEvery: 20 * time.Millisecond})
	b := newFakeBGP()
	if err := m.start(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Stop(context.Background()) })
	waitFor(t, "switch to key 2", func() bool { v, _ := s.key("192.0.2.2"); return v == "Chain-Two" })
	waitFor(t, "key 2 published", func() bool { id, ok := m.Snapshot().KeyID("192.0.2.2"); return ok && id == 2 })
	_, _, n := o.told()
	time.Sleep(200 * time.Millisecond) // passes every 20 ms: none publishes again
	inUse, changed, n2 := o.told()
	slices.Sort(inUse)
	if want := []string{"192.0.2.2=1", "192.0.2.2=2", "192.0.2.3=-1"}; !slices.Equal(inUse, want) {
		t.Errorf("keys in use published %v, want %v (once per key)", inUse, want)
	}
	if n2 != n {
		t.Errorf("%d snapshots published by passes that changed nothing", n2-n)
	}
	if want := []string{"192.0.2.2=2"}; !slices.Equal(changed, want) {
		t.Errorf("KeyChanged told %v, want %v", changed, want)
	}
	sn := m.Snapshot()
	if k := sn.Keys["192.0.2.3"]; !k.Installed || k.Keychain || k.KeyID != -1 {
		t.Errorf("password peer in the snapshot: %+v", k)
	}
	if _, ok := sn.KeyID("192.0.2.3"); ok {
		t.Error("a password peer has a keychain key id")
	}
}

// TestReloadPlanDiffsOnce: ReloadPlan applies the changes its plan has
// diffed (the speaker's one Diff of a reload, also its preview's) without
// diffing again, and diffs again only a plan made from another config than
// the running one.
func TestReloadPlanDiffsOnce(t *testing.T) {
	s := newFakeSockets()
	c := cfg(t, twoPeers)
	m, _ := start(t, c, s, io.Discard)
	next := cfg(t, strings.Replace(twoPeers, "Secret-Alpha", "Secret-Charlie", 1))
	pl := m.Plan(next)
	if pl.Old != c || len(pl.Changes.Changed) != 1 {
		t.Fatalf("plan: old %p (running %p), changed %v", pl.Old, c, pl.Changes.Changed)
	}
	mark := &config.Peer{} // in no config: only this plan has it
	pl.Changes.Unchanged = append(pl.Changes.Unchanged, mark)
	ch, err := m.ReloadPlan(context.Background(), pl)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(ch.Unchanged, mark) {
		t.Errorf("ReloadPlan diffed again: changes %+v", ch)
	}
	if v, _ := s.key("192.0.2.2"); v != "Secret-Charlie" {
		t.Errorf("key after the reload: %q", v)
	}
	// A plan from a config that is not running any more (c) is diffed
	// against the running one (next).
	stale := config.PlanReload(c, cfg(t, strings.Replace(twoPeers, "Secret-Alpha", "Secret-Delta", 1)))
	stale.Changes.Unchanged = append(stale.Changes.Unchanged, mark)
	ch, err = m.ReloadPlan(context.Background(), stale)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(ch.Unchanged, mark) || len(ch.Changed) != 1 {
		t.Errorf("a stale plan: changes %+v, want diffed against the running config", ch)
	}
	if v, _ := s.key("192.0.2.2"); v != "Secret-Delta" {
		t.Errorf("key after the stale plan: %q", v)
	}
}

// ListenKeys records the scopes a socket about to listen on local got
// (s.listened), or fails for a scope in s.fail as "listen <scope>".
func (s *fakeSockets) ListenKeys(_ syscall.RawConn, local netip.AddrPort, md5 []md5auth.Key, ao []tcpsock.AOSet) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var got []string
	var errs []error
	for _, k := range md5 {
		if s.fail["listen "+k.Scope()] {
			errs = append(errs, fmt.Errorf("%w: tcpsock: set key for %s on listener %s: %w", tcpsock.ErrListenKey, k.Scope(), local, errors.New("injected")))
			continue
		}
		got = append(got, k.Scope()+"="+string(k.Secret))
	}
	for _, set := range ao {
		got = append(got, "ao "+set.Prefix.String())
	}
	if s.listened == nil {
		s.listened = map[string][]string{}
	}
	s.listened[local.String()] = got
	return errors.Join(errs...)
}
