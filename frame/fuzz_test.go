package frame

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// fuzzLinks are the link types the fuzz target picks from; a selector past
// the end is used as the link type itself (nearly always unknown).
var fuzzLinks = []uint32{LinkEthernet, LinkLinuxSLL, LinkLinuxSLL2, LinkRaw, LinkIPv4, LinkIPv6, LinkNull, LinkLoop}

func fuzzLink(sel uint8) uint32 {
	if int(sel) < len(fuzzLinks) {
		return fuzzLinks[sel]
	}
	return uint32(sel) << 8
}

func linkSelector(link uint32) uint8 {
	for i, l := range fuzzLinks {
		if l == link {
			return uint8(i)
		}
	}
	panic("link type not fuzzed")
}

// FuzzDecodeTCP decodes arbitrary frames and checks the result's
// invariants: only the package's errors; on success a TCP segment that is
// part of the input with its header inside it, ports read from it, valid
// addresses of one family; an SRH that is part of the input and well
// formed; deterministic results, unaffected by stale output values and,
// for unpadded raw IP, by appended bytes.
//
//	go test -run='^$' -fuzz=FuzzDecodeTCP -fuzztime=30s ./frame
func FuzzDecodeTCP(f *testing.F) {
	for _, fr := range allFrames(f) {
		f.Add(linkSelector(fr.link), fr.data)
	}
	seg := tcpSeg(40000, 179, 24, "x")
	f.Add(linkSelector(LinkLinuxSLL2), sll2(0x86dd, ipv6([]ext{hbh, dstOpts, rt2, srh2, ah}, 6, seg)))
	f.Add(linkSelector(LinkIPv6), ipv6([]ext{hbh, fragment}, 6, seg))
	f.Add(linkSelector(LinkNull), append([]byte{30, 0, 0, 0}, ipv6(nil, 6, seg)...))
	f.Add(linkSelector(LinkLoop), append([]byte{0, 0, 0, 2}, ipv4(6, []byte{1, 1, 1, 1}, seg)...))
	f.Add(uint8(200), []byte{0x45})
	// An outgoing SLL2 frame on interface 7 (CookedHeader).
	out7 := sll2(0x86dd, ipv6(nil, 6, seg))
	out7[7], out7[10] = 7, PacketOutgoing
	f.Add(linkSelector(LinkLinuxSLL2), out7)

	f.Fuzz(func(t *testing.T, sel uint8, data []byte) {
		link := fuzzLink(sel)
		orig := bytes.Clone(data)
		var out TCP
		err := DecodeTCP(link, data, &out)
		sameAsGeneral(t, link, data, &out, err)
		// The cooked header's fields: there exactly when the header is,
		// and never more than DecodeTCP needs (it decodes past it).
		if _, _, ok := CookedHeader(link, data); ok != (link == LinkLinuxSLL && len(data) >= 16 || link == LinkLinuxSLL2 && len(data) >= 20) {
			t.Fatalf("CookedHeader ok=%v for link %d, %d bytes", ok, link, len(data))
		} else if !ok && err == nil && (link == LinkLinuxSLL || link == LinkLinuxSLL2) {
			t.Fatal("DecodeTCP decoded a cooked frame CookedHeader found too short")
		}
		if !bytes.Equal(data, orig) {
			t.Fatal("DecodeTCP modified its input")
		}
		switch err {
		case nil, ErrTruncated, ErrNotIP, ErrNotTCP, ErrFragment, ErrBadHeader, ErrUnknownLink:
		default:
			t.Fatalf("unexpected error %v", err)
		}
		if (err == ErrUnknownLink) != (int(sel) >= len(fuzzLinks)) {
			t.Fatalf("link %d: %v", link, err)
		}

		// Determinism, and no dependence on what out held before.
		stale := TCP{SrcPort: 7, DstPort: 7, Segment: data, SRH: data, Proto: 99}
		err2 := DecodeTCP(link, data, &stale)
		if err2 != err || !sameTCP(out, stale) {
			t.Fatalf("second decode: %v %+v, first: %v %+v", err2, stale, err, out)
		}

		if err == nil || err == ErrNotTCP || err == ErrFragment {
			// The IP header was read.
			if !out.Src.IsValid() || !out.Dst.IsValid() || out.Src.Is4() != out.Dst.Is4() {
				t.Fatalf("%v: addresses %v, %v", err, out.Src, out.Dst)
			}
			if out.Src.Is4In6() || out.Src.Zone() != "" {
				t.Fatalf("address %v not in canonical form", out.Src)
			}
		}
		if out.SRH != nil {
			if out.Src.Is4() {
				t.Fatalf("SRH in IPv4")
			}
			if segmentOffset(data, out.SRH) < 0 || len(out.SRH) < 8 || out.SRH[2] != 4 || len(out.SRH) != (int(out.SRH[1])+1)*8 {
				t.Fatalf("bad SRH %x", out.SRH)
			}
		}
		if err != nil {
			if out.Segment != nil || out.SrcPort != 0 || out.DstPort != 0 {
				t.Fatalf("%v with a segment: %+v", err, out)
			}
			return
		}

		// Success: a whole TCP header inside a segment inside the input.
		off := segmentOffset(data, out.Segment)
		if off < 0 {
			t.Fatalf("Segment is not a subslice of the input")
		}
		if out.Proto != 6 {
			t.Fatalf("Proto %d on success", out.Proto)
		}
		hl := int(out.Segment[12]>>4) * 4
		if hl < 20 || hl > len(out.Segment) {
			t.Fatalf("TCP header length %d in a %d-byte segment", hl, len(out.Segment))
		}
		if out.SrcPort != binary.BigEndian.Uint16(out.Segment[0:2]) || out.DstPort != binary.BigEndian.Uint16(out.Segment[2:4]) {
			t.Fatalf("ports %d, %d do not match the segment", out.SrcPort, out.DstPort)
		}
		if cap(out.Segment) != len(out.Segment) || (out.SRH != nil && cap(out.SRH) != len(out.SRH)) {
			t.Fatalf("results can be appended to over the input")
		}
		if out.SRH != nil && segmentOffset(data, out.SRH)+len(out.SRH) > off {
			t.Fatalf("SRH overlaps the segment")
		}

		// Raw IP with a non-zero length field: trailing bytes are ignored.
		if (link == LinkRaw || link == LinkIPv4 || link == LinkIPv6) && ipLengthSet(data) {
			var more TCP
			if err := DecodeTCP(link, append(bytes.Clone(data), 0xde, 0xad), &more); err != nil ||
				more.Src != out.Src || !bytes.Equal(more.Segment, out.Segment) || !bytes.Equal(more.SRH, out.SRH) {
				t.Fatalf("trailing bytes changed the result: %v %+v", err, more)
			}
		}
	})
}

