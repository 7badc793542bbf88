package peers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"

	"github.com/authbgp/authbgpd/aocount"
	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/internal/testlog"
	"github.com/authbgp/authbgpd/plugin"
	"github.com/authbgp/authbgpd/tcpsock"
)

// fakeAO adds TCP-AO to fakeSockets: MKTs per listener scope and per
// connection, failures on purpose, and an observation like the kernel's.
type fakeAO struct {
	*fakeSockets
	amu     sync.Mutex
	lis     map[netip.Prefix]tcpsock.AOSet
	conns   map[netip.AddrPort]tcpsock.AOSet // by remote end
	failAO  map[netip.Prefix]bool
	observe bool
	extra   []tcpsock.AOSocket
	// unsigned are connections (remote ends) without TCP-AO keys: Observe
	// lists them, ObserveAO does not.
	unsigned []netip.AddrPort
	// failObserve: Observe fails (after onObserve, which runs during the
	// look) as a sock_diag dump can.
	failObserve bool
	onObserve   func()
	deletedP    []netip.Prefix
	good        uint64 // TCP_AO_INFO pkt_good of every connection
}

func newFakeAO() *fakeAO {
	return &fakeAO{fakeSockets: newFakeSockets(), lis: map[netip.Prefix]tcpsock.AOSet{},
		conns: map[netip.AddrPort]tcpsock.AOSet{}, failAO: map[netip.Prefix]bool{}}
}

func (f *fakeAO) Look(port uint16, _ bool) Look { return f.lookAt(f, port) }

func (f *fakeAO) SetListenerAO(port uint16, set tcpsock.AOSet) (int, error) {
	f.amu.Lock()
	defer f.amu.Unlock()
	if f.failAO[set.Prefix] {
		return 0, fmt.Errorf("tcpsock: add tcp-ao key for %s on listener 0.0.0.0:%d: injected", set.Prefix, port)
	}
	f.lis[set.Prefix] = cloneAOSet(set)
	return 1, nil
}
func (f *fakeAO) DeleteListenerAO(_ uint16, p netip.Prefix) error {
	f.amu.Lock()
	defer f.amu.Unlock()
	delete(f.lis, p)
	f.deletedP = append(f.deletedP, p)
	return nil
}
func (f *fakeAO) SetConnAO(_, remote netip.AddrPort, set tcpsock.AOSet) error {
	f.amu.Lock()
	defer f.amu.Unlock()
	f.conns[remote] = cloneAOSet(set)
	return nil
}
func (f *fakeAO) ObserveAO(port uint16) ([]tcpsock.AOSocket, error) {
	f.amu.Lock()
	defer f.amu.Unlock()
	if !f.observe {
		return nil, errors.New("not observed")
	}
	l := tcpsock.AOSocket{Local: netip.AddrPortFrom(netip.IPv4Unspecified(), port), Listening: true, Family: afInet}
	for _, set := range f.lis {
		for _, k := range set.Keys {
			l.Keys = append(l.Keys, tcpsock.ObservedAOKey{AOKey: k})
		}
	}
	out := []tcpsock.AOSocket{l}
	for remote, set := range f.conns {
		// The peer follows our RNextKeyID and asks, with its own, for
		// the matching key: the kernel's current key follows.
		c := tcpsock.AOSocket{Local: netip.MustParseAddrPort("192.0.2.1:179"), Remote: remote, Family: afInet,
			HasInfo: true, Info: tcpsock.AOInfo{RNext: uint8(set.RNext), Counts: aocount.Counts{Good: f.good}, AcceptICMPs: set.AcceptICMPs}}
		for _, k := range set.Keys {
			if int(k.RecvID) == set.RNext {
				c.Info.Current = k.SendID
			}
		}
		for _, k := range set.Keys {
			c.Keys = append(c.Keys, tcpsock.ObservedAOKey{AOKey: k})
		}
		out = append(out, c)
	}
	return append(out, f.extra...), nil
}
func (f *fakeAO) PreflightAO() error { return nil }

