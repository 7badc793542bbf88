package metrics

import "github.com/prometheus/client_golang/prometheus"

// aoAlgDesc is authbgpd_kernel_tcp_ao_algorithm{algorithm}.
var aoAlgDesc = prometheus.NewDesc("authbgpd_kernel_tcp_ao_algorithm",
	"Whether the running kernel accepts TCP-AO keys of the keychain algorithm (1) or refused it (0: a key with it holds its peer down), as probed at start and at each reload; absent when the kernel has no TCP-AO.",
	[]string{"algorithm"}, nil)

// ReadAOAlgorithms makes authbgpd_kernel_tcp_ao_algorithm{algorithm} read
// read at every scrape (call it once): 1 for each keychain algorithm name
// the kernel accepts, 0 for each it refused; none when it knows nothing.
func (m *Metrics) ReadAOAlgorithms(read func() (accepted, refused []string)) error {
	if m == nil {
		return nil
	}
	return m.reg.Register(aoAlgCollector(read))
}

type aoAlgCollector func() (accepted, refused []string)

func (c aoAlgCollector) Describe(ch chan<- *prometheus.Desc) { ch <- aoAlgDesc }

func (c aoAlgCollector) Collect(ch chan<- prometheus.Metric) {
	accepted, refused := c()
	for _, n := range accepted {
		ch <- prometheus.MustNewConstMetric(aoAlgDesc, prometheus.GaugeValue, 1, n)
	}
	for _, n := range refused {
		ch <- prometheus.MustNewConstMetric(aoAlgDesc, prometheus.GaugeValue, 0, n)
	}
}
