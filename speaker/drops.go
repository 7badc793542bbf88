package speaker

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/dropwatch"
	"github.com/authbgp/authbgpd/kdrops"
)

// peerDrops is the kernel's own per-peer drop verdicts (eBPF on the
// tcp_hash_* tracepoints, package kdrops), shown by package dropwatch in
// /status, /metrics and the log. Without them (no BTF, no CAP_BPF and
// CAP_PERFMON, a kernel older than 6.7) /status says why and nothing else
// changes.
type peerDrops struct {
	w      *dropwatch.Watcher
	ctr    *kdrops.Counter // nil when unavailable
	cancel context.CancelFunc
	done   chan struct{}
}

// startPeerDrops opens the counters in the daemon's network namespace
// (counting starts now) and polls them every second. demand, when set, is
// told of every address whose drops moved (the on-demand shadow capture).
func startPeerDrops(cfg *config.Config, log *logrus.Logger, demand func(peerID string, addr netip.Addr, why string)) *peerDrops {
	d := &peerDrops{done: make(chan struct{})}
	var src dropwatch.Source
	ctr, err := kdrops.Open()
	if err == nil {
		d.ctr, src = ctr, ctr
	}
	o := dropwatch.Options{}
	if demand != nil {
		o.OnDrops = func(peerID string, addr netip.Addr, r kdrops.Reason, delta uint64) {
			if peerID != "" {
				n := "segments"
				if delta == 1 {
					n = "segment"
				}
				demand(peerID, addr, fmt.Sprintf("kernel dropped %d %s from it (%s)", delta, n, dropwatch.Text(r)))
			}
		}
	}
	d.w = dropwatch.New(cfg, src, err, log.WithField("component", "kdrops"), o)
	ctx, cancel := context.WithCancel(context.Background())
	d.cancel = cancel
	go func() {
		defer close(d.done)
		d.w.Run(ctx)
	}()
	if err == nil {
		log.WithField("tracepoints", ctr.Tracepoints()).Info("kernel drop verdicts per peer: counting")
	}
	return d
}

// stop ends the polling and detaches the programs.
func (d *peerDrops) stop() error {
	d.cancel()
	<-d.done
	if d.ctr != nil {
		return d.ctr.Close()
	}
	return nil
}
