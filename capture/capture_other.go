//go:build !linux

package capture

import (
	"fmt"
	"net/netip"
	"runtime"
)

// Capture is a live capture. Outside Linux it cannot be opened.
type Capture struct{}

// Open returns an error wrapping ErrNotSupported: live capture needs Linux
// (AF_PACKET).
func Open(opts Options) (*Capture, error) {
	return nil, fmt.Errorf("%w (%s): it needs Linux AF_PACKET sockets", ErrNotSupported, runtime.GOOS)
}

// OpenFanout returns an error wrapping ErrNotSupported, as Open.
func OpenFanout(opts Options, n int) ([]*Capture, error) {
	_, err := Open(opts)
	return nil, err
}

// Next returns ErrNotSupported.
func (c *Capture) Next(fn func(pkt Packet)) error { return ErrNotSupported }

// NextBatch reports ErrNotSupported outside Linux.
func (c *Capture) NextBatch(fn func(pkt Packet), b Batcher) error { return ErrNotSupported }

// Stats returns ErrNotSupported.
func (c *Capture) Stats() (Stats, error) { return Stats{}, ErrNotSupported }

// Close does nothing.
func (c *Capture) Close() error { return nil }

// SetHosts returns ErrNotSupported.
func (c *Capture) SetHosts(hosts []netip.Addr) error { return ErrNotSupported }

// Hosts returns nil.
func (c *Capture) Hosts() []netip.Addr { return nil }

// InterfaceName returns ErrNotSupported.
func (c *Capture) InterfaceName(ifindex int) (string, error) { return "", ErrNotSupported }
