// Package srv6 is the SRv6 runtime of authbgpd, a plugin of plugin.Host:
//
//   - it programs the [[srv6.hmac-keys]] into the kernel's SEG6 key table
//     at start, and reconciles them on reload: new IDs are added before
//     anything uses them, IDs no longer configured are removed after the
//     routes that used them, and a changed secret for an ID in use is
//     refused (the kernel would drop packets between delete and re-add:
//     rotate to a new ID instead);
//   - it advertises the [[srv6.policies]] through GoBGP (withdrawn or
//     replaced on reload);
//   - with [srv6.headend] enabled, it installs the received policies
//     addressed to this router whose HMAC key ID is in its key table: the
//     Binding SID as seg6local End.B6.Encaps and, with steer-endpoint, a
//     seg6 encap route for the endpoint, both with an HMAC'd SRH, the
//     outer source being the namespace's SRv6 tunnel source, set to
//     [srv6.headend] source;
//   - it owns the SRH verifier of the shadow checker, whose keys follow
//     the kernel key table (what the Manager applied, not the config).
//
// Received policies are read with ListPath in binary form (every second,
// and at once on a peer state change) and decoded by srv6policy: GoBGP's
// conversion of a received SR policy to API form panics on a segment list
// without a Weight, and for WatchEvent it runs on GoBGP's own goroutine,
// where no one can recover it.
//
// Secrets are never logged: only key IDs.
package srv6

import (
	"context"
	"errors"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/metrics"
	"github.com/authbgp/authbgpd/plugin"
	"github.com/authbgp/authbgpd/status"
)

// DefaultHeadendPoll is how often the headend re-reads received policies
// (besides at once on every peer state change).
const DefaultHeadendPoll = time.Second

// Manager is the SRv6 plugin.
type Manager struct {
	log  *logrus.Entry
	m    *metrics.Metrics
	srh  *SRHVerifier
	poll time.Duration // how often the headend re-reads the RIB

	// The kernel, behind interfaces for tests.
	openKeys   func() (kernelKeys, error)
	openRoutes func() (kernelRoutes, error)
	direct     func(netip.Addr) bool // is a neighbor directly connected

	opMu sync.Mutex // serialises Start, Reload and Stop

	lastStatus atomic.Pointer[status.SRv6] // what Status last built

	mu      sync.Mutex // guards the fields below
	cfg     *config.Config
	host    bgpHost
	started bool
	stopped bool
	keys    keyTable
	adv     map[string]*advertised // by policy name
	he      *headend               // nil while [srv6.headend] is off
	names   map[string]bool        // received policies with an installed-metric series
}

// New makes the Manager of cfg; Start (a plugin method) applies it.
func New(cfg *config.Config, log *logrus.Logger, m *metrics.Metrics) *Manager {
	return &Manager{
		log:        log.WithField("component", "srv6"),
		cfg:        cfg,
		m:          m,
		srh:        newSRHVerifier(m),
		poll:       DefaultHeadendPoll,
		openKeys:   openKernelKeys,
		openRoutes: openKernelRoutes,
		direct:     onLink,
		keys:       keyTable{keys: map[uint32]*kernelKey{}},
		adv:        map[string]*advertised{},
		names:      map[string]bool{},
	}
}

// Name implements plugin.Plugin.
func (s *Manager) Name() string { return "srv6" }

// Verifier is the shadow checker's SRH verifier (shadow.SRHChecker). Its
// keys are the ones in the kernel table, set by Start and Reload.
func (s *Manager) Verifier() *SRHVerifier { return s.srh }

// Start installs the keys, advertises the policies and starts the
// headend. Failures are reported in /status and the log; they do not stop
// BGP.
func (s *Manager) Start(ctx context.Context, h *plugin.Host) error {
	s.begin(ctx, h)
	return nil
}

func (s *Manager) begin(ctx context.Context, h bgpHost) {
	s.opMu.Lock()
	defer s.opMu.Unlock()
	s.mu.Lock()
	s.host, s.started = h, true
	cfg := s.cfg
	errs := s.applyKeysLocked(cfg)
	errs = append(errs, s.applyPoliciesLocked(ctx, cfg)...)
	if cfg.SRv6.Headend.Enabled {
		s.startHeadendLocked(cfg)
	}
	s.updateVerifierLocked(cfg)
	s.mu.Unlock()
	for _, err := range errs {
		s.log.WithError(err).Error("srv6")
	}
}

