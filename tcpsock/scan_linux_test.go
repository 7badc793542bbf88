//go:build linux

package tcpsock

import (
	"errors"
	"net"
	"net/netip"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/md5auth"
)

const (
	portScan      = 18051 // a Scan keying twenty scopes and a connection
	portScanStale = 18061 // a listener replaced after the Scan looked
	portScanDial  = 18081 // a socket that was dialing when the Scan looked
)

// TestScanWalksOnce: a Scan looks once (one sock_diag dump, one walk of
// /proc/self/fd) and every key operation on the sockets of that look uses
// it: twenty listener keys, a deletion and a connection re-keyed cost no
// walk more. A connection that came up after the look costs one walk; after
// it, one that is not there at all costs none (ErrSocketNotFound), and one
// newer than that walk is the next look's (ErrSocketNotFound too: a look
// walks again once, or a key change that found 100 sessions just closed
// walked 100 times). The keys are where the operations said, as the kernel
// reports them.
func TestScanWalksOnce(t *testing.T) {
	t.Parallel()
	ns := procNS(t, "pscan")
	lst := ap(loV4, portScan)
	listenEcho(t, ns, "tcp4", lst)
	setListenerKey(t, portScan, md5auth.AddrKey(loV4, secretA), 1)
	c := dialEcho(t, ns, loV4, lst, md5auth.AddrKey(loV4, secretA))
	local, remote := apOf(c.RemoteAddr()), apOf(c.LocalAddr()) // the accepted end

	var sc *Scan
	_ = netns.Do(ns, func() error { sc = ProcessSockets{}.Scan(portScan); return nil })
	obs, err := sc.Observe()
	if err != nil || !obs.KeysVisible || len(obs.Sockets) != 3 {
		t.Fatalf("Observe = %d sockets, visible %v, %v; want the listener and both ends of the connection", len(obs.Sockets), obs.KeysVisible, err)
	}
	walks := func(want int, after string) {
		t.Helper()
		if sc.Walks() != want || sc.Dumps() != 1 {
			t.Fatalf("after %s: %d walks, %d dumps; want %d and 1", after, sc.Walks(), sc.Dumps(), want)
		}
	}
	walks(1, "the look")

	var keys []md5auth.Key
	for i := range 20 {
		k := md5auth.AddrKey(netip.AddrFrom4([4]byte{192, 0, 2, byte(10 + i)}), secretB)
		n, err := sc.SetListenerKey(k)
		noSecret(t, err)
		if n != 1 || err != nil {
			t.Fatalf("SetListenerKey(%v) = %d, %v", k, n, err)
		}
		keys = append(keys, k)
	}
	if err := sc.DeleteListenerKey(keys[19]); err != nil {
		t.Fatalf("DeleteListenerKey: %v", err)
	}
	keys = keys[:19]
	if err := sc.SetConnKey(local, remote, md5auth.AddrKey(loV4, secretB)); err != nil {
		noSecret(t, err)
		t.Fatalf("SetConnKey(%s, %s): %v", local, remote, err)
	}
	walks(1, "twenty listener keys, a deletion and a re-key")

	c2 := dialEcho(t, ns, loV4, lst, md5auth.AddrKey(loV4, secretA))
	local2, remote2 := apOf(c2.RemoteAddr()), apOf(c2.LocalAddr())
	if err := sc.SetConnKey(local2, remote2, md5auth.AddrKey(loV4, secretB)); err != nil {
		noSecret(t, err)
		t.Fatalf("SetConnKey of a connection newer than the look: %v", err)
	}
	walks(2, "a connection newer than the look")
	err = sc.SetConnKey(local, ap(loV4, 1), md5auth.AddrKey(loV4, secretB))
	if !errors.Is(err, ErrSocketNotFound) {
		t.Fatalf("SetConnKey of a missing connection = %v", err)
	}
	walks(2, "a missing connection")
	c3 := dialEcho(t, ns, loV4, lst, md5auth.AddrKey(loV4, secretA))
	local3, remote3 := apOf(c3.RemoteAddr()), apOf(c3.LocalAddr())
	if err := sc.SetConnKey(local3, remote3, md5auth.AddrKey(loV4, secretB)); !errors.Is(err, ErrSocketNotFound) {
		t.Fatalf("SetConnKey of a connection newer than the look's second walk = %v, want ErrSocketNotFound", err)
	}
	walks(2, "a connection newer than the second walk")

	lkeys := append([]md5auth.Key{md5auth.AddrKey(loV4, secretA)}, keys...)
	checkDump(t, observeIn(t, ns, portScan).Sockets, []wantSock{
		{listener(unix.AF_INET, lst), lkeys},
		{SocketKeys{Local: local, Remote: remote, Family: unix.AF_INET}, []md5auth.Key{md5auth.AddrKey(loV4, secretB)}},
		{SocketKeys{Local: local2, Remote: remote2, Family: unix.AF_INET}, []md5auth.Key{md5auth.AddrKey(loV4, secretB)}},
		{SocketKeys{Local: remote, Remote: local, Family: unix.AF_INET}, []md5auth.Key{md5auth.AddrKey(loV4, secretA)}},
		{SocketKeys{Local: remote2, Remote: local2, Family: unix.AF_INET}, []md5auth.Key{md5auth.AddrKey(loV4, secretA)}},
		{SocketKeys{Local: local3, Remote: remote3, Family: unix.AF_INET}, []md5auth.Key{md5auth.AddrKey(loV4, secretA)}}, // not re-keyed
		{SocketKeys{Local: remote3, Remote: local3, Family: unix.AF_INET}, []md5auth.Key{md5auth.AddrKey(loV4, secretA)}},
	})
}

