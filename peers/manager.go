package peers

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/keys"
	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/plugin"
	"github.com/authbgp/authbgpd/status"
)

// BGP is what the manager needs of the embedded GoBGP (*plugin.Host).
type BGP interface {
	AddPeer(ctx context.Context, p *api.Peer) error
	UpdatePeer(ctx context.Context, p *api.Peer) (bool, error)
	DeletePeer(ctx context.Context, addr string) error
	AddPeerGroup(ctx context.Context, g *api.PeerGroup) error
	DeletePeerGroup(ctx context.Context, name string) error
	AddDynamicNeighbor(ctx context.Context, d *api.DynamicNeighbor) error
	DeleteDynamicNeighbor(ctx context.Context, prefix, group string) error
	Subscribe(buf int) (<-chan plugin.PeerEvent, func())
	// ResetPeer (hard) ends a neighbor's session with a NOTIFICATION.
	ResetPeer(ctx context.Context, addr, communication string, soft bool, dir api.ResetPeerRequest_SoftResetDirection) error
	// ListPeer returns GoBGP's neighbors (passwords redacted).
	ListPeer(ctx context.Context, addr string) ([]*api.Peer, error)
	// PeersAndPasswords is ListPeer(ctx, "") with the password GoBGP holds
	// for each neighbor, from one walk (in process only; never shown
	// anywhere).
	PeersAndPasswords(ctx context.Context) ([]*api.Peer, map[netip.Addr]md5auth.Secret, error)
	// ListDynamicNeighbor returns GoBGP's dynamic-neighbor ranges.
	ListDynamicNeighbor(ctx context.Context, group string) ([]*api.DynamicNeighbor, error)
}

// Observer is told about changes that metrics track. Peer names are the
// peer's ID (address or prefix). All methods must be cheap and non-blocking.
type Observer interface {
	PeerUp(peer string, up bool)
	KeyInstalled(peer string, installed bool)
	// KeyChanged: the peer's installed key changed; keyID is the keychain
	// key id now in use (-1 for a password).
	KeyChanged(peer string, keyID int)
	PeerRemoved(peer string)
	// Session tells which connection carries the established session
	// with addr (remote is the peer's end; zero when none is established),
	// so the shadow checker can judge that connection's segments.
	Session(addr netip.Addr, remote netip.AddrPort)
}

type nopObserver struct{}

func (nopObserver) Session(netip.Addr, netip.AddrPort) {}

func (nopObserver) PeerUp(string, bool)       {}
func (nopObserver) KeyInstalled(string, bool) {}
func (nopObserver) KeyChanged(string, int)    {}
func (nopObserver) PeerRemoved(string)        {}

// ErrHeldDown marks a peer held administratively down because its key
// could not be installed.
var ErrHeldDown = errors.New("held administratively down: its TCP-MD5 key is not installed")

// peer is the manager's state for one configured peer.
type peer struct {
	cfg *config.Peer
	// secret is the key installed on the sockets (nil: none); keyID the
	// keychain key id (-1 when not from a keychain).
	secret md5auth.Secret
	keyID  int
	// installed: the key is on every listener of the family.
	installed bool
	err       error
	// heldDown: added to GoBGP administratively down (fail closed).
	heldDown bool
	// gobgpSecret is the password GoBGP holds for this static peer;
	// pending when it differs from secret (waiting for the session to
	// leave Established).
	gobgpSecret md5auth.Secret
	// pin is a keychain key id the manager decided to use ahead of the
	// schedule (the shadow checker proved the peer signs with it and
	// follow-peer-rollover is on); -1 when the schedule rules. It is
	// dropped once the schedule reaches or passes that key.
	pin int
	// obs is what the last reconciliation saw on the sockets.
	obs observation
}

// observation is the observed state of one peer's keys.
type observation struct {
	// by is how installed is known: "kernel" (the keys read back from the
	// sockets through sock_diag matched), "install" (the kernel does not
	// show keys to this process: only the install calls are known to have
	// succeeded); "" before the first reconciliation.
	by string
	// ok: every listener (and established socket) carries the key.
	ok bool
	// drift describes what differed at the last reconciliation ("" none).
	drift string
}

func (p *peer) pending() bool {
	return !p.cfg.IsDynamic() && string(p.gobgpSecret) != string(p.secret)
}

