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

// Ports of the ProcessSockets tests (see the note on portKeyed).
const (
	portProc      = 18001 // an IPv4 and an IPv6-only listener
	portProcDual  = 18011 // a dual-stack listener
	portProcConn  = 18021 // a connection re-keyed in place
	portProcMPTCP = 18041 // a multipath TCP listener
)

var (
	loV4 = netip.MustParseAddr("127.0.0.1")
	loV6 = netip.MustParseAddr("::1")
)

// procNS is a fresh namespace of its own with lo up (127.0.0.1, ::1).
func procNS(t *testing.T, tag string) string {
	t.Helper()
	testenv.RequireRoot(t)
	return netns.New(t, tag).Add("p")
}

// observeIn runs a Scan's Observe of port in namespace ns (sock_diag
// answers for the namespace it is asked in).
func observeIn(t *testing.T, ns string, port uint16) Observed {
	t.Helper()
	var obs Observed
	err := netns.Do(ns, func() (err error) {
		obs, err = (ProcessSockets{}).Scan(port).Observe()
		return err
	})
	noSecret(t, err)
	if err != nil {
		t.Fatalf("Observe(%d) in %s: %v", port, ns, err)
	}
	if !obs.KeysVisible {
		t.Fatalf("Observe(%d) in %s: keys not visible to root", port, ns)
	}
	return obs
}

func setListenerKey(t *testing.T, port uint16, k md5auth.Key, wantN int) {
	t.Helper()
	n, err := (ProcessSockets{}).Scan(port).SetListenerKey(k)
	noSecret(t, err)
	if err != nil || n != wantN {
		t.Fatalf("SetListenerKey(%d, %v) = %d, %v; want %d, nil", port, k, n, err, wantN)
	}
}

func listener(fam int, ap netip.AddrPort) SocketKeys {
	return SocketKeys{Local: ap, Listening: true, Family: fam}
}

// startForeignListener starts another process listening on addr in ns and
// waits until the kernel reports its socket.
func startForeignListener(t *testing.T, ns string, addr netip.AddrPort) {
	t.Helper()
	py := testenv.RequireBinary(t, "python3")
	tp := netns.New(t, "pyl")
	script := "import socket,time\ns=socket.socket()\ns.bind(('" + addr.Addr().String() + "'," + strconv.Itoa(int(addr.Port())) + "))\ns.listen()\ntime.sleep(120)\n"
	tp.Start(netns.Exec(ns, py, "-c", script))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ok := netns.WaitFor(ctx, func() bool {
		socks, _ := dumpIn(t, ns, addr.Port())
		for _, s := range socks {
			if s.Listening && s.Local == addr {
				return true
			}
		}
		return false
	})
	if !ok {
		t.Fatalf("the other process's listener %s did not appear", addr)
	}
}

// TestProcessSocketsListenerKeys: an IPv4 key goes on the IPv4 listener
// (and, v4-mapped, on the IPv6-only one, where it is harmless), an IPv6
// key on the IPv6 listener only; Observe reports exactly that, for this
// process's sockets only (another process's listener on the port is left
// out); a deleted key is gone, and deleting it again is not an error.
func TestProcessSocketsListenerKeys(t *testing.T) {
	t.Parallel()
	ns := procNS(t, "pkeys")
	a4, a6 := ap(loV4, portProc), ap(loV6, portProc)
	listenEcho(t, ns, "tcp4", a4)
	listenEcho(t, ns, "tcp6", a6) // IPV6_V6ONLY: Go's tcp6
	startForeignListener(t, ns, ap(netip.MustParseAddr("127.0.0.3"), portProc))

	k4, k6 := md5auth.AddrKey(cliV4, secretA), md5auth.AddrKey(cliV6, secretB)
	setListenerKey(t, portProc, k4, 1)
	setListenerKey(t, portProc, k6, 1)
	setListenerKey(t, portProc+1, k4, 0) // no listener: nothing keyed, no error
	checkDump(t, observeIn(t, ns, portProc).Sockets, []wantSock{
		{listener(unix.AF_INET, a4), []md5auth.Key{k4}},
		{listener(unix.AF_INET6, a6), []md5auth.Key{k4, k6}},
	})

	for range 2 { // the second time the key is no longer there
		if err := (ProcessSockets{}).Scan(portProc).DeleteListenerKey(k4); err != nil {
			noSecret(t, err)
			t.Fatalf("DeleteListenerKey(%v): %v", k4, err)
		}
	}
	checkDump(t, observeIn(t, ns, portProc).Sockets, []wantSock{
		{listener(unix.AF_INET, a4), nil},
		{listener(unix.AF_INET6, a6), []md5auth.Key{k6}},
	})
}

