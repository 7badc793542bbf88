package speaker

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/metrics"
	"github.com/authbgp/authbgpd/plugin"
	"github.com/authbgp/authbgpd/srv6policy"
	"github.com/authbgp/authbgpd/status"
)

// srv6Run is the SRv6 plugin:
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
//     [srv6.headend] source.
//
// Received policies are read with ListPath in binary form (every second,
// and at once on a peer state change) and decoded by srv6policy: GoBGP's
// conversion of a received SR policy to API form panics on a segment list
// without a Weight, and for WatchEvent it runs on GoBGP's own goroutine,
// where no one can recover it.
//
// Secrets are never logged: only key IDs.
type srv6Run struct {
	log  *logrus.Entry
	m    *metrics.Metrics
	poll time.Duration // how often the headend re-reads the RIB

	// The kernel, behind interfaces for tests.
	openKeys   func() (kernelKeys, error)
	openRoutes func() (kernelRoutes, error)
	direct     func(netip.Addr) bool // is a neighbor directly connected

	opMu sync.Mutex // serialises Start, reload and Stop

	lastStatus atomic.Pointer[status.SRv6] // what status() last built

	mu      sync.Mutex // guards the fields below
	cfg     *config.Config
	host    srv6Host
	started bool
	stopped bool
	kk      kernelKeys // nil until needed, or when it cannot be opened
	kkErr   error
	keys    map[uint32]*kernelKey  // by ID: the configured keys as applied
	adv     map[string]*advertised // by policy name
	he      *headendRun            // nil while [srv6.headend] is off
	names   map[string]bool        // received policies with an installed-metric series
}

// srv6Host is what srv6Run uses of plugin.Host.
type srv6Host interface {
	AddPath(ctx context.Context, p *api.Path) ([]byte, error)
	DeletePathByUUID(ctx context.Context, uuid []byte) error
	ListPath(ctx context.Context, family *api.Family, opts ...plugin.ListPathOption) ([]*api.Destination, error)
	Subscribe(buf int) (<-chan plugin.PeerEvent, func())
}

// kernelKeys is srv6policy.KernelKeys.
type kernelKeys interface {
	Set(id uint32, alg srv6policy.Algorithm, secret []byte) error
	Delete(id uint32) error
	Dump() ([]srv6policy.KernelKey, error)
	TunnelSource() (netip.Addr, error)
	SetTunnelSource(netip.Addr) error
	Close() error
}

// kernelRoutes is srv6policy.KernelRoutes.
type kernelRoutes interface {
	Add(srv6policy.Route) error
	Replace(srv6policy.Route) error
	Delete(netip.Prefix) error
	Flush() (int, error)
	InterfaceTo(netip.Addr) (int, error)
	Close() error
}

// kernelKey is one configured HMAC key as applied to the kernel.
type kernelKey struct {
	id      uint32
	algName string
	alg     srv6policy.Algorithm
	// secret is what the kernel holds (a copy), to tell a changed secret.
	secret    []byte
	installed bool
	owned     bool // we put it there (so Stop removes it)
	err       string
}

// advertised is one configured policy as advertised.
type advertised struct {
	pol        srv6policy.Policy
	uuid       []byte
	advertised bool
	err        string
}

// headendRun is the headend: the loop that reads received policies and the
// routes it installed.
type headendRun struct {
	src    netip.Addr
	steer  bool
	kr     kernelRoutes
	err    error // why nothing can be installed (no routes socket, no tunnel source)
	prev   netip.Addr
	setSrc bool // we changed the tunnel source (Stop restores prev)

	installed map[netip.Prefix]installedRoute
	cands     []candStatus
	passes    uint64 // completed passes

	trigger chan struct{}
	cancel  context.CancelFunc
	done    chan struct{}
}

type installedRoute struct {
	route srv6policy.Route
	owner string // candidate name
}

// candStatus is a received policy as last evaluated.
type candStatus struct {
	name      string
	installed bool
	reason    string
}

// DefaultHeadendPoll is how often the headend re-reads received policies
// (besides at once on every peer state change).
const DefaultHeadendPoll = time.Second

