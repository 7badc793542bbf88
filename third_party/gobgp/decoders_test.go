package gobgp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/osrg/gobgp/v3/pkg/apiutil"
	"github.com/osrg/gobgp/v3/pkg/packet/bgp"

	"github.com/authbgp/authbgpd/third_party/gobgp/crafted"
)

// TestDecodersRefuseShortInput holds decoder fixes that no message sent to a
// session reaches as they are (their callers check the length first), by
// calling the decoder itself: each must return an error, never panic.
func TestDecodersRefuseShortInput(t *testing.T) {
	for _, tc := range []struct {
		name, source string
		decode       func() error
	}{
		{"ParseIP6Extended of 8 bytes", "CVE-2026-37461 (fix 362cce3e, patch 0012)", func() error {
			_, err := bgp.ParseIP6Extended([]byte{0, 2, 0, 0, 0, 0, 0, 1})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%s: panicked: %v", tc.source, r)
				}
			}()
			if err := tc.decode(); err == nil {
				t.Fatalf("%s: no error", tc.source)
			}
		})
	}
}

// TestRelayedAsReceived checks what patch 0017 is carried for: a Prefix-SID
// attribute holding a TLV, sub-TLV or sub-sub-TLV GoBGP does not know is
// relayed (serialized) as it came. Unpatched, GoBGP skipped the unknown
// part on decode and serialized the TLV with its old length and zeros in
// its place, which FRR 8.4 rejects by resetting the session (seen end to
// end: e2e TestMalformedUpdates), or left the TLV out.
func TestRelayedAsReceived(t *testing.T) {
	for name, attr := range crafted.PrefixSIDWithUnknowns() {
		t.Run(name, func(t *testing.T) {
			msg := crafted.Update(nil, crafted.Cat(crafted.Origin, crafted.ASPath, crafted.NextHop([4]byte{192, 0, 2, 2}), attr), crafted.NLRI24(198, 51, 100))
			m, err := bgp.ParseBGPMessage(msg)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			for _, a := range m.Body.(*bgp.BGPUpdate).PathAttributes {
				if a.GetType() != bgp.BGP_ATTR_TYPE_PREFIX_SID {
					continue
				}
				got, err := a.Serialize()
				if err != nil {
					t.Fatalf("serialize: %v", err)
				}
				if !bytes.Equal(got, attr) {
					t.Fatalf("relayed as\n% x\nreceived as\n% x", got, attr)
				}
				return
			}
			t.Fatal("no Prefix-SID attribute decoded")
		})
	}
}

// TestSRPolicyDecoding checks what patch 0018 is carried for: SR Policy
// NLRIs packed in one MP_REACH_NLRI each get their own endpoint (v3.37 gave
// the first one every following NLRI's octets too), and a Candidate Path
// Name sub-TLV is read to its own end (v3.37 read three octets past it,
// into the next sub-TLV).
func TestSRPolicyDecoding(t *testing.T) {
	nlri := func(color uint32, ep [4]byte) []byte {
		return crafted.Cat([]byte{96}, []byte{0, 0, 0, 1}, []byte{byte(color >> 24), byte(color >> 16), byte(color >> 8), byte(color)}, ep[:])
	}
	mp := crafted.Attr(0x80, bgp.BGP_ATTR_TYPE_MP_REACH_NLRI, crafted.Cat(
		[]byte{0, 1, 73, 4, 192, 0, 2, 2, 0}, nlri(100, [4]byte{192, 0, 2, 3}), nlri(200, [4]byte{192, 0, 2, 4})))
	pref := crafted.Cat([]byte{12, 6, 0, 0}, []byte{0, 0, 0, 100}) // Preference sub-TLV: 100
	msg := crafted.Update(nil, crafted.Cat(crafted.Origin, crafted.ASPath, mp,
		crafted.SRPolicyTunnelOf(crafted.CandidatePathName("gold"), pref)), nil)
	m, err := bgp.ParseBGPMessage(msg)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	var eps []string
	var name string
	var prefs []uint32
	for _, a := range m.Body.(*bgp.BGPUpdate).PathAttributes {
		switch a := a.(type) {
		case *bgp.PathAttributeMpReachNLRI:
			for _, n := range a.Value {
				p := n.(*bgp.SRPolicyIPv4)
				eps = append(eps, fmt.Sprintf("%d %x", p.Color, p.Endpoint))
			}
		case *bgp.PathAttributeTunnelEncap:
			for _, tlv := range a.Value {
				for _, sub := range tlv.Value {
					switch sub := sub.(type) {
					case *bgp.TunnelEncapSubTLVSRCandidatePathName:
						name = sub.CandidatePathName
					case *bgp.TunnelEncapSubTLVSRPreference:
						prefs = append(prefs, sub.Preference)
					}
				}
			}
		}
	}
	if want := []string{"100 c0000203", "200 c0000204"}; !slices.Equal(eps, want) {
		t.Errorf("SR Policy NLRIs %q, want %q", eps, want)
	}
	if name != "gold" || !slices.Equal(prefs, []uint32{100}) {
		t.Errorf("candidate path name %q and preferences %v, want \"gold\" and [100]", name, prefs)
	}
}

