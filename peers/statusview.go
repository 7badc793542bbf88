package peers

import (
	"net/netip"
	"sort"
	"time"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/status"
)

// Status returns the peers part of /status: every configured peer, and
// every session accepted from a dynamic range.
//
// Status never waits on long work (a reload holds the manager for as long
// as GoBGP takes): if the manager stays busy for more than a moment, the
// last snapshot is returned.
func (m *Manager) Status() []status.Peer {
	for i := 0; !m.mu.TryLock(); i++ {
		if i == 20 {
			if p := m.lastStatus.Load(); p != nil {
				return append([]status.Peer(nil), (*p)...)
			}
			m.mu.Lock()
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	defer m.mu.Unlock()
	out := m.statusLocked()
	m.lastStatus.Store(&out)
	return append([]status.Peer(nil), out...)
}

func (m *Manager) statusLocked() []status.Peer {
	now := m.now()
	var out []status.Peer
	for id, st := range m.peers {
		cp := st.cfg
		a := status.Auth{Mode: config.AuthNone}
		if au := cp.Auth(); au.Mode == config.AuthMD5 {
			// Installed is what the sockets were seen to carry: with the
			// kernel's view (sock_diag) a key counts only once read back
			// from every listener and session; without it (no
			// CAP_NET_ADMIN), the install calls' success is all we know.
			inst := st.observedInstalled()
			a = status.Auth{Mode: au.Mode, Source: au.Source, Keychain: au.Keychain, Installed: inst, Pending: st.pending() && !st.heldDown, Verified: st.obs.by}
			if st.keyID >= 0 {
				id := st.keyID
				a.KeyID = &id
			}
			switch {
			case st.err != nil:
				a.Error = st.err.Error()
			case st.obs.drift != "":
				a.Error = "drift: " + st.obs.drift
			}
		}
		if !cp.IsDynamic() {
			p := status.Peer{Address: id, ASN: cp.ASN, State: "idle", Auth: a}
			if s := m.sess[cp.Address]; s != nil {
				p.State = s.state
				if s.state == "established" && !s.since.IsZero() {
					p.UptimeSeconds = int64(now.Sub(s.since).Seconds())
				}
			}
			if st.heldDown || (m.sess[cp.Address] != nil && m.sess[cp.Address].adminDown) {
				p.State = "admin-down"
			}
			out = append(out, p)
			continue
		}
		rng := status.Peer{Address: id, Prefix: id, ASN: cp.ASN, State: "listening", Auth: a}
		if st.heldDown {
			rng.State = "admin-down"
		}
		out = append(out, rng)
		for addr, s := range m.sess {
			if !cp.Prefix.Contains(addr) || m.peers[addr.String()] != nil || m.peerFor(addr) != id {
				continue
			}
			p := status.Peer{Address: addr.String(), Prefix: id, ASN: cp.ASN, State: s.state, Auth: a}
			if s.state == "established" && !s.since.IsZero() {
				p.UptimeSeconds = int64(now.Sub(s.since).Seconds())
			}
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return less(out[i], out[j]) })
	return out
}

func less(a, b status.Peer) bool {
	if a.Prefix != b.Prefix {
		return a.Prefix < b.Prefix
	}
	x, e1 := netip.ParseAddr(a.Address)
	y, e2 := netip.ParseAddr(b.Address)
	if e1 == nil && e2 == nil {
		return x.Less(y)
	}
	return a.Address < b.Address
}

// Healthy reports an error when TCP-MD5 cannot work at all here while
// keyed peers are configured.
func (m *Manager) Healthy() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.preErr
}
