package tcpao

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
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

// randBytes fills a new n-byte slice from r.
func randBytes(r interface{ Uint32() uint32 }, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// segSpec describes a random segment to build.
type segSpec struct {
	v6, mapped bool
	flags      byte // TCP flags byte
	payload    int
	keyID      uint8
	rnext      uint8
	noAO       bool
	macLen     int // the TCP-AO option's MAC field; 0: MACLen
}

// randOptions returns a TCP option list of at most 40 bytes, a multiple of
// 4, holding a TCP-AO option with a macLen-byte MAC (unless noAO) among
// other options, and the AO option's offset (-1 without it).
func randOptions(r interface {
	Uint32() uint32
	IntN(int) int
}, keyID, rnext uint8, noAO bool, macLen int) ([]byte, int) {
	var opts []byte
	aoAt := -1
	others := [][]byte{
		{2, 4, 0x05, 0xb4},              // MSS
		{OptNOP, 3, 3, 7},               // NOP, window scale
		{4, 2},                          // SACK permitted
		{8, 10, 0, 0, 0, 0, 0, 0, 0, 0}, // timestamps
		{OptNOP},
		{30, 4, 1, 2},                   // an option of another kind
		{5, 10, 1, 2, 3, 4, 5, 6, 7, 8}, // one SACK block
	}
	addAO := func() {
		aoAt = len(opts)
		opts = Option{KeyID: keyID, RNextKeyID: rnext, MAC: randBytes(r, macLen)}.Append(opts)
	}
	for i, n := 0, r.IntN(6); i < n; i++ {
		if !noAO && aoAt < 0 && r.IntN(3) == 0 {
			addAO()
			continue
		}
		o := bytes.Clone(others[r.IntN(len(others))])
		for j := 2; o[0] != OptNOP && j < len(o); j++ {
			o[j] = byte(r.Uint32()) // random option contents
		}
		reserve := 3 // padding
		if !noAO && aoAt < 0 {
			reserve += 4 + macLen
		}
		if len(opts)+len(o)+reserve > 40 {
			break
		}
		opts = append(opts, o...)
	}
	if !noAO && aoAt < 0 {
		addAO()
	}
	// Pad with NOPs, or an EOL and zeros.
	if len(opts)%4 != 0 {
		if r.IntN(2) == 0 {
			for len(opts)%4 != 0 {
				opts = append(opts, OptNOP)
			}
		} else {
			opts = append(opts, OptEOL)
			for len(opts)%4 != 0 {
				opts = append(opts, 0)
			}
		}
	}
	if len(opts) > 40 {
		panic(fmt.Sprintf("randOptions: %d bytes", len(opts)))
	}
	return opts, aoAt
}

// randSegment builds a random segment as spec says, with a random
// (non-zero) checksum and urgent pointer so that tests notice what is and
// is not covered.
func randSegment(r interface {
	Uint32() uint32
	IntN(int) int
}, spec segSpec) Segment {
	macLen := spec.macLen
	if macLen == 0 {
		macLen = MACLen
	}
	opts, _ := randOptions(r, spec.keyID, spec.rnext, spec.noAO, macLen)
	hl := 20 + len(opts)
	tcp := make([]byte, hl, hl+spec.payload)
	binary.BigEndian.PutUint16(tcp[0:2], uint16(r.Uint32()))
	binary.BigEndian.PutUint16(tcp[2:4], 179)
	binary.BigEndian.PutUint32(tcp[4:8], r.Uint32())
	if spec.flags&flagACK != 0 {
		binary.BigEndian.PutUint32(tcp[8:12], r.Uint32())
	}
	tcp[12] = byte(hl/4) << 4
	tcp[13] = spec.flags
	binary.BigEndian.PutUint16(tcp[14:16], uint16(r.Uint32()))
	binary.BigEndian.PutUint16(tcp[16:18], uint16(r.Uint32())|1)
	binary.BigEndian.PutUint16(tcp[18:20], uint16(r.Uint32()))
	copy(tcp[20:], opts)
	tcp = append(tcp, randBytes(r, spec.payload)...)
	var src, dst netip.Addr
	switch {
	case spec.v6:
		src, dst = netip.AddrFrom16([16]byte(randBytes(r, 16))), netip.AddrFrom16([16]byte(randBytes(r, 16)))
	default:
		src, dst = netip.AddrFrom4([4]byte(randBytes(r, 4))), netip.AddrFrom4([4]byte(randBytes(r, 4)))
		if spec.mapped {
			src, dst = netip.AddrFrom16(src.As16()), netip.AddrFrom16(dst.As16())
		}
	}
	return Segment{Src: src, Dst: dst, TCP: tcp}
}

// referenceMessage builds the MAC message of RFC 5925 §5.1 the slow,
// obvious way, straight from the RFC's text: an oracle for compute.
func referenceMessage(sne uint32, seg Segment, include bool) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.BigEndian, sne)
	src, dst := seg.Src.Unmap(), seg.Dst.Unmap()
	n := len(seg.TCP)
	b.Write(src.AsSlice())
	b.Write(dst.AsSlice())
	if src.Is4() {
		b.Write([]byte{0, 6, byte(n >> 8), byte(n)})
	} else {
		b.Write([]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n), 0, 0, 0, 6})
	}
	hdr := bytes.Clone(seg.TCP[:20])
	hdr[16], hdr[17] = 0, 0
	b.Write(hdr)
	hl := int(seg.TCP[12]>>4) * 4
	opts := seg.TCP[20:hl]
	for i := 0; i < len(opts); {
		kind := opts[i]
		if kind == OptEOL { // the list ends; the rest is padding
			if include {
				b.Write(opts[i:])
			}
			break
		}
		if kind == OptNOP {
			if include {
				b.WriteByte(kind)
			}
			i++
			continue
		}
		l := int(opts[i+1])
		switch {
		case kind == OptAO:
			b.Write(opts[i : i+4])
			b.Write(make([]byte, l-4))
		case include:
			b.Write(opts[i : i+l])
		}
		i += l
	}
	b.Write(seg.TCP[hl:])
	return b.Bytes()
}

// referenceMAC is the 12-byte MAC of a reference message under a raw
// traffic key.
func referenceMAC(alg Algorithm, key, msg []byte) []byte {
	return referenceMACLen(alg, key, msg, MACLen)
}

// referenceHashes are the hashes of the HMAC algorithms, written out here
// rather than taken from the package.
// firstInvalid is the first Algorithm value after the table's (they
// count from 1).
var firstInvalid = Algorithm(len(Algorithms) + 1)

var referenceHashes = map[Algorithm]func() hash.Hash{
	HMACSHA1: sha1.New, HMACSHA224: sha256.New224, HMACSHA256: sha256.New, HMACSHA384: sha512.New384, HMACSHA512: sha512.New,
}

// referenceMACLen is the MAC of a reference message under a raw traffic
// key, truncated to n bytes: HMAC with the algorithm's hash, or
// AES-128-CMAC.
func referenceMACLen(alg Algorithm, key, msg []byte, n int) []byte {
	if alg == AESCMAC {
		s, _ := cmacSum(key, msg)
		return s[:n]
	}
	h := hmac.New(referenceHashes[alg], key)
	h.Write(msg)
	return h.Sum(nil)[:n]
}
