package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/status"
)

// TestKernelMD5DropsAgreeWithShadow: FRR signs with another key than
// authbgpd's; the kernel drops its segments (TcpExt TCPMD5Failure) and the
// shadow checker counts them bad_digest. Once FRR stops, the kernel's
// count since the daemon started (/status kernel, and
// authbgpd_kernel_tcp_md5_drops_total{reason="bad_digest"} against the
// namespace's own netstat) equals the shadow's, segment for segment.
func TestKernelMD5DropsAgreeWithShadow(t *testing.T) {
	testenv.RequireRoot(t)
	p := newPair(t, "kd", false)
	ours, theirs := newSecret("kd-ours"), newSecret("kd-theirs")
	a := StartAuthbgpd(t, p.Topology, p.A, abConfig(shadowSection(false),
		abPeer{addr: pairB4.String(), asn: 65002, src: "password", ref: ours, passive: true}), AuthbgpdOptions{})
	f := StartFRR(t, p.Topology, p.B, PeerConfig{ASN: 65002, RouterID: pairB4,
		Neighbors: []Neighbor{{pairA4, 65001, theirs}}})
	waitShadow(t, a, pairB4.String(), 60*time.Second, "bad-digest with 3 segments", func(p *status.Peer) bool {
		return p.Shadow.Diagnosis == "bad-digest" && p.Shadow.Segments.BadDigest >= 3
	})
	f.Stop()
	var shadowBad, kernelBad uint64
	waitFor(t, 20*time.Second, "the kernel's and the shadow's counts to agree", func() error {
		st, err := a.TryStatus()
		if err != nil {
			return err
		}
		if st.Kernel == nil {
			return fmt.Errorf("/status has no kernel section")
		}
		kernelBad = st.Kernel.MD5DropsSinceStart.BadDigest
		shadowBad = 0
		for _, q := range st.Peers {
			if q.Address == pairB4.String() && q.Shadow != nil {
				shadowBad = q.Shadow.Segments.BadDigest
			}
		}
		if kernelBad != shadowBad || kernelBad == 0 {
			return fmt.Errorf("kernel bad_digest since start %d, shadow %d", kernelBad, shadowBad)
		}
		return nil
	})
	body, err := a.HTTPGet("/metrics")
	if err != nil {
		t.Fatal(err)
	}
	ctr, err := netns.Counters(p.A)
	if err != nil {
		t.Fatal(err)
	}
	for reason, name := range map[string]string{"bad_digest": "TCPMD5Failure", "missing": "TCPMD5NotFound", "unexpected": "TCPMD5Unexpected"} {
		v, ok := metricValue(body, "authbgpd_kernel_tcp_md5_drops_total", `reason="`+reason+`"`)
		if !ok || uint64(v) != ctr[name] {
			t.Errorf("authbgpd_kernel_tcp_md5_drops_total{reason=%q} = %v (present %t), netstat %s = %d", reason, v, ok, name, ctr[name])
		}
	}
	t.Logf("wrong key: kernel dropped %d segments (bad_digest), the shadow counted %d", kernelBad, shadowBad)
}
