//go:build linux

package srv6policy

import (
	"encoding/binary"
	"fmt"

	"golang.org/x/sys/unix"
)

// nlSocket is a netlink socket to the kernel, shared by the SEG6 generic
// netlink client (keys, tunnel source) and the route client: requests with
// sequence numbers, answers read until the ack or NLMSG_DONE.
type nlSocket struct {
	fd  int
	seq uint32
	// hdr is the length of the protocol's own header after the netlink
	// header (generic netlink: 4), skipped before answers reach fn.
	hdr int
	// wipe clears the receive buffer after use: SEG6 dumps carry secrets.
	wipe bool
	what string // "generic netlink", "route netlink": for messages
}

// init binds s.fd and sets it up: error acks without a copy of the request
// (which may hold a secret), extended error messages, a receive timeout.
func (s *nlSocket) init() error {
	if err := unix.Bind(s.fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return fmt.Errorf("srv6policy: bind %s socket: %w", s.what, err)
	}
	_ = unix.SetsockoptInt(s.fd, unix.SOL_NETLINK, unix.NETLINK_CAP_ACK, 1)
	_ = unix.SetsockoptInt(s.fd, unix.SOL_NETLINK, unix.NETLINK_EXT_ACK, 1)
	tv := unix.NsecToTimeval(recvTimeout.Nanoseconds())
	if err := unix.SetsockoptTimeval(s.fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		return fmt.Errorf("srv6policy: %s socket: SO_RCVTIMEO: %w", s.what, err)
	}
	return nil
}

// closeFd closes the socket once.
func (s *nlSocket) closeFd() error {
	if s.fd < 0 {
		return nil
	}
	err := unix.Close(s.fd)
	s.fd = -1
	return err
}

// roundTrip sends msg (its length field is set here) and reads the answers
// with its sequence number until the ack or NLMSG_DONE, handing each data
// message's body (after the protocol header) to fn. The first error of fn
// is returned after the exchange ends.
func (s *nlSocket) roundTrip(msg []byte, fn func(typ uint16, body []byte) error) error {
	binary.NativeEndian.PutUint32(msg[0:4], uint32(len(msg)))
	seq := binary.NativeEndian.Uint32(msg[8:12])
	if err := unix.Sendto(s.fd, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return fmt.Errorf("send: %w", err)
	}
	rb := make([]byte, 32*1024)
	if s.wipe {
		defer func() { clear(rb) }()
	}
	var cbErr error
	for {
		// Peek at the datagram's size first, so no answer is ever cut.
		n, _, err := unix.Recvfrom(s.fd, rb[:0], unix.MSG_PEEK|unix.MSG_TRUNC)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return recvErr(err)
		}
		if n > len(rb) {
			if s.wipe {
				clear(rb)
			}
			rb = make([]byte, n)
		}
		n, from, err := unix.Recvfrom(s.fd, rb, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return recvErr(err)
		}
		if sa, ok := from.(*unix.SockaddrNetlink); !ok || sa.Pid != 0 {
			continue // not from the kernel
		}
		b := rb[:n]
		for len(b) >= unix.NLMSG_HDRLEN {
			l := int(binary.NativeEndian.Uint32(b[0:4]))
			typ := binary.NativeEndian.Uint16(b[4:6])
			flags := binary.NativeEndian.Uint16(b[6:8])
			mseq := binary.NativeEndian.Uint32(b[8:12])
			if l < unix.NLMSG_HDRLEN || l > len(b) {
				return fmt.Errorf("malformed netlink message (length %d, %d bytes left)", l, len(b))
			}
			m := b[:l]
			if al := (l + 3) &^ 3; al < len(b) {
				b = b[al:]
			} else {
				b = nil
			}
			if mseq != seq {
				continue // a stale answer to an earlier, abandoned request
			}
			switch typ {
			case unix.NLMSG_NOOP:
				continue
			case unix.NLMSG_ERROR:
				if err := ackErr(m, flags); err != nil {
					return err
				}
				return cbErr
			case unix.NLMSG_DONE:
				if len(m) >= unix.NLMSG_HDRLEN+4 {
					if e := int32(binary.NativeEndian.Uint32(m[16:20])); e < 0 {
						return unix.Errno(-e)
					}
				}
				return cbErr
			}
			if fn != nil && cbErr == nil && len(m) >= unix.NLMSG_HDRLEN+s.hdr {
				cbErr = fn(typ, m[unix.NLMSG_HDRLEN+s.hdr:])
			}
			// A request with NLM_F_ACK ends with its ack, a dump with
			// NLMSG_DONE: keep reading.
		}
	}
}
