package tcpsock

import (
	"bytes"
	"crypto/fips140"
	"crypto/md5"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"os"
	"strings"
)

// This file holds the portable vocabulary of key installation, socket
// discovery and start-up preconditions: errors that callers match with
// errors.Is / errors.As on every OS, and the checks that need no syscalls.

// Errors of key installation and socket discovery.
var (
	// ErrNotSupported: this OS (or kernel) cannot put TCP-MD5 keys on sockets.
	ErrNotSupported = errors.New("tcpsock: TCP-MD5 keys are not supported on this system")
	// ErrFamilyMismatch: an IPv6 key cannot go on an IPv4 (AF_INET) socket.
	ErrFamilyMismatch = errors.New("address family of the key does not fit the socket")
	// ErrNotTCP: the file descriptor is not a TCP (or MPTCP) stream socket.
	ErrNotTCP = errors.New("not a TCP socket")
	// ErrListenKey marks ListenKeys' failures of single keys (the kernel
	// refused a peer's key or MKT): the socket itself could take keys.
	ErrListenKey = errors.New("a listener key refused")
	// ErrSocketNotFound is matched by every *NotFoundError.
	ErrSocketNotFound = errors.New("tcpsock: socket not found")
	// ErrKeyNotInstalled: a key to delete is not on the socket (ENOENT).
	ErrKeyNotInstalled = errors.New("no key with this scope is installed")
	// ErrSocketClosed: a *Socket was used after Close.
	ErrSocketClosed = errors.New("tcpsock: socket handle is closed")
	// ErrKeyMemory: the socket's option memory (net.core.optmem_max) is
	// full of keys. Every TCP-MD5 key of a socket counts against it (per
	// network namespace): the default 131072 holds about 960 keys.
	ErrKeyMemory = errors.New("no socket option memory left for another TCP-MD5 key (each key of a socket counts against net.core.optmem_max; raise it for a listener with many keyed peers: sysctl -w net.core.optmem_max=N)")
	// ErrScope: the kernel refused a key's L3 scope (Key.IfIndex,
	// AOKey.IfIndex): no device has that ifindex in the socket's network
	// namespace (the VRF is gone), or the device is not a VRF (L3 master).
	// Nothing is installed then, scoped or unscoped (fail closed). The
	// error also wraps the kernel's errno (EINVAL).
	ErrScope = errors.New("the key cannot be scoped to that ifindex")
)

// Errors of the start-up checks.
var (
	// ErrKernelFIPS: the kernel runs in FIPS mode and refuses TCP-MD5 keys.
	ErrKernelFIPS = errors.New("tcpsock: the kernel is in FIPS mode (/proc/sys/crypto/fips_enabled = 1), which disables TCP-MD5: keys cannot be installed")
	// ErrGoFIPS: this Go program runs with GODEBUG=fips140=only, in which
	// crypto/md5 refuses to hash (and panics on Sum).
	ErrGoFIPS = errors.New("tcpsock: Go runs with GODEBUG=fips140=only, which forbids MD5: RFC 2385 digests cannot be computed (drop fips140=only, or use fips140=on)")
)

// KeyError is the error of a failed key operation on a socket. Its message
// names the operation, the key's scope and the socket, never the secret;
// Unwrap gives the cause (a syscall.Errno, ErrFamilyMismatch, ...), so
// errors.Is(err, unix.ENOPROTOOPT) works.
type KeyError struct {
	Op     string // "set" or "delete"
	Scope  string // Key.Scope()
	Socket string // e.g. "listener [::]:179", "connection 192.0.2.1:179->192.0.2.2:40123"
	Err    error
}

func (e *KeyError) Error() string {
	cause := "unknown error"
	if e.Err != nil {
		cause = strings.TrimPrefix(e.Err.Error(), "tcpsock: ")
	}
	return fmt.Sprintf("tcpsock: %s key for %s on %s: %s", e.Op, e.Scope, e.Socket, cause)
}

// Unwrap returns the cause.
func (e *KeyError) Unwrap() error { return e.Err }

// NotFoundError says that no socket of this process matched a search.
// It matches ErrSocketNotFound with errors.Is.
type NotFoundError struct {
	// What was searched: a listener on Port, or a connection Local->Remote.
	Listener      bool
	Port          uint16
	Local, Remote netip.AddrPort
}

func (e *NotFoundError) Error() string {
	if e.Listener {
		return fmt.Sprintf("tcpsock: socket not found: no TCP listener of this process on port %d", e.Port)
	}
	return fmt.Sprintf("tcpsock: socket not found: no connected TCP socket of this process from %s to %s", e.Local, e.Remote)
}

// Is makes errors.Is(err, ErrSocketNotFound) true.
func (e *NotFoundError) Is(target error) bool { return target == ErrSocketNotFound }

