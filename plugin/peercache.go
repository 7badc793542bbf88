package plugin

import (
	"context"
	"fmt"
	"sync"
	"time"

	api "github.com/osrg/gobgp/v3/api"
)

// The ListPeer cache behind PeerStates (/status, metrics): GoBGP answers
// ListPeer between management operations only, and counting advertised
// routes walks its whole table, so answers are shared for a second and the
// advertised counts refreshed by their cost.

// peerSnapshot is the last answer of GoBGP's ListPeer with advertised
// counts, refreshed by one goroutine at a time.
type peerSnapshot struct {
	mu      sync.Mutex
	peers   []*api.Peer
	at      time.Time
	running chan struct{} // closed when the refresh in flight ends; nil: none
	// adv are the advertised counts by neighbor and family, taken at advAt
	// in advCost.
	adv     map[advKey]uint64
	advAt   time.Time
	advCost time.Duration
}

type advKey struct {
	vrf  string
	addr string
	afi  api.Family_Afi
	safi api.Family_Safi
}

// snapshotMaxAge is how old a snapshot may be before PeerStates refreshes
// it. The advertised counts are refreshed less often the more they cost:
// GoBGP counts them by walking the whole table for every neighbor (seconds
// with a full table), so they are taken again after advertisedDuty times
// their last cost, at least every second and at most advertisedMaxAge.
const (
	snapshotMaxAge   = time.Second
	advertisedDuty   = 50
	advertisedMaxAge = 5 * time.Minute
)

// advertisedDue reports whether the advertised counts are to be taken
// again. s.mu is held.
func (s *peerSnapshot) advertisedDue(now time.Time) bool {
	if s.adv == nil {
		return true
	}
	every := min(max(snapshotMaxAge, advertisedDuty*s.advCost), advertisedMaxAge)
	return now.Sub(s.advAt) >= every
}

// PeerStates returns every GoBGP neighbor with its state, timers,
// transport and per-family prefix counts (received, accepted, advertised),
// passwords redacted. It never waits longer than ctx: GoBGP answers
// between management operations (a reload may hold it for seconds), so
// when the refresh is slow the previous snapshot is returned with its time;
// the refresh goes on in the background. A zero time means none yet.
// A snapshot taken before after (the last session change the caller
// knows of) is refreshed whatever its age.
func (h *Host) PeerStates(ctx context.Context, after time.Time) ([]*api.Peer, time.Time, error) {
	if err := h.checkRunning(); err != nil {
		return nil, time.Time{}, err
	}
	s := &h.snap
	s.mu.Lock()
	if !s.at.IsZero() && !s.at.Before(after) && timeNow().Sub(s.at) < snapshotMaxAge {
		defer s.mu.Unlock()
		return s.peers, s.at, nil
	}
	if s.running == nil {
		s.running = make(chan struct{})
		go h.refreshSnapshot(s.running)
	}
	done := s.running
	s.mu.Unlock()
	select {
	case <-done:
	case <-ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peers, s.at, nil
}

func (h *Host) refreshSnapshot(done chan struct{}) {
	s := &h.snap
	s.mu.Lock()
	adv := s.advertisedDue(timeNow())
	s.mu.Unlock()
	start := time.Now()
	var out []*api.Peer
	var err error
	for _, in := range h.instances() {
		if err = in.srv.ListPeer(context.Background(), &api.ListPeerRequest{EnableAdvertised: adv}, func(p *api.Peer) {
			out = append(out, listed(p, in.vrf))
		}); err != nil {
			break
		}
	}
	s.mu.Lock()
	if err == nil {
		s.peers, s.at = out, timeNow()
		if adv {
			s.adv, s.advAt, s.advCost = advertisedOf(out), s.at, time.Since(start)
		} else {
			setAdvertised(out, s.adv)
		}
	} else {
		h.log.WithError(fmt.Errorf("plugin: list peers for /status: %w", err)).Warn("GoBGP peer state not refreshed")
	}
	s.running = nil
	s.mu.Unlock()
	close(done)
}

// advertisedOf returns the advertised counts of peers.
func advertisedOf(peers []*api.Peer) map[advKey]uint64 {
	m := map[advKey]uint64{}
	for _, p := range peers {
		for _, af := range p.GetAfiSafis() {
			if st := af.GetState(); st != nil {
				m[advKey{VRFOf(p), p.GetConf().GetNeighborAddress(), st.GetFamily().GetAfi(), st.GetFamily().GetSafi()}] = st.GetAdvertised()
			}
		}
	}
	return m
}

// setAdvertised fills the advertised counts of peers from adv.
func setAdvertised(peers []*api.Peer, adv map[advKey]uint64) {
	for _, p := range peers {
		for _, af := range p.GetAfiSafis() {
			if st := af.GetState(); st != nil {
				st.Advertised = adv[advKey{VRFOf(p), p.GetConf().GetNeighborAddress(), st.GetFamily().GetAfi(), st.GetFamily().GetSafi()}]
			}
		}
	}
}
