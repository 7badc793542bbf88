package peers

import (
	"net/netip"
	"sync"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/peerindex"
	"github.com/authbgp/authbgpd/status"
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

// prefixLimitHits counts, per configured peer (its ID: a range counts its
// sessions), the sessions GoBGP ended because the peer sent more prefixes
// than its max-prefixes, since the daemon started. PrefixLimitExceeded
// writes it on GoBGP's FSM goroutine, so it has a mutex of its own (never
// m.mu, which a pass holds while it waits on GoBGP).
type prefixLimitHits struct {
	plMu sync.Mutex
	hits map[string]uint64
}

// PrefixLimitExceeded is told (plugin.Host.OnPrefixLimit) that GoBGP ended
// the session with addr, of vrf, because it sent more prefixes than its
// limit. It counts it for the configured peer that owns addr in vrf and
// logs it, naming the peer and the limit; it never blocks on the
// reconciler.
func (m *Manager) PrefixLimitExceeded(vrf string, addr netip.Addr) {
	id := config.ScopedID(vrf, addr.String())
	fields := logrus.Fields{"peer": id}
	if p := m.limitOwner(vrf, addr); p != nil {
		id, fields["max_prefixes"] = p.ID, p.Config.MaxPrefixes
		if p.IsDynamic() {
			fields["range"] = p.ID
		}
	}
	m.plMu.Lock()
	if m.hits == nil {
		m.hits = map[string]uint64{}
	}
	m.hits[id]++
	fields["exceeded"] = m.hits[id]
	m.plMu.Unlock()
	m.log.WithFields(fields).Warn("max-prefixes exceeded: the peer sent more prefixes in a family than its limit; session closed with a Cease NOTIFICATION, subcode 1 (maximum number of prefixes reached); GoBGP tries the peer again after its idle hold")
}

// limitOwner is the configured peer that owns addr in the config of the
// last index used (nil: none yet, or no peer owns it), read without m.mu:
// every event of a session asks the index of the running config (event's
// peerFor), and a session's events come before its prefix limit's Cease.
func (m *Manager) limitOwner(vrf string, addr netip.Addr) *peerindex.Peer {
	x := m.owners.Load()
	if x == nil {
		return nil
	}
	if p, ok := x.LinkOwner(addr); ok {
		return p
	}
	return x.OwnerIn(addr, vrf)
}

// prefixLimitStatus is the prefix limit of the configured peer c (id) as
// /status shows it (nil: c has none and none of its sessions was ever
// ended for one).
func (m *Manager) prefixLimitStatus(id string, c *config.Peer) *status.PrefixLimit {
	m.plMu.Lock()
	n := m.hits[id]
	m.plMu.Unlock()
	if c.MaxPrefixes == 0 && n == 0 {
		return nil
	}
	return &status.PrefixLimit{MaxPrefixes: c.MaxPrefixes, WarningPct: c.MaxPrefixesWarning, Exceeded: n}
}
