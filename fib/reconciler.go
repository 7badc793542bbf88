package fib

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/kroute"
	"github.com/authbgp/authbgpd/peerindex"
	"github.com/authbgp/authbgpd/plugin"
	"github.com/authbgp/authbgpd/status"
)

// KernelRoutes is the kernel's routing tables as the reconciler uses them
// (*Kernel on Linux; a fake in tests).
type KernelRoutes interface {
	// Write carries out ops; errs[i] is the error of ops[i].
	Write(ops []kroute.Op, errs []error)
	// Each calls fn with every route of ours (protocol 186), all tables;
	// a route's NextHops are valid during fn only.
	Each(fn func(kroute.Route)) error
	// Resolve says how the kernel reaches addr in table.
	Resolve(table uint32, addr netip.Addr) (kroute.NextHop, error)
	// Watch calls fn with the kernel's route notifications until ctx ends.
	Watch(ctx context.Context, fn func(kroute.Event)) error
	Close() error
}

// Devices answers the questions about network devices a pass asks
// (netdev on Linux).
type Devices interface {
	IfIndex(name string) (int, error)
	VRFTable(name string) (uint32, error)
}

// Options configure a Reconciler.
type Options struct {
	Kernel  KernelRoutes     // nil: OpenKernel in Start
	Devices Devices          // nil: netdev
	Index   *peerindex.Index // the config's peers (SetIndex); nil: none yet
	Logger  *logrus.Logger
	// Look is how often the kernel's routes of ours are read whole (a
	// repair of what no notification told); default 60 s.
	Look time.Duration
	// Retry is how soon routes the kernel refused are tried again;
	// default 5 s.
	Retry time.Duration
	// Coalesce is how long a pass waits after the first change that asks
	// for it, so that a burst of changes is one batch; default 20 ms.
	Coalesce time.Duration
	// TakeoverHold is how long routes an earlier run left are kept, when
	// no best path wants them, after start (the sessions are coming back);
	// default 30 s.
	TakeoverHold time.Duration
	// Graceful: the neighbors restart gracefully (RFC 4724): the hold
	// lasts until every neighbor with graceful restart is back with its
	// End-of-RIB, or RestartTime (default 120 s) at most (graceful.go).
	Graceful    bool
	RestartTime time.Duration
	// Chunk is how many destinations a pass plans and writes at a time;
	// default 4096.
	Chunk int
}

// Reconciler keeps the kernel's routing tables in step with GoBGP's best
// paths. It is a plugin.Plugin: started after GoBGP, stopped before it.
type Reconciler struct {
	opts Options
	log  *logrus.Logger

	mu       sync.Mutex
	changes  []vrfChanges   // recorded, not yet in a pass
	gone     []kroute.Route // routes of ours the kernel says are gone (no next hops: replaced by another's)
	lost     bool           // a notification was lost: a full look
	foreign  bool           // routes not ours changed: resolve next hops again
	index    *peerindex.Index
	snap     *peerindex.Snapshot
	peersAt  uint64          // bumped by SetIndex and Apply
	watchErr string          // why the kernel's notifications are not followed
	eors     map[eorKey]bool // End-of-RIB markers heard (graceful.go)
	kick     chan struct{}

	stop    context.CancelFunc
	done    chan struct{}
	started bool
	host    *plugin.Host

	once     sync.Once // takeOver: by Restarting or Start, whichever first
	beginErr error
	// peers lists GoBGP's neighbors for the graceful hold (the host's
	// ListPeer; nil: never synced, the hold runs its time).
	peers func(ctx context.Context) ([]*api.Peer, error)

	st        atomic.Pointer[status.FIB]
	refusedBy atomic.Pointer[refusedCounts]
	count     counters

	// The pass's own state (the loop goroutine only).
	p pass
}

type counters struct {
	passes, looks, written, refused atomic.Uint64
}

// vrfChanges are best-path changes of one VRF's RIB, as GoBGP told them.
type vrfChanges struct {
	vrf     string
	changes []plugin.BestPathChange
	init    bool // the VRF's whole table
}

// pass is the state only the reconciler's goroutine touches.
type pass struct {
	paths *paths
	// The VRFs with best paths (index 0: the default VRF), their tables
	// (0: none) and each table's VRF.
	vrfs     []string
	vrfIDs   map[string]uint16
	tables   map[uint16]uint32
	owner    map[uint32]uint16
	obs      *observed
	nb       neighbors
	peersAt  uint64
	res      map[resolveKey]resolution
	refused  map[pathKey]refusal
	keep     map[kroute.Key]struct{} // taken over at start, kept until keepUntil
	keepEnd  time.Time
	nextLook time.Time
	lastLook time.Time
	lastErr  string
	plan     planner
	errs     []error
	chunk    []kroute.Key
}