// TestScanStaleListener: a listener closed after the look, and another
// opened on the port (most likely on the same descriptor number), is
// never keyed as the old one: the Scan sees on the duplicate that the
// descriptor holds another socket, walks again and keys the new listener.
func TestScanStaleListener(t *testing.T) {
	t.Parallel()
	ns := procNS(t, "pscanst")
	lst := ap(loV4, portScanStale)
	listen := func() net.Listener {
		var l net.Listener
		if err := netns.Do(ns, func() (err error) { l, err = net.Listen("tcp4", lst.String()); return err }); err != nil {
			t.Fatal(err)
		}
		return l
	}
	old := listen()
	var sc *Scan
	_ = netns.Do(ns, func() error { sc = ProcessSockets{}.Scan(portScanStale); return nil })
	if _, err := sc.Observe(); err != nil {
		t.Fatal(err)
	}
	_ = old.Close()
	l := listen()
	defer l.Close()
	k := md5auth.AddrKey(cliV4, secretA)
	n, err := sc.SetListenerKey(k)
	noSecret(t, err)
	if n != 1 || err != nil {
		t.Fatalf("SetListenerKey after the listener was replaced = %d, %v", n, err)
	}
	if sc.Walks() != 2 {
		t.Fatalf("%d walks; want 2 (the look, and one for the replaced listener)", sc.Walks())
	}
	checkDump(t, observeIn(t, ns, portScanStale).Sockets, []wantSock{{listener(unix.AF_INET, lst), []md5auth.Key{k}}})
}

const portScanFail = 18071 // a Scan whose walk fails

// TestScanWalkFailsClosed: a look whose walk of /proc/self/fd failed knows
// no socket; its key operations fail instead of finding no listener (which
// would pass for a key on every listener) and ObserveAO fails instead of
// reporting no TCP-AO keys (which would end every TCP-AO session). Once the
// walk works again the same Scan keys the listener. Not parallel: it points
// the walk elsewhere.
func TestScanWalkFailsClosed(t *testing.T) {
	ns := procNS(t, "pscanf")
	lst := ap(loV4, portScanFail)
	listenEcho(t, ns, "tcp4", lst)
	dir := procFdDir
	procFdDir = t.TempDir() + "/missing"
	t.Cleanup(func() { procFdDir = dir })

	var sc *Scan
	_ = netns.Do(ns, func() error { sc = ProcessSockets{}.Scan(portScanFail); return nil })
	if _, err := sc.Observe(); err == nil {
		t.Fatal("Observe of a look whose walk failed: no error")
	}
	k := md5auth.AddrKey(cliV4, secretA)
	if n, err := sc.SetListenerKey(k); err == nil {
		t.Fatalf("SetListenerKey on a look whose walk failed = %d, nil: it must fail (fail closed)", n)
	}
	if err := sc.DeleteListenerKey(k); err == nil {
		t.Fatal("DeleteListenerKey on a look whose walk failed: no error")
	}
	if err := sc.SetConnKey(lst, ap(loV4, 1), k); err == nil || errors.Is(err, ErrSocketNotFound) {
		t.Fatalf("SetConnKey on a look whose walk failed = %v; want the walk's error", err)
	}
	if n, err := sc.SetListenerAO(AOSet{Prefix: netip.PrefixFrom(cliV4, 32)}); err == nil {
		t.Fatalf("SetListenerAO on a look whose walk failed = %d, nil", n)
	}
	if socks, err := sc.ObserveAO(); err == nil {
		t.Fatalf("ObserveAO on a look whose walk failed = %d sockets, nil", len(socks))
	}

	procFdDir = dir
	n, err := sc.SetListenerKey(k)
	noSecret(t, err)
	if n != 1 || err != nil {
		t.Fatalf("SetListenerKey once the walk works = %d, %v", n, err)
	}
	checkDump(t, observeIn(t, ns, portScanFail).Sockets, []wantSock{{listener(unix.AF_INET, lst), []md5auth.Key{k}}})
}

