//go:build linux

package tcpsock

import (
	"errors"
	"fmt"
	"net/netip"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/keys"
	"github.com/authbgp/authbgpd/md5auth"
)

// SetKeyFd installs k on the TCP socket fd with setsockopt(IPPROTO_TCP,
// TCP_MD5SIG_EXT): a prefix key carries TCP_MD5SIG_FLAG_PREFIX, a key with
// an IfIndex carries TCP_MD5SIG_FLAG_IFINDEX and the ifindex. Installing a
// key for a scope that already has one replaces it (also on an established
// connection). The scope is (address, prefix length, ifindex): a key scoped
// to a VRF and an unscoped key for the same address are two keys, each
// set and deleted on its own.
//
// An ifindex the kernel refuses (no such device in the socket's namespace,
// or not a VRF) fails with an error matching ErrScope and unix.EINVAL that
// names the ifindex and what it is; nothing is installed, and no unscoped
// key is tried instead.
//
// The socket's family decides the address form: an IPv4 key on an AF_INET6
// socket (a dual-stack listener, or a socket connected to an IPv4 peer) is
// installed as the v4-mapped address ::ffff:a.b.c.d — the kernel then takes
// the prefix length in IPv4 bits (it rejects more than 32 for a mapped
// address). An IPv6 key on an AF_INET socket is ErrFamilyMismatch.
//
// Errors are *KeyError (never containing the secret) wrapping the cause:
// the syscall.Errno, ErrFamilyMismatch, or *MultipathError when the socket
// is multipath TCP (ENOPROTOOPT).
func SetKeyFd(fd int, k md5auth.Key) error {
	if err := k.Validate(); err != nil {
		return err
	}
	return keyOp(fd, k, true, "")
}

// DeleteKeyFd removes the key with k's scope (prefix, prefix length and
// ifindex; the secret is ignored) from socket fd. Deleting a key that is
// not installed fails with an error matching both ErrKeyNotInstalled and
// unix.ENOENT. A key scoped to a VRF that has since been deleted cannot be
// deleted (the kernel looks the device up first): that fails with ErrScope;
// the key stays on the socket, matching no segment.
func DeleteKeyFd(fd int, k md5auth.Key) error {
	if err := validateScope(k); err != nil {
		return err
	}
	return keyOp(fd, k, false, "")
}

// SetKey installs k on the socket behind rc (from SyscallConn of a
// net.TCPListener or net.TCPConn, or the RawConn given to a Dialer's or
// ListenConfig's Control function, so that a dialed SYN is signed). See
// SetKeyFd.
func SetKey(rc syscall.RawConn, k md5auth.Key) error {
	if err := k.Validate(); err != nil {
		return err
	}
	return rawKeyOp(rc, k, true)
}

// DeleteKey removes the key with k's scope from the socket behind rc. See
// DeleteKeyFd.
func DeleteKey(rc syscall.RawConn, k md5auth.Key) error {
	if err := validateScope(k); err != nil {
		return err
	}
	return rawKeyOp(rc, k, false)
}

func rawKeyOp(rc syscall.RawConn, k md5auth.Key, set bool) error {
	if rc == nil {
		return &KeyError{Op: opName(set), Scope: k.Scope(), Socket: "nil RawConn", Err: syscall.EINVAL}
	}
	var opErr error
	err := rc.Control(func(fd uintptr) { opErr = keyOp(int(fd), k, set, "") })
	if err != nil {
		return &KeyError{Op: opName(set), Scope: k.Scope(), Socket: "socket", Err: err}
	}
	return opErr
}

// validateScope validates k for a delete, where the secret does not matter.
func validateScope(k md5auth.Key) error {
	k.Secret = keys.Secret{0}
	return k.Validate()
}

func opName(set bool) string {
	if set {
		return "set"
	}
	return "delete"
}

// keyOp sets or deletes k on fd. desc describes the socket for errors;
// when empty it is worked out from fd.
func keyOp(fd int, k md5auth.Key, set bool, desc string) error {
	fail := func(err error) error {
		if desc == "" {
			desc = describeFd(fd)
		}
		return &KeyError{Op: opName(set), Scope: k.Scope(), Socket: desc, Err: err}
	}
	family, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_DOMAIN)
	if err != nil {
		return fail(fmt.Errorf("%w: %w", ErrNotTCP, err))
	}
	proto, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_PROTOCOL)
	if err != nil {
		return fail(fmt.Errorf("%w: %w", ErrNotTCP, err))
	}
	if proto != unix.IPPROTO_TCP && proto != ProtoMPTCP {
		return fail(fmt.Errorf("%w (protocol %d)", ErrNotTCP, proto))
	}
	sig, err := md5sig(family, k)
	if err != nil {
		return fail(err)
	}
	if set {
		sig.Keylen = uint16(copy(sig.Key[:], k.Secret))
	}
	err = unix.SetsockoptTCPMD5Sig(fd, unix.IPPROTO_TCP, unix.TCP_MD5SIG_EXT, sig)
	clear(sig.Key[:])
	if err == nil {
		return nil
	}
	if errors.Is(err, unix.EINVAL) && k.IfIndex != 0 {
		return fail(scopeError(fd, k.IfIndex, "TCP-MD5", !set, err))
	}
	return fail(classify(fd, err, set))
}

