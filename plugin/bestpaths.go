package plugin

import (
	"context"
	"fmt"

	"github.com/osrg/gobgp/v3/pkg/server"
)

// BestPathChange is one destination's change of best path in GoBGP's
// global RIB (IPv4 and IPv6 unicast): its prefix and its best path, or
// with Options.Multipath its set of equal best paths; no path when the
// destination has none any more (the carried patch 0028).
type BestPathChange = server.BestPathChange

// BestPathHop is one path of a BestPathChange: its next hop, the
// link-local next hop of MP_REACH_NLRI (RFC 2545), the neighbor it came
// from and our address on that session, or Local for a path of our own.
type BestPathHop = server.BestPathHop

// EndOfRIB is an End-of-RIB marker a neighbor sent (RFC 4724 section 2):
// its address and ours on the session, the family's AFI and SAFI (the
// carried patch 0034).
type EndOfRIB = server.EndOfRIB

// WatchBestPaths calls fn with the changes of best paths of each VRF's
// RIB (vrf "" the default VRF's, GoBGP's global RIB; a VRF's instance,
// vrfs.go, from when it is made): first (init true) every destination
// that has one, then each change, in order, on a goroutine of GoBGP's
// watcher per VRF, until ctx is done. fn may block: changes wait in the
// watcher's queue, never in GoBGP's main loop.
func (h *Host) WatchBestPaths(ctx context.Context, fn func(vrf string, changes []BestPathChange, init bool)) error {
	return h.WatchBestPathsAndEndOfRIB(ctx, fn, nil)
}

// WatchBestPathsAndEndOfRIB is WatchBestPaths that also calls eor (when
// not nil) with each End-of-RIB marker a neighbor of the VRF sends, on
// fn's goroutine and in order with it: when eor hears a neighbor's marker,
// fn has heard every change of best path the neighbor's routes before it
// made.
func (h *Host) WatchBestPathsAndEndOfRIB(ctx context.Context, fn func(vrf string, changes []BestPathChange, init bool), eor func(vrf string, e EndOfRIB)) error {
	if err := h.checkRunning(); err != nil {
		return err
	}
	w := bestWatch{ctx: ctx, fn: fn, eor: eor}
	if err := watchBest(ctx, h.bgp, "", w); err != nil {
		return fmt.Errorf("plugin: watch best paths: %w", err)
	}
	h.vrfs.mu.Lock()
	defer h.vrfs.mu.Unlock()
	h.vrfs.best = append(h.vrfs.best, w)
	for vrf, s := range h.vrfs.servers {
		if err := watchBest(ctx, s, vrf, w); err != nil {
			return fmt.Errorf("plugin: watch best paths in VRF %s: %w", vrf, err)
		}
	}
	return nil
}
