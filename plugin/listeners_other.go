//go:build !linux

package plugin

import (
	"errors"
	"net/netip"
)

// ListenerSocket describes one of GoBGP's BGP listening sockets.
type ListenerSocket struct {
	Addr     netip.AddrPort
	Protocol int
}

// MPTCP reports a multipath TCP listener.
func (l ListenerSocket) MPTCP() bool { return l.Protocol == 262 }

// Listeners is only supported on Linux.
func (h *Host) Listeners() ([]ListenerSocket, error) {
	return nil, errors.New("plugin: listener inspection is not supported on this OS")
}

func (h *Host) checkListeners() error { return nil }
