//go:build linux

package tcpsock

import (
	"errors"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/md5auth"
)

// applies reports whether a listener of family fam must carry k, and
// whether k is to be tried on it at all (see ProcessSockets): IPv4 keys
// must go on AF_INET listeners, IPv6 keys on AF_INET6 ones; IPv4 keys are
// also tried, as v4-mapped addresses, on AF_INET6 listeners. A listener
// that must carry k and does not is an error of Scan.SetListenerKey (a
// *MultipathError for a multipath TCP listener, checked before any key
// goes on it, see CheckListener; or the *KeyError of the kernel's
// refusal); one that only tried it is not.
func applies(fam int, k md5auth.Key) (must, try bool) {
	v4 := k.Prefix.Addr().Is4()
	switch {
	case fam == unix.AF_INET && v4, fam == unix.AF_INET6 && !v4:
		return true, true
	case fam == unix.AF_INET6 && v4:
		return false, true
	}
	return false, false
}

// setListenerKeyOp puts k on a listener; one that must carry it is checked
// for multipath TCP first (see CheckListener).
func setListenerKeyOp(k md5auth.Key) func(s *Socket, must bool) error {
	return func(s *Socket, must bool) error {
		if must {
			if err := CheckListener(s); err != nil {
				return err
			}
		}
		return s.SetKey(k)
	}
}

// deleteListenerKeyOp takes k's scope off a listener (not there: done).
func deleteListenerKeyOp(k md5auth.Key) func(s *Socket, must bool) error {
	return func(s *Socket, _ bool) error {
		if err := s.DeleteKey(k); !errors.Is(err, ErrKeyNotInstalled) {
			return err
		}
		return nil
	}
}

// Preflight reports what stops TCP-MD5 from working in this process at
// all (see the package function Preflight).
func (ProcessSockets) Preflight() error { return Preflight() }

func closeAll(socks []*Socket) {
	for _, s := range socks {
		_ = s.Close()
	}
}

// contextError says what was being done when err (a tcpsock error)
// happened, without repeating the package prefix.
type contextError struct {
	what string
	err  error
}

func (e *contextError) Error() string {
	return "tcpsock: " + e.what + ": " + strings.TrimPrefix(e.err.Error(), "tcpsock: ")
}

func (e *contextError) Unwrap() error { return e.err }
