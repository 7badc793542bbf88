package peers

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/keys"
	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/tcpsock"
)

// Dials. GoBGP holds no password, so every socket it dials is keyed by the
// reconciler's dial hook (dialKey, apply.go) before it connects, with what
// the last pass decided for the neighbor (publishDials). The table is
// swapped whole under dialMu, never under m.mu: GoBGP's connect goroutine
// must not wait for a pass that may itself be waiting for GoBGP.

// PeerIdleHold is how long after GoBGP (Idle) refused a peer's connection
// our own dials to that peer are deferred: GoBGP's idle hold after a
// session ends (5 s, on the peer's side too when it is GoBGP) and the 1-2 s
// before its first dial. A SYN of ours in that time would reach a peer
// that refuses it and send our GoBGP into its idle hold in turn: two
// GoBGPs that both dial can stay out of phase that way for minutes, each
// dialing while the other is Idle. Deferred, our dial waits (awaitDial)
// while our GoBGP stays Active and accepts the peer's next dial, which
// ends the wait; if none comes, our dial goes out when the hold is over.
const PeerIdleHold = 7 * time.Second

// restartDialDefer is how long our dials to a neighbor restarted after a
// key change (restartAfterKeyChange) wait for the peer's: the peer ended
// the session and dials again (FRR about 2 s later), while the new
// neighbor's first dial comes 1-2 s after it is added. Both at once are a
// collision GoBGP resolves badly (in OpenSent it closes the connection it
// accepted, the peer then closes ours: 10 s lost). A peer that does not
// dial by then is dialed by ours, which waited (awaitDial).
const restartDialDefer = 3 * time.Second

// A deferred dial waits the deferral out inside the hook (awaitDial),
// instead of being refused: a refused dial costs GoBGP's connect loop a
// whole connect-retry tick (10-20 s), so a peer that did not dial in the
// deferral waited that long for ours. dialMargin is the least of the dial's
// timeout (GoBGP's: connect-retry - 1 s) the wait leaves for connecting;
// a deferral that does not fit refuses the dial as before. dialPoll bounds
// each sleep: the wait re-reads the table, so a pass that holds the peer
// down, or another refusal of the peer's dial, is seen within it.
const (
	dialMargin = time.Second
	dialPoll   = 250 * time.Millisecond
)

// errDialDeferred marks a dial deferred while the peer is expected to dial.
var errDialDeferred = errors.New("dial deferred: waiting for the peer's own dial (it is in its idle hold, or ended the session around a key change)")

// ErrDialRefused marks a dial the reconciler did not let connect.
var ErrDialRefused = errors.New("dial refused")

// dialTable is the dial table: written by the pass (publishDials), read
// by the dial hook (dialKey), under dialMu alone.
type dialTable struct {
	dialMu  sync.Mutex
	dials   map[neighbor]dialWant // by the dialing instance's VRF and the address
	dialErr map[neighbor]dialFailure
	// waitPeer: until when our dials to a neighbor wait for the peer's
	// own dial: GoBGP, Idle, refused a connection the peer dialed
	// (IdleRefused, for PeerIdleHold), or the pass restarted the neighbor
	// after the peer ended its session (restartDialDefer).
	waitPeer map[neighbor]time.Time
}

// dialWant is what a dial to one static peer's address must carry.
type dialWant struct {
	id   string
	mech Mechanism
	md5  md5auth.Key   // own copy of the secret (mech == MechMD5)
	ao   tcpsock.AOSet // own copies (mech == MechTCPAO)
	// refuse: the dial must not connect (held down), and why.
	refuse error
}

// dialFailure is the last refused dial of a peer (for /status).
type dialFailure struct {
	err error
	at  time.Time
}

// dialWants computes the dial table from the desired state (pure): every
// static peer, with its desired key, or refused while held down; by its
// VRF and address, so that each VRF's instance dials with its own peer's
// key.
func dialWants(d Desired) map[neighbor]dialWant {
	out := make(map[neighbor]dialWant, len(d.Peers))
	for id, w := range d.Peers {
		if w.Cfg.IsDynamic() || w.Unresolved() {
			continue // GoBGP never dials a range's addresses, nor an interface peer's not learnt yet
		}
		dw := dialWant{id: id, mech: w.Key.Mech}
		switch {
		case w.HeldDown || (w.Key.Keyed() && !w.Key.Usable()):
			dw.refuse = w.Err
			if dw.refuse == nil {
				dw.refuse = ErrHeldDown
			}
		case w.Key.Mech == MechMD5:
			dw.md5 = mdKey(w.Cfg, w.IfIndex, append(keys.Secret(nil), w.Key.MD5...))
		case w.Key.Mech == MechTCPAO:
			dw.ao = cloneAOSet(w.Key.AO)
		}
		out[nbrOf(w.Cfg)] = dw
	}
	return out
}