// Stop stops the headend and removes what we installed: its routes, then
// (routes before keys) the HMAC keys we programmed, and restores the
// tunnel source. Advertised policies go with the BGP sessions.
func (s *Manager) Stop(ctx context.Context) error {
	s.opMu.Lock()
	defer s.opMu.Unlock()
	s.mu.Lock()
	he := s.he
	s.he = nil
	s.stopped = true
	s.mu.Unlock()
	var errs []error
	if he != nil {
		errs = append(errs, s.stopHeadend(he)...)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropPolicyMetricsLocked()
	errs = append(errs, s.keys.removeAll(s.log)...)
	keys, _ := s.keys.verifierKeys()
	s.srh.setKeys(keys, s.srh.Enabled())
	return errors.Join(errs...)
}

// Reload applies a new config's keys, policies and headend settings, in
// an order that never leaves a route without its key: keys added, policies
// advertised, headend re-evaluated (routes of removed keys go), then keys
// no longer configured removed.
func (s *Manager) Reload(ctx context.Context, cfg *config.Config) error {
	s.mu.Lock()
	old := s.cfg
	s.mu.Unlock()
	return s.ReloadPlan(ctx, config.PlanReload(old, cfg))
}

// ReloadPlan is Reload of pl.New, logging the SRv6 changes pl has diffed
// (diffed again if pl was made from another config than the running one).
func (s *Manager) ReloadPlan(ctx context.Context, pl config.Plan) error {
	cfg := pl.New
	s.opMu.Lock()
	defer s.opMu.Unlock()
	s.mu.Lock()
	old := s.cfg
	s.cfg = cfg
	if !s.started || s.stopped {
		s.mu.Unlock()
		return nil
	}
	ch := pl.Changes
	if pl.Old != old {
		ch = config.Diff(old, cfg)
	}
	s.logChanges(ch)
	errs := s.applyKeysLocked(cfg)
	errs = append(errs, s.applyPoliciesLocked(ctx, cfg)...)
	he, hc := s.he, cfg.SRv6.Headend
	switch {
	case he != nil && (!hc.Enabled || hc.Source != he.src):
		// Off, or a new source: stop (routes removed, tunnel source
		// restored), then start again if still on.
		s.he = nil
		s.mu.Unlock()
		errs = append(errs, s.stopHeadend(he)...)
		s.mu.Lock()
		if hc.Enabled {
			s.startHeadendLocked(cfg)
		}
	case he == nil && hc.Enabled:
		s.startHeadendLocked(cfg)
	case he != nil:
		he.steer = hc.SteerEndpoint
		s.passLocked(ctx)
	}
	errs = append(errs, s.removeKeysLocked(cfg)...)
	s.updateVerifierLocked(cfg)
	s.mu.Unlock()
	return errors.Join(errs...)
}

// logChanges says which SRv6 keys (by ID) and policies (by name) a reload
// changes, as config.Diff reported them (ch).
func (s *Manager) logChanges(ch config.Changes) {
	if len(ch.HMACKeysAdded)+len(ch.HMACKeysRemoved)+len(ch.HMACKeysChanged)+
		len(ch.PoliciesAdded)+len(ch.PoliciesRemoved)+len(ch.PoliciesChanged) == 0 && !ch.Headend {
		return
	}
	s.log.WithFields(logrus.Fields{
		"keys_added": ch.HMACKeysAdded, "keys_removed": ch.HMACKeysRemoved, "keys_changed": ch.HMACKeysChanged,
		"policies_added": ch.PoliciesAdded, "policies_removed": ch.PoliciesRemoved, "policies_changed": ch.PoliciesChanged,
		"headend_changed": ch.Headend,
	}).Info("srv6: reload")
}

// updateVerifierLocked gives the SRH verifier the keys the kernel holds;
// a configured key ID the kernel holds nothing for (its table cannot be
// written without CAP_NET_ADMIN, or the add failed) is verified with the
// configured secret, as the packets of other routers still carry it. It
// verifies SRHs when cfg has keys it can prepare (as the shadow checker
// captures SRv6 packets only then).
func (s *Manager) updateVerifierLocked(cfg *config.Config) {
	configured, _ := SRHKeys(cfg)
	keys, errs := s.keys.verifierKeys()
	for id, k := range configured {
		if s.keys.keys[id].inKernel() == nil {
			keys[id] = k
		}
	}
	if cfg.Shadow.EffectiveMode() == config.ShadowAlways { // on demand, SRv6 is not captured
		for _, err := range errs {
			s.log.WithError(err).Error("shadow: cannot verify SRH HMACs with this key")
		}
	}
	s.srh.setKeys(keys, len(configured) > 0)
}

func (s *Manager) dropPolicyMetricsLocked() {
	for name := range s.names {
		s.m.DeletePolicy(name)
	}
	s.names = map[string]bool{}
}
