package srv6

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/plugin"
	"github.com/authbgp/authbgpd/srv6policy"
)

// headend is the loop that reads received policies, and the routes it
// installed.
type headend struct {
	src    netip.Addr
	steer  bool
	err    error // why nothing can be installed (no routes socket, no tunnel source)
	prev   netip.Addr
	setSrc bool // we changed the tunnel source (Stop restores prev)

	routes routeTable
	cands  []PolicyStatus
	passes uint64 // completed passes

	trigger chan struct{}
	cancel  context.CancelFunc
	done    chan struct{}
}

// startHeadendLocked opens the routes socket, removes routes a previous
// run left, sets the tunnel source and starts the loop (whose first pass
// runs at once).
func (s *Manager) startHeadendLocked(cfg *config.Config) {
	hc := cfg.SRv6.Headend
	log := s.log.WithField("source", hc.Source)
	he := &headend{
		src:     hc.Source,
		steer:   hc.SteerEndpoint,
		routes:  routeTable{log: s.log, installed: map[netip.Prefix]Planned{}},
		trigger: make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
	if kr, err := s.openRoutes(); err != nil {
		he.err = err
	} else {
		he.routes.kr = kr
		if n, err := kr.Flush(); err != nil {
			log.WithError(err).Warn("srv6: headend: cannot remove routes left by a previous run")
		} else if n > 0 {
			log.WithField("routes", n).Info("srv6: headend: removed routes left by a previous run")
		}
	}
	if he.err == nil {
		he.err = s.setTunnelSourceLocked(he, hc.Source, log)
	}
	if he.err != nil {
		log.WithError(he.err).Error("srv6: headend cannot install policies")
	} else {
		log.Info("srv6: headend installing received policies")
	}
	s.he = he
	var ctx context.Context
	ctx, he.cancel = context.WithCancel(context.Background())
	events, unsub := s.host.Subscribe(16)
	go s.headendLoop(ctx, he, events, unsub)
}

// setTunnelSourceLocked makes src the namespace's SRv6 tunnel source,
// remembering the previous one.
func (s *Manager) setTunnelSourceLocked(he *headend, src netip.Addr, log *logrus.Entry) error {
	kk, err := s.keys.client(s.openKeys)
	if err == nil {
		he.prev, err = kk.TunnelSource()
		if err == nil && he.prev != src {
			if err = kk.SetTunnelSource(src); err == nil {
				he.setSrc = true
				if !he.prev.IsUnspecified() {
					log.WithField("previous", he.prev).Warn("srv6: headend: replaced the namespace's SRv6 tunnel source")
				}
			}
		}
	}
	if err != nil {
		return fmt.Errorf("cannot set the SRv6 tunnel source (the outer source the HMAC covers) to %s: %w", src, err)
	}
	return nil
}

func (s *Manager) headendLoop(ctx context.Context, he *headend, events <-chan plugin.PeerEvent, unsub func()) {
	defer close(he.done)
	defer unsub()
	t := time.NewTicker(s.poll)
	defer t.Stop()
	run := func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.he != he {
			return
		}
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		s.passLocked(pctx)
	}
	run()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-he.trigger:
		case _, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			// A session changed: its paths may have come or gone.
		}
		run()
	}
}

// stopHeadend stops the loop (s.mu not held), then removes the routes and
// restores the tunnel source.
func (s *Manager) stopHeadend(he *headend) []error {
	he.cancel()
	<-he.done
	s.mu.Lock()
	defer s.mu.Unlock()
	errs := he.routes.clear()
	he.cands = nil
	s.dropPolicyMetricsLocked()
	if he.setSrc && s.keys.kk != nil {
		if err := s.keys.kk.SetTunnelSource(he.prev); err != nil {
			errs = append(errs, err)
		}
	}
	if he.routes.kr != nil {
		he.routes.kr.Close()
	}
	return errs
}

// srPolicyFamilies are the families the headend reads.
var srPolicyFamilies = []*api.Family{
	{Afi: api.Family_AFI_IP6, Safi: api.Family_SAFI_SR_POLICY},
	{Afi: api.Family_AFI_IP, Safi: api.Family_SAFI_SR_POLICY},
}