// publishDials makes the pass's decision the one dials use (the pass, m.mu
// held), and wipes the secrets of the table it replaces.
func (p *pass) publishDials() {
	m := p.m
	next := dialWants(p.d)
	m.dialMu.Lock()
	old := m.dials
	m.dials = next
	for a := range m.dialErr {
		if _, ok := next[a]; !ok {
			delete(m.dialErr, a)
		}
	}
	m.dialMu.Unlock()
	wipeDials(old)
}

func wipeDials(t map[neighbor]dialWant) {
	for _, d := range t {
		d.md5.Secret.Wipe()
		wipeAOSet(d.ao)
	}
}

// dialNoted records a dial's outcome (dialMu held): a failure is kept for
// /status and logged once per distinct reason; a success clears it.
func (m *Manager) dialNoted(nb neighbor, id string, err error) {
	prev, had := m.dialErr[nb]
	if err == nil {
		if had {
			delete(m.dialErr, nb)
			m.log.WithField("peer", id).Info("dial: key set; connecting")
		}
		return
	}
	m.dialErr[nb] = dialFailure{err: err, at: m.now()}
	if !had || prev.err.Error() != err.Error() {
		m.log.WithField("peer", nb.String()).WithError(err).Warn("dial refused: no SYN sent")
	} else {
		m.log.WithFields(logrus.Fields{"peer": nb.String()}).WithError(err).Debug("dial refused again")
	}
}

// IdleRefused is told (plugin.Host.OnIdleRefusal) that GoBGP, Idle,
// refused a connection addr dialed. It only records the time (the dial hook
// reads it); it never blocks.
func (m *Manager) IdleRefused(vrf string, addr netip.Addr) {
	nb := nbr(vrf, addr)
	m.waitForPeer(nb, PeerIdleHold)
	m.log.WithField("peer", nb.String()).Info("GoBGP, Idle, refused the peer's connection: our dials to it wait for its own")
}

// waitForPeer defers our dials to neighbor for d (or until an earlier
// deferral ends, whichever is later).
func (m *Manager) waitForPeer(neighbor neighbor, d time.Duration) {
	m.dialMu.Lock()
	defer m.dialMu.Unlock()
	if until := m.now().Add(d); until.After(m.waitPeer[neighbor]) {
		m.waitPeer[neighbor] = until
	}
}

// deferDial reports whether a dial to neighbor waits for the peer's own
// dial instead (dialMu held).
func (m *Manager) deferDial(neighbor neighbor) bool {
	return m.dialDeferral(neighbor) > 0
}

// dialDeferral is how much longer dials to neighbor wait for the peer's
// own dial, 0 for none (dialMu held).
func (m *Manager) dialDeferral(neighbor neighbor) time.Duration {
	until, ok := m.waitPeer[neighbor]
	if !ok {
		return 0
	}
	left := until.Sub(m.now())
	if left <= 0 {
		delete(m.waitPeer, neighbor)
		return 0
	}
	return left
}

// awaitDial waits, on GoBGP's connect goroutine, until a dial to neighbor
// is no longer deferred for the peer's own dial. It returns nil when the
// dial may go on (dialKey then decides its key, or refuses it), and
// errDialDeferred when the dial is not to be made: ctx ended (GoBGP's
// connect loop stopped: the peer's dial arrived and the FSM left Active,
// or the neighbor was deleted), or the deferral does not fit in the dial's
// timeout. It never holds dialMu while it sleeps.
func (m *Manager) awaitDial(ctx context.Context, neighbor neighbor) error {
	var waited time.Duration
	for {
		m.dialMu.Lock()
		d, ok := m.dials[neighbor]
		left := time.Duration(0)
		if ok && d.refuse == nil {
			left = m.dialDeferral(neighbor)
		}
		m.dialMu.Unlock()
		if left == 0 {
			if waited > 0 {
				m.log.WithFields(logrus.Fields{"peer": d.id, "waited": waited.Round(time.Millisecond).String()}).Info("dial deferral over, no dial from the peer: dialing")
			}
			return nil
		}
		if dl, has := ctx.Deadline(); has && left > time.Until(dl)-dialMargin {
			m.log.WithField("peer", d.id).Debug("dial deferred: waiting for the peer's own dial")
			return fmt.Errorf("peers: dial to peer %s: %w", d.id, errDialDeferred)
		}
		step := min(left, dialPoll)
		t := time.NewTimer(step)
		select {
		case <-ctx.Done():
			t.Stop()
			m.log.WithField("peer", d.id).Debug("dial deferral: the connect loop stopped (the peer's dial arrived, or the neighbor went)")
			return fmt.Errorf("peers: dial to peer %s: %w: %w", d.id, errDialDeferred, context.Cause(ctx))
		case <-t.C:
			waited += step
		}
	}
}

// dialError is the last dial failure of static peer nb ("" none).
func (t *dialTable) dialError(nb neighbor) string {
	t.dialMu.Lock()
	defer t.dialMu.Unlock()
	if f, ok := t.dialErr[nb]; ok {
		return f.err.Error()
	}
	return ""
}
