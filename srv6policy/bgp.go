package srv6policy

// SR Policies in BGP (SAFI 73, RFC 9830) as authbgpd advertises and reads
// them:
//
//   - Policy.Path builds the GoBGP API path of a configured policy: the SR
//     Policy NLRI (distinguisher, color, endpoint), a Tunnel Encapsulation
//     attribute with one SR Policy TLV (type 15: preference, Binding SID as
//     a 16-byte SID, one segment list with a Weight and SRv6 type-B
//     segments), Route Targets naming the headends (or NO_ADVERTISE), and
//     the HMAC key ID as the Large Community <asn>:8754:<key id>. Never a
//     secret.
//   - DecodePath decodes a received path from the binary NLRI and path
//     attributes GoBGP's ListPath gives with EnableOnlyBinary, with our own
//     parser: GoBGP's conversion to API form panics on a segment list
//     without a Weight, and runs on GoBGP's goroutines for watches.
//   - Received.Check and SelectBest decide what a headend installs.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"sort"
	"strings"

	api "github.com/osrg/gobgp/v3/api"
	apb "google.golang.org/protobuf/types/known/anypb"
)

// BGP constants of SR policies.
const (
	// LargeCommunityHMAC is the Local Data Part 1 of the Large Community
	// that carries an SR policy's HMAC key ID (<asn>:8754:<key id>; 8754
	// is the RFC that defines the SRH HMAC).
	LargeCommunityHMAC = 8754
	// TunnelTypeSRPolicy is the Tunnel Encapsulation TLV type of an SR
	// Policy (RFC 9830).
	TunnelTypeSRPolicy = 15
	// CommunityNoAdvertise is the well-known community NO_ADVERTISE.
	CommunityNoAdvertise = 0xFFFFFF02
	// DefaultPreference is the preference of a candidate path that
	// carries no Preference sub-TLV (RFC 9256 §2.7).
	DefaultPreference = 100
	// NLRIBitsIPv4 and NLRIBitsIPv6 are the NLRI lengths, in bits, of
	// SR policies with an IPv4 and an IPv6 endpoint (GoBGP's API takes the
	// length in bits; its ListPath reports it in bytes).
	NLRIBitsIPv4 = 96
	NLRIBitsIPv6 = 192

	// Sub-TLVs of the SR Policy TLV (RFC 9830 §2.4).
	subTLVPreference     = 12
	subTLVBindingSID     = 13
	subTLVENLP           = 14
	subTLVPriority       = 15
	subTLVSRv6BindingSID = 20
	subTLVSegmentList    = 128
	// Sub-TLVs of a segment list.
	segSubTLVWeight = 9
	segTypeA        = 1  // SR-MPLS label
	segTypeB        = 13 // SRv6 SID

	// Path attribute types.
	attrOrigin           = 1
	attrCommunities      = 8
	attrExtCommunities   = 16
	attrTunnelEncap      = 23
	attrLargeCommunities = 32
	attrFlagExtLen       = 0x10
)

// Policy is an SR policy to advertise: one candidate path with one segment
// list of SRv6 SIDs.
type Policy struct {
	Name          string
	Color         uint32
	Endpoint      netip.Addr // IPv6 (family ipv6-srpolicy) or IPv4 (ipv4-srpolicy)
	Distinguisher uint32
	Preference    uint32
	BindingSID    netip.Addr   // IPv6; invalid: no Binding SID sub-TLV
	Segments      []netip.Addr // first hop first
	KeyID         uint32       // 0: no HMAC (no key Large Community)
	Headends      []netip.Addr // router IDs (IPv4); empty: NO_ADVERTISE
	// Weight of the segment list; 0 means 1. A weight is always sent: a
	// segment list without one panics GoBGP's API conversion on receivers.
	Weight uint32
}

