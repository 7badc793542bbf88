//go:build linux

package tcpsock

import (
	"bytes"
	"fmt"
	"net"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/md5auth"
)

// Ports of the sock_diag tests (each test has its own namespaces; distinct
// ports keep FindListeners-based tests of this process from seeing them).
const (
	portDiag      = 17811 // IPv4 listener: address and prefix keys
	portDiagDual  = 17812 // dual-stack listener: v4-mapped, IPv6 keys
	portDiagDecoy = 17813 // keyed listener on another port
	portDiagMany  = 17814 // listeners with 400 keys and small ones
	portDiagHuge  = 17815 // listener with 700 keys
)

var secretC = []byte("s3cret-Charlie-5518")

func sockInode(t *testing.T, c syscall.Conn) uint64 {
	t.Helper()
	rc, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var st unix.Stat_t
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = unix.Fstat(int(fd), &st) }); err != nil {
		t.Fatal(err)
	}
	if serr != nil {
		t.Fatal(serr)
	}
	return st.Ino
}

// dumpIn runs DumpSocketKeys(port) in namespace ns, and checks that the
// light look (a light pass's) reports the same sockets with the same keys.
// The comparison counts only when a full look before and one after the
// light one agree: callers poll for sockets that are still appearing (a
// listener another process is starting), and one that appears between
// two looks is in one of them only.
func dumpIn(t *testing.T, ns string, port uint16) ([]SocketKeys, bool) {
	t.Helper()
	var socks, light, after []SocketKeys
	var visible, lightVisible bool
	for try := 1; ; try++ {
		err := netns.Do(ns, func() (err error) {
			if socks, visible, err = DumpSocketKeys(port); err != nil {
				return err
			}
			if light, lightVisible, err = dumpSocketKeys(port, true); err != nil {
				return err
			}
			after, _, err = DumpSocketKeys(port)
			return err
		})
		noSecret(t, err)
		if err != nil {
			t.Fatalf("DumpSocketKeys(%d) in %s: %v", port, ns, err)
		}
		if diffDumps(socks, after) == "" {
			break
		}
		if try == 5 {
			t.Logf("port %d in %s: the sockets changed during each of 5 looks; light look not compared", port, ns)
			return socks, visible
		}
	}
	if d := diffDumps(socks, light); d != "" || lightVisible != visible {
		t.Errorf("port %d in %s: the light look differs from the full one (keys visible %v, %v): %s", port, ns, visible, lightVisible, d)
	}
	return socks, visible
}

// diffDumps describes how two dumps differ in sockets or keys ("": not).
func diffDumps(a, b []SocketKeys) string {
	desc := func(socks []SocketKeys) map[uint64]string {
		m := map[uint64]string{}
		for _, s := range socks {
			var ks []string
			for _, k := range s.Keys {
				ks = append(ks, k.Prefix.String()+"="+string(k.Secret))
			}
			slices.Sort(ks)
			m[s.Inode] = sockName(s) + " " + strings.Join(ks, ",")
		}
		return m
	}
	da, db := desc(a), desc(b)
	var out []string
	for ino, sa := range da {
		if sb, ok := db[ino]; !ok {
			out = append(out, "only in the full look: inode "+fmt.Sprint(ino))
		} else if sa != sb {
			out = append(out, "keys differ on inode "+fmt.Sprint(ino))
		}
	}
	for ino := range db {
		if _, ok := da[ino]; !ok {
			out = append(out, "only in the light look: inode "+fmt.Sprint(ino))
		}
	}
	return strings.Join(out, "; ")
}

// wantSock is an expected socket: keys in any order.
type wantSock struct {
	SocketKeys
	keys []md5auth.Key
}

func sockName(s SocketKeys) string {
	if s.Listening {
		return "listener " + s.Local.String()
	}
	return "connection " + s.Local.String() + "->" + s.Remote.String()
}

