//go:build linux

package tcpsock

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/md5auth"
)

// Secrets used by the tests. Every error the tests see is checked not to
// contain any of them.
var (
	secretA = []byte("s3cret-Alpha-7731")
	secretB = []byte("s3cret-Bravo-9042")
	secretX = []byte("s3cret-Xray-wrong")
)

// Addresses inside the test namespaces (documentation ranges).
var (
	srvV4    = netip.MustParseAddr("192.0.2.1")
	cliV4    = netip.MustParseAddr("192.0.2.2")
	cliV4Out = netip.MustParseAddr("192.0.2.200") // outside 192.0.2.0/25
	srvV6    = netip.MustParseAddr("2001:db8::1")
	cliV6    = netip.MustParseAddr("2001:db8::2")
	cliV6Out = netip.MustParseAddr("2001:db8::1:2") // outside 2001:db8::/120
)

// Listening ports: one range per test, so that tests running in parallel
// (in other namespaces of this same process) never see each other's
// listeners through FindListeners.
const (
	portKeyed     = 17911
	portPrefix    = 17921
	portDelete    = 17931
	portDual      = 17941
	portRekey     = 17951
	portDiscover  = 17961
	portDiscConn  = 17971
	portReuse     = 17981
	portMultipath = 17991
)

const dialTimeout = 2 * time.Second

func noSecret(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	msg := err.Error()
	for _, s := range [][]byte{secretA, secretB, secretX} {
		if strings.Contains(msg, string(s)) {
			t.Fatalf("error leaks a secret: %q", msg)
		}
	}
}

// topo is two namespaces joined by a veth: srv (192.0.2.1, 2001:db8::1)
// and cli (192.0.2.2 and 192.0.2.200, 2001:db8::2 and 2001:db8::1:2).
type topo struct{ srv, cli string }

func newTopo(t *testing.T, tag string) *topo {
	t.Helper()
	testenv.RequireRoot(t)
	tp := netns.New(t, tag)
	srv, cli := tp.Add("s"), tp.Add("c")
	tp.Link(srv, "eth0", []string{"192.0.2.1/24", "2001:db8::1/64"},
		cli, "eth0", []string{"192.0.2.2/24", "192.0.2.200/24", "2001:db8::2/64", "2001:db8::1:2/64"})
	return &topo{srv: srv, cli: cli}
}

// echoServer is a plain-TCP listener created in a namespace that echoes
// every connection.
type echoServer struct {
	l     *net.TCPListener
	mu    sync.Mutex
	conns []net.Conn
}

func listenEcho(t *testing.T, ns, network string, addr netip.AddrPort) *echoServer {
	t.Helper()
	return listenEchoDev(t, ns, network, addr, "")
}

// listenEchoDev is listenEcho with the listener bound to device dev
// (SO_BINDTODEVICE, e.g. a VRF) unless dev is "".
func listenEchoDev(t *testing.T, ns, network string, addr netip.AddrPort, dev string) *echoServer {
	t.Helper()
	var l net.Listener
	err := netns.Do(ns, func() (err error) {
		var lc net.ListenConfig
		if dev != "" {
			lc.Control = func(_, _ string, rc syscall.RawConn) error { return bindToDevice(rc, dev) }
		}
		lc.SetMultipathTCP(false)
		l, err = lc.Listen(context.Background(), network, addr.String())
		return err
	})
	if err != nil {
		t.Fatalf("listen %s %s in %s: %v", network, addr, ns, err)
	}
	e := &echoServer{l: l.(*net.TCPListener)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			e.mu.Lock()
			e.conns = append(e.conns, c)
			e.mu.Unlock()
			go func() { _, _ = io.Copy(c, c) }()
		}
	}()
	t.Cleanup(func() {
		_ = l.Close()
		<-done
		e.mu.Lock()
		defer e.mu.Unlock()
		for _, c := range e.conns {
			_ = c.Close()
		}
	})
	return e
}

func (e *echoServer) rawConn(t *testing.T) syscall.RawConn {
	t.Helper()
	rc, err := e.l.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	return rc
}

