package tcpsock

import (
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// tcpAOInfo is TCP_AO_INFO (include/uapi/linux/tcp.h).

// ErrNoTCPAO reports a kernel built without TCP-AO (CONFIG_TCP_AO).
var ErrNoTCPAO = errors.New("tcpsock: the kernel has no TCP-AO (RFC 5925) support (CONFIG_TCP_AO)")

// ErrNoVRF reports a kernel without VRF devices (CONFIG_NET_VRF): keys
// scoped by ifindex to a VRF cannot be used.
var ErrNoVRF = errors.New("tcpsock: the kernel has no VRF devices (CONFIG_NET_VRF)")

// CheckTCPAO probes the kernel for TCP-AO: a kernel without it does not
// know the TCP_AO_INFO socket option (ENOPROTOOPT).
func CheckTCPAO() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, unix.IPPROTO_TCP)
	if err != nil {
		return fmt.Errorf("tcpsock: probe TCP-AO: %w", err)
	}
	defer unix.Close(fd)
	if _, err := unix.GetsockoptString(fd, unix.IPPROTO_TCP, tcpAOInfo); errors.Is(err, unix.ENOPROTOOPT) {
		return ErrNoTCPAO
	}
	return nil
}

// CheckVRF probes the kernel for VRF devices by creating one in a
// throw-away network namespace (on a thread the runtime then discards):
// "Unknown device type" (EOPNOTSUPP) means no VRF support.
func CheckVRF() error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread's namespace changes
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			errc <- fmt.Errorf("tcpsock: probe VRF: unshare: %w", err)
			return
		}
		errc <- newVRF("authbgpd-probe", 4242)
	}()
	err := <-errc
	if errors.Is(err, unix.EOPNOTSUPP) {
		return ErrNoVRF
	}
	return err
}

// newVRF sends RTM_NEWLINK for a VRF device with table table.
func newVRF(name string, table uint32) error {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	attr := func(b []byte, typ uint16, v []byte) []byte {
		l := 4 + len(v)
		b = binary.NativeEndian.AppendUint16(b, uint16(l))
		b = binary.NativeEndian.AppendUint16(b, typ)
		b = append(b, v...)
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
		return b
	}
	var tbl [4]byte
	binary.NativeEndian.PutUint32(tbl[:], table)
	data := attr(nil, 1, tbl[:]) // IFLA_VRF_TABLE
	info := attr(nil, unix.IFLA_INFO_KIND, []byte("vrf\x00"))
	info = attr(info, unix.IFLA_INFO_DATA, data)
	msg := make([]byte, 16+16) // nlmsghdr + ifinfomsg
	binary.NativeEndian.PutUint16(msg[4:6], unix.RTM_NEWLINK)
	binary.NativeEndian.PutUint16(msg[6:8], unix.NLM_F_REQUEST|unix.NLM_F_ACK|unix.NLM_F_CREATE|unix.NLM_F_EXCL)
	binary.NativeEndian.PutUint32(msg[8:12], 1)
	msg = attr(msg, unix.IFLA_IFNAME, append([]byte(name), 0))
	msg = attr(msg, unix.IFLA_LINKINFO, info)
	binary.NativeEndian.PutUint32(msg[0:4], uint32(len(msg)))
	if err := unix.Sendto(fd, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return err
	}
	rb := make([]byte, 4096)
	n, _, err := unix.Recvfrom(fd, rb, 0)
	if err != nil {
		return err
	}
	if n < 20 || binary.NativeEndian.Uint16(rb[4:6]) != unix.NLMSG_ERROR {
		return errors.New("tcpsock: probe VRF: unexpected netlink answer")
	}
	if e := int32(binary.NativeEndian.Uint32(rb[16:20])); e != 0 {
		return unix.Errno(-e)
	}
	return nil
}
