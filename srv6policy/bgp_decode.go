package srv6policy

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"slices"
)

// ErrMalformed wraps every decoding error of DecodePath.
var ErrMalformed = errors.New("srv6policy: malformed SR policy path")

// RouteTarget is an IPv4-address-specific Route Target extended community
// (type 0x01 or 0x41, subtype 0x02): "<address>:<local admin>".
type RouteTarget struct {
	Addr       netip.Addr
	LocalAdmin uint16
}

func (r RouteTarget) String() string { return fmt.Sprintf("%s:%d", r.Addr, r.LocalAdmin) }

// LargeCommunity is a BGP Large Community.
type LargeCommunity struct{ GlobalAdmin, LocalData1, LocalData2 uint32 }

func (l LargeCommunity) String() string {
	return fmt.Sprintf("%d:%d:%d", l.GlobalAdmin, l.LocalData1, l.LocalData2)
}

// SegmentList is one segment list of a received SR Policy TLV.
type SegmentList struct {
	Weight    uint32
	HasWeight bool
	// Segments are the SRv6 SIDs (type B), first hop first.
	Segments []netip.Addr
	// Other counts segments of other types (SR-MPLS labels...), which an
	// SRv6 headend cannot use.
	Other int
}

// Received is an SR policy path as received: its NLRI and the attributes a
// headend looks at. Only the first SR Policy TLV is read (RFC 9830 §2.1:
// an UPDATE carries one).
type Received struct {
	Distinguisher uint32
	Color         uint32
	Endpoint      netip.Addr

	HasSRPolicy   bool   // a Tunnel Encapsulation attribute with an SR Policy TLV
	Preference    uint32 // DefaultPreference when absent
	HasPreference bool
	// BindingSID is the 16-byte Binding SID (type 13 or SRv6 Binding SID
	// type 20 sub-TLV); invalid when absent or an MPLS label.
	BindingSID   netip.Addr
	SegmentLists []SegmentList

	RouteTargets []RouteTarget
	NoAdvertise  bool
	Large        []LargeCommunity
}

// KeyIDs returns the HMAC key IDs the path names (Large Communities
// <any asn>:8754:<id>), in order, without duplicates.
func (r *Received) KeyIDs() []uint32 {
	var ids []uint32
	for _, l := range r.Large {
		if l.LocalData1 == LargeCommunityHMAC && l.LocalData2 != 0 && !slices.Contains(ids, l.LocalData2) {
			ids = append(ids, l.LocalData2)
		}
	}
	return ids
}

// Key returns the (color, endpoint) the policy is selected by.
func (r *Received) Key() string { return fmt.Sprintf("%d/%s", r.Color, r.Endpoint) }

// NLRIKey returns the NLRI as NLRIKey formats it.
func (r *Received) NLRIKey() string { return NLRIKey(r.Distinguisher, r.Color, r.Endpoint) }

// DecodeNLRI decodes an SR Policy NLRI: length in bits (96 or 192),
// distinguisher, color, endpoint.
func DecodeNLRI(b []byte) (distinguisher, color uint32, endpoint netip.Addr, err error) {
	if len(b) < 1 {
		return 0, 0, netip.Addr{}, fmt.Errorf("%w: empty NLRI", ErrMalformed)
	}
	var n int
	switch b[0] {
	case NLRIBitsIPv4:
		n = 4
	case NLRIBitsIPv6:
		n = 16
	default:
		return 0, 0, netip.Addr{}, fmt.Errorf("%w: NLRI length %d bits (want 96 or 192)", ErrMalformed, b[0])
	}
	if len(b) != 1+8+n {
		return 0, 0, netip.Addr{}, fmt.Errorf("%w: NLRI of %d bytes for length %d bits", ErrMalformed, len(b), b[0])
	}
	distinguisher = binary.BigEndian.Uint32(b[1:5])
	color = binary.BigEndian.Uint32(b[5:9])
	endpoint, _ = netip.AddrFromSlice(b[9:])
	return distinguisher, color, endpoint, nil
}

