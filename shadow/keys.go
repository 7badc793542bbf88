package shadow

// The peers' keys: replaced by a reload (SetPeers), kept a while as
// retired keys, pinned by a rollover decision, looked up by address.

import (
	"maps"
	"net/netip"
	"slices"
	"time"

	"github.com/authbgp/authbgpd/keys"
	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/peerindex"
)

// retiredKey is a key a peer had until SetPeers replaced it at at.
type retiredKey struct {
	secret keys.Secret
	at     time.Time
}

// maxRetired bounds the retired keys kept per peer (a burst of reloads).
const maxRetired = 8

// SetPeers replaces the configured peers (reload). State of addresses that
// still belong to a peer is kept, and so is the key Pin last named for a
// peer ID (unless peers names one itself). The checker keeps its own copy of the
// peers' secrets (the caller's are not retained) and wipes the copies it
// replaces.
func (c *Checker) SetPeers(peers []Peer) {
	list := make([]*Peer, len(peers))
	scopes := make([]peerindex.Scope, len(peers))
	for i := range peers {
		p := peers[i]
		p.Keys = append([]Key(nil), p.Keys...)
		p.sched = make(keys.Schedule, len(p.Keys))
		for j, k := range p.Keys {
			p.Keys[j].Secret = slices.Clone(k.Secret)
			p.sched[j] = keys.Entry{ID: k.ID, SendFrom: k.SendFrom}
		}
		p.single = len(p.sched) == 1 && p.sched[0].SendFrom.IsZero()
		if p.Interface != "" {
			p.Prefix = netip.Prefix{}
		}
		list[i], scopes[i] = &p, peerindex.Scope{Interface: p.Interface, Prefix: p.Prefix, VRF: p.VRF}
	}
	owners := peerindex.NewOwners(scopes)
	c.mu.Lock()
	if len(c.pins) > 0 {
		given := make(map[string]bool, len(peers))
		for i := range peers {
			given[peers[i].ID] = true
		}
		maps.DeleteFunc(c.pins, func(id string, _ int) bool { return !given[id] })
		for _, p := range list {
			if id, ok := c.pins[p.ID]; ok && p.Pinned < 0 {
				p.Pinned = id
			}
		}
	}
	c.retire(list)    // copies the replaced keys it keeps
	wipeKeys(c.peers) // only ever read under c.mu
	c.peers, c.owners = list, owners
	c.lastAddr, c.lastLocal, c.lastPeer, c.lastSt = netip.Addr{}, netip.Addr{}, nil, nil
	c.gen++
	for a, st := range c.state {
		p := c.lookup(a)
		if p == nil {
			delete(c.state, a)
			continue
		}
		st.rep.PeerID, st.rep.TCPAO, st.rep.Interface, st.rep.VRF = p.ID, p.TCPAO, p.Interface, p.VRF
		for _, cn := range st.ao {
			cn.keys = nil // derived from the replaced secrets
		}
	}
	c.mu.Unlock()
}

// wipeKeys wipes the secrets of the checker's peers being replaced.
func wipeKeys(peers []*Peer) {
	for _, p := range peers {
		for _, k := range p.Keys {
			k.Secret.Wipe()
		}
	}
}

// retire records the keys of the current peers that the next ones
// (peers) no longer have, and forgets retired keys that expired, came
// back, or belong to peers that are gone. c.mu is held.
func (c *Checker) retire(peers []*Peer) {
	if c.opts.RetiredFor < 0 {
		return
	}
	now := c.opts.Now()
	old := map[string]*Peer{}
	for _, p := range c.peers {
		old[p.ID] = p
	}
	next := map[string]*Peer{}
	for _, p := range peers {
		next[p.ID] = p
	}
	retired := map[string][]retiredKey{}
	for id, np := range next {
		if np.TCPAO {
			continue // only the TCP-MD5 stale proof uses retired keys
		}
		has := func(secret keys.Secret) bool {
			for _, k := range np.Keys {
				if k.Secret.Equal(secret) {
					return true
				}
			}
			return false
		}
		var keep []retiredKey
		for _, rk := range c.retired[id] {
			if now.Sub(rk.at) <= c.opts.RetiredFor && !has(rk.secret) {
				keep = append(keep, rk)
			}
		}
		if op := old[id]; op != nil {
			for _, k := range op.Keys {
				if len(k.Secret) > 0 && !has(k.Secret) {
					keep = append(keep, retiredKey{secret: append(keys.Secret(nil), k.Secret...), at: now})
				}
			}
		}
		if len(keep) > maxRetired {
			keep = keep[len(keep)-maxRetired:]
		}
		if len(keep) > 0 {
			retired[id] = keep
		}
	}
	wipeDropped(c.retired, retired)
	c.retired = retired
}

// wipeDropped wipes the retired keys of old that next no longer keeps.
func wipeDropped(old, next map[string][]retiredKey) {
	kept := map[*byte]bool{}
	for _, rks := range next {
		for _, rk := range rks {
			kept[&rk.secret[0]] = true
		}
	}
	for _, rks := range old {
		for _, rk := range rks {
			if !kept[&rk.secret[0]] {
				rk.secret.Wipe()
			}
		}
	}
}

// retiredVerifies reports whether the received segment (pseudo-header ph)
// of peer p, seen at t, is signed with a key p had until less than
// opts.RetiredFor before t. c.mu is held.
func (c *Checker) retiredVerifies(p *Peer, ph *md5auth.PseudoHeader, segment []byte, t time.Time) bool {
	rks := c.retired[p.ID]
	if len(rks) == 0 {
		return false
	}
	sig, err := md5auth.SignatureOf(segment)
	if err != nil || sig == nil {
		return false
	}
	for i := len(rks) - 1; i >= 0; i-- {
		if t.Sub(rks[i].at) <= c.opts.RetiredFor && c.verify(ph, segment, sig, rks[i].secret) {
			return true
		}
	}
	return false
}

// Pin makes the checker treat key id as peerID's active key (the key the
// peers manager installed: after a follow-peer-rollover switch too); -1
// returns to the schedule. It holds across SetPeers, and for a peer ID
// SetPeers has not given yet it waits for it.
func (c *Checker) Pin(peerID string, id int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pins == nil {
		c.pins = map[string]int{}
	}
	c.pins[peerID] = id
	for _, p := range c.peers {
		if p.ID == peerID {
			p.Pinned = id
		}
	}
}

// lookup returns the peer of remote address a, or nil, by the one owner
// rule (peerindex.Owners.Lookup): the interface peer of a's zone for a
// link-local address zoned with its interface, else the peer of the
// address (exact first, then the longest range).
func (c *Checker) lookup(a netip.Addr) *Peer {
	if i := c.owners.Lookup(a); i >= 0 {
		return c.peers[i]
	}
	return nil
}