// session is what GoBGP's events told about one neighbor address.
type session struct {
	state         string
	local, remote netip.AddrPort
	since         time.Time
	adminDown     bool
	asn           uint32
	// rekeyedConn is the connection (remote end) re-keyed in place by the
	// last key change, and rxAtRekey the messages GoBGP had received on
	// it by then (see endIfStale); zero when not re-keyed.
	rekeyedConn netip.AddrPort
	rxAtRekey   uint64
}

// changed records that s entered another state at t: a new session (or
// none), so no longer the one a key change re-keyed.
func (s *session) changed(t time.Time) { s.since, s.rekeyedConn = t, netip.AddrPort{} }

// Manager applies configured peers to GoBGP and the kernel. It implements
// plugin.Plugin.
type Manager struct {
	log     *logrus.Entry
	socks   Sockets
	obs     Observer
	now     func() time.Time
	mu      sync.Mutex
	bgp     BGP
	cfg     *config.Config
	port    uint16 // 0: GoBGP does not listen
	peers   map[string]*peer
	sess    map[netip.Addr]*session
	preErr  error
	timer   *time.Timer
	cancel  func()
	done    chan struct{}
	started bool

	every   time.Duration   // reconciliation period
	kick    chan struct{}   // asks the reconciler for a pass now (buffered 1)
	refused chan netip.Addr // connections GoBGP turned away while Established
	// fullKick: a kick since the last full pass asked for GoBGP's view
	// too (kickReconcile), not only the sockets (kickSessions).
	fullKick atomic.Bool
	recDone  chan struct{}
	stop     chan struct{}
	passes   uint64 // reconciliation passes done (tests)
	gen      uint64 // bumped by every change of GoBGP or the keys

	lastStatus atomic.Pointer[[]status.Peer]
	dropped    func() uint64
}

// Options configures a Manager.
type Options struct {
	Config   *config.Config
	Logger   *logrus.Logger
	Sockets  Sockets  // default SystemSockets
	Observer Observer // default none
	Now      func() time.Time
	// ReconcileEvery is how often desired state is compared with what
	// GoBGP and the sockets really hold (default 2 s); events also trigger
	// a pass.
	ReconcileEvery time.Duration
}

// New returns a manager for cfg's peers; they are applied when the plugin
// host starts it.
func New(o Options) *Manager {
	m := &Manager{
		socks:   o.Sockets,
		obs:     o.Observer,
		now:     o.Now,
		cfg:     o.Config,
		peers:   map[string]*peer{},
		sess:    map[netip.Addr]*session{},
		every:   o.ReconcileEvery,
		kick:    make(chan struct{}, 1),
		refused: make(chan netip.Addr, 64),
	}
	if m.every <= 0 {
		m.every = 2 * time.Second
	}
	if m.socks == nil {
		m.socks = SystemSockets{}
	}
	if m.obs == nil {
		m.obs = nopObserver{}
	}
	if m.now == nil {
		m.now = time.Now
	}
	l := o.Logger
	if l == nil {
		l = logrus.StandardLogger()
	}
	m.log = l.WithField("component", "peers")
	return m
}

// Name implements plugin.Plugin.
func (m *Manager) Name() string { return "peers" }

// Start implements plugin.Plugin: it applies every configured peer.
func (m *Manager) Start(ctx context.Context, h *plugin.Host) error {
	h.OnConnectionRefused(m.ConnectionRefused)
	return m.start(ctx, h)
}

func (m *Manager) start(ctx context.Context, b BGP) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.started {
		return errors.New("peers: started twice")
	}
	m.started = true
	m.bgp = b
	if p := m.cfg.Global.ListenPort; p > 0 {
		m.port = uint16(p)
	}
	if m.needsMD5(m.cfg) {
		if err := m.socks.Preflight(); err != nil {
			m.preErr = err
			m.log.WithError(err).Error("TCP-MD5 is unusable on this system: every keyed peer is held down")
		}
	}
	ch, cancel := b.Subscribe(1024)
	m.cancel = cancel
	m.done = make(chan struct{})
	if d, ok := b.(interface{ DroppedEvents() uint64 }); ok {
		m.dropped = d.DroppedEvents
	}
	go m.watch(ch)
	var errs []error
	for i := range m.cfg.Peers {
		if err := m.addPeer(ctx, &m.cfg.Peers[i], nil); err != nil {
			errs = append(errs, err)
		}
	}
	m.armKeychainTimer()
	m.stop = make(chan struct{})
	m.recDone = make(chan struct{})
	go m.reconcileLoop(m.stop, m.recDone)
	m.kickReconcile()
	// Per-peer key failures are reported in status and logs and the peer is
	// held down; only GoBGP refusing a peer is a start failure.
	return errors.Join(errs...)
}

