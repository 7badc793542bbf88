//go:build linux

package tcpsock

import (
	"errors"
	"fmt"
	"net/netip"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/md5auth"
)

// ListenKeys puts TCP-MD5 keys md5 and the MKTs of the TCP-AO sets ao on
// the socket behind rc, which is about to listen on local (a
// ListenConfig's Control, before bind(2) and listen(2)): the listener then
// refuses an unsigned SYN from the first moment it listens. Each key goes
// where SetListenerKey and SetListenerAO would put it on a listener of
// the socket's family (IPv4 keys on an IPv6 socket are tried, for its
// v4-mapped peers, and their failure is not an error); the socket is
// checked for multipath TCP first (CheckListener). Any failure of a key
// the socket must carry is an error: the caller must not let it listen.
// The socket is borrowed, never duplicated or closed here.
func (ProcessSockets) ListenKeys(rc syscall.RawConn, local netip.AddrPort, md5 []md5auth.Key, ao []AOSet) error {
	desc := "listener " + local.String()
	if rc == nil {
		return fmt.Errorf("tcpsock: %s: nil RawConn: %w", desc, syscall.EINVAL)
	}
	var opErr error
	if err := rc.Control(func(fd uintptr) { opErr = listenKeys(int(fd), local, desc, md5, ao) }); err != nil {
		return fmt.Errorf("tcpsock: %s: %w", desc, err)
	}
	return opErr
}

func listenKeys(fd int, local netip.AddrPort, desc string, md5 []md5auth.Key, ao []AOSet) error {
	family, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_DOMAIN)
	if err != nil {
		return fmt.Errorf("tcpsock: %s: %w: %w", desc, ErrNotTCP, err)
	}
	proto, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_PROTOCOL)
	if err != nil {
		return fmt.Errorf("tcpsock: %s: %w: %w", desc, ErrNotTCP, err)
	}
	s := &Socket{Local: local, Family: family, Protocol: proto, Listening: true, fd: fd}
	if len(md5) > 0 || len(ao) > 0 {
		if err := CheckListener(s); err != nil {
			return err
		}
	}
	var errs []error
	for _, k := range md5 {
		must, try := applies(family, k)
		if !try {
			continue
		}
		if err := k.Validate(); err != nil && must {
			errs = append(errs, fmt.Errorf("%w: %w", ErrListenKey, err))
			continue
		}
		if err := keyOp(fd, k, true, desc); err != nil && must {
			errs = append(errs, fmt.Errorf("%w: %w", ErrListenKey, err))
		}
	}
	for _, set := range ao {
		set, err := set.scoped()
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: tcpsock: %s: %w", ErrListenKey, desc, err))
			continue
		}
		must, try := aoApplies(family, set.Prefix)
		if !try {
			continue
		}
		if err := syncMKTs(s, set); err != nil && must {
			errs = append(errs, fmt.Errorf("%w: %w", ErrListenKey, err))
		}
	}
	return errors.Join(errs...)
}