// checkDump compares got with want: the same sockets (found by addresses),
// each with exactly the wanted keys (prefix, and secret compared with
// bytes.Equal).
func checkDump(t *testing.T, got []SocketKeys, want []wantSock) {
	t.Helper()
	byName := map[string]SocketKeys{}
	for _, s := range got {
		n := sockName(s)
		if _, dup := byName[n]; dup {
			t.Errorf("%s reported twice", n)
		}
		byName[n] = s
	}
	for _, w := range want {
		n := sockName(w.SocketKeys)
		g, ok := byName[n]
		if !ok {
			t.Errorf("%s missing from the dump", n)
			continue
		}
		delete(byName, n)
		if g.Family != w.Family {
			t.Errorf("%s: family %d, want %d", n, g.Family, w.Family)
		}
		if w.Inode != 0 && g.Inode != w.Inode {
			t.Errorf("%s: inode %d, want %d", n, g.Inode, w.Inode)
		}
		gk := slices.Clone(g.Keys)
		slices.SortFunc(gk, func(a, b ObservedKey) int { return strings.Compare(a.Prefix.String(), b.Prefix.String()) })
		wk := slices.Clone(w.keys)
		slices.SortFunc(wk, func(a, b md5auth.Key) int { return strings.Compare(a.Prefix.String(), b.Prefix.String()) })
		var gs, ws []string
		for _, k := range gk {
			gs = append(gs, k.Prefix.String())
		}
		for _, k := range wk {
			ws = append(ws, k.Prefix.String())
		}
		if !slices.Equal(gs, ws) {
			t.Errorf("%s: keys %v, want %v", n, gs, ws)
			continue
		}
		for i := range gk {
			if !bytes.Equal(gk[i].Secret, wk[i].Secret) {
				t.Errorf("%s: key %s has the wrong secret", n, gk[i].Prefix)
			}
		}
	}
	for n, s := range byName {
		t.Errorf("unexpected %s (%d keys)", n, len(s.Keys))
	}
}

func findSock(t *testing.T, socks []SocketKeys, name string) SocketKeys {
	t.Helper()
	for _, s := range socks {
		if sockName(s) == name {
			return s
		}
	}
	t.Fatalf("%s not in the dump", name)
	return SocketKeys{}
}

// checkKeyFor checks which key (by secret; nil: none) KeyFor picks for each peer.
func checkKeyFor(t *testing.T, s SocketKeys, want map[string][]byte) {
	t.Helper()
	for addr, secret := range want {
		k, ok := s.KeyFor(netip.MustParseAddr(addr))
		if ok != (secret != nil) || (ok && !bytes.Equal(k.Secret, secret)) {
			t.Errorf("%s: KeyFor(%s) = %s (%s), %v; want %s", sockName(s), addr, k.Prefix, secretName(k.Secret), ok, secretName(secret))
		}
	}
}

// acceptedFor returns the server side of the connection whose client end is c.
func acceptedFor(t *testing.T, e *echoServer, c net.Conn) *net.TCPConn {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, s := range e.conns {
		if s.RemoteAddr().String() == c.LocalAddr().String() {
			return s.(*net.TCPConn)
		}
	}
	t.Fatalf("no accepted connection from %s", c.LocalAddr())
	return nil
}

// dialEcho dials with key and checks an echo round trip (so the server has
// accepted the connection).
func dialEcho(t *testing.T, ns string, local netip.Addr, remote netip.AddrPort, key md5auth.Key) *net.TCPConn {
	t.Helper()
	c, err := dial(ns, local, remote, &key)
	noSecret(t, err)
	if err != nil {
		t.Fatalf("dial %s -> %s: %v", local, remote, err)
	}
	t.Cleanup(func() { c.Close() })
	echo(t, c, "diag")
	return c
}

func apOf(a net.Addr) netip.AddrPort { return normAddrPort(netip.MustParseAddrPort(a.String())) }

// secretName names a test secret without printing it.
func secretName(b []byte) string {
	for name, s := range map[string][]byte{"secretA": secretA, "secretB": secretB, "secretC": secretC, "secretX": secretX} {
		if bytes.Equal(b, s) {
			return name
		}
	}
	if b == nil {
		return "no key"
	}
	return "another secret"
}