// TestAttributesPrintAndMarshal checks what patch 0020 is carried for: a
// received attribute can be printed and marshalled to JSON (GoBGP's debug
// log of every received UPDATE does either, on its main loop, so a panic
// there stops the process). v3.37 left an SR Binding SID sub-TLV of length
// 2 (flags, no SID) with a nil SID, whose String and MarshalJSON panicked:
// fmt recovers it, encoding/json (authbgpd's --log-format json) does not.
func TestAttributesPrintAndMarshal(t *testing.T) {
	bsid := crafted.Cat([]byte{13, 2, 0, 0}) // SR Binding SID sub-TLV, length 2
	msg := crafted.Update(nil, crafted.Cat(crafted.Origin, crafted.ASPath, crafted.NextHop([4]byte{192, 0, 2, 2}),
		crafted.SRPolicyTunnelOf(bsid)), crafted.NLRI24(198, 51, 100))
	m, err := bgp.ParseBGPMessage(msg)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	attrs := m.Body.(*bgp.BGPUpdate).PathAttributes
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("printing or marshalling the attributes panicked: %v", r)
		}
	}()
	if s := fmt.Sprint(attrs); strings.Contains(s, "PANIC") {
		t.Errorf("printed as %s", s)
	}
	if _, err := json.Marshal(attrs); err != nil {
		t.Errorf("json.Marshal: %v", err)
	}
}

// TestOpenFQDNCapability checks what patch 0021 is carried for: the FQDN
// capability's domain name is its declared length (v3.37 took every octet
// after it, the next capabilities' in the same parameter too).
func TestOpenFQDNCapability(t *testing.T) {
	caps := crafted.Cat([]byte{73, 7, 2, 'r', '1', 3, 'l', 'a', 'b'}, []byte{2, 0}) // FQDN r1.lab, route refresh
	body := crafted.Cat([]byte{4, 0xfb, 0xf5, 0, 90, 192, 0, 2, 2}, []byte{byte(2 + len(caps)), 2, byte(len(caps))}, caps)
	m, err := bgp.ParseBGPMessage(crafted.Msg(bgp.BGP_MSG_OPEN, body))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	var got []string
	for _, p := range m.Body.(*bgp.BGPOpen).OptParams {
		for _, c := range p.(*bgp.OptionParameterCapability).Capability {
			if f, ok := c.(*bgp.CapFQDN); ok {
				got = append(got, f.HostName+"."+f.DomainName)
			} else {
				got = append(got, c.Code().String())
			}
		}
	}
	if want := []string{"r1.lab", bgp.BGP_CAP_ROUTE_REFRESH.String()}; !slices.Equal(got, want) {
		t.Errorf("capabilities %q, want %q", got, want)
	}
}

// TestMUPSourceAddressLength checks what patch 0022 is carried for: a MUP
// Type 1 Session Transformed route whose source address length is not 0, 32
// or 128 is refused. Unpatched, it was accepted with no source address, and
// its Serialize (which table.ProcessMessage calls on every received path)
// dereferenced it: the FSM path's crash is FuzzRecvUpdate's seed
// found-mup-source-address-length.
func TestMUPSourceAddressLength(t *testing.T) {
	sa := netip.MustParseAddr("192.0.2.9")
	good := bgp.NewMUPType1SessionTransformedRoute(bgp.NewRouteDistinguisherTwoOctetAS(64500, 1),
		netip.MustParsePrefix("198.51.100.0/24"), netip.MustParseAddr("0.0.0.1"), 9, netip.MustParseAddr("192.0.2.1"), &sa)
	wire, err := good.Serialize()
	if err != nil {
		t.Fatal(err)
	}
	// The source address (4 octets) and its length are the NLRI's last 5.
	if wire[len(wire)-5] != 32 {
		t.Fatalf("source address length at %d is %d, want 32", len(wire)-5, wire[len(wire)-5])
	}
	for _, l := range []byte{8, 31, 33, 64, 129, 255} {
		t.Run(fmt.Sprint(l), func(t *testing.T) {
			b := bytes.Clone(wire)
			b[len(b)-5] = l
			n := &bgp.MUPNLRI{Afi: bgp.AFI_IP}
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("source address length %d: panicked: %v", l, r)
				}
			}()
			if err := n.DecodeFromBytes(b); err == nil {
				_, serr := n.Serialize()
				t.Fatalf("source address length %d accepted (its Serialize: %v)", l, serr)
			}
		})
	}
	n := &bgp.MUPNLRI{Afi: bgp.AFI_IP}
	if err := n.DecodeFromBytes(wire); err != nil {
		t.Fatalf("the well-formed route: %v", err)
	}
}

