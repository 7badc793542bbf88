package plugin

import (
	"sort"
	"strings"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/osrg/gobgp/v3/pkg/packet/bgp"
	"google.golang.org/protobuf/types/known/anypb"
)

// FamilyName is the name of an address family as GoBGP's CLI and config
// spell it ("ipv4-unicast", "l2vpn-evpn").
func FamilyName(f *api.Family) string {
	if f == nil {
		return ""
	}
	return strings.ToLower(bgp.AfiSafiToRouteFamily(uint16(f.Afi), uint8(f.Safi)).String())
}

// NegotiatedFamilies are the families both sides announced in their
// OPEN's multiprotocol capabilities (IPv4 unicast when neither sent any,
// RFC 4760 §8); nil before an OPEN was received.
func NegotiatedFamilies(st *api.PeerState) []string {
	if st == nil || len(st.RemoteCap) == 0 {
		return nil
	}
	mp := func(caps []*anypb.Any) map[string]bool {
		out := map[string]bool{}
		for _, c := range caps {
			m := &api.MultiProtocolCapability{}
			if c.MessageIs(m) && c.UnmarshalTo(m) == nil {
				out[FamilyName(m.Family)] = true
			}
		}
		return out
	}
	local, remote := mp(st.LocalCap), mp(st.RemoteCap)
	if len(local) == 0 && len(remote) == 0 {
		return []string{"ipv4-unicast"}
	}
	var out []string
	for f := range local {
		if remote[f] {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}
