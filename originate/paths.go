package originate

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	api "github.com/osrg/gobgp/v3/api"
	"google.golang.org/protobuf/proto"
	apb "google.golang.org/protobuf/types/known/anypb"

	"github.com/authbgp/authbgpd/config"
)

// key is where a network lives: its VRF's RIB and its prefix.
type key struct {
	vrf    string
	prefix netip.Prefix
}

// route is a network as GoBGP's RIB should hold it.
type route struct {
	key
	id          string   // config.Network.ID, for logs and status
	communities []uint32 // RFC 1997
	large       []*api.LargeCommunity
	attrs       string // the attributes that tell two paths of ours apart (attrsOf)
}

// routeOf is n as a route.
func routeOf(n *config.Network) route {
	r := route{key: key{vrf: n.VRF, prefix: n.Prefix}, id: n.ID()}
	for _, c := range n.Communities {
		r.communities = append(r.communities, uint32(c))
	}
	for _, l := range n.LargeCommunities {
		r.large = append(r.large, &api.LargeCommunity{GlobalAdmin: l.Global, LocalData1: l.Local1, LocalData2: l.Local2})
	}
	r.attrs = attrsOf(r.communities, r.large)
	return r
}

// attrsOf is the signature of a path's communities: what a path of ours
// at a network's prefix must carry to be that network's.
func attrsOf(cs []uint32, ls []*api.LargeCommunity) string {
	var b strings.Builder
	for _, c := range cs {
		b.WriteString(strconv.FormatUint(uint64(c), 10) + ",")
	}
	b.WriteByte('|')
	for _, l := range ls {
		fmt.Fprintf(&b, "%d:%d:%d,", l.GlobalAdmin, l.LocalData1, l.LocalData2)
	}
	return b.String()
}

// family is the GoBGP family of p: IPv4 or IPv6 unicast.
func family(p netip.Prefix) *api.Family {
	if p.Addr().Is4() {
		return &api.Family{Afi: api.Family_AFI_IP, Safi: api.Family_SAFI_UNICAST}
	}
	return &api.Family{Afi: api.Family_AFI_IP6, Safi: api.Family_SAFI_UNICAST}
}

// pathOf is r as GoBGP's API takes it: ORIGIN IGP, the next hop
// unspecified (0.0.0.0 or ::: GoBGP sends the session's local address),
// IPv6 in MP_REACH_NLRI, and r's communities.
func pathOf(r route) (*api.Path, error) {
	nlri, err := apb.New(&api.IPAddressPrefix{Prefix: r.prefix.Addr().String(), PrefixLen: uint32(r.prefix.Bits())})
	if err != nil {
		return nil, err
	}
	fam := family(r.prefix)
	var attrs []*apb.Any
	add := func(m proto.Message) {
		if err == nil {
			var a *apb.Any
			a, err = apb.New(m)
			attrs = append(attrs, a)
		}
	}
	add(&api.OriginAttribute{Origin: 0})
	if r.prefix.Addr().Is4() {
		add(&api.NextHopAttribute{NextHop: "0.0.0.0"})
	} else {
		add(&api.MpReachNLRIAttribute{Family: fam, NextHops: []string{"::"}, Nlris: []*apb.Any{nlri}})
	}
	if len(r.communities) > 0 {
		add(&api.CommunitiesAttribute{Communities: r.communities})
	}
	if len(r.large) > 0 {
		add(&api.LargeCommunitiesAttribute{Communities: r.large})
	}
	if err != nil {
		return nil, err
	}
	return &api.Path{Family: fam, Nlri: nlri, Pattrs: attrs}, nil
}

// observedAttrs is the signature (attrsOf) of a path GoBGP holds, and its
// prefix.
func observedAttrs(p *api.Path) (netip.Prefix, string, error) {
	var pfx api.IPAddressPrefix
	if err := p.GetNlri().UnmarshalTo(&pfx); err != nil {
		return netip.Prefix{}, "", fmt.Errorf("NLRI: %w", err)
	}
	a, err := netip.ParseAddr(pfx.Prefix)
	if err != nil {
		return netip.Prefix{}, "", fmt.Errorf("NLRI: %w", err)
	}
	var cs []uint32
	var ls []*api.LargeCommunity
	for _, any := range p.Pattrs {
		switch {
		case any.MessageIs(&api.CommunitiesAttribute{}):
			var c api.CommunitiesAttribute
			if err := any.UnmarshalTo(&c); err != nil {
				return netip.Prefix{}, "", err
			}
			cs = c.Communities
		case any.MessageIs(&api.LargeCommunitiesAttribute{}):
			var l api.LargeCommunitiesAttribute
			if err := any.UnmarshalTo(&l); err != nil {
				return netip.Prefix{}, "", err
			}
			ls = l.Communities
		}
	}
	return netip.PrefixFrom(a.Unmap(), int(pfx.PrefixLen)), attrsOf(cs, ls), nil
}