// onlyBinary asks ListPath for the NLRI and attributes in wire form only:
// GoBGP then never converts them to API form (which panics on a segment
// list without a Weight).
func onlyBinary(r *api.ListPathRequest) { r.EnableOnlyBinary = true }

// readCandidatesLocked reads the received SR policy paths (locally
// originated ones are ours to advertise, not to install).
func (s *Manager) readCandidatesLocked(ctx context.Context) ([]Candidate, error) {
	var cands []Candidate
	var readErr error
	for _, fam := range srPolicyFamilies {
		dests, err := s.host.ListPath(ctx, fam, onlyBinary)
		if err != nil {
			readErr = err
			continue
		}
		for _, d := range dests {
			for _, p := range d.Paths {
				nb, err := netip.ParseAddr(p.NeighborIp)
				if err != nil || p.IsWithdraw {
					continue
				}
				cands = append(cands, candidateOf(d.Prefix, p, nb.Unmap()))
			}
		}
	}
	return cands, readErr
}

func candidateOf(prefix string, p *api.Path, nb netip.Addr) Candidate {
	rcv, err := srv6policy.DecodePath(p.NlriBinary, p.PattrsBinary)
	if err != nil {
		return Candidate{Name: fmt.Sprintf("%s from %s", prefix, nb), Err: err.Error()}
	}
	return Candidate{
		Candidate: srv6policy.Candidate{Received: rcv, Neighbor: nb, SourceASN: p.SourceAsn},
		Name:      fmt.Sprintf("%s from %s", rcv.NLRIKey(), nb),
	}
}

// passLocked reads the received policies, decides what to install (Plan)
// and makes the kernel routes so (Set).
func (s *Manager) passLocked(ctx context.Context) {
	he := s.he
	if he == nil {
		return
	}
	cands, err := s.readCandidatesLocked(ctx)
	if err != nil {
		s.log.WithError(err).Warn("srv6: headend: cannot read received policies")
		return // keep what is installed
	}
	cfg := s.cfg
	view := View{
		RouterID: cfg.Global.RouterID,
		HaveKey:  func(id uint32) bool { return cfg.HMACKey(id) != nil },
		Direct:   s.direct,
		Steer:    he.steer,
		Blocked:  he.err,
	}
	if he.err == nil { // else no routes socket, and every winner is blocked
		view.Via = he.routes.kr.InterfaceTo
	}
	desired, verdicts := Plan(cands, view, s.keys.states())
	failed := he.routes.Set(desired)
	s.publishLocked(he, Statuses(verdicts, failed))
	he.passes++
}

// publishLocked sets the pass's statuses in /status and metrics, with a
// log line when a policy's state changes.
func (s *Manager) publishLocked(he *headend, out []PolicyStatus) {
	prev := map[string]PolicyStatus{}
	for _, c := range he.cands {
		prev[c.Name] = c
	}
	seen := map[string]bool{}
	for _, cs := range out {
		seen[cs.Name] = true
		if p, ok := prev[cs.Name]; !ok || p != cs {
			e := s.log.WithField("policy", cs.Name)
			switch {
			case cs.Installed && cs.Reason == "":
				e.Info("srv6: headend: received policy installed")
			case cs.Installed:
				e.WithField("note", cs.Reason).Warn("srv6: headend: received policy installed in part")
			default:
				e.WithField("reason", cs.Reason).Warn("srv6: headend: received policy not installed")
			}
		}
		s.m.SetPolicyInstalled(cs.Name, cs.Installed)
		s.names[cs.Name] = true
	}
	for name := range s.names {
		if !seen[name] {
			s.m.DeletePolicy(name)
			delete(s.names, name)
		}
	}
	he.cands = out
}

// states is the key table for Plan.
func (t *keyTable) states() map[uint32]KeyState {
	out := make(map[uint32]KeyState, len(t.keys))
	for id, k := range t.keys {
		out[id] = KeyState{Installed: k.installed, Err: k.err}
	}
	return out
}
