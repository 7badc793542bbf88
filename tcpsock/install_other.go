//go:build !linux

package tcpsock

import (
	"syscall"

	"github.com/authbgp/authbgpd/md5auth"
)

// SetKeyFd installs k on socket fd. Only Linux is supported: elsewhere it
// returns ErrNotSupported (after validating k).
func SetKeyFd(fd int, k md5auth.Key) error {
	if err := k.Validate(); err != nil {
		return err
	}
	return ErrNotSupported
}

// DeleteKeyFd removes the key with k's scope from socket fd. Only Linux is
// supported: elsewhere it returns ErrNotSupported.
func DeleteKeyFd(fd int, k md5auth.Key) error { return ErrNotSupported }

// SetKey installs k on the socket behind rc. Only Linux is supported:
// elsewhere it returns ErrNotSupported (after validating k).
func SetKey(rc syscall.RawConn, k md5auth.Key) error {
	if err := k.Validate(); err != nil {
		return err
	}
	return ErrNotSupported
}

// DeleteKey removes the key with k's scope from the socket behind rc. Only
// Linux is supported: elsewhere it returns ErrNotSupported.
func DeleteKey(rc syscall.RawConn, k md5auth.Key) error { return ErrNotSupported }