func newSRv6(cfg *config.Config, log *logrus.Logger, m *metrics.Metrics) *srv6Run {
	return &srv6Run{
		log:  log.WithField("component", "srv6"),
		cfg:  cfg,
		m:    m,
		poll: DefaultHeadendPoll,
		openKeys: func() (kernelKeys, error) {
			k, err := srv6policy.OpenKernelKeys()
			if err != nil {
				return nil, err
			}
			return k, nil
		},
		openRoutes: func() (kernelRoutes, error) {
			r, err := srv6policy.OpenKernelRoutes(srv6policy.RouteOptions{})
			if err != nil {
				return nil, err
			}
			return r, nil
		},
		direct: onLink,
		keys:   map[uint32]*kernelKey{},
		adv:    map[string]*advertised{},
		names:  map[string]bool{},
	}
}

func (s *srv6Run) Name() string { return "srv6" }

// Start installs the keys, advertises the policies and starts the
// headend. Failures are reported in /status and the log; they do not stop
// BGP.
func (s *srv6Run) Start(ctx context.Context, h *plugin.Host) error {
	return s.start(ctx, h)
}

func (s *srv6Run) start(ctx context.Context, h srv6Host) error {
	s.opMu.Lock()
	defer s.opMu.Unlock()
	s.mu.Lock()
	s.host = h
	s.started = true
	cfg := s.cfg
	var errs []error
	errs = append(errs, s.applyKeysLocked(cfg)...)
	errs = append(errs, s.applyPoliciesLocked(ctx, cfg)...)
	if cfg.SRv6.Headend.Enabled {
		s.startHeadendLocked(cfg)
	}
	s.mu.Unlock()
	for _, err := range errs {
		s.log.WithError(err).Error("srv6")
	}
	return nil
}

// Stop stops the headend and removes what we installed: its routes, then
// (routes before keys) the HMAC keys we programmed, and restores the
// tunnel source. Advertised policies go with the BGP sessions.
func (s *srv6Run) Stop(ctx context.Context) error {
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
	for name := range s.names {
		s.m.DeletePolicy(name)
	}
	s.names = map[string]bool{}
	for _, id := range sortedKeyIDs(s.keys) {
		k := s.keys[id]
		if k.owned && k.installed && s.kk != nil {
			if err := s.kk.Delete(id); err != nil && !errors.Is(err, srv6policy.ErrKeyNotFound) {
				errs = append(errs, err)
			} else {
				s.log.WithField("key_id", id).Info("srv6: HMAC key removed from the kernel")
			}
		}
		clear(k.secret)
	}
	s.keys = map[uint32]*kernelKey{}
	if s.kk != nil {
		s.kk.Close()
		s.kk = nil
	}
	return errors.Join(errs...)
}

// reload applies a new config's keys, policies and headend settings, in
// an order that never leaves a route without its key: keys added, policies
// advertised, headend re-evaluated (routes of removed keys go), then keys
// no longer configured removed.
func (s *srv6Run) reload(ctx context.Context, cfg *config.Config) error {
	s.opMu.Lock()
	defer s.opMu.Unlock()
	s.mu.Lock()
	s.cfg = cfg
	if !s.started || s.stopped {
		s.mu.Unlock()
		return nil
	}
	var errs []error
	errs = append(errs, s.applyKeysLocked(cfg)...)
	errs = append(errs, s.applyPoliciesLocked(ctx, cfg)...)

	he := s.he
	hc := cfg.SRv6.Headend
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
	s.mu.Unlock()
	return errors.Join(errs...)
}

// ---------------------------------------------------------------- keys

// kernelKeysLocked opens the SEG6 key client on first use.
func (s *srv6Run) kernelKeysLocked() (kernelKeys, error) {
	if s.kk == nil && s.kkErr == nil {
		s.kk, s.kkErr = s.openKeys()
		if s.kkErr != nil {
			s.kk = nil
		}
	}
	return s.kk, s.kkErr
}

// keyInUseLocked says what uses key id: configured policies (the running
// config's, before a reload applies) and installed headend routes.
func (s *srv6Run) keyInUseLocked(id uint32) []string {
	var users []string
	for _, name := range sortedNames(s.adv) {
		if a := s.adv[name]; a.advertised && a.pol.KeyID == id {
			users = append(users, "policy "+name)
		}
	}
	if s.he != nil {
		for _, r := range s.he.installed {
			if r.route.KeyID == id && !slices.Contains(users, "installed "+r.owner) {
				users = append(users, "installed "+r.owner)
			}
		}
	}
	return users
}

