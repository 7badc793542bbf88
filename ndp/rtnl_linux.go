package ndp

import (
	"errors"
	"fmt"
	"net/netip"

	"golang.org/x/sys/unix"
)

// rtnl is a blocking rtnetlink request socket in the network namespace of
// the thread that opened it. It is not safe for concurrent use.
type rtnl struct {
	fd  int
	seq uint32
	buf []byte
}

func dialRTNL() (*rtnl, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		return nil, fmt.Errorf("ndp: rtnetlink socket: %w", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("ndp: rtnetlink bind: %w", err)
	}
	// Strict checking makes the kernel filter dumps by the ifindex in the
	// request header (Linux 4.20+). Without it we filter ourselves anyway.
	_ = unix.SetsockoptInt(fd, unix.SOL_NETLINK, unix.NETLINK_GET_STRICT_CHK, 1)
	// A dump answers at once; never hang the caller on a lost reply.
	tv := unix.Timeval{Sec: 5}
	_ = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	return &rtnl{fd: fd, buf: make([]byte, 1<<16)}, nil
}

func (r *rtnl) close() { unix.Close(r.fd) }

// do sends one request and returns the parsed replies (until NLMSG_DONE for
// dumps, or the one reply or ack otherwise). An NLMSG_ERROR is returned as
// its errno.
func (r *rtnl) do(typ, flags uint16, body []byte) (dump, error) {
	r.seq++
	seq := r.seq
	if err := unix.Sendto(r.fd, request(typ, flags, seq, body), 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return dump{}, fmt.Errorf("ndp: rtnetlink send: %w", err)
	}
	var d dump
	for {
		n, _, err := unix.Recvfrom(r.fd, r.buf, 0)
		if err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return d, fmt.Errorf("ndp: rtnetlink receive: %w", err)
		}
		msgs, err := splitMessages(r.buf[:n])
		if err != nil {
			return d, err
		}
		last := false
		for _, m := range msgs {
			if m.seq != seq {
				continue // a late reply to an earlier, timed-out request
			}
			if err := d.add(m); err != nil {
				return d, err
			}
			if m.typ == nlmsgDone || m.typ == nlmsgError || m.flags&nlmFMulti == 0 {
				last = true
			}
		}
		if d.errno != 0 {
			return d, unix.Errno(d.errno)
		}
		if last {
			return d, nil
		}
	}
}

// linkByName returns the interface called name.
func (r *rtnl) linkByName(name string) (link, error) {
	body := make([]byte, ifInfoMsgLen)
	body = appendAttr(body, iflaIfname, append([]byte(name), 0))
	d, err := r.do(rtmGetLink, 0, body)
	if errors.Is(err, unix.ENODEV) || (err == nil && len(d.links) == 0) {
		return link{}, ifErr(ErrNoInterface, nil, "no interface %s", name)
	}
	if err != nil {
		return link{}, fmt.Errorf("ndp: interface %s: %w", name, err)
	}
	return d.links[0], nil
}

// addrs returns the IPv6 addresses of interface ifindex.
func (r *rtnl) addrs(ifindex int32) ([]ifAddr, error) {
	body := make([]byte, ifAddrMsgLen)
	body[0] = afInet6
	ne.PutUint32(body[4:8], uint32(ifindex))
	d, err := r.do(rtmGetAddr, nlmFDump, body)
	if err != nil {
		return nil, err
	}
	out := d.addrs[:0]
	for _, a := range d.addrs {
		if int64(a.ifindex) == int64(ifindex) {
			out = append(out, a)
		}
	}
	return out, nil
}

// neighbors returns the IPv6 neighbor entries of interface ifindex.
func (r *rtnl) neighbors(ifindex int32) ([]neighbor, error) {
	// Strict checking refuses a dump request with ndm_ifindex set
	// (EINVAL, in the NLMSG_DONE): the filter is the NDA_IFINDEX attribute,
	// which kernels without strict checking honour too.
	body := make([]byte, ndMsgLen)
	body[0] = afInet6
	body = appendAttr(body, ndaIfindex, ne.AppendUint32(nil, uint32(ifindex)))
	d, err := r.do(rtmGetNeigh, nlmFDump, body)
	if err != nil {
		return nil, err
	}
	out := d.neighs[:0]
	for _, n := range d.neighs {
		if n.ifindex == ifindex {
			out = append(out, n)
		}
	}
	return out, nil
}

// Resolve returns the IPv6 link-local address of the one neighbor on
// interface ifname, with ifname as its zone (fe80::2%eth1), by GoBGP's rule
// for neighbor-interface peers (see usable for the one deviation). Errors
// name the interface and match ErrNoInterface, ErrNoNeighbor or
// ErrManyNeighbors with errors.Is.
//
// It reads the tables of the network namespace of the calling thread.
func Resolve(ifname string) (netip.Addr, error) {
	r, err := dialRTNL()
	if err != nil {
		return netip.Addr{}, err
	}
	defer r.close()
	l, err := r.linkByName(ifname)
	if err != nil {
		return netip.Addr{}, err
	}
	own, err := r.addrs(l.index)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("ndp: addresses of %s: %w", ifname, err)
	}
	neighs, err := r.neighbors(l.index)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("ndp: neighbors of %s: %w", ifname, err)
	}
	return pickNeighbor(ifname, l.index, neighs, own)
}
