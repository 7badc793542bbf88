package gobgp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

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
