package gobgp_test

import (
	"bytes"
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