// DecodePath decodes a received SR policy path from its binary NLRI and
// path attributes (each one whole: flags, type, length, value), as GoBGP's
// ListPath returns them with EnableOnlyBinary. Attributes it does not need
// are skipped; it never panics.
func DecodePath(nlri []byte, pattrs [][]byte) (*Received, error) {
	r := &Received{Preference: DefaultPreference}
	var err error
	if r.Distinguisher, r.Color, r.Endpoint, err = DecodeNLRI(nlri); err != nil {
		return nil, err
	}
	for _, a := range pattrs {
		typ, v, err := splitAttr(a)
		if err != nil {
			return nil, err
		}
		switch typ {
		case attrCommunities:
			if len(v)%4 != 0 {
				return nil, fmt.Errorf("%w: COMMUNITIES of %d bytes", ErrMalformed, len(v))
			}
			for i := 0; i < len(v); i += 4 {
				if binary.BigEndian.Uint32(v[i:]) == CommunityNoAdvertise {
					r.NoAdvertise = true
				}
			}
		case attrExtCommunities:
			if len(v)%8 != 0 {
				return nil, fmt.Errorf("%w: EXTENDED COMMUNITIES of %d bytes", ErrMalformed, len(v))
			}
			for i := 0; i < len(v); i += 8 {
				c := v[i : i+8]
				// IPv4-address-specific (transitive 0x01 or not 0x41), Route Target (0x02).
				if (c[0] == 0x01 || c[0] == 0x41) && c[1] == 0x02 {
					r.RouteTargets = append(r.RouteTargets, RouteTarget{
						Addr:       netip.AddrFrom4([4]byte(c[2:6])),
						LocalAdmin: binary.BigEndian.Uint16(c[6:8]),
					})
				}
			}
		case attrLargeCommunities:
			if len(v)%12 != 0 {
				return nil, fmt.Errorf("%w: LARGE COMMUNITIES of %d bytes", ErrMalformed, len(v))
			}
			for i := 0; i < len(v); i += 12 {
				r.Large = append(r.Large, LargeCommunity{
					binary.BigEndian.Uint32(v[i:]), binary.BigEndian.Uint32(v[i+4:]), binary.BigEndian.Uint32(v[i+8:]),
				})
			}
		case attrTunnelEncap:
			if err := r.decodeTunnelEncap(v); err != nil {
				return nil, err
			}
		}
	}
	return r, nil
}

// splitAttr splits one path attribute into its type and value.
func splitAttr(a []byte) (typ uint8, v []byte, err error) {
	if len(a) < 3 {
		return 0, nil, fmt.Errorf("%w: path attribute of %d bytes", ErrMalformed, len(a))
	}
	flags, typ := a[0], a[1]
	var l, off int
	if flags&attrFlagExtLen != 0 {
		if len(a) < 4 {
			return 0, nil, fmt.Errorf("%w: path attribute %d truncated", ErrMalformed, typ)
		}
		l, off = int(binary.BigEndian.Uint16(a[2:4])), 4
	} else {
		l, off = int(a[2]), 3
	}
	if len(a)-off != l {
		return 0, nil, fmt.Errorf("%w: path attribute %d: length %d, %d bytes", ErrMalformed, typ, l, len(a)-off)
	}
	return typ, a[off:], nil
}

// decodeTunnelEncap reads the first SR Policy TLV of a Tunnel
// Encapsulation attribute (RFC 9012: type and length of 2 bytes each).
func (r *Received) decodeTunnelEncap(v []byte) error {
	for len(v) > 0 {
		if len(v) < 4 {
			return fmt.Errorf("%w: tunnel encapsulation TLV header truncated", ErrMalformed)
		}
		typ, l := binary.BigEndian.Uint16(v[0:2]), int(binary.BigEndian.Uint16(v[2:4]))
		if l > len(v)-4 {
			return fmt.Errorf("%w: tunnel encapsulation TLV %d: length %d, %d bytes left", ErrMalformed, typ, l, len(v)-4)
		}
		val := v[4 : 4+l]
		v = v[4+l:]
		if typ != TunnelTypeSRPolicy || r.HasSRPolicy {
			continue
		}
		r.HasSRPolicy = true
		if err := r.decodeSRPolicy(val); err != nil {
			return err
		}
	}
	return nil
}