// Stop implements plugin.Plugin. GoBGP's stop (after this) sends the
// NOTIFICATIONs and closes the listeners, taking their keys with them.
func (m *Manager) Stop(ctx context.Context) error {
	m.mu.Lock()
	if m.timer != nil {
		m.timer.Stop()
		m.timer = nil
	}
	cancel, done := m.cancel, m.done
	m.cancel = nil
	stop, recDone := m.stop, m.recDone
	m.stop = nil
	m.mu.Unlock()
	if stop != nil {
		close(stop)
		<-recDone
	}
	if cancel != nil {
		cancel()
		<-done
	}
	return nil
}

func (m *Manager) needsMD5(c *config.Config) bool {
	for i := range c.Peers {
		if c.Peers[i].Auth().Mode == config.AuthMD5 {
			return true
		}
	}
	return false
}

// key is the md5auth key of p for secret.
func key(p *config.Peer, secret md5auth.Secret) md5auth.Key {
	if p.IsDynamic() {
		return md5auth.PrefixKey(p.Prefix, secret)
	}
	return md5auth.AddrKey(p.Address, secret)
}

// installListeners puts p's key on the listeners.
func (m *Manager) installListeners(p *config.Peer, secret md5auth.Secret) error {
	if m.preErr != nil {
		return m.preErr
	}
	if m.port == 0 {
		return nil // GoBGP does not listen: only dialed sockets, keyed by GoBGP
	}
	if _, err := m.socks.SetListenerKey(m.port, key(p, secret)); err != nil {
		return fmt.Errorf("peers: peer %s (%s:%d): %w", p.ID(), m.cfg.File, p.Line, err)
	}
	return nil
}

// desired resolves p's key at now from cfg's schedule alone. keyed is false
// for unauthenticated peers; err is set when a keyed peer has no usable
// key (keychain without a valid key).
func (m *Manager) desired(cfg *config.Config, p *config.Peer, now time.Time) (secret md5auth.Secret, keyID int, keyed bool, err error) {
	if p.Auth().Mode != config.AuthMD5 {
		return nil, -1, false, nil
	}
	s, id, ok := cfg.PeerKey(p, now)
	if !ok {
		return nil, -1, true, fmt.Errorf("peers: peer %s (%s:%d): keychain %q has no key valid now", p.ID(), cfg.File, p.Line, p.Keychain)
	}
	return s, id, true, nil
}

// decide is the one answer to "which key does this peer use now": the
// schedule of cfg, unless the manager decided to move ahead of it (st.pin,
// a newer key of the same keychain the peer was proven to use). A pin the
// schedule has caught up with, or whose key left the keychain, is dropped
// (keys.Schedule.Ahead).
func (m *Manager) decide(cfg *config.Config, cp *config.Peer, st *peer) (secret md5auth.Secret, keyID int, keyed bool, err error) {
	now := m.now()
	secret, keyID, keyed, err = m.desired(cfg, cp, now)
	if st == nil || st.pin < 0 {
		return secret, keyID, keyed, err
	}
	kc := cfg.Keychain(cp.Keychain)
	var sched keys.Schedule
	if keyed && kc != nil {
		sched = kc.Schedule()
	}
	if !sched.Ahead(now, st.pin) {
		st.pin = -1 // no keychain any more, the pinned key left it, or the schedule reached (or passed) it
		return secret, keyID, keyed, err
	}
	return kc.Keys[sched.Active(now, st.pin)].Secret, st.pin, true, nil
}

