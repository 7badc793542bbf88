package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/authbgp/authbgpd/aocount"
)

// KernelMD5Drops are the kernel's TCP-MD5 drop counters of the daemon's
// network namespace, named by the shadow checker's verdicts: Missing is
// TcpExt TCPMD5NotFound, Unexpected TCPMD5Unexpected, BadDigest
// TCPMD5Failure.
type KernelMD5Drops struct {
	Missing, Unexpected, BadDigest uint64
	// AO are the namespace's TCP-AO counters (nil: the kernel has none).
	AO *aocount.Counts
}

// kernelDesc is authbgpd_kernel_tcp_md5_drops_total{reason}.
var kernelDesc = prometheus.NewDesc("authbgpd_kernel_tcp_md5_drops_total",
	"Segments the kernel dropped for TCP-MD5 in the daemon's network namespace (all peers, since the namespace was made), by reason: missing (TcpExt TCPMD5NotFound), unexpected (TCPMD5Unexpected), bad_digest (TCPMD5Failure).",
	[]string{"reason"}, nil)

// kernelCollector reads the counters at each scrape.
type kernelCollector struct {
	read func() (KernelMD5Drops, error)
}

func (kernelCollector) Describe(ch chan<- *prometheus.Desc) { ch <- kernelDesc; ch <- kernelAODesc }

func (k kernelCollector) Collect(ch chan<- prometheus.Metric) {
	d, err := k.read()
	if err != nil {
		ch <- prometheus.NewInvalidMetric(kernelDesc, err)
		return
	}
	for _, v := range []struct {
		reason string
		n      uint64
	}{{SegmentMissing, d.Missing}, {SegmentUnexpected, d.Unexpected}, {SegmentBadDigest, d.BadDigest}} {
		ch <- prometheus.MustNewConstMetric(kernelDesc, prometheus.CounterValue, float64(v.n), v.reason)
	}
	if d.AO != nil {
		d.AO.Each(func(reason string, n uint64) {
			ch <- prometheus.MustNewConstMetric(kernelAODesc, prometheus.CounterValue, float64(n), reason)
		})
	}
}

// ReadKernelDrops makes authbgpd_kernel_tcp_md5_drops_total{reason} read
// the kernel's counters with read at every scrape (call it once).
func (m *Metrics) ReadKernelDrops(read func() (KernelMD5Drops, error)) error {
	if m == nil {
		return nil
	}
	return m.reg.Register(kernelCollector{read: read})
}