// Validate checks what Path needs.
func (p *Policy) Validate() error {
	switch {
	case !p.Endpoint.IsValid() || p.Endpoint.Zone() != "":
		return fmt.Errorf("srv6policy: policy %q: endpoint %v is not an IP address", p.Name, p.Endpoint)
	case p.BindingSID.IsValid() && (!p.BindingSID.Is6() || p.BindingSID.Is4In6() || p.BindingSID.Zone() != "" || p.BindingSID.IsUnspecified()):
		return fmt.Errorf("srv6policy: policy %q: binding SID %v is not an IPv6 address", p.Name, p.BindingSID)
	case len(p.Segments) == 0:
		return fmt.Errorf("srv6policy: policy %q: no segments", p.Name)
	case p.KeyID != 0 && len(p.Segments) > MaxHMACSegments:
		return fmt.Errorf("srv6policy: policy %q: %d segments: %w", p.Name, len(p.Segments), ErrTooManySegments)
	}
	for _, s := range p.Segments {
		if !s.Is6() || s.Is4In6() || s.Zone() != "" || s.IsUnspecified() {
			return fmt.Errorf("srv6policy: policy %q: segment %v is not an IPv6 address", p.Name, s)
		}
	}
	for _, h := range p.Headends {
		if !h.Is4() {
			return fmt.Errorf("srv6policy: policy %q: headend %v is not a router ID (IPv4)", p.Name, h)
		}
	}
	return nil
}

// Family returns the policy's address family: ipv6-srpolicy for an IPv6
// endpoint, ipv4-srpolicy for an IPv4 one.
func (p *Policy) Family() *api.Family {
	if p.Endpoint.Is4() {
		return &api.Family{Afi: api.Family_AFI_IP, Safi: api.Family_SAFI_SR_POLICY}
	}
	return &api.Family{Afi: api.Family_AFI_IP6, Safi: api.Family_SAFI_SR_POLICY}
}

// NLRIKey identifies the policy's NLRI (distinguisher, color, endpoint):
// two policies with the same key are the same BGP route.
func (p *Policy) NLRIKey() string {
	return NLRIKey(p.Distinguisher, p.Color, p.Endpoint)
}

// NLRIKey formats an SR Policy NLRI as "[distinguisher][color][endpoint]".
func NLRIKey(distinguisher, color uint32, endpoint netip.Addr) string {
	return fmt.Sprintf("[%d][%d][%s]", distinguisher, color, endpoint)
}

// SameRoute reports whether p and q advertise the same BGP path (NLRI and
// every attribute Path sets).
func (p *Policy) SameRoute(q *Policy) bool {
	return p.Color == q.Color && p.Endpoint == q.Endpoint && p.Distinguisher == q.Distinguisher &&
		p.Preference == q.Preference && p.BindingSID == q.BindingSID && slices.Equal(p.Segments, q.Segments) &&
		p.KeyID == q.KeyID && slices.Equal(p.Headends, q.Headends) && p.Weight == q.Weight
}

