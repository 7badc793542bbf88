// Package speaker assembles the authbgpd daemon from its parts: the
// embedded GoBGP (plugin), the peers manager, the HTTP API with metrics,
// and reload on SIGHUP, POST /-/reload or a change of the config or secret
// files ([config] watch, watch.go) / clean stop on SIGTERM. cmd/authbgpd
// only parses flags and calls Run.
package speaker

import (
	"context"
	"errors"
	"net/netip"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/aocount"
	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/dropwatch"
	"github.com/authbgp/authbgpd/fib"
	"github.com/authbgp/authbgpd/filewatch"
	"github.com/authbgp/authbgpd/httpapi"
	"github.com/authbgp/authbgpd/metrics"
	"github.com/authbgp/authbgpd/originate"
	"github.com/authbgp/authbgpd/peerindex"
	"github.com/authbgp/authbgpd/peers"
	"github.com/authbgp/authbgpd/plugin"
	"github.com/authbgp/authbgpd/shadow"
	"github.com/authbgp/authbgpd/srv6"
	"github.com/authbgp/authbgpd/status"
	"github.com/authbgp/authbgpd/tcpsock"
)

// Options are the command-line settings.
type Options struct {
	ConfigFile string
	LogLevel   string // overrides [log] level when set
	LogFormat  string // overrides [log] format when set
	Version    string
	Sockets    peers.Sockets // nil: the real sockets
}

// Speaker is a running authbgpd.
type Speaker struct {
	opts    Options
	log     *logrus.Logger
	host    *plugin.Host
	peers   *peers.Manager
	metrics *metrics.Metrics
	http    *httpapi.Server
	shadow  *shadow.Runner // nil when [shadow] is off
	srv6    *srv6.Manager
	kernel  *dropwatch.Namespace
	drops   *dropwatch.Running
	ra      *peers.KernelAdvertiser // router advertisements for interface peers
	fib     *fib.Reconciler         // nil when [fib] is off
	nets    *originate.Originator   // [[networks]]

	// started is what the API servers and the shadow checker run with (and
	// the router ID and ASN, which only a restart changes). The running
	// config is the peers manager's: a reload is planned against it
	// (peers.Manager.Plan).
	started *config.Config

	reloadMu sync.Mutex          // one reload at a time
	watch    *filewatch.Follower // [config] watch (watch.go); under reloadMu
}

// Start loads the config and starts everything. On error nothing is left
// running.
func Start(ctx context.Context, o Options) (*Speaker, error) {
	s := &Speaker{opts: o, metrics: metrics.New(o.Version)}
	s.watch = filewatch.NewFollower(&s.reloadMu)
	before := s.watch.Before(o.ConfigFile)
	cfg, err := config.Load(o.ConfigFile)
	if err != nil {
		return nil, err
	}
	log, err := config.NewLogger(cfg, o.LogLevel, o.LogFormat)
	if err != nil {
		return nil, err
	}
	cfg.LogWarnings(log)
	s.log, s.started, s.kernel, s.nets = log, cfg, dropwatch.NewNamespace(nil), originate.New(cfg.Networks, log)
	idx := peerindex.New(cfg) // the one index of this config's peers
	s.host, err = plugin.New(plugin.Options{
		ASN:             cfg.Global.ASN,
		RouterID:        cfg.Global.RouterID.String(),
		ListenPort:      int32(cfg.Global.ListenPort),
		ListenAddresses: cfg.Global.ListenAddressStrings(),
		GRPCAddr:        cfg.API.GRPC,
		Logger:          log,
		RequireDialHook: true, // GoBGP holds no keys: only peers keys a dial
		Multipath:       cfg.FIB.Enabled && cfg.FIB.Multipath,
	})
	if err != nil {
		return nil, err
	}
	for _, sec := range cfg.Secrets() {
		s.host.RegisterSecret(sec)
	}
	if cfg.FIB.Enabled {
		s.fib = fib.New(fib.Options{Logger: log, Index: idx, Graceful: cfg.GracefulRestartAny(), RestartTime: time.Duration(cfg.Global.GracefulRestartTime) * time.Second})
	}
	s.ra = peers.NewKernelAdvertiser(log)
	s.peers = peers.New(peers.Options{Config: cfg, Logger: log, Sockets: o.Sockets, Observer: observer{m: s.metrics, s: s}, Advertiser: s.ra, Index: idx, Restarting: s.fib.Restarting})
	s.host.Register(s.peers)
	s.host.SetAPIGuard(s.peers.GuardAPI)
	s.host.Register(s.nets) // after the peers: their VRFs' instances exist
	// SRv6 keys go into the kernel before policies use them, and the shadow checker verifies SRHs
	// with them (the srv6 Manager owns the verifier's keys): srv6 starts before shadow.
	s.srv6 = srv6.New(cfg, log, s.metrics)
	s.host.Register(s.srv6)
	if cfg.Shadow.On() {
		s.shadow = shadow.NewRunner(idx, log, s.metrics, shadow.RunnerOptions{
			Follow: s.peers.SetPeerKeyID, EndStale: s.peers.EndStale, SRH: s.srv6.Verifier(),
		})
		s.host.Register(plugin.Detached(s.shadow))
	}
	if s.fib != nil { // last: best paths go into the kernel once the sessions are keyed
		s.host.Register(s.fib)
	}
	hooks := dropwatch.Hooks{BadDigest: s.peers.BadDigest}
	if s.shadow != nil && s.shadow.Mode() == config.ShadowOnDemand {
		hooks.Demand = func(addr netip.Addr, why string) { s.shadow.Demand(addr, why) }
	}
	s.drops = dropwatch.Start(idx, log, hooks)
	r := metrics.Readers{KernelDrops: s.kernel.Metrics, Peers: peers.MetricReader(s.host, s.peers.Status), PeerKernelDrops: s.drops.MetricSeries,
		ReconcilePasses: s.peers.PassStats, AOAlgorithms: s.peers.AOAlgorithmNames, GoBGPLoop: s.host}
	if s.shadow != nil {
		r.CaptureRunning = func() bool { return s.shadow.CaptureStatus().Running }
	}
	if s.fib != nil {
		r.FIB = s.fib.MetricState
	}
	err = s.host.Start(ctx)
	if err == nil {
		err = s.metrics.Read(r)
	}
	if err == nil {
		s.http, err = httpapi.StartFromConfig(cfg.API, s, s.metrics, log)
	}
	if err != nil {
		_ = s.host.Stop(context.Background())
		_ = s.drops.Stop()
		return nil, err
	}
	s.watch.Settle(before, cfg.Files())
	s.startWatch(ctx, cfg)
	log.WithFields(tcpsock.KernelFeatures()).Info("kernel features")
	log.WithFields(logrus.Fields{"asn": cfg.Global.ASN, "router_id": cfg.Global.RouterID, "router_id_from": cfg.Global.RouterIDFrom, "peers": len(cfg.Peers), "config": o.ConfigFile}).Info("authbgpd started")
	// Most of the heap is now the start-up's garbage (the config's decoding, every peer's first
	// pass, GoBGP's answers to it): its pages go back to the kernel now, not at the scavenger's pace.
	debug.FreeOSMemory()
	return s, nil
}

