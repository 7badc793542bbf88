// Package frame decodes a captured link-layer frame down to the TCP segment
// it carries: Ethernet (with any number of 802.1Q / 802.1ad VLAN tags),
// Linux cooked capture v1 and v2, raw IP, and BSD null/loopback framing;
// IPv4 with options and IPv6 with extension headers.
//
// DecodeTCP does not allocate and never panics, whatever the input: every
// length in a header is checked against the bytes that are there. The
// result points into the input.
//
// The shadow checker verifies TCP-MD5 signatures with it; the SRv6 checker
// shares it to find Segment Routing Headers (TCP.SRH).
package frame

import (
	"encoding/binary"
	"errors"
	"net/netip"
)

// Link types (LINKTYPE_ values, as in pcap and pcapng files).
const (
	LinkNull      = 0   // BSD loopback: 4-byte address family in host byte order
	LinkEthernet  = 1   // Ethernet II
	LinkRaw       = 101 // raw IPv4 or IPv6, the version nibble decides
	LinkLoop      = 108 // OpenBSD loopback: 4-byte address family in network byte order
	LinkLinuxSLL  = 113 // Linux cooked capture v1 (16-byte header)
	LinkIPv4      = 228 // raw IPv4
	LinkIPv6      = 229 // raw IPv6
	LinkLinuxSLL2 = 276 // Linux cooked capture v2 (20-byte header)
)

// Errors, for errors.Is. DecodeTCP returns them unwrapped, so comparing
// with == works too.
var (
	// ErrTruncated means the frame ends before a header, or before the
	// length a header declares.
	ErrTruncated = errors.New("frame: truncated")
	// ErrNotIP means the frame carries neither IPv4 nor IPv6.
	ErrNotIP = errors.New("frame: not an IP packet")
	// ErrNotTCP means the IP packet carries something other than TCP
	// (including ESP, whose payload is opaque, and "no next header").
	ErrNotTCP = errors.New("frame: not a TCP segment")
	// ErrFragment means the IP packet is a fragment (IPv4 MF flag or
	// offset, or an IPv6 fragment header): the segment is not whole.
	ErrFragment = errors.New("frame: IP fragment")
	// ErrBadHeader means a header has invalid contents (wrong IP version,
	// IPv4 header length under 20, TCP data offset under 5, ...).
	ErrBadHeader = errors.New("frame: invalid header")
	// ErrUnknownLink means DecodeTCP does not know the link type.
	ErrUnknownLink = errors.New("frame: unsupported link type")
)

// TCP is a decoded TCP segment and the IP addresses around it.
//
// When DecodeTCP returns ErrNotTCP or ErrFragment, the IP header itself was
// valid: Src, Dst, Proto and SRH describe it (so that SRv6 encapsulated
// packets, whose SRH is followed by an inner IP packet, can be checked) and
// the port and Segment fields are zero. After any other error, no field is
// meaningful.
type TCP struct {
	Src, Dst         netip.Addr
	SrcPort, DstPort uint16
	// Segment is the TCP header, options and payload, trimmed to the
	// length the IP header declares (Ethernet padding is dropped). Its
	// header length (data offset) is at least 20 and within it. It points
	// into the decoded frame.
	Segment []byte
	// SRH is the first IPv6 routing header of type 4 (Segment Routing
	// Header, RFC 8754) met among the extension headers, whole (fixed part,
	// segments and TLVs), or nil if there is none. It points into the frame.
	SRH []byte
	// Proto is the upper-layer protocol number where the walk through the
	// IP headers stopped: 6 for TCP; for ErrNotTCP the protocol found, and
	// for ErrFragment 44 (IPv6) or the IPv4 protocol field.
	Proto uint8
}

// EtherTypes and IP protocol numbers.
const (
	etherTypeIPv4  = 0x0800
	etherTypeIPv6  = 0x86dd
	etherType8021Q = 0x8100
	etherType8021A = 0x88a8
	etherTypeQinQ  = 0x9100

	protoHopByHop = 0
	protoTCP      = 6
	protoRouting  = 43
	protoFragment = 44
	protoESP      = 50
	protoAH       = 51
	protoNoNext   = 59
	protoDstOpts  = 60

	routingTypeSRH = 4
)

