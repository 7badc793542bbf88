package peers

import (
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
// reconciler only). A pass that changed neither builds nothing.
func (m *Manager) publish(sessions bool) {
	last := m.Snapshot()
	keysSame := len(last.Keys) == len(m.peers)
	for id, st := range m.peers {
		if !keysSame {
			break
		}
		k, ok := last.Keys[id]
		keysSame = ok && k == keyInUse(st)
	}
	sessSame := !sessions || len(last.Sessions) == len(m.sess)
	for a, s := range m.sess {
		if !sessions || !sessSame {
			break
		}
		ps, ok := last.Sessions[a]
		sessSame = ok && ps == sessionOf(s)
	}
	if keysSame && sessSame {
		return
	}
	next := &peerindex.Snapshot{Keys: last.Keys, Sessions: last.Sessions}
	if !keysSame {
		next.Keys = make(map[string]peerindex.KeyInUse, len(m.peers))
		for id, st := range m.peers {
			next.Keys[id] = keyInUse(st)
		}
	}
	if !sessSame {
		next.Sessions = make(map[peerindex.Neighbor]peerindex.Session, len(m.sess))
		for a, s := range m.sess {
			next.Sessions[a] = sessionOf(s)
		}
	}
	m.snap.Store(next)
	m.obs.Published(next)
}

// keyInUse is what the snapshot says of st's key.
func keyInUse(st *peer) peerindex.KeyInUse {
	k := peerindex.KeyInUse{KeyID: st.keyID, Keychain: st.cfg.Keychain != "", Installed: st.installed,
		AOCurrent: -1, AORNext: -1, AOSending: st.aoCurrent}
	if len(st.ao.Keys) > 0 {
		k.AOCurrent, k.AORNext = st.ao.Current, st.ao.RNext
	}
	return k
}

// sessionOf is what the snapshot says of session s: its connection's ends
// while it is established.
func sessionOf(s *session) peerindex.Session {
	if s.state == "established" && s.remote.IsValid() {
		return peerindex.Session{Established: true, Local: s.local, Remote: s.remote}
	}
	return peerindex.Session{}
}