// Observe lists the connections too, keyed or not, as the kernel's
// sock_diag does (their TCP-MD5 keys: none).
func (f *fakeAO) Observe(port uint16) (Observed, error) {
	f.amu.Lock()
	hook, fail := f.onObserve, f.failObserve
	f.amu.Unlock()
	if hook != nil {
		hook()
	}
	if fail {
		return Observed{}, errors.New("injected: sock_diag dump failed")
	}
	obs, err := f.fakeSockets.Observe(port)
	f.amu.Lock()
	defer f.amu.Unlock()
	local := netip.MustParseAddrPort("192.0.2.1:179")
	for remote := range f.conns {
		obs.Sockets = append(obs.Sockets, tcpsock.SocketKeys{Local: local, Remote: remote, Family: afInet})
	}
	for _, remote := range f.unsigned {
		obs.Sockets = append(obs.Sockets, tcpsock.SocketKeys{Local: local, Remote: remote, Family: afInet})
	}
	return obs, err
}

func (f *fakeAO) listener(p string) tcpsock.AOSet {
	f.amu.Lock()
	defer f.amu.Unlock()
	return f.lis[netip.MustParsePrefix(p)]
}
func (f *fakeAO) conn(remote string) (tcpsock.AOSet, bool) {
	f.amu.Lock()
	defer f.amu.Unlock()
	s, ok := f.conns[netip.MustParseAddrPort(remote)]
	return s, ok
}

func aoConfig(secondFrom time.Time) string {
	return fmt.Sprintf(`
[[keychains]]
name = "ao"
type = "tcp-ao"
  [[keychains.keys]]
  id = 1
  secret = "AO-Test-One"
  [[keychains.keys]]
  id = 2
  send-id = 20
  recv-id = 21
  algorithm = "aes-128-cmac-96"
  include-tcp-options = false
  secret = "AO-Test-Two"
  send-from = %q
[[peers]]
address = "192.0.2.2"
asn = 65002
keychain = "ao"
[[peers]]
prefix = "198.51.100.0/24"
asn = 65010
keychain = "ao"
[[peers]]
address = "192.0.2.3"
asn = 65003
password = "Md5-Beside"
`, secondFrom.UTC().Format(time.RFC3339Nano))
}

