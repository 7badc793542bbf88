package tcpao

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net/netip"
	"strings"
	"testing"
)

// hexBytes decodes hex with any white space in it.
func hexBytes(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatalf("bad hex: %v", err)
	}
	return b
}

// ipSegment splits a raw IPv4 or IPv6 packet (no IPv6 extension headers)
// into a Segment.
func ipSegment(pkt []byte) (Segment, error) {
	if len(pkt) < 1 {
		return Segment{}, fmt.Errorf("empty packet")
	}
	switch pkt[0] >> 4 {
	case 4:
		ihl := int(pkt[0]&15) * 4
		if len(pkt) < ihl || ihl < 20 || pkt[9] != 6 {
			return Segment{}, fmt.Errorf("not an IPv4 TCP packet")
		}
		if tl := int(binary.BigEndian.Uint16(pkt[2:4])); tl != len(pkt) {
			return Segment{}, fmt.Errorf("IPv4 total length %d, packet %d bytes", tl, len(pkt))
		}
		return Segment{Src: netip.AddrFrom4([4]byte(pkt[12:16])), Dst: netip.AddrFrom4([4]byte(pkt[16:20])), TCP: pkt[ihl:]}, nil
	case 6:
		if len(pkt) < 40 || pkt[6] != 6 {
			return Segment{}, fmt.Errorf("not an IPv6 TCP packet")
		}
		if pl := int(binary.BigEndian.Uint16(pkt[4:6])); pl != len(pkt)-40 {
			return Segment{}, fmt.Errorf("IPv6 payload length %d, packet %d bytes", pl, len(pkt))
		}
		return Segment{Src: netip.AddrFrom16([16]byte(pkt[8:24])), Dst: netip.AddrFrom16([16]byte(pkt[24:40])), TCP: pkt[40:]}, nil
	}
	return Segment{}, fmt.Errorf("IP version %d", pkt[0]>>4)
}

// onesSum is the Internet checksum's one's complement sum of b.
func onesSum(sum uint32, b []byte) uint32 {
	for len(b) >= 2 {
		sum += uint32(b[0])<<8 | uint32(b[1])
		b = b[2:]
	}
	if len(b) == 1 {
		sum += uint32(b[0]) << 8
	}
	return sum
}

func fold(sum uint32) uint16 {
	for sum>>16 != 0 {
		sum = sum&0xffff + sum>>16
	}
	return ^uint16(sum)
}

// tcpChecksum returns the checksum seg.TCP should carry (computed with
// its checksum field taken as zero).
func tcpChecksum(seg Segment) uint16 {
	var sum uint32
	src, dst := seg.Src.Unmap(), seg.Dst.Unmap()
	if src.Is4() {
		s, d := src.As4(), dst.As4()
		sum = onesSum(sum, s[:])
		sum = onesSum(sum, d[:])
		sum += 6 + uint32(len(seg.TCP))
	} else {
		s, d := src.As16(), dst.As16()
		sum = onesSum(sum, s[:])
		sum = onesSum(sum, d[:])
		sum += uint32(len(seg.TCP))>>16 + uint32(len(seg.TCP))&0xffff + 6
	}
	sum = onesSum(sum, seg.TCP[:16])
	sum = onesSum(sum, seg.TCP[18:])
	return fold(sum)
}

// ipv4HeaderOK reports whether an IPv4 header checksum is right.
func ipv4HeaderOK(pkt []byte) bool {
	ihl := int(pkt[0]&15) * 4
	return fold(onesSum(0, pkt[:ihl])) == 0
}
