// Package peermetrics assembles, at each scrape, the per-peer metrics that
// come from two places: authbgpd_peer_up from the peers manager's view
// (what /status says) and authbgpd_peer_prefixes from GoBGP.
package peermetrics

import (
	"context"
	"fmt"
	"time"

	api "github.com/osrg/gobgp/v3/api"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/metrics"
	"github.com/authbgp/authbgpd/peers"
	"github.com/authbgp/authbgpd/plugin"
)

// scrapeTimeout bounds what one scrape asks of GoBGP.
const scrapeTimeout = 5 * time.Second

// Reader returns the reader of authbgpd_peer_up and authbgpd_peer_prefixes
// (for metrics.ReadPeers): one entry per configured peer (a dynamic range
// sums its sessions), up from pm's status, prefixes from host's GoBGP.
func Reader(host *plugin.Host, pm *peers.Manager) func() ([]metrics.PeerState, error) {
	return func() ([]metrics.PeerState, error) { return read(host, pm) }
}

func read(host *plugin.Host, pm *peers.Manager) ([]metrics.PeerState, error) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	nbrs, err := host.ListPeer(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("peer metrics: %w", err)
	}
	// GoBGP's advertised counts, from the snapshot /status uses (refreshed
	// less often the more they cost: a full table makes them expensive).
	sent := map[string]map[config.Family]uint64{}
	if snap, _, err := host.PeerStates(ctx, time.Time{}); err == nil {
		for _, p := range snap {
			m := map[config.Family]uint64{}
			for _, af := range p.GetAfiSafis() {
				m[peers.FamilyName(af.GetState().GetFamily())] = af.GetState().GetAdvertised()
			}
			sent[p.GetConf().GetNeighborAddress()] = m
		}
	}
	return peers.MetricStates(pm.Status(), nbrs, func(addr string, f *api.Family) uint64 {
		return sent[addr][peers.FamilyName(f)]
	}), nil
}
