//go:build !linux

package tcpsock

import (
	"net/netip"
	"syscall"

	"github.com/authbgp/authbgpd/md5auth"
)

// Preflight returns ErrNotSupported.
func (ProcessSockets) Preflight() error { return ErrNotSupported }

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

// ListenKeys returns ErrNotSupported when there is a key to set.
func (ProcessSockets) ListenKeys(rc syscall.RawConn, local netip.AddrPort, md5 []md5auth.Key, ao []AOSet) error {
	if len(md5) == 0 && len(ao) == 0 {
		return nil
	}
	return ErrNotSupported
}
