package srv6policy

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
)

// Segment Routing Header constants (RFC 8754, include/uapi/linux/seg6.h).
const (
	// RoutingTypeSRH is the IPv6 routing type of the SRH.
	RoutingTypeSRH = 4
	// FlagHMAC is the SRH flag that tells Linux to look for an HMAC TLV
	// (SR6_FLAG1_HMAC).
	FlagHMAC = 0x08
	// TLV types.
	TLVPad1 = 0 // one byte, no length (RFC 8754 §2.1.1.1)
	TLVPadN = 4
	TLVHMAC = 5
	// HMACTLVValueLen is the length field of Linux's HMAC TLV: 2 bytes (D
	// flag and reserved), the key ID (4) and the 32-byte HMAC field.
	HMACTLVValueLen = 38
	// MaxSRHLen is the longest SRH: Hdr Ext Len 255.
	MaxSRHLen = 2048

	srhFixedLen = 8
	hmacTLVLen  = 2 + HMACTLVValueLen
)

// Errors of the codec, for errors.Is. Every decoding error wraps
// ErrInvalidSRH.
var (
	ErrInvalidSRH   = errors.New("srv6policy: invalid SRH")
	ErrSRHTruncated = fmt.Errorf("%w: truncated", ErrInvalidSRH)
)

// SRH is a decoded Segment Routing Header. Hdr Ext Len and Last Entry are
// not stored: they follow from Segments and TLVs (Last Entry is
// len(Segments)-1, as Linux requires).
type SRH struct {
	NextHeader   uint8
	SegmentsLeft uint8
	Flags        uint8
	Tag          uint16
	// Segments in wire order: Segments[0] is the last segment (the final
	// destination), Segments[len-1] the first hop.
	Segments []netip.Addr
	// TLVs in wire order, padding included, so that an SRH encodes back to
	// the bytes it was decoded from.
	TLVs []TLV
}

// TLV is one SRH TLV. A Pad1 (type 0) is a single byte and has no Value;
// every other type has a length byte and Value (at most 255 bytes). Unknown
// types are kept as they are.
type TLV struct {
	Type  uint8
	Value []byte
}

// wireLen is the TLV's length on the wire.
func (t TLV) wireLen() int {
	if t.Type == TLVPad1 {
		return 1
	}
	return 2 + len(t.Value)
}

// HMACTLV is the content of an HMAC TLV (type 5, length 38).
type HMACTLV struct {
	// D set means the destination address check is disabled (RFC 8754
	// §2.1.2). Linux neither sets nor reads it.
	D bool
	// Reserved holds the 15 bits after D (sent as zero, kept as received).
	Reserved uint16
	KeyID    uint32
	HMAC     [HMACFieldLen]byte
}

// TLV encodes h as a type-5 TLV.
func (h HMACTLV) TLV() TLV {
	v := make([]byte, HMACTLVValueLen)
	binary.BigEndian.PutUint16(v[0:2], h.Reserved&0x7fff)
	if h.D {
		v[0] |= 0x80
	}
	binary.BigEndian.PutUint32(v[2:6], h.KeyID)
	copy(v[6:], h.HMAC[:])
	return TLV{Type: TLVHMAC, Value: v}
}

// HMAC decodes t as an HMAC TLV; ok is false unless t has type 5 and a
// 38-byte value.
func (t TLV) HMAC() (h HMACTLV, ok bool) {
	if t.Type != TLVHMAC || len(t.Value) != HMACTLVValueLen {
		return HMACTLV{}, false
	}
	v := t.Value
	h.D = v[0]&0x80 != 0
	h.Reserved = binary.BigEndian.Uint16(v[0:2]) & 0x7fff
	h.KeyID = binary.BigEndian.Uint32(v[2:6])
	copy(h.HMAC[:], v[6:])
	return h, true
}

// PadN returns a PadN TLV that occupies n bytes on the wire (n ≥ 2; n ≤ 1
// gives a Pad1, which Linux's validation refuses as the last TLV: it reads
// a length byte after every TLV type, Pad1 included).
func PadN(n int) TLV {
	if n <= 1 {
		return TLV{Type: TLVPad1}
	}
	return TLV{Type: TLVPadN, Value: make([]byte, n-2)}
}

// LastEntry returns len(Segments)-1 (0 for none).
func (s *SRH) LastEntry() uint8 {
	if len(s.Segments) == 0 {
		return 0
	}
	return uint8(len(s.Segments) - 1)
}

// Len returns the encoded length in bytes.
func (s *SRH) Len() int {
	n := srhFixedLen + 16*len(s.Segments)
	for _, t := range s.TLVs {
		n += t.wireLen()
	}
	return n
}

// HMAC returns the HMAC TLV as Linux sees it: flag 0x08 set and the last TLV
// of type 5, length 38 (the last 40 bytes of the SRH).
func (s *SRH) HMAC() (HMACTLV, bool) {
	if s.Flags&FlagHMAC == 0 || len(s.TLVs) == 0 {
		return HMACTLV{}, false
	}
	return s.TLVs[len(s.TLVs)-1].HMAC()
}

