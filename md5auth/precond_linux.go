//go:build linux

package md5auth

import (
	"fmt"
	"net"
	"net/netip"

	"golang.org/x/sys/unix"
)

// probeKey is what CheckKernelMD5 installs on a throw-away socket that is
// never bound nor connected.
var probeKey = AddrKey(netip.AddrFrom4([4]byte{192, 0, 2, 1}), []byte("authbgpd-probe"))

// CheckKernelMD5 checks that the kernel accepts TCP-MD5 keys, by setting
// one on a fresh, unconnected TCP socket and closing it. A kernel without
// CONFIG_TCP_MD5SIG gives an error matching ErrNotSupported, a kernel in
// FIPS mode one matching ErrKernelFIPS.
func CheckKernelMD5() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, unix.IPPROTO_TCP)
	if err != nil {
		return fmt.Errorf("md5auth: kernel TCP-MD5 probe: create a TCP socket: %w", err)
	}
	defer unix.Close(fd)
	if err := keyOp(fd, probeKey, true, "probe socket"); err != nil {
		return fmt.Errorf("md5auth: the kernel refuses TCP-MD5 keys: %w", err)
	}
	return nil
}

// CheckMultipathDefault returns a *MultipathError (with a zero Local) if
// listeners created by this process with a default net.ListenConfig (as
// GoBGP creates its listeners) would be multipath TCP: Go's default (Go ≥
// 1.24, unless GODEBUG multipathtcp=0) and a kernel that accepts MPTCP
// sockets (CONFIG_MPTCP and net.mptcp.enabled=1). TCP-MD5 keys cannot be
// installed on such listeners.
func CheckMultipathDefault() error {
	var lc net.ListenConfig
	if !lc.MultipathTCP() {
		return nil
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, ProtoMPTCP)
	if err != nil {
		return nil // no MPTCP in this kernel or namespace: Go falls back to TCP
	}
	_ = unix.Close(fd)
	return &MultipathError{}
}
