//go:build linux

// Package tcpsocktest makes the kernel refuse TCP-MD5 keys on real
// sockets, for tests of code that must fail closed when a key cannot be
// installed (a peer held down, never left up unauthenticated).
//
// The refusal is the kernel's own, not a hook: every TCP-MD5 key of a
// socket is allocated from the socket's option memory, which is bounded by
// net.core.optmem_max of the socket's network namespace. In a throw-away
// namespace whose optmem_max is smaller than one key, setsockopt
// (TCP_MD5SIG_EXT) fails with ENOMEM on a plain TCP listener, and
// tcpsock reports it as a *tcpsock.KeyError matching tcpsock.ErrKeyMemory
// and unix.ENOMEM. The test process's own namespace is never touched.
//
// Typical use, in any package's test (as root):
//
//	l := tcpsocktest.RefusingListener(t, "tcp4", "127.0.0.1:1790")
//	n, err := tcpsock.ProcessSockets{}.Scan(1790).SetListenerKey(key) // err != nil: the kernel refused
//
// The refusing listener is a listener of this process like any other, so
// tcpsock's socket discovery finds it on its port next to the listeners of
// the test's own namespace (GoBGP's, or a stand-in): a key for its address
// family that must go on every listener of the port then fails.
package tcpsocktest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/tcpsock"
)

// OptmemMax is the net.core.optmem_max RefuseKeys sets: smaller than one
// TCP-MD5 key (struct tcp_md5sig_key holds an 80-byte key alone).
const OptmemMax = 64

// optmemPath is the namespace's optmem_max, as seen by a thread in it.
const optmemPath = "/proc/sys/net/core/optmem_max"

// probe is the key RefuseKeys tries to install to prove the refusal.
var probe = md5auth.AddrKey(netip.MustParseAddr("192.0.2.254"), []byte("tcpsocktest-probe"))

// RefuseKeys makes the kernel refuse every new TCP-MD5 key on the sockets
// of network namespace ns (a name under /run/netns, from the test's own
// netns.Topology; never the test process's namespace): it sets ns's
// net.core.optmem_max to OptmemMax, then proves the refusal on a fresh
// socket in ns. The test fails if the kernel still accepts a key.
//
// Only a key for a scope the socket does not hold yet is refused: keys
// already installed stay, and replacing one in place (same scope, new
// secret) still works, since the kernel allocates nothing then. Lower
// optmem_max before the socket gets its first key for the scope (as
// RefusingListener does) to make a re-key fail too.
func RefuseKeys(t testing.TB, ns string) {
	t.Helper()
	err := netns.Do(ns, func() error {
		if err := os.WriteFile(optmemPath, []byte(strconv.Itoa(OptmemMax)+"\n"), 0); err != nil {
			return fmt.Errorf("set net.core.optmem_max: %w", err)
		}
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, unix.IPPROTO_TCP)
		if err != nil {
			return fmt.Errorf("probe socket: %w", err)
		}
		defer unix.Close(fd)
		err = tcpsock.SetKeyFd(fd, probe)
		if err == nil {
			return errors.New("the kernel still accepts a TCP-MD5 key with net.core.optmem_max=" + strconv.Itoa(OptmemMax))
		}
		if !errors.Is(err, tcpsock.ErrKeyMemory) {
			return fmt.Errorf("the probe key failed for another reason than option memory: %w", err)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("tcpsocktest: make namespace %s refuse TCP-MD5 keys: %v", ns, err)
	}
}

// RefusingListener listens on network ("tcp4" or "tcp6") address addr
// (e.g. "127.0.0.1:1790" or "[::1]:1790"; lo is up) in a fresh network
// namespace whose kernel refuses TCP-MD5 keys (RefuseKeys), so a port the
// test already uses in its own namespace is free there. The listener is
// plain TCP (not multipath), accepts nothing and is closed, with the
// namespace, at cleanup. It skips the test unless run as root (or fails
// it with E2E_REQUIRED=1).
func RefusingListener(t testing.TB, network, addr string) *net.TCPListener {
	t.Helper()
	testenv.RequireRoot(t)
	ns := netns.New(t, "refuse").Add("r")
	RefuseKeys(t, ns)
	var l net.Listener
	err := netns.Do(ns, func() (err error) {
		var lc net.ListenConfig
		lc.SetMultipathTCP(false)
		l, err = lc.Listen(context.Background(), network, addr)
		return err
	})
	if err != nil {
		t.Fatalf("tcpsocktest: listen %s %s in %s: %v", network, addr, ns, err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l.(*net.TCPListener)
}