// FirstHopFirst returns the segments in travel order (the order the
// configuration and `ip route ... segs` use): the reverse of Segments.
func (s *SRH) FirstHopFirst() []netip.Addr {
	out := make([]netip.Addr, len(s.Segments))
	for i, a := range s.Segments {
		out[len(out)-1-i] = a
	}
	return out
}

// EncapSRH returns the SRH that Linux builds for a route `encap seg6 mode
// encap segs S1,S2,... hmac ID` (iproute2's parse_srh): segments (given
// first hop first) stored reversed, Segments Left = Last Entry =
// len(segments)-1, and with keyID ≠ 0 flag 0x08 and a zeroed HMAC TLV for
// the key as the last 40 bytes. Next Header is left 0 (the kernel fills it
// in). With keyID ≠ 0 at most MaxHMACSegments segments are allowed.
func EncapSRH(segments []netip.Addr, keyID uint32) (*SRH, error) {
	return buildSRH(segments, keyID, false)
}

// InlineSRH returns the SRH Linux builds for `encap seg6 mode inline segs
// ...`: as EncapSRH with one more segment, Segments[0], which the kernel
// overwrites with the packet's destination (left unspecified, ::, here).
func InlineSRH(segments []netip.Addr, keyID uint32) (*SRH, error) {
	return buildSRH(segments, keyID, true)
}

func buildSRH(segments []netip.Addr, keyID uint32, inline bool) (*SRH, error) {
	if len(segments) == 0 {
		return nil, fmt.Errorf("%w: no segments", ErrInvalidSRH)
	}
	n := len(segments)
	if inline {
		n++
	}
	if keyID != 0 && n > MaxHMACSegments {
		return nil, fmt.Errorf("%d segments: %w", n, ErrTooManySegments)
	}
	s := &SRH{Segments: make([]netip.Addr, n)}
	if inline {
		s.Segments[0] = netip.IPv6Unspecified()
	}
	for i, a := range segments {
		if !a.Is6() || a.Zone() != "" {
			return nil, fmt.Errorf("srv6policy: segment %s is not an IPv6 address", a)
		}
		s.Segments[n-1-i] = a
	}
	s.SegmentsLeft = uint8(n - 1)
	if keyID != 0 {
		s.Flags = FlagHMAC
		s.TLVs = []TLV{HMACTLV{KeyID: keyID}.TLV()}
	}
	if _, err := s.Encode(); err != nil {
		return nil, err
	}
	return s, nil
}

// Encode returns the SRH's wire form. It fails for what DecodeSRH would
// refuse: no segments, an IPv4 segment, Segments Left over Last Entry, TLVs
// that do not end on an 8-byte boundary, a Pad1 with a value, a value over
// 255 bytes, an HMAC TLV whose length is not 38, more than
// MaxHMACSegments segments with an HMAC TLV, more than 2048 bytes, or a TLV
// area that Linux would walk differently (seg6_validate_srh reads a length
// byte after a Pad1).
func (s *SRH) Encode() ([]byte, error) { return s.Append(nil) }

// Append appends the SRH's wire form to dst (see Encode).
func (s *SRH) Append(dst []byte) ([]byte, error) {
	if len(s.Segments) == 0 {
		return dst, fmt.Errorf("%w: no segments", ErrInvalidSRH)
	}
	n := s.Len()
	if n%8 != 0 {
		return dst, fmt.Errorf("%w: length %d is not a multiple of 8 (pad the TLVs)", ErrInvalidSRH, n)
	}
	if n > MaxSRHLen {
		return dst, fmt.Errorf("%w: length %d is over %d", ErrInvalidSRH, n, MaxSRHLen)
	}
	start := len(dst)
	dst = append(dst, s.NextHeader, uint8(n/8-1), RoutingTypeSRH, s.SegmentsLeft, s.LastEntry(), s.Flags, 0, 0)
	binary.BigEndian.PutUint16(dst[start+6:], s.Tag)
	for _, a := range s.Segments {
		if !a.Is6() || a.Zone() != "" {
			return dst[:start], fmt.Errorf("%w: segment %s is not an IPv6 address", ErrInvalidSRH, a)
		}
		b := a.As16()
		dst = append(dst, b[:]...)
	}
	for i, t := range s.TLVs {
		if t.Type == TLVPad1 {
			if len(t.Value) != 0 {
				return dst[:start], fmt.Errorf("%w: TLV %d is a Pad1 with a value", ErrInvalidSRH, i)
			}
			dst = append(dst, 0)
			continue
		}
		if len(t.Value) > 255 {
			return dst[:start], fmt.Errorf("%w: TLV %d (type %d) value is %d bytes, over 255", ErrInvalidSRH, i, t.Type, len(t.Value))
		}
		dst = append(dst, t.Type, uint8(len(t.Value)))
		dst = append(dst, t.Value...)
	}
	if err := ValidateSRH(dst[start:]); err != nil {
		return dst[:start], err
	}
	return dst, nil
}

