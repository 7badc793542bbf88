package shadow

import (
	"net/netip"
	"testing"

	"github.com/authbgp/authbgpd/status"
)

// TestMergeStatusSameAddressTwoVRFs: a static peer's address that is a
// peer in another VRF too gets no shadow (the capture cannot tell them
// apart), not even "no-traffic"; a VRF's peer of an address of its own
// keeps its report.
func TestMergeStatusSameAddressTwoVRFs(t *testing.T) {
	reps := map[string]PeerReport{
		"192.0.2.2": {Address: netip.MustParseAddr("192.0.2.2"), Diagnosis: DiagBadDigest},
		"192.0.2.6": {Address: netip.MustParseAddr("192.0.2.6"), VRF: "blue", Diagnosis: DiagOK},
	}
	st := status.Status{Peers: []status.Peer{
		{Address: "192.0.2.2", VRF: "blue", Auth: status.Auth{Mode: "md5"}},
		{Address: "192.0.2.2", VRF: "red", Auth: status.Auth{Mode: "md5"}},
		{Address: "192.0.2.6", VRF: "blue", Auth: status.Auth{Mode: "md5"}},
	}}
	MergeStatus(&st, reps)
	if st.Peers[0].Shadow != nil || st.Peers[1].Shadow != nil {
		t.Errorf("the address in two VRFs judged: %+v, %+v", st.Peers[0].Shadow, st.Peers[1].Shadow)
	}
	if s := st.Peers[2].Shadow; s == nil || s.Diagnosis != DiagOK {
		t.Errorf("blue's own address: %+v", s)
	}
}