// ipLengthSet reports whether the IP header at the start of b has a
// non-zero length field (zero means "the captured length").
func ipLengthSet(b []byte) bool {
	if b[0]>>4 == 4 {
		return b[2] != 0 || b[3] != 0
	}
	return b[4] != 0 || b[5] != 0
}

func sameTCP(a, b TCP) bool {
	return a.Src == b.Src && a.Dst == b.Dst && a.SrcPort == b.SrcPort && a.DstPort == b.DstPort &&
		a.Proto == b.Proto && bytes.Equal(a.Segment, b.Segment) && bytes.Equal(a.SRH, b.SRH) &&
		(a.Segment == nil) == (b.Segment == nil) && (a.SRH == nil) == (b.SRH == nil)
}

// sameAsGeneral: DecodeTCP's one-pass decoding of untagged Ethernet IPv4
// frames gives what the general walk (decodeLink) gives, result and error.
func sameAsGeneral(t *testing.T, link uint32, data []byte, out *TCP, err error) {
	t.Helper()
	if link != LinkEthernet {
		return
	}
	var ref TCP
	rerr := decodeLink(data, 14, 12, &ref)
	if rerr != err || ref.Src != out.Src || ref.Dst != out.Dst || ref.SrcPort != out.SrcPort || ref.DstPort != out.DstPort ||
		ref.Proto != out.Proto || !bytes.Equal(ref.Segment, out.Segment) || !bytes.Equal(ref.SRH, out.SRH) ||
		len(ref.Segment) > 0 && (&ref.Segment[0] != &out.Segment[0] || cap(ref.Segment) != cap(out.Segment)) {
		t.Fatalf("%x: DecodeTCP %+v, %v; the general walk %+v, %v", data, *out, err, ref, rerr)
	}
}
