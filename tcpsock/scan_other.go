//go:build !linux

package tcpsock

import (
	"net/netip"

	"github.com/authbgp/authbgpd/md5auth"
)

// Scan returns a Scan whose every method returns ErrNotSupported.
func (ProcessSockets) Scan(port uint16) *Scan { return &Scan{port: port, err: ErrNotSupported} }

// ScanLight fails everywhere but on Linux.
func (ProcessSockets) ScanLight(port uint16) *Scan { return &Scan{port: port, err: ErrNotSupported} }

// SetListenerKey returns ErrNotSupported.
func (s *Scan) SetListenerKey(k md5auth.Key) (int, error) { return 0, ErrNotSupported }

// DeleteListenerKey returns ErrNotSupported.
func (s *Scan) DeleteListenerKey(k md5auth.Key) error { return ErrNotSupported }

// SetConnKey returns ErrNotSupported.
func (s *Scan) SetConnKey(local, remote netip.AddrPort, k md5auth.Key) error { return ErrNotSupported }

// SetListenerAO returns ErrNotSupported.
func (s *Scan) SetListenerAO(set AOSet) (int, error) { return 0, ErrNotSupported }

// DeleteListenerAO returns ErrNotSupported.
func (s *Scan) DeleteListenerAO(p netip.Prefix) error { return ErrNotSupported }

// DeleteListenerAOScope returns ErrNotSupported.
func (s *Scan) DeleteListenerAOScope(p netip.Prefix, ifindex int) error { return ErrNotSupported }

// SetConnAO returns ErrNotSupported.
func (s *Scan) SetConnAO(local, remote netip.AddrPort, set AOSet) error { return ErrNotSupported }

// ObserveAO returns ErrNotSupported.
func (s *Scan) ObserveAO() ([]AOSocket, error) { return nil, ErrNotSupported }

// SetListenerGuards is not available here.
func (s *Scan) SetListenerGuards([]Guard) error { return errNoGuards }
