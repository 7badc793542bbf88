package srv6policy

import (
	"fmt"
	"net/netip"
	"slices"
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