// New makes a Reconciler; Start starts it.
func New(o Options) *Reconciler {
	if o.Look <= 0 {
		o.Look = 60 * time.Second
	}
	if o.Retry <= 0 {
		o.Retry = 5 * time.Second
	}
	if o.Coalesce <= 0 {
		o.Coalesce = 20 * time.Millisecond
	}
	if o.TakeoverHold <= 0 {
		o.TakeoverHold = 30 * time.Second
	}
	if o.RestartTime <= 0 {
		o.RestartTime = 120 * time.Second
	}
	if o.Chunk <= 0 {
		o.Chunk = 4096
	}
	if o.Logger == nil {
		o.Logger = logrus.StandardLogger()
	}
	if o.Devices == nil {
		o.Devices = netdevDevices{}
	}
	r := &Reconciler{opts: o, log: o.Logger, kick: make(chan struct{}, 1), snap: peerindex.Empty}
	r.p = pass{paths: newPaths(), obs: newObserved(), res: map[resolveKey]resolution{}, refused: map[pathKey]refusal{}}
	r.st.Store(&status.FIB{Tables: []status.FIBTable{}, Refused: []status.FIBRefusal{}})
	r.refusedBy.Store(&refusedCounts{})
	if o.Index != nil {
		r.SetIndex(o.Index)
	}
	return r
}

// Name implements plugin.Plugin.
func (r *Reconciler) Name() string { return "fib" }

// Start takes over the routes of ours an earlier run left (kept while
// wanted, removed after the takeover hold when not), watches the kernel's
// notifications and GoBGP's best paths, and runs the passes.
func (r *Reconciler) Start(ctx context.Context, h *plugin.Host) error {
	r.once.Do(r.takeOver)
	if r.beginErr != nil {
		return r.beginErr
	}
	r.host = h
	r.peers = func(ctx context.Context) ([]*api.Peer, error) { return h.ListPeer(ctx, "") }
	lctx, cancel := context.WithCancel(context.Background())
	go r.watchKernel(lctx)
	if err := h.WatchBestPathsAndEndOfRIB(lctx, r.Record, r.RecordEndOfRIB); err != nil {
		cancel()
		return fmt.Errorf("fib: %w", err)
	}
	r.stop, r.done, r.started = cancel, make(chan struct{}), true
	go r.loop(lctx)
	return nil
}

// begin takes over the routes of ours the kernel has: the observed state
// starts from them, and those no best path wants are kept until the
// takeover hold ends.
func (r *Reconciler) begin(now time.Time) error {
	if err := r.look(now, func(kroute.Key) {}); err != nil {
		return fmt.Errorf("fib: read the kernel's routes of ours: %w", err)
	}
	if len(r.p.obs.routes) == 0 {
		return nil // nothing to take over, nothing to hold
	}
	r.p.keep = make(map[kroute.Key]struct{}, len(r.p.obs.routes))
	for k := range r.p.obs.routes {
		r.p.keep[k.key()] = struct{}{}
	}
	r.p.keepEnd = r.holdEnd(now)
	if n := len(r.p.keep); n > 0 {
		r.log.WithFields(logrus.Fields{"routes": n, "hold": r.p.keepEnd.Sub(now), "graceful": r.opts.Graceful}).Info("fib: routes of an earlier run taken over; those no best path wants go after the hold")
	}
	return nil
}

// Stop ends the passes and removes every route of ours from the kernel,
// or, for a graceful restart (the host's GracefulStop), leaves them.
func (r *Reconciler) Stop(ctx context.Context) error {
	if !r.started {
		return nil
	}
	r.stop()
	select {
	case <-r.done:
	case <-ctx.Done():
		return fmt.Errorf("fib: stop: %w", ctx.Err())
	}
	if r.host != nil && r.host.GracefulStop() {
		r.log.Info("fib: graceful restart: the routes of ours stay in the kernel")
		return r.opts.Kernel.Close()
	}
	err := r.removeAll()
	return errors.Join(err, r.opts.Kernel.Close())
}

