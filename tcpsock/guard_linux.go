package tcpsock

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// SetGuards puts the link-local guards on the socket (SO_ATTACH_FILTER,
// replacing the filter it had); no guards removes the filter.
func (s *Socket) SetGuards(guards []Guard) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fd < 0 {
		return fmt.Errorf("tcpsock: link-local guards on %s: %w", s.String(), ErrSocketClosed)
	}
	if len(guards) == 0 {
		err := unix.SetsockoptInt(s.fd, unix.SOL_SOCKET, unix.SO_DETACH_FILTER, 0)
		if err == unix.ENOENT {
			return nil // none there
		}
		if err != nil {
			return fmt.Errorf("tcpsock: remove link-local guards from %s: %w", s.String(), err)
		}
		return nil
	}
	raw, err := GuardProgram(guards)
	if err != nil {
		return err
	}
	f := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		f[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	p := unix.SockFprog{Len: uint16(len(f)), Filter: (*unix.SockFilter)(unsafe.Pointer(&f[0]))}
	if err := unix.SetsockoptSockFprog(s.fd, unix.SOL_SOCKET, unix.SO_ATTACH_FILTER, &p); err != nil {
		return fmt.Errorf("tcpsock: set %d link-local guards on %s: %w", len(guards), s.String(), err)
	}
	return nil
}
