// Package plugin is the embedded GoBGP host: it embeds GoBGP
// (github.com/osrg/gobgp/v3/pkg/server) and is the only package of
// authbgpd that imports it (the product card fixes its name). Its files:
//
//   - host.go: Host, the BGP server with its global configuration (New,
//     Start, Stop), and the Plugin interface that features implement,
//     started after GoBGP and stopped before it;
//   - vrfs.go: a GoBGP instance per VRF (a RIB of its own, listeners bound
//     to the VRF device), made when the VRF's first neighbor is added
//     (AddPeerIn, AddPeerGroupIn) and named by VRF after (DeletePeerIn,
//     ResetPeerIn, ListPeerIn; listings carry each neighbor's VRF);
//   - bestpaths.go: each instance's best paths (WatchBestPaths);
//   - grpc.go: GoBGP's gRPC API (so the stock `gobgp` CLI works) behind
//     interceptors that redact every answer, refuse redacted passwords,
//     refuse dynamic neighbors of unknown peer groups and ask the APIGuard;
//   - logger.go: the adapter for GoBGP's logger, which never exits the
//     process, names fields as ours and redacts every line;
//   - fsmevents.go: what the Host learns from GoBGP's FSM events (the
//     carried patch's FSMEventOption): the last NOTIFICATION and down
//     reason per neighbor, and the connections GoBGP refused (Idle,
//     OpenSent, Established);
//   - gobgplog.go: the one GoBGP log line the Host reads, the gRPC API's
//     failure to listen (no event tells it);
//   - malformed.go: what GoBGP's receive path found malformed per neighbor
//     (the carried patch's ReceiveErrorOption), panics it recovered included;
//   - peers.go, paths.go: thin wrappers for peers, peer groups, dynamic
//     neighbors and paths, taking the protobuf types of
//     github.com/osrg/gobgp/v3/api, passwords redacted in every answer;
//     vrfpaths.go: paths of ours in a VRF's instance (AddPathIn,
//     DeletePathIn, LocalPathsIn), for the config's networks;
//   - peercache.go: the ListPeer cache behind PeerStates;
//   - events.go: a fan-out of GoBGP's peer state events to any number of
//     subscribers;
//   - listeners.go: GoBGP's BGP listeners, refused when multipath TCP;
//   - loopwatch.go, loopstack.go: the liveness watchdog of GoBGP's main
//     loop (LoopHealth, LoopAnswerAge), and what the loop's goroutine does
//     while a question waits (blocked at one place, or computing);
//   - families.go: address family names.
//
// Redaction itself is package redact (importable without GoBGP's server).
package plugin

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/osrg/gobgp/v3/pkg/server"
	"github.com/sirupsen/logrus"
	"google.golang.org/grpc"

	"github.com/authbgp/authbgpd/redact"
)

// Options is the global configuration of a Host.
type Options struct {
	ASN             uint32
	RouterID        string   // IPv4 dotted quad (the BGP Identifier)
	ListenPort      int32    // 0: 179; -1: do not listen
	ListenAddresses []string // default: "0.0.0.0" and "::"
	GRPCAddr        string   // GoBGP gRPC API, "host:port[,host:port]" or "unix:///path"; "" = off
	Logger          *logrus.Logger
	// RequireDialHook refuses every dial until a plugin sets OnDial (the
	// daemon: GoBGP holds no keys, so only the peers plugin keys a dial).
	RequireDialHook bool
	// Multipath: best paths of equal preference form one set (GoBGP's
	// UseMultiplePaths), which WatchBestPaths tells as one change.
	Multipath bool
}

// Plugin is a feature built on the Host. Start is called after GoBGP is up
// (its ctx only bounds start-up: a plugin that runs in the background
// derives its own lifetime), Stop before GoBGP stops.
type Plugin interface {
	Name() string
	Start(ctx context.Context, h *Host) error
	Stop(ctx context.Context) error
}

// Service is a feature started and stopped with GoBGP that needs nothing
// of the Host (the shadow checker): it need not import this package, and
// with it GoBGP's server. Detached makes it a Plugin.
type Service interface {
	Name() string
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
}

// Detached is s as a Plugin: Start gets no Host.
func Detached(s Service) Plugin { return detached{s} }

type detached struct{ Service }

func (d detached) Start(ctx context.Context, _ *Host) error { return d.Service.Start(ctx) }