// TestTCPAOPeers: through the one writer, a TCP-AO peer's MKTs (every key
// of its chain) are on the listeners before GoBGP learns of it; GoBGP gets
// no password and never dials it (passive, with the reason in /status);
// its established session gets the keys and, at the keychain's switch,
// the new key's RecvID as RNextKeyID in place (no GoBGP call); a session
// without TCP-AO keys is ended; a removed peer's keys go; a TCP-MD5 peer
// beside it is unaffected; secrets never reach the logs.
func TestTCPAOPeers(t *testing.T) {
	s := newFakeAO()
	s.observe = true
	var logs testlog.Buffer
	// The switch comes after the light pass for the session coming up
	// (upDelay, 1 s after its event).
	at := time.Now().Add(upDelay(0) + 700*time.Millisecond)
	m, b := startWith(t, cfg(t, aoConfig(at)), s, &logs)

	// Keys before the peer, on the listeners: both MKTs, per scope.
	for _, scope := range []string{"192.0.2.2/32", "198.51.100.0/24"} {
		set := s.listener(scope)
		if len(set.Keys) != 2 || set.Keys[0].Alg != tcpsock.AOAlgHMACSHA1 || set.Keys[1].Alg != tcpsock.AOAlgAESCMAC ||
			set.Keys[1].SendID != 20 || set.Keys[1].RecvID != 21 || !set.Keys[1].ExcludeOptions || set.Keys[0].ExcludeOptions {
			t.Fatalf("%s: listener MKTs %+v", scope, set.Keys)
		}
	}
	if v, _ := s.key("192.0.2.3"); v != "Md5-Beside" {
		t.Fatal("the TCP-MD5 peer beside lost its key")
	}
	p := b.peer("192.0.2.2")
	if p == nil || p.Conf.AdminDown || p.Conf.AuthPassword != "" || p.Transport.PassiveMode {
		t.Fatalf("GoBGP neighbor of a TCP-AO peer: %+v %+v", p.GetConf(), p.GetTransport())
	}
	for _, ps := range m.Status() {
		if ps.Address == "192.0.2.2" && (ps.Auth.Mode != "tcp-ao" || !ps.Auth.Installed ||
			ps.Auth.SendID == nil || *ps.Auth.SendID != 1 || *ps.Auth.RecvID != 1) {
			t.Fatalf("status %+v", ps.Auth)
		}
	}

	// The session comes up (the peer dialed): its connection gets the
	// keys and RNextKeyID 1; at the switch, RNextKeyID 21 in place.
	calls := func() int { b.mu.Lock(); defer b.mu.Unlock(); return len(b.calls) }
	// The accepted connection inherits the listener's MKTs (the kernel's
	// RNextKeyID on it is the peer's choice until we set ours).
	s.amu.Lock()
	inherited := cloneAOSet(s.lis[netip.MustParsePrefix("192.0.2.2/32")])
	inherited.RNext = 0
	s.conns[netip.MustParseAddrPort("192.0.2.2:40000")] = inherited
	s.amu.Unlock()
	established(b, "192.0.2.2")
	waitFor(t, "the session's TCP-AO keys", func() bool { c, ok := s.conn("192.0.2.2:40000"); return ok && c.RNext == 1 && len(c.Keys) == 2 })
	before := calls()
	waitFor(t, "RNextKeyID 21 at the switch", func() bool { c, _ := s.conn("192.0.2.2:40000"); return c.RNext == 21 && c.Current == -1 })
	if time.Now().Before(at) {
		t.Fatal("switched before the key's send-from")
	}
	if got := calls(); got != before {
		t.Fatalf("GoBGP touched at a TCP-AO key switch (%d calls)", got-before)
	}
	waitFor(t, "status send/recv id 20/21", func() bool {
		a := m.Status()[0].Auth
		return a.SendID != nil && *a.SendID == 20 && *a.RecvID == 21 && a.KeyID != nil && *a.KeyID == 2 &&
			a.PeerRNextKeyID != nil && *a.PeerRNextKeyID == 20
	})
	// The kernel's counters of the session reach /status and the observer
	// (as growth since the last pass).
	s.amu.Lock()
	s.good = 41
	s.amu.Unlock()
	m.Reconcile(context.Background())
	if k := m.Status()[0].Auth.Kernel; k == nil || k.Good != 41 {
		t.Fatalf("auth.kernel %+v", k)
	}

	// A connection of the peer that carries no TCP-AO key is ended.
	s.amu.Lock()
	delete(s.conns, netip.MustParseAddrPort("192.0.2.2:40000"))
	s.unsigned = append(s.unsigned, netip.MustParseAddrPort("192.0.2.2:40000"))
	s.amu.Unlock()
	m.Reconcile(context.Background())
	if b.resets("192.0.2.2") == 0 {
		t.Fatal("an unsigned session of a TCP-AO peer was not ended")
	}

	// Removed: its keys go; the range stays.
	if _, err := m.Reload(context.Background(), cfg(t, strings.Replace(aoConfig(at), "[[peers]]\naddress = \"192.0.2.2\"\nasn = 65002\nkeychain = \"ao\"\n", "", 1))); err != nil {
		t.Fatal(err)
	}
	if len(s.listener("192.0.2.2/32").Keys) != 0 || len(s.listener("198.51.100.0/24").Keys) != 2 {
		t.Fatal("removed peer's TCP-AO keys left on the listener, or the range's taken")
	}
	for _, w := range []string{"AO-Test-One", "AO-Test-Two", "Md5-Beside"} {
		if strings.Contains(logs.String(), w) {
			t.Fatal("secret in logs")
		}
	}
	noUpdatePeer(t, b)
}

