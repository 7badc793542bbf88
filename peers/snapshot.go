package peers

import "github.com/authbgp/authbgpd/peerindex"

// UseIndex gives the manager the peer index the speaker built for a
// config it is about to run (at a reload, before ReloadPlan): the passes
// then share it instead of indexing the config again. An index of another
// config is ignored by ownersOf.
func (m *Manager) UseIndex(x *peerindex.Index) {
	if x != nil {
		m.owners.Store(x)
	}
}
