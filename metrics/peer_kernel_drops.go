package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
)

// The kernel's own per-peer drop verdicts (package kdrops, fed by package
// dropwatch):
//
//	authbgpd_peer_kernel_drops_total{peer,reason}  counter  segments the kernel dropped from the peer for TCP-MD5/TCP-AO, since the daemon started
//
// reason: bad_digest, missing, unexpected, bad_option (every keyed peer,
// from the start) and ao_bad, ao_key_not_found, ao_required (TCP-AO peers
// from the start; other peers once such a drop is counted). peer is the
// peer's ID: a dynamic range sums its sessions under its prefix, so the
// label set stays bounded by the config. Absent when the kernel's drops
// cannot be counted (no BTF, kernel < 6.7, no CAP_BPF/CAP_PERFMON: /status
// kernel_drops.error says which).

// PeerKernelDrops is one series of authbgpd_peer_kernel_drops_total.
type PeerKernelDrops struct {
	Peer   string // the peer's ID: its address, or the range's prefix
	Reason string // kdrops.Reason's name: bad_digest, missing, ...
	Count  uint64 // since the daemon started (or the peer was configured)
}

// peerKernelDropsDesc is authbgpd_peer_kernel_drops_total{peer,reason}.
var peerKernelDropsDesc = prometheus.NewDesc("authbgpd_peer_kernel_drops_total",
	"Segments the kernel itself dropped from the peer for TCP-MD5/TCP-AO since the daemon started (counted with eBPF on the kernel's drop tracepoints), by reason: bad_digest, missing, unexpected, bad_option, ao_bad, ao_key_not_found, ao_required. A dynamic range sums its sessions.",
	[]string{"peer", "reason"}, nil)

// peerKernelDropsCollector emits what read returns at each scrape.
type peerKernelDropsCollector struct {
	read func() []PeerKernelDrops
}

func (peerKernelDropsCollector) Describe(ch chan<- *prometheus.Desc) { ch <- peerKernelDropsDesc }

func (c peerKernelDropsCollector) Collect(ch chan<- prometheus.Metric) {
	for _, s := range c.read() {
		ch <- prometheus.MustNewConstMetric(peerKernelDropsDesc, prometheus.CounterValue, float64(s.Count), s.Peer, s.Reason)
	}
}

// ReadPeerKernelDrops makes authbgpd_peer_kernel_drops_total{peer,reason}
// read its series with read at every scrape (call it once). read returns
// every series that exists: the reader owns their life, so a peer it stops
// returning (deconfigured) loses its series, and a counter must only grow
// while its series exists. read must be safe for concurrent use and must
// not return one (peer, reason) twice.
func (m *Metrics) ReadPeerKernelDrops(read func() []PeerKernelDrops) error {
	if m == nil {
		return nil
	}
	return m.reg.Register(peerKernelDropsCollector{read: read})
}
