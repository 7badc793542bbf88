package ndp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
)

// rtnetlink message types and attributes (linux/rtnetlink.h,
// linux/neighbour.h, linux/if_addr.h, linux/if_link.h), defined here so the
// parsers build and are tested on any OS. Netlink uses host byte order.
const (
	nlmsgNoop  = 1
	nlmsgError = 2
	nlmsgDone  = 3

	rtmNewLink  = 16
	rtmDelLink  = 17
	rtmGetLink  = 18
	rtmNewAddr  = 20
	rtmDelAddr  = 21
	rtmGetAddr  = 22
	rtmNewNeigh = 28
	rtmDelNeigh = 29
	rtmGetNeigh = 30

	nlmHdrLen    = 16
	ndMsgLen     = 12
	ifAddrMsgLen = 8
	ifInfoMsgLen = 16

	ndaDst     = 1
	ndaLLAddr  = 2
	ndaIfindex = 8

	ifaAddress = 1
	ifaLocal   = 2
	ifaFlags   = 8

	iflaAddress = 1
	iflaIfname  = 3

	afInet6 = 10

	nlaTypeMask = 0x3fff // without NLA_F_NESTED and NLA_F_NET_BYTEORDER
)

var ne = binary.NativeEndian

// nlMsg is one netlink message: header fields and the payload after the
// 16-byte header.
type nlMsg struct {
	typ, flags uint16
	seq, pid   uint32
	data       []byte
}

// splitMessages splits b, what one or more recv(2) calls on a netlink socket
// returned, into messages. A truncated or malformed message is an error.
func splitMessages(b []byte) ([]nlMsg, error) {
	var out []nlMsg
	for len(b) > 0 {
		if len(b) < nlmHdrLen {
			return out, fmt.Errorf("netlink: %d trailing bytes, shorter than a message header", len(b))
		}
		l := ne.Uint32(b[0:4])
		if l < nlmHdrLen || uint64(l) > uint64(len(b)) {
			return out, fmt.Errorf("netlink: message length %d, %d bytes left", l, len(b))
		}
		out = append(out, nlMsg{
			typ: ne.Uint16(b[4:6]), flags: ne.Uint16(b[6:8]),
			seq: ne.Uint32(b[8:12]), pid: ne.Uint32(b[12:16]),
			data: b[nlmHdrLen:l:l],
		})
		a := align4(int(l))
		if a > len(b) {
			a = len(b) // the last message need not be padded
		}
		b = b[a:]
	}
	return out, nil
}

func align4(n int) int { return (n + 3) &^ 3 }

// attrs calls fn for every rtattr in b. A malformed attribute is an error.
func attrs(b []byte, fn func(typ uint16, v []byte)) error {
	for len(b) > 0 {
		if len(b) < 4 {
			return fmt.Errorf("netlink: %d trailing attribute bytes", len(b))
		}
		l := int(ne.Uint16(b[0:2]))
		if l < 4 || l > len(b) {
			return fmt.Errorf("netlink: attribute length %d, %d bytes left", l, len(b))
		}
		fn(ne.Uint16(b[2:4])&nlaTypeMask, b[4:l:l])
		a := align4(l)
		if a > len(b) {
			a = len(b)
		}
		b = b[a:]
	}
	return nil
}

// errNetlink is the error an NLMSG_ERROR message carries: a negative errno.
type errNetlink struct{ errno int32 }

func (e *errNetlink) Error() string { return fmt.Sprintf("netlink: error %d", -e.errno) }

// dump is what a sequence of rtnetlink messages says.
type dump struct {
	neighs []neighbor
	addrs  []ifAddr
	links  []link
	// errno is the (positive) errno of an NLMSG_ERROR or of a failed
	// dump's NLMSG_DONE; 0 for an ack or a complete dump.
	errno int32
	acked bool // an NLMSG_ERROR (error or ack) was seen
	done  bool // NLMSG_DONE was seen
}

// parseDump parses kernel rtnetlink bytes (replies to RTM_GETNEIGH,
// RTM_GETADDR, RTM_GETLINK, or multicast notifications) into neighbor,
// address and link records. Messages of other types are skipped, and so are
// records of other address families; RTM_DEL* notifications are skipped too
// (callers re-read the table). It never panics on any input.
func parseDump(b []byte) (dump, error) {
	var d dump
	msgs, err := splitMessages(b)
	for _, m := range msgs {
		if perr := d.add(m); perr != nil && err == nil {
			err = perr
		}
	}
	return d, err
}

