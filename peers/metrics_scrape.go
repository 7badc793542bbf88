package peers

import (
	"context"
	"fmt"
	"time"

	api "github.com/osrg/gobgp/v3/api"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/metrics"
	"github.com/authbgp/authbgpd/plugin"
	"github.com/authbgp/authbgpd/status"
)

// scrapeTimeout bounds what one scrape asks of GoBGP.
const scrapeTimeout = 5 * time.Second

// GoBGPPeers is what a scrape reads of GoBGP's peers; *plugin.Host is one.
type GoBGPPeers interface {
	ListPeer(ctx context.Context, addr string) ([]*api.Peer, error)
	// PeerStates is the snapshot /status uses (refreshed less often the
	// more it costs: a full table makes it expensive).
	PeerStates(ctx context.Context, after time.Time) ([]*api.Peer, time.Time, error)
}

// MetricReader returns the reader of authbgpd_peer_up and
// authbgpd_peer_prefixes (metrics.Readers.Peers): one entry per configured
// peer (a dynamic range sums its sessions), up from peerStatus (the
// manager's Status, what /status says), prefixes from GoBGP's neighbors,
// the sent ones from its /status snapshot.
func MetricReader(g GoBGPPeers, peerStatus func() []status.Peer) func() ([]metrics.PeerState, error) {
	return func() ([]metrics.PeerState, error) {
		ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
		defer cancel()
		nbrs, err := g.ListPeer(ctx, "")
		if err != nil {
			return nil, fmt.Errorf("peer metrics: %w", err)
		}
		sent := map[string]map[config.Family]uint64{}
		if snap, _, err := g.PeerStates(ctx, time.Time{}); err == nil {
			for _, p := range snap {
				m := map[config.Family]uint64{}
				for _, af := range p.GetAfiSafis() {
					m[FamilyName(af.GetState().GetFamily())] = af.GetState().GetAdvertised()
				}
				sent[config.ScopedID(plugin.VRFOf(p), p.GetConf().GetNeighborAddress())] = m
			}
		}
		return MetricStates(peerStatus(), nbrs, func(id string, f *api.Family) uint64 {
			return sent[id][FamilyName(f)]
		}), nil
	}
}
