package metrics

import "github.com/prometheus/client_golang/prometheus"

// ReconcilePasses is what the reconciler's loop did: its full passes
// (they read GoBGP's neighbors back) and its light ones (asked for by
// session events: the sockets only).
type ReconcilePasses struct {
	Full, Light PassCount
}

// PassCount is how many passes of a kind ran and the time they took.
type PassCount struct {
	Passes  uint64
	Seconds float64
}

// ReadReconcilePasses makes authbgpd_reconcile_passes_total and
// authbgpd_reconcile_pass_seconds_total{kind="full"|"light"} read read at
// every scrape (call it once).
func (m *Metrics) ReadReconcilePasses(read func() ReconcilePasses) error {
	if m == nil {
		return nil
	}
	for _, kind := range []string{"full", "light"} {
		count := func() PassCount {
			r := read()
			if kind == "full" {
				return r.Full
			}
			return r.Light
		}
		labels := prometheus.Labels{"kind": kind}
		if err := m.reg.Register(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name:        "authbgpd_reconcile_passes_total",
			Help:        "Reconciliation passes run, by kind: full (GoBGP's neighbors read back) or light (after session events: the sockets only).",
			ConstLabels: labels,
		}, func() float64 { return float64(count().Passes) })); err != nil {
			return err
		}
		if err := m.reg.Register(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name:        "authbgpd_reconcile_pass_seconds_total",
			Help:        "Wall-clock time spent in reconciliation passes, by kind (full or light).",
			ConstLabels: labels,
		}, func() float64 { return count().Seconds })); err != nil {
			return err
		}
	}
	return nil
}
