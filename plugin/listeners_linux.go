//go:build linux

package plugin

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// protoMPTCP is IPPROTO_MPTCP, what SO_PROTOCOL says for a multipath TCP
// socket (Go >= 1.24 listens with it unless GODEBUG multipathtcp=0).
const protoMPTCP = 262

// ListenerSocket describes one of GoBGP's BGP listening sockets.
type ListenerSocket struct {
	Addr     netip.AddrPort // bound address, unmapped
	Protocol int            // SO_PROTOCOL: 6 (TCP) or 262 (MPTCP)
}

// MPTCP reports a multipath TCP listener, on which TCP-MD5 cannot be set.
func (l ListenerSocket) MPTCP() bool { return l.Protocol == protoMPTCP }

// Listeners finds GoBGP's BGP listeners among this process's sockets: the
// listening TCP sockets bound to the BGP port (Options.ListenPort, 179 for
// 0). Each descriptor found in /proc/self/fd is duplicated first and
// identified on the duplicate, so a descriptor number reused meanwhile
// cannot be mistaken for a listener.
func (h *Host) Listeners() ([]ListenerSocket, error) {
	port := h.opts.ListenPort
	if port < 0 {
		return nil, nil
	}
	if port == 0 {
		port = 179
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil, fmt.Errorf("plugin: list sockets: %w", err)
	}
	var out []ListenerSocket
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		link, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err != nil || !strings.HasPrefix(link, "socket:") {
			continue
		}
		dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
		if err != nil {
			continue // closed meanwhile
		}
		ls, ok := identifyListener(dup, uint16(port))
		unix.Close(dup)
		if ok {
			out = append(out, ls)
		}
	}
	return out, nil
}

func identifyListener(fd int, port uint16) (ListenerSocket, bool) {
	if v, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE); err != nil || v != unix.SOCK_STREAM {
		return ListenerSocket{}, false
	}
	if v, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ACCEPTCONN); err != nil || v != 1 {
		return ListenerSocket{}, false
	}
	proto, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_PROTOCOL)
	if err != nil || (proto != unix.IPPROTO_TCP && proto != protoMPTCP) {
		return ListenerSocket{}, false
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		return ListenerSocket{}, false
	}
	var ap netip.AddrPort
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		ap = netip.AddrPortFrom(netip.AddrFrom4(a.Addr), uint16(a.Port))
	case *unix.SockaddrInet6:
		ap = netip.AddrPortFrom(netip.AddrFrom16(a.Addr).Unmap(), uint16(a.Port))
	default:
		return ListenerSocket{}, false
	}
	if ap.Port() != port {
		return ListenerSocket{}, false
	}
	return ListenerSocket{Addr: ap, Protocol: proto}, true
}

// checkListeners fails if a BGP listener is multipath TCP: TCP-MD5 keys
// cannot be installed there (GoBGP only warns), so signed SYNs would be
// dropped and authenticated sessions never come up.
func (h *Host) checkListeners() error {
	ls, err := h.Listeners()
	if err != nil {
		h.log.WithError(err).Warn("plugin: cannot check BGP listeners for multipath TCP")
		return nil
	}
	var bad []string
	for _, l := range ls {
		if l.MPTCP() {
			bad = append(bad, l.Addr.String())
		}
	}
	if len(bad) > 0 {
		return errors.New("plugin: BGP listener(s) " + strings.Join(bad, ", ") +
			" are multipath TCP, on which TCP-MD5 cannot work: build with `godebug multipathtcp=0` in go.mod (or //go:debug multipathtcp=0) and do not override it with GODEBUG")
	}
	if h.opts.ListenPort >= 0 && len(ls) == 0 {
		h.log.Warn("plugin: found no BGP listener socket to check")
	}
	return nil
}