// MultipathError says that a socket is multipath TCP (IPPROTO_MPTCP, 262).
// Linux MPTCP sockets do not support TCP_MD5SIG (setsockopt fails with
// ENOPROTOOPT), so a signed peer can never connect to such a listener.
// Go ≥ 1.24 makes listeners MPTCP by default; the cure is
// `godebug multipathtcp=0` in go.mod (or `//go:debug multipathtcp=0` in
// package main).
type MultipathError struct {
	Local netip.AddrPort // the socket's local address ([::]:179 for a listener)
	Err   error          // the setsockopt error, when a key operation failed; may be nil
}

func (e *MultipathError) Error() string {
	what := "listeners created with a default net.ListenConfig in this process are"
	if e.Local.IsValid() {
		what = "socket " + e.Local.String() + " is"
	}
	s := "tcpsock: " + what + " multipath TCP (IPPROTO_MPTCP), which does not support TCP-MD5, so signed peers cannot connect: put `godebug multipathtcp=0` in go.mod (or `//go:debug multipathtcp=0` in package main), or create listeners with net.ListenConfig.SetMultipathTCP(false)"
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the setsockopt error, if any (ENOPROTOOPT).
func (e *MultipathError) Unwrap() error { return e.Err }

// ProtoMPTCP is IPPROTO_MPTCP, the SO_PROTOCOL of a multipath TCP socket.
const ProtoMPTCP = 262

// CheckListener returns a *MultipathError if s is a multipath TCP socket,
// on which TCP-MD5 keys cannot be installed. It returns nil for a plain TCP
// socket. It is the one multipath check of authbgpd: ProcessSockets
// checks every listener with it before keying it, the plugin checks
// GoBGP's listeners with it at start, and a key operation that the kernel
// refuses on a multipath socket (ENOPROTOOPT) is reported by the same
// test, with the same error.
func CheckListener(s *Socket) error {
	if s == nil {
		return errors.New("tcpsock: CheckListener: nil socket")
	}
	return multipath(s.Protocol, s.Local, nil)
}

// multipath returns a *MultipathError for a socket at local whose
// SO_PROTOCOL is proto if it is multipath TCP, nil otherwise. cause is the
// error of the key operation that failed on it, if any.
func multipath(proto int, local netip.AddrPort, cause error) error {
	if proto != ProtoMPTCP {
		return nil
	}
	return &MultipathError{Local: local, Err: cause}
}

// KernelFIPSPath is where CheckKernelFIPS reads the kernel's FIPS flag.
// Tests may point it at a file of their own.
var KernelFIPSPath = "/proc/sys/crypto/fips_enabled"

// CheckKernelFIPS returns ErrKernelFIPS if the kernel runs in FIPS mode
// (KernelFIPSPath holds "1"). A missing file means a kernel without FIPS
// support: nil. Any other read failure is returned as is.
func CheckKernelFIPS() error {
	b, err := os.ReadFile(KernelFIPSPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("tcpsock: cannot tell whether the kernel is in FIPS mode: %w", err)
	}
	switch v := string(bytes.TrimSpace(b)); v {
	case "0", "":
		return nil
	case "1":
		return ErrKernelFIPS
	default:
		return fmt.Errorf("tcpsock: unexpected content %q in %s (want 0 or 1)", v, KernelFIPSPath)
	}
}

// CheckGoFIPS returns ErrGoFIPS if Go's strict FIPS 140-3 mode
// (GODEBUG=fips140=only) is enforced, in which crypto/md5 refuses to work.
// Besides asking crypto/fips140, it probes MD5 itself (recovering from the
// panic that Sum raises in that mode), so it also catches future modes
// that forbid MD5.
func CheckGoFIPS() error {
	if fips140.Enforced() {
		return ErrGoFIPS
	}
	return probeMD5()
}

func probeMD5() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w (MD5 probe panicked: %v)", ErrGoFIPS, r)
		}
	}()
	h := md5.New()
	if _, werr := h.Write([]byte("abc")); werr != nil {
		return fmt.Errorf("%w (MD5 probe: %v)", ErrGoFIPS, werr)
	}
	const want = "\x90\x01\x50\x98\x3c\xd2\x4f\xb0\xd6\x96\x3f\x7d\x28\xe1\x7f\x72" // MD5("abc")
	if got := string(h.Sum(nil)); got != want {
		return fmt.Errorf("%w (MD5 probe returned a wrong digest)", ErrGoFIPS)
	}
	return nil
}

// Preflight checks that this process can use TCP-MD5 at all: the kernel is
// not in FIPS mode, Go is not in fips140=only mode, and the kernel accepts
// TCP-MD5 keys (CheckKernelMD5). Every failed check is reported, joined
// with errors.Join; each matches its sentinel with errors.Is.
//
// Preflight does not check listeners (see CheckListener).
func Preflight() error {
	kernel := CheckKernelFIPS()
	var probe error
	if kernel == nil {
		// In FIPS mode the probe fails too; say it once.
		probe = CheckKernelMD5()
	}
	return errors.Join(kernel, CheckGoFIPS(), probe)
}
