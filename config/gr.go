package config

// DefaultGracefulRestartTime is [global] graceful-restart-time when absent:
// the seconds a helper keeps our routes after our sessions end (RFC 4724's
// Restart Time, 12 bits), and how long a restarted authbgpd keeps the
// kernel routes of its last run that its peers have not sent again.
const DefaultGracefulRestartTime = 120

// gracefulRestart decodes [global] graceful-restart and
// graceful-restart-time.
func (d *decoder) gracefulRestart(t *table, g *Global) {
	if b, ok := t.boolean("graceful-restart"); ok {
		g.GracefulRestart = b
	}
	g.GracefulRestartTime = DefaultGracefulRestartTime
	if n, ok := t.integer("graceful-restart-time", 1, 4095); ok {
		g.GracefulRestartTime = uint16(n)
	}
}

// decodePeerGracefulRestart decodes a peer's graceful-restart, its
// override of [global] graceful-restart (resolveGracefulRestart applies
// the global one where it is absent).
func decodePeerGracefulRestart(t *table, p *Peer) {
	if b, ok := t.boolean("graceful-restart"); ok {
		p.GracefulRestart = b
	}
}

// resolveGracefulRestart gives every peer its graceful restart as its
// sessions use it: its own graceful-restart, else [global]'s; and
// [global]'s restart time.
func (c *Config) resolveGracefulRestart() {
	for i := range c.Peers {
		p := &c.Peers[i]
		if !p.m.has("graceful-restart") {
			p.GracefulRestart = c.Global.GracefulRestart
		}
		p.GracefulRestartTime = c.Global.GracefulRestartTime
	}
}

// GracefulRestartAny reports whether any peer restarts gracefully: a stop
// then leaves the kernel routes and closes the sessions without a
// NOTIFICATION, and the next start takes them over until its peers have
// sent theirs again.
func (c *Config) GracefulRestartAny() bool {
	for i := range c.Peers {
		if c.Peers[i].GracefulRestart {
			return true
		}
	}
	return false
}
