//go:build linux

package tcpsock

import (
	"errors"
	"net/netip"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/md5auth"
)

// applies reports whether a listener of family fam must carry k, and
// whether k is to be tried on it at all (see ProcessSockets): IPv4 keys
// must go on AF_INET listeners, IPv6 keys on AF_INET6 ones; IPv4 keys are
// also tried, as v4-mapped addresses, on AF_INET6 listeners.
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

// SetListenerKey installs k on every listener of this process on port
// that can receive connections from k's address family. It returns how
// many listeners had to carry k and do (a dual-stack AF_INET6 listener
// given an IPv4 key is not counted). An error for any listener that must
// carry k is an error: a *MultipathError for a multipath TCP listener
// (checked before any key goes on it, see CheckListener), or the
// *KeyError of the kernel's refusal. Finding no listener is not an error:
// it returns 0.
func (ProcessSockets) SetListenerKey(port uint16, k md5auth.Key) (int, error) {
	return eachListener(port, func(fam int) (bool, bool) { return applies(fam, k) }, setListenerKeyOp(k))
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

// eachListener runs op on every listener of this process on port that the
// address family rule (rule: must carry, may try) picks. It returns how
// many listeners that must carry the key op succeeded on, and the errors
// of those (a failure where the key was only tried does not count).
func eachListener(port uint16, rule func(fam int) (must, try bool), op func(s *Socket, must bool) error) (int, error) {
	socks, err := FindListeners(port)
	if err != nil {
		return 0, err
	}
	return eachOf(socks, rule, op)
}

// DeleteListenerKey removes k's scope from every listener of this process
// on port that SetListenerKey would have keyed. A key that is not there is
// not an error, nor is a failure on a listener that only tried k.
func (ProcessSockets) DeleteListenerKey(port uint16, k md5auth.Key) error {
	_, err := eachListener(port, func(fam int) (bool, bool) { return applies(fam, k) }, deleteListenerKeyOp(k))
	return err
}

// SetConnKey re-keys the established connection local->remote of this
// process in place (see FindConn and Socket.SetKey). A connection that is
// not found is an error matching ErrSocketNotFound.
func (ProcessSockets) SetConnKey(local, remote netip.AddrPort, k md5auth.Key) error {
	s, err := FindConn(local, remote)
	if err != nil {
		return &contextError{what: "re-key session " + local.String() + "-" + remote.String(), err: err}
	}
	defer s.Close()
	return s.SetKey(k)
}

// Observe reports the kernel's own view (sock_diag, see DumpSocketKeys)
// of the sockets on port in the caller's network namespace, narrowed to
// this process's descriptors.
func (ProcessSockets) Observe(port uint16) (Observed, error) {
	socks, visible, err := DumpSocketKeys(port)
	if err != nil {
		return Observed{}, err
	}
	own, err := ownSocketInodes()
	if err != nil {
		return Observed{}, err
	}
	return Observed{KeysVisible: visible, Sockets: ownOnly(socks, own)}, nil
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
