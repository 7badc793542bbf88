package speaker

import (
	"context"
	"fmt"
	"time"

	api "github.com/osrg/gobgp/v3/api"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/metrics"
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
	// GoBGP's advertised counts, from the snapshot /status uses (refreshed
	// less often the more they cost: a full table makes them expensive).
	sent := map[string]map[config.Family]uint64{}
	if snap, _, err := s.host.PeerStates(ctx, time.Time{}); err == nil {
		for _, p := range snap {
			m := map[config.Family]uint64{}
			for _, af := range p.GetAfiSafis() {
				m[familyName(af.GetState().GetFamily())] = af.GetState().GetAdvertised()
			}
			sent[p.GetConf().GetNeighborAddress()] = m
		}
	}
	return peerStates(s.peers.Status(), nbrs, func(addr string, f *api.Family) uint64 {
		return sent[addr][familyName(f)]
	}), nil
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