// subTLV splits the next sub-TLV off b: types of 128 and more have a
// 2-byte length (RFC 9012 §2).
func subTLV(b []byte) (typ uint8, val, rest []byte, err error) {
	if len(b) < 2 {
		return 0, nil, nil, fmt.Errorf("%w: sub-TLV header truncated", ErrMalformed)
	}
	typ = b[0]
	var l, off int
	if typ >= 128 {
		if len(b) < 3 {
			return 0, nil, nil, fmt.Errorf("%w: sub-TLV %d header truncated", ErrMalformed, typ)
		}
		l, off = int(binary.BigEndian.Uint16(b[1:3])), 3
	} else {
		l, off = int(b[1]), 2
	}
	if l > len(b)-off {
		return 0, nil, nil, fmt.Errorf("%w: sub-TLV %d: length %d, %d bytes left", ErrMalformed, typ, l, len(b)-off)
	}
	return typ, b[off : off+l], b[off+l:], nil
}

func (r *Received) decodeSRPolicy(v []byte) error {
	for len(v) > 0 {
		typ, val, rest, err := subTLV(v)
		if err != nil {
			return err
		}
		v = rest
		switch typ {
		case subTLVPreference:
			if len(val) != 6 {
				return fmt.Errorf("%w: Preference sub-TLV of length %d", ErrMalformed, len(val))
			}
			r.Preference, r.HasPreference = binary.BigEndian.Uint32(val[2:6]), true
		case subTLVBindingSID:
			// Flags, reserved, then no SID, a 4-byte label or a 16-byte SRv6 SID.
			switch len(val) {
			case 2, 6:
			case 18:
				r.BindingSID = netip.AddrFrom16([16]byte(val[2:18]))
			default:
				return fmt.Errorf("%w: Binding SID sub-TLV of length %d", ErrMalformed, len(val))
			}
		case subTLVSRv6BindingSID:
			// Flags, reserved, SID, optional endpoint behavior (8 bytes).
			if len(val) != 18 && len(val) != 26 {
				return fmt.Errorf("%w: SRv6 Binding SID sub-TLV of length %d", ErrMalformed, len(val))
			}
			r.BindingSID = netip.AddrFrom16([16]byte(val[2:18]))
		case subTLVSegmentList:
			sl, err := decodeSegmentList(val)
			if err != nil {
				return err
			}
			r.SegmentLists = append(r.SegmentLists, sl)
		}
	}
	return nil
}

func decodeSegmentList(v []byte) (SegmentList, error) {
	var sl SegmentList
	if len(v) < 1 {
		return sl, fmt.Errorf("%w: segment list sub-TLV without its reserved byte", ErrMalformed)
	}
	v = v[1:]
	for len(v) > 0 {
		typ, val, rest, err := subTLV(v)
		if err != nil {
			return sl, err
		}
		v = rest
		switch typ {
		case segSubTLVWeight:
			if len(val) != 6 {
				return sl, fmt.Errorf("%w: Weight sub-TLV of length %d", ErrMalformed, len(val))
			}
			sl.Weight, sl.HasWeight = binary.BigEndian.Uint32(val[2:6]), true
		case segTypeB:
			// Flags, reserved, SID, optional endpoint behavior (8 bytes).
			if len(val) != 18 && len(val) != 26 {
				return sl, fmt.Errorf("%w: segment type B of length %d", ErrMalformed, len(val))
			}
			sl.Segments = append(sl.Segments, netip.AddrFrom16([16]byte(val[2:18])))
		default:
			sl.Other++
		}
	}
	return sl, nil
}
