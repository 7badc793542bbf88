package peers

import (
	"time"

	api "github.com/osrg/gobgp/v3/api"
)

// restartState is whether the daemon restarted with its forwarding state
// kept (the kernel routes of its last run): asked once, at the first
// neighbor with graceful restart, and told to the neighbors added within
// their restart time from then.
type restartState struct {
	ask   func() bool // Options.Restarting; nil: never restarting
	asked bool
	until time.Time // neighbors added before this restart
}

// markRestarting sets the Restart State bit (RFC 4724 section 4.1:
// GoBGP's LocalRestarting, which also sets the Forwarding State bit of
// every family and defers our UPDATEs until every neighbor's End-of-RIB)
// on gr, a neighbor's or a range's graceful restart, while the daemon is
// restarting: its helpers keep our routes and the forwarding they stand
// for, instead of dropping them when the session comes back. Called by
// the pass's act step only.
func (m *Manager) markRestarting(gr *api.GracefulRestart) {
	if gr == nil || !gr.Enabled {
		return
	}
	rs := &m.restart
	if !rs.asked {
		rs.asked = true
		if rs.ask != nil && rs.ask() {
			rs.until = m.now().Add(time.Duration(gr.RestartTime) * time.Second)
			m.log.WithField("until", rs.until.Format(time.RFC3339)).Info("restarting with the forwarding state of the last run: neighbors with graceful restart are told (Restart State bit)")
		}
	}
	if m.now().Before(rs.until) {
		gr.LocalRestarting = true
	}
}

// GracefulRestart reports whether the running config has a peer with
// graceful restart: the daemon's stop is then graceful (the speaker's
// plugin.Host.SetGracefulStop).
func (m *Manager) GracefulRestart() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cfg.GracefulRestartAny()
}
