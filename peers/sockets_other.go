//go:build !linux

package peers

import (
	"net/netip"

	"github.com/authbgp/authbgpd/md5auth"
)

// SystemSockets keys the real sockets of this process (Linux only).
type SystemSockets struct{}

func (SystemSockets) SetListenerKey(uint16, md5auth.Key) (int, error) {
	return 0, md5auth.ErrNotSupported
}
func (SystemSockets) DeleteListenerKey(uint16, md5auth.Key) error { return md5auth.ErrNotSupported }
func (SystemSockets) SetConnKey(netip.AddrPort, netip.AddrPort, md5auth.Key) error {
	return md5auth.ErrNotSupported
}
func (SystemSockets) Preflight() error                 { return md5auth.ErrNotSupported }
func (SystemSockets) Observe(uint16) (Observed, error) { return Observed{}, md5auth.ErrNotSupported }
