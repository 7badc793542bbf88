//go:build linux

package tcpsock

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/md5auth"
)

// Socket is a TCP (or MPTCP) socket of this process, found without access
// to the object that owns it (GoBGP's listeners and connections).
//
// A Socket holds its own duplicate of the socket's file descriptor, made
// before the socket was identified: everything in the exported fields was
// read from that duplicate, and SetKey/DeleteKey act on it. So a Socket
// always refers to the socket it describes, even if the owner closes its
// descriptor and the number is reused by another socket: a stale Socket
// keeps keying the old socket, never the new one.
//
// Holding a Socket keeps the socket open (a listener keeps its port) until
// Close, so close it as soon as the key operations are done.
type Socket struct {
	Local     netip.AddrPort // local address, unmapped ([::]:179 for a dual-stack listener)
	Remote    netip.AddrPort // peer address, unmapped; zero for a listener
	Listening bool           // SO_ACCEPTCONN
	Family    int            // unix.AF_INET or unix.AF_INET6
	Protocol  int            // unix.IPPROTO_TCP or ProtoMPTCP (262)
	Inode     uint64         // socket inode ("socket:[inode]" in /proc/self/fd)
	// IfIndex is the interface of a link-local connection (the scope of
	// its peer's address, which Remote carries without zone); 0 otherwise.
	IfIndex int

	mu      sync.Mutex
	fd      int // our duplicate; -1 once closed
	cleanup runtime.Cleanup
}

// String describes the socket: "listener [::]:179",
// "connection 192.0.2.1:179->192.0.2.2:40123", with "mptcp " in front for
// a multipath TCP socket.
func (s *Socket) String() string {
	var b strings.Builder
	if s.Protocol == ProtoMPTCP {
		b.WriteString("mptcp ")
	}
	switch {
	case s.Listening:
		b.WriteString("listener " + s.Local.String())
	case s.Remote.IsValid() && !s.Local.IsValid():
		b.WriteString("socket dialing " + s.Remote.String())
	case s.Remote.IsValid():
		b.WriteString("connection " + s.Local.String() + "->" + s.Remote.String())
	default:
		b.WriteString("socket " + s.Local.String())
	}
	return b.String()
}

// SetKey installs k on the socket (see SetKeyFd).
func (s *Socket) SetKey(k md5auth.Key) error {
	if err := k.Validate(); err != nil {
		return err
	}
	return s.keyOp(k, true)
}

// DeleteKey removes the key with k's scope from the socket (see DeleteKeyFd).
func (s *Socket) DeleteKey(k md5auth.Key) error {
	if err := validateScope(k); err != nil {
		return err
	}
	return s.keyOp(k, false)
}

func (s *Socket) keyOp(k md5auth.Key, set bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fd < 0 {
		return &KeyError{Op: opName(set), Scope: k.Scope(), Socket: s.String(), Err: ErrSocketClosed}
	}
	return keyOp(s.fd, k, set, s.String())
}

// Close releases the duplicate descriptor. The socket itself stays open as
// long as its owner holds it. Close is idempotent.
func (s *Socket) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fd < 0 {
		return nil
	}
	s.cleanup.Stop()
	err := unix.Close(s.fd)
	s.fd = -1
	if err != nil {
		return fmt.Errorf("tcpsock: close duplicate of %s: %w", s.String(), err)
	}
	return nil
}

// FindListeners returns every listening TCP and MPTCP socket of this
// process on port (0: on any port), IPv4 and IPv6, whatever the local
// address. Each socket appears once, however many descriptors refer to it.
// No listener is not an error: the slice is empty. The caller must Close
// every returned Socket.
func FindListeners(port uint16) ([]*Socket, error) {
	return scan(func(s *Socket) bool {
		return s.Listening && (port == 0 || s.Local.Port() == port)
	}, false)
}

// FindConn returns the connected TCP socket of this process whose local
// and remote addresses are local and remote. Addresses are compared
// unmapped, so an IPv4 pair also finds a connection on an AF_INET6 socket
// (v4-mapped). A connection still in its listener's accept queue has no
// descriptor yet and is not found. If there is none, the error is a *NotFoundError matching
// ErrSocketNotFound. The caller must Close the Socket.
func FindConn(local, remote netip.AddrPort) (*Socket, error) {
	local, remote = normAddrPort(local), normAddrPort(remote)
	found, err := scan(func(s *Socket) bool {
		return !s.Listening && s.Remote.IsValid() && s.Local == local && s.Remote == remote
	}, true)
	if err != nil {
		return nil, err
	}
	if len(found) == 0 {
		return nil, &NotFoundError{Local: local, Remote: remote}
	}
	return found[0], nil
}

