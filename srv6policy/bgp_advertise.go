package srv6policy

import (
	api "github.com/osrg/gobgp/v3/api"
	apb "google.golang.org/protobuf/types/known/anypb"
)

// Family returns the policy's address family: ipv6-srpolicy for an IPv6
// endpoint, ipv4-srpolicy for an IPv4 one.
func (p *Policy) Family() *api.Family {
	if p.Endpoint.Is4() {
		return &api.Family{Afi: api.Family_AFI_IP, Safi: api.Family_SAFI_SR_POLICY}
	}
	return &api.Family{Afi: api.Family_AFI_IP6, Safi: api.Family_SAFI_SR_POLICY}
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
