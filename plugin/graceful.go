package plugin

import "github.com/osrg/gobgp/v3/pkg/server"

// SetGracefulStop chooses how Stop ends GoBGP's sessions: on, as for a
// graceful restart (RFC 4724 section 4.1): every session, of every VRF's
// instance, is closed without a NOTIFICATION and nothing is withdrawn, so
// the peers, as helpers, keep our routes stale until we are back (GoBGP's
// StopGraceful, the carried patches/0033); off (the default), each
// neighbor is deleted with a NOTIFICATION Cease. The plugins read it in
// their own Stop (GracefulStop): fib then leaves its routes in the kernel.
func (h *Host) SetGracefulStop(on bool) { h.graceful.Store(on) }

// GracefulStop reports SetGracefulStop's choice.
func (h *Host) GracefulStop() bool { return h.graceful.Load() }

// stopServer stops one of GoBGP's instances as SetGracefulStop chose.
func (h *Host) stopServer(s *server.BgpServer) {
	if h.graceful.Load() {
		s.StopGraceful()
		return
	}
	s.Stop()
}
