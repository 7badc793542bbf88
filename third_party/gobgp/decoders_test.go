package gobgp_test

import (
	"bytes"
	"fmt"
	"slices"
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