// addPeer installs keys and adds p to GoBGP. Key failures hold the peer
// down (static) or keep the range out of GoBGP (dynamic); they are not
// returned, only recorded. GoBGP errors are returned.
//
// prev, when set, is the manager's state for a peer being added back (a
// released range): its decisions (pin) carry over.
func (m *Manager) addPeer(ctx context.Context, cp *config.Peer, prev *peer) error {
	m.gen++
	st := &peer{cfg: cp, keyID: -1, pin: -1}
	if prev != nil {
		st.pin = prev.pin
	}
	m.peers[cp.ID()] = st
	secret, keyID, keyed, err := m.decide(m.cfg, cp, st)
	if keyed {
		st.secret, st.keyID = secret, keyID
		if err == nil {
			err = m.installListeners(cp, secret)
		}
		if err != nil {
			st.err = err
			st.heldDown = true
			m.log.WithError(err).WithField("peer", cp.ID()).Error("TCP-MD5 key not installed: peer held down (fail closed)")
		} else {
			st.installed = true
		}
		m.obs.KeyInstalled(cp.ID(), st.installed)
	}
	if cp.IsDynamic() {
		if st.heldDown {
			return nil
		}
		g, err := apiPeerGroup(cp)
		if err != nil {
			return err
		}
		if err := m.bgp.AddPeerGroup(ctx, g); err != nil {
			return fmt.Errorf("peers: dynamic range %s: %w", cp.ID(), err)
		}
		if err := m.bgp.AddDynamicNeighbor(ctx, &api.DynamicNeighbor{Prefix: cp.Prefix.String(), PeerGroup: g.Conf.PeerGroupName}); err != nil {
			_ = m.bgp.DeletePeerGroup(ctx, g.Conf.PeerGroupName)
			return fmt.Errorf("peers: dynamic range %s: %w", cp.ID(), err)
		}
		m.log.WithFields(logrus.Fields{"prefix": cp.ID(), "asn": cp.ASN, "md5": keyed}).Info("dynamic neighbor range added")
		return nil
	}
	ap, err := apiPeer(cp, string(st.secret), st.heldDown)
	if err != nil {
		return err
	}
	if err := m.bgp.AddPeer(ctx, ap); err != nil {
		return fmt.Errorf("peers: peer %s: %w", cp.ID(), err)
	}
	st.gobgpSecret = st.secret
	m.log.WithFields(logrus.Fields{"peer": cp.ID(), "asn": cp.ASN, "md5": keyed, "held_down": st.heldDown}).Info("peer added")
	return nil
}

// removePeer deletes p from GoBGP and its keys from the listeners.
func (m *Manager) removePeer(ctx context.Context, st *peer) error {
	m.gen++
	cp := st.cfg
	var errs []error
	if cp.IsDynamic() {
		if !st.heldDown {
			name := groupName(cp.Prefix)
			if err := m.bgp.DeleteDynamicNeighbor(ctx, cp.Prefix.String(), name); err != nil {
				errs = append(errs, err)
			}
			m.dropRangeSessions(ctx, cp)
			if err := m.bgp.DeletePeerGroup(ctx, name); err != nil {
				errs = append(errs, err)
			}
		}
	} else if err := m.bgp.DeletePeer(ctx, cp.Address.String()); err != nil {
		errs = append(errs, err)
	}
	if st.secret != nil && m.port != 0 && m.preErr == nil {
		if err := m.socks.DeleteListenerKey(m.port, key(cp, st.secret)); err != nil {
			errs = append(errs, err)
		}
	}
	delete(m.peers, cp.ID())
	m.obs.PeerRemoved(cp.ID())
	m.log.WithField("peer", cp.ID()).Info("peer removed")
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("peers: remove %s: %w", cp.ID(), err)
	}
	return nil
}

// peerLister is implemented by *plugin.Host.
type peerLister interface {
	ListPeer(ctx context.Context, addr string) ([]*api.Peer, error)
}