// ssKeys runs ss(8) in ns and returns, by socket inode, the prefixes it
// prints as md5keys for TCP sockets on port. Only prefixes are taken: ss
// prints the secrets too (iproute2 6.1 even out of place, at the start of
// its output), so its output is never logged.
func ssKeys(t *testing.T, ns string, port uint16) map[uint64][]string {
	t.Helper()
	testenv.RequireBinary(t, "ss")
	p := strconv.Itoa(int(port))
	out, err := netns.Exec(ns, "ss", "-Htanie", "( sport = :"+p+" or dport = :"+p+" )").Output()
	if err != nil {
		t.Fatalf("ss in %s: %v", ns, err)
	}
	inoRE := regexp.MustCompile(`\bino:(\d+)`)
	keyRE := regexp.MustCompile(`(?:md5keys:|,)([0-9a-fA-F:.]+/\d+)=`)
	m := map[uint64][]string{}
	var ino uint64
	for _, line := range strings.Split(string(out), "\n") {
		if x := inoRE.FindStringSubmatch(line); x != nil {
			ino, _ = strconv.ParseUint(x[1], 10, 64)
			if ino != 0 {
				m[ino] = nil
			}
		}
		if i := strings.Index(line, "md5keys:"); i >= 0 && ino != 0 {
			for _, x := range keyRE.FindAllStringSubmatch(line[i:], -1) {
				m[ino] = append(m[ino], x[1])
			}
		}
	}
	return m
}

// dropNetAdmin removes CAP_NET_ADMIN from the effective set of the calling
// thread (only; call it on a thread that is thrown away, in netns.Do).
func dropNetAdmin() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return err
	}
	data[0].Effective &^= 1 << unix.CAP_NET_ADMIN
	return unix.Capset(&hdr, &data[0])
}

