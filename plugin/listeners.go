package plugin

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"

	"github.com/authbgp/authbgpd/tcpsock"
)

// ListenerSocket describes one of GoBGP's BGP listening sockets.
type ListenerSocket struct {
	Addr     netip.AddrPort // bound address, unmapped
	Protocol int            // SO_PROTOCOL: 6 (TCP) or 262 (MPTCP)
}

// MPTCP reports a multipath TCP listener, on which TCP-MD5 cannot be set.
// It describes; checkListeners refuses such listeners through
// tcpsock.CheckListener.
func (l ListenerSocket) MPTCP() bool { return l.Protocol == tcpsock.ProtoMPTCP }

// Listeners finds GoBGP's BGP listeners among this process's sockets: the
// listening TCP sockets bound to the BGP port (Options.ListenPort, 179 for
// 0), through tcpsock's socket discovery (each descriptor identified on a
// duplicate, so a reused descriptor number is never mistaken for one).
func (h *Host) Listeners() ([]ListenerSocket, error) {
	socks, err := h.listenerSockets()
	if err != nil {
		return nil, err
	}
	out := make([]ListenerSocket, 0, len(socks))
	for _, s := range socks {
		out = append(out, ListenerSocket{Addr: s.Local, Protocol: s.Protocol})
		_ = s.Close()
	}
	return out, nil
}

// listenerSockets is Listeners' discovery; the caller closes the sockets.
func (h *Host) listenerSockets() ([]*tcpsock.Socket, error) {
	port := h.opts.ListenPort
	if port < 0 {
		return nil, nil
	}
	if port == 0 {
		port = 179
	}
	socks, err := tcpsock.FindListeners(uint16(port))
	if err != nil {
		return nil, fmt.Errorf("plugin: list sockets: %w", err)
	}
	return socks, nil
}

// checkListeners fails if a BGP listener is multipath TCP
// (tcpsock.CheckListener): TCP-MD5 keys cannot be installed there (GoBGP
// only warns), so signed SYNs would be dropped and authenticated sessions
// never come up. The error matches *tcpsock.MultipathError with errors.As.
func (h *Host) checkListeners() error {
	socks, err := h.listenerSockets()
	if errors.Is(err, tcpsock.ErrNotSupported) {
		return nil // no socket discovery on this OS
	}
	if err != nil {
		h.log.WithError(err).Warn("plugin: cannot check BGP listeners for multipath TCP")
		return nil
	}
	var bad mptcpListeners
	for _, s := range socks {
		if err := tcpsock.CheckListener(s); err != nil {
			bad.addrs = append(bad.addrs, s.Local.String())
			bad.errs = append(bad.errs, err)
		}
		_ = s.Close()
	}
	if len(bad.errs) > 0 {
		return &bad
	}
	if h.opts.ListenPort >= 0 && len(socks) == 0 {
		h.log.Warn("plugin: found no BGP listener socket to check")
	}
	return nil
}

// mptcpListeners is checkListeners' error: the multipath TCP listeners,
// with tcpsock.CheckListener's error for each.
type mptcpListeners struct {
	addrs []string
	errs  []error
}

func (e *mptcpListeners) Error() string {
	return "plugin: BGP listener(s) " + strings.Join(e.addrs, ", ") +
		" are multipath TCP, on which TCP-MD5 cannot work: build with `godebug multipathtcp=0` in go.mod (or //go:debug multipathtcp=0) and do not override it with GODEBUG"
}

// Unwrap returns tcpsock.CheckListener's errors (*tcpsock.MultipathError).
func (e *mptcpListeners) Unwrap() []error { return e.errs }
