package plugin

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/osrg/gobgp/v3/pkg/server"
)

// vrfServers are the GoBGP servers of the VRFs: one BgpServer per VRF,
// each a RIB of its own, so that a tenant's routes reach only the peers of
// its VRF (and only its VRF's table). A VRF's server listens bound to the
// VRF device (Global.BindToDevice) and dials through it; it has the
// Host's hooks as closures of its own (hooksIn: the dial hook keys its
// dials, its FSM events and malformed messages reach the same records,
// each naming its neighbor by VRF and address; its log lines go to the
// same adapter) and its peer events (PeerEvent.VRF) the Host's fan-out.
// It is made when the VRF's first neighbor or range is added, and stopped
// with the Host. One address may be a neighbor in two VRFs: the calls
// ending in In name the VRF (serverAt); the older calls by address alone
// find the VRF the address was last added in (where).
type vrfServers struct {
	mu      sync.Mutex
	servers map[string]*server.BgpServer // by VRF name; the default VRF is Host.bgp
	cancel  map[string]context.CancelFunc
	// failed, where and groups are made by New: an instance's event
	// callback writes where from its first event on.
	failed map[string]vrfFailure // VRFs whose instance did not start, retried after vrfRetry
	where  map[string]string     // neighbor address (as GoBGP names it) -> VRF
	groups map[string]string     // peer group -> VRF
	best   []bestWatch           // WatchBestPaths callers, for servers made later
	policy *api.RoutingPolicy    // SetPolicies' (policies.go), for servers made later
}

// vrfFailure is a VRF whose instance did not start, and why.
type vrfFailure struct {
	at  time.Time
	err error
}

// vrfRetry is how soon a VRF's instance that did not start is tried
// again: each try leaves GoBGP's Serve goroutine behind (it never
// returns), so a VRF that cannot listen must not cost one every pass.
const vrfRetry = 30 * time.Second

type bestWatch struct {
	ctx context.Context
	fn  func(vrf string, changes []BestPathChange, init bool)
	eor func(vrf string, e EndOfRIB) // nil: not asked
}

// serverIn is the server of vrf ("" the default VRF), made and started
// when it is the VRF's first.
func (h *Host) serverIn(ctx context.Context, vrf string) (*server.BgpServer, error) {
	if vrf == "" {
		return h.bgp, nil
	}
	v := &h.vrfs
	v.mu.Lock()
	defer v.mu.Unlock()
	if s, ok := v.servers[vrf]; ok {
		return s, nil
	}
	if f, ok := v.failed[vrf]; ok && time.Since(f.at) < vrfRetry {
		return nil, f.err
	}
	s, err := h.startVRF(ctx, vrf)
	if err != nil {
		v.failed[vrf] = vrfFailure{at: time.Now(), err: err}
		return nil, err
	}
	delete(v.failed, vrf)
	return s, nil
}

// startVRF makes and starts vrf's instance; the caller holds vrfs.mu.
func (h *Host) startVRF(ctx context.Context, vrf string) (*server.BgpServer, error) {
	v := &h.vrfs
	s := server.NewBgpServer(h.hooksIn(vrf)...)
	go s.Serve()
	g := &api.Global{
		Asn:              h.opts.ASN,
		RouterId:         h.opts.RouterID,
		ListenPort:       h.opts.ListenPort,
		ListenAddresses:  h.opts.ListenAddresses,
		UseMultiplePaths: h.opts.Multipath,
		BindToDevice:     vrf,
	}
	if err := s.StartBgp(ctx, &api.StartBgpRequest{Global: g}); err != nil {
		s.Stop()
		return nil, fmt.Errorf("plugin: start BGP in VRF %s: %w", vrf, err)
	}
	if err := setPolicies(ctx, s, v.policy); err != nil { // before its first neighbor
		s.Stop()
		return nil, fmt.Errorf("plugin: VRF %s: %w", vrf, err)
	}
	wctx, cancel := context.WithCancel(context.Background())
	err := s.WatchEvent(wctx, &api.WatchEventRequest{Peer: &api.WatchEventRequest_Peer{}}, func(r *api.WatchEventResponse) {
		pe := r.GetPeer()
		if pe == nil || pe.Type == api.WatchEventResponse_PeerEvent_END_OF_INIT {
			return
		}
		if ev, ok := peerEventFromAPI(pe.GetPeer(), vrf, time.Now()); ok {
			h.vrfs.mu.Lock()
			if _, known := h.vrfs.where[ev.Peer.String()]; !known {
				h.vrfs.where[ev.Peer.String()] = vrf // a dynamic neighbor's session
			}
			h.vrfs.mu.Unlock()
			h.ev.publish(ev)
		}
	})
	if err == nil {
		for _, w := range v.best {
			if err = watchBest(w.ctx, s, vrf, w); err != nil {
				break
			}
		}
	}
	if err != nil {
		cancel()
		s.Stop()
		return nil, fmt.Errorf("plugin: watch BGP in VRF %s: %w", vrf, err)
	}
	if v.servers == nil {
		v.servers, v.cancel = map[string]*server.BgpServer{}, map[string]context.CancelFunc{}
	}
	v.servers[vrf], v.cancel[vrf] = s, cancel
	h.log.WithField("vrf", vrf).Info("plugin: a GoBGP instance of its own for VRF " + vrf + " (its RIB, its listeners bound to the VRF)")
	return s, nil
}