// md5sig builds the tcp_md5sig for k on a socket of family (no secret yet).
func md5sig(family int, k md5auth.Key) (*unix.TCPMD5Sig, error) {
	p := k.Prefix
	if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
		p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
	}
	p = p.Masked() // the kernel matches prefix keys on the exact address given
	a := p.Addr()
	bits := p.Bits()
	sig := &unix.TCPMD5Sig{}
	switch family {
	case unix.AF_INET:
		if !a.Is4() {
			return nil, fmt.Errorf("%w: an IPv6 key cannot go on an IPv4 (AF_INET) socket", ErrFamilyMismatch)
		}
		sa := (*unix.RawSockaddrInet4)(sockaddrPtr(&sig.Addr))
		sa.Family = unix.AF_INET
		sa.Addr = a.As4()
	case unix.AF_INET6:
		// An IPv4 key becomes ::ffff:a.b.c.d. The kernel stores it as an
		// IPv4 key and reads the prefix length in IPv4 bits (<= 32).
		sa := (*unix.RawSockaddrInet6)(sockaddrPtr(&sig.Addr))
		sa.Family = unix.AF_INET6
		sa.Addr = a.As16() // As16 of an IPv4 address is its v4-mapped form
	default:
		return nil, fmt.Errorf("%w (address family %d)", ErrNotTCP, family)
	}
	if bits < a.BitLen() {
		sig.Flags |= unix.TCP_MD5SIG_FLAG_PREFIX
		sig.Prefixlen = uint8(bits)
	}
	if k.IfIndex != 0 {
		sig.Flags |= unix.TCP_MD5SIG_FLAG_IFINDEX
		sig.Ifindex = int32(k.IfIndex)
	}
	return sig, nil
}

// classify adds meaning to a setsockopt errno, keeping the errno in the chain.
func classify(fd int, err error, set bool) error {
	switch {
	case errors.Is(err, unix.ENOPROTOOPT), errors.Is(err, unix.EOPNOTSUPP):
		if proto, perr := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_PROTOCOL); perr == nil {
			local, _ := sockAddrPort(unix.Getsockname(fd))
			if merr := multipath(proto, local, err); merr != nil {
				return merr
			}
		}
		if errors.Is(err, unix.EOPNOTSUPP) && CheckKernelFIPS() != nil {
			return fmt.Errorf("%w: %w", ErrKernelFIPS, err)
		}
		if errors.Is(err, unix.ENOPROTOOPT) {
			return fmt.Errorf("%w (kernel built without CONFIG_TCP_MD5SIG?): %w", ErrNotSupported, err)
		}
	case errors.Is(err, unix.ENOENT) && !set:
		return fmt.Errorf("%w: %w", ErrKeyNotInstalled, err)
	case errors.Is(err, unix.EINVAL):
		// A scoped key's EINVAL is explained by scopeError before this.
		return fmt.Errorf("%w (the kernel rejected the key's scope)", err)
	case errors.Is(err, unix.ENOMEM) && set:
		return fmt.Errorf("%w: %w", ErrKeyMemory, err)
	case errors.Is(err, unix.ENOTSOCK), errors.Is(err, unix.EBADF):
		return fmt.Errorf("%w: %w", ErrNotTCP, err)
	}
	return err
}

// describeFd says what fd is, for error messages: "listener [::]:179",
// "connection 192.0.2.1:40000->192.0.2.2:179", "socket 0.0.0.0:0" or "fd 7".
func describeFd(fd int) string {
	local, err := sockAddrPort(unix.Getsockname(fd))
	if err != nil {
		return fmt.Sprintf("fd %d", fd)
	}
	if acc, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ACCEPTCONN); err == nil && acc != 0 {
		return "listener " + local.String()
	}
	if remote, err := sockAddrPort(unix.Getpeername(fd)); err == nil {
		return "connection " + local.String() + "->" + remote.String()
	}
	return "socket " + local.String()
}

// sockAddrPort converts a getsockname/getpeername result. The address is
// unmapped (a v4-mapped address becomes IPv4).
func sockAddrPort(sa unix.Sockaddr, err error) (netip.AddrPort, error) {
	if err != nil {
		return netip.AddrPort{}, err
	}
	switch sa := sa.(type) {
	case *unix.SockaddrInet4:
		return netip.AddrPortFrom(netip.AddrFrom4(sa.Addr), uint16(sa.Port)), nil
	case *unix.SockaddrInet6:
		return netip.AddrPortFrom(netip.AddrFrom16(sa.Addr).Unmap(), uint16(sa.Port)), nil
	}
	return netip.AddrPort{}, ErrNotTCP
}

func sockaddrPtr(ss *unix.SockaddrStorage) unsafe.Pointer { return unsafe.Pointer(ss) }
