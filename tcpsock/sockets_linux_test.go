//go:build linux

package tcpsock

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/md5auth"
)

func addrPorts(t *testing.T, c net.Conn) (local, remote netip.AddrPort) {
	t.Helper()
	return netip.MustParseAddrPort(c.LocalAddr().String()), netip.MustParseAddrPort(c.RemoteAddr().String())
}

func findConn(t *testing.T, local, remote netip.AddrPort) *Socket {
	t.Helper()
	s, err := FindConn(local, remote)
	if err != nil {
		t.Fatalf("FindConn(%s, %s): %v", local, remote, err)
	}
	t.Cleanup(func() { s.Close() })
	if s.Listening || s.Local != local || s.Remote != remote || s.Protocol != unix.IPPROTO_TCP {
		t.Fatalf("FindConn(%s, %s) = %v %+v", local, remote, s, s)
	}
	return s
}

// connInode is the inode of the socket behind a *net.TCPConn.
func connInode(t *testing.T, c *net.TCPConn) uint64 {
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

// switchKeys moves an established connection to new keys in place, one
// end after the other: after the first end switched, the session must
// stall (the segments fail the server's check and counter ctr rises in the
// server namespace); after the second, it must recover.
func switchKeys(t *testing.T, tp *topo, p *pinger, first, second *Socket, firstKey, secondKey md5auth.Key, ctr string) {
	t.Helper()
	p.waitPast(t, 5, 5*time.Second)
	before := counters(t, tp.srv)
	if err := first.SetKey(firstKey); err != nil {
		t.Fatalf("SetKey(%v) on %v: %v", firstKey, first, err)
	}
	time.Sleep(100 * time.Millisecond) // the round trip in flight may finish
	stalled := p.n.Load()
	time.Sleep(600 * time.Millisecond)
	if n := p.n.Load(); n != stalled {
		t.Fatalf("data still flows with different keys on the two ends (%d -> %d round trips)", stalled, n)
	}
	checkRose(t, tp.srv, before, ctr)
	if err := second.SetKey(secondKey); err != nil {
		t.Fatalf("SetKey(%v) on %v: %v", secondKey, second, err)
	}
	d := p.waitPast(t, stalled+5, 15*time.Second)
	t.Logf("session recovered %v after the second end switched keys", d)
}

// TestRekeyEstablished changes the key of an established connection on
// both ends (and of the listener) without dropping it.
func TestRekeyEstablished(t *testing.T) {
	t.Parallel()
	tp := newTopo(t, "rekey")
	dst := ap(srvV4, portRekey)
	srv := listenEcho(t, tp.srv, "tcp4", dst)
	srv.setKey(t, md5auth.AddrKey(cliV4, secretA))
	c, err := dial(tp.cli, cliV4, dst, keyPtr(md5auth.AddrKey(srvV4, secretA)))
	if err != nil {
		t.Fatal(err)
	}
	local, remote := addrPorts(t, c)
	p := startPinger(t, c)
	p.waitPast(t, 1, 5*time.Second) // the server has accepted: its socket has a descriptor

	cliSock := findConn(t, local, remote)
	srvSock := findConn(t, remote, local)
	if cliSock.Inode != connInode(t, c) {
		t.Fatalf("FindConn found inode %d, the dialed socket is %d", cliSock.Inode, connInode(t, c))
	}
	srv.setKey(t, md5auth.AddrKey(cliV4, secretB))
	switchKeys(t, tp, p, srvSock, cliSock, md5auth.AddrKey(cliV4, secretB), md5auth.AddrKey(srvV4, secretB), "TCPMD5Failure")

	// Same connection: same ports, same sockets.
	if l2, r2 := addrPorts(t, c); l2 != local || r2 != remote {
		t.Fatalf("connection changed: %s->%s, was %s->%s", l2, r2, local, remote)
	}
	again := findConn(t, remote, local)
	if again.Inode != srvSock.Inode {
		t.Fatalf("server socket changed: inode %d, was %d", again.Inode, srvSock.Inode)
	}
	// The listener has the new key too.
	dialOK(t, tp.cli, cliV4, dst, keyPtr(md5auth.AddrKey(srvV4, secretB)))
}

// TestDiscoverListeners: listeners made by ordinary Go code (not handed to
// tcpsock), IPv4 and IPv6 on one port, one of them with an extra
// descriptor, are found once each and keyed.
func TestDiscoverListeners(t *testing.T) {
	t.Parallel()
	tp := newTopo(t, "disc")
	l4 := listenEcho(t, tp.srv, "tcp4", netip.AddrPortFrom(netip.IPv4Unspecified(), portDiscover))
	listenEcho(t, tp.srv, "tcp6", netip.AddrPortFrom(netip.IPv6Unspecified(), portDiscover))
	extra, err := l4.l.File() // a second descriptor for the same socket
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()

	list, err := FindListeners(portDiscover)
	if err != nil {
		t.Fatal(err)
	}
	fams := map[int]int{}
	for _, s := range list {
		fams[s.Family]++
		if !s.Listening || s.Local.Port() != portDiscover || !s.Local.Addr().IsUnspecified() || s.Remote.IsValid() || s.Protocol != unix.IPPROTO_TCP {
			t.Errorf("unexpected listener %v %+v", s, s)
		}
		if err := CheckListener(s); err != nil {
			t.Errorf("CheckListener(%v) = %v", s, err)
		}
		s.Close()
	}
	if len(list) != 2 || fams[unix.AF_INET] != 1 || fams[unix.AF_INET6] != 1 {
		t.Fatalf("FindListeners(%d) found %d sockets (%v), want one AF_INET and one AF_INET6", portDiscover, len(list), fams)
	}

	var keyed []string
	err = ForEachListener(portDiscover, func(s *Socket) error {
		keyed = append(keyed, s.String())
		if s.Family == unix.AF_INET {
			// An IPv6 key cannot go there.
			if err := s.SetKey(md5auth.AddrKey(cliV6, secretA)); !errors.Is(err, ErrFamilyMismatch) {
				t.Errorf("IPv6 key on %v: %v, want ErrFamilyMismatch", s, err)
			}
			return s.SetKey(md5auth.AddrKey(cliV4, secretA))
		}
		return s.SetKey(md5auth.AddrKey(cliV6, secretA))
	})
	if err != nil {
		t.Fatalf("ForEachListener: %v", err)
	}
	t.Logf("keyed %v", keyed)
	if want := "listener [::]:17961"; !strings.Contains(strings.Join(keyed, ","), want) {
		t.Errorf("String()s %v, want one to be %q", keyed, want)
	}

	dialOK(t, tp.cli, cliV4, ap(srvV4, portDiscover), keyPtr(md5auth.AddrKey(srvV4, secretA)))
	dialOK(t, tp.cli, cliV6, ap(srvV6, portDiscover), keyPtr(md5auth.AddrKey(srvV6, secretA)))
	parallel(t,
		func() error { return dialFails(tp.cli, cliV4, ap(srvV4, portDiscover), nil) },
		func() error { return dialFails(tp.cli, cliV6, ap(srvV6, portDiscover), nil) },
	)

	if err := ForEachListener(portDiscover+5, func(*Socket) error { return nil }); !errors.Is(err, ErrSocketNotFound) {
		t.Errorf("ForEachListener(unused port) = %v, want ErrSocketNotFound", err)
	}
	if list, err := FindListeners(portDiscover + 5); err != nil || len(list) != 0 {
		t.Errorf("FindListeners(unused port) = %v, %v", list, err)
	}
}

// TestDiscoverConn: a connection made by ordinary Go code (net.Dialer, no
// keys) is found from both ends by FindConn and given keys while
// established: signing one end stalls it (TCPMD5Unexpected), signing both
// lets it go on.
func TestDiscoverConn(t *testing.T) {
	t.Parallel()
	tp := newTopo(t, "dconn")
	dst := ap(srvV6, portDiscConn)
	listenEcho(t, tp.srv, "tcp6", dst)
	c, err := dial(tp.cli, cliV6, dst, nil)
	if err != nil {
		t.Fatal(err)
	}
	local, remote := addrPorts(t, c)
	p := startPinger(t, c)
	p.waitPast(t, 1, 5*time.Second) // the server has accepted: its socket has a descriptor

	_, err = FindConn(local, ap(srvV6, portDiscConn+1))
	var nf *NotFoundError
	if !errors.Is(err, ErrSocketNotFound) || !errors.As(err, &nf) || nf.Remote.Port() != portDiscConn+1 {
		t.Fatalf("FindConn(no such connection) = %v, want a *NotFoundError", err)
	}

	// The client socket is the one the dialer made: its duplicate has the
	// same inode.
	cliSock := findConn(t, local, remote)
	if cliSock.Inode != connInode(t, c) || cliSock.Family != unix.AF_INET6 {
		t.Fatalf("FindConn found %+v, the dialed socket has inode %d", cliSock, connInode(t, c))
	}
	srvSock := findConn(t, remote, local)
	if !strings.HasPrefix(srvSock.String(), "connection [2001:db8::1]:17971->[2001:db8::2]:") {
		t.Errorf("String() = %q", srvSock)
	}
	// Here the client is switched first: its signed segments reach a
	// server without a key.
	switchKeys(t, tp, p, cliSock, srvSock, md5auth.AddrKey(srvV6, secretA), md5auth.AddrKey(cliV6, secretA), "TCPMD5Unexpected")
}

// rawListener makes a listening TCP socket in ns outside Go's runtime
// (a bare descriptor, so its number can be replaced with dup3).
func rawListener(t *testing.T, ns string, addr netip.AddrPort) int {
	t.Helper()
	var fd int
	err := netns.Do(ns, func() (err error) {
		fd, err = unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, unix.IPPROTO_TCP)
		if err != nil {
			return err
		}
		if err = unix.Bind(fd, &unix.SockaddrInet4{Addr: addr.Addr().As4(), Port: int(addr.Port())}); err == nil {
			err = unix.Listen(fd, 16)
		}
		if err != nil {
			unix.Close(fd)
		}
		return err
	})
	if err != nil {
		t.Fatalf("raw listener on %s: %v", addr, err)
	}
	return fd
}