func (e *echoServer) setKey(t *testing.T, k md5auth.Key) {
	t.Helper()
	if err := SetKey(e.rawConn(t), k); err != nil {
		noSecret(t, err)
		t.Fatalf("SetKey(listener, %v): %v", k, err)
	}
}

// dial connects from namespace ns (from local, if valid) to remote, signing
// with key if it is not nil (installed in the Dialer's Control, before the
// SYN).
func dial(ns string, local netip.Addr, remote netip.AddrPort, key *md5auth.Key) (*net.TCPConn, error) {
	var c net.Conn
	err := netns.Do(ns, func() (err error) {
		d := net.Dialer{Timeout: dialTimeout}
		d.SetMultipathTCP(false)
		if local.IsValid() {
			d.LocalAddr = &net.TCPAddr{IP: local.AsSlice()}
		}
		if key != nil {
			k := *key
			d.Control = func(_, _ string, rc syscall.RawConn) error { return SetKey(rc, k) }
		}
		c, err = d.Dial("tcp", remote.String())
		return err
	})
	if err != nil {
		return nil, err
	}
	return c.(*net.TCPConn), nil
}

func keyPtr(k md5auth.Key) *md5auth.Key { return &k }

// dialOK dials, checks one echo round trip and closes.
func dialOK(t *testing.T, ns string, local netip.Addr, remote netip.AddrPort, key *md5auth.Key) {
	t.Helper()
	c, err := dial(ns, local, remote, key)
	noSecret(t, err)
	if err != nil {
		t.Fatalf("dial %s -> %s (key %v): %v", local, remote, key, err)
	}
	defer c.Close()
	echo(t, c, "hello")
}

func echo(t *testing.T, c net.Conn, msg string) {
	t.Helper()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte(msg)); err != nil {
		t.Fatalf("write: %v", err)
	}
	buf := make([]byte, len(msg))
	if _, err := io.ReadFull(c, buf); err != nil {
		t.Fatalf("read echo: %v", err)
	}
	if string(buf) != msg {
		t.Fatalf("echo = %q, want %q", buf, msg)
	}
	_ = c.SetDeadline(time.Time{})
}

// dialFails checks that a dial times out (the listener drops the SYN);
// it returns an error describing what went wrong instead, or nil.
func dialFails(ns string, local netip.Addr, remote netip.AddrPort, key *md5auth.Key) error {
	c, err := dial(ns, local, remote, key)
	if err == nil {
		c.Close()
		return fmt.Errorf("dial %s -> %s (key %v) succeeded, want a timeout", local, remote, key)
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		return fmt.Errorf("dial %s -> %s (key %v): %v, want a timeout", local, remote, key, err)
	}
	return nil
}

