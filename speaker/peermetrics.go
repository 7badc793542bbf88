package speaker

import (
	"context"
	"fmt"
	"time"

	api "github.com/osrg/gobgp/v3/api"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/metrics"
	"github.com/authbgp/authbgpd/peers"
)

// scrapeTimeout bounds what one scrape asks of GoBGP.
const scrapeTimeout = 5 * time.Second

// segmentSeries makes every keyed peer's authbgpd_md5_segments_total
// series exist at 0 when the shadow is on (at start and after a reload:
// not during a scrape, whose collectors run concurrently).
func (s *Speaker) segmentSeries(cfg *config.Config) {
	if s.shadow == nil {
		return
	}
	for _, p := range cfg.Peers {
		if p.Auth().Mode == config.AuthMD5 {
			s.metrics.SegmentCounters(p.ID())
		}
	}
}

// setupMetrics makes the metrics that are read at each scrape read the
// running parts: every configured peer's state and prefixes, and whether
// the shadow checker's capture runs.
func (s *Speaker) setupMetrics() error {
	if err := s.metrics.ReadPeers(s.peerMetrics); err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	if s.shadow != nil {
		if err := s.metrics.ReadCaptureRunning(func() bool { return s.shadow.CaptureStatus().Running }); err != nil {
			return fmt.Errorf("metrics: %w", err)
		}
	}
	return nil
}

// peerMetrics is the reader of authbgpd_peer_up and authbgpd_peer_prefixes:
// one entry per configured peer (a dynamic range sums its sessions), up
// from /status's state, prefixes from GoBGP.
func (s *Speaker) peerMetrics() ([]metrics.PeerState, error) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	nbrs, err := s.host.ListPeer(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("peer metrics: %w", err)
	}
	// GoBGP's advertised counts, from the snapshot /status uses (refreshed
	// less often the more they cost: a full table makes them expensive).
	sent := map[string]map[config.Family]uint64{}
	if snap, _, err := s.host.PeerStates(ctx, time.Time{}); err == nil {
		for _, p := range snap {
			m := map[config.Family]uint64{}
			for _, af := range p.GetAfiSafis() {
				m[peers.FamilyName(af.GetState().GetFamily())] = af.GetState().GetAdvertised()
			}
			sent[p.GetConf().GetNeighborAddress()] = m
		}
	}
	return peers.MetricStates(s.peers.Status(), nbrs, func(addr string, f *api.Family) uint64 {
		return sent[addr][peers.FamilyName(f)]
	}), nil
}