// DecodeTCP decodes data, a frame of link type link, into out. It returns
// nil if the frame holds a whole TCP segment in an unfragmented IPv4 or
// IPv6 packet. It does not allocate.
func DecodeTCP(link uint32, data []byte, out *TCP) error {
	// The common frame, a whole TCP segment in an untagged, unfragmented
	// IPv4 packet, in one pass (the shadow checker's per-segment path: no
	// calls, each field stored once). It checks what decodeIPv4 and
	// decodeTCP check; any other frame is decoded the general way below,
	// which gives this one the same result.
	if be := binary.BigEndian; link == LinkEthernet && len(data) >= 14+20 && be.Uint16(data[12:14]) == etherTypeIPv4 {
		ip := data[14:]
		hl := int(ip[0]&0x0f) * 4
		total := int(be.Uint16(ip[2:4]))
		// (total 0, an offload super-packet, goes the general way.)
		if ip[0]>>4 == 4 && hl >= 20 && total >= hl && total <= len(ip) && be.Uint16(ip[6:8])&0x3fff == 0 && ip[9] == protoTCP {
			seg := ip[hl:total:total]
			if len(seg) >= 20 {
				if thl := int(seg[12]>>4) * 4; thl >= 20 && thl <= len(seg) {
					out.Src = netip.AddrFrom4([4]byte(ip[12:16]))
					out.Dst = netip.AddrFrom4([4]byte(ip[16:20]))
					out.SrcPort, out.DstPort = be.Uint16(seg[0:2]), be.Uint16(seg[2:4])
					out.Segment, out.SRH, out.Proto = seg, nil, protoTCP
					return nil
				}
			}
		}
	}
	*out = TCP{}
	switch link {
	case LinkEthernet:
		if len(data) >= 14 && binary.BigEndian.Uint16(data[12:14]) == etherTypeIPv4 {
			return decodeIPv4(data[14:], out) // untagged IPv4, the common frame: no calls through the tag walk
		}
		return decodeLink(data, 14, 12, out)
	case LinkLinuxSLL:
		return decodeLink(data, 16, 14, out)
	case LinkLinuxSLL2:
		return decodeLink(data, 20, 0, out)
	case LinkRaw:
		if len(data) < 1 {
			return ErrTruncated
		}
		switch data[0] >> 4 {
		case 4:
			return decodeIPv4(data, out)
		case 6:
			return decodeIPv6(data, out)
		}
		return ErrNotIP
	case LinkIPv4:
		return decodeIPv4(data, out)
	case LinkIPv6:
		return decodeIPv6(data, out)
	case LinkNull, LinkLoop:
		if len(data) < 4 {
			return ErrTruncated
		}
		// The family is in the capturing host's byte order (null) or in
		// network order (loop, though some writers got it wrong): address
		// families are small, so the order that yields one is right.
		fam := binary.BigEndian.Uint32(data[0:4])
		if fam > 0xffff {
			fam = binary.LittleEndian.Uint32(data[0:4])
		}
		switch fam {
		case 2: // AF_INET everywhere
			return decodeIPv4(data[4:], out)
		case 10, 24, 28, 30: // AF_INET6: Linux, NetBSD/OpenBSD, FreeBSD, Darwin
			return decodeIPv6(data[4:], out)
		}
		return ErrNotIP
	}
	return ErrUnknownLink
}

// decodeLink decodes the packet after a link header of hdr bytes whose
// EtherType (protocol) is at offset et.
func decodeLink(data []byte, hdr, et int, out *TCP) error {
	if len(data) < hdr {
		return ErrTruncated
	}
	return decodeEtherType(binary.BigEndian.Uint16(data[et:et+2]), data[hdr:], out)
}

// decodeEtherType decodes the payload of an Ethernet-like header whose
// EtherType is et, skipping VLAN tags.
func decodeEtherType(et uint16, data []byte, out *TCP) error {
	for et == etherType8021Q || et == etherType8021A || et == etherTypeQinQ {
		// Tag: TCI (2 bytes), then the next EtherType.
		if len(data) < 4 {
			return ErrTruncated
		}
		et = binary.BigEndian.Uint16(data[2:4])
		data = data[4:]
	}
	switch et {
	case etherTypeIPv4:
		return decodeIPv4(data, out)
	case etherTypeIPv6:
		return decodeIPv6(data, out)
	}
	return ErrNotIP
}

