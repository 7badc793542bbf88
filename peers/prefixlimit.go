package peers

import (
	api "github.com/osrg/gobgp/v3/api"

	"github.com/authbgp/authbgpd/config"
)

// A peer's prefix limit (max-prefixes, max-prefixes-warning): GoBGP's
// PrefixLimit on each of the neighbor's (or the range's peer group's)
// families. GoBGP counts the peer's Adj-RIB-In per family, warns once past
// the warning percent, and past the limit closes the session with a Cease
// NOTIFICATION, subcode 1 (RFC 4486); the carried patch 0030 has it try the
// peer again after its idle hold. A static peer's limit changes in place
// (UpdatePeer: GoBGP's updatePrefixLimitConfig, which closes the session at
// once if the peer is now over it); a range's is part of its shape (its
// peer group is re-added with it: GoBGP's UpdatePeerGroup does not change
// the limit of the sessions it accepted).

// prefixLimit is the PrefixLimit of family af for p (nil: no limit).
func prefixLimit(p *config.Peer, af *api.Family) *api.PrefixLimit {
	if p.MaxPrefixes == 0 {
		return nil
	}
	return &api.PrefixLimit{Family: af, MaxPrefixes: p.MaxPrefixes, ShutdownThresholdPct: uint32(p.MaxPrefixesWarning)}
}

// withoutLimits is ap with its families' prefix limits taken out (ap is
// changed: it is a fresh neighbor made to be compared).
func withoutLimits(ap *api.Peer) *api.Peer {
	for _, af := range ap.GetAfiSafis() {
		af.PrefixLimits = nil
	}
	return ap
}

// limitsDiffer reports whether the static peer's neighbor, built from
// shape (nil: none), has another prefix limit than cfg asks for.
func limitsDiffer(shape, cfg *config.Peer) bool {
	if shape == nil || cfg.IsDynamic() {
		return false
	}
	return shape.MaxPrefixes != cfg.MaxPrefixes || shape.MaxPrefixesWarning != cfg.MaxPrefixesWarning
}