// applyKeysLocked installs new keys and changed keys that nothing uses; it
// refuses to change a key in use.
func (s *srv6Run) applyKeysLocked(cfg *config.Config) []error {
	var errs []error
	if len(cfg.SRv6.HMACKeys) == 0 {
		return nil
	}
	kk, kerr := s.kernelKeysLocked()
	// Keys already in the kernel with the configured secret (an operator's,
	// or a previous run's) are left alone: re-setting one drops packets
	// meanwhile. The dump holds secrets: wiped when done.
	var existing map[uint32]srv6policy.KernelKey
	inKernel := func(id uint32, alg srv6policy.Algorithm, secret []byte) bool {
		if existing == nil {
			existing = map[uint32]srv6policy.KernelKey{}
			if dump, err := kk.Dump(); err == nil {
				for _, k := range dump {
					existing[k.ID] = k
				}
			}
		}
		e, ok := existing[id]
		return ok && e.Algorithm == alg && subtle.ConstantTimeCompare(e.Secret, secret) == 1
	}
	defer func() {
		for _, k := range existing {
			clear(k.Secret)
		}
	}()
	for i := range cfg.SRv6.HMACKeys {
		ck := &cfg.SRv6.HMACKeys[i]
		alg, aerr := srv6policy.ParseAlgorithm(ck.Algorithm)
		cur := s.keys[ck.ID]
		if cur != nil && cur.alg == alg && subtle.ConstantTimeCompare(cur.secret, ck.Secret) == 1 {
			if cur.err != "" && cur.installed {
				cur.err = "" // a refused change was undone
			}
			if cur.installed || kk == nil {
				continue
			}
			// Not installed before (an error): try again below.
		}
		log := s.log.WithField("key_id", ck.ID)
		if cur != nil && cur.installed {
			if users := s.keyInUseLocked(ck.ID); len(users) > 0 {
				cur.err = fmt.Sprintf("the secret or algorithm of key %d changed while it is in use (%s): refused, the kernel keeps the old key; "+
					"rotate to a NEW key ID (add it, move the policies to it, then remove key %d)", ck.ID, strings.Join(users, ", "), ck.ID)
				errs = append(errs, errors.New("srv6: "+cur.err))
				continue
			}
		}
		nk := &kernelKey{id: ck.ID, algName: ck.Algorithm, alg: alg}
		if cur != nil {
			nk.owned = cur.owned
		}
		s.keys[ck.ID] = nk
		switch {
		case aerr != nil:
			nk.err = aerr.Error()
		case kk == nil:
			nk.err = kerr.Error()
		default:
			if (cur == nil || !cur.installed) && inKernel(ck.ID, alg, ck.Secret) {
				nk.installed = true
				log.Info("srv6: HMAC key already in the kernel with the configured secret")
			} else if err := kk.Set(ck.ID, alg, ck.Secret); err != nil {
				nk.err = err.Error()
				errs = append(errs, err)
			} else {
				nk.installed, nk.owned = true, true
				if cur != nil && cur.installed {
					log.Info("srv6: HMAC key changed in the kernel (it was not in use)")
				} else {
					log.Info("srv6: HMAC key installed in the kernel")
				}
			}
		}
		if nk.installed {
			nk.secret = slices.Clone([]byte(ck.Secret))
		}
		if cur != nil {
			clear(cur.secret)
		}
	}
	return errs
}

// removeKeysLocked removes the keys no longer configured (after the routes
// that used them).
func (s *srv6Run) removeKeysLocked(cfg *config.Config) []error {
	var errs []error
	for _, id := range sortedKeyIDs(s.keys) {
		if cfg.HMACKey(id) != nil {
			continue
		}
		k := s.keys[id]
		if k.installed && k.owned && s.kk != nil {
			if users := s.keyInUseLocked(id); len(users) > 0 {
				// Cannot happen: routes need a configured key.
				errs = append(errs, fmt.Errorf("srv6: key %d is still used (%s): kept in the kernel", id, strings.Join(users, ", ")))
				continue
			}
			if err := s.kk.Delete(id); err != nil && !errors.Is(err, srv6policy.ErrKeyNotFound) {
				errs = append(errs, err)
				continue
			}
			s.log.WithField("key_id", id).Info("srv6: HMAC key removed from the kernel")
		}
		clear(k.secret)
		delete(s.keys, id)
		s.m.DeleteSRHKey(id)
	}
	return errs
}

