package tcpsock

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/md5auth"
)

// Keys scoped to a VRF (l3mdev): TCP-MD5 with TCP_MD5SIG_FLAG_IFINDEX,
// TCP-AO with TCP_AO_KEYF_IFINDEX, through the functions the reconciler
// uses (a Scan's SetListenerKey, DeleteListenerKey, SetListenerAO,
// DeleteListenerAO(Scope), Observe, ObserveAO; ProcessSockets' DialMD5,
// DialAO). The parts
// that need VRF devices skip, naming CONFIG_NET_VRF, on a kernel without
// them (this project's host); the TCP-AO parts skip naming CONFIG_TCP_AO.
// Both run in the VM (make vmtest: TestTCPSockInGuest).

// Ports of the VRF tests (see the list in install_linux_test.go).
const (
	portVRF         = 18101 // TestVRFScopedKey (+1: IPv6)
	portVRFListen   = 18111 // TestVRFScopedListenerAndDial: the VRF's listener (+ case)
	portVRFFar      = 18121 // the far end's listener, dialed from the VRF (+ case)
	portVRFClosed   = 18131 // TestVRFScopeFailsClosed
	portVRFClosedAO = 18132
	portVRFFarMD5   = 18133 // its far end's listeners
	portVRFFarAO    = 18134
	portVRFGone     = 18135 // TestVRFGone
	portVRFBoth     = 18141 // TestVRFScopedAndUnscopedCoexist
)

func requireVRF(t *testing.T) {
	t.Helper()
	testenv.RequireRoot(t)
	if err := CheckVRF(); err != nil {
		testenv.SkipKernelLacks(t, "CONFIG_NET_VRF (VRF devices)", err.Error())
	}
}

func requireAO(t *testing.T) {
	t.Helper()
	if err := CheckTCPAO(); err != nil {
		testenv.SkipKernelLacks(t, "CONFIG_TCP_AO (TCP-AO)", err.Error())
	}
}

// vrfTopo is two namespaces joined by a veth, addressed like topo: srv
// (192.0.2.1, 2001:db8::1) and cli (192.0.2.2 and 192.0.2.200,
// 2001:db8::2 and 2001:db8::1:2). With VRFs, srv has VRF devices blue
// (table 10) and red (table 20), its eth0 is in blue, and
// net.ipv4.tcp_l3mdev_accept = 1 lets its unbound listeners accept
// connections that come in through blue.
type vrfTopo struct {
	srv, cli  string
	blue, red int // ifindexes in srv (0 without VRFs)
	eth0      int // srv's eth0
}

