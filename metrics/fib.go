package metrics

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
)

// The forwarding table (package fib), read at each scrape:
//
//	authbgpd_fib_routes{vrf,table}     gauge    routes of ours (proto bgp) in the kernel's table
//	authbgpd_fib_refused{vrf,reason}   gauge    wanted routes not in the kernel, by reason
//	authbgpd_fib_pending               gauge    best-path changes not yet written
//	authbgpd_fib_writes_total          counter  routes written (added, changed or removed)
//	authbgpd_fib_refusals_total        counter  writes the kernel refused
//	authbgpd_fib_looks_total           counter  full reads of the kernel's routes of ours
//
// vrf is "" for the default VRF (the main table). Absent with [fib] off.

// FIBTable is one routing table's routes of ours.
type FIBTable struct {
	VRF     string
	Table   uint32
	Routes  int
	Refused int
}

// FIBRefused is how many wanted routes of a VRF are refused for one reason.
type FIBRefused struct {
	VRF, Reason string
	Count       int
}

// FIBState is the forwarding table's metrics at one moment.
type FIBState struct {
	Tables  []FIBTable
	Refused []FIBRefused
	Pending int
	// Writes, Refusals and Looks count since the daemon started.
	Writes, Refusals, Looks uint64
}

var (
	fibRoutesDesc = prometheus.NewDesc("authbgpd_fib_routes",
		"Routes of ours (protocol bgp, 186) in the kernel's routing table of the VRF (\"\": the default VRF, the main table).",
		[]string{"vrf", "table"}, nil)
	fibRefusedDesc = prometheus.NewDesc("authbgpd_fib_refused",
		"Best paths whose route is not in the kernel, by VRF and reason (no such table, next hop unresolved, next hop unreachable, no such device, kernel error); retried on later passes.",
		[]string{"vrf", "reason"}, nil)
	fibPendingDesc = prometheus.NewDesc("authbgpd_fib_pending",
		"Best-path changes recorded and not yet written into the kernel.", nil, nil)
	fibWritesDesc = prometheus.NewDesc("authbgpd_fib_writes_total",
		"Routes of ours written into the kernel (added, changed or removed) since the daemon started.", nil, nil)
	fibRefusalsDesc = prometheus.NewDesc("authbgpd_fib_refusals_total",
		"Route writes the kernel refused since the daemon started.", nil, nil)
	fibLooksDesc = prometheus.NewDesc("authbgpd_fib_looks_total",
		"Full reads of the kernel's routes of ours (the periodic repair) since the daemon started.", nil, nil)
)

type fibCollector struct{ read func() FIBState }

func (fibCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{fibRoutesDesc, fibRefusedDesc, fibPendingDesc, fibWritesDesc, fibRefusalsDesc, fibLooksDesc} {
		ch <- d
	}
}

func (c fibCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.read()
	for _, t := range s.Tables {
		ch <- prometheus.MustNewConstMetric(fibRoutesDesc, prometheus.GaugeValue, float64(t.Routes), t.VRF, strconv.FormatUint(uint64(t.Table), 10))
	}
	for _, r := range s.Refused {
		ch <- prometheus.MustNewConstMetric(fibRefusedDesc, prometheus.GaugeValue, float64(r.Count), r.VRF, r.Reason)
	}
	ch <- prometheus.MustNewConstMetric(fibPendingDesc, prometheus.GaugeValue, float64(s.Pending))
	ch <- prometheus.MustNewConstMetric(fibWritesDesc, prometheus.CounterValue, float64(s.Writes))
	ch <- prometheus.MustNewConstMetric(fibRefusalsDesc, prometheus.CounterValue, float64(s.Refusals))
	ch <- prometheus.MustNewConstMetric(fibLooksDesc, prometheus.CounterValue, float64(s.Looks))
}

// ReadFIB makes the authbgpd_fib_* metrics read read at every scrape (call
// it once). read must be safe for concurrent use and return each (vrf,
// table) and (vrf, reason) once.
func (m *Metrics) ReadFIB(read func() FIBState) error {
	if m == nil {
		return nil
	}
	return m.reg.Register(fibCollector{read: read})
}
