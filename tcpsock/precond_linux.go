//go:build linux

package tcpsock

import (
	"fmt"
	"net/netip"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/md5auth"
)

// probeKey is what CheckKernelMD5 installs on a throw-away socket that is
// never bound nor connected.
var probeKey = md5auth.AddrKey(netip.AddrFrom4([4]byte{192, 0, 2, 1}), []byte("authbgpd-probe"))

// CheckKernelMD5 checks that the kernel accepts TCP-MD5 keys, by setting
// one on a fresh, unconnected TCP socket and closing it. A kernel without
// CONFIG_TCP_MD5SIG gives an error matching ErrNotSupported, a kernel in
// FIPS mode one matching ErrKernelFIPS.
func CheckKernelMD5() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, unix.IPPROTO_TCP)
	if err != nil {
		return fmt.Errorf("tcpsock: kernel TCP-MD5 probe: create a TCP socket: %w", err)
	}
	defer unix.Close(fd)
	if err := keyOp(fd, probeKey, true, "probe socket"); err != nil {
		return fmt.Errorf("tcpsock: the kernel refuses TCP-MD5 keys: %w", err)
	}
	return nil
}
