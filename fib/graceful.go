package fib

import (
	"context"
	"fmt"
	"maps"
	"net/netip"
	"time"

	api "github.com/osrg/gobgp/v3/api"

	"github.com/authbgp/authbgpd/kroute"
	"github.com/authbgp/authbgpd/plugin"
)

// Graceful restart (RFC 4724) in the forwarding table.
//
// On a stop with graceful restart (plugin.Host.GracefulStop), the routes of
// ours stay in the kernel: traffic keeps flowing through them while the
// daemon is away and its peers, as helpers, keep our routes stale.
//
// At start, the routes an earlier run left are taken over (begin): the ones
// a best path wants again are kept without a write, and the rest stay until
// the takeover hold ends. With Options.Graceful the hold ends when every
// neighbor with graceful restart is back and has sent End-of-RIB for each
// family it restarts gracefully in (the routes it did not send again are
// the ones to go), or after Options.RestartTime; without, after
// TakeoverHold.

// syncPoll is how often the hold asks GoBGP whether the neighbors are back.
const syncPoll = time.Second

// Restarting reports whether the kernel holds routes of ours from an
// earlier run (taken over now, if Start has not done it yet): the daemon
// restarts with its forwarding state kept, which its neighbors with
// graceful restart are told (the Restart State and Forwarding State bits
// of RFC 4724). false on a nil Reconciler ([fib] off) or when the kernel
// cannot be read (Start reports that).
func (r *Reconciler) Restarting() bool {
	if r == nil {
		return false
	}
	r.once.Do(r.takeOver)
	return r.beginErr == nil && len(r.p.keep) > 0
}

// takeOver opens the kernel and takes over its routes of ours (once).
func (r *Reconciler) takeOver() {
	if r.opts.Kernel == nil {
		k, err := kroute.OpenKernel()
		if err != nil {
			r.beginErr = fmt.Errorf("fib: %w", err)
			return
		}
		r.opts.Kernel = k
	}
	r.beginErr = r.begin(time.Now())
}

// holdEnd is when the takeover hold ends at the latest, from start.
func (r *Reconciler) holdEnd(start time.Time) time.Time {
	if r.opts.Graceful {
		return start.Add(r.opts.RestartTime)
	}
	return start.Add(r.opts.TakeoverHold)
}

// checkSynced ends the takeover hold now when, with graceful restart, the
// neighbors are all back with their End-of-RIB (allEndOfRIB of GoBGP's
// neighbors, every VRF's).
func (r *Reconciler) checkSynced(ctx context.Context, now time.Time) {
	if r.p.keep == nil || !r.opts.Graceful || r.peers == nil || !now.Before(r.p.keepEnd) {
		return
	}
	ps, err := r.peers(ctx)
	if err != nil {
		return // asked again at the next poll; the hold's end stays
	}
	r.mu.Lock()
	seen := maps.Clone(r.eors)
	r.mu.Unlock()
	if allEndOfRIB(ps, seen) && placedAll(ps, &r.p.nb) {
		r.log.WithField("routes", len(r.p.keep)).Info("fib: every neighbor with graceful restart is back with its End-of-RIB: the routes of the earlier run not sent again go")
		r.p.keepEnd = now
	}
}

// RecordEndOfRIB records an End-of-RIB marker a neighbor sent (GoBGP's
// best-path watcher tells it after the changes its routes made).
func (r *Reconciler) RecordEndOfRIB(vrf string, e plugin.EndOfRIB) {
	k := eorKey{vrf, e.Neighbor.WithZone("").Unmap(), family{api.Family_Afi(e.Afi), api.Family_Safi(e.Safi)}}
	r.mu.Lock()
	if r.eors == nil {
		r.eors = map[eorKey]bool{}
	}
	r.eors[k] = true
	r.mu.Unlock()
	r.ask()
}

// eorKey is a neighbor's (its VRF's instance, its address) End-of-RIB for
// a family.
type eorKey struct {
	vrf  string
	addr netip.Addr
	fam  family
}

// allEndOfRIB reports whether every neighbor with graceful restart is
// Established and has sent End-of-RIB (seen: RecordEndOfRIB's) for each
// family the session carries (configured and in the neighbor's
// Multiprotocol capabilities), pure. GoBGP's own End-of-RIB state is not
// the marker: when both ends say they restarted it reads received at the
// OPEN. Not only the families the neighbor restarts gracefully in (those
// its Graceful Restart capability lists, which GoBGP's own deferral waits
// for): a helper-only neighbor (FRR's default) lists none, and sends its
// routes, then its End-of-RIB, a second after the session is up. Neighbors
// without graceful restart are not waited for: their routes come as they
// come.
func allEndOfRIB(ps []*api.Peer, seen map[eorKey]bool) bool {
	for _, p := range ps {
		if !p.GetGracefulRestart().GetEnabled() {
			continue
		}
		if p.GetState().GetSessionState() != api.PeerState_ESTABLISHED {
			return false
		}
		addr, ok := neighborAddr(p)
		if !ok {
			return false
		}
		remote := remoteFamilies(p)
		for _, af := range p.GetAfiSafis() {
			f := af.GetConfig().GetFamily()
			if f == nil || !remote[familyOf(f)] {
				continue
			}
			if !seen[eorKey{plugin.VRFOf(p), addr, familyOf(f)}] {
				return false
			}
		}
	}
	return true
}

// placedAll reports whether every Established neighbor with graceful
// restart is placed by the last pass's neighbors (its session in the
// peers' snapshot; an interface peer's link known), pure: until then its
// paths want nothing (desiredOf) and the routes of the earlier run they
// will want again must stay. The End-of-RIB marker can come before the
// snapshot that says where the neighbor is.
func placedAll(ps []*api.Peer, nb *neighbors) bool {
	for _, p := range ps {
		if !p.GetGracefulRestart().GetEnabled() || p.GetState().GetSessionState() != api.PeerState_ESTABLISHED {
			continue
		}
		addr, ok := neighborAddr(p)
		if !ok {
			return false
		}
		w, ok := nb.placed(plugin.VRFOf(p), addr)
		if !ok || (addr.IsLinkLocalUnicast() && w.Link == 0) {
			return false
		}
	}
	return true
}

// neighborAddr is a GoBGP neighbor's address as the End-of-RIB markers and
// the neighbors' places name it: unzoned, unmapped.
func neighborAddr(p *api.Peer) (netip.Addr, bool) {
	addr, err := netip.ParseAddr(p.GetState().GetNeighborAddress())
	if err != nil {
		addr, err = netip.ParseAddr(p.GetConf().GetNeighborAddress())
	}
	return addr.WithZone("").Unmap(), err == nil
}

type family struct {
	afi  api.Family_Afi
	safi api.Family_Safi
}

func familyOf(f *api.Family) family { return family{f.GetAfi(), f.GetSafi()} }

// remoteFamilies are the families of the neighbor's Multiprotocol
// capabilities (IPv4 unicast alone when it sent none: RFC 4760).
func remoteFamilies(p *api.Peer) map[family]bool {
	out := map[family]bool{}
	for _, c := range p.GetState().GetRemoteCap() {
		var mp api.MultiProtocolCapability
		if c.MessageIs(&mp) && c.UnmarshalTo(&mp) == nil {
			out[familyOf(mp.GetFamily())] = true
		}
	}
	if len(out) == 0 {
		out[family{api.Family_AFI_IP, api.Family_SAFI_UNICAST}] = true
	}
	return out
}