func newVRFTopo(t *testing.T, tag string, vrfs bool) *vrfTopo {
	t.Helper()
	testenv.RequireRoot(t)
	tp := netns.New(t, tag)
	v := &vrfTopo{srv: tp.Add("s"), cli: tp.Add("c")}
	// No addresses yet: enslaving a device to a VRF flushes its IPv6
	// addresses (the device goes down and up).
	tp.Link(v.srv, "eth0", nil, v.cli, "eth0", []string{"192.0.2.2/24", "192.0.2.200/24", "2001:db8::2/64", "2001:db8::1:2/64"})
	ip := func(args ...string) { netns.Run(t, "ip", append([]string{"-n", v.srv}, args...)...) }
	if vrfs {
		ip("link", "add", "blue", "type", "vrf", "table", "10")
		ip("link", "add", "red", "type", "vrf", "table", "20")
		ip("link", "set", "blue", "up")
		ip("link", "set", "red", "up")
		ip("link", "set", "eth0", "master", "blue")
		netns.Run(t, "ip", "netns", "exec", v.srv, "sysctl", "-qw", "net.ipv4.tcp_l3mdev_accept=1")
	}
	ip("addr", "add", "192.0.2.1/24", "dev", "eth0")
	ip("addr", "add", "2001:db8::1/64", "dev", "eth0", "nodad")
	err := netns.Do(v.srv, func() error {
		for name, p := range map[string]*int{"eth0": &v.eth0, "blue": &v.blue, "red": &v.red} {
			if !vrfs && name != "eth0" {
				continue
			}
			ifc, err := net.InterfaceByName(name)
			if err != nil {
				return err
			}
			*p = ifc.Index
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func bindToDevice(rc syscall.RawConn, dev string) error {
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = unix.BindToDevice(int(fd), dev) }); err != nil {
		return err
	}
	if serr != nil {
		return fmt.Errorf("bind to %s: %w", dev, serr)
	}
	return nil
}

// dialKeyed connects from namespace ns (bound to device dev unless "",
// from local) to remote, keying the socket with keyer before connect (the
// way the dial hook does: DialMD5, DialAO). A keyer error fails the dial
// unless ignoreKeyErr (to prove what a failed keyer left on the socket).
func dialKeyed(ns, dev string, local netip.Addr, remote netip.AddrPort, keyer func(syscall.RawConn) error, ignoreKeyErr bool) (*net.TCPConn, error) {
	var c net.Conn
	err := netns.Do(ns, func() (err error) {
		d := net.Dialer{Timeout: dialTimeout, LocalAddr: &net.TCPAddr{IP: local.AsSlice()}}
		d.SetMultipathTCP(false)
		d.Control = func(_, _ string, rc syscall.RawConn) error {
			if dev != "" {
				if err := bindToDevice(rc, dev); err != nil {
					return err
				}
			}
			if keyer == nil {
				return nil
			}
			if err := keyer(rc); err != nil && !ignoreKeyErr {
				return err
			}
			return nil
		}
		c, err = d.Dial("tcp", remote.String())
		return err
	})
	if err != nil {
		return nil, err
	}
	return c.(*net.TCPConn), nil
}

func dialKeyedOK(t *testing.T, ns, dev string, local netip.Addr, remote netip.AddrPort, keyer func(syscall.RawConn) error) *net.TCPConn {
	t.Helper()
	c, err := dialKeyed(ns, dev, local, remote, keyer, false)
	noSecret(t, err)
	if err != nil {
		t.Fatalf("dial %s -> %s (dev %q): %v", local, remote, dev, err)
	}
	echo(t, c, "hello")
	return c
}

func dialKeyedFails(ns, dev string, local netip.Addr, remote netip.AddrPort, keyer func(syscall.RawConn) error, ignoreKeyErr bool) error {
	c, err := dialKeyed(ns, dev, local, remote, keyer, ignoreKeyErr)
	if err == nil {
		c.Close()
		return fmt.Errorf("dial %s -> %s succeeded, want a timeout", local, remote)
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		return fmt.Errorf("dial %s -> %s: %v, want a timeout", local, remote, err)
	}
	return nil
}

func md5Keyer(remote netip.AddrPort, k md5auth.Key) func(syscall.RawConn) error {
	return func(rc syscall.RawConn) error { return ProcessSockets{}.DialMD5(rc, remote, k) }
}

func aoKeyer(remote netip.AddrPort, set AOSet) func(syscall.RawConn) error {
	return func(rc syscall.RawConn) error { return ProcessSockets{}.DialAO(rc, remote, set) }
}

// aoSet is a one-MKT set for peer a (KeyIDs id/id, HMAC-SHA1) scoped to l3.
func aoSet(a netip.Addr, id uint8, secret []byte, l3 int) AOSet {
	p := netip.PrefixFrom(a, a.BitLen())
	return AOSet{Prefix: p, IfIndex: l3, Current: int(id), RNext: int(id),
		Keys: []AOKey{{Prefix: p, Alg: AOAlgHMACSHA1, Secret: secret, SendID: id, RecvID: id, IfIndex: l3}}}
}

func observeAOIn(t *testing.T, port uint16) []AOSocket {
	t.Helper()
	socks, err := (ProcessSockets{}).Scan(port).ObserveAO()
	if err != nil {
		t.Fatalf("ObserveAO(%d): %v", port, err)
	}
	t.Cleanup(func() { WipeAO(socks) })
	return socks
}

// aoListener returns the observed listener on port with local address
// family fam (unix.AF_INET / AF_INET6).
func aoListener(t *testing.T, socks []AOSocket, fam int) AOSocket {
	t.Helper()
	for _, s := range socks {
		if s.Listening && s.Family == fam {
			return s
		}
	}
	t.Fatalf("no listener of family %d with TCP-AO keys among %d sockets", fam, len(socks))
	return AOSocket{}
}

// mdListener returns the observed listener on port of family fam.
func mdListener(t *testing.T, obs Observed, fam int) SocketKeys {
	t.Helper()
	if !obs.KeysVisible {
		t.Fatal("sock_diag hides the keys (no CAP_NET_ADMIN?)")
	}
	for _, s := range obs.Sockets {
		if s.Listening && s.Family == fam {
			return s
		}
	}
	t.Fatalf("no listener of family %d observed among %d sockets", fam, len(obs.Sockets))
	return SocketKeys{}
}

type vrfFamily struct {
	name     string
	fam      int
	network  string
	srv, cli netip.Addr
}

var vrfFamilies = []vrfFamily{
	{"ipv4", unix.AF_INET, "tcp4", srvV4, cliV4},
	{"ipv6", unix.AF_INET6, "tcp6", srvV6, cliV6},
}

func (f vrfFamily) any() netip.Addr {
	if f.fam == unix.AF_INET {
		return netip.IPv4Unspecified()
	}
	return netip.IPv6Unspecified()
}

// TestVRFScopedListenerAndDial: for IPv4 and IPv6, TCP-MD5 and TCP-AO, a
// key scoped to VRF blue works on a listener bound to blue (installed with
// SetListenerKey / SetListenerAO) and on a socket in blue about to dial
// (DialMD5 / DialAO), against a far end with an ordinary (unscoped) key;
// and the read-back carries the scope where the kernel reports it: TCP-AO
// MKTs read back with ifindex blue on the listener, the accepted connection
// and the dialed one; TCP-MD5 keys read back with their address and secret
// only (sock_diag has no l3index), which ObservedKey.Matches accepts for the
// scoped key.
func TestVRFScopedListenerAndDial(t *testing.T) {
	requireVRF(t)
	v := newVRFTopo(t, "vrfld", true)
	ps := ProcessSockets{}
	for i, f := range vrfFamilies {
		for j, mech := range []string{"md5", "ao"} {
			t.Run(f.name+"/"+mech, func(t *testing.T) {
				if mech == "ao" {
					requireAO(t)
				}
				port := uint16(portVRFListen + 2*i + j)
				far := uint16(portVRFFar + 2*i + j)
				dst, farDst := ap(f.srv, port), ap(f.cli, far)
				listenEchoDev(t, v.srv, f.network, ap(f.any(), port), "blue")
				listenEchoDev(t, v.cli, f.network, ap(f.any(), far), "")
				cliScope := netip.PrefixFrom(f.cli, f.cli.BitLen())
				switch mech {
				case "md5":
					scoped := md5auth.Key{Prefix: cliScope, IfIndex: v.blue, Secret: secretA}
					if n, err := ps.Scan(port).SetListenerKey(scoped); err != nil || n != 1 {
						noSecret(t, err)
						t.Fatalf("SetListenerKey(%v) = %d, %v; want 1 listener", scoped, n, err)
					}
					c := dialKeyedOK(t, v.cli, "", f.cli, dst, md5Keyer(dst, md5auth.AddrKey(f.srv, secretA)))
					defer c.Close()
					// The far end keys our address, unscoped; our dialing
					// socket in blue carries the key scoped to blue.
					if n, err := ps.Scan(far).SetListenerKey(md5auth.AddrKey(f.srv, secretB)); err != nil || n != 1 {
						t.Fatalf("far end's key: %d, %v", n, err)
					}
					out := dialKeyedOK(t, v.srv, "blue", f.srv, farDst, md5Keyer(farDst, md5auth.Key{Prefix: netip.PrefixFrom(f.cli, f.cli.BitLen()), IfIndex: v.blue, Secret: secretB}))
					defer out.Close()
					obs := observeIn(t, v.srv, port)
					l := mdListener(t, obs, f.fam)
					if !l.Has(scoped) || len(l.KeysFor(cliScope)) != 1 || l.IfIndex != v.blue {
						t.Fatalf("listener read back: %d keys for %s, Has(scoped) %v, bound to ifindex %d (blue %d)",
							len(l.KeysFor(cliScope)), cliScope, l.Has(scoped), l.IfIndex, v.blue)
					}
					// What sock_diag cannot show: the key reads back the same
					// whatever its l3index.
					other := scoped
					other.IfIndex = v.red
					if !l.Has(other) {
						t.Fatal("a TCP-MD5 key read back shows a scope, which sock_diag never reports")
					}
					// The accepted connection (bound to blue) re-keyed in
					// place with a scoped key: SetConnKey.
					local, remote := ap(f.srv, port), netip.MustParseAddrPort(c.LocalAddr().String())
					rekey := md5auth.Key{Prefix: cliScope, IfIndex: v.blue, Secret: secretB}
					if err := ps.Scan(local.Port()).SetConnKey(local, remote, rekey); err != nil {
						noSecret(t, err)
						t.Fatalf("SetConnKey(%s, %s, %v): %v", local, remote, rekey, err)
					}
					var rekeyed bool
					for _, s := range observeIn(t, v.srv, port).Sockets {
						if !s.Listening && s.Local == local && s.Remote == remote {
							rekeyed = s.Has(rekey) && len(s.KeysFor(cliScope)) == 1
						}
					}
					if !rekeyed {
						t.Fatal("the accepted connection does not read back the scoped key SetConnKey put on it")
					}
				case "ao":
					scoped := aoSet(f.cli, 1, secretA, v.blue)
					if n, err := ps.Scan(port).SetListenerAO(scoped); err != nil || n != 1 {
						noSecret(t, err)
						t.Fatalf("SetListenerAO(%v) = %d, %v; want 1 listener", scoped, n, err)
					}
					c := dialKeyedOK(t, v.cli, "", f.cli, dst, aoKeyer(dst, aoSet(f.srv, 1, secretA, 0)))
					defer c.Close()
					if n, err := ps.Scan(far).SetListenerAO(aoSet(f.srv, 2, secretB, 0)); err != nil || n != 1 {
						t.Fatalf("far end's key: %d, %v", n, err)
					}
					out := dialKeyedOK(t, v.srv, "blue", f.srv, farDst, aoKeyer(farDst, aoSet(f.cli, 2, secretB, v.blue)))
					defer out.Close()
					// The listener, and the connection it accepted (which
					// inherits the listener's MKTs of its VRF), read back
					// the MKT scoped to blue.
					socks := observeAOIn(t, port)
					l := aoListener(t, socks, f.fam)
					got := l.KeysForScope(cliScope, v.blue)
					if len(got) != 1 || !got[0].Matches(scoped.Keys[0]) || !got[0].Scoped || got[0].IfIndex != v.blue {
						t.Fatalf("listener: MKTs of %s in blue read back: %+v", cliScope, got)
					}
					if n := len(l.KeysForScope(cliScope, 0)); n != 0 {
						t.Fatalf("listener: %d unscoped MKTs of %s, want none", n, cliScope)
					}
					var accepted bool
					for _, s := range socks {
						if !s.Listening && s.Local.Port() == port {
							accepted = true
							if k := s.KeysForScope(cliScope, v.blue); len(k) != 1 || !k[0].Matches(scoped.Keys[0]) {
								t.Errorf("accepted connection %s->%s: MKTs in blue %+v", s.Local, s.Remote, k)
							}
						}
					}
					if !accepted {
						t.Error("the accepted connection is not observed")
					}
					// A second scoped MKT on the accepted connection (bound to
					// blue: the kernel takes scoped MKTs on an established
					// connection only for its own VRF): SetConnAO.
					local, remote := ap(f.srv, port), netip.MustParseAddrPort(c.LocalAddr().String())
					two := aoSet(f.cli, 1, secretA, v.blue)
					two.Keys = append(two.Keys, aoSet(f.cli, 3, secretX, v.blue).Keys...)
					if err := ps.Scan(local.Port()).SetConnAO(local, remote, two); err != nil {
						noSecret(t, err)
						t.Fatalf("SetConnAO(%s, %s, %v): %v", local, remote, two, err)
					}
					for _, s := range observeAOIn(t, port) {
						if !s.Listening && s.Local == local && s.Remote == remote {
							if k := s.KeysForScope(cliScope, v.blue); len(k) != 2 {
								t.Errorf("connection after SetConnAO: %d MKTs in blue, want 2", len(k))
							}
						}
					}
					var dialed bool
					for _, s := range observeAOIn(t, far) {
						if !s.Listening && s.Remote.Port() == far && s.Local.Addr() == f.srv {
							dialed = true
							want := aoSet(f.cli, 2, secretB, v.blue).Keys[0]
							want.IfIndex = v.blue
							if k := s.KeysForScope(cliScope, v.blue); len(k) != 1 || !k[0].Matches(want) {
								t.Errorf("dialed connection %s->%s: MKTs in blue %+v", s.Local, s.Remote, k)
							}
						}
					}
					if !dialed {
						t.Error("the connection dialed from blue is not observed")
					}
				}
			})
		}
	}
}

// TestVRFScopeFailsClosed: a key that cannot be scoped — its ifindex is
// not a VRF device, or no device at all — is refused with an error that
// matches ErrScope (and EINVAL), names the scope, the socket and what the
// ifindex is, and never the secret; and nothing is installed in its place:
// the listener holds no key at all, and a dialing socket whose DialMD5 /
// DialAO failed sends unsigned segments that the far end drops. This needs
// no VRF devices (a veth's ifindex is not a VRF on any kernel), so the
// TCP-MD5 half runs on the host too.
func TestVRFScopeFailsClosed(t *testing.T) {
	v := newVRFTopo(t, "vrfcl", false)
	ps := ProcessSockets{}
	const missing = 1 << 30
	cases := []struct {
		ifindex int
		want    string
	}{
		{v.eth0, fmt.Sprintf("ifindex %d is eth0, which is not a VRF (L3 master) device", v.eth0)},
		{missing, fmt.Sprintf("no device has ifindex %d in the socket's network namespace", missing)},
	}
	check := func(t *testing.T, err error, want ...string) {
		t.Helper()
		noSecret(t, err)
		if !errors.Is(err, ErrScope) || !errors.Is(err, unix.EINVAL) {
			t.Fatalf("error %v, want ErrScope and EINVAL", err)
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Fatalf("error %q does not say %q", err, w)
			}
		}
	}
	t.Run("md5", func(t *testing.T) {
		listenEcho(t, v.srv, "tcp4", ap(srvV4, portVRFClosed))
		far := listenEcho(t, v.cli, "tcp4", ap(cliV4, portVRFFarMD5))
		far.setKey(t, md5auth.AddrKey(srvV4, secretA))
		for _, c := range cases {
			k := md5auth.Key{Prefix: netip.PrefixFrom(cliV4, 32), IfIndex: c.ifindex, Secret: secretA}
			n, err := ps.Scan(portVRFClosed).SetListenerKey(k)
			check(t, err, fmt.Sprintf("tcpsock: set key for 192.0.2.2 ifindex %d on listener 192.0.2.1:%d: ", c.ifindex, portVRFClosed), c.want)
			if n != 0 {
				t.Fatalf("SetListenerKey reports %d listeners keyed", n)
			}
			dk := md5auth.Key{Prefix: netip.PrefixFrom(cliV4, 32), IfIndex: c.ifindex, Secret: secretA}
			var dialErr error
			keyer := func(rc syscall.RawConn) error {
				dialErr = ps.DialMD5(rc, ap(cliV4, portVRFFarMD5), dk)
				return dialErr
			}
			// The error ignored on purpose: the SYN goes out unsigned and
			// the far end, which wants a signature, drops it.
			if err := dialKeyedFails(v.srv, "", srvV4, ap(cliV4, portVRFFarMD5), keyer, true); err != nil {
				t.Fatalf("after a failed DialMD5: %v (the socket carried a key?)", err)
			}
			check(t, dialErr, "socket dialing 192.0.2.2:", c.want)
		}
		l := mdListener(t, observeIn(t, v.srv, portVRFClosed), unix.AF_INET)
		if len(l.Keys) != 0 {
			t.Fatalf("the listener holds %d keys after refused scopes, want none", len(l.Keys))
		}
	})
	t.Run("ao", func(t *testing.T) {
		requireAO(t)
		listenEcho(t, v.srv, "tcp6", ap(srvV6, portVRFClosedAO))
		listenEcho(t, v.cli, "tcp6", ap(cliV6, portVRFFarAO))
		if _, err := ps.Scan(portVRFFarAO).SetListenerAO(aoSet(srvV6, 1, secretA, 0)); err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			set := aoSet(cliV6, 1, secretA, c.ifindex)
			n, err := ps.Scan(portVRFClosedAO).SetListenerAO(set)
			check(t, err, fmt.Sprintf("add tcp-ao key 1/1 for 2001:db8::2/128 ifindex %d on listener [2001:db8::1]:%d: ", c.ifindex, portVRFClosedAO), c.want)
			if n != 0 {
				t.Fatalf("SetListenerAO reports %d listeners keyed", n)
			}
			var dialErr error
			keyer := func(rc syscall.RawConn) error {
				dialErr = ps.DialAO(rc, ap(cliV6, portVRFFarAO), set)
				return dialErr
			}
			if err := dialKeyedFails(v.srv, "", srvV6, ap(cliV6, portVRFFarAO), keyer, true); err != nil {
				t.Fatalf("after a failed DialAO: %v (the socket carried a key?)", err)
			}
			check(t, dialErr, "socket dialing [2001:db8::2]:", c.want)
		}
		for _, s := range observeAOIn(t, portVRFClosedAO) {
			if s.Listening {
				t.Fatalf("the listener holds %d TCP-AO keys after refused scopes, want none", len(s.Keys))
			}
		}
	})
}