// Reload re-reads the config file and says what it did. A config with
// errors, or with changes that need a restart, is rejected whole: the
// running config stays. With req.DryRun nothing is applied: the preview
// says what a reload of req.File (default: the config file) would do.
// Reloads (SIGHUP, POST /-/reload, a change of watched files) run one at a
// time.
func (s *Speaker) Reload(ctx context.Context, req httpapi.ReloadRequest) config.Preview {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	return s.reload(ctx, req)
}

// reload is Reload; the caller holds reloadMu.
func (s *Speaker) reload(ctx context.Context, req httpapi.ReloadRequest) config.Preview {
	file := s.opts.ConfigFile
	if req.DryRun && req.File != "" {
		if err := config.CheckPreviewable(s.opts.ConfigFile, req.File); err != nil {
			return config.RejectedPreview(req.File, err)
		}
		file = req.File
	}
	var before filewatch.Snapshot
	if !req.DryRun {
		before = s.watch.Before(file) // before anything is read
	}
	next, err := config.Load(file)
	if err != nil {
		if !req.DryRun {
			s.watch.Refused(before) // not retried until a file changes again
			for _, e := range config.Errors(err) {
				s.log.Error("reload rejected: " + e.Error())
			}
			s.metrics.ConfigReloaded(err)
		}
		return config.RejectedPreview(file, err)
	}
	pl := s.peers.Plan(next) // the one Diff of this reload
	p := pl.Preview(s.started)
	p.DryRun = req.DryRun
	if req.DryRun {
		return p
	}
	err = s.apply(ctx, pl)
	if errors.Is(err, peers.ErrReloadRefused) {
		s.watch.Refused(before)
		return p // refused: p.Refused says why
	}
	if err != nil {
		p.Errors = append(p.Errors, err.Error())
	}
	p.Applied = true
	s.watch.Settle(before, next.Files())
	s.startWatch(ctx, next)
	return p
}

// apply applies a loaded config (pl.New): peers first (which refuse
// changes that need a restart), then SRv6 and the shadow checker.
func (s *Speaker) apply(ctx context.Context, pl config.Plan) error {
	next := pl.New
	next.LogWarnings(s.log)
	for _, sec := range next.Secrets() {
		s.host.RegisterSecret(sec)
	}
	idx := peerindex.New(next) // the one index of the new config's peers
	s.peers.UseIndex(idx)
	ch, err := s.peers.ReloadPlan(ctx, pl)
	s.metrics.ConfigReloaded(err)
	if errors.Is(err, peers.ErrReloadRefused) {
		s.log.WithError(err).Error("reload rejected; running config kept")
		return err
	}
	s.applyGlobal(next, ch)
	err = errors.Join(err, s.nets.Set(ctx, next.Networks)) // added and withdrawn in place
	if serr := s.srv6.ReloadPlan(ctx, pl); serr != nil {
		s.log.WithError(serr).Error("srv6: reload applied with errors")
		err = errors.Join(err, serr)
	}
	if s.shadow != nil {
		s.shadow.Reload(idx) // after peers: it pins the keys they now use
	}
	s.drops.Reload(idx)
	s.fib.SetIndex(idx) // nil-safe: [fib] off
	if err != nil {
		s.log.WithError(err).Error("reload applied with errors")
		return err
	}
	s.log.WithFields(logrus.Fields{"added": len(ch.Added), "removed": len(ch.Removed), "changed": len(ch.Changed), "unchanged": len(ch.Unchanged)}).Info("config reloaded")
	return nil
}