// Host owns one embedded GoBGP server.
type Host struct {
	opts    Options
	log     *logrus.Logger
	logger  *logAdapter
	secrets *redact.Set
	bgp     *server.BgpServer

	grpcFatal chan string // "failed to listen grpc port" from GoBGP, buffered 1 (gobgplog.go)

	mu      sync.Mutex
	state   hostState
	plugins []Plugin
	running []Plugin

	ev events

	vrfs vrfServers // the GoBGP instances of the VRFs (vrfs.go)

	notes     peerNotes      // last NOTIFICATION and down reason per neighbor (fsmevents.go)
	malformed malformedNotes // malformed messages per neighbor (malformed.go)
	snap      peerSnapshot   // last ListPeer answer for /status (peercache.go)

	guard atomic.Pointer[APIGuard]

	graceful atomic.Bool // SetGracefulStop (graceful.go)

	loop *loopWatch // the watchdog of GoBGP's main loop (loopwatch.go)

	refused atomic.Pointer[RefusalHook] // OnConnectionRefused (fsmevents.go)
	dial    atomic.Pointer[DialHook]    // OnDial (dial.go)
	listen  atomic.Pointer[ListenHook]  // OnListen (listen.go)

	idleRefused     atomic.Pointer[RefusalHook] // OnIdleRefusal (fsmevents.go)
	openSentRefused atomic.Pointer[RefusalHook] // OnOpenSentRefusal (fsmevents.go)
	prefixLimit     atomic.Pointer[RefusalHook] // OnPrefixLimit (prefixlimit.go)
}

// hooksIn are the options that give vrf's instance ("" the default VRF's)
// the Host's hooks: each its own closure, so that a dial, an FSM event or
// a malformed message names its neighbor by VRF and address.
func (h *Host) hooksIn(vrf string) []server.ServerOption {
	return []server.ServerOption{
		server.LoggerOption(h.logger),
		server.PeerDialControlOption(h.dialControlIn(vrf)),
		server.ListenerControlOption(h.listenControlIn(vrf)),
		server.ReceiveErrorOption(h.malformed.recordIn(vrf)),
		server.FSMEventOption(h.fsmEventIn(vrf)),
	}
}

type hostState int

const (
	stateNew hostState = iota
	stateStarting
	stateRunning
	stateStopped
)

// New validates opts and creates the GoBGP server; with GRPCAddr set its
// gRPC API is listening when New returns (an address in use is an error).
// BGP itself starts with Start.
func New(opts Options) (*Host, error) {
	if opts.ASN == 0 {
		return nil, errors.New("plugin: ASN must not be 0")
	}
	rid, err := netip.ParseAddr(opts.RouterID)
	if err != nil || !rid.Is4() {
		return nil, fmt.Errorf("plugin: router ID %q is not an IPv4 address", opts.RouterID)
	}
	if opts.ListenPort < -1 || opts.ListenPort > 65535 {
		return nil, fmt.Errorf("plugin: listen port %d out of range (-1..65535)", opts.ListenPort)
	}
	for _, a := range opts.ListenAddresses {
		if _, err := netip.ParseAddr(a); err != nil {
			return nil, fmt.Errorf("plugin: listen address %q: %v", a, err)
		}
	}
	if opts.Logger == nil {
		opts.Logger = logrus.StandardLogger()
	}
	h := &Host{
		opts:      opts,
		log:       opts.Logger,
		secrets:   &redact.Set{},
		grpcFatal: make(chan string, 1),
	}
	h.ev.init()
	// Written by the VRF instances' event callbacks too, from their first
	// event on (vrfs.go): never nil.
	h.vrfs.where, h.vrfs.groups, h.vrfs.failed = map[string]string{}, map[string]string{}, map[string]vrfFailure{}
	h.notes.malformed = &h.malformed
	h.logger = newLogAdapter(opts.Logger, h.secrets)
	h.logger.onFatal = h.grpcListenFailed

	sopts := h.hooksIn("")
	if opts.GRPCAddr != "" {
		// GoBGP only logs (Fatal) when it cannot listen, from a goroutine,
		// and a dial could reach whoever holds the port: try first.
		if err := probeGRPCAddr(opts.GRPCAddr); err != nil {
			return nil, err
		}
		sopts = append(sopts,
			server.GrpcListenAddress(opts.GRPCAddr),
			server.GrpcOption([]grpc.ServerOption{
				grpc.ChainUnaryInterceptor(h.unaryInterceptor),
				grpc.ChainStreamInterceptor(h.streamInterceptor),
			}))
	}
	h.bgp = server.NewBgpServer(sopts...)
	h.loop = newLoopWatch(h.askGetBgp, opts.Logger)
	h.loop.sample = h.serveSample
	// Serve runs GoBGP's main loop; GoBGP never returns from it, so one
	// goroutine per Host outlives Stop (an idle select).
	go h.bgp.Serve()

	if opts.GRPCAddr != "" {
		err := h.waitGRPC(5 * time.Second)
		if err == nil {
			err = restrictUnixSockets(opts.GRPCAddr)
		}
		if err != nil {
			h.bgp.Stop()
			h.mu.Lock()
			h.state = stateStopped
			h.mu.Unlock()
			return nil, err
		}
	}
	return h, nil
}

