package plugin

import (
	"context"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	api "github.com/osrg/gobgp/v3/api"

	"github.com/authbgp/authbgpd/redact"
)

// PeerEvent is a BGP session state change of one peer.
type PeerEvent struct {
	// VRF is the VRF of the instance whose neighbor Peer is ("" the
	// default VRF): one address may be a neighbor in two VRFs.
	VRF       string
	Peer      netip.Addr
	State     string         // "idle", "connect", "active", "opensent", "openconfirm", "established" ("unknown" if GoBGP says so)
	Local     netip.AddrPort // local end of the TCP connection; zero when there is none (GoBGP reports it from OPENSENT on)
	Remote    netip.AddrPort // peer end; zero when there is none
	Time      time.Time      // when authbgpd received the event
	AdminDown bool           // administratively disabled (DisablePeer)
	PeerASN   uint32         // 0 when unknown
	// RouterID is the peer's BGP Identifier, from its last OPEN; invalid
	// before GoBGP has received one.
	RouterID netip.Addr
	// Deleted marks the event published when DeletePeer removed the peer
	// (State "idle"): forget it. GoBGP itself may still report the
	// session's end (an "idle" event) shortly after.
	Deleted bool
}

// events fans GoBGP's peer state events (one WatchEvent subscription) out
// to any number of subscribers. Delivery never blocks: a subscriber whose
// buffer is full loses the event, which is counted.
type events struct {
	mu      sync.Mutex
	subs    map[*subscriber]struct{}
	last    map[neighbor]PeerEvent // last event per neighbor (for the session addresses of the snapshot)
	closed  bool
	dropped atomic.Uint64
	cancel  context.CancelFunc
}

type subscriber struct {
	ch chan PeerEvent
}

func (e *events) init() {
	e.subs = map[*subscriber]struct{}{}
	e.last = map[neighbor]PeerEvent{}
}

// Subscribe returns a channel of peer events, starting with the current
// state of every configured peer (one event each, not counted against buf),
// then every change. buf bounds the backlog: when the channel is full,
// further events for this subscriber are dropped and counted in
// DroppedEvents, so a slow subscriber never delays GoBGP or other
// subscribers. cancel (idempotent) unsubscribes and closes the channel;
// Stop closes all channels.
func (h *Host) Subscribe(buf int) (<-chan PeerEvent, func()) {
	_, ch, cancel := h.subscribe(buf)
	return ch, cancel
}

// subscribe is Subscribe that also returns the snapshot the channel starts
// with.
func (h *Host) subscribe(buf int) ([]PeerEvent, <-chan PeerEvent, func()) {
	if buf < 0 {
		buf = 0
	}
	e := &h.ev
	// Hold e.mu while asking GoBGP for the current peers: events arriving
	// meanwhile wait in GoBGP's (unbounded) watcher queue and are
	// delivered after the snapshot, so the last state a subscriber sees
	// for a peer is its real state.
	e.mu.Lock()
	defer e.mu.Unlock()
	snap := h.snapshotLocked()
	s := &subscriber{ch: make(chan PeerEvent, buf+len(snap))}
	for _, ev := range snap {
		s.ch <- ev
	}
	if e.closed {
		close(s.ch)
		return snap, s.ch, func() {}
	}
	e.subs[s] = struct{}{}
	var once sync.Once
	return snap, s.ch, func() {
		once.Do(func() {
			e.mu.Lock()
			defer e.mu.Unlock()
			if _, ok := e.subs[s]; ok {
				delete(e.subs, s)
				close(s.ch)
			}
		})
	}
}

// snapshotLocked returns the current state of every peer GoBGP has, taking
// session addresses and times from the last event when it agrees (ListPeer
// only reports configured ports). It forgets peers GoBGP no longer has
// (deleted, or dynamic neighbors gone: GoBGP sends no event for those).
func (h *Host) snapshotLocked() []PeerEvent {
	e := &h.ev
	if h.checkRunning() != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	now := timeNow()
	var snap []PeerEvent
	present := map[neighbor]bool{}
	var err error
	for _, in := range h.instances() {
		if err = in.srv.ListPeer(ctx, &api.ListPeerRequest{}, func(p *api.Peer) {
			ev, ok := peerEventFromAPI(p, in.vrf, now)
			if !ok {
				return
			}
			ev.Local, ev.Remote = netip.AddrPort{}, netip.AddrPort{}
			nb := neighbor{ev.VRF, ev.Peer}
			if last, ok := e.last[nb]; ok && last.State == ev.State && last.AdminDown == ev.AdminDown {
				ev = last
			}
			present[nb] = true
			snap = append(snap, ev)
		}); err != nil {
			break
		}
	}
	if err != nil {
		h.log.WithError(err).Warn("plugin: list peers for a new event subscriber")
		return nil
	}
	for a := range e.last {
		if !present[a] {
			delete(e.last, a)
		}
	}
	return snap
}