// DecodeSRH decodes b, exactly one whole SRH (fixed header, segments and
// TLVs, (Hdr Ext Len + 1) * 8 bytes), after checking it with ValidateSRH.
// The result does not alias b. It never panics.
func DecodeSRH(b []byte) (*SRH, error) {
	if err := ValidateSRH(b); err != nil {
		return nil, err
	}
	n := int(b[4]) + 1
	s := &SRH{
		NextHeader:   b[0],
		SegmentsLeft: b[3],
		Flags:        b[5],
		Tag:          binary.BigEndian.Uint16(b[6:8]),
		Segments:     make([]netip.Addr, n),
	}
	for i := range s.Segments {
		off := srhFixedLen + 16*i
		s.Segments[i] = netip.AddrFrom16([16]byte(b[off : off+16]))
	}
	for off := srhFixedLen + 16*n; off < len(b); {
		t := TLV{Type: b[off]}
		if t.Type == TLVPad1 {
			off++
		} else {
			l := int(b[off+1])
			t.Value = append([]byte(nil), b[off+2:off+2+l]...)
			off += 2 + l
		}
		s.TLVs = append(s.TLVs, t)
	}
	return s, nil
}

// ValidateSRH checks that b is one whole SRH as DecodeSRH accepts it,
// without allocating:
//
//   - what Linux's seg6_validate_srh (net/ipv6/seg6.c) checks for an SRH
//     given in a route or a socket option: routing type 4, length (Hdr Ext
//     Len + 1) * 8, Segments Left ≤ Last Entry, Last Entry + 1 segments
//     within the header, and a TLV walk (type, length, value) that ends
//     exactly at the end of the header;
//   - the same walk as RFC 8754 defines it (a Pad1 is one byte): it must
//     end exactly at the end too;
//   - an HMAC TLV (type 5) has length 38, and an SRH with one has at most
//     MaxHMACSegments segments (the kernel cannot compute more).
func ValidateSRH(b []byte) error {
	if err := kernelValidateSRH(b); err != nil {
		return err
	}
	hasHMAC := false
	for off := srhFixedLen + 16*(int(b[4])+1); off < len(b); {
		typ := b[off]
		if typ == TLVPad1 {
			off++
			continue
		}
		if len(b)-off < 2 {
			return fmt.Errorf("%w: TLV at offset %d: no room for its length byte", ErrInvalidSRH, off)
		}
		l := int(b[off+1])
		if l > len(b)-off-2 {
			return fmt.Errorf("%w: TLV at offset %d (type %d, length %d) runs past the header", ErrInvalidSRH, off, typ, l)
		}
		if typ == TLVHMAC {
			if l != HMACTLVValueLen {
				return fmt.Errorf("%w: HMAC TLV at offset %d has length %d, not %d", ErrInvalidSRH, off, l, HMACTLVValueLen)
			}
			hasHMAC = true
		}
		off += 2 + l
	}
	if hasHMAC && int(b[4])+1 > MaxHMACSegments {
		return fmt.Errorf("%w: %d segments: %w", ErrInvalidSRH, int(b[4])+1, ErrTooManySegments)
	}
	return nil
}

// kernelValidateSRH is seg6_validate_srh(srh, len, false) of Linux 6.x.
func kernelValidateSRH(b []byte) error {
	if len(b) < srhFixedLen {
		return fmt.Errorf("%w: %d bytes, under the 8-byte fixed header", ErrSRHTruncated, len(b))
	}
	hdrlen, typ, segLeft, lastEntry := int(b[1]), b[2], b[3], int(b[4])
	if typ != RoutingTypeSRH {
		return fmt.Errorf("%w: routing type %d, not 4", ErrInvalidSRH, typ)
	}
	if (hdrlen+1)*8 != len(b) {
		if (hdrlen+1)*8 > len(b) {
			return fmt.Errorf("%w: Hdr Ext Len %d says %d bytes, have %d", ErrSRHTruncated, hdrlen, (hdrlen+1)*8, len(b))
		}
		return fmt.Errorf("%w: Hdr Ext Len %d says %d bytes, have %d", ErrInvalidSRH, hdrlen, (hdrlen+1)*8, len(b))
	}
	if int(segLeft) > lastEntry {
		return fmt.Errorf("%w: Segments Left %d is over Last Entry %d", ErrInvalidSRH, segLeft, lastEntry)
	}
	if lastEntry > hdrlen/2-1 {
		return fmt.Errorf("%w: Last Entry %d: %d segments do not fit Hdr Ext Len %d", ErrInvalidSRH, lastEntry, lastEntry+1, hdrlen)
	}
	off := srhFixedLen + 16*(lastEntry+1)
	trailing := len(b) - off
	if trailing < 0 { // unreachable after the Last Entry check; kept as in the kernel
		return fmt.Errorf("%w: segments overrun the header", ErrInvalidSRH)
	}
	for trailing > 0 {
		if trailing < 2 {
			return fmt.Errorf("%w: TLV at offset %d: no room for its length byte (Linux reads one even after a Pad1)", ErrInvalidSRH, off)
		}
		tl := 2 + int(b[off+1])
		trailing -= tl
		if trailing < 0 {
			return fmt.Errorf("%w: TLV at offset %d (type %d, length %d) runs past the header", ErrInvalidSRH, off, b[off], tl-2)
		}
		off += tl
	}
	return nil
}