func decodeIPv4(data []byte, out *TCP) error {
	if len(data) < 20 {
		return ErrTruncated
	}
	if data[0]>>4 != 4 {
		return ErrBadHeader
	}
	hl := int(data[0]&0x0f) * 4
	if hl < 20 {
		return ErrBadHeader
	}
	total := int(binary.BigEndian.Uint16(data[2:4]))
	if total == 0 {
		// A large send offload (TSO/GSO) super-packet captured before
		// segmentation: the length field is not filled in and the
		// captured bytes are the packet.
		total = len(data)
	}
	if total < hl {
		return ErrBadHeader
	}
	if total > len(data) {
		return ErrTruncated
	}
	data = data[:total]
	out.Src = netip.AddrFrom4([4]byte(data[12:16]))
	out.Dst = netip.AddrFrom4([4]byte(data[16:20]))
	out.Proto = data[9]
	if binary.BigEndian.Uint16(data[6:8])&0x3fff != 0 { // MF flag or offset
		return ErrFragment
	}
	if out.Proto != protoTCP {
		return ErrNotTCP
	}
	return decodeTCP(data[hl:], out)
}

func decodeIPv6(data []byte, out *TCP) error {
	if len(data) < 40 {
		return ErrTruncated
	}
	if data[0]>>4 != 6 {
		return ErrBadHeader
	}
	total := 40 + int(binary.BigEndian.Uint16(data[4:6]))
	if total == 40 {
		// Payload length 0: a jumbogram or an offload super-packet (BIG
		// TCP) captured before segmentation; the captured bytes are the
		// packet. (A packet with an empty payload ends here either way.)
		total = len(data)
	}
	if total > len(data) {
		return ErrTruncated
	}
	data = data[:total]
	out.Src = netip.AddrFrom16([16]byte(data[8:24]))
	out.Dst = netip.AddrFrom16([16]byte(data[24:40]))
	nh := data[6]
	off := 40
	// Each extension header is at least 8 bytes long, so the walk ends.
	for {
		out.Proto = nh
		switch nh {
		case protoTCP:
			return decodeTCP(data[off:], out)
		case protoHopByHop, protoRouting, protoDstOpts:
			if len(data)-off < 8 {
				return ErrTruncated
			}
			n := (int(data[off+1]) + 1) * 8
			if n > len(data)-off {
				return ErrTruncated
			}
			if nh == protoRouting && data[off+2] == routingTypeSRH && out.SRH == nil {
				out.SRH = data[off : off+n : off+n]
			}
			nh = data[off]
			off += n
		case protoAH:
			if len(data)-off < 8 {
				return ErrTruncated
			}
			n := (int(data[off+1]) + 2) * 4
			if n > len(data)-off {
				return ErrTruncated
			}
			nh = data[off]
			off += n
		case protoFragment:
			return ErrFragment
		default: // ESP, no next header, UDP, ICMPv6, IP-in-IPv6, ...
			return ErrNotTCP
		}
	}
}

func decodeTCP(seg []byte, out *TCP) error {
	if len(seg) < 20 {
		return ErrTruncated
	}
	hl := int(seg[12]>>4) * 4
	if hl < 20 {
		return ErrBadHeader
	}
	if hl > len(seg) {
		return ErrTruncated
	}
	out.SrcPort = binary.BigEndian.Uint16(seg[0:2])
	out.DstPort = binary.BigEndian.Uint16(seg[2:4])
	out.Segment = seg[:len(seg):len(seg)]
	return nil
}

// Linux packet types (the sll_pkttype of a cooked capture header).
const (
	PacketHost     = 0 // to us
	PacketOutgoing = 4 // from us
)

// CookedHeader returns what a Linux cooked capture header (LinkLinuxSLL,
// LinkLinuxSLL2) of data says besides the protocol: the packet type (see
// PacketOutgoing) and, for SLL2 only, the index of the interface the
// packet was captured on (0 for SLL, which does not carry it). ok is false
// for other link types and for a frame shorter than its header.
func CookedHeader(link uint32, data []byte) (ifindex int, pktType uint16, ok bool) {
	switch link {
	case LinkLinuxSLL:
		if len(data) < 16 {
			return 0, 0, false
		}
		return 0, binary.BigEndian.Uint16(data[0:2]), true
	case LinkLinuxSLL2:
		if len(data) < 20 {
			return 0, 0, false
		}
		return int(int32(binary.BigEndian.Uint32(data[4:8]))), uint16(data[10]), true
	}
	return 0, 0, false
}
