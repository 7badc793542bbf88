package tcpsock

import (
	"bytes"
	"errors"
	"fmt"
	"net/netip"
	"time"

	"golang.org/x/sys/unix"
)

// probePrefix is the peer of the probe's throwaway key (TEST-NET-1; the
// socket never connects).
var probePrefix = netip.MustParsePrefix("192.0.2.1/32")

// ProbeAOAlgorithms asks the running kernel which TCP-AO algorithms it
// accepts: for each of tcpao.Algorithms a fresh TCP socket, TCP_AO_ADD_KEY
// with the algorithm's kernel name ("hmac(sha256)", "cmac(aes128)") and a
// throwaway key, then close. A kernel without TCP-AO answers the first
// with ENOPROTOOPT (Err is ErrNoTCPAO); Linux 6.12 refuses an algorithm its
// crypto API lacks with ENOENT. No capability is needed.
func ProbeAOAlgorithms() AOAlgorithms {
	start := time.Now()
	a := probeAO(KernelRelease(), ProbeAOAlgorithm)
	a.Took = time.Since(start)
	return a
}

// ProbeAOAlgorithm asks the kernel whether it takes a TCP-AO key of the
// algorithm it calls name ("hmac(sha512)"), on a throwaway socket: nil if
// it does; an error wrapping ErrNoTCPAO when the kernel has no TCP-AO; one
// wrapping errAOProbe when the question could not be asked (no socket, no
// memory, a sandbox refusing the call); else the kernel's refusal (its
// errno, named).
func ProbeAOAlgorithm(name string) error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, unix.IPPROTO_TCP)
	if err != nil {
		return fmt.Errorf("%w: socket: %w", errAOProbe, err)
	}
	defer unix.Close(fd)
	var b [aoAddSize]byte
	k := AOKey{Prefix: probePrefix, Alg: name, Secret: probeSecret, SendID: probeKeyID, RecvID: probeKeyID}
	if err := encodeAOAdd(&b, afInet, k, false, false); err != nil {
		return fmt.Errorf("%w: %w", errAOProbe, err)
	}
	return classifyProbe(setsockoptBytes(fd, tcpAOAddKey, b[:]))
}

// classifyProbe sorts TCP_AO_ADD_KEY's answer to the probe (see
// ProbeAOAlgorithm).
func classifyProbe(err error) error {
	var e unix.Errno
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.ENOPROTOOPT):
		return fmt.Errorf("%w: %w", ErrNoTCPAO, err)
	case !errors.As(err, &e):
		return fmt.Errorf("%w: %w", errAOProbe, err)
	}
	switch e {
	case unix.ENOMEM, unix.ENOBUFS, unix.ENOSPC, unix.EINTR, unix.EAGAIN, unix.EPERM, unix.EACCES, unix.EBADF:
		// Not an answer about the algorithm: resources, or a sandbox
		// (seccomp) refusing the call.
		return fmt.Errorf("%w: %s (%w)", errAOProbe, unix.ErrnoName(e), e)
	}
	return fmt.Errorf("%s (%w)", unix.ErrnoName(e), e)
}

// KernelRelease is the running kernel's release (uname -r), "" if unknown.
func KernelRelease() string {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return ""
	}
	r, _, _ := bytes.Cut(u.Release[:], []byte{0})
	return string(r)
}