// TestStaleSocketHandle: a Socket found before its descriptor number was
// reused by another socket keeps referring to the old socket; the new one
// never receives its key.
func TestStaleSocketHandle(t *testing.T) {
	t.Parallel()
	tp := newTopo(t, "reuse")
	oldAddr, newAddr := ap(srvV4, portReuse), ap(srvV4, portReuse+1)
	n := rawListener(t, tp.srv, oldAddr)
	m := rawListener(t, tp.srv, newAddr)
	t.Cleanup(func() { unix.Close(n) })

	list, err := FindListeners(portReuse)
	if err != nil || len(list) != 1 {
		t.Fatalf("FindListeners(%d) = %v, %v", portReuse, list, err)
	}
	stale := list[0]
	defer stale.Close()

	// The owner closes descriptor n and the number now holds another
	// listener (dup3 does both atomically, so no other code of this test
	// process can get number n in between).
	if err := unix.Dup3(m, n, unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	unix.Close(m)
	if sa, err := unix.Getsockname(n); err != nil || sa.(*unix.SockaddrInet4).Port != int(newAddr.Port()) {
		t.Fatalf("descriptor %d is %v, %v; want the new listener", n, sa, err)
	}

	if err := stale.SetKey(md5auth.AddrKey(cliV4, secretA)); err != nil {
		t.Fatalf("SetKey on the stale handle: %v", err)
	}
	if stale.Local != oldAddr {
		t.Fatalf("stale handle now says %v", stale)
	}
	fresh, err := FindListeners(newAddr.Port())
	if err != nil || len(fresh) != 1 {
		t.Fatalf("FindListeners(%d) = %v, %v", newAddr.Port(), fresh, err)
	}
	if fresh[0].Inode == stale.Inode {
		t.Errorf("the new listener has the old one's inode %d", stale.Inode)
	}
	fresh[0].Close()

	// The new listener carries no key; the old one (alive through the
	// handle's own descriptor) carries it.
	c, err := dial(tp.cli, cliV4, newAddr, nil)
	if err != nil {
		t.Fatalf("unsigned dial to the new listener: %v", err)
	}
	c.Close()
	before := counters(t, tp.srv)
	parallel(t,
		func() error { return dialFails(tp.cli, cliV4, newAddr, keyPtr(md5auth.AddrKey(srvV4, secretA))) },
		func() error { return dialFails(tp.cli, cliV4, oldAddr, nil) },
	)
	checkRose(t, tp.srv, before, "TCPMD5Unexpected", "TCPMD5NotFound")
	c, err = dial(tp.cli, cliV4, oldAddr, keyPtr(md5auth.AddrKey(srvV4, secretA)))
	if err != nil {
		t.Fatalf("signed dial to the old listener: %v", err)
	}
	c.Close()

	// Closing the handle drops the last reference to the old listener.
	if err := stale.Close(); err != nil {
		t.Fatal(err)
	}
	err = stale.SetKey(md5auth.AddrKey(cliV4, secretA))
	noSecret(t, err)
	if !errors.Is(err, ErrSocketClosed) {
		t.Errorf("SetKey after Close = %v, want ErrSocketClosed", err)
	}
	if _, err := dial(tp.cli, cliV4, oldAddr, nil); !errors.Is(err, unix.ECONNREFUSED) {
		t.Errorf("dial to the old listener after the handle closed: %v, want connection refused", err)
	}
}

// TestMultipathListener: an MPTCP listener is reported and cannot be keyed.
func TestMultipathListener(t *testing.T) {
	t.Parallel()
	testenv.RequireRoot(t)
	tp := netns.New(t, "mptcp")
	ns := tp.Add("m")
	addr := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), portMultipath)
	var l net.Listener
	err := netns.Do(ns, func() (err error) {
		var lc net.ListenConfig
		lc.SetMultipathTCP(true)
		l, err = lc.Listen(context.Background(), "tcp", addr.String())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	rc, err := l.(*net.TCPListener).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	proto := 0
	rc.Control(func(fd uintptr) { proto, _ = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_PROTOCOL) })
	if proto != ProtoMPTCP {
		testenv.SkipKernelLacks(t, "MPTCP", "a multipath listener came out as protocol "+strconv.Itoa(proto))
	}

	list, err := FindListeners(portMultipath)
	if err != nil || len(list) != 1 {
		t.Fatalf("FindListeners = %v, %v", list, err)
	}
	s := list[0]
	defer s.Close()
	if s.Protocol != ProtoMPTCP || s.Local != addr || !strings.HasPrefix(s.String(), "mptcp listener ") {
		t.Errorf("found %v %+v", s, s)
	}
	var me *MultipathError
	err = CheckListener(s)
	if !errors.As(err, &me) || me.Local != addr || !strings.Contains(err.Error(), "godebug multipathtcp=0") {
		t.Errorf("CheckListener = %v, want a *MultipathError for %s naming the godebug fix", err, addr)
	}
	for name, err := range map[string]error{
		"Socket.SetKey":    s.SetKey(md5auth.AddrKey(netip.MustParseAddr("127.0.0.2"), secretA)),
		"SetKey(RawConn)":  SetKey(rc, md5auth.AddrKey(netip.MustParseAddr("127.0.0.2"), secretA)),
		"Socket.DeleteKey": s.DeleteKey(md5auth.AddrKey(netip.MustParseAddr("127.0.0.2"), nil)),
	} {
		noSecret(t, err)
		me = nil
		if !errors.As(err, &me) || !errors.Is(err, unix.ENOPROTOOPT) || me.Local != addr {
			t.Errorf("%s on an MPTCP listener = %v, want *MultipathError and ENOPROTOOPT", name, err)
		}
		t.Logf("%s: %v", name, err)
	}
}