// Path returns the GoBGP API path that advertises p, originated in AS asn:
// NLRI, ORIGIN IGP, an unspecified next hop (GoBGP sends its session
// address), the Tunnel Encapsulation attribute, Route Targets or
// NO_ADVERTISE, and the key ID Large Community when p has a key.
func (p *Policy) Path(asn uint32) (*api.Path, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	bits, nh := uint32(NLRIBitsIPv6), "::"
	if p.Endpoint.Is4() {
		bits, nh = NLRIBitsIPv4, "0.0.0.0"
	}
	nlri, err := apb.New(&api.SRPolicyNLRI{
		Length:        bits,
		Distinguisher: p.Distinguisher,
		Color:         p.Color,
		Endpoint:      p.Endpoint.AsSlice(),
	})
	if err != nil {
		return nil, err
	}
	var attrs []*apb.Any
	push := func(a *apb.Any, err error) error {
		if err != nil {
			return err
		}
		attrs = append(attrs, a)
		return nil
	}
	if err := push(apb.New(&api.OriginAttribute{Origin: 0})); err != nil {
		return nil, err
	}
	if err := push(apb.New(&api.NextHopAttribute{NextHop: nh})); err != nil {
		return nil, err
	}
	if len(p.Headends) > 0 {
		var rts []*apb.Any
		for _, h := range p.Headends {
			rt, err := apb.New(&api.IPv4AddressSpecificExtended{IsTransitive: true, SubType: 0x02, Address: h.String(), LocalAdmin: 0})
			if err != nil {
				return nil, err
			}
			rts = append(rts, rt)
		}
		if err := push(apb.New(&api.ExtendedCommunitiesAttribute{Communities: rts})); err != nil {
			return nil, err
		}
	} else if err := push(apb.New(&api.CommunitiesAttribute{Communities: []uint32{CommunityNoAdvertise}})); err != nil {
		return nil, err
	}
	if p.KeyID != 0 {
		lc := &api.LargeCommunity{GlobalAdmin: asn, LocalData1: LargeCommunityHMAC, LocalData2: p.KeyID}
		if err := push(apb.New(&api.LargeCommunitiesAttribute{Communities: []*api.LargeCommunity{lc}})); err != nil {
			return nil, err
		}
	}
	tun, err := p.tunnelEncap()
	if err != nil {
		return nil, err
	}
	if err := push(apb.New(tun)); err != nil {
		return nil, err
	}
	return &api.Path{Family: p.Family(), Nlri: nlri, Pattrs: attrs}, nil
}

func (p *Policy) tunnelEncap() (*api.TunnelEncapAttribute, error) {
	var sub []*apb.Any
	pref, err := apb.New(&api.TunnelEncapSubTLVSRPreference{Flags: 0, Preference: p.Preference})
	if err != nil {
		return nil, err
	}
	sub = append(sub, pref)
	if p.BindingSID.IsValid() {
		// api.SRBindingSID with all 16 bytes: a type-13 sub-TLV of length
		// 18. (api.SRv6BindingSID would zero the last two bytes.)
		sid, err := apb.New(&api.SRBindingSID{Sid: p.BindingSID.AsSlice()})
		if err != nil {
			return nil, err
		}
		bsid, err := apb.New(&api.TunnelEncapSubTLVSRBindingSID{Bsid: sid})
		if err != nil {
			return nil, err
		}
		sub = append(sub, bsid)
	}
	var segs []*apb.Any
	for _, s := range p.Segments {
		// Flags must be set: GoBGP dereferences them.
		seg, err := apb.New(&api.SegmentTypeB{Flags: &api.SegmentFlags{}, Sid: s.AsSlice()})
		if err != nil {
			return nil, err
		}
		segs = append(segs, seg)
	}
	w := p.Weight
	if w == 0 {
		w = 1
	}
	sl, err := apb.New(&api.TunnelEncapSubTLVSRSegmentList{Weight: &api.SRWeight{Flags: 0, Weight: w}, Segments: segs})
	if err != nil {
		return nil, err
	}
	sub = append(sub, sl)
	return &api.TunnelEncapAttribute{Tlvs: []*api.TunnelEncapTLV{{Type: TunnelTypeSRPolicy, Tlvs: sub}}}, nil
}

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

// Installable is what a headend installs for a valid received policy.
type Installable struct {
	KeyID      uint32
	BindingSID netip.Addr // invalid: none
	Segments   []netip.Addr
}

// HeadendView is what Check compares a received policy with.
type HeadendView struct {
	RouterID netip.Addr // ours
	// Direct reports whether the path came from a directly connected
	// neighbor (for NO_ADVERTISE policies without Route Targets).
	Direct bool
	// HaveKey reports whether an HMAC key ID is in our own key table.
	HaveKey func(id uint32) bool
}