// applyGlobal applies what a reload can of [log], and says what waits for
// the next restart (config.RestartOnly: the preview says the same).
func (s *Speaker) applyGlobal(next *config.Config, ch config.Changes) {
	if ch.Log {
		// NewLogger is what start-up uses: the command line's
		// --log-level and --log-format still rule what they set.
		if l, err := config.NewLogger(next, s.opts.LogLevel, s.opts.LogFormat); err == nil {
			s.log.SetLevel(l.GetLevel())
			s.log.SetFormatter(l.Formatter)
		}
		if s.opts.LogLevel != "" || s.opts.LogFormat != "" {
			s.log.WithFields(logrus.Fields{"level": s.opts.LogLevel, "format": s.opts.LogFormat}).Warn("[log] changed: the command line's --log-level/--log-format still rule what they set")
		}
	}
	for _, r := range config.RestartOnly(s.started, next) {
		s.log.Warn(r)
	}
}

// Stop sends NOTIFICATION Cease to every peer and stops; with graceful
// restart, it leaves the kernel routes and closes the sessions without one.
func (s *Speaker) Stop(ctx context.Context) error {
	s.watch.Close()
	s.host.SetGracefulStop(s.peers.GracefulRestart())
	var errs []error
	if s.http != nil {
		errs = append(errs, s.http.Shutdown(ctx))
	}
	errs = append(errs, s.host.Stop(ctx), s.drops.Stop(), s.ra.Close())
	s.log.Info("authbgpd stopped")
	return errors.Join(errs...)
}

// Status implements httpapi.Source.
func (s *Speaker) Status() status.Status {
	cfg := s.started // the router ID and ASN change only by a restart
	st := status.Status{RouterID: cfg.Global.RouterID.String(), ASN: cfg.Global.ASN, Peers: s.peers.Status()}
	if st.Peers == nil {
		st.Peers = []status.Peer{}
	}
	st.SRv6 = s.srv6.Status()
	st.Kernel = s.peers.KernelStatus(s.kernel.Status())
	if s.shadow != nil {
		shadow.MergeStatus(&st, s.shadow.Reports())
		st.Capture = s.shadow.CaptureStatus()
	}
	s.drops.Merge(&st)
	st.FIB = s.fib.Status() // nil with [fib] off
	st.Networks = s.nets.Status()
	return st
}

// Healthy implements httpapi.Source: GoBGP's loop answers, TCP-MD5 works.
func (s *Speaker) Healthy() error { return errors.Join(s.host.LoopHealth(), s.peers.Healthy()) }

// Alive implements httpapi.Liveness: GoBGP's loop answers (a restart fixes that).
func (s *Speaker) Alive() error { return s.host.LoopHealth() }

// Run starts the speaker and serves until SIGTERM or SIGINT; SIGHUP
// reloads the config.
func Run(o Options) error {
	ctx := context.Background()
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sigs)
	s, err := Start(ctx, o)
	if err != nil {
		return err
	}
	for sig := range sigs {
		if sig == syscall.SIGHUP {
			s.log.Info("SIGHUP: reloading " + o.ConfigFile)
			_ = s.Reload(ctx, httpapi.ReloadRequest{})
			continue
		}
		s.log.Info(strings.ToUpper(sig.String()) + ": stopping")
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := s.Stop(sctx)
		cancel()
		return err
	}
	return nil
}

// observer feeds the peers manager's changes into metrics and hands its
// snapshots (the keys in use, the sessions) to the shadow checker, so it
// judges segments by the key we actually use (after a switch by
// follow-peer-rollover too), not by the schedule.
type observer struct {
	m *metrics.Metrics
	s *Speaker
}

func (o observer) KeyInstalled(peer string, installed bool) { o.m.SetKeyInstalled(peer, installed) }
func (o observer) KeyChanged(peer string, _ int)            { o.m.KeyChanged(peer) }
func (o observer) PeerRemoved(peer string)                  { o.m.DeletePeer(peer) }
func (o observer) AOKernel(peer string, d aocount.Counts)   { o.m.AddTCPAOKernel(peer, d) }
func (o observer) Published(sn *peerindex.Snapshot) {
	if sh := o.s.shadow; sh != nil {
		sh.Apply(sn)
	}
	o.s.fib.Apply(sn) // nil-safe: [fib] off
}
