package peers

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/keys"
	"github.com/authbgp/authbgpd/metrics"
	"github.com/authbgp/authbgpd/peerindex"
	"github.com/authbgp/authbgpd/plugin"
	"github.com/authbgp/authbgpd/tcpsock"
)

// BGP is what the manager needs of the embedded GoBGP (*plugin.Host).
type BGP interface {
	// AddPeerIn adds a neighbor to the GoBGP instance of its VRF ("" the
	// default VRF's): each VRF has a RIB of its own (plugin, vrfs.go).
	// The calls that name a neighbor name its VRF too: one address may be
	// a neighbor in two VRFs.
	AddPeerIn(ctx context.Context, vrf string, p *api.Peer) error
	DeletePeerIn(ctx context.Context, vrf, addr string) error
	AddPeerGroupIn(ctx context.Context, vrf string, g *api.PeerGroup) error
	DeletePeerGroup(ctx context.Context, name string) error
	AddDynamicNeighbor(ctx context.Context, d *api.DynamicNeighbor) error
	DeleteDynamicNeighbor(ctx context.Context, prefix, group string) error
	Subscribe(buf int) (<-chan plugin.PeerEvent, func())
	// ResetPeerIn (hard) ends a neighbor's session with a NOTIFICATION.
	ResetPeerIn(ctx context.Context, vrf, addr, communication string, soft bool, dir api.ResetPeerRequest_SoftResetDirection) error
	// UpdatePeerIn changes a neighbor in place: only its prefix limit
	// (apply.go's updateLimits; anything else re-adds it).
	UpdatePeerIn(ctx context.Context, vrf string, p *api.Peer) (needsSoftResetIn bool, err error)
	// ListPeer returns GoBGP's neighbors (passwords redacted), each with
	// its VRF (plugin.VRFOf); ListPeerIn one VRF's neighbor.
	ListPeer(ctx context.Context, addr string) ([]*api.Peer, error)
	ListPeerIn(ctx context.Context, vrf, addr string) ([]*api.Peer, error)
	// PeersAndPasswords is ListPeer(ctx, "") with the password GoBGP holds
	// for each neighbor (passwords[i] is peers[i]'s), from one walk (in
	// process only; never shown anywhere).
	PeersAndPasswords(ctx context.Context) (peers []*api.Peer, passwords []keys.Secret, err error)
	// ListDynamicNeighbor returns GoBGP's dynamic-neighbor ranges.
	ListDynamicNeighbor(ctx context.Context, group string) ([]*api.DynamicNeighbor, error)
	// DroppedEvents is how many peer events Subscribe's channel lost
	// (each makes the next pass a full one).
	DroppedEvents() uint64
	// What /status reads of GoBGP's sessions.
	sessionSource
}

// Observer is told about changes that metrics and the shadow checker
// track. Peer names are the peer's ID (address or prefix). All methods must
// be cheap and non-blocking; only the reconciler calls them.
type Observer interface {
	KeyInstalled(peer string, installed bool)
	// KeyChanged: the peer's installed key changed; keyID is the keychain
	// key id now in use (-1 for a password).
	KeyChanged(peer string, keyID int)
	PeerRemoved(peer string)
	// Published: the reconciler published s (Manager.Snapshot), what it
	// now knows of each peer's key in use and each session, because it
	// differs from the last one (after the pass installs keys, and at its
	// end). The shadow checker follows it.
	Published(s *peerindex.Snapshot)
	// AOKernel tells, every pass, how much the kernel's TCP-AO counters of
	// a TCP-AO peer's connections grew since the last pass.
	AOKernel(peer string, d metrics.AOKernelCounts)
}

type nopObserver struct{}

func (nopObserver) Published(*peerindex.Snapshot)           {}
func (nopObserver) KeyInstalled(string, bool)               {}
func (nopObserver) KeyChanged(string, int)                  {}
func (nopObserver) PeerRemoved(string)                      {}
func (nopObserver) AOKernel(string, metrics.AOKernelCounts) {}