// SRHKeys prepares the configured SRv6 HMAC keys for verifying captured
// SRHs (the shadow checker, verify-pcap). Keys that cannot be prepared
// (FIPS 140-only mode refuses HMAC-SHA1) are left out, with an error each.
func SRHKeys(cfg *config.Config) (map[uint32]*srv6policy.Key, []error) {
	keys := map[uint32]*srv6policy.Key{}
	var errs []error
	for _, k := range cfg.SRv6.HMACKeys {
		alg, err := srv6policy.ParseAlgorithm(k.Algorithm)
		if err == nil {
			var key *srv6policy.Key
			if key, err = srv6policy.NewKey(k.ID, alg, k.Secret); err == nil {
				keys[k.ID] = key
				continue
			}
		}
		errs = append(errs, fmt.Errorf("SRv6 HMAC key %d: %w", k.ID, err))
	}
	return keys, errs
}

// ---------------------------------------------------------------- policies

// policyOf converts a configured policy.
func policyOf(p *config.Policy) srv6policy.Policy {
	return srv6policy.Policy{
		Name: p.Name, Color: p.Color, Endpoint: p.Endpoint, Distinguisher: p.Distinguisher,
		Preference: p.Preference, BindingSID: p.BindingSID, Segments: slices.Clone(p.Segments),
		KeyID: p.HMACKeyID, Headends: slices.Clone(p.Headends),
	}
}

// applyPoliciesLocked advertises cfg's policies: withdraws removed ones,
// adds new ones and replaces changed ones (GoBGP replaces a path with the
// same NLRI in place).
func (s *srv6Run) applyPoliciesLocked(ctx context.Context, cfg *config.Config) []error {
	var errs []error
	asn := cfg.Global.ASN
	want := map[string]srv6policy.Policy{}
	nlriOwner := map[string]string{} // NLRI key -> policy name
	var order []string
	dup := map[string]string{}
	for i := range cfg.SRv6.Policies {
		p := policyOf(&cfg.SRv6.Policies[i])
		if o, ok := nlriOwner[p.NLRIKey()]; ok {
			dup[p.Name] = o
		} else {
			nlriOwner[p.NLRIKey()] = p.Name
		}
		want[p.Name] = p
		order = append(order, p.Name)
	}
	// Withdraw what goes away, unless a policy of the new config takes
	// over its NLRI (then AddPath replaces it).
	for _, name := range sortedNames(s.adv) {
		a := s.adv[name]
		np, keep := want[name]
		if keep && np.SameRoute(&a.pol) && dup[name] == "" && a.advertised {
			continue
		}
		if a.advertised {
			if owner, taken := nlriOwner[a.pol.NLRIKey()]; !taken || dup[owner] != "" {
				if err := s.host.DeletePathByUUID(ctx, a.uuid); err != nil {
					errs = append(errs, fmt.Errorf("srv6: withdraw policy %q: %w", name, err))
				} else {
					s.log.WithField("policy", name).Info("srv6: policy withdrawn")
				}
			}
			a.advertised, a.uuid = false, nil
		}
		if !keep {
			delete(s.adv, name)
		}
	}
	for _, name := range order {
		p := want[name]
		a := s.adv[name]
		if a != nil && a.advertised && a.pol.SameRoute(&p) {
			continue
		}
		a = &advertised{pol: p}
		s.adv[name] = a
		if o := dup[name]; o != "" {
			a.err = fmt.Sprintf("same NLRI (distinguisher %d, color %d, endpoint %s) as policy %q: not advertised", p.Distinguisher, p.Color, p.Endpoint, o)
			errs = append(errs, errors.New("srv6: policy "+name+": "+a.err))
			continue
		}
		path, err := p.Path(asn)
		if err == nil {
			a.uuid, err = s.host.AddPath(ctx, path)
		}
		if err != nil {
			a.err = err.Error()
			errs = append(errs, fmt.Errorf("srv6: advertise policy %q: %w", name, err))
			continue
		}
		a.advertised = true
		s.log.WithFields(logrus.Fields{"policy": name, "color": p.Color, "endpoint": p.Endpoint, "key_id": p.KeyID}).Info("srv6: policy advertised")
	}
	return errs
}