// Check decides whether a headend installs r (RFC 9830 §4.2.1 and the
// HMAC rule of authbgpd): a Route Target "<our router ID>:0" (or, without
// Route Targets, NO_ADVERTISE from a directly connected neighbor), an HMAC
// key ID (Large Community <asn>:8754:<id>) that is in our key table, and a
// segment list of SRv6 SIDs that fits an HMAC'd SRH. The error says why
// not, in words for /status.
func (r *Received) Check(v HeadendView) (*Installable, error) {
	if !r.HasSRPolicy {
		return nil, errors.New("no SR Policy tunnel encapsulation (type 15)")
	}
	switch {
	case len(r.RouteTargets) > 0:
		ok := false
		for _, rt := range r.RouteTargets {
			if rt.Addr == v.RouterID && rt.LocalAdmin == 0 {
				ok = true
			}
		}
		if !ok {
			var s []string
			for _, rt := range r.RouteTargets {
				s = append(s, rt.String())
			}
			return nil, fmt.Errorf("for another headend: Route Target %s, our router ID is %s", strings.Join(s, ", "), v.RouterID)
		}
	case r.NoAdvertise:
		if !v.Direct {
			return nil, errors.New("NO_ADVERTISE without a Route Target from a neighbor that is not directly connected")
		}
	default:
		return nil, errors.New("neither a Route Target nor NO_ADVERTISE (RFC 9830 §4.1)")
	}
	ids := r.KeyIDs()
	if len(ids) == 0 {
		return nil, fmt.Errorf("no HMAC key ID (Large Community <asn>:%d:<key id>)", LargeCommunityHMAC)
	}
	in := &Installable{BindingSID: r.BindingSID}
	for _, id := range ids {
		if v.HaveKey != nil && v.HaveKey(id) {
			in.KeyID = id
			break
		}
	}
	if in.KeyID == 0 {
		return nil, fmt.Errorf("HMAC key ID %s not in our key table", joinIDs(ids))
	}
	// The usable segment list with the highest weight (the first among
	// equals): a kernel route carries one SRH.
	best := -1
	var why string
	for i, sl := range r.SegmentLists {
		switch {
		case sl.Other > 0:
			why = "a segment list has segments that are not SRv6 SIDs (type B)"
			continue
		case len(sl.Segments) == 0:
			why = "a segment list is empty"
			continue
		case len(sl.Segments) > MaxHMACSegments:
			why = fmt.Sprintf("a segment list has %d segments; an HMAC'd SRH holds at most %d", len(sl.Segments), MaxHMACSegments)
			continue
		}
		if best < 0 || sl.Weight > r.SegmentLists[best].Weight {
			best = i
		}
	}
	if best < 0 {
		if why == "" {
			why = "no segment list"
		}
		return nil, errors.New(why)
	}
	in.Segments = slices.Clone(r.SegmentLists[best].Segments)
	return in, nil
}

func joinIDs(ids []uint32) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return strings.Join(s, ", ")
}

// Candidate is a received policy path competing for its (color,
// endpoint).
type Candidate struct {
	*Received
	Neighbor  netip.Addr // who sent it
	SourceASN uint32
}

// SelectBest returns, for each (color, endpoint), the index in cands of the
// winning candidate among those for which valid reports true: the highest
// preference, then (RFC 9256 §2.9) the lowest originator (ASN, then
// neighbor address), then the highest distinguisher.
func SelectBest(cands []Candidate, valid func(i int) bool) map[string]int {
	best := map[string]int{}
	idx := make([]int, 0, len(cands))
	for i := range cands {
		if valid == nil || valid(i) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return better(&cands[idx[a]], &cands[idx[b]]) })
	for _, i := range idx {
		k := cands[i].Key()
		if _, ok := best[k]; !ok {
			best[k] = i
		}
	}
	return best
}

// better reports whether a beats b.
func better(a, b *Candidate) bool {
	if a.Preference != b.Preference {
		return a.Preference > b.Preference
	}
	if a.SourceASN != b.SourceASN {
		return a.SourceASN < b.SourceASN
	}
	if c := a.Neighbor.Compare(b.Neighbor); c != 0 {
		return c < 0
	}
	return a.Distinguisher > b.Distinguisher
}