func (d *dump) add(m nlMsg) error {
	switch m.typ {
	case nlmsgDone:
		// A dump that failed ends with NLMSG_DONE carrying the negative
		// errno (e.g. EINVAL for a strict-checked request it refuses).
		d.done = true
		if len(m.data) >= 4 {
			if e := int32(ne.Uint32(m.data[0:4])); e < 0 {
				d.errno = -e
			}
		}
	case nlmsgError:
		if len(m.data) < 4 {
			return errors.New("netlink: short NLMSG_ERROR")
		}
		d.acked = true
		if e := int32(ne.Uint32(m.data[0:4])); e < 0 {
			d.errno = -e
		}
	case rtmNewNeigh:
		n, ok, err := parseNeigh(m.data)
		if ok {
			d.neighs = append(d.neighs, n)
		}
		return err
	case rtmNewAddr:
		a, ok, err := parseAddr(m.data)
		if ok {
			d.addrs = append(d.addrs, a)
		}
		return err
	case rtmNewLink:
		l, ok, err := parseLink(m.data)
		if ok {
			d.links = append(d.links, l)
		}
		return err
	}
	return nil
}

// parseNeigh parses an ndmsg and its attributes; ok is false for entries
// that are not IPv6 or carry no destination.
func parseNeigh(b []byte) (n neighbor, ok bool, err error) {
	if len(b) < ndMsgLen {
		return n, false, fmt.Errorf("netlink: neighbor message of %d bytes", len(b))
	}
	if b[0] != afInet6 {
		return n, false, nil
	}
	n.ifindex = int32(ne.Uint32(b[4:8]))
	n.state = ne.Uint16(b[8:10])
	n.flags = b[10]
	err = attrs(b[ndMsgLen:], func(typ uint16, v []byte) {
		switch typ {
		case ndaDst:
			if a, isIP := netip.AddrFromSlice(v); isIP && a.Is6() {
				n.addr = a
			}
		case ndaLLAddr:
			n.lladdr = append([]byte(nil), v...)
		}
	})
	return n, n.addr.IsValid(), err
}

// parseAddr parses an ifaddrmsg and its attributes (IPv6 only).
func parseAddr(b []byte) (a ifAddr, ok bool, err error) {
	if len(b) < ifAddrMsgLen {
		return a, false, fmt.Errorf("netlink: address message of %d bytes", len(b))
	}
	if b[0] != afInet6 {
		return a, false, nil
	}
	a.prefix, a.flags, a.scope = b[1], uint32(b[2]), b[3]
	a.ifindex = ne.Uint32(b[4:8])
	var local, addr netip.Addr
	err = attrs(b[ifAddrMsgLen:], func(typ uint16, v []byte) {
		switch typ {
		case ifaAddress, ifaLocal:
			if x, isIP := netip.AddrFromSlice(v); isIP && x.Is6() {
				if typ == ifaLocal {
					local = x
				} else {
					addr = x
				}
			}
		case ifaFlags:
			if len(v) >= 4 {
				a.flags = ne.Uint32(v[:4])
			}
		}
	})
	// IFA_LOCAL is the local address on point-to-point links, where
	// IFA_ADDRESS is the far end's; IPv6 usually sends only IFA_ADDRESS.
	a.addr = addr
	if local.IsValid() {
		a.addr = local
	}
	return a, a.addr.IsValid(), err
}

// parseLink parses an ifinfomsg and its attributes.
func parseLink(b []byte) (l link, ok bool, err error) {
	if len(b) < ifInfoMsgLen {
		return l, false, fmt.Errorf("netlink: link message of %d bytes", len(b))
	}
	l.index = int32(ne.Uint32(b[4:8]))
	l.flags = ne.Uint32(b[8:12])
	err = attrs(b[ifInfoMsgLen:], func(typ uint16, v []byte) {
		switch typ {
		case iflaIfname:
			for i, c := range v {
				if c == 0 {
					v = v[:i]
					break
				}
			}
			l.name = string(v)
		case iflaAddress:
			l.hwaddr = append([]byte(nil), v...)
		}
	})
	return l, true, err
}

// request encodes a netlink request of type typ with flags (NLM_F_REQUEST
// is added), sequence number seq and payload body.
func request(typ, flags uint16, seq uint32, body []byte) []byte {
	b := make([]byte, nlmHdrLen+len(body))
	ne.PutUint32(b[0:4], uint32(len(b)))
	ne.PutUint16(b[4:6], typ)
	ne.PutUint16(b[6:8], flags|nlmFRequest)
	ne.PutUint32(b[8:12], seq)
	copy(b[nlmHdrLen:], body)
	return b
}

// appendAttr appends an rtattr (padded) to b.
func appendAttr(b []byte, typ uint16, v []byte) []byte {
	l := 4 + len(v)
	b = ne.AppendUint16(b, uint16(l))
	b = ne.AppendUint16(b, typ)
	b = append(b, v...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

const (
	nlmFRequest = 0x1
	nlmFMulti   = 0x2
	nlmFAck     = 0x4
	nlmFDump    = 0x300 // NLM_F_ROOT|NLM_F_MATCH
)
