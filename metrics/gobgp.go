package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// GoBGPLoop is the watchdog of GoBGP's main loop (*plugin.Host).
type GoBGPLoop interface {
	LoopAnswerAge() time.Duration
	LoopHealth() error
}

// ReadGoBGPLoop makes authbgpd_gobgp_loop_last_answer_age_seconds read age
// and authbgpd_gobgp_loop_stalled read health at every scrape (call it
// once): the watchdog of GoBGP's main loop (plugin.Host's LoopAnswerAge and
// LoopHealth). The age grows from 0 up to the watchdog's period while the
// loop answers, and on while it does not; stalled is 1 while health is
// not nil (what /healthz and /livez say).
func (m *Metrics) ReadGoBGPLoop(age func() time.Duration, health func() error) error {
	if m == nil {
		return nil
	}
	if err := m.reg.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "authbgpd_gobgp_loop_last_answer_age_seconds",
		Help: "Seconds since GoBGP's main loop last answered the watchdog's question: up to about the watchdog's period (1 s) while it answers, growing while it does not.",
	}, func() float64 { return age().Seconds() })); err != nil {
		return err
	}
	return m.reg.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "authbgpd_gobgp_loop_stalled",
		Help: "1 while GoBGP's main loop counts as stalled (what /healthz and /livez then report), 0 otherwise.",
	}, func() float64 { return b2f(health() != nil) }))
}