// dropRangeSessions deletes from GoBGP the neighbors it accepted through
// the dynamic range cp (call it after DeleteDynamicNeighbor, so that no new
// ones come, and while cp is still in m.peers). GoBGP leaves them running
// when the range goes, and refuses to delete their peer group ("neighbor X
// is in use"): a removed or held-down range would keep its sessions,
// unseen in /status, and its group, so that adding the range back fails.
func (m *Manager) dropRangeSessions(ctx context.Context, cp *config.Peer) {
	group := groupName(cp.Prefix)
	addrs := map[netip.Addr]bool{}
	for a := range m.sess {
		if cp.Prefix.Contains(a) && m.peers[a.String()] == nil && m.peerFor(a) == cp.ID() {
			addrs[a] = true
		}
	}
	if l, ok := m.bgp.(peerLister); ok {
		ps, err := l.ListPeer(ctx, "")
		if err != nil {
			m.log.WithError(err).WithField("prefix", cp.ID()).Warn("cannot list the range's sessions")
		}
		for _, p := range ps {
			if p.GetConf().GetPeerGroup() != group {
				continue
			}
			if a, err := netip.ParseAddr(p.GetConf().GetNeighborAddress()); err == nil {
				addrs[a.Unmap()] = true
			}
		}
	}
	for a := range addrs {
		if err := m.bgp.DeletePeer(ctx, a.String()); err != nil {
			m.log.WithError(err).WithField("peer", a.String()).Debug("dynamic neighbor already gone")
			continue
		}
		m.log.WithFields(logrus.Fields{"peer": a.String(), "prefix": cp.ID()}).Info("session from the range closed")
	}
}

// established returns the established sessions belonging to p.
func (m *Manager) established(p *config.Peer) []*session {
	var out []*session
	for a, s := range m.sess {
		if s.state != "established" || !s.local.IsValid() || !s.remote.IsValid() {
			continue
		}
		// The most specific configured match owns a session, as the
		// kernel picks the most specific key: a static peer inside a
		// range is not the range's.
		if m.peerFor(a) == p.ID() {
			out = append(out, s)
		}
	}
	return out
}

// changeKey switches st to secret in place: listeners, established
// sockets, then GoBGP's copy (now if no session is established, else when
// it leaves Established).
func (m *Manager) changeKey(ctx context.Context, st *peer, secret md5auth.Secret, keyID int, why string) {
	m.gen++
	cp := st.cfg
	log := m.log.WithFields(logrus.Fields{"peer": cp.ID(), "reason": why})
	if keyID >= 0 {
		log = log.WithField("key_id", keyID)
	}
	if err := m.installListeners(cp, secret); err != nil {
		st.err, st.installed = err, false
		m.obs.KeyInstalled(cp.ID(), false)
		log.WithError(err).Error("new TCP-MD5 key not installed: peer held down (fail closed)")
		m.holdDown(ctx, st)
		return
	}
	st.secret, st.keyID, st.err, st.installed = secret, keyID, nil, true
	m.obs.KeyInstalled(cp.ID(), true)
	m.obs.KeyChanged(cp.ID(), keyID)
	rekeyed := 0
	for _, s := range m.established(cp) {
		if err := m.socks.SetConnKey(s.local, s.remote, md5auth.AddrKey(s.remote.Addr(), secret)); err != nil {
			log.WithError(err).Warn("could not re-key the established session in place; it will recover on reconnect")
			continue
		}
		m.noteRekeyed(ctx, s)
		rekeyed++
	}
	log.WithField("sessions", rekeyed).Info("TCP-MD5 key changed in place")
	if st.heldDown {
		m.release(ctx, st)
		return
	}
	if !cp.IsDynamic() && len(m.established(cp)) == 0 {
		m.syncGoBGP(ctx, st)
	}
}

// readd replaces a static peer in GoBGP with its current password and
// admin state. It deletes and re-adds the neighbor rather than calling
// UpdatePeer: GoBGP's UpdatePeer (like a DeletePeer of a neighbor it holds a
// password for) first deletes the listener key and then re-installs it,
// leaving a moment in which an unsigned SYN from the peer would be accepted
// and handed to the re-added neighbor. A DeletePeer from the API carries no
// password, so GoBGP leaves our listener key alone, and while the neighbor
// is gone GoBGP closes any connection from its address.
func (m *Manager) readd(ctx context.Context, st *peer, adminDown bool) error {
	m.gen++
	ap, err := apiPeer(st.cfg, string(st.secret), adminDown)
	if err != nil {
		return err
	}
	if err := m.bgp.DeletePeer(ctx, st.cfg.Address.String()); err != nil {
		return err
	}
	if err := m.bgp.AddPeer(ctx, ap); err != nil {
		return err
	}
	return nil
}