// ---------------------------------------------------------------- headend

// startHeadendLocked opens the routes socket, removes routes a previous
// run left, sets the tunnel source and starts the loop (whose first pass
// runs at once).
func (s *srv6Run) startHeadendLocked(cfg *config.Config) {
	hc := cfg.SRv6.Headend
	he := &headendRun{
		src:       hc.Source,
		steer:     hc.SteerEndpoint,
		installed: map[netip.Prefix]installedRoute{},
		trigger:   make(chan struct{}, 1),
		done:      make(chan struct{}),
	}
	log := s.log.WithField("source", hc.Source)
	if kr, err := s.openRoutes(); err != nil {
		he.err = err
	} else {
		he.kr = kr
		if n, err := kr.Flush(); err != nil {
			log.WithError(err).Warn("srv6: headend: cannot remove routes left by a previous run")
		} else if n > 0 {
			log.WithField("routes", n).Info("srv6: headend: removed routes left by a previous run")
		}
	}
	if he.err == nil {
		kk, err := s.kernelKeysLocked()
		if err == nil {
			he.prev, err = kk.TunnelSource()
			if err == nil && he.prev != hc.Source {
				if err = kk.SetTunnelSource(hc.Source); err == nil {
					he.setSrc = true
					if !he.prev.IsUnspecified() {
						log.WithField("previous", he.prev).Warn("srv6: headend: replaced the namespace's SRv6 tunnel source")
					}
				}
			}
		}
		if err != nil {
			he.err = fmt.Errorf("cannot set the SRv6 tunnel source (the outer source the HMAC covers) to %s: %w", hc.Source, err)
		}
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

func (s *srv6Run) headendLoop(ctx context.Context, he *headendRun, events <-chan plugin.PeerEvent, unsub func()) {
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
func (s *srv6Run) stopHeadend(he *headendRun) []error {
	he.cancel()
	<-he.done
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, dst := range sortedPrefixes(he.installed) {
		r := he.installed[dst]
		if err := he.kr.Delete(dst); err != nil && !errors.Is(err, srv6policy.ErrRouteNotFound) {
			errs = append(errs, err)
			continue
		}
		s.log.WithFields(logrus.Fields{"route": r.route.String(), "policy": r.owner}).Info("srv6: headend route removed")
	}
	he.installed = map[netip.Prefix]installedRoute{}
	he.cands = nil
	for name := range s.names {
		s.m.DeletePolicy(name)
	}
	s.names = map[string]bool{}
	if he.setSrc && s.kk != nil {
		if err := s.kk.SetTunnelSource(he.prev); err != nil {
			errs = append(errs, err)
		}
	}
	if he.kr != nil {
		he.kr.Close()
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

// evaluated is one received candidate path with its verdict.
type evaluated struct {
	srv6policy.Candidate
	name   string
	in     *srv6policy.Installable
	reason string
}

// passLocked reads the received policies, decides what to install and
// makes the kernel routes so.
func (s *srv6Run) passLocked(ctx context.Context) {
	he := s.he
	if he == nil {
		return
	}
	var evs []*evaluated
	var cands []srv6policy.Candidate
	readErr := error(nil)
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
					continue // locally originated (ours to advertise, not to install)
				}
				nb = nb.Unmap()
				ev := &evaluated{}
				rcv, err := srv6policy.DecodePath(p.NlriBinary, p.PattrsBinary)
				if err != nil {
					ev.name = fmt.Sprintf("%s from %s", d.Prefix, nb)
					ev.reason = err.Error()
					evs = append(evs, ev)
					continue
				}
				ev.Candidate = srv6policy.Candidate{Received: rcv, Neighbor: nb, SourceASN: p.SourceAsn}
				ev.name = fmt.Sprintf("%s from %s", rcv.NLRIKey(), nb)
				evs = append(evs, ev)
			}
		}
	}
	if readErr != nil {
		s.log.WithError(readErr).Warn("srv6: headend: cannot read received policies")
		return // keep what is installed
	}
	view := srv6policy.HeadendView{
		RouterID: s.cfg.Global.RouterID,
		HaveKey:  func(id uint32) bool { return s.cfg.HMACKey(id) != nil },
	}
	for _, ev := range evs {
		if ev.Received == nil {
			continue
		}
		view.Direct = s.direct(ev.Neighbor)
		in, err := ev.Check(view)
		if err != nil {
			ev.reason = err.Error()
			continue
		}
		if k := s.keys[in.KeyID]; k == nil || !k.installed {
			why := "not installed"
			if k != nil && k.err != "" {
				why = k.err
			}
			ev.reason = fmt.Sprintf("HMAC key %d is not in the kernel: %s", in.KeyID, why)
			continue
		}
		ev.in = in
	}
	// Per (color, endpoint) the best valid candidate.
	valid := []*evaluated{}
	for _, ev := range evs {
		if ev.in != nil {
			valid = append(valid, ev)
			cands = append(cands, ev.Candidate)
		}
	}
	best := srv6policy.SelectBest(cands, nil)
	winners := []*evaluated{}
	for i, ev := range valid {
		w := valid[best[ev.Key()]]
		if best[ev.Key()] == i {
			winners = append(winners, ev)
			continue
		}
		ev.reason = fmt.Sprintf("not selected: %s wins for color %d endpoint %s (preference %d over %d)", w.name, ev.Color, ev.Endpoint, w.Preference, ev.Preference)
		ev.in = nil
	}
	// The routes of the winners, in a stable order; a destination goes to
	// the first winner that wants it.
	sort.Slice(winners, func(i, j int) bool {
		if winners[i].Preference != winners[j].Preference {
			return winners[i].Preference > winners[j].Preference
		}
		return winners[i].name < winners[j].name
	})
	desired := map[netip.Prefix]installedRoute{}
	routesOf := map[*evaluated][]netip.Prefix{}
	notes := map[*evaluated][]string{}
	for _, ev := range winners {
		if he.err != nil {
			ev.reason = he.err.Error()
			continue
		}
		var rs []srv6policy.Route
		if ev.in.BindingSID.IsValid() {
			rs = append(rs, srv6policy.Route{Kind: srv6policy.RouteBSID, Dst: netip.PrefixFrom(ev.in.BindingSID, 128), Segments: ev.in.Segments, KeyID: ev.in.KeyID})
		}
		if he.steer {
			ep := ev.Endpoint
			rs = append(rs, srv6policy.Route{Kind: srv6policy.RouteSteer, Dst: netip.PrefixFrom(ep, ep.BitLen()), Segments: ev.in.Segments, KeyID: ev.in.KeyID})
		}
		if len(rs) == 0 {
			ev.reason = "nothing to install: no Binding SID, and steer-endpoint is off"
			continue
		}
		oif, err := he.kr.InterfaceTo(ev.in.Segments[0])
		if err != nil {
			ev.reason = fmt.Sprintf("no route to the first segment %s: %v", ev.in.Segments[0], err)
			continue
		}
		for _, r := range rs {
			r.OIF = oif
			if o, taken := desired[r.Dst]; taken {
				notes[ev] = append(notes[ev], fmt.Sprintf("%s route %s is held by %s", r.Kind, r.Dst, o.owner))
				continue
			}
			desired[r.Dst] = installedRoute{route: r, owner: ev.name}
			routesOf[ev] = append(routesOf[ev], r.Dst)
		}
	}
	failed := map[netip.Prefix]error{}
	// Remove what is no longer wanted first (it may free a destination).
	for _, dst := range sortedPrefixes(he.installed) {
		cur := he.installed[dst]
		if d, ok := desired[dst]; ok && d.route.Kind == cur.route.Kind {
			continue
		}
		if err := he.kr.Delete(dst); err != nil && !errors.Is(err, srv6policy.ErrRouteNotFound) {
			s.log.WithError(err).WithField("route", cur.route.String()).Error("srv6: headend: cannot remove route")
			continue
		}
		delete(he.installed, dst)
		s.log.WithFields(logrus.Fields{"route": cur.route.String(), "policy": cur.owner}).Info("srv6: headend route removed")
	}
	for _, dst := range sortedPrefixes(desired) {
		d := desired[dst]
		cur, ok := he.installed[dst]
		var err error
		switch {
		case ok && cur.route.Same(d.route) && cur.route.OIF == d.route.OIF:
			he.installed[dst] = d // the owner's name may differ
			continue
		case ok:
			err = he.kr.Replace(d.route)
		default:
			err = he.kr.Add(d.route)
		}
		if err != nil {
			failed[dst] = err
			s.log.WithError(err).WithField("route", d.route.String()).Error("srv6: headend: cannot install route")
			continue
		}
		he.installed[dst] = d
		s.log.WithFields(logrus.Fields{"route": d.route.String(), "policy": d.owner}).Info("srv6: headend route installed")
	}
	// Status, metrics, and a log line when a policy's state changes.
	prev := map[string]candStatus{}
	for _, c := range he.cands {
		prev[c.name] = c
	}
	var out []candStatus
	seen := map[string]bool{}
	for _, ev := range evs {
		cs := candStatus{name: ev.name, reason: ev.reason}
		if ev.in != nil && ev.reason == "" {
			n := 0
			for _, dst := range routesOf[ev] {
				if err := failed[dst]; err != nil {
					notes[ev] = append(notes[ev], err.Error())
				} else {
					n++
				}
			}
			cs.installed = n > 0
			cs.reason = strings.Join(notes[ev], "; ")
			if !cs.installed && cs.reason == "" {
				cs.reason = "no route installed"
			}
		}
		if seen[cs.name] {
			continue
		}
		seen[cs.name] = true
		out = append(out, cs)
		if p, ok := prev[cs.name]; !ok || p.installed != cs.installed || p.reason != cs.reason {
			e := s.log.WithField("policy", cs.name)
			switch {
			case cs.installed && cs.reason == "":
				e.Info("srv6: headend: received policy installed")
			case cs.installed:
				e.WithField("note", cs.reason).Warn("srv6: headend: received policy installed in part")
			default:
				e.WithField("reason", cs.reason).Warn("srv6: headend: received policy not installed")
			}
		}
		s.m.SetPolicyInstalled(cs.name, cs.installed)
		s.names[cs.name] = true
	}
	for name := range s.names {
		if !seen[name] {
			s.m.DeletePolicy(name)
			delete(s.names, name)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	he.cands = out
	he.passes++
}

// onLink reports whether a is on a subnet of one of our interfaces (or
// link-local): a directly connected neighbor.
func onLink(a netip.Addr) bool {
	if a.IsLinkLocalUnicast() {
		return true
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, ia := range addrs {
		n, ok := ia.(*net.IPNet)
		if !ok {
			continue
		}
		p, err := netip.ParsePrefix(n.String())
		if err != nil || p.Bits() == p.Addr().BitLen() || p.Addr().IsLoopback() {
			continue
		}
		if p.Masked().Contains(a) {
			return true
		}
	}
	return false
}

// ---------------------------------------------------------------- status

// status is the srv6 part of /status: the configured keys, the configured
// policies (advertised) and the received ones (installed), never a secret.
// status never waits behind a pass (which may hold the lock for seconds
// while the kernel or GoBGP answer): it then returns the last snapshot.
func (s *srv6Run) status() status.SRv6 {
	if !s.mu.TryLock() {
		if p := s.lastStatus.Load(); p != nil {
			return *p
		}
		return status.SRv6{HMACKeys: []status.HMACKey{}, Policies: []status.Policy{}}
	}
	defer s.mu.Unlock()
	st := s.statusLocked()
	s.lastStatus.Store(&st)
	return st
}

func (s *srv6Run) statusLocked() status.SRv6 {
	st := status.SRv6{HMACKeys: []status.HMACKey{}, Policies: []status.Policy{}}
	for _, ck := range s.cfg.SRv6.HMACKeys {
		hk := status.HMACKey{ID: ck.ID, Algorithm: ck.Algorithm}
		if k := s.keys[ck.ID]; k != nil {
			hk.Installed, hk.Error = k.installed, k.err
		} else if !s.started {
			hk.Error = "not started"
		}
		st.HMACKeys = append(st.HMACKeys, hk)
	}
	for _, cp := range s.cfg.SRv6.Policies {
		p := status.Policy{Name: cp.Name}
		if a := s.adv[cp.Name]; a != nil {
			p.Advertised, p.Reason = a.advertised, a.err
		}
		st.Policies = append(st.Policies, p)
	}
	if s.he != nil {
		for _, c := range s.he.cands {
			st.Policies = append(st.Policies, status.Policy{Name: c.name, Installed: c.installed, Reason: c.reason})
		}
	}
	return st
}

// ---------------------------------------------------------------- helpers

func sortedKeyIDs(m map[uint32]*kernelKey) []uint32 {
	ids := make([]uint32, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sortedPrefixes(m map[netip.Prefix]installedRoute) []netip.Prefix {
	out := make([]netip.Prefix, 0, len(m))
	for p := range m {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b netip.Prefix) int {
		if c := a.Addr().Compare(b.Addr()); c != 0 {
			return c
		}
		return a.Bits() - b.Bits()
	})
	return out
}

// ---------------------------------------------------------------- shadow

// srhVerifier verifies the SRH HMACs the shadow checker captures with the
// configured keys and counts them in authbgpd_srh_hmac_total. check runs on
// the capture goroutine only; setKeys may run concurrently.
type srhVerifier struct {
	m    *metrics.Metrics
	keys atomic.Pointer[map[uint32]*srv6policy.Key]
	// The capture goroutine's own: counters by key ID (0: no HMAC), taken
	// afresh whenever the keys change (a removed key's series are gone).
	ctr    map[uint32]*metrics.HMACCounters
	ctrFor *map[uint32]*srv6policy.Key
}

func newSRHVerifier(cfg *config.Config, m *metrics.Metrics, log *logrus.Entry) *srhVerifier {
	v := &srhVerifier{m: m, ctr: map[uint32]*metrics.HMACCounters{}}
	v.setKeys(cfg, log)
	return v
}

// setKeys prepares cfg's keys (a key that cannot be prepared is logged by
// ID and left out: its packets count as unknown_key).
func (v *srhVerifier) setKeys(cfg *config.Config, log *logrus.Entry) {
	keys, errs := SRHKeys(cfg)
	for _, err := range errs {
		log.WithError(err).Error("shadow: cannot verify SRH HMACs with this key")
	}
	v.keys.Store(&keys)
}

// Enabled reports whether any key is configured.
func (v *srhVerifier) Enabled() bool { return len(*v.keys.Load()) > 0 }

// Check verifies one captured SRH sent from outer source src. Frames going
// out are checked only when freshly encapsulated (Segments Left = Last
// Entry: our own headend's packets, Binding SID packets included), so that
// a packet an SRv6 endpoint of this router forwards is counted once, on
// the way in. (One that a plain IPv6 router forwards untouched, its first
// segment not yet reached, is seen, and counted, both ways.)
func (v *srhVerifier) Check(src netip.Addr, srh []byte, outgoing bool) {
	if outgoing && (len(srh) < 5 || srh[3] != srh[4]) {
		return
	}
	keys := v.keys.Load()
	if keys != v.ctrFor {
		clear(v.ctr)
		v.ctrFor = keys
	}
	verdict, id := srv6policy.VerifySRH(*keys, src, srh)
	c := v.ctr[id]
	if c == nil {
		if len(v.ctr) >= metrics.MaxSRHKeyIDs {
			clear(v.ctr) // IDs off the wire: bounded (metrics folds them into "other")
		}
		c = v.m.SRHCounters(id)
		v.ctr[id] = c
	}
	switch verdict {
	case srv6policy.VerdictValid:
		c.Valid.Inc()
	case srv6policy.VerdictInvalid:
		c.Invalid.Inc()
	case srv6policy.VerdictNoHMAC:
		c.NoHMAC.Inc()
	case srv6policy.VerdictUnknownKey:
		c.UnknownKey.Inc()
	}
}
