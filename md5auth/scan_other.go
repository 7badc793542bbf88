//go:build !linux

package md5auth

import "net/netip"

// Scan returns a Scan whose every method returns ErrNotSupported.
func (ProcessSockets) Scan(port uint16) *Scan { return &Scan{port: port, err: ErrNotSupported} }

// ScanLight fails everywhere but on Linux.
func (ProcessSockets) ScanLight(port uint16) *Scan { return &Scan{port: port, err: ErrNotSupported} }

// SetListenerKey returns ErrNotSupported.
func (s *Scan) SetListenerKey(k Key) (int, error) { return 0, ErrNotSupported }

// DeleteListenerKey returns ErrNotSupported.
func (s *Scan) DeleteListenerKey(k Key) error { return ErrNotSupported }

// SetConnKey returns ErrNotSupported.
func (s *Scan) SetConnKey(local, remote netip.AddrPort, k Key) error { return ErrNotSupported }

// SetListenerAO returns ErrNotSupported.
func (s *Scan) SetListenerAO(set AOSet) (int, error) { return 0, ErrNotSupported }

// DeleteListenerAO returns ErrNotSupported.
func (s *Scan) DeleteListenerAO(p netip.Prefix) error { return ErrNotSupported }

// SetConnAO returns ErrNotSupported.
func (s *Scan) SetConnAO(local, remote netip.AddrPort, set AOSet) error { return ErrNotSupported }

// ObserveAO returns ErrNotSupported.
func (s *Scan) ObserveAO() ([]AOSocket, error) { return nil, ErrNotSupported }