// ErrHeldDown marks a peer held administratively down because its key
// could not be installed.
var ErrHeldDown = errors.New("held administratively down: its key (TCP-MD5 or TCP-AO) is not installed")

// ErrNotNewer refuses a proposed key that is not newer than the key in use.
var ErrNotNewer = errors.New("not newer")

// Manager applies configured peers to GoBGP and the kernel. It implements
// plugin.Plugin.
//
// One goroutine, the reconciler (loop), is the only code that changes
// GoBGP's peers or the keys on sockets. Everything else — Start, Reload,
// keychain switch times, the shadow checker's proposals and stale-session
// proofs, GoBGP's session events, refused connections — records its input
// under mu and asks for a pass (pass.go).
type Manager struct {
	log       *logrus.Entry
	socks     Sockets
	obs       Observer
	now       func() time.Time
	every     time.Duration // the timer's full pass
	rekeyHold time.Duration // rekeyhold.go
	idleEvery time.Duration // its cadence while steady (loop.go)
	// scopes observes interfaces and VRFs; links and vrfs are the last
	// pass's view (learnt keeps interface peers' addresses, scope.go).
	scopes ScopeObserver
	adv    Advertiser
	links  map[string]Link
	vrfs   map[string]VRF
	learnt map[string]netip.Addr
	// l3mdevSet: tcp_l3mdev_accept was found on and turned off.
	l3mdevSet bool
	// guardsSet are the link-local guards last put on the listeners;
	// guarded: there are some.
	guardsSet []tcpsock.Guard
	guarded   bool
	// restart: the daemon restarted with its forwarding state (graceful.go).
	restart restartState

	mu sync.Mutex
	// Inputs, recorded by the triggers.
	cfg  *config.Config
	pins map[string]int // accepted proposals (peer ID -> key id)
	// sessionTable: GoBGP's sessions, the sessions to end, and the
	// observers' view of them (sessions.go).
	sessionTable
	// prefixLimitHits: the sessions ended for a prefix limit
	// (prefixlimit.go), under their own mutex.
	prefixLimitHits
	// rekeyHeld: the last pass left a connection on a replaced key.
	rekeyHeld bool
	preErr    error
	aoPreErr  error
	// aoAlgs is the last probe of the kernel's TCP-AO algorithms
	// (aoalgs.go): recorded at start and by each reload's Plan, read by
	// the passes (Inputs.AOAlgorithms) and by /status without m.mu.
	aoAlgs   atomic.Pointer[tcpsock.AOAlgorithms]
	bgp      BGP
	port     uint16 // 0: GoBGP does not listen
	started  bool
	stopping bool

	// The reconciler's own state: what it applied and observed. Written
	// only by the pass (under mu, so Status and GuardAPI can read it).
	peers  map[string]*peer
	pol    policyRecord // the routing policies applied (pass_policy.go)
	held   map[string]error
	snap   atomic.Pointer[peerindex.Snapshot]   // the last published (snapshot.go)
	aoLast map[[2]netip.AddrPort]tcpsock.AOInfo // TCP-AO counters of each connection at the last pass
	passes uint64
	// passStats counts the loop's passes and their time, full and light
	// (PassStats; written by the loop, under m.mu).
	passStats metrics.ReconcilePasses
	// owners indexes the current config's peers (ownersOf).
	owners atomic.Pointer[peerindex.Index]
	// lastLook: how often the last pass walked /proc/self/fd and dumped
	// sock_diag (one each, unless an action needed a socket its look did
	// not have).
	lastLook lookCounts

	reqs     chan *passReq // passes asked for by callers who wait
	kick     chan struct{} // a light pass soon (buffered 1)
	upKick   chan struct{} // a light pass within upDelay: sessions came up (buffered 1)
	nowKick  chan struct{} // a light pass within restartKickDelay: a restart is due (buffered 1)
	refused  chan neighbor // connections GoBGP turned away while Established
	stop     chan struct{}
	loopDone chan struct{}
	cancel   func()
	done     chan struct{}

	// statusView: what /status shows without m.mu (statusview.go).
	statusView
	// dialTable: the dial hook's table, under its own lock (dial.go).
	dialTable
	// listenTable: the listen hook's table, under its own lock (listen.go).
	listenTable
	// openSentTable: the peers' dials GoBGP refused in OpenSent, under
	// its own lock (opensent.go).
	openSentTable
}