// TestScanDialingSocket: a socket that existed when the Scan walked
// /proc/self/fd but was not connected yet (GoBGP's dial between its
// socket() and connect(): the dial hook keys it there) is on no port then,
// so the look records its descriptor as none of its own. Once it has
// connected, the Scan finds it for a re-key: its walk for a connection it
// does not have identifies again every descriptor that is none of the
// look's, instead of skipping the ones it saw before (which left such a
// connection "not found" for the rest of the pass), also after the
// listeners' operations identified the unknown descriptors once.
func TestScanDialingSocket(t *testing.T) {
	t.Parallel()
	ns := procNS(t, "pscand")
	lst := ap(loV4, portScanDial)
	listenEcho(t, ns, "tcp4", lst)
	setListenerKey(t, portScanDial, md5auth.AddrKey(loV4, secretA), 1)

	inControl, release := make(chan struct{}), make(chan struct{})
	type result struct {
		c   net.Conn
		err error
	}
	dialed := make(chan result, 1)
	go func() {
		var r result
		r.err = netns.Do(ns, func() error {
			d := net.Dialer{Timeout: dialTimeout}
			d.SetMultipathTCP(false)
			d.Control = func(_, _ string, rc syscall.RawConn) error {
				if err := SetKey(rc, md5auth.AddrKey(loV4, secretA)); err != nil {
					return err
				}
				close(inControl) // the socket exists, unbound and unconnected
				<-release
				return nil
			}
			var err error
			r.c, err = d.Dial("tcp4", lst.String())
			return err
		})
		dialed <- r
	}()
	<-inControl
	var sc *Scan
	_ = netns.Do(ns, func() error { sc = ProcessSockets{}.Scan(portScanDial); return nil })
	if _, err := sc.Observe(); err != nil {
		t.Fatal(err)
	}
	// A listener operation first: it identifies the unknown descriptors,
	// the dialing socket among them (on no port yet).
	if n, err := sc.SetListenerKey(md5auth.AddrKey(cliV4, secretB)); n != 1 || err != nil {
		noSecret(t, err)
		t.Fatalf("SetListenerKey = %d, %v", n, err)
	}
	close(release)
	r := <-dialed
	if r.err != nil {
		noSecret(t, r.err)
		t.Fatalf("dial: %v", r.err)
	}
	defer r.c.Close()
	local, remote := apOf(r.c.LocalAddr()), apOf(r.c.RemoteAddr())
	if err := sc.SetConnKey(local, remote, md5auth.AddrKey(loV4, secretB)); err != nil {
		noSecret(t, err)
		t.Fatalf("SetConnKey of the socket that was dialing when the Scan looked: %v", err)
	}
	var got []SocketKeys
	for _, k := range observeIn(t, ns, portScanDial).Sockets {
		if k.Local == local && k.Remote == remote {
			got = append(got, k)
		}
	}
	checkDump(t, got, []wantSock{{SocketKeys{Local: local, Remote: remote, Family: unix.AF_INET}, []md5auth.Key{md5auth.AddrKey(loV4, secretB)}}})
}
