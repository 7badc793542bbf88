//go:build linux

package tcpsock_test

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/tcpsock"
	"github.com/authbgp/authbgpd/tcpsock/tcpsocktest"
)

var refusedSecret = []byte("s3cret-Refused-4410")

// plainListener listens on an ephemeral port of 127.0.0.1 in the test
// process's own namespace: the stand-in for GoBGP's listener, which
// accepts keys.
func plainListener(t *testing.T) uint16 {
	t.Helper()
	var lc net.ListenConfig
	lc.SetMultipathTCP(false)
	l, err := lc.Listen(t.Context(), "tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return uint16(l.Addr().(*net.TCPAddr).Port)
}

func optmemMax(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("/proc/sys/net/core/optmem_max")
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// TestSetListenerKeyRefusedByKernel: when the kernel refuses a key on a
// plain TCP listener of the port (here: no option memory left in that
// listener's namespace, tcpsocktest), SetListenerKey fails — whatever the
// other listeners of the port accepted — with an error that names the
// listener and the peer scope, matches ErrKeyMemory and ENOMEM, and does
// not contain the secret. The test process's namespace keeps its
// optmem_max.
func TestSetListenerKeyRefusedByKernel(t *testing.T) {
	hostOptmem := optmemMax(t)
	port := plainListener(t)
	addr := "127.0.0.1:" + strconv.Itoa(int(port))
	tcpsocktest.RefusingListener(t, "tcp4", addr)
	if got := optmemMax(t); got != hostOptmem {
		t.Fatalf("the test process's namespace changed net.core.optmem_max: %s, was %s", got, hostOptmem)
	}

	k := md5auth.AddrKey(netip.MustParseAddr("192.0.2.2"), refusedSecret)
	n, err := (tcpsock.ProcessSockets{}).Scan(port).SetListenerKey(k)
	if err == nil {
		t.Fatalf("SetListenerKey = %d, nil: the kernel refused the key on listener %s, and the peer would stay up without it", n, addr)
	}
	msg := err.Error()
	if strings.Contains(msg, string(refusedSecret)) {
		t.Fatalf("error leaks the secret: %q", msg)
	}
	var ke *tcpsock.KeyError
	if !errors.As(err, &ke) || ke.Scope != "192.0.2.2" || ke.Socket != "listener "+addr ||
		!strings.Contains(msg, "192.0.2.2") || !strings.Contains(msg, "listener "+addr) {
		t.Fatalf("error %q does not name the peer scope 192.0.2.2 and listener %s", msg, addr)
	}
	if !errors.Is(err, tcpsock.ErrKeyMemory) || !errors.Is(err, unix.ENOMEM) {
		t.Fatalf("error %q does not match ErrKeyMemory and ENOMEM", msg)
	}
	if n != 1 {
		t.Errorf("SetListenerKey keyed %d listeners, want 1 (the plain one that accepts keys)", n)
	}
	t.Logf("refused as expected: %v", err)

	// The refused key is not there to delete: not an error.
	if err := (tcpsock.ProcessSockets{}).Scan(port).DeleteListenerKey(k); err != nil {
		t.Fatalf("DeleteListenerKey after the refusal: %v", err)
	}
}

// TestSetListenerKeyRefusalOnTriedListener: the kernel refusing an IPv4
// key on an AF_INET6 listener, where it is only tried (v4-mapped, for a
// dual-stack listener), is not an error: the AF_INET listener carries it.
func TestSetListenerKeyRefusalOnTriedListener(t *testing.T) {
	port := plainListener(t)
	tcpsocktest.RefusingListener(t, "tcp6", "[::1]:"+strconv.Itoa(int(port)))
	k := md5auth.AddrKey(netip.MustParseAddr("192.0.2.2"), refusedSecret)
	n, err := (tcpsock.ProcessSockets{}).Scan(port).SetListenerKey(k)
	if err != nil || n != 1 {
		t.Fatalf("SetListenerKey = %d, %v; want 1, nil", n, err)
	}
	// An IPv6 key must go on the AF_INET6 listener: refused, an error.
	k6 := md5auth.AddrKey(netip.MustParseAddr("2001:db8::2"), refusedSecret)
	if n, err := (tcpsock.ProcessSockets{}).Scan(port).SetListenerKey(k6); err == nil || n != 0 {
		t.Fatalf("SetListenerKey(IPv6 key) = %d, %v; want 0 and the refusal", n, err)
	}
}