// Options configures a Manager.
type Options struct {
	Config   *config.Config
	Logger   *logrus.Logger
	Sockets  Sockets  // default tcpsock.ProcessSockets
	Observer Observer // default none
	Now      func() time.Time
	// ReconcileEvery is how often desired state is compared with what
	// GoBGP and the sockets really hold (default 2 s); every trigger also
	// asks for a pass.
	ReconcileEvery time.Duration
	// ReconcileIdleEvery is the timer's cadence while its passes find
	// nothing to do (default 5 min; see loop.go's idleCadence for the
	// configs that keep ReconcileEvery).
	ReconcileIdleEvery time.Duration
	// Scopes observes interfaces and VRF devices (default: the kernel's,
	// through ndp and netdev).
	Scopes ScopeObserver
	// Advertiser sends router advertisements on interface peers'
	// interfaces (default none).
	Advertiser Advertiser
	// Index is Config's peer index (peerindex.New), shared with the other
	// subsystems; nil: the manager makes its own.
	Index *peerindex.Index
	// Restarting reports whether the daemon restarts with its forwarding
	// state kept (fib.Reconciler.Restarting); nil: never (graceful.go).
	Restarting func() bool
}

// New returns a manager for cfg's peers; they are applied when the plugin
// host starts it.
func New(o Options) *Manager {
	m := &Manager{
		socks:     o.Sockets,
		obs:       o.Observer,
		now:       o.Now,
		cfg:       o.Config,
		every:     o.ReconcileEvery,
		idleEvery: o.ReconcileIdleEvery,
		pins:      map[string]int{},
		sessionTable: sessionTable{sess: map[neighbor]*session{}, stale: map[neighbor]staleWant{},
			badDigest: map[netip.Addr]time.Time{}},
		rekeyHold:     rekeyHold,
		peers:         map[string]*peer{},
		held:          map[string]error{},
		aoLast:        map[[2]netip.AddrPort]tcpsock.AOInfo{},
		reqs:          make(chan *passReq),
		kick:          make(chan struct{}, 1),
		upKick:        make(chan struct{}, 1),
		nowKick:       make(chan struct{}, 1),
		refused:       make(chan neighbor, 64),
		dialTable:     dialTable{dialErr: map[neighbor]dialFailure{}, waitPeer: map[neighbor]time.Time{}},
		openSentTable: openSentTable{openSent: map[neighbor]openSentRefusals{}},
		scopes:        o.Scopes,
		adv:           o.Advertiser,
		learnt:        map[string]netip.Addr{},
		restart:       restartState{ask: o.Restarting},
	}
	if m.scopes == nil {
		m.scopes = defaultScopes()
	}
	m.UseIndex(o.Index)
	if m.every <= 0 {
		m.every = 2 * time.Second
	}
	if m.idleEvery <= 0 {
		m.idleEvery = 5 * time.Minute
	}
	if m.socks == nil {
		m.socks = defaultSockets()
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
	h.OnDial(m.dialKey)
	h.OnListen(m.listenKeys) // set by Prepare already, when the Host ran it
	h.OnIdleRefusal(m.IdleRefused)
	h.OnOpenSentRefusal(m.OpenSentRefused)
	h.OnPrefixLimit(m.PrefixLimitExceeded)
	return m.start(ctx, h)
}

// start records GoBGP and the config, starts the event watcher and the
// reconciler, and waits for the first pass: the keys are on the listeners
// and the peers in GoBGP when it returns. Per-peer key failures are
// reported in status and logs and the peer is held down; only GoBGP
// refusing a peer is a start failure.
func (m *Manager) start(ctx context.Context, b BGP) error {
	var algs *tcpsock.AOAlgorithms
	if m.aoAlgs.Load() == nil { // Prepare probed them already
		a := m.probeAlgorithms()
		algs = &a
	}
	m.mu.Lock()
	if m.started {
		m.mu.Unlock()
		return errors.New("peers: started twice")
	}
	m.started, m.bgp = true, b
	if algs != nil {
		m.recordAlgorithms(*algs)
	}
	if p := m.cfg.Global.ListenPort; p > 0 {
		m.port = uint16(p)
	}
	m.preflight(m.cfg)
	ch, cancel := b.Subscribe(1024)
	m.cancel, m.done = cancel, make(chan struct{})
	m.dropped = b.DroppedEvents
	m.stop, m.loopDone = make(chan struct{}), make(chan struct{})
	m.mu.Unlock()
	go m.watch(ch)
	go m.loop(m.stop, m.loopDone)
	return m.pass(ctx)
}

// preflight checks, once keyed peers are configured, that the kernel's
// TCP-MD5 (and TCP-AO) works at all (m.mu held).
func (m *Manager) preflight(c *config.Config) {
	if m.preErr == nil && needs(c, config.AuthMD5) {
		if err := m.socks.Preflight(); err != nil {
			m.preErr = err
			m.log.WithError(err).Error("TCP-MD5 is unusable on this system: every keyed peer is held down")
		}
	}
	if m.aoPreErr == nil && needs(c, config.AuthTCPAO) {
		if err := m.socks.PreflightAO(); err != nil {
			m.aoPreErr = err
			m.log.WithError(err).Error("TCP-AO is unusable on this system: every TCP-AO peer is held down")
		}
	}
}

// Stop implements plugin.Plugin. GoBGP's stop (after this) sends the
// NOTIFICATIONs and closes the listeners, taking their keys with them.
func (m *Manager) Stop(context.Context) error {
	m.mu.Lock()
	m.stopping = true
	cancel, done := m.cancel, m.done
	stop, loopDone := m.stop, m.loopDone
	m.cancel, m.stop = nil, nil
	m.mu.Unlock()
	if stop != nil {
		close(stop)
		<-loopDone
	}
	if cancel != nil {
		cancel()
		<-done
	}
	return nil
}

// needs reports whether a peer of c uses authentication mode.
func needs(c *config.Config, mode string) bool {
	for i := range c.Peers {
		if c.Peers[i].Auth().Mode == mode {
			return true
		}
	}
	return false
}

// SetPeerKeyID is the shadow checker's proposal (follow-peer-rollover):
// the peer behind peerID is proven to sign with key id of its keychain.
// The manager accepts it only for a key newer than the one it uses now and
// records it (it outlives reloads, releases and keychain switches until the
// schedule catches up); the pass it asks for, and waits for, switches the
// key in place.
func (m *Manager) SetPeerKeyID(peerID string, id int) error {
	m.mu.Lock()
	st := m.peers[peerID]
	cp := m.cfg.Peer(peerID)
	if st == nil || cp == nil || cp.Keychain == "" {
		m.mu.Unlock()
		return fmt.Errorf("peers: %s is not a keychain peer", peerID)
	}
	kc := m.cfg.Keychain(cp.Keychain)
	if kc == nil || id < 0 || id > 255 || kc.Key(uint8(id)) == nil {
		m.mu.Unlock()
		return fmt.Errorf("peers: keychain %q has no key %d", cp.Keychain, id)
	}
	if st.keyID == id && st.installed {
		m.mu.Unlock()
		return nil
	}
	if st.keyID >= 0 && !kc.Schedule().Newer(id, st.keyID) {
		m.mu.Unlock()
		return fmt.Errorf("peers: %s: key %d is not newer than key %d in use: %w", peerID, id, st.keyID, ErrNotNewer)
	}
	m.pins[peerID] = id
	m.mu.Unlock()
	_ = m.pass(context.Background())
	return nil
}

// EndStale asks for the established session with addr whose peer end is
// remote to be ended: the shadow checker saw the peer give it up (its
// segments on that connection stopped verifying and it opened a new
// connection with a valid signature). GoBGP would otherwise keep the dead
// session (the peer's NOTIFICATION and FIN, signed with the old key, were
// dropped by our kernel) and close every new connection until its hold
// timer fires. The reconciler ends it at once if it is still that session.
// The capture knows an address, not its VRF: the session is the one of
// the address's owner (an address that is a peer in two VRFs has none,
// and the shadow checker judges none of its segments).
func (m *Manager) EndStale(addr netip.Addr, remote netip.AddrPort, why string) error {
	m.mu.Lock()
	if p := m.ownersOf(m.cfg).Owner(addr.Unmap()); p != nil {
		m.stale[nbr(p.Config.VRF, addr)] = staleWant{remote: remote, why: why, proven: true}
	}
	m.mu.Unlock()
	m.askStale()
	return nil
}

// ConnectionRefused is told (by plugin.Host, from GoBGP's FSM events) that
// vrf's GoBGP instance closed a connection from addr that the kernel had
// accepted while addr's session was Established. It never blocks (it may
// be called from inside GoBGP): the reconciler judges whether the session
// is stale; a burst beyond the queue is dropped (the peer's next attempt
// is told again).
func (m *Manager) ConnectionRefused(vrf string, addr netip.Addr) {
	select {
	case m.refused <- nbr(vrf, addr):
	default:
	}
}

// Passes returns the number of reconciliation passes done (tests).
func (m *Manager) Passes() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.passes
}

