package shadow

// The established session of an address (SetSession), and the
// segments on it that a one-sided key change leaves failing.

import (
	"net/netip"
)

// SetSession tells the checker which connection carries the established
// BGP session with addr: the peer's end is port (0: no session). An
// interface peer's addr is its link-local address zoned with the
// interface (fe80::2%eth1), as GoBGP names such a neighbor. While a
// session stands, the diagnosis describes that connection's segments, and
// other connections from the peer (new SYNs) do not change it.
func (c *Checker) SetSession(addr netip.Addr, port uint16) {
	addr = addr.Unmap()
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.state[addr]
	if st == nil {
		if port == 0 {
			return
		}
		p := c.lookup(addr)
		if p == nil {
			return
		}
		st = newAddrState(addr, p)
		c.state[addr] = st
	}
	if st.conn != port {
		st.conn, st.connBad, st.stale = port, 0, false
		st.rep.SessionPort = port
	}
}

// offSession handles a received segment while a session with the peer
// stands (st.conn set). It reports whether the segment came on another
// connection: then it is counted here and the diagnosis stays the
// session's. A valid SYN after the session's own segments stopped
// verifying means the peer gave the session up (its NOTIFICATION and FIN,
// signed with a key we no longer hold, never reached BGP): OnStale. So
// does a SYN signed with a key the peer had until a reload replaced it
// less than Options.RetiredFor ago (a retired key proves as much as ours
// that the SYN is the peer's): the peer reconnects with the key it was
// given before, after we re-keyed once more. Our kernel drops that SYN, so
// BGP never sees it, and without this the session would stand until the
// peer reconnects with our current key (which, while the keys keep
// changing, it may not do for long) or the hold timer fires.
func (c *Checker) offSession(p *Peer, st *addrState, remote netip.Addr, srcPort uint16, segment []byte, r *Result) bool {
	if srcPort == st.conn {
		switch r.Verdict {
		case Valid:
			st.connBad = 0
		case NoHandshake:
			// Not checked: says nothing of the session's keys.
		default:
			st.connBad++
		}
		return false
	}
	c.count(st, r)
	// (st.rx.ph is the pseudo-header CheckHeld verified this segment
	// with, st.rep.Last its time.)
	if isSYN(segment) && st.connBad > 0 && !st.stale && c.opts.OnStale != nil &&
		(r.Verdict == Valid || r.Verdict == BadDigest && c.retiredVerifies(p, &st.rx.ph, segment, st.rep.Last)) {
		st.stale = true
		id, addr, port := p.ID, remote, st.conn
		c.events = append(c.events, func() { c.opts.OnStale(id, addr, port) })
	}
	return true
}