// TestProcessSocketsDualStack: an IPv4 key goes on a dual-stack [::]
// listener as a v4-mapped address without counting as a listener that must
// carry it; IPv4 peers then need it (a signed dial works, an unsigned one
// is dropped) until it is deleted. An IPv6 key must go on it.
func TestProcessSocketsDualStack(t *testing.T) {
	t.Parallel()
	ns := procNS(t, "pdual")
	any6 := netip.AddrPortFrom(netip.IPv6Unspecified(), portProcDual)
	dual := listenEcho(t, ns, "tcp", any6)
	var v6only int
	var oerr error
	if err := dual.rawConn(t).Control(func(fd uintptr) {
		v6only, oerr = unix.GetsockoptInt(int(fd), unix.IPPROTO_IPV6, unix.IPV6_V6ONLY)
	}); err != nil || oerr != nil || v6only != 0 {
		t.Fatalf("the [::] listener is not dual-stack: IPV6_V6ONLY %d, %v %v", v6only, err, oerr)
	}
	dst := ap(loV4, portProcDual)
	k4 := md5auth.AddrKey(loV4, secretA)
	setListenerKey(t, portProcDual, k4, 0)
	setListenerKey(t, portProcDual, md5auth.AddrKey(cliV6, secretB), 1)
	checkDump(t, observeIn(t, ns, portProcDual).Sockets, []wantSock{
		{listener(unix.AF_INET6, any6), []md5auth.Key{k4, md5auth.AddrKey(cliV6, secretB)}},
	})
	dialOK(t, ns, loV4, dst, keyPtr(md5auth.AddrKey(loV4, secretA)))
	if err := dialFails(ns, loV4, dst, nil); err != nil {
		t.Fatalf("unsigned IPv4 dial to a dual-stack listener keyed for it: %v", err)
	}
	if err := (ProcessSockets{}).Scan(portProcDual).DeleteListenerKey(k4); err != nil {
		noSecret(t, err)
		t.Fatal(err)
	}
	dialOK(t, ns, loV4, dst, nil)
}

// TestProcessSocketsConnKey: SetConnKey re-keys an established connection
// in place (Observe sees the new key on it, the listener and the dialed
// end keep theirs); a connection that does not exist is an error naming
// both ends once.
func TestProcessSocketsConnKey(t *testing.T) {
	t.Parallel()
	ns := procNS(t, "pconn")
	lst := ap(loV4, portProcConn)
	listenEcho(t, ns, "tcp4", lst)
	setListenerKey(t, portProcConn, md5auth.AddrKey(loV4, secretA), 1)
	c := dialEcho(t, ns, loV4, lst, md5auth.AddrKey(loV4, secretA))
	local, remote := apOf(c.RemoteAddr()), apOf(c.LocalAddr()) // the accepted end
	if err := (ProcessSockets{}).Scan(local.Port()).SetConnKey(local, remote, md5auth.AddrKey(loV4, secretB)); err != nil {
		noSecret(t, err)
		t.Fatalf("SetConnKey(%s, %s): %v", local, remote, err)
	}
	checkDump(t, observeIn(t, ns, portProcConn).Sockets, []wantSock{
		{listener(unix.AF_INET, lst), []md5auth.Key{md5auth.AddrKey(loV4, secretA)}},
		{SocketKeys{Local: local, Remote: remote, Family: unix.AF_INET}, []md5auth.Key{md5auth.AddrKey(loV4, secretB)}},
		{SocketKeys{Local: remote, Remote: local, Family: unix.AF_INET}, []md5auth.Key{md5auth.AddrKey(loV4, secretA)}},
	})

	gone := ap(loV4, 1)
	err := (ProcessSockets{}).Scan(local.Port()).SetConnKey(local, gone, md5auth.AddrKey(loV4, secretB))
	noSecret(t, err)
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	if !errors.Is(err, ErrSocketNotFound) || !strings.Contains(msg, local.String()) || !strings.Contains(msg, gone.String()) ||
		!strings.HasPrefix(msg, "tcpsock: re-key session ") || strings.Count(msg, "tcpsock:") != 1 {
		t.Fatalf("SetConnKey of a missing connection = %v", err)
	}
}

// TestProcessSocketsMultipath: a multipath TCP listener that must carry a
// key fails SetListenerKey with CheckListener's *MultipathError, before
// any setsockopt.
func TestProcessSocketsMultipath(t *testing.T) {
	t.Parallel()
	ns := procNS(t, "pmptcp")
	addr := ap(loV4, portProcMPTCP)
	var l net.Listener
	err := netns.Do(ns, func() (err error) {
		var lc net.ListenConfig
		lc.SetMultipathTCP(true)
		l, err = lc.Listen(context.Background(), "tcp4", addr.String())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	list, err := FindListeners(portProcMPTCP)
	if err != nil || len(list) != 1 {
		t.Fatalf("FindListeners = %v, %v", list, err)
	}
	proto := list[0].Protocol
	_ = list[0].Close()
	if proto != ProtoMPTCP {
		testenv.SkipKernelLacks(t, "MPTCP", "a multipath listener came out as protocol "+strconv.Itoa(proto))
	}
	n, err := (ProcessSockets{}).Scan(portProcMPTCP).SetListenerKey(md5auth.AddrKey(cliV4, secretA))
	noSecret(t, err)
	var me *MultipathError
	if n != 0 || !errors.As(err, &me) || me.Local != addr || me.Err != nil {
		t.Fatalf("SetListenerKey on an MPTCP listener = %d, %v; want 0 and a *MultipathError for %s without a setsockopt error", n, err, addr)
	}
}
