package peers

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"syscall"

	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/keys"
	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/plugin"
	"github.com/authbgp/authbgpd/tcpsock"
)

// Listeners, keyed before they listen. GoBGP creates its BGP listeners
// itself (the default VRF's at start, a VRF's when its first neighbor is
// added); each goes through the listen hook (plugin.Host.OnListen, GoBGP
// patch 0035) before bind(2) and listen(2), which puts on it every
// listener key the desired state wants: the same TCP-MD5 keys (scoped to
// their interface or VRF) and TCP-AO MKTs the key stage puts on the
// listeners (pass_keys.go). No SYN is accepted unsigned in between. The
// table is published by the pass (and by Prepare, before GoBGP starts)
// and read by the hook under listenMu alone, as the dial table is
// (dial.go): the hook runs on the goroutine that starts an instance, which
// may be a pass's own. The reconciler stays the one writer of the keys
// afterwards: its first pass sees them in place.

// listenTable is the listen hook's table: written by publishListeners,
// read by listenKeys, under listenMu alone.
type listenTable struct {
	listenMu sync.Mutex
	lmd5     []md5auth.Key   // own copies of the secrets
	lao      []tcpsock.AOSet // own copies
}

// listenerWants is every key the key stage puts on the listeners for d
// (pure; the cases of planPeerKeys that install): each keyed peer's, but
// not an interface peer's that is not learnt yet, one whose scope or
// TCP-AO algorithm the kernel refuses, one sharing another's listener key,
// or one whose key is not usable now.
func listenerWants(d Desired) ([]md5auth.Key, []tcpsock.AOSet) {
	var md5 []md5auth.Key
	var ao []tcpsock.AOSet
	for _, id := range d.IDs() {
		w := d.Peers[id]
		switch {
		case w.Unresolved(), w.SharesListener != "", !w.Key.Keyed(), !w.Key.Usable():
		case w.HeldDown && (errors.Is(w.Err, ErrScope) || errors.Is(w.Err, tcpsock.ErrAOAlgorithm)):
		case w.Key.Mech == MechTCPAO:
			ao = append(ao, cloneAOSet(w.Key.AO))
		case w.Key.Mech == MechMD5:
			md5 = append(md5, mdKey(w.Cfg, w.IfIndex, append(keys.Secret(nil), w.Key.MD5...)))
		}
	}
	return md5, ao
}

// publishListeners makes d's listener keys the ones new listeners get,
// and wipes the secrets of the table it replaces.
func (t *listenTable) publishListeners(d Desired) {
	md5, ao := listenerWants(d)
	t.listenMu.Lock()
	oldMD5, oldAO := t.lmd5, t.lao
	t.lmd5, t.lao = md5, ao
	t.listenMu.Unlock()
	for _, k := range oldMD5 {
		k.Secret.Wipe()
	}
	for _, s := range oldAO {
		wipeAOSet(s)
	}
}

// listenKeys is the listen hook (plugin.Host.OnListen): it puts the
// published listener keys on a socket of vrf's instance about to listen on
// local. A socket that cannot take keys (multipath TCP) aborts the
// listener; a key the kernel refuses holds its peer down (the key stage)
// and the listener opens with the others: fail closed either way.
func (m *Manager) listenKeys(vrf string, local netip.AddrPort, c syscall.RawConn) error {
	m.listenMu.Lock()
	defer m.listenMu.Unlock()
	if len(m.lmd5) == 0 && len(m.lao) == 0 {
		return nil
	}
	err := m.socks.ListenKeys(c, local, m.lmd5, m.lao)
	switch {
	case err != nil && errors.Is(err, tcpsock.ErrListenKey):
		// Keys the kernel refused (its option memory, net.core.optmem_max,
		// runs out near a thousand keys on one socket): their peers are
		// held down by the pass's key stage, as a key refused on a
		// listening socket always was, and GoBGP has no neighbor before
		// that pass: a connection from such a peer is closed, never a
		// session. The other peers' keys are on the socket.
		m.log.WithFields(logrus.Fields{"listener": local.String(), "vrf": vrf}).WithError(err).Warn("listener keys refused before listen: their peers are held down (fail closed); the listener opens with the others")
	case err != nil:
		m.log.WithFields(logrus.Fields{"listener": local.String(), "vrf": vrf}).WithError(err).Error("listener keys not set before listen: the listener is not opened (fail closed)")
		return fmt.Errorf("peers: keys on listener %s in %s: %w", local, vrfName(vrf), err)
	}
	m.log.WithFields(logrus.Fields{"listener": local.String(), "vrf": vrf, "md5_keys": len(m.lmd5), "ao_sets": len(m.lao)}).Debug("listener keyed before listen")
	return nil
}

// Prepare implements plugin.Preparer: before GoBGP starts, it sets the
// listen hook and publishes the listener keys of the config's desired
// state (the kernel's TCP-AO algorithms probed, TCP-MD5 and TCP-AO
// checked, the interfaces and VRFs observed, as a pass does), so that the
// default VRF's listeners carry every key before they listen.
func (m *Manager) Prepare(_ context.Context, h *plugin.Host) error {
	h.OnListen(m.listenKeys)
	algs := m.probeAlgorithms()
	m.mu.Lock()
	cfg := m.cfg
	m.mu.Unlock()
	links, vrfs := observeScopes(m.scopes, m.adv, cfg)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.recordAlgorithms(algs)
	m.preflight(m.cfg)
	if m.cfg == cfg {
		m.links, m.vrfs = m.learn(links), vrfs
	}
	m.publishListeners(ComputeDesired(m.inputs()))
	return nil
}
