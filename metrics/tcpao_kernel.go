package metrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/authbgp/authbgpd/aocount"
)

// The kernel's own TCP-AO counters:
//
//	authbgpd_tcp_ao_segments_total{peer,verdict}     counter  the TCP_AO_INFO counters of the peer's connections
//	authbgpd_kernel_tcp_ao_segments_total{reason}    counter  the namespace's TcpExt TCPAO* counters
//
// verdict and reason: good, bad, key_not_found, ao_required, dropped_icmp.

// AOKernelCounts are TCP-AO segment counts as the kernel keeps them: the
// one TCP-AO counter type, aocount.Counts (an alias, not a copy), whose
// names (aocount.Good, ...) are the verdict and reason labels.
type AOKernelCounts = aocount.Counts

// aoKernel holds authbgpd_tcp_ao_segments_total, registered on first use.
type aoKernel struct {
	once sync.Once
	vec  *prometheus.CounterVec
}

func (m *Metrics) aoKernelVec() *prometheus.CounterVec {
	m.aoKern.once.Do(func() {
		m.aoKern.vec = prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "authbgpd_tcp_ao_segments_total",
			Help: "Segments of the TCP-AO peer's connections as the kernel counted them (TCP_AO_INFO), by verdict: good, bad, key_not_found, ao_required, dropped_icmp.",
		}, []string{"peer", "verdict"})
		m.reg.MustRegister(m.aoKern.vec)
	})
	return m.aoKern.vec
}

// AddTCPAOKernel adds the kernel's counts d (the growth of the peer's
// connections' counters since the last call) to authbgpd_tcp_ao_segments_total;
// the first call makes the peer's five series, at 0 if d is zero.
func (m *Metrics) AddTCPAOKernel(peer string, d aocount.Counts) {
	if m == nil {
		return
	}
	v := m.aoKernelVec()
	d.Each(func(verdict string, n uint64) { v.WithLabelValues(peer, verdict).Add(float64(n)) })
}

// deleteTCPAOKernel removes the peer's series.
func (m *Metrics) deleteTCPAOKernel(peer string) {
	if m.aoKern.vec != nil {
		m.aoKern.vec.DeletePartialMatch(prometheus.Labels{"peer": peer})
	}
}

// kernelAODesc is authbgpd_kernel_tcp_ao_segments_total{reason}.
var kernelAODesc = prometheus.NewDesc("authbgpd_kernel_tcp_ao_segments_total",
	"TCP-AO segments the kernel counted in the daemon's network namespace (all peers, since the namespace was made), by reason: good (TcpExt TCPAOGood), bad (TCPAOBad), key_not_found (TCPAOKeyNotFound), ao_required (TCPAORequired), dropped_icmp (TCPAODroppedIcmps). Absent on a kernel without TCP-AO.",
	[]string{"reason"}, nil)