// TestDumpSocketKeys: the keys sock_diag reports are exactly those on the
// sockets: address and prefix keys on an IPv4 listener, v4-mapped and IPv6
// keys on a dual-stack listener, the key an accepted connection inherits
// and the key of a dialed connection (found by its remote port). A deleted
// key disappears; without CAP_NET_ADMIN the keys are hidden and said to be.
func TestDumpSocketKeys(t *testing.T) {
	t.Parallel()
	tp := newTopo(t, "mdiag")
	pfx := netip.MustParsePrefix

	l4 := listenEcho(t, tp.srv, "tcp4", ap(srvV4, portDiag))
	l4Keys := []md5auth.Key{md5auth.AddrKey(cliV4, secretA), md5auth.PrefixKey(pfx("192.0.2.0/24"), secretB), md5auth.PrefixKey(pfx("192.0.2.0/25"), secretC)}
	for _, k := range l4Keys {
		l4.setKey(t, k)
	}
	dual := listenEcho(t, tp.srv, "tcp", ap(netip.IPv6Unspecified(), portDiagDual))
	dualKeys := []md5auth.Key{
		md5auth.AddrKey(cliV4, secretA),                    // installed as ::ffff:192.0.2.2
		md5auth.PrefixKey(pfx("198.51.100.0/24"), secretB), // as ::ffff:198.51.100.0/120
		md5auth.AddrKey(cliV6, secretC),                    // IPv6 address
		md5auth.PrefixKey(pfx("2001:db8::/64"), secretB),   // IPv6 prefix
	}
	for _, k := range dualKeys {
		dual.setKey(t, k)
	}
	decoy := listenEcho(t, tp.srv, "tcp4", ap(srvV4, portDiagDecoy))
	decoy.setKey(t, md5auth.AddrKey(cliV4, secretX))

	c4 := dialEcho(t, tp.cli, cliV4, ap(srvV4, portDiag), md5auth.AddrKey(srvV4, secretA))
	c4out := dialEcho(t, tp.cli, cliV4Out, ap(srvV4, portDiag), md5auth.AddrKey(srvV4, secretB)) // matches the /24
	c6 := dialEcho(t, tp.cli, cliV6, ap(srvV6, portDiagDual), md5auth.AddrKey(srvV6, secretC))
	cm := dialEcho(t, tp.cli, cliV4, ap(srvV4, portDiagDual), md5auth.AddrKey(srvV4, secretA)) // v4-mapped on the server
	dialEcho(t, tp.cli, cliV4, ap(srvV4, portDiagDecoy), md5auth.AddrKey(srvV4, secretX))

	// An accepted connection gets a copy of the listener key that matched
	// its peer, as a full-length key for the peer's address.
	conn := func(e *echoServer, c *net.TCPConn, family int, keys ...md5auth.Key) wantSock {
		s := acceptedFor(t, e, c)
		return wantSock{SocketKeys{Local: apOf(s.LocalAddr()), Remote: apOf(s.RemoteAddr()), Family: family, Inode: sockInode(t, s)}, keys}
	}
	listener := func(e *echoServer, family int, keys []md5auth.Key) wantSock {
		return wantSock{SocketKeys{Local: apOf(e.l.Addr()), Listening: true, Family: family, Inode: sockInode(t, e.l)}, keys}
	}
	want4 := []wantSock{
		listener(l4, unix.AF_INET, l4Keys),
		conn(l4, c4, unix.AF_INET, md5auth.AddrKey(cliV4, secretA)),
		conn(l4, c4out, unix.AF_INET, md5auth.AddrKey(cliV4Out, secretB)),
	}
	socks, visible := dumpIn(t, tp.srv, portDiag)
	if !visible {
		t.Fatal("keysVisible = false as root")
	}
	checkDump(t, socks, want4)

	wantDual := []wantSock{
		listener(dual, unix.AF_INET6, dualKeys),
		conn(dual, c6, unix.AF_INET6, md5auth.AddrKey(cliV6, secretC)),
		conn(dual, cm, unix.AF_INET6, md5auth.AddrKey(cliV4, secretA)),
	}
	socks, _ = dumpIn(t, tp.srv, portDiagDual)
	checkDump(t, socks, wantDual)
	dualObs := findSock(t, socks, "listener [::]:17812")

	// The client side: dialed sockets are found by their remote port.
	socks, _ = dumpIn(t, tp.cli, portDiag)
	checkDump(t, socks, []wantSock{
		{SocketKeys{Local: apOf(c4.LocalAddr()), Remote: apOf(c4.RemoteAddr()), Family: unix.AF_INET, Inode: sockInode(t, c4)}, []md5auth.Key{md5auth.AddrKey(srvV4, secretA)}},
		{SocketKeys{Local: apOf(c4out.LocalAddr()), Remote: apOf(c4out.RemoteAddr()), Family: unix.AF_INET, Inode: sockInode(t, c4out)}, []md5auth.Key{md5auth.AddrKey(srvV4, secretB)}},
	})

	t.Run("ss agrees", func(t *testing.T) {
		for _, port := range []uint16{portDiag, portDiagDual} {
			socks, _ := dumpIn(t, tp.srv, port)
			oracle := ssKeys(t, tp.srv, port)
			if len(oracle) != len(socks) {
				t.Errorf("port %d: ss lists %d sockets, DumpSocketKeys %d", port, len(oracle), len(socks))
			}
			for _, s := range socks {
				var got []string
				for _, k := range s.Keys {
					got = append(got, k.Prefix.String())
				}
				want, ok := oracle[s.Inode]
				if !ok {
					t.Errorf("%s (inode %d) not listed by ss", sockName(s), s.Inode)
				} else if !slices.Equal(got, want) { // same order: the kernel's
					t.Errorf("%s: keys %v, ss says %v", sockName(s), got, want)
				}
			}
		}
	})

	t.Run("KeyFor", func(t *testing.T) {
		socks, _ := dumpIn(t, tp.srv, portDiag)
		checkKeyFor(t, findSock(t, socks, "listener 192.0.2.1:17811"), map[string][]byte{
			"192.0.2.2":        secretA, // the /32 beats /25 and /24
			"::ffff:192.0.2.2": secretA,
			"192.0.2.5":        secretC, // /25 beats /24
			"192.0.2.200":      secretB, // only the /24
			"198.51.100.1":     nil,
			"2001:db8::2":      nil,
		})
		checkKeyFor(t, dualObs, map[string][]byte{
			"192.0.2.2":       secretA,
			"198.51.100.7":    secretB,
			"2001:db8::2":     secretC, // the /128 beats the /64
			"2001:db8::77":    secretB,
			"2001:db8:1::1":   nil,
			"192.0.2.3":       nil,
			"::ffff:10.0.0.1": nil,
		})
		checkKeyFor(t, findSock(t, socks, sockName(want4[2].SocketKeys)), map[string][]byte{
			"192.0.2.200": secretB,
			"192.0.2.2":   nil, // the accepted socket holds the peer's key only
		})
	})

	t.Run("deleted key disappears", func(t *testing.T) {
		if err := DeleteKey(l4.rawConn(t), md5auth.PrefixKey(pfx("192.0.2.0/25"), nil)); err != nil {
			t.Fatal(err)
		}
		socks, _ := dumpIn(t, tp.srv, portDiag)
		want := slices.Clone(want4)
		want[0].keys = l4Keys[:2]
		checkDump(t, socks, want)
		checkKeyFor(t, findSock(t, socks, "listener 192.0.2.1:17811"), map[string][]byte{"192.0.2.5": secretB})

		// On an established socket too.
		s := acceptedFor(t, dual, c6)
		rc, err := s.SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		if err := DeleteKey(rc, md5auth.AddrKey(cliV6, nil)); err != nil {
			t.Fatal(err)
		}
		socks, _ = dumpIn(t, tp.srv, portDiagDual)
		want = slices.Clone(wantDual)
		want[1].keys = nil
		checkDump(t, socks, want)
	})

	t.Run("kernel port filter", func(t *testing.T) {
		// The port is filtered by the kernel (bytecode), not only here.
		err := netns.Do(tp.srv, func() error {
			c, err := openDiag()
			if err != nil {
				return err
			}
			defer c.close()
			all, err := c.dump(afInet, 0, 0, diagAllStates)
			if err != nil {
				return err
			}
			var ports []uint16
			for _, d := range all {
				ports = append(ports, d.Local.Port())
			}
			if !slices.Contains(ports, portDiagDecoy) {
				return fmt.Errorf("unfiltered dump lacks the decoy listener: local ports %v", ports)
			}
			for _, ext := range []uint8{0, diagExtInfo} {
				got, err := c.dump(afInet, ext, portDiag, diagAllStates)
				if err != nil {
					return err
				}
				if len(got) != len(want4) {
					return fmt.Errorf("filtered dump (ext %d): %d sockets, want %d", ext, len(got), len(want4))
				}
				for _, d := range got {
					if d.Local.Port() != portDiag && d.Remote.Port() != portDiag {
						return fmt.Errorf("filtered dump returned %s", sockName(d.SocketKeys))
					}
				}
			}
			return nil
		})
		noSecret(t, err)
		if err != nil {
			t.Fatal(err)
		}
	})

	t.Run("without CAP_NET_ADMIN", func(t *testing.T) {
		var socks []SocketKeys
		var visible bool
		err := netns.Do(tp.srv, func() (err error) {
			if err := dropNetAdmin(); err != nil {
				return fmt.Errorf("drop CAP_NET_ADMIN: %w", err)
			}
			if hasNetAdmin() {
				return fmt.Errorf("CAP_NET_ADMIN still effective")
			}
			socks, visible, err = DumpSocketKeys(portDiag)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if visible {
			t.Error("keysVisible = true without CAP_NET_ADMIN")
		}
		want := slices.Clone(want4)
		for i := range want {
			want[i].keys = nil // silently left out by the kernel
		}
		checkDump(t, socks, want)
	})
}

// TestDumpSocketKeysManyKeys: a socket whose report does not fit a dump
// datagram (400 keys, 40 KB) ends the kernel's dump silently; DumpSocketKeys
// still reports it, and the sockets after it, with every key.
func TestDumpSocketKeysManyKeys(t *testing.T) {
	t.Parallel()
	tp := newTopo(t, "mdiagm")
	const n = 400
	secret := func(i int) []byte { return []byte(fmt.Sprintf("s3cret-many-%03d", i)) }
	var want []wantSock
	add := func(network string, a netip.Addr, keys []md5auth.Key) *echoServer {
		l := listenEcho(t, tp.srv, network, ap(a, portDiagMany))
		for _, k := range keys {
			l.setKey(t, k)
		}
		family := unix.AF_INET
		if a.Is6() {
			family = unix.AF_INET6
		}
		want = append(want, wantSock{SocketKeys{Local: ap(a, portDiagMany), Listening: true, Family: family, Inode: sockInode(t, l.l)}, keys})
		return l
	}
	var keys4, keys6 []md5auth.Key
	for i := range n {
		keys4 = append(keys4, md5auth.AddrKey(netip.AddrFrom4([4]byte{10, 9, byte(i >> 8), byte(i)}), secret(i)))
		keys6 = append(keys6, md5auth.AddrKey(netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 0x99, 14: byte(i >> 8), 15: byte(i)}), secret(i)))
	}
	big4 := add("tcp4", srvV4, append(keys4, md5auth.AddrKey(cliV4, secretA)))
	add("tcp6", srvV6, keys6)
	// Small listeners and a connection, after the big listeners in the
	// kernel's tables (listeners are dumped before connections).
	add("tcp4", netip.MustParseAddr("127.0.0.1"), []md5auth.Key{md5auth.AddrKey(netip.MustParseAddr("127.0.0.2"), secretB)})
	add("tcp6", netip.IPv6Loopback(), []md5auth.Key{md5auth.AddrKey(netip.MustParseAddr("::2"), secretB)})
	c := dialEcho(t, tp.cli, cliV4, ap(srvV4, portDiagMany), md5auth.AddrKey(srvV4, secretA))
	s := acceptedFor(t, big4, c)
	want = append(want, wantSock{SocketKeys{Local: apOf(s.LocalAddr()), Remote: apOf(s.RemoteAddr()), Family: unix.AF_INET, Inode: sockInode(t, s)}, []md5auth.Key{md5auth.AddrKey(cliV4, secretA)}})

	socks, visible := dumpIn(t, tp.srv, portDiagMany)
	if !visible {
		t.Fatal("keysVisible = false as root")
	}
	checkDump(t, socks, want)

	// What the kernel's keyed dump alone gives (for the record).
	err := netns.Do(tp.srv, func() error {
		c, err := openDiag()
		if err != nil {
			return err
		}
		defer c.close()
		for _, fam := range []uint8{afInet, afInet6} {
			if _, err := c.dump(fam, 0, portDiagMany, diagAllStates); err != nil { // sizes the kernel's datagrams
				return err
			}
			keyed, err := c.dump(fam, diagExtInfo, portDiagMany, diagAllStates)
			if err != nil {
				return err
			}
			var names []string
			for _, d := range keyed {
				names = append(names, fmt.Sprintf("%s (%d keys)", sockName(d.SocketKeys), len(d.Keys)))
			}
			t.Logf("keyed dump of family %d alone: %d sockets %v", fam, len(keyed), names)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	t.Run("light", func(t *testing.T) {
		// The light look (listeners listed without keys, the connections'
		// keyed dump alone) finds the same sockets and keys, and asks for
		// each listener once.
		var socks []SocketKeys
		var exacts int
		err := netns.Do(tp.srv, func() error {
			var err error
			socks, _, err = dumpSocketKeys(portDiagMany, true)
			if err != nil {
				return err
			}
			c, err := openDiag()
			if err != nil {
				return err
			}
			defer c.close()
			if _, err := c.sockets(afInet, portDiagMany, true); err != nil {
				return err
			}
			exacts = c.exacts
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		checkDump(t, socks, want)
		if exacts != 2 {
			t.Errorf("light look of AF_INET: %d exact requests, want one per listener (2)", exacts)
		}
	})

	t.Run("more than 655 keys", func(t *testing.T) {
		// The kernel's 16-bit attribute length wraps; the keys are all
		// there, and all read.
		l := listenEcho(t, tp.srv, "tcp4", ap(srvV4, portDiagHuge))
		const huge = 700
		var keys []md5auth.Key
		for i := range huge {
			k := md5auth.AddrKey(netip.AddrFrom4([4]byte{10, 8, byte(i >> 8), byte(i)}), secretA)
			l.setKey(t, k)
			keys = append(keys, k)
		}
		socks, _ := dumpIn(t, tp.srv, portDiagHuge)
		checkDump(t, socks, []wantSock{{SocketKeys{Local: ap(srvV4, portDiagHuge), Listening: true, Family: unix.AF_INET, Inode: sockInode(t, l.l)}, keys}})
	})

	t.Run("one request per listener", func(t *testing.T) {
		// The connection comes from the keyed dump, not from a request of
		// its own, though the kernel dumps it after the big listener.
		err := netns.Do(tp.srv, func() error {
			c, err := openDiag()
			if err != nil {
				return err
			}
			defer c.close()
			socks, err := c.sockets(afInet, portDiagMany, false)
			if err != nil {
				return err
			}
			var listeners int
			for _, d := range socks {
				if d.Listening {
					listeners++
				}
			}
			if len(socks) != 3 || c.exacts != listeners {
				return fmt.Errorf("%d AF_INET sockets (want 3) with %d exact requests for %d listeners", len(socks), c.exacts, listeners)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}
