package peers

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/config"
)

// ErrNeedsRestart is returned by Reload for changes that cannot be applied
// to a running speaker (ASN, router ID, listen port or addresses).
var ErrNeedsRestart = errors.New("change needs a restart")

// Reload applies a new, already validated config: removed peers go (with
// their keys), added peers come, a changed key is switched in place without
// resetting the session, other peer changes update GoBGP (which resets the
// session where BGP requires it). Unchanged peers are not touched. Global
// changes that need a restart reject the whole reload and keep the running
// config.
func (m *Manager) Reload(ctx context.Context, next *config.Config) (config.Changes, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ch := config.Diff(m.cfg, next)
	if refused := ch.Refusals(m.cfg, next); len(refused) > 0 {
		msgs := make([]string, len(refused))
		for i, e := range refused {
			msgs[i] = e.Error()
		}
		return ch, fmt.Errorf("peers: reload rejected: %s: %w", strings.Join(msgs, "; "), ErrNeedsRestart)
	}
	if m.needsMD5(next) && !m.needsMD5(m.cfg) && m.preErr == nil {
		if err := m.socks.Preflight(); err != nil {
			m.preErr = err
			m.log.WithError(err).Error("TCP-MD5 is unusable on this system: every keyed peer is held down")
		}
	}
	m.cfg = next
	var errs []error
	for _, p := range ch.Removed {
		if st := m.peers[p.ID()]; st != nil {
			if err := m.removePeer(ctx, st); err != nil {
				errs = append(errs, err)
			}
		}
	}
	for _, pc := range ch.Changed {
		st := m.peers[pc.ID]
		np := next.Peer(pc.ID)
		if st == nil || np == nil {
			continue
		}
		if pc.KeyOnly() && np.Auth().Mode == config.AuthMD5 && st.secret != nil {
			st.cfg = np
			secret, keyID, _, err := m.decide(next, np, st)
			if err != nil {
				st.err, st.installed = err, false
				m.holdDown(ctx, st)
				errs = append(errs, err)
				continue
			}
			if string(secret) != string(st.secret) || !st.installed {
				m.changeKey(ctx, st, secret, keyID, "reload")
			} else {
				st.keyID = keyID
			}
			continue
		}
		// Anything else (ASN, families, transport, auth switched on or
		// off): replace the peer. BGP cannot change these on a live
		// session anyway.
		m.log.WithFields(logrus.Fields{"peer": pc.ID, "fields": pc.Fields}).Info("peer changed: re-adding it")
		if err := m.removePeer(ctx, st); err != nil {
			errs = append(errs, err)
		}
		if err := m.addPeer(ctx, np, nil); err != nil {
			errs = append(errs, err)
		}
	}
	for _, p := range ch.Added {
		if err := m.addPeer(ctx, next.Peer(p.ID()), nil); err != nil {
			errs = append(errs, err)
		}
	}
	// Unchanged peers keep their state but point at the new config.
	for _, p := range ch.Unchanged {
		if st := m.peers[p.ID()]; st != nil {
			st.cfg = next.Peer(p.ID())
		}
	}
	m.armKeychainTimer()
	m.kickReconcile()
	return ch, errors.Join(errs...)
}
