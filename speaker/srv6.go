package speaker

import (
	"context"

	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/metrics"
	"github.com/authbgp/authbgpd/plugin"
	"github.com/authbgp/authbgpd/status"
)

// srv6Run programs SRv6 HMAC keys into the kernel, advertises the
// configured SR policies and, on a headend, installs received ones.
// (Being built: see issue [4/5].)
type srv6Run struct {
	log *logrus.Entry
	cfg *config.Config
	m   *metrics.Metrics
}

func newSRv6(cfg *config.Config, log *logrus.Logger, m *metrics.Metrics) *srv6Run {
	return &srv6Run{log: log.WithField("component", "srv6"), cfg: cfg, m: m}
}

func (s *srv6Run) Name() string                                    { return "srv6" }
func (s *srv6Run) Start(ctx context.Context, h *plugin.Host) error { return nil }
func (s *srv6Run) Stop(ctx context.Context) error                  { return nil }

// reload applies a new config's keys and policies.
func (s *srv6Run) reload(ctx context.Context, cfg *config.Config) error {
	s.cfg = cfg
	return nil
}

// status is the srv6 part of /status.
func (s *srv6Run) status() status.SRv6 {
	return status.SRv6{HMACKeys: []status.HMACKey{}, Policies: []status.Policy{}}
}