// TestSRSegmentListWithoutWeightToAPI checks what patch 0023 is carried
// for: an SR policy whose segment list has no Weight sub-TLV (it is
// optional) converts to the API's type, as ListPath, WatchEvent and the
// gobgp CLI convert every received path. Unpatched, the conversion
// dereferenced the missing Weight.
func TestSRSegmentListWithoutWeightToAPI(t *testing.T) {
	// Segment list sub-TLV (128): reserved, then one type-B segment
	// (13: flags, reserved, an SRv6 SID), no Weight sub-TLV.
	sid := netip.MustParseAddr("fc00:0:1::1").As16()
	seg := append([]byte{13, 18, 0, 0}, sid[:]...)
	sl := append([]byte{128, 0, byte(1 + len(seg)), 0}, seg...)
	attr := crafted.Attr(0xc0, bgp.BGP_ATTR_TYPE_TUNNEL_ENCAP, crafted.Cat([]byte{0, 15, 0, byte(len(sl))}, sl))
	var pa bgp.PathAttributeTunnelEncap
	if err := pa.DecodeFromBytes(attr); err != nil {
		t.Fatalf("decode: %v", err)
	}
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("API conversion panicked: %v", r)
		}
	}()
	a, err := apiutil.NewTunnelEncapAttributeFromNative(&pa)
	if err != nil {
		t.Fatalf("API conversion: %v", err)
	}
	if len(a.Tlvs) != 1 || len(a.Tlvs[0].Tlvs) != 1 {
		t.Fatalf("API form %v, want one TLV with one sub-TLV", a)
	}
	var got api.TunnelEncapSubTLVSRSegmentList
	if err := a.Tlvs[0].Tlvs[0].UnmarshalTo(&got); err != nil {
		t.Fatal(err)
	}
	if got.Weight != nil || len(got.Segments) != 1 {
		t.Fatalf("segment list %v, want one segment and no Weight", &got)
	}
}

// TestTunnelEncapKeepsEveryByte checks what patch 0024 is carried for: a
// Tunnel Encapsulation attribute is relayed as received when it ends with
// a zero-length TLV or sub-TLV, and bytes too few for a header are
// malformed. Unpatched, the zero-length TLV or sub-TLV at the end was
// dropped (relayed changed) and the stray bytes ignored.
func TestTunnelEncapKeepsEveryByte(t *testing.T) {
	pref := []byte{12, 6, 0, 0, 0, 0, 0, 100} // SR Preference sub-TLV
	tlv := func(typ uint16, v []byte) []byte {
		return crafted.Cat([]byte{byte(typ >> 8), byte(typ), 0, byte(len(v))}, v)
	}
	for _, tc := range []struct {
		name  string
		value []byte
		ok    bool
	}{
		{"zero-length TLV last", crafted.Cat(tlv(15, pref), tlv(15, nil)), true},
		{"zero-length sub-TLV last", tlv(15, crafted.Cat(pref, []byte{99, 0})), true},
		{"two stray bytes after a TLV", crafted.Cat(tlv(15, pref), []byte{0, 15}), false},
		{"one stray byte in a TLV", tlv(15, crafted.Cat(pref, []byte{12})), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			attr := crafted.Attr(0xc0, bgp.BGP_ATTR_TYPE_TUNNEL_ENCAP, tc.value)
			var pa bgp.PathAttributeTunnelEncap
			err := pa.DecodeFromBytes(attr)
			if !tc.ok {
				if err == nil {
					t.Fatalf("% x decoded without error, as %v", tc.value, &pa)
				}
				return
			}
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			got, err := pa.Serialize()
			if err != nil {
				t.Fatalf("serialize: %v", err)
			}
			if !bytes.Equal(got, attr) {
				t.Fatalf("relayed as\n% x\nreceived as\n% x", got, attr)
			}
		})
	}
}