// TestVRFGone: keys scoped to a VRF that is then deleted. A new key for
// its ifindex is refused (ErrScope, "no device"); the TCP-MD5 key
// installed before cannot be deleted any more (the kernel looks the device
// up for a delete too): ErrScope says so, and it stays on the listener
// (sock_diag still shows it), matching no segment; the TCP-AO MKT can be
// deleted (TCP_AO_DEL_KEY does not look the device up).
func TestVRFGone(t *testing.T) {
	requireVRF(t)
	v := newVRFTopo(t, "vrfgo", true)
	netns.Run(t, "ip", "-n", v.srv, "link", "add", "gone", "type", "vrf", "table", "30")
	var gone int
	if err := netns.Do(v.srv, func() error {
		ifc, err := net.InterfaceByName("gone")
		if err == nil {
			gone = ifc.Index
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	ps := ProcessSockets{}
	listenEcho(t, v.srv, "tcp4", ap(netip.IPv4Unspecified(), portVRFGone))
	md := md5auth.Key{Prefix: netip.PrefixFrom(cliV4, 32), IfIndex: gone, Secret: secretA}
	if _, err := ps.Scan(portVRFGone).SetListenerKey(md); err != nil {
		t.Fatalf("scoped key while the VRF exists: %v", err)
	}
	aoOK := CheckTCPAO() == nil
	ao := aoSet(cliV4Out, 1, secretB, gone)
	if aoOK {
		if _, err := ps.Scan(portVRFGone).SetListenerAO(ao); err != nil {
			t.Fatalf("scoped MKT while the VRF exists: %v", err)
		}
	}
	netns.Run(t, "ip", "-n", v.srv, "link", "del", "gone")

	_, err := ps.Scan(portVRFGone).SetListenerKey(md5auth.Key{Prefix: netip.PrefixFrom(cliV4Out, 32), IfIndex: gone, Secret: secretA})
	noSecret(t, err)
	if !errors.Is(err, ErrScope) || !strings.Contains(err.Error(), fmt.Sprintf("no device has ifindex %d", gone)) {
		t.Fatalf("set a key scoped to the deleted VRF: %v, want ErrScope naming it", err)
	}
	err = ps.Scan(portVRFGone).DeleteListenerKey(md)
	noSecret(t, err)
	if !errors.Is(err, ErrScope) || !strings.Contains(err.Error(), "cannot delete a TCP-MD5 key scoped to a device that is gone") {
		t.Fatalf("delete the key scoped to the deleted VRF: %v, want ErrScope saying it cannot be deleted", err)
	}
	if l := mdListener(t, observeIn(t, v.srv, portVRFGone), unix.AF_INET); !l.Has(md) {
		t.Fatalf("the stuck TCP-MD5 key is not read back (%d keys)", len(l.Keys))
	}
	if !aoOK {
		testenv.SkipKernelLacks(t, "CONFIG_TCP_AO (TCP-AO)", "the TCP-AO half")
	}
	if err := ps.Scan(portVRFGone).DeleteListenerAOScope(ao.Prefix, gone); err != nil {
		t.Fatalf("delete the MKT scoped to the deleted VRF: %v", err)
	}
	for _, s := range observeAOIn(t, portVRFGone) {
		if s.Listening && len(s.Keys) != 0 {
			t.Fatalf("%d MKTs left after the delete", len(s.Keys))
		}
	}
}

// TestVRFScopedAndUnscopedCoexist: a listener holds, for one peer address,
// a key scoped to VRF blue and an unscoped key, as the kernel allows; each
// is set, found and deleted by the key operations without touching the
// other (DeleteListenerKey, SetListenerAO, DeleteListenerAOScope;
// DeleteListenerAO removes the address's MKTs of every scope). TCP-MD5: the kernel prefers the scoped key for segments that come
// in through blue, and the unscoped one applies there once the scoped one
// is gone. TCP-AO: MKTs are picked by KeyID, and the set operations keep to
// their own scope (a scoped SetListenerAO does not delete the unscoped MKTs
// of the address, nor the other way round); an unscoped MKT overlaps every
// VRF, so a scoped MKT cannot reuse its KeyIDs (EEXIST), while an unscoped
// one may reuse a scoped one's.
func TestVRFScopedAndUnscopedCoexist(t *testing.T) {
	requireVRF(t)
	v := newVRFTopo(t, "vrfbo", true)
	ps := ProcessSockets{}
	// Unbound: it hears the default VRF and, with tcp_l3mdev_accept,
	// blue.
	listenEcho(t, v.srv, "tcp4", ap(netip.IPv4Unspecified(), portVRFBoth))
	dst := ap(srvV4, portVRFBoth)
	t.Run("md5", func(t *testing.T) {
		p := netip.PrefixFrom(cliV4, 32)
		scoped := md5auth.Key{Prefix: p, IfIndex: v.blue, Secret: secretA}
		unscoped := md5auth.Key{Prefix: p, Secret: secretB}
		set := func(k md5auth.Key) {
			t.Helper()
			if n, err := ps.Scan(portVRFBoth).SetListenerKey(k); err != nil || n != 1 {
				noSecret(t, err)
				t.Fatalf("SetListenerKey(%v) = %d, %v", k, n, err)
			}
		}
		del := func(k md5auth.Key) {
			t.Helper()
			if err := ps.Scan(portVRFBoth).DeleteListenerKey(k); err != nil {
				t.Fatalf("DeleteListenerKey(%v): %v", k, err)
			}
		}
		has := func(want ...md5auth.Key) {
			t.Helper()
			l := mdListener(t, observeIn(t, v.srv, portVRFBoth), unix.AF_INET)
			if len(l.KeysFor(p)) != len(want) {
				t.Fatalf("listener holds %d keys for %s, want %d", len(l.KeysFor(p)), p, len(want))
			}
			for _, k := range want {
				if !l.Has(k) {
					t.Fatalf("listener lacks %v", k)
				}
			}
		}
		signed := func(s []byte) func(syscall.RawConn) error { return md5Keyer(dst, md5auth.AddrKey(srvV4, s)) }
		set(scoped)
		set(unscoped)
		has(scoped, unscoped)
		// Through blue the scoped key rules.
		dialKeyedOK(t, v.cli, "", cliV4, dst, signed(secretA)).Close()
		before := counters(t, v.srv)
		if err := dialKeyedFails(v.cli, "", cliV4, dst, signed(secretB), false); err != nil {
			t.Fatalf("signed with the unscoped key while the scoped one is there: %v", err)
		}
		checkRose(t, v.srv, before, "TCPMD5Failure")
		// Deleting the scoped key leaves the unscoped one, which now
		// applies in blue too.
		del(scoped)
		has(unscoped)
		dialKeyedOK(t, v.cli, "", cliV4, dst, signed(secretB)).Close()
		// And the other way round.
		set(scoped)
		del(unscoped)
		has(scoped)
		dialKeyedOK(t, v.cli, "", cliV4, dst, signed(secretA)).Close()
		del(scoped)
		has()
	})
	t.Run("ao", func(t *testing.T) {
		requireAO(t)
		a := cliV4Out // not the TCP-MD5 peer's address: one mechanism per address
		p := netip.PrefixFrom(a, 32)
		ids := func(socks AOSocket, l3 int) string {
			var s []string
			for _, k := range socks.KeysForScope(p, l3) {
				s = append(s, fmt.Sprintf("%d/%d", k.SendID, k.RecvID))
			}
			slices.Sort(s)
			return strings.Join(s, ",")
		}
		expect := func(blue, unscoped string) {
			t.Helper()
			socks := observeAOIn(t, portVRFBoth)
			if blue == "" && unscoped == "" {
				for _, s := range socks {
					if s.Listening && len(s.KeysFor(p)) != 0 {
						t.Fatalf("listener holds %d MKTs of %s, want none", len(s.KeysFor(p)), p)
					}
				}
				return
			}
			l := aoListener(t, socks, unix.AF_INET)
			if g, u := ids(l, v.blue), ids(l, 0); g != blue || u != unscoped {
				t.Fatalf("listener MKTs of %s: blue %q, unscoped %q; want %q, %q", p, g, u, blue, unscoped)
			}
		}
		setAO := func(set AOSet) {
			t.Helper()
			if n, err := ps.Scan(portVRFBoth).SetListenerAO(set); err != nil || n != 1 {
				noSecret(t, err)
				t.Fatalf("SetListenerAO(%v) = %d, %v", set, n, err)
			}
		}
		setAO(aoSet(a, 1, secretA, v.blue))
		setAO(aoSet(a, 2, secretB, 0))
		expect("1/1", "2/2")
		setAO(aoSet(a, 1, secretA, v.blue)) // again: the unscoped MKT stays
		expect("1/1", "2/2")
		setAO(aoSet(a, 3, secretX, v.blue)) // the scoped MKT replaced
		expect("3/3", "2/2")
		setAO(aoSet(a, 4, secretB, 0)) // the unscoped one replaced
		expect("3/3", "4/4")
		dialKeyedOK(t, v.cli, "", a, dst, aoKeyer(dst, aoSet(srvV4, 3, secretX, 0))).Close()
		// The KeyIDs of an unscoped MKT are taken in every VRF.
		_, err := ps.Scan(portVRFBoth).SetListenerAO(AOSet{Prefix: p, IfIndex: v.blue, Current: -1, RNext: -1,
			Keys: []AOKey{{Prefix: p, Alg: AOAlgHMACSHA1, Secret: secretA, SendID: 3, RecvID: 3}, {Prefix: p, Alg: AOAlgHMACSHA1, Secret: secretA, SendID: 4, RecvID: 4}}})
		noSecret(t, err)
		if !errors.Is(err, unix.EEXIST) || !strings.Contains(err.Error(), "an unscoped MKT overlaps every VRF") {
			t.Fatalf("a scoped MKT with an unscoped MKT's KeyIDs: %v, want EEXIST explained", err)
		}
		expect("3/3", "4/4")
		if err := ps.Scan(portVRFBoth).DeleteListenerAOScope(p, v.blue); err != nil {
			t.Fatal(err)
		}
		expect("", "4/4")
		// The other way round the kernel allows it: an unscoped MKT may
		// reuse the KeyIDs of a scoped one.
		setAO(aoSet(a, 5, secretA, v.blue))
		setAO(AOSet{Prefix: p, Current: -1, RNext: -1, Keys: []AOKey{
			{Prefix: p, Alg: AOAlgHMACSHA1, Secret: secretB, SendID: 4, RecvID: 4},
			{Prefix: p, Alg: AOAlgHMACSHA1, Secret: secretB, SendID: 5, RecvID: 5}}})
		expect("5/5", "4/4,5/5")
		if err := ps.Scan(portVRFBoth).DeleteListenerAOScope(p, 0); err != nil { // the unscoped ones only
			t.Fatal(err)
		}
		expect("5/5", "")
		setAO(aoSet(a, 6, secretB, 0))
		expect("5/5", "6/6")
		if err := ps.Scan(portVRFBoth).DeleteListenerAO(p); err != nil { // every scope
			t.Fatal(err)
		}
		expect("", "")
	})
}