func watchBest(ctx context.Context, s *server.BgpServer, vrf string, w bestWatch) error {
	var eor func(EndOfRIB)
	if w.eor != nil {
		eor = func(e EndOfRIB) { w.eor(vrf, e) }
	}
	return s.WatchBestPathsAndEndOfRIB(ctx, func(changes []BestPathChange, init bool) { w.fn(vrf, changes, init) }, eor)
}

// place records that neighbor addr is in vrf.
func (h *Host) place(addr, vrf string) {
	h.vrfs.mu.Lock()
	defer h.vrfs.mu.Unlock()
	h.vrfs.where[addr] = vrf
}

// serverAt is the server of vrf ("" the default VRF's), made already: a
// VRF with none has no neighbor to act on, and the default VRF's neighbor
// of the same address must not be acted on in its stead.
func (h *Host) serverAt(vrf string) (*server.BgpServer, error) {
	if vrf == "" {
		return h.bgp, nil
	}
	h.vrfs.mu.Lock()
	defer h.vrfs.mu.Unlock()
	if s, ok := h.vrfs.servers[vrf]; ok {
		return s, nil
	}
	return nil, fmt.Errorf("no GoBGP instance for VRF %s", vrf)
}

// vrfOf is the VRF of neighbor addr ("" the default VRF), as last added
// (the calls that name a neighbor by address alone; one address may be a
// neighbor in two VRFs, which the calls ending in In tell apart).
func (h *Host) vrfOf(addr string) string {
	h.vrfs.mu.Lock()
	defer h.vrfs.mu.Unlock()
	return h.vrfs.where[addr]
}

// serverOf is the server of neighbor addr (the default VRF's when it is
// in none).
func (h *Host) serverOf(addr string) *server.BgpServer { return h.serverBy(h.vrfs.where, addr) }

// groupServer is the server of peer group name.
func (h *Host) groupServer(name string) *server.BgpServer { return h.serverBy(h.vrfs.groups, name) }

// serverBy is the server of the VRF that in (where or groups) names for
// key; the default VRF's when none.
func (h *Host) serverBy(in map[string]string, key string) *server.BgpServer {
	h.vrfs.mu.Lock()
	defer h.vrfs.mu.Unlock()
	if s, ok := h.vrfs.servers[in[key]]; ok {
		return s
	}
	return h.bgp
}

// servers are every server, the default VRF's first, then the VRFs' by
// name.
func (h *Host) servers() []*server.BgpServer {
	ins := h.instances()
	out := make([]*server.BgpServer, len(ins))
	for i, in := range ins {
		out[i] = in.srv
	}
	return out
}

// instance is one GoBGP server and its VRF ("" the default VRF).
type instance struct {
	vrf string
	srv *server.BgpServer
}

// instances are every server with its VRF, the default VRF's first, then
// the VRFs' by name.
func (h *Host) instances() []instance {
	names := h.VRFs()
	h.vrfs.mu.Lock()
	defer h.vrfs.mu.Unlock()
	out := []instance{{"", h.bgp}}
	for _, n := range names {
		if s, ok := h.vrfs.servers[n]; ok {
			out = append(out, instance{n, s})
		}
	}
	return out
}

// VRFs are the VRFs that have a GoBGP server of their own, by name.
func (h *Host) VRFs() []string {
	h.vrfs.mu.Lock()
	defer h.vrfs.mu.Unlock()
	names := make([]string, 0, len(h.vrfs.servers))
	for n := range h.vrfs.servers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// stopVRFs stops the VRFs' servers (Host.Stop, after the plugins).
func (h *Host) stopVRFs() {
	h.vrfs.mu.Lock()
	servers, cancels := h.vrfs.servers, h.vrfs.cancel
	h.vrfs.servers, h.vrfs.cancel = nil, nil
	h.vrfs.mu.Unlock()
	for vrf, s := range servers {
		cancels[vrf]()
		h.stopServer(s)
	}
}