// syncGoBGP hands GoBGP the current password (by re-adding the neighbor,
// which is fine when no session is up).
func (m *Manager) syncGoBGP(ctx context.Context, st *peer) {
	if !st.pending() {
		return
	}
	if err := m.readd(ctx, st, st.heldDown); err != nil {
		m.log.WithError(err).WithField("peer", st.cfg.ID()).Error("cannot update GoBGP's password")
		return
	}
	st.gobgpSecret = st.secret
	// GoBGP re-added the neighbor and re-installed its listener key; put
	// ours back in case its attempt failed.
	if err := m.installListeners(st.cfg, st.secret); err != nil {
		st.err, st.installed = err, false
		m.holdDown(ctx, st)
	}
	m.log.WithField("peer", st.cfg.ID()).Debug("GoBGP's copy of the password brought in line")
}

// holdDown puts a static peer administratively down (its key could not be
// installed); a dynamic range is removed from GoBGP.
func (m *Manager) holdDown(ctx context.Context, st *peer) {
	m.gen++
	if st.heldDown {
		return
	}
	st.heldDown = true
	if st.cfg.IsDynamic() {
		m.dropRange(ctx, st)
		return
	}
	if err := m.readd(ctx, st, true); err != nil {
		m.log.WithError(err).WithField("peer", st.cfg.ID()).Error("cannot hold peer down")
		return
	}
	st.gobgpSecret = st.secret
}

// release undoes holdDown once the key is installed.
func (m *Manager) release(ctx context.Context, st *peer) {
	m.gen++
	st.heldDown = false
	if st.cfg.IsDynamic() {
		delete(m.peers, st.cfg.ID())
		if err := m.addPeer(ctx, st.cfg, st); err != nil {
			m.log.WithError(err).WithField("peer", st.cfg.ID()).Error("cannot restore dynamic range")
		}
		return
	}
	if err := m.readd(ctx, st, false); err != nil {
		st.heldDown = true
		m.log.WithError(err).WithField("peer", st.cfg.ID()).Error("cannot release peer")
		return
	}
	st.gobgpSecret = st.secret
	m.log.WithField("peer", st.cfg.ID()).Info("key installed: peer no longer held down")
}

// watch follows GoBGP's peer events.
func (m *Manager) watch(ch <-chan plugin.PeerEvent) {
	defer close(m.done)
	for ev := range ch {
		m.event(ev)
	}
}

func (m *Manager) event(ev plugin.PeerEvent) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ev.Deleted {
		delete(m.sess, ev.Peer)
		return
	}
	s := m.sess[ev.Peer]
	if s == nil {
		s = &session{}
		m.sess[ev.Peer] = s
	}
	was := s.state
	if was != ev.State {
		s.changed(ev.Time)
	}
	s.state, s.adminDown, s.asn = ev.State, ev.AdminDown, ev.PeerASN
	if ev.Local.IsValid() {
		s.local, s.remote = ev.Local, ev.Remote
	}
	// GoBGP deletes a dynamic neighbor (an address that is not a static
	// peer) when its session leaves Established (no graceful restart is
	// configured) and reports only this state change: forget it too, or
	// /status would list it for ever.
	if was == "established" && ev.State != "established" && m.peers[ev.Peer.String()] == nil {
		delete(m.sess, ev.Peer)
	}
	id := m.peerFor(ev.Peer)
	if id == "" {
		return
	}
	if was != ev.State {
		m.kickSessions()
		if was == "established" || ev.State == "established" {
			m.log.WithFields(logrus.Fields{"peer": ev.Peer, "state": ev.State}).Info("BGP session state")
		}
	}
	m.tellSession(id, ev.Peer, was, ev.State, s.remote)
	if was == "established" && ev.State != "established" {
		if st := m.peers[id]; st != nil && st.pending() {
			go m.syncLater(id)
		}
	}
}

// tellSession tells the observers what a state change of the session with
// a (of configured peer id) means: up or down, and which connection now
// carries the established session (the shadow checker judges it).
func (m *Manager) tellSession(id string, a netip.Addr, was, state string, remote netip.AddrPort) {
	up, wasUp := state == "established", was == "established"
	switch {
	case up && remote.IsValid():
		m.obs.Session(a, remote)
	case wasUp && !up:
		m.obs.Session(a, netip.AddrPort{})
	}
	if id != "" && up != wasUp {
		m.obs.PeerUp(id, up)
	}
}

