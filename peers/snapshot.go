package peers

import (
	"net/netip"

	"github.com/authbgp/authbgpd/peerindex"
)

// UseIndex gives the manager the peer index the speaker built for a
// config it is about to run (at a reload, before ReloadPlan): the passes
// then share it instead of indexing the config again. An index of another
// config is ignored by ownersOf.
func (m *Manager) UseIndex(x *peerindex.Index) {
	if x != nil {
		m.owners.Store(x)
	}
}

// Snapshot is the last published snapshot of each peer's key in use and
// each session (never nil; immutable: any goroutine may read it).
func (m *Manager) Snapshot() *peerindex.Snapshot {
	if s := m.snap.Load(); s != nil {
		return s
	}
	return peerindex.Empty
}

// publish publishes what the reconciler now knows of the peers' keys and,
// with sessions, of GoBGP's sessions (else the last snapshot's), when it
// differs from the last snapshot, and tells the Observer (m.mu held; the
// reconciler only).
func (m *Manager) publish(sessions bool) {
	last := m.Snapshot()
	next := &peerindex.Snapshot{Keys: make(map[string]peerindex.KeyInUse, len(m.peers)), Sessions: last.Sessions}
	for id, st := range m.peers {
		k := peerindex.KeyInUse{KeyID: st.keyID, Keychain: st.cfg.Keychain != "", Installed: st.installed,
			AOCurrent: -1, AORNext: -1, AOSending: st.aoCurrent}
		if len(st.ao.Keys) > 0 {
			k.AOCurrent, k.AORNext = st.ao.Current, st.ao.RNext
		}
		next.Keys[id] = k
	}
	if sessions {
		next.Sessions = make(map[netip.Addr]peerindex.Session, len(m.sess))
		for a, s := range m.sess {
			var ps peerindex.Session
			if s.state == "established" && s.remote.IsValid() {
				ps = peerindex.Session{Established: true, Local: s.local, Remote: s.remote}
			}
			next.Sessions[a] = ps
		}
	}
	if next.Equal(last) {
		return
	}
	m.snap.Store(next)
	m.obs.Published(next)
}
