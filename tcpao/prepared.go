package tcpao

import (
	"crypto/aes"
	"crypto/subtle"
	"encoding/binary"
	"fmt"
	"net/netip"

	"github.com/authbgp/authbgpd/tcpopt"
)

// PseudoHeader is the address part of the pseudo-header a TCP-AO MAC
// covers (RFC 5925 §5.1) for segments from one source to one destination
// (IPv4: the two addresses, 8 bytes; IPv6: 32 bytes), prepared once so
// that a caller verifying many segments of one connection, such as the
// shadow checker, pays for unmapping, the family check and the address
// copies once per connection, not per segment. The zero PseudoHeader
// belongs to no family: VerifyPrepared fails with it (ErrAddrFamily).
type PseudoHeader struct {
	b   [32]byte // the addresses as the MAC message holds them
	fam uint8    // 4 or 6; 0 for the zero value
}

// NewPseudoHeader prepares the pseudo-header addresses of segments from
// src to dst. IPv4-mapped IPv6 addresses count as IPv4, as for Segment.
// Mixed families are ErrAddrFamily.
func NewPseudoHeader(src, dst netip.Addr) (PseudoHeader, error) {
	var ph PseudoHeader
	switch ph.fam = family(src, dst); ph.fam {
	case 4:
		s, d := src.Unmap().As4(), dst.Unmap().As4()
		copy(ph.b[0:4], s[:])
		copy(ph.b[4:8], d[:])
	case 6:
		s, d := src.As16(), dst.As16()
		copy(ph.b[0:16], s[:])
		copy(ph.b[16:32], d[:])
	default:
		return PseudoHeader{}, fmt.Errorf("%w: %v -> %v", ErrAddrFamily, src, dst)
	}
	return ph, nil
}

// VerifyPrepared is VerifyParsed for the segment tcp (TCP header, options
// and payload) whose addresses are prepared in ph: the same MAC, the same
// checks that opts and hl (from tcpopt.ParseSegment(tcp)) describe tcp,
// failing closed (ErrParsedOptions, ErrNoOption, ErrMD5Option,
// ErrSegmentTooBig; ErrAddrFamily for the zero PseudoHeader), and the same
// constant-time comparison, without the per-segment address work. It is
// the shadow checker's per-segment path: one function, no call besides
// the MAC's own. It does not allocate unless it returns an error, and
// keeps nothing of tcp.
func (k *TrafficKey) VerifyPrepared(sne uint32, ph *PseudoHeader, tcp []byte, opts tcpopt.Options, hl int) (bool, error) {
	o := opts.AOOffset()
	var err error
	switch {
	case ph.fam != 4 && ph.fam != 6:
		err = ErrAddrFamily
	case len(tcp) < tcpopt.FixedHeaderLen || hl < tcpopt.FixedHeaderLen || hl > len(tcp) || hl != int(tcp[12]>>4)*4:
		err = fmt.Errorf("%w: header length %d, %d bytes", ErrParsedOptions, hl, len(tcp))
	case len(tcp) > 0xffff:
		err = fmt.Errorf("%w: %d bytes", ErrSegmentTooBig, len(tcp))
	case !opts.HasAO():
		err = ErrNoOption
	case opts.HasMD5():
		err = fmt.Errorf("%w: %w", ErrMD5Option, tcpopt.ErrMD5AndAO)
	case o+tcpopt.AOMinLen > hl-tcpopt.FixedHeaderLen || tcp[20+o] != OptAO || tcp[21+o] < tcpopt.AOMinLen || o+int(tcp[21+o]) > hl-tcpopt.FixedHeaderLen:
		err = fmt.Errorf("%w: no TCP-AO option at offset %d of a %d-byte option list", ErrParsedOptions, o, hl-tcpopt.FixedHeaderLen)
	default:
		err = k.alg.usable()
	}
	if err != nil {
		return false, fmt.Errorf("tcpao: verify %d-byte segment: %w", len(tcp), err)
	}
	// The message (RFC 5925 §5.1) up to the payload in k.head, as
	// compute assembles it; the payload is fed from tcp itself.
	b := k.head[:]
	be := binary.BigEndian
	be.PutUint32(b[0:4], sne)
	n := 16
	if ph.fam == 4 {
		copy(b[4:12], ph.b[0:8])
		be.PutUint32(b[12:16], 6<<16|uint32(len(tcp)))
	} else {
		copy(b[4:36], ph.b[:])
		be.PutUint32(b[36:40], uint32(len(tcp)))
		be.PutUint32(b[40:44], 6)
		n = 44
	}
	copy(b[n:n+20], tcp[:20])
	b[n+16], b[n+17] = 0, 0 // checksum
	n += 20
	ao := 20 + o // the option's offset in tcp
	aoLen := int(tcp[ao+1])
	if k.include {
		m := copy(b[n:], tcp[20:hl])
		clear(b[n+ao-20+4 : n+ao-20+aoLen]) // the MAC field
		n += m
	} else {
		copy(b[n:n+4], tcp[ao:ao+4])
		clear(b[n+4 : n+aoLen])
		n += aoLen
	}
	payload := tcp[hl:]
	if k.h != nil {
		k.h.Reset()
		k.h.Write(b[:n])
		k.h.Write(payload)
		k.h.Sum(k.sum[:0])
	} else {
		c := k.c
		c.reset()
		c.write(b[:n])
		c.write(payload)
		c.sum(k.sum[:aes.BlockSize])
	}
	return subtle.ConstantTimeCompare(tcp[ao+tcpopt.AOMinLen:ao+aoLen], k.sum[:k.macLen]) == 1, nil
}