// parallel runs fns concurrently and reports their errors.
func parallel(t *testing.T, fns ...func() error) {
	t.Helper()
	errs := make([]error, len(fns))
	var wg sync.WaitGroup
	for i, fn := range fns {
		wg.Go(func() { errs[i] = fn() })
	}
	wg.Wait()
	for _, err := range errs {
		noSecret(t, err)
		if err != nil {
			t.Error(err)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
}

func counters(t *testing.T, ns string) map[string]uint64 {
	t.Helper()
	m, err := netns.Counters(ns)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// checkRose fails unless every named counter of ns rose since before.
func checkRose(t *testing.T, ns string, before map[string]uint64, names ...string) {
	t.Helper()
	after := counters(t, ns)
	for _, n := range names {
		if after[n] <= before[n] {
			t.Errorf("TcpExt %s in %s: %d -> %d, want a rise", n, ns, before[n], after[n])
		} else {
			t.Logf("TcpExt %s: +%d", n, after[n]-before[n])
		}
	}
}

func ap(a netip.Addr, port uint16) netip.AddrPort { return netip.AddrPortFrom(a, port) }

// TestKeyedListenerAndDialer: matching keys connect and carry data; a wrong
// key and a missing key on the dialer are dropped by the listener
// (TCPMD5Failure, TCPMD5NotFound).
func TestKeyedListenerAndDialer(t *testing.T) {
	t.Parallel()
	tp := newTopo(t, "keyed")
	for _, fam := range []struct {
		name     string
		srv, cli netip.Addr
	}{{"ipv4", srvV4, cliV4}, {"ipv6", srvV6, cliV6}} {
		network := "tcp4"
		if fam.srv.Is6() {
			network = "tcp6"
		}
		dst := ap(fam.srv, portKeyed)
		srv := listenEcho(t, tp.srv, network, dst)
		srv.setKey(t, md5auth.AddrKey(fam.cli, secretA))
		dialOK(t, tp.cli, fam.cli, dst, keyPtr(md5auth.AddrKey(fam.srv, secretA)))
	}

	before := counters(t, tp.srv)
	parallel(t,
		func() error {
			return dialFails(tp.cli, cliV4, ap(srvV4, portKeyed), keyPtr(md5auth.AddrKey(srvV4, secretX)))
		},
		func() error { return dialFails(tp.cli, cliV4, ap(srvV4, portKeyed), nil) },
		func() error {
			return dialFails(tp.cli, cliV6, ap(srvV6, portKeyed), keyPtr(md5auth.AddrKey(srvV6, secretX)))
		},
		func() error { return dialFails(tp.cli, cliV6, ap(srvV6, portKeyed), nil) },
	)
	checkRose(t, tp.srv, before, "TCPMD5Failure", "TCPMD5NotFound")
}

// TestPrefixKey: a prefix key on the listener admits signed peers inside
// the range; a peer outside it has no key (its signed SYN is dropped as
// unexpected, its unsigned SYN is accepted).
func TestPrefixKey(t *testing.T) {
	t.Parallel()
	tp := newTopo(t, "prefix")
	l4 := listenEcho(t, tp.srv, "tcp4", ap(srvV4, portPrefix))
	l4.setKey(t, md5auth.PrefixKey(netip.MustParsePrefix("192.0.2.0/25"), secretA))
	l6 := listenEcho(t, tp.srv, "tcp6", ap(srvV6, portPrefix))
	l6.setKey(t, md5auth.PrefixKey(netip.MustParsePrefix("2001:db8::/120"), secretA))

	dialOK(t, tp.cli, cliV4, ap(srvV4, portPrefix), keyPtr(md5auth.AddrKey(srvV4, secretA)))
	dialOK(t, tp.cli, cliV6, ap(srvV6, portPrefix), keyPtr(md5auth.AddrKey(srvV6, secretA)))
	dialOK(t, tp.cli, cliV4Out, ap(srvV4, portPrefix), nil)
	dialOK(t, tp.cli, cliV6Out, ap(srvV6, portPrefix), nil)

	before := counters(t, tp.srv)
	parallel(t,
		func() error {
			return dialFails(tp.cli, cliV4Out, ap(srvV4, portPrefix), keyPtr(md5auth.AddrKey(srvV4, secretA)))
		},
		func() error {
			return dialFails(tp.cli, cliV6Out, ap(srvV6, portPrefix), keyPtr(md5auth.AddrKey(srvV6, secretA)))
		},
		func() error { return dialFails(tp.cli, cliV4, ap(srvV4, portPrefix), nil) }, // in range: must sign
	)
	checkRose(t, tp.srv, before, "TCPMD5Unexpected", "TCPMD5NotFound")
}

// TestDeleteKey: once the listener's key is deleted, an unsigned peer gets in.
func TestDeleteKey(t *testing.T) {
	t.Parallel()
	tp := newTopo(t, "delete")
	dst := ap(srvV4, portDelete)
	srv := listenEcho(t, tp.srv, "tcp4", dst)
	k := md5auth.AddrKey(cliV4, secretA)
	srv.setKey(t, k)
	if err := dialFails(tp.cli, cliV4, dst, nil); err != nil {
		t.Fatal(err)
	}
	// The secret does not matter for a delete, only the scope.
	if err := DeleteKey(srv.rawConn(t), md5auth.Key{Prefix: k.Prefix}); err != nil {
		t.Fatalf("DeleteKey: %v", err)
	}
	dialOK(t, tp.cli, cliV4, dst, nil)

	err := DeleteKey(srv.rawConn(t), k)
	noSecret(t, err)
	if !errors.Is(err, ErrKeyNotInstalled) || !errors.Is(err, unix.ENOENT) {
		t.Fatalf("second DeleteKey = %v, want ErrKeyNotInstalled and ENOENT", err)
	}
	want := fmt.Sprintf("tcpsock: delete key for 192.0.2.2 on listener 192.0.2.1:%d: ", portDelete)
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q does not start with %q", err, want)
	}
}

// TestDualStackListener: IPv4 peers reaching a [::] listener are keyed
// through the v4-mapped form, for an address key and a prefix key (the
// kernel takes a mapped prefix's length in IPv4 bits).
func TestDualStackListener(t *testing.T) {
	t.Parallel()
	tp := newTopo(t, "dual")
	addrL := listenEcho(t, tp.srv, "tcp", netip.AddrPortFrom(netip.IPv6Unspecified(), portDual))
	addrL.setKey(t, md5auth.AddrKey(cliV4, secretA))
	prefL := listenEcho(t, tp.srv, "tcp", netip.AddrPortFrom(netip.IPv6Unspecified(), portDual+1))
	prefL.setKey(t, md5auth.PrefixKey(netip.MustParsePrefix("192.0.2.0/25"), secretB))
	// A mapped prefix given as such is the same key.
	if err := SetKey(prefL.rawConn(t), md5auth.Key{Prefix: netip.MustParsePrefix("::ffff:192.0.2.0/121"), Secret: secretB}); err != nil {
		t.Fatalf("SetKey(::ffff:192.0.2.0/121): %v", err)
	}

	c, err := dial(tp.cli, cliV4, ap(srvV4, portDual), keyPtr(md5auth.AddrKey(srvV4, secretA)))
	if err != nil {
		noSecret(t, err)
		t.Fatalf("signed IPv4 dial to [::]: %v", err)
	}
	defer c.Close()
	echo(t, c, "mapped")
	dialOK(t, tp.cli, cliV4, ap(srvV4, portDual+1), keyPtr(md5auth.AddrKey(srvV4, secretB)))
	dialOK(t, tp.cli, cliV4Out, ap(srvV4, portDual+1), nil)

	// The accepted socket is AF_INET6 with v4-mapped addresses; FindConn
	// finds it from the IPv4 pair and reports it unmapped.
	local := netip.MustParseAddrPort(c.RemoteAddr().String())
	remote := netip.MustParseAddrPort(c.LocalAddr().String())
	s, err := FindConn(local, remote)
	if err != nil {
		t.Fatalf("FindConn(%s, %s): %v", local, remote, err)
	}
	defer s.Close()
	if s.Family != unix.AF_INET6 || s.Local != local || s.Remote != remote || s.Listening {
		t.Errorf("FindConn = %+v, want AF_INET6 %s->%s", s, local, remote)
	}

	parallel(t,
		func() error { return dialFails(tp.cli, cliV4, ap(srvV4, portDual), nil) },
		func() error {
			return dialFails(tp.cli, cliV4, ap(srvV4, portDual+1), keyPtr(md5auth.AddrKey(srvV4, secretA)))
		},
	)
}

// rawSocket returns an unbound socket of this (host) namespace; it carries
// keys but never touches the network.
func rawSocket(t *testing.T, family, typ int) int {
	t.Helper()
	fd, err := unix.Socket(family, typ|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	return fd
}

// TestKeyFdScopes checks scopes, families and errors on unconnected sockets.
func TestKeyFdScopes(t *testing.T) {
	v4 := rawSocket(t, unix.AF_INET, unix.SOCK_STREAM)
	v6 := rawSocket(t, unix.AF_INET6, unix.SOCK_STREAM)
	udp := rawSocket(t, unix.AF_INET, unix.SOCK_DGRAM)
	var pipe [2]int
	if err := unix.Pipe2(pipe[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(pipe[0])
	defer unix.Close(pipe[1])

	p4 := md5auth.PrefixKey(netip.MustParsePrefix("192.0.2.0/25"), secretA)
	a4 := md5auth.AddrKey(cliV4, secretA)
	p6 := md5auth.PrefixKey(netip.MustParsePrefix("2001:db8::/64"), secretA)
	a6 := md5auth.AddrKey(cliV6, secretA)
	mapped121 := md5auth.Key{Prefix: netip.MustParsePrefix("::ffff:192.0.2.0/121"), Secret: secretA}
	steps := []struct {
		name    string
		op      func(int, md5auth.Key) error
		fd      int
		k       md5auth.Key
		wantErr []error // every one must match; nil: success
	}{
		{"v4 prefix on v4", SetKeyFd, v4, p4, nil},
		{"v4 addr on v4", SetKeyFd, v4, a4, nil},
		{"replace v4 addr", SetKeyFd, v4, md5auth.AddrKey(cliV4, secretB), nil},
		{"delete addr scope not prefix", DeleteKeyFd, v4, md5auth.AddrKey(netip.MustParseAddr("192.0.2.0"), nil), []error{ErrKeyNotInstalled, unix.ENOENT}},
		{"delete prefix", DeleteKeyFd, v4, p4, nil},
		{"delete prefix twice", DeleteKeyFd, v4, p4, []error{ErrKeyNotInstalled, unix.ENOENT}},
		{"delete addr", DeleteKeyFd, v4, a4, nil},
		{"unmasked prefix is masked", SetKeyFd, v4, md5auth.Key{Prefix: netip.MustParsePrefix("192.0.2.77/25"), Secret: secretA}, nil},
		{"delete masked", DeleteKeyFd, v4, p4, nil},
		{"v6 addr on v4", SetKeyFd, v4, a6, []error{ErrFamilyMismatch}},
		{"v6 prefix on v4", SetKeyFd, v4, p6, []error{ErrFamilyMismatch}},
		{"v6 prefix on v6", SetKeyFd, v6, p6, nil},
		{"v6 addr on v6", SetKeyFd, v6, a6, nil},
		{"v4 prefix on v6 (mapped)", SetKeyFd, v6, p4, nil},
		{"v4 addr on v6 (mapped)", SetKeyFd, v6, a4, nil},
		{"mapped /121 is 192.0.2.0/25", DeleteKeyFd, v6, mapped121, nil},
		{"mapped deleted", DeleteKeyFd, v6, p4, []error{ErrKeyNotInstalled}},
		{"delete mapped addr", DeleteKeyFd, v6, a4, nil},
		{"delete v6 prefix", DeleteKeyFd, v6, p6, nil},
		// lo is not an L3 master device: the kernel refuses the ifindex,
		// which proves TCP_MD5SIG_FLAG_IFINDEX was passed.
		{"ifindex of lo", SetKeyFd, v6, md5auth.Key{Prefix: a6.Prefix, IfIndex: 1, Secret: secretA}, []error{unix.EINVAL}},
		{"empty secret", SetKeyFd, v4, md5auth.AddrKey(cliV4, nil), []error{md5auth.ErrEmptySecret}},
		{"long secret", SetKeyFd, v4, md5auth.AddrKey(cliV4, []byte(strings.Repeat(string(secretA), 5))), []error{md5auth.ErrSecretTooLong}},
		{"no scope", SetKeyFd, v4, md5auth.Key{Secret: secretA}, []error{md5auth.ErrNoScope}},
		{"delete no scope", DeleteKeyFd, v4, md5auth.Key{}, []error{md5auth.ErrNoScope}},
		{"udp", SetKeyFd, udp, a4, []error{ErrNotTCP}},
		{"pipe", SetKeyFd, pipe[0], a4, []error{ErrNotTCP, unix.ENOTSOCK}},
		{"closed fd", SetKeyFd, 1 << 20, a4, []error{ErrNotTCP, unix.EBADF}},
	}
	for _, st := range steps {
		err := st.op(st.fd, st.k)
		noSecret(t, err)
		if st.wantErr == nil {
			if err != nil {
				t.Errorf("%s: %v", st.name, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: no error, want %v", st.name, st.wantErr)
			continue
		}
		for _, w := range st.wantErr {
			if !errors.Is(err, w) {
				t.Errorf("%s: error %q does not match %v", st.name, err, w)
			}
		}
	}

	// The message names the operation, the scope and the socket.
	err := SetKeyFd(v4, a6)
	var ke *KeyError
	if !errors.As(err, &ke) || ke.Op != "set" || ke.Scope != "2001:db8::2" || ke.Socket != "socket 0.0.0.0:0" {
		t.Errorf("SetKeyFd(v4, v6 key) = %#v", err)
	}
	if want := "tcpsock: set key for 2001:db8::2 on socket 0.0.0.0:0: "; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("message %q, want prefix %q", err, want)
	}
}

// TestSetKeyRawConn: SetKey and DeleteKey through a RawConn, and a closed
// RawConn.
func TestSetKeyRawConn(t *testing.T) {
	f := os.NewFile(uintptr(rawSocketNoCleanup(t)), "tcp")
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	k := md5auth.AddrKey(cliV4, secretA)
	if err := SetKey(rc, k); err != nil {
		t.Fatalf("SetKey: %v", err)
	}
	if err := DeleteKey(rc, k); err != nil {
		t.Fatalf("DeleteKey: %v", err)
	}
	f.Close()
	err = SetKey(rc, k)
	noSecret(t, err)
	var ke *KeyError
	if !errors.As(err, &ke) || ke.Err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("SetKey on a closed RawConn = %v, want a *KeyError saying the file is closed", err)
	}
	if err := SetKey(nil, k); err == nil {
		t.Fatal("SetKey(nil) succeeded")
	}
}

func rawSocketNoCleanup(t *testing.T) int {
	t.Helper()
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	return fd
}

// pinger runs an echo loop on c and counts the round trips.
type pinger struct {
	n      atomic.Int64
	cancel context.CancelFunc
	done   chan error
}

func startPinger(t *testing.T, c net.Conn) *pinger {
	ctx, cancel := context.WithCancel(context.Background())
	p := &pinger{cancel: cancel, done: make(chan error, 1)}
	go func() {
		r := bufio.NewReader(c)
		for i := 0; ctx.Err() == nil; i++ {
			_ = c.SetDeadline(time.Now().Add(20 * time.Second))
			msg := fmt.Sprintf("ping %d\n", i)
			if _, err := io.WriteString(c, msg); err != nil {
				p.done <- err
				return
			}
			line, err := r.ReadString('\n')
			if err != nil {
				p.done <- err
				return
			}
			if line != msg {
				p.done <- fmt.Errorf("echo %q, want %q", line, msg)
				return
			}
			p.n.Add(1)
			time.Sleep(20 * time.Millisecond)
		}
		p.done <- nil
	}()
	t.Cleanup(func() { cancel(); _ = c.Close() })
	return p
}

// waitPast waits until more than target round trips are done.
func (p *pinger) waitPast(t *testing.T, target int64, timeout time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for p.n.Load() <= target {
		select {
		case err := <-p.done:
			t.Fatalf("echo loop stopped after %d round trips: %v", p.n.Load(), err)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Since(start) > timeout {
			t.Fatalf("echo loop stuck at %d round trips for %v (want > %d)", p.n.Load(), timeout, target)
		}
	}
	return time.Since(start)
}

// TestManyKeysOptmem: a socket's keys count against net.core.optmem_max;
// when it is full, the next key fails with ErrKeyMemory (which says what
// to raise), still matching ENOMEM, and the keys already there stay.
func TestManyKeysOptmem(t *testing.T) {
	testenv.RequireRoot(t)
	fd := rawSocket(t, unix.AF_INET6, unix.SOCK_STREAM)
	var err error
	n := 0
	for ; n < 5000; n++ {
		a := netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 0xff, 14: byte(n >> 8), 15: byte(n)})
		if err = SetKeyFd(fd, md5auth.AddrKey(a, secretA)); err != nil {
			break
		}
	}
	if err == nil {
		t.Skipf("SKIP: 5000 keys fit this socket (net.core.optmem_max is large here)")
	}
	noSecret(t, err)
	if !errors.Is(err, ErrKeyMemory) || !errors.Is(err, unix.ENOMEM) || !strings.Contains(err.Error(), "net.core.optmem_max") {
		t.Fatalf("key %d: %v, want ErrKeyMemory wrapping ENOMEM", n, err)
	}
	if n < 100 {
		t.Fatalf("only %d keys fit", n)
	}
	t.Logf("%d keys fit one socket before: %v", n, err)
}
