package metrics

import (
	"errors"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestKernelDrops(t *testing.T) {
	m := New("test")
	d := KernelMD5Drops{Missing: 3, Unexpected: 0, BadDigest: 7}
	var err error
	if e := m.ReadKernelDrops(func() (KernelMD5Drops, error) { return d, err }); e != nil {
		t.Fatal(e)
	}
	want := `
# HELP authbgpd_kernel_tcp_md5_drops_total Segments the kernel dropped for TCP-MD5 in the daemon's network namespace (all peers, since the namespace was made), by reason: missing (TcpExt TCPMD5NotFound), unexpected (TCPMD5Unexpected), bad_digest (TCPMD5Failure).
# TYPE authbgpd_kernel_tcp_md5_drops_total counter
authbgpd_kernel_tcp_md5_drops_total{reason="bad_digest"} 7
authbgpd_kernel_tcp_md5_drops_total{reason="missing"} 3
authbgpd_kernel_tcp_md5_drops_total{reason="unexpected"} 0
`
	if e := testutil.GatherAndCompare(m.Registry(), strings.NewReader(want), "authbgpd_kernel_tcp_md5_drops_total"); e != nil {
		t.Fatal(e)
	}
	// Read at every scrape, not once.
	d.BadDigest = 9
	mfs, e := m.Registry().Gather()
	if e != nil {
		t.Fatal(e)
	}
	found := false
	for _, mf := range mfs {
		if mf.GetName() != "authbgpd_kernel_tcp_md5_drops_total" {
			continue
		}
		for _, mt := range mf.GetMetric() {
			if mt.GetLabel()[0].GetValue() == "bad_digest" && mt.GetCounter().GetValue() == 9 {
				found = true
			}
		}
	}
	if !found {
		t.Error("the second scrape did not read the counters again")
	}
	// A read error fails that series' scrape, not the others.
	err = errors.New("no netstat")
	if _, e := m.Registry().Gather(); e == nil || !strings.Contains(e.Error(), "no netstat") {
		t.Errorf("Gather error = %v, want the read error", e)
	}
}