// probeGRPCAddr checks that the gRPC addresses can be listened on.
func probeGRPCAddr(hosts string) error {
	for _, host := range strings.Split(hosts, ",") {
		if strings.HasPrefix(host, "unix://") {
			continue // GoBGP reports a unix socket path in use itself
		}
		l, err := net.Listen("tcp", host)
		if err != nil {
			return fmt.Errorf("plugin: gRPC API on %s: failed to listen grpc port: %w", host, err)
		}
		l.Close()
	}
	return nil
}

// restrictUnixSockets makes the gRPC API's unix sockets usable by the
// daemon's user only (mode 0600): whoever can connect can change routes.
func restrictUnixSockets(hosts string) error {
	for _, host := range strings.Split(hosts, ",") {
		if path, ok := strings.CutPrefix(host, "unix://"); ok {
			if err := os.Chmod(path, 0o600); err != nil {
				return fmt.Errorf("plugin: gRPC API socket %s: %w", path, err)
			}
		}
	}
	return nil
}

// waitGRPC returns once every gRPC address accepts connections, or GoBGP
// has reported that it cannot listen.
func (h *Host) waitGRPC(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for _, host := range strings.Split(h.opts.GRPCAddr, ",") {
		network, addr := "tcp", host
		if strings.HasPrefix(host, "unix://") {
			network, addr = "unix", strings.TrimPrefix(host, "unix://")
		}
		for {
			select {
			case msg := <-h.grpcFatal:
				return fmt.Errorf("plugin: gRPC API on %s: %s", h.opts.GRPCAddr, msg)
			default:
			}
			c, err := net.DialTimeout(network, addr, 200*time.Millisecond)
			if err == nil {
				c.Close()
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("plugin: gRPC API on %s is not reachable: %v", host, err)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return nil
}

// Logger is the logrus logger GoBGP logs to.
func (h *Host) Logger() *logrus.Logger { return h.log }

// Options returns the options the Host was created with (Logger filled in).
func (h *Host) Options() Options { return h.opts }

// FatalLogs counts GoBGP's Fatal and Panic logs, which the adapter turned
// into Error logs instead of exiting.
func (h *Host) FatalLogs() uint64 { return h.logger.fatals.Load() }

// RegisterSecret adds a secret that the log adapter scrubs from every GoBGP
// log line (passwords passed through this package are added automatically).
func (h *Host) RegisterSecret(s string) { h.secrets.Add(s) }

// Register adds a plugin. Plugins start in registration order after GoBGP
// and stop in reverse order before it. Register panics after Start.
func (h *Host) Register(p Plugin) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.state != stateNew {
		panic(fmt.Sprintf("plugin: Register(%q) after Start", p.Name()))
	}
	h.plugins = append(h.plugins, p)
}

// Start starts BGP with the global configuration, the peer event watch,
// checks that GoBGP's listeners are plain TCP (TCP-MD5 does not work on
// multipath TCP sockets), then starts the plugins. On error everything
// already started is stopped again and the Host cannot be restarted.
func (h *Host) Start(ctx context.Context) (err error) {
	h.mu.Lock()
	if h.state != stateNew {
		h.mu.Unlock()
		return errors.New("plugin: Start called twice or after Stop")
	}
	h.state = stateStarting
	plugins := append([]Plugin(nil), h.plugins...)
	h.mu.Unlock()

	defer func() {
		if err != nil {
			h.loop.stop()
			h.stopBGP(context.Background())
			h.mu.Lock()
			h.state = stateStopped
			h.mu.Unlock()
		}
	}()

	if err := h.prepare(ctx, plugins); err != nil { // the listener keys, before GoBGP listens
		return err
	}
	g := &api.Global{
		Asn:              h.opts.ASN,
		RouterId:         h.opts.RouterID,
		ListenPort:       h.opts.ListenPort,
		ListenAddresses:  h.opts.ListenAddresses,
		UseMultiplePaths: h.opts.Multipath,
	}
	if err := h.bgp.StartBgp(ctx, &api.StartBgpRequest{Global: g}); err != nil {
		return fmt.Errorf("plugin: start BGP: %w", err)
	}
	h.loop.start()
	if err := h.startWatch(); err != nil {
		return fmt.Errorf("plugin: watch peer events: %w", err)
	}
	if err := h.checkListeners(); err != nil {
		return err
	}

	var started []Plugin
	for _, p := range plugins {
		if err := startPlugin(ctx, h, p); err != nil {
			for i := len(started) - 1; i >= 0; i-- {
				if serr := stopPlugin(context.Background(), started[i]); serr != nil {
					h.log.WithError(serr).Warn("plugin: stop after failed start")
				}
			}
			return fmt.Errorf("plugin %s: start: %w", p.Name(), err)
		}
		started = append(started, p)
	}

	h.mu.Lock()
	if h.state != stateStarting { // Stop ran meanwhile
		h.mu.Unlock()
		for i := len(started) - 1; i >= 0; i-- {
			if serr := stopPlugin(context.Background(), started[i]); serr != nil {
				h.log.WithError(serr).Warn("plugin: stop after Stop during Start")
			}
		}
		return errors.New("plugin: Stop called during Start")
	}
	h.running = started
	h.state = stateRunning
	h.mu.Unlock()
	return nil
}

func startPlugin(ctx context.Context, h *Host, p Plugin) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return p.Start(ctx, h)
}

func stopPlugin(ctx context.Context, p Plugin) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
		if err != nil {
			err = fmt.Errorf("plugin %s: stop: %w", p.Name(), err)
		}
	}()
	return p.Stop(ctx)
}

