package speaker

import (
	"context"
	"fmt"
	"sync"
	"time"

	api "github.com/osrg/gobgp/v3/api"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/metrics"
	"github.com/authbgp/authbgpd/plugin"
	"github.com/authbgp/authbgpd/status"
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
	sent := s.sent.counts(ctx, s.host)
	return peerStates(s.peers.Status(), nbrs, func(addr string, f *api.Family) uint64 {
		return sent[sentKey{addr, f.GetAfi(), f.GetSafi()}]
	}), nil
}

// sentEvery is how old the sent-prefix counts may be: GoBGP computes them
// from the whole table for every neighbor, far too much for each scrape
// of a full table.
const sentEvery = 30 * time.Second

type sentKey struct {
	addr string
	afi  api.Family_Afi
	safi api.Family_Safi
}

// sentCounts caches the prefixes advertised per neighbor and family.
type sentCounts struct {
	mu sync.Mutex
	at time.Time
	n  map[sentKey]uint64
}

// counts returns the cached counts, asking GoBGP again when they are older
// than sentEvery (an error keeps the old ones).
func (c *sentCounts) counts(ctx context.Context, h *plugin.Host) map[sentKey]uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n != nil && time.Since(c.at) < sentEvery {
		return c.n
	}
	nbrs, err := h.ListPeerAdvertised(ctx)
	if err != nil {
		return c.n
	}
	n := map[sentKey]uint64{}
	for _, p := range nbrs {
		for _, af := range p.GetAfiSafis() {
			f := af.GetState().GetFamily()
			n[sentKey{p.GetConf().GetNeighborAddress(), f.GetAfi(), f.GetSafi()}] = af.GetState().GetAdvertised()
		}
	}
	c.n, c.at = n, time.Now()
	return n
}

// peerStates folds the status of the configured peers (and of the sessions
// accepted from dynamic ranges) and GoBGP's neighbors into one entry per
// configured peer. sent counts the prefixes sent to an Established
// neighbor in a family.
func peerStates(st []status.Peer, nbrs []*api.Peer, sent func(addr string, f *api.Family) uint64) []metrics.PeerState {
	var out []metrics.PeerState
	idx := make(map[string]int, len(st)) // configured peer ID -> out
	owner := make(map[string]string, len(st))
	for _, p := range st {
		if p.Prefix == "" || p.Prefix == p.Address { // a static peer or a range
			idx[p.Address] = len(out)
			out = append(out, metrics.PeerState{Peer: p.Address, Up: p.State == "established"})
		}
	}
	for _, p := range st {
		id := p.Address
		if p.Prefix != "" && p.Prefix != p.Address { // a session of a range
			id = p.Prefix
		}
		owner[p.Address] = id
		if i, ok := idx[id]; ok && p.State == "established" {
			out[i].Up = true
		}
	}
	for _, n := range nbrs {
		addr := n.GetConf().GetNeighborAddress()
		i, ok := idx[owner[addr]]
		if !ok {
			continue
		}
		up := n.GetState().GetSessionState() == api.PeerState_ESTABLISHED
		for _, af := range n.GetAfiSafis() {
			fs := af.GetState()
			name := familyName(fs.GetFamily())
			if fs == nil || name == "" {
				continue
			}
			fp := metrics.FamilyPrefixes{Family: string(name), Received: fs.GetReceived(), Accepted: fs.GetAccepted()}
			if up {
				fp.Sent = sent(addr, fs.GetFamily())
			}
			out[i].Prefixes = addPrefixes(out[i].Prefixes, fp)
		}
	}
	return out
}

// addPrefixes adds fp to the counts of its family in ps.
func addPrefixes(ps []metrics.FamilyPrefixes, fp metrics.FamilyPrefixes) []metrics.FamilyPrefixes {
	for i := range ps {
		if ps[i].Family == fp.Family {
			ps[i].Received += fp.Received
			ps[i].Accepted += fp.Accepted
			ps[i].Sent += fp.Sent
			return ps
		}
	}
	return append(ps, fp)
}

// familyName is the config's name of a GoBGP family ("" for one the
// config cannot name).
func familyName(f *api.Family) config.Family {
	switch {
	case f.GetAfi() == api.Family_AFI_IP && f.GetSafi() == api.Family_SAFI_UNICAST:
		return config.IPv4Unicast
	case f.GetAfi() == api.Family_AFI_IP6 && f.GetSafi() == api.Family_SAFI_UNICAST:
		return config.IPv6Unicast
	case f.GetAfi() == api.Family_AFI_IP && f.GetSafi() == api.Family_SAFI_SR_POLICY:
		return config.IPv4SRPolicy
	case f.GetAfi() == api.Family_AFI_IP6 && f.GetSafi() == api.Family_SAFI_SR_POLICY:
		return config.IPv6SRPolicy
	}
	return ""
}
