package dropwatch

import (
	"context"
	"fmt"
	"io"
	"net/netip"

	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/kdrops"
	"github.com/authbgp/authbgpd/peerindex"
)

// Running is the daemon's Watcher: the kernel's per-peer drop verdicts of
// its network namespace, polled from Start until Stop. Without them (no
// BTF, no CAP_BPF and CAP_PERFMON, a kernel older than 6.7) /status says
// why and nothing else changes.
type Running struct {
	*Watcher
	closer io.Closer // the counters; nil when unavailable
	cancel context.CancelFunc
	done   chan struct{}
}

// Hooks are told, after each poll, of the configured peers whose drops
// moved; none may block.
type Hooks struct {
	// Demand gets the address and why (DemandReason): the on-demand
	// shadow capture.
	Demand func(addr netip.Addr, why string)
	// BadDigest gets the address of a peer whose segments failed their
	// TCP-MD5 signature: the reconciler re-keys a connection that kept a
	// replaced key (the peer has moved).
	BadDigest func(addr netip.Addr)
}

// Start opens the kernel's counters in the calling thread's network
// namespace (counting starts now) and polls them every second until Stop,
// telling h of every configured peer's address whose drops moved.
func Start(x *peerindex.Index, log *logrus.Logger, h Hooks) *Running {
	return start(x, log, h, openKdrops, Options{})
}

// onDrops calls the hooks that are set.
func (h Hooks) onDrops(addr netip.Addr, r kdrops.Reason, delta uint64) {
	if h.BadDigest != nil && r == kdrops.BadDigest {
		h.BadDigest(addr)
	}
	if h.Demand != nil {
		h.Demand(addr, DemandReason(r, delta))
	}
}

// openKdrops is kdrops.Open as a Source (a nil *Counter is no Source).
func openKdrops() (Source, io.Closer, error) {
	ctr, err := kdrops.Open()
	if err != nil {
		return nil, nil, err
	}
	return ctr, ctr, nil
}

func start(x *peerindex.Index, log *logrus.Logger, h Hooks, open func() (Source, io.Closer, error), o Options) *Running {
	src, closer, err := open()
	o.OnDrops = func(peerID string, addr netip.Addr, r kdrops.Reason, delta uint64) {
		if peerID != "" {
			h.onDrops(addr, r, delta)
		}
	}
	d := &Running{Watcher: New(x, src, err, log.WithField("component", "kdrops"), o), closer: closer, done: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	d.cancel = cancel
	go func() {
		defer close(d.done)
		d.Run(ctx)
	}()
	if err == nil {
		log.WithField("tracepoints", d.tracepoints).Info("kernel drop verdicts per peer: counting")
	}
	return d
}

// DemandReason is why the shadow capture is asked for a peer: the kernel
// dropped delta segments of reason r from it.
func DemandReason(r kdrops.Reason, delta uint64) string {
	n := "segments"
	if delta == 1 {
		n = "segment"
	}
	return fmt.Sprintf("kernel dropped %d %s from it (%s)", delta, n, Text(r))
}

// Stop ends the polling and closes the counters (detaching the programs).
func (d *Running) Stop() error {
	d.cancel()
	<-d.done
	if d.closer != nil {
		return d.closer.Close()
	}
	return nil
}