// syncLater brings GoBGP's password in line outside the event path.
func (m *Manager) syncLater(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.peers[id]
	if st == nil || !st.pending() || len(m.established(st.cfg)) > 0 {
		return
	}
	m.syncGoBGP(context.Background(), st)
}

// peerFor maps a neighbor address to the configured peer's ID (exact
// address first, then the longest dynamic range containing it).
func (m *Manager) peerFor(a netip.Addr) string {
	if st := m.peers[a.String()]; st != nil {
		return a.String()
	}
	best, bits := "", -1
	for id, st := range m.peers {
		if st.cfg.IsDynamic() && st.cfg.Prefix.Contains(a) && st.cfg.Prefix.Bits() > bits {
			best, bits = id, st.cfg.Prefix.Bits()
		}
	}
	return best
}

// armKeychainTimer schedules the next keychain switch of any peer.
func (m *Manager) armKeychainTimer() {
	if m.timer != nil {
		m.timer.Stop()
		m.timer = nil
	}
	now := m.now()
	var next time.Time
	for _, st := range m.peers {
		if st.cfg.Keychain == "" {
			continue
		}
		kc := m.cfg.Keychain(st.cfg.Keychain)
		if kc == nil {
			continue
		}
		if t, ok := kc.NextSwitch(now); ok && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	if next.IsZero() {
		return
	}
	d := next.Sub(now)
	if d < 0 {
		d = 0
	}
	m.timer = time.AfterFunc(d, m.keychainTick)
	m.log.WithField("at", next.UTC().Format(time.RFC3339)).Debug("next keychain switch scheduled")
}

// keychainTick installs the keychain keys that became active.
func (m *Manager) keychainTick() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.started || m.cancel == nil {
		return
	}
	ctx := context.Background()
	ids := make([]string, 0, len(m.peers))
	for id := range m.peers {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		st := m.peers[id]
		if st.cfg.Keychain == "" {
			continue
		}
		secret, keyID, _, err := m.decide(m.cfg, st.cfg, st)
		if err != nil || (keyID == st.keyID && string(secret) == string(st.secret) && st.installed) {
			continue
		}
		m.changeKey(ctx, st, secret, keyID, "keychain switch")
	}
	m.armKeychainTimer()
}

// KeyIDs returns the keychain key id installed for every keychain peer.
func (m *Manager) KeyIDs() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]int{}
	for id, st := range m.peers {
		if st.cfg.Keychain != "" && st.keyID >= 0 {
			out[id] = st.keyID
		}
	}
	return out
}

// SetPeerKeyID is the shadow checker's proposal (follow-peer-rollover):
// the peer behind peerID is proven to sign with key id of its keychain.
// The manager accepts it only for a key newer than the one it uses now,
// records the decision (it outlives reloads, releases and keychain ticks
// until the schedule catches up) and switches in place.
func (m *Manager) SetPeerKeyID(peerID string, id int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.peers[peerID]
	if st == nil || st.cfg.Keychain == "" {
		return fmt.Errorf("peers: %s is not a keychain peer", peerID)
	}
	kc := m.cfg.Keychain(st.cfg.Keychain)
	if kc == nil || id < 0 || id > 255 || kc.Key(uint8(id)) == nil {
		return fmt.Errorf("peers: keychain %q has no key %d", st.cfg.Keychain, id)
	}
	if st.keyID == id && st.installed {
		return nil
	}
	if st.keyID >= 0 && !kc.Schedule().Newer(id, st.keyID) {
		return fmt.Errorf("peers: %s: key %d is not newer than key %d in use: %w", peerID, id, st.keyID, ErrNotNewer)
	}
	st.pin = id
	secret, keyID, _, err := m.decide(m.cfg, st.cfg, st)
	if err != nil {
		return err
	}
	m.changeKey(context.Background(), st, secret, keyID, "peer proven on a newer key")
	m.kickReconcile()
	return nil
}

// ErrNotNewer refuses a proposed key that is not newer than the key in use.
var ErrNotNewer = errors.New("not newer")
