// Package originate announces the config's [[networks]]: each is a path
// of ours (ORIGIN IGP, next hop unspecified: GoBGP sends the session's
// local address) in the RIB of its VRF's GoBGP instance, which GoBGP
// sends to that VRF's peers, over their TCP-MD5 or TCP-AO sessions alike.
//
// It is level-triggered like the peers' reconciler: a pass reads what the
// RIBs hold (the paths of ours at the networks' prefixes: a look-up each,
// plugin.Host.LocalPathsIn), compares it with the networks (plan.go, pure)
// and adds and withdraws the difference. A pass runs at start, at each
// reload (Set, which waits for it: a reload adds and withdraws in place,
// no session is reset), every 30 s (a path withdrawn through the gRPC API
// comes back), and 5 s after a pass that failed (a failed add is retried;
// /status says why it is not announced). The kernel never gets these
// routes: fib skips the paths of ours.
package originate

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/plugin"
	"github.com/authbgp/authbgpd/status"
)

// RIB is what a pass needs of GoBGP (*plugin.Host; a fake in tests).
type RIB interface {
	AddPathIn(ctx context.Context, vrf string, p *api.Path) error
	DeletePathIn(ctx context.Context, vrf string, p *api.Path) error
	LocalPathsIn(ctx context.Context, vrf string, family *api.Family, prefixes []string) ([]*api.Path, error)
}

// Cadence of the passes.
const (
	lookEvery  = 30 * time.Second // a pass that found all well
	retryEvery = 5 * time.Second  // after a pass with an error
)

// Originator is the plugin that keeps the networks in GoBGP's RIBs.
type Originator struct {
	log *logrus.Logger

	mu       sync.Mutex
	want     map[key]route
	order    []key // the networks in config order, for /status
	st       []status.Network
	rib      RIB
	kick     chan chan error
	stop     context.CancelFunc
	done     chan struct{}
	owned    map[key]route  // the loop goroutine's: what it added and did not withdraw
	failures map[key]string // the loop goroutine's: the last pass's error per network
	logged   map[key]string // the loop goroutine's: the error last logged per network
}

// New makes an Originator of nets (a config's Networks); Start starts it.
func New(nets []config.Network, log *logrus.Logger) *Originator {
	o := &Originator{log: log, kick: make(chan chan error), owned: map[key]route{},
		failures: map[key]string{}, logged: map[key]string{}}
	o.set(nets)
	return o
}

// Name implements plugin.Plugin.
func (o *Originator) Name() string { return "originate" }

// Start implements plugin.Plugin: a first pass (its failures are in
// /status and the log, and retried), then the loop.
func (o *Originator) Start(ctx context.Context, h *plugin.Host) error { return o.start(ctx, h) }

func (o *Originator) start(ctx context.Context, rib RIB) error {
	o.rib = rib
	lctx, cancel := context.WithCancel(context.Background())
	o.stop, o.done = cancel, make(chan struct{})
	next := o.pass(ctx)
	go o.run(lctx, next)
	return nil
}

// Stop implements plugin.Plugin. The paths stay: GoBGP stops next.
func (o *Originator) Stop(context.Context) error {
	if o.stop != nil {
		o.stop()
		<-o.done
	}
	return nil
}

// Set makes nets the networks (a reload) and waits for the pass that
// applies them; its error says which networks it could not announce or
// withdraw (they are retried). Before Start it only records them.
func (o *Originator) Set(ctx context.Context, nets []config.Network) error {
	o.set(nets)
	if o.done == nil {
		return nil
	}
	res := make(chan error, 1)
	select {
	case o.kick <- res:
	case <-o.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-res:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (o *Originator) set(nets []config.Network) {
	want, order := make(map[key]route, len(nets)), make([]key, 0, len(nets))
	for i := range nets {
		r := routeOf(&nets[i])
		want[r.key] = r
		order = append(order, r.key)
	}
	o.mu.Lock()
	o.want, o.order = want, order
	o.mu.Unlock()
}

// Status is the networks for /status, in config order: announced (a path
// of ours with the network's communities is in its VRF's RIB) or why not.
func (o *Originator) Status() []status.Network {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]status.Network{}, o.st...)
}

func (o *Originator) run(ctx context.Context, next time.Duration) {
	defer close(o.done)
	t := time.NewTimer(next)
	defer t.Stop()
	for {
		var res chan error
		select {
		case <-ctx.Done():
			return
		case res = <-o.kick:
		case <-t.C:
		}
		next = o.pass(ctx)
		if res != nil {
			res <- o.failed()
		}
		t.Reset(next)
	}
}