// removeAll deletes every route of ours the kernel has.
func (r *Reconciler) removeAll() error {
	var ops []kroute.Op
	err := r.opts.Kernel.Each(func(rt kroute.Route) {
		ops = append(ops, kroute.Op{Delete: true, Route: kroute.Route{Key: rt.Key}})
	})
	if err != nil {
		return fmt.Errorf("fib: stop: read the routes of ours: %w", err)
	}
	errs := make([]error, len(ops))
	r.opts.Kernel.Write(ops, errs)
	var left []error
	for _, err := range errs {
		if err != nil && !errors.Is(err, kroute.ErrNotFound) {
			left = append(left, err)
		}
	}
	if len(left) > 0 {
		return fmt.Errorf("fib: stop: %d routes of ours not removed, first: %w", len(left), left[0])
	}
	if len(ops) > 0 {
		r.log.WithField("routes", len(ops)).Info("fib: routes of ours removed")
	}
	return nil
}

// Record records GoBGP's best-path changes of vrf's RIB
// (plugin.Host.WatchBestPaths) and asks for a pass. init: changes are the
// VRF's whole table.
func (r *Reconciler) Record(vrf string, changes []plugin.BestPathChange, init bool) {
	r.mu.Lock()
	r.changes = append(r.changes, vrfChanges{vrf: vrf, changes: changes, init: init})
	r.mu.Unlock()
	r.ask()
}

// SetIndex records the peer index of a (re)loaded config (nothing on a
// nil Reconciler: [fib] off).
func (r *Reconciler) SetIndex(idx *peerindex.Index) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.index = idx
	r.peersAt++
	r.mu.Unlock()
	r.ask()
}

// Apply records the peers manager's snapshot of the sessions (which
// session, on which link, a neighbor's paths came by; nothing on a nil
// Reconciler).
func (r *Reconciler) Apply(sn *peerindex.Snapshot) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.snap = sn
	r.peersAt++
	r.mu.Unlock()
	r.ask()
}

// watchKernel follows the kernel's route notifications until ctx ends.
// When it cannot, the periodic look is the only repair: the error is
// logged and shown (/status fib.last_error).
func (r *Reconciler) watchKernel(ctx context.Context) {
	err := r.opts.Kernel.Watch(ctx, r.kernelEvent)
	if err == nil || ctx.Err() != nil {
		return
	}
	r.log.WithError(err).Error("fib: the kernel's route notifications are not followed; routes changed behind our back are repaired by the look every minute only")
	r.mu.Lock()
	r.watchErr = err.Error()
	r.mu.Unlock()
}

// kernelEvent records what a notification of the kernel's routing tables
// tells: a route of ours gone (deleted, or replaced by someone else's of
// our metric: repaired by the next pass), the kernel's other routes
// changed (next hops are resolved again), or lost notifications (a full
// look). A new route of ours is our own write coming back, or rare enough
// to wait for the next look: it is not recorded, so a full table's
// writes cost nothing here.
func (r *Reconciler) kernelEvent(ev kroute.Event) {
	switch {
	case ev.Lost:
		r.mu.Lock()
		r.lost = true
	case ev.Ours() && !ev.Deleted:
		return
	case ev.Ours():
		r.mu.Lock()
		r.gone = append(r.gone, ev.Route)
	case !ev.Deleted && ev.Metric == kroute.Metric && ev.Type == kroute.TypeUnicast:
		// Someone else's route in our place (ip route replace ... metric 20).
		r.mu.Lock()
		r.gone = append(r.gone, kroute.Route{Key: ev.Route.Key})
		r.foreign = true
	default:
		r.mu.Lock()
		r.foreign = true
	}
	r.mu.Unlock()
	r.ask()
}

func (r *Reconciler) ask() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

// Status is the last pass's fib section of /status (a copy; nil on a nil
// Reconciler: [fib] off).
func (r *Reconciler) Status() *status.FIB {
	if r == nil {
		return nil
	}
	st := *r.st.Load()
	return &st
}

func (r *Reconciler) loop(ctx context.Context) {
	defer close(r.done)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.kick:
			// Let the burst gather.
			select {
			case <-ctx.Done():
				return
			case <-time.After(r.opts.Coalesce):
			}
		case <-timer.C:
		}
		now := time.Now()
		r.checkSynced(ctx, now) // graceful.go
		r.runPass(now)
		timer.Reset(r.nextDue(now))
	}
}

// nextDue is how long until the next timed pass: the full look, the end
// of the takeover hold, a retry of refused routes.
func (r *Reconciler) nextDue(now time.Time) time.Duration {
	due := r.p.nextLook
	if r.p.keep != nil && r.p.keepEnd.Before(due) {
		due = r.p.keepEnd
	}
	if r.p.keep != nil && r.opts.Graceful && r.peers != nil {
		if t := now.Add(syncPoll); t.Before(due) {
			due = t
		}
	}
	if len(r.p.refused) > 0 {
		if t := now.Add(r.opts.Retry); t.Before(due) {
			due = t
		}
	}
	return max(due.Sub(now), time.Millisecond)
}
