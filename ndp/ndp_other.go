//go:build !linux

package ndp

import "net/netip"

// Resolve is Linux only; elsewhere it returns ErrUnsupported.
func Resolve(ifname string) (netip.Addr, error) { return netip.Addr{}, ErrUnsupported }

// Advertiser is Linux only.
type Advertiser struct{}

// NewAdvertiser is Linux only; elsewhere it returns ErrUnsupported.
func NewAdvertiser(opts Options) (*Advertiser, error) { return nil, ErrUnsupported }

// Set does nothing.
func (a *Advertiser) Set(ifnames []string) {}

// Kick does nothing.
func (a *Advertiser) Kick(ifname string) {}

// State returns nothing.
func (a *Advertiser) State() map[string]IfState { return nil }

// Close does nothing.
func (a *Advertiser) Close() error { return nil }