// DroppedEvents is the number of events dropped because a subscriber's
// buffer was full.
func (h *Host) DroppedEvents() uint64 { return h.ev.dropped.Load() }

func (e *events) publish(ev PeerEvent) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return
	}
	if nb := (neighbor{ev.VRF, ev.Peer}); ev.Deleted {
		delete(e.last, nb)
	} else {
		e.last[nb] = ev
	}
	for s := range e.subs {
		select {
		case s.ch <- ev:
		default:
			e.dropped.Add(1)
		}
	}
}

func (e *events) close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cancel != nil {
		e.cancel()
		e.cancel = nil
	}
	if e.closed {
		return
	}
	e.closed = true
	for s := range e.subs {
		close(s.ch)
	}
	e.subs = map[*subscriber]struct{}{}
}

func (h *Host) startWatch() error {
	ctx, cancel := context.WithCancel(context.Background())
	err := h.bgp.WatchEvent(ctx, &api.WatchEventRequest{Peer: &api.WatchEventRequest_Peer{}}, func(r *api.WatchEventResponse) {
		pe := r.GetPeer()
		if pe == nil || pe.Type == api.WatchEventResponse_PeerEvent_END_OF_INIT {
			return
		}
		if ev, ok := peerEventFromAPI(pe.GetPeer(), "", time.Now()); ok {
			h.ev.publish(ev)
		}
	})
	if err != nil {
		cancel()
		return err
	}
	h.ev.mu.Lock()
	h.ev.cancel = cancel
	h.ev.mu.Unlock()
	return nil
}

// NeighborAddr is the address of a GoBGP neighbor, unmapped. Dynamic
// neighbors have it in their state only (their config has none).
func NeighborAddr(p *api.Peer) (netip.Addr, bool) {
	s := p.GetState().GetNeighborAddress()
	if s == "" {
		s = p.GetConf().GetNeighborAddress()
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}

// peerEventFromAPI is the event of neighbor p of vrf's instance.
func peerEventFromAPI(p *api.Peer, vrf string, now time.Time) (PeerEvent, bool) {
	if p == nil {
		return PeerEvent{}, false
	}
	addr, ok := NeighborAddr(p)
	if !ok {
		return PeerEvent{}, false
	}
	ev := PeerEvent{
		VRF:       vrf,
		Peer:      addr,
		State:     SessionStateName(p.GetState().GetSessionState()),
		Time:      now,
		AdminDown: p.GetState().GetAdminState() == api.PeerState_DOWN,
		PeerASN:   p.GetState().GetPeerAsn(),
	}
	if id, err := netip.ParseAddr(p.GetState().GetRouterId()); err == nil && id.Is4() && !id.IsUnspecified() {
		ev.RouterID = id
	}
	if t := p.GetTransport(); t != nil {
		if la, err := netip.ParseAddr(t.LocalAddress); err == nil && t.LocalPort != 0 {
			ev.Local = netip.AddrPortFrom(la.Unmap(), uint16(t.LocalPort))
		}
		if t.RemotePort != 0 {
			ev.Remote = netip.AddrPortFrom(addr, uint16(t.RemotePort))
		}
	}
	return ev, true
}

// SessionStateName is the lower-case RFC 4271 name of a GoBGP session state.
func SessionStateName(s api.PeerState_SessionState) string {
	switch s {
	case api.PeerState_IDLE:
		return "idle"
	case api.PeerState_CONNECT:
		return "connect"
	case api.PeerState_ACTIVE:
		return "active"
	case api.PeerState_OPENSENT:
		return "opensent"
	case api.PeerState_OPENCONFIRM:
		return "openconfirm"
	case api.PeerState_ESTABLISHED:
		return "established"
	}
	return strings.ToLower(s.String())
}

// WatchEvent passes a raw watch (table events: best paths, adj-RIB-in,
// End-of-RIB; or peer events) straight to GoBGP. fn runs on a goroutine of
// GoBGP's and should not block for long (GoBGP queues behind it without
// bound). The watch ends with ctx.
//
// Beware: GoBGP converts received paths to API form on its own goroutine;
// a received SR Policy segment list without a Weight sub-TLV panics that
// conversion, which no caller can recover. Prefer ListPath for SR policies.
func (h *Host) WatchEvent(ctx context.Context, r *api.WatchEventRequest, fn func(*api.WatchEventResponse)) error {
	return h.bgp.WatchEvent(ctx, r, func(resp *api.WatchEventResponse) { fn(redact.Proto(resp)) })
}
