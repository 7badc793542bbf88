package peers

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/plugin"
)

// ConnectionRefused is told (by plugin.Host, from GoBGP's log) that GoBGP
// closed a connection from addr that the kernel had accepted while addr's
// session was Established. It never blocks: the check runs on the
// reconciler's goroutine, and a burst beyond the queue is dropped (the
// peer's next attempt is told again).
func (m *Manager) ConnectionRefused(addr netip.Addr) {
	select {
	case m.refused <- addr.Unmap():
	default:
	}
}

// endIfStale ends the established session with addr when it is stale
// without the shadow checker's help. GoBGP turned away a new connection
// from addr, which the kernel accepted: its SYN carried a valid signature
// under the key now installed for addr. If the session was re-keyed in
// place and has received no BGP message since, the peer gave it up when it
// changed its key: its NOTIFICATION and FIN, signed with the old key, were
// dropped by our kernel, and GoBGP would keep the dead session and turn
// the peer away until its hold timer fired. A session that received
// anything since the change is alive (the peer signs with the new key on
// it), so it is left alone; so is one that was not re-keyed (a peer
// restarting with an unchanged key gets GoBGP's usual treatment).
func (m *Manager) endIfStale(ctx context.Context, addr netip.Addr) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.sess[addr]
	if s == nil || s.state != "established" || !s.rekeyedConn.IsValid() || s.rekeyedConn != s.remote {
		return nil
	}
	id := m.peerFor(addr)
	if st := m.peers[id]; st == nil || st.secret == nil {
		return nil
	}
	rx, err := m.received(ctx, addr)
	if err != nil {
		return fmt.Errorf("peers: is the session with %s stale: %w", addr, err)
	}
	log := m.log.WithFields(logrus.Fields{"peer": addr, "connection": s.remote})
	if rx != s.rxAtRekey {
		log.WithField("messages_since_key_change", rx-s.rxAtRekey).Info("GoBGP turned away a new connection from an established peer whose session still carries messages: left alone")
		return nil
	}
	log.WithField("reason", "new authenticated connection, nothing received since the key change").Warn("ending stale session: the peer opened a new connection signed with the new key, and its old session has carried no message since the key was changed in place")
	return m.resetStale(ctx, addr, s)
}

// received returns the number of BGP messages GoBGP has received from addr
// on its current session.
func (m *Manager) received(ctx context.Context, addr netip.Addr) (uint64, error) {
	ps, err := m.bgp.ListPeer(ctx, addr.String())
	if err != nil {
		return 0, err
	}
	for _, p := range ps {
		if a, ok := plugin.NeighborAddr(p); ok && a == addr {
			return p.GetState().GetMessages().GetReceived().GetTotal(), nil
		}
	}
	return 0, fmt.Errorf("GoBGP does not list %s", addr)
}

// noteRekeyed remembers that the established session s with addr now
// carries the new key, and how many messages it had received by then
// (after the socket was re-keyed: anything counted later passed the new
// key). Without the count the session is not marked, so endIfStale never
// ends it.
func (m *Manager) noteRekeyed(ctx context.Context, s *session) {
	s.rekeyedConn = netip.AddrPort{}
	rx, err := m.received(ctx, s.remote.Addr())
	if err != nil {
		m.log.WithError(err).WithField("peer", s.remote.Addr()).Debug("cannot read the session's message count after re-keying it")
		return
	}
	s.rekeyedConn, s.rxAtRekey = s.remote, rx
}