// PassStats returns how many full and light passes the reconciler's loop
// ran and the time they took (authbgpd_reconcile_passes_total and
// authbgpd_reconcile_pass_seconds_total).
func (m *Manager) PassStats() metrics.ReconcilePasses {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.passStats
}

// countPass records one pass of the loop (full: it was asked to read
// GoBGP) that took d.
func (m *Manager) countPass(full bool, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := &m.passStats.Light
	if full {
		c = &m.passStats.Full
	}
	c.Passes++
	c.Seconds += d.Seconds()
}

// Reconcile runs a full pass now and waits for it (tests, and callers that
// need the observed state to be fresh).
func (m *Manager) Reconcile(ctx context.Context) { _ = m.pass(ctx) }

// peerFor maps a neighbor (an address in its VRF) to the configured peer's ID, by the
// index's one owner rule in that VRF (peerindex.Owners.LookupIn) (m.mu held).
func (m *Manager) peerFor(nb neighbor) string {
	return m.ownersOf(m.cfg).of(nb)
}

// ownerOf is the ID of cfg's peer that owns neighbor nb ("" none).
func ownerOf(cfg *config.Config, nb neighbor) string { return indexOwners(cfg).of(nb) }

// owners is a config's peer index, asked for the owner of every connection
// in every pass.
type owners struct{ *peerindex.Index }

func indexOwners(cfg *config.Config) owners { return owners{peerindex.New(cfg)} }

// of is the ID of the peer that owns nb, an address in its VRF ("" none).
func (o owners) of(nb neighbor) string {
	if p := o.OwnerIn(nb.Addr, nb.VRF); p != nil {
		return p.ID
	}
	return ""
}

// ownersOf is cfg's index: the one the speaker built for it (UseIndex,
// Options.Index), else one made here once per config (any goroutine).
func (m *Manager) ownersOf(cfg *config.Config) owners {
	if x := m.owners.Load(); x != nil && x.Config() == cfg {
		return owners{x}
	}
	o := indexOwners(cfg)
	m.owners.Store(o.Index)
	return o
}

// interfaceOwner is the ID of the interface peer that owns a, a
// link-local address zoned with its interface (ok false: a is not one;
// peerindex.Index.LinkOwner).
func (m *Manager) interfaceOwner(cfg *config.Config, a netip.Addr) (id string, ok bool) {
	if p, ok := m.ownersOf(cfg).LinkOwner(a); ok {
		return p.ID, true
	}
	return "", false
}
