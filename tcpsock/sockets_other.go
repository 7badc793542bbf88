//go:build !linux

package tcpsock

import (
	"net/netip"

	"github.com/authbgp/authbgpd/md5auth"
)

// Socket is a TCP socket of this process found by FindListeners or
// FindConn. Socket discovery is supported on Linux only; elsewhere no
// Socket is ever returned and its methods return ErrNotSupported.
type Socket struct {
	Local     netip.AddrPort // local address, unmapped
	Remote    netip.AddrPort // peer address, unmapped; zero for a listener
	Listening bool           // SO_ACCEPTCONN
	Family    int            // AF_INET or AF_INET6
	Protocol  int            // IPPROTO_TCP or ProtoMPTCP (262)
	Inode     uint64         // socket inode
}

// String describes the socket.
func (s *Socket) String() string {
	switch {
	case s.Listening:
		return "listener " + s.Local.String()
	case s.Remote.IsValid():
		return "connection " + s.Local.String() + "->" + s.Remote.String()
	}
	return "socket " + s.Local.String()
}

// SetKey returns ErrNotSupported.
func (s *Socket) SetKey(k md5auth.Key) error { return ErrNotSupported }

// DeleteKey returns ErrNotSupported.
func (s *Socket) DeleteKey(k md5auth.Key) error { return ErrNotSupported }

// Close does nothing.
func (s *Socket) Close() error { return nil }

// FindListeners returns ErrNotSupported: socket discovery needs Linux.
func FindListeners(port uint16) ([]*Socket, error) { return nil, ErrNotSupported }

// FindConn returns ErrNotSupported: socket discovery needs Linux.
func FindConn(local, remote netip.AddrPort) (*Socket, error) { return nil, ErrNotSupported }

// ForEachListener returns ErrNotSupported: socket discovery needs Linux.
func ForEachListener(port uint16, fn func(*Socket) error) error { return ErrNotSupported }