// TestTCPAOFailClosed: MKTs the kernel refuses hold the peer down (admin
// down; the range out of GoBGP) until they install; an MD5 key left from
// before a migration is removed first (one mechanism per peer).
func TestTCPAOFailClosed(t *testing.T) {
	s := newFakeAO()
	s.failAO[netip.MustParsePrefix("192.0.2.2/32")] = true
	s.failAO[netip.MustParsePrefix("198.51.100.0/24")] = true
	m, b := startWith(t, cfg(t, aoConfig(time.Now().Add(time.Hour))), s, io.Discard)
	if p := b.peer("192.0.2.2"); p == nil || !p.Conf.AdminDown {
		t.Fatalf("refused MKTs must hold the peer down: %+v", p.GetConf())
	}
	b.mu.Lock()
	n := len(b.dyn)
	b.mu.Unlock()
	if n != 0 {
		t.Fatal("a range whose MKTs were refused reached GoBGP")
	}
	s.amu.Lock()
	s.failAO = map[netip.Prefix]bool{}
	s.amu.Unlock()
	m.Reconcile(context.Background())
	if p := b.peer("192.0.2.2"); p == nil || p.Conf.AdminDown {
		t.Fatal("not released once its MKTs installed")
	}
	// MD5 -> TCP-AO: the MD5 key goes before the MKTs come.
	if _, err := m.Reload(context.Background(), cfg(t, strings.Replace(aoConfig(time.Now().Add(time.Hour)), `password = "Md5-Beside"`, `keychain = "ao"`, 1))); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.key("192.0.2.3"); ok || len(s.listener("192.0.2.3/32").Keys) != 2 {
		t.Fatal("migration to TCP-AO left the MD5 key or lacks the MKTs")
	}
}

func startWith(t *testing.T, c *config.Config, s Sockets, logw io.Writer) (*Manager, *fakeBGP) {
	t.Helper()
	m := New(Options{Config: c, Logger: quietLogger(logw), Sockets: s})
	b := newFakeBGP()
	if err := m.start(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Stop(context.Background()) })
	return m, b
}

// TestTCPAOSessionTheLookMissed: a TCP-AO session whose connection the
// pass's look did not see is not judged unsigned from it (fail closed
// would end a good session): one whose connection closed before the look
// while GoBGP's event is still on its way, and one that came up while the
// look ran (its socket dump failed, so only the times tell). The next look
// that sees an unsigned connection still ends it.
func TestTCPAOSessionTheLookMissed(t *testing.T) {
	s := newFakeAO()
	s.observe = true
	m, b := startWith(t, cfg(t, aoConfig(time.Now().Add(time.Hour))), s, io.Discard)
	remote := netip.MustParseAddrPort("192.0.2.2:40000")
	up := plugin.PeerEvent{Peer: remote.Addr(), State: "established", Local: netip.MustParseAddrPort("192.0.2.1:179"), Remote: remote}

	// Closed before the look (no socket), the event not yet recorded.
	up.Time = time.Now()
	b.setState("192.0.2.2", api.PeerState_ESTABLISHED)
	m.event(up)
	m.Reconcile(context.Background())
	if n := b.resets("192.0.2.2"); n != 0 {
		t.Fatalf("a session whose connection the look did not list was ended (%d resets)", n)
	}

	// Up while the look ran, which could not list the sockets.
	m.event(plugin.PeerEvent{Peer: remote.Addr(), State: "active", Time: time.Now()})
	s.amu.Lock()
	s.failObserve = true
	s.onObserve = func() {
		up.Time = time.Now()
		m.event(up)
	}
	s.amu.Unlock()
	m.Reconcile(context.Background())
	if n := b.resets("192.0.2.2"); n != 0 {
		t.Fatalf("a session newer than the look was ended (%d resets)", n)
	}

	// Seen unsigned by the next look: ended.
	s.amu.Lock()
	s.failObserve, s.onObserve = false, nil
	s.unsigned = append(s.unsigned, remote)
	s.amu.Unlock()
	m.Reconcile(context.Background())
	if b.resets("192.0.2.2") == 0 {
		t.Fatal("an unsigned connection the look saw was not ended")
	}
}

