//go:build linux

package tcpsock

import (
	"fmt"
	"net/netip"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/md5auth"
)

// Keys on a socket that is about to connect (a dialer's Control, before
// connect(2)): its SYN is then signed. The socket is borrowed, never
// duplicated or closed here: its owner (GoBGP's dialer) holds it.

// DialMD5 installs the TCP-MD5 key k on the unconnected socket behind rc,
// which is about to dial remote. A key with an IfIndex is scoped to that
// VRF (TCP_MD5SIG_FLAG_IFINDEX); an ifindex the kernel refuses fails with
// ErrScope, and the socket is left without any key: the caller must not
// let it connect.
func (ProcessSockets) DialMD5(rc syscall.RawConn, remote netip.AddrPort, k md5auth.Key) error {
	if err := k.Validate(); err != nil {
		return err
	}
	return borrow(rc, remote, func(fd int, desc string) error { return keyOp(fd, k, true, desc) })
}

// DialAO puts every MKT of set on the unconnected socket behind rc, which
// is about to dial remote: the key whose SendID is set.Current becomes the
// current key and the one whose RecvID is set.RNext the RNextKeyID of the
// SYN, and segments without TCP-AO are refused. Any failure is an error:
// the caller must not let the socket connect.
//
// A set scoped to a VRF (AOSet.IfIndex, or its keys' IfIndex) puts scoped
// MKTs on the socket (the kernel takes them before connect whether or not
// the socket is bound to the VRF yet); an ifindex the kernel refuses fails
// with ErrScope, and no MKT is left unscoped in its place.
func (ProcessSockets) DialAO(rc syscall.RawConn, remote netip.AddrPort, set AOSet) error {
	set, err := set.scoped()
	if err != nil {
		return fmt.Errorf("tcpsock: dial to %s: %w", remote, err)
	}
	if len(set.Keys) == 0 || set.Current < 0 || set.RNext < 0 {
		return fmt.Errorf("tcpsock: dial to %s: %s has no current key and RNext: %w", remote, set, ErrAOKey)
	}
	cur, rn := false, false
	for _, k := range set.Keys {
		cur = cur || int(k.SendID) == set.Current
		rn = rn || int(k.RecvID) == set.RNext
	}
	if !cur || !rn {
		return fmt.Errorf("tcpsock: dial to %s: %s has no key with SendID %d and one with RecvID %d: %w", remote, set, set.Current, set.RNext, ErrAOKey)
	}
	return borrow(rc, remote, func(fd int, desc string) error {
		family, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_DOMAIN)
		if err != nil {
			return fmt.Errorf("tcpsock: %s: %w: %w", desc, ErrNotTCP, err)
		}
		s := &Socket{Remote: remote, Family: family, fd: fd}
		for _, k := range set.Keys {
			if err := s.AddAOKey(k, int(k.SendID) == set.Current, int(k.RecvID) == set.RNext); err != nil {
				return err
			}
		}
		return s.SetAOInfo(set.Current, set.RNext, true, set.AcceptICMPs)
	})
}

// borrow runs op on the descriptor behind rc, with a description of the
// socket for errors.
func borrow(rc syscall.RawConn, remote netip.AddrPort, op func(fd int, desc string) error) error {
	desc := "socket dialing " + remote.String()
	if rc == nil {
		return fmt.Errorf("tcpsock: %s: nil RawConn: %w", desc, syscall.EINVAL)
	}
	var opErr error
	if err := rc.Control(func(fd uintptr) { opErr = op(int(fd), desc) }); err != nil {
		return fmt.Errorf("tcpsock: %s: %w", desc, err)
	}
	return opErr
}
