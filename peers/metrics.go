package peers

import (
	api "github.com/osrg/gobgp/v3/api"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/metrics"
	"github.com/authbgp/authbgpd/plugin"
	"github.com/authbgp/authbgpd/status"
)

// MetricStates folds the status of the configured peers (and of the sessions
// accepted from dynamic ranges) and GoBGP's neighbors into one entry per
// configured peer. sent counts the prefixes sent to an Established
// neighbor (named config.ScopedID(its VRF, its address)) in a family.
func MetricStates(st []status.Peer, nbrs []*api.Peer, sent func(id string, f *api.Family) uint64) []metrics.PeerState {
	var out []metrics.PeerState
	idx := make(map[string]int, len(st)) // configured peer ID -> out
	owner := make(map[string]string, len(st))
	for _, p := range st {
		if p.Prefix == "" || p.Prefix == p.Address { // a static peer or a range
			idx[metricID(p)] = len(out)
			ps := metrics.PeerState{Peer: metricID(p), Up: p.State == "established"}
			if l := p.PrefixLimit; l != nil {
				ps.MaxPrefixesExceeded = l.Exceeded // the configured peer's count (a range's: its sessions')
			}
			out = append(out, ps)
		}
	}
	for _, p := range st {
		id := metricID(p)
		if p.Prefix != "" && p.Prefix != p.Address { // a session of a range
			id = config.ScopedID(p.VRF, p.Prefix)
		}
		owner[config.ScopedID(p.VRF, p.Address)] = id
		i, ok := idx[id]
		if ok && p.State == "established" {
			out[i].Up = true
		}
		if mf := p.Malformed; ok && mf != nil {
			o := &out[i].Malformed
			o.Updates += mf.Updates
			o.Panics += mf.Panics
			for h, n := range mf.ByHandling {
				if o.ByHandling == nil {
					o.ByHandling = map[string]uint64{}
				}
				o.ByHandling[h] += n
			}
		}
	}
	for _, n := range nbrs {
		addr := n.GetConf().GetNeighborAddress()
		i, ok := idx[owner[config.ScopedID(plugin.VRFOf(n), addr)]]
		if !ok {
			continue
		}
		up := n.GetState().GetSessionState() == api.PeerState_ESTABLISHED
		for _, af := range n.GetAfiSafis() {
			fs := af.GetState()
			name := FamilyName(fs.GetFamily())
			if fs == nil || name == "" {
				continue
			}
			fp := metrics.FamilyPrefixes{Family: string(name), Received: fs.GetReceived(), Accepted: fs.GetAccepted()}
			if up {
				fp.Sent = sent(config.ScopedID(plugin.VRFOf(n), addr), fs.GetFamily())
			}
			out[i].Prefixes = addPrefixes(out[i].Prefixes, fp)
		}
	}
	return out
}

// metricID is a configured peer's label: its ID (an interface peer's is
// its interface, whatever address its far end has; a VRF's peer's is
// "VRF/ADDRESS", config.ScopedID).
func metricID(p status.Peer) string {
	if p.Interface != "" {
		return p.Interface
	}
	return config.ScopedID(p.VRF, p.Address)
}

// addPrefixes adds fp to the counts of its family in ps.
func addPrefixes(ps []metrics.FamilyPrefixes, fp metrics.FamilyPrefixes) []metrics.FamilyPrefixes {
	for i := range ps {
		if ps[i].Family == fp.Family {
			ps[i].Received += fp.Received
			ps[i].Accepted += fp.Accepted
			ps[i].Sent += fp.Sent
			return ps
		}
	}
	return append(ps, fp)
}

// FamilyName is the config's name of a GoBGP family ("" for one the
// config cannot name).
func FamilyName(f *api.Family) config.Family {
	switch {
	case f.GetAfi() == api.Family_AFI_IP && f.GetSafi() == api.Family_SAFI_UNICAST:
		return config.IPv4Unicast
	case f.GetAfi() == api.Family_AFI_IP6 && f.GetSafi() == api.Family_SAFI_UNICAST:
		return config.IPv6Unicast
	case f.GetAfi() == api.Family_AFI_IP && f.GetSafi() == api.Family_SAFI_SR_POLICY:
		return config.IPv4SRPolicy
	case f.GetAfi() == api.Family_AFI_IP6 && f.GetSafi() == api.Family_SAFI_SR_POLICY:
		return config.IPv6SRPolicy
	}
	return ""
}
