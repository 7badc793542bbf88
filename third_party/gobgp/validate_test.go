package gobgp_test

import (
	"errors"
	"testing"

	"github.com/osrg/gobgp/v3/pkg/packet/bgp"
)

// TestValidateNotificationCodes checks what patch 0011 is carried for:
// every error ValidateUpdateMsg returns calls for a NOTIFICATION with a
// valid code (RFC 4271 section 4.5: 0 is none). v3.37 gave code 0 when an
// UPDATE carried a family the session had not negotiated. (The flowspec
// order check, the third such error, cannot be reached from the wire: the
// decoder sorts a flowspec NLRI's components.)
func TestValidateNotificationCodes(t *testing.T) {
	v4 := map[bgp.RouteFamily]bgp.BGPAddPathMode{bgp.RF_IPv4_UC: bgp.BGP_ADD_PATH_NONE}
	v6 := map[bgp.RouteFamily]bgp.BGPAddPathMode{bgp.RF_IPv6_UC: bgp.BGP_ADD_PATH_NONE}
	attrs := func(extra ...bgp.PathAttributeInterface) []bgp.PathAttributeInterface {
		return append([]bgp.PathAttributeInterface{
			bgp.NewPathAttributeOrigin(0),
			bgp.NewPathAttributeAsPath([]bgp.AsPathParamInterface{bgp.NewAs4PathParam(bgp.BGP_ASPATH_ATTR_TYPE_SEQ, []uint32{64501})}),
		}, extra...)
	}
	fs := func(cs ...bgp.FlowSpecComponentInterface) bgp.AddrPrefixInterface {
		return bgp.NewFlowSpecIPv4Unicast(cs)
	}
	dst := bgp.NewFlowSpecDestinationPrefix(bgp.NewIPAddrPrefix(24, "198.51.100.0"))
	for _, tc := range []struct {
		name          string
		msg           *bgp.BGPUpdate
		rfs           map[bgp.RouteFamily]bgp.BGPAddPathMode
		code, subcode uint8
	}{
		{"IPv4 NLRI, IPv4 unicast not negotiated",
			bgp.NewBGPUpdateMessage(nil, attrs(bgp.NewPathAttributeNextHop("192.0.2.2")), []*bgp.IPAddrPrefix{bgp.NewIPAddrPrefix(24, "198.51.100.0")}).Body.(*bgp.BGPUpdate),
			v6, bgp.BGP_ERROR_UPDATE_MESSAGE_ERROR, bgp.BGP_ERROR_SUB_INVALID_NETWORK_FIELD},
		{"MP_REACH_NLRI of a family not negotiated",
			bgp.NewBGPUpdateMessage(nil, attrs(bgp.NewPathAttributeMpReachNLRI("0.0.0.0", []bgp.AddrPrefixInterface{fs(dst)})), nil).Body.(*bgp.BGPUpdate),
			v4, bgp.BGP_ERROR_UPDATE_MESSAGE_ERROR, bgp.BGP_ERROR_SUB_OPTIONAL_ATTRIBUTE_ERROR},
		{"MP_UNREACH_NLRI of a family not negotiated",
			bgp.NewBGPUpdateMessage(nil, []bgp.PathAttributeInterface{bgp.NewPathAttributeMpUnreachNLRI([]bgp.AddrPrefixInterface{fs(dst)})}, nil).Body.(*bgp.BGPUpdate),
			v4, bgp.BGP_ERROR_UPDATE_MESSAGE_ERROR, bgp.BGP_ERROR_SUB_OPTIONAL_ATTRIBUTE_ERROR},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok, err := bgp.ValidateUpdateMsg(tc.msg, tc.rfs, true, false, false)
			var me *bgp.MessageError
			if ok || !errors.As(err, &me) {
				t.Fatalf("ValidateUpdateMsg: %v, %v; want a MessageError", ok, err)
			}
			if me.TypeCode != tc.code || me.SubTypeCode != tc.subcode {
				t.Errorf("NOTIFICATION %d/%d (%s), want %d/%d", me.TypeCode, me.SubTypeCode, err, tc.code, tc.subcode)
			}
		})
	}
}

// decodeUpdate is the UPDATE in b, decoded.
func decodeUpdate(t *testing.T, b []byte) *bgp.BGPUpdate {
	t.Helper()
	m, err := bgp.ParseBGPMessage(b)
	if err != nil {
		t.Fatalf("ParseBGPMessage: %v", err)
	}
	return m.Body.(*bgp.BGPUpdate)
}
