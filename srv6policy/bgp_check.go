package srv6policy

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

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
