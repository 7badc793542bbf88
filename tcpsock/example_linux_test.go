//go:build linux

package tcpsock_test

import (
	"errors"
	"log"
	"net"
	"net/netip"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/tcpsock"
)

// Sign the SYN of an outgoing connection: the key goes on the socket in
// the Dialer's Control function, before connect.
func ExampleSetKey() {
	peer := netip.MustParseAddr("192.0.2.2")
	key := md5auth.AddrKey(peer, []byte("s3cret"))
	d := net.Dialer{
		Control: func(_, _ string, rc syscall.RawConn) error {
			return tcpsock.SetKey(rc, key)
		},
	}
	d.SetMultipathTCP(false) // MPTCP sockets cannot carry TCP-MD5 keys
	conn, err := d.Dial("tcp", netip.AddrPortFrom(peer, 179).String())
	if err != nil {
		log.Print(err) // never contains the secret
		return
	}
	defer conn.Close()
}

// Key every BGP listener of the process (GoBGP's, which tcpsock cannot
// reach otherwise) for a range of dynamic neighbors.
func ExampleForEachListener() {
	key := md5auth.PrefixKey(netip.MustParsePrefix("192.0.2.0/24"), []byte("s3cret"))
	err := tcpsock.ForEachListener(179, func(s *tcpsock.Socket) error {
		if err := tcpsock.CheckListener(s); err != nil {
			return err // *MultipathError: fix go.mod
		}
		return s.SetKey(key) // an IPv4 key on a [::] listener goes in v4-mapped
	})
	if errors.Is(err, tcpsock.ErrSocketNotFound) {
		log.Print("not listening on port 179")
	} else if err != nil {
		log.Print(err)
	}
}

// Change the key of an established session in place (the peer must switch
// too; segments in flight are retransmitted once both ends agree).
func ExampleFindConn() {
	local := netip.MustParseAddrPort("192.0.2.1:179")
	remote := netip.MustParseAddrPort("192.0.2.2:40123")
	s, err := tcpsock.FindConn(local, remote)
	if err != nil {
		log.Print(err) // errors.Is(err, tcpsock.ErrSocketNotFound)
		return
	}
	defer s.Close() // the Socket holds a duplicate descriptor: close it soon
	if err := s.SetKey(md5auth.AddrKey(remote.Addr(), []byte("new-s3cret"))); err != nil {
		var me *tcpsock.MultipathError
		if errors.As(err, &me) || errors.Is(err, unix.ENOPROTOOPT) {
			log.Print("multipath TCP socket: ", err)
		}
	}
}
