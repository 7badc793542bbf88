package peers

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/md5auth"
)

// SystemSockets keys the real sockets of this process.
type SystemSockets struct{}

// applies reports whether a listener of family fam must carry k: IPv4 keys
// belong on AF_INET listeners, IPv6 keys on AF_INET6 ones. IPv4 keys are
// also put (as v4-mapped addresses) on AF_INET6 listeners, which may be
// dual-stack, but a failure there does not count (GoBGP's "::" listener is
// IPv6-only).
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

// SetListenerKey implements Sockets.
func (SystemSockets) SetListenerKey(port uint16, k md5auth.Key) (int, error) {
	socks, err := md5auth.FindListeners(port)
	if err != nil {
		return 0, err
	}
	defer func() {
		for _, s := range socks {
			_ = s.Close()
		}
	}()
	n := 0
	var errs []error
	for _, s := range socks {
		must, try := applies(s.Family, k)
		if !try {
			continue
		}
		if must {
			if err := md5auth.CheckListener(s); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		if err := s.SetKey(k); err != nil {
			if must {
				errs = append(errs, err)
			}
			continue
		}
		if must {
			n++
		}
	}
	return n, errors.Join(errs...)
}

// DeleteListenerKey implements Sockets.
func (SystemSockets) DeleteListenerKey(port uint16, k md5auth.Key) error {
	socks, err := md5auth.FindListeners(port)
	if err != nil {
		return err
	}
	var errs []error
	for _, s := range socks {
		must, try := applies(s.Family, k)
		if try {
			if err := s.DeleteKey(k); err != nil && must && !errors.Is(err, md5auth.ErrKeyNotInstalled) {
				errs = append(errs, err)
			}
		}
		_ = s.Close()
	}
	return errors.Join(errs...)
}

// SetConnKey implements Sockets.
func (SystemSockets) SetConnKey(local, remote netip.AddrPort, k md5auth.Key) error {
	s, err := md5auth.FindConn(local, remote)
	if err != nil {
		return fmt.Errorf("peers: re-key session %s-%s: %w", local, remote, err)
	}
	defer s.Close()
	return s.SetKey(k)
}

// Observe implements Sockets: the kernel's own view (sock_diag) of the
// sockets on port, narrowed to this process's descriptors.
func (SystemSockets) Observe(port uint16) (Observed, error) {
	socks, visible, err := md5auth.DumpSocketKeys(port)
	if err != nil {
		return Observed{}, err
	}
	own, err := ownSocketInodes()
	if err != nil {
		return Observed{}, err
	}
	out := Observed{KeysVisible: visible}
	for _, s := range socks {
		if own[s.Inode] {
			out.Sockets = append(out.Sockets, s)
		}
	}
	return out, nil
}

// ownSocketInodes lists the inodes of this process's sockets.
func ownSocketInodes() (map[uint64]bool, error) {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil, fmt.Errorf("peers: list /proc/self/fd: %w", err)
	}
	out := make(map[uint64]bool, len(ents))
	for _, e := range ents {
		l, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err != nil || !strings.HasPrefix(l, "socket:[") || !strings.HasSuffix(l, "]") {
			continue
		}
		if n, err := strconv.ParseUint(l[len("socket:["):len(l)-1], 10, 64); err == nil {
			out[n] = true
		}
	}
	return out, nil
}

// Preflight implements Sockets.
func (SystemSockets) Preflight() error { return md5auth.Preflight() }