// failed joins the networks' errors of the last pass.
func (o *Originator) failed() error {
	var errs []error
	for k, e := range o.failures {
		errs = append(errs, fmt.Errorf("network %s: %s", o.idOf(k), e))
	}
	return errors.Join(errs...)
}

func (o *Originator) idOf(k key) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	if r, ok := o.want[k]; ok {
		return r.id
	}
	if r, ok := o.owned[k]; ok {
		return r.id
	}
	return k.prefix.String()
}

// pass observes, plans and acts once; it returns when the next is due.
func (o *Originator) pass(ctx context.Context) time.Duration {
	o.mu.Lock()
	want, order := o.want, o.order
	o.mu.Unlock()
	have, blind := o.observe(ctx, want)
	p := makePlan(want, have, o.owned, blind)
	fail := map[key]string{}
	for k, err := range blind {
		fail[k] = err.Error()
	}
	for _, k := range p.forget {
		delete(o.owned, k)
	}
	for _, r := range p.add {
		if err := o.apply(ctx, r, true); err != nil {
			fail[r.key] = err.Error()
			continue
		}
		o.owned[r.key], have[r.key] = r, r.attrs
		o.log.WithFields(logrus.Fields{"network": r.id}).Info("network announced")
	}
	for _, r := range p.withdraw {
		if err := o.apply(ctx, r, false); err != nil {
			fail[r.key] = err.Error()
			continue
		}
		delete(o.owned, r.key)
		o.log.WithFields(logrus.Fields{"network": r.id}).Info("network withdrawn")
	}
	o.report(fail)
	st := make([]status.Network, 0, len(order))
	for _, k := range order {
		w := want[k]
		attrs, ok := have[k]
		st = append(st, status.Network{Prefix: k.prefix.String(), VRF: k.vrf,
			Announced: ok && attrs == w.attrs, LastError: fail[k]})
	}
	o.mu.Lock()
	o.st = st
	o.mu.Unlock()
	if len(fail) > 0 {
		return retryEvery
	}
	return lookEvery
}

// report logs each network's error when it is new or different, and its
// recovery; the errors stay in /status until a pass succeeds.
func (o *Originator) report(fail map[key]string) {
	for k, e := range fail {
		if o.logged[k] != e {
			o.log.WithFields(logrus.Fields{"network": o.idOf(k), "error": e}).Error("network not announced as configured; retrying every " + retryEvery.String())
			o.logged[k] = e
		}
	}
	for k := range o.logged {
		if _, still := fail[k]; !still {
			delete(o.logged, k)
			o.log.WithFields(logrus.Fields{"network": o.idOf(k)}).Info("network: the earlier error is resolved")
		}
	}
	o.failures = fail
}

// apply adds (or withdraws) r in its VRF's RIB.
func (o *Originator) apply(ctx context.Context, r route, add bool) error {
	p, err := pathOf(r)
	if err != nil {
		return fmt.Errorf("build the path: %w", err)
	}
	if add {
		return o.rib.AddPathIn(ctx, r.vrf, p)
	}
	return o.rib.DeletePathIn(ctx, r.vrf, p)
}

// observe reads the attributes of the paths of ours at the prefixes of
// want and of owned, a look-up per VRF and family. blind are the networks
// whose RIB could not be read, with the error.
func (o *Originator) observe(ctx context.Context, want map[key]route) (map[key]string, map[key]error) {
	type group struct {
		vrf string
		v6  bool
	}
	all := make(map[key]bool, len(want)+len(o.owned))
	for k := range want {
		all[k] = true
	}
	for k := range o.owned {
		all[k] = true
	}
	groups := map[group][]key{}
	for k := range all {
		g := group{k.vrf, k.prefix.Addr().Is6()}
		groups[g] = append(groups[g], k)
	}
	have, blind := map[key]string{}, map[key]error{}
	for g, keys := range groups {
		var prefixes []string
		for _, k := range keys {
			prefixes = append(prefixes, k.prefix.String())
		}
		paths, err := o.rib.LocalPathsIn(ctx, g.vrf, family(keys[0].prefix), prefixes)
		if err != nil {
			for _, k := range keys {
				blind[k] = err
			}
			continue
		}
		for _, p := range paths {
			pfx, attrs, err := observedAttrs(p)
			if err != nil {
				continue // not a unicast prefix: not ours to judge
			}
			have[key{g.vrf, pfx}] = attrs
		}
	}
	return have, blind
}