// TestTCPAOAcceptICMPs: a keychain's accept-icmps reaches the dials and,
// in place (no GoBGP call, no reset), every established session of its
// peers; a session found otherwise (the kernel's accept_icmps read back)
// is set again; off again at the next reload.
func TestTCPAOAcceptICMPs(t *testing.T) {
	s := newFakeAO()
	s.observe = true
	var logs testlog.Buffer
	base := aoConfig(time.Now().Add(time.Hour))
	on := strings.Replace(base, "type = \"tcp-ao\"\n", "type = \"tcp-ao\"\naccept-icmps = true\n", 1)
	m, b := startWith(t, cfg(t, base), s, &logs)
	s.amu.Lock()
	inherited := cloneAOSet(s.lis[netip.MustParsePrefix("192.0.2.2/32")])
	s.conns[netip.MustParseAddrPort("192.0.2.2:40000")] = inherited
	s.amu.Unlock()
	established(b, "192.0.2.2")
	waitFor(t, "the session's TCP-AO keys", func() bool { c, ok := s.conn("192.0.2.2:40000"); return ok && c.RNext == 1 })
	if c, _ := s.conn("192.0.2.2:40000"); c.AcceptICMPs {
		t.Fatal("accept_icmps set on a session by default")
	}
	if err := dial(t, m, "192.0.2.2"); err != nil || s.dialedWith("192.0.2.2:179") != "tcp-ao 2 keys, current 1, rnext 1" {
		t.Fatalf("default dial: %v %q", err, s.dialedWith("192.0.2.2:179"))
	}
	calls := func() int { b.mu.Lock(); defer b.mu.Unlock(); return len(b.calls) }
	before := calls()
	if _, err := m.Reload(context.Background(), cfg(t, on)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "accept_icmps on the session", func() bool { c, _ := s.conn("192.0.2.2:40000"); return c.AcceptICMPs })
	if !m.Status()[0].Auth.AcceptICMPs {
		t.Fatal("/status auth.accept_icmps not shown")
	}
	if err := dial(t, m, "192.0.2.2"); err != nil || s.dialedWith("192.0.2.2:179") != "tcp-ao 2 keys, current 1, rnext 1, accept icmps" {
		t.Fatalf("dial after accept-icmps = true: %v %q", err, s.dialedWith("192.0.2.2:179"))
	}
	if got := calls(); got != before || b.resets("192.0.2.2") != 0 {
		t.Fatalf("accept-icmps changed through GoBGP (%d calls, %d resets)", got-before, b.resets("192.0.2.2"))
	}
	// Something else turned it off on the socket: the next pass sets it.
	s.amu.Lock()
	c := s.conns[netip.MustParseAddrPort("192.0.2.2:40000")]
	c.AcceptICMPs = false
	s.conns[netip.MustParseAddrPort("192.0.2.2:40000")] = c
	s.amu.Unlock()
	m.Reconcile(context.Background())
	if c, _ := s.conn("192.0.2.2:40000"); !c.AcceptICMPs {
		t.Fatal("accept_icmps cleared on the socket and not set again")
	}
	if _, err := m.Reload(context.Background(), cfg(t, base)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "accept_icmps off again", func() bool { c, _ := s.conn("192.0.2.2:40000"); return !c.AcceptICMPs })
	if !strings.Contains(logs.String(), "accept_icmps") {
		t.Fatal("the in-place change is not logged")
	}
}