// Stop stops the watchdog of GoBGP's loop, the plugins in reverse order,
// then GoBGP: every peer with a session gets a NOTIFICATION Cease (subcode
// 3, Peer De-configured: each neighbor is deleted by GoBGP's StopBgp), or
// none after SetGracefulStop(true), the listeners and the gRPC API close,
// and subscriber channels are closed.
// Stop is idempotent; it returns the plugins' errors, or ctx's error if
// GoBGP (or the watchdog's last question to it) did not finish in time.
func (h *Host) Stop(ctx context.Context) error {
	h.mu.Lock()
	if h.state == stateStopped {
		h.mu.Unlock()
		return nil
	}
	running := h.running
	h.running = nil
	h.state = stateStopped
	h.mu.Unlock()

	h.loop.stop()
	var errs []error
	for i := len(running) - 1; i >= 0; i-- {
		if err := stopPlugin(ctx, running[i]); err != nil {
			errs = append(errs, err)
		}
	}
	if err := h.stopBGP(ctx); err != nil {
		errs = append(errs, err)
	} else if err := h.loop.wait(ctx); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func (h *Host) stopBGP(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		// StopBgp (neighbors deleted with Cease, listeners closed, the
		// global configuration cleared once their FSMs are freed: the
		// carried patches/0003), then the gRPC server; the VRFs' too.
		h.stopVRFs()
		h.stopServer(h.bgp)
		close(done)
	}()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = fmt.Errorf("plugin: GoBGP did not stop: %w", ctx.Err())
	}
	h.ev.close()
	return err
}

// LoopHealth is nil while GoBGP's main loop answers, or a *LoopStallError
// once the watchdog's question (asked every LoopWatchPeriod from Start to
// Stop) has waited longer than LoopWatchThreshold with the loop blocked at
// one place, or longer than LoopWatchBusyThreshold. It never waits for
// GoBGP.
func (h *Host) LoopHealth() error { return h.loop.health() }

// LoopAnswerAge is the time since GoBGP's main loop last answered: up to
// LoopWatchPeriod (and the answer's own time) while it answers, growing
// while it does not; 0 before Start.
func (h *Host) LoopAnswerAge() time.Duration { return h.loop.age() }
