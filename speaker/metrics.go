package speaker

import (
	"fmt"

	"github.com/authbgp/authbgpd/speaker/peermetrics"
)

// setupMetrics makes the metrics that are read at each scrape read the
// running parts: every configured peer's state and prefixes, the kernel's
// drops per peer, and whether the shadow checker's capture runs.
func (s *Speaker) setupMetrics() error {
	if err := s.metrics.ReadPeers(peermetrics.Reader(s.host, s.peers)); err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	if err := s.metrics.ReadPeerKernelDrops(s.drops.w.MetricSeries); err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	if s.shadow != nil {
		if err := s.metrics.ReadCaptureRunning(func() bool { return s.shadow.CaptureStatus().Running }); err != nil {
			return fmt.Errorf("metrics: %w", err)
		}
	}
	return nil
}