// ForEachListener calls fn for every listener FindListeners(port) finds and
// closes them afterwards (fn must not keep the *Socket). It goes on after a failing fn and returns the
// errors joined. Finding no listener is a *NotFoundError (ErrSocketNotFound).
func ForEachListener(port uint16, fn func(*Socket) error) error {
	list, err := FindListeners(port)
	if err != nil {
		return err
	}
	defer func() {
		for _, s := range list {
			_ = s.Close()
		}
	}()
	if len(list) == 0 {
		return &NotFoundError{Listener: true, Port: port}
	}
	var errs []error
	for _, s := range list {
		if err := fn(s); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func normAddrPort(ap netip.AddrPort) netip.AddrPort {
	return netip.AddrPortFrom(ap.Addr().Unmap().WithZone(""), ap.Port())
}

// procFdDir lists this process's descriptors (a variable for the tests
// of a walk that fails).
var procFdDir = "/proc/self/fd"

// socketFds calls fn for every descriptor of this process that was a
// socket when /proc/self/fd was read, with its inode (fstat's st_ino, the
// number its link names, "socket:[inode]"), until fn returns false. It is
// the one walk of /proc/self/fd: the descriptor may be closed, and its
// number reused, by the time fn runs, so the inode is a hint for
// filtering, never the identity of the descriptor (see identify). The
// names are read unsorted and each descriptor is asked with fstat, not
// through its /proc link: with thousands of sessions, reading the links
// was most of the walk.
func socketFds(fn func(fd int, inode uint64) bool) error {
	dir, err := os.Open(procFdDir)
	if err != nil {
		return fmt.Errorf("tcpsock: list sockets: %w", err)
	}
	names, err := dir.Readdirnames(-1)
	_ = dir.Close()
	if err != nil {
		return fmt.Errorf("tcpsock: list sockets: %w", err)
	}
	for _, name := range names {
		fd, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK {
			continue // closed meanwhile, or not a socket
		}
		if !fn(fd, st.Ino) {
			break
		}
	}
	return nil
}

// scan duplicates every socket descriptor of the process, identifies the
// duplicate and keeps those match accepts (one per inode). With first, it
// stops at the first match.
func scan(match func(*Socket) bool, first bool) ([]*Socket, error) {
	var out []*Socket
	seen := map[uint64]bool{}
	err := socketFds(func(fd int, _ uint64) bool {
		s := identify(fd)
		if s == nil {
			return true
		}
		if seen[s.Inode] || !match(s) {
			_ = s.Close()
			return true
		}
		seen[s.Inode] = true
		out = append(out, s)
		return !first
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// identify duplicates fd and describes the duplicate. It returns nil (and
// keeps nothing open) unless the duplicate is an IPv4/IPv6 TCP or MPTCP
// stream socket. The readlink of fd that led here is only a hint: fd may
// have been closed and its number reused since, so every fact, the inode
// too, is read from the duplicate, which is what a key would go on.
func identify(fd int) *Socket {
	dfd, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	keep := false
	defer func() {
		if !keep {
			_ = unix.Close(dfd)
		}
	}()
	var st unix.Stat_t
	if unix.Fstat(dfd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		return nil
	}
	geti := func(opt int) (int, bool) {
		v, err := unix.GetsockoptInt(dfd, unix.SOL_SOCKET, opt)
		return v, err == nil
	}
	if t, ok := geti(unix.SO_TYPE); !ok || t != unix.SOCK_STREAM {
		return nil
	}
	family, ok1 := geti(unix.SO_DOMAIN)
	proto, ok2 := geti(unix.SO_PROTOCOL)
	acc, ok3 := geti(unix.SO_ACCEPTCONN)
	if !ok1 || !ok2 || !ok3 ||
		(family != unix.AF_INET && family != unix.AF_INET6) ||
		(proto != unix.IPPROTO_TCP && proto != ProtoMPTCP) {
		return nil
	}
	local, err := sockAddrPort(unix.Getsockname(dfd))
	if err != nil {
		return nil
	}
	s := &Socket{
		Local:     local,
		Listening: acc != 0,
		Family:    family,
		Protocol:  proto,
		Inode:     st.Ino,
		fd:        dfd,
	}
	if !s.Listening {
		sa, err := unix.Getpeername(dfd)
		if remote, err := sockAddrPort(sa, err); err == nil {
			s.Remote = remote
		}
		if sa6, ok := sa.(*unix.SockaddrInet6); ok && err == nil && s.Remote.Addr().IsLinkLocalUnicast() {
			s.IfIndex = int(sa6.ZoneId)
		}
	}
	// A forgotten Socket must not keep the socket (and its port) open forever.
	s.cleanup = runtime.AddCleanup(s, func(fd int) { _ = unix.Close(fd) }, dfd)
	keep = true
	return s
}
