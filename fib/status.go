package fib

import (
	"sort"

	"github.com/authbgp/authbgpd/metrics"
)

// MetricState is the authbgpd_fib_* metrics now (metrics.Readers.FIB).
func (r *Reconciler) MetricState() metrics.FIBState {
	st := r.st.Load()
	m := metrics.FIBState{Pending: st.Pending, Writes: r.count.written.Load(), Refusals: r.count.refused.Load(), Looks: r.count.looks.Load()}
	for _, t := range st.Tables {
		m.Tables = append(m.Tables, metrics.FIBTable{VRF: t.VRF, Table: t.Table, Routes: t.Routes, Refused: t.Refused})
	}
	// Every refusal counts (the status lists at most 100).
	for k, n := range r.refusedBy.Load().counts {
		m.Refused = append(m.Refused, metrics.FIBRefused{VRF: k[0], Reason: k[1], Count: n})
	}
	sort.Slice(m.Refused, func(i, j int) bool {
		if m.Refused[i].VRF != m.Refused[j].VRF {
			return m.Refused[i].VRF < m.Refused[j].VRF
		}
		return m.Refused[i].Reason < m.Refused[j].Reason
	})
	return m
}

// refusedCounts are all refusals by (VRF, reason), published with the
// status (which lists at most 100).
type refusedCounts struct{ counts map[[2]string]int }
