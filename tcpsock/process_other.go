//go:build !linux

package tcpsock

import (
	"net/netip"
	"syscall"

	"github.com/authbgp/authbgpd/md5auth"
)

// SetListenerKey returns ErrNotSupported: keys go on sockets on Linux only.
func (ProcessSockets) SetListenerKey(port uint16, k md5auth.Key) (int, error) {
	return 0, ErrNotSupported
}

// DeleteListenerKey returns ErrNotSupported.
func (ProcessSockets) DeleteListenerKey(port uint16, k md5auth.Key) error { return ErrNotSupported }

// SetConnKey returns ErrNotSupported.
func (ProcessSockets) SetConnKey(local, remote netip.AddrPort, k md5auth.Key) error {
	return ErrNotSupported
}

// Observe returns ErrNotSupported: sock_diag is Linux's.
func (ProcessSockets) Observe(port uint16) (Observed, error) { return Observed{}, ErrNotSupported }

// Preflight returns ErrNotSupported.
func (ProcessSockets) Preflight() error { return ErrNotSupported }

// SetListenerAO returns ErrNotSupported.
func (ProcessSockets) SetListenerAO(port uint16, set AOSet) (int, error) { return 0, ErrNotSupported }

// DeleteListenerAO returns ErrNotSupported.
func (ProcessSockets) DeleteListenerAO(port uint16, p netip.Prefix) error { return ErrNotSupported }

// DeleteListenerAOScope returns ErrNotSupported.
func (ProcessSockets) DeleteListenerAOScope(port uint16, p netip.Prefix, ifindex int) error {
	return ErrNotSupported
}

// SetConnAO returns ErrNotSupported.
func (ProcessSockets) SetConnAO(local, remote netip.AddrPort, set AOSet) error {
	return ErrNotSupported
}

// ObserveAO returns ErrNotSupported.
func (ProcessSockets) ObserveAO(port uint16) ([]AOSocket, error) { return nil, ErrNotSupported }

// PreflightAO returns ErrNotSupported.
func (ProcessSockets) PreflightAO() error { return ErrNotSupported }

// DialMD5 returns ErrNotSupported.
func (ProcessSockets) DialMD5(rc syscall.RawConn, remote netip.AddrPort, k md5auth.Key) error {
	return ErrNotSupported
}

// DialAO returns ErrNotSupported.
func (ProcessSockets) DialAO(rc syscall.RawConn, remote netip.AddrPort, set AOSet) error {
	return ErrNotSupported
}
