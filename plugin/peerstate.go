package plugin

import (
	"context"
	"fmt"
	"net/netip"
	"sort"
	"strings"
	"sync"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	gobgplog "github.com/osrg/gobgp/v3/pkg/log"
	"github.com/osrg/gobgp/v3/pkg/packet/bgp"
	"google.golang.org/protobuf/types/known/anypb"
)

// Notification is the last BGP NOTIFICATION exchanged with a neighbor, as
// GoBGP logged it (its API keeps none).
type Notification struct {
	Code, Subcode uint8
	// Direction is "sent" or "received".
	Direction string
	// Text names the code and subcode ("code 6(cease) subcode
	// 2(administrative shutdown)").
	Text string
	At   time.Time
}

// Down is why a neighbor's session last left Established, as GoBGP logged
// it ("hold-timer-expired", "notification-received code 6(cease) ...").
type Down struct {
	Reason string
	At     time.Time
}

// peerNotes remembers, per neighbor, the last NOTIFICATION and the last
// reason its session went down. It is fed every GoBGP log line before the
// level filter, so it works whatever the log level.
type peerNotes struct {
	mu    sync.Mutex
	notif map[netip.Addr]Notification
	down  map[netip.Addr]Down
}

// observe looks at one GoBGP log line. GoBGP logs "sent notification" and
// "received notification" with Code and Subcode (or, for one path, a
// *bgp.MessageError as Data) and "Peer Down" with the Reason, each with
// the neighbor's address as Key.
func (n *peerNotes) observe(msg string, f gobgplog.Fields) {
	var dir string
	switch msg {
	case "sent notification":
		dir = "sent"
	case "received notification":
		dir = "received"
	case "Peer Down":
	default:
		return
	}
	key, _ := f["Key"].(string)
	addr, err := netip.ParseAddr(key)
	if err != nil {
		return
	}
	addr = addr.Unmap()
	now := timeNow()
	n.mu.Lock()
	defer n.mu.Unlock()
	if dir == "" {
		if n.down == nil {
			n.down = map[netip.Addr]Down{}
		}
		r, _ := f["Reason"].(string)
		n.down[addr] = Down{Reason: r, At: now}
		return
	}
	code, ok1 := f["Code"].(uint8)
	sub, ok2 := f["Subcode"].(uint8)
	if e, ok := f["Data"].(*bgp.MessageError); !(ok1 && ok2) && ok {
		code, sub, ok1, ok2 = e.TypeCode, e.SubTypeCode, true, true
	}
	if !ok1 || !ok2 {
		return
	}
	if n.notif == nil {
		n.notif = map[netip.Addr]Notification{}
	}
	n.notif[addr] = Notification{Code: code, Subcode: sub, Direction: dir,
		Text: bgp.NewNotificationErrorCode(code, sub).String(), At: now}
}

// observe sees every GoBGP log line (before the level filter).
func (h *Host) observe(msg string, f gobgplog.Fields) {
	if msg == "Closed an accepted connection" {
		h.connectionRefused(f)
		return
	}
	h.notes.observe(msg, f)
}

// OnConnectionRefused sets fn to be told the neighbor address whenever
// GoBGP closes a connection that the kernel accepted from a neighbor whose
// session is Established (GoBGP keeps the old session; RFC 4271 collision
// handling). fn is called on GoBGP's FSM goroutine with its lock held: it
// must not block or call GoBGP.
func (h *Host) OnConnectionRefused(fn func(netip.Addr)) { h.refused.Store(&fn) }

func (h *Host) connectionRefused(f gobgplog.Fields) {
	fn := h.refused.Load()
	if fn == nil {
		return
	}
	if st, _ := f["State"].(string); st != bgp.BGP_FSM_ESTABLISHED.String() {
		return
	}
	key, _ := f["Key"].(string)
	addr, err := netip.ParseAddr(key)
	if err != nil {
		return
	}
	(*fn)(addr.Unmap())
}

// LastNotification returns the last NOTIFICATION sent to or received from
// addr since the daemon started.
func (h *Host) LastNotification(addr netip.Addr) (Notification, bool) {
	h.notes.mu.Lock()
	defer h.notes.mu.Unlock()
	n, ok := h.notes.notif[addr.Unmap()]
	return n, ok
}

// LastDown returns why addr's session last left Established since the
// daemon started.
func (h *Host) LastDown(addr netip.Addr) (Down, bool) {
	h.notes.mu.Lock()
	defer h.notes.mu.Unlock()
	d, ok := h.notes.down[addr.Unmap()]
	return d, ok
}

// peerSnapshot is the last answer of GoBGP's ListPeer with advertised
// counts, refreshed by one goroutine at a time.
type peerSnapshot struct {
	mu      sync.Mutex
	peers   []*api.Peer
	at      time.Time
	running chan struct{} // closed when the refresh in flight ends; nil: none
	// adv are the advertised counts by neighbor and family, taken at advAt
	// in advCost.
	adv     map[advKey]uint64
	advAt   time.Time
	advCost time.Duration
}

type advKey struct {
	addr string
	afi  api.Family_Afi
	safi api.Family_Safi
}

// snapshotMaxAge is how old a snapshot may be before PeerStates refreshes
// it. The advertised counts are refreshed less often the more they cost:
// GoBGP counts them by walking the whole table for every neighbor (seconds
// with a full table), so they are taken again after advertisedDuty times
// their last cost, at least every second and at most advertisedMaxAge.
const (
	snapshotMaxAge   = time.Second
	advertisedDuty   = 50
	advertisedMaxAge = 5 * time.Minute
)

// advertisedDue reports whether the advertised counts are to be taken
// again. s.mu is held.
func (s *peerSnapshot) advertisedDue(now time.Time) bool {
	if s.adv == nil {
		return true
	}
	every := min(max(snapshotMaxAge, advertisedDuty*s.advCost), advertisedMaxAge)
	return now.Sub(s.advAt) >= every
}

// PeerStates returns every GoBGP neighbor with its state, timers,
// transport and per-family prefix counts (received, accepted, advertised),
// passwords redacted. It never waits longer than ctx: GoBGP answers
// between management operations (a reload may hold it for seconds), so
// when the refresh is slow the previous snapshot is returned with its time;
// the refresh goes on in the background. A zero time means none yet.
// A snapshot taken before after (the last session change the caller
// knows of) is refreshed whatever its age.
func (h *Host) PeerStates(ctx context.Context, after time.Time) ([]*api.Peer, time.Time, error) {
	if err := h.checkRunning(); err != nil {
		return nil, time.Time{}, err
	}
	s := &h.snap
	s.mu.Lock()
	if !s.at.IsZero() && !s.at.Before(after) && timeNow().Sub(s.at) < snapshotMaxAge {
		defer s.mu.Unlock()
		return s.peers, s.at, nil
	}
	if s.running == nil {
		s.running = make(chan struct{})
		go h.refreshSnapshot(s.running)
	}
	done := s.running
	s.mu.Unlock()
	select {
	case <-done:
	case <-ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peers, s.at, nil
}

func (h *Host) refreshSnapshot(done chan struct{}) {
	s := &h.snap
	s.mu.Lock()
	adv := s.advertisedDue(timeNow())
	s.mu.Unlock()
	start := time.Now()
	var out []*api.Peer
	err := h.bgp.ListPeer(context.Background(), &api.ListPeerRequest{EnableAdvertised: adv}, func(p *api.Peer) {
		out = append(out, RedactProto(p))
	})
	s.mu.Lock()
	if err == nil {
		s.peers, s.at = out, timeNow()
		if adv {
			s.adv, s.advAt, s.advCost = advertisedOf(out), s.at, time.Since(start)
		} else {
			setAdvertised(out, s.adv)
		}
	} else {
		h.log.WithError(fmt.Errorf("plugin: list peers for /status: %w", err)).Warn("GoBGP peer state not refreshed")
	}
	s.running = nil
	s.mu.Unlock()
	close(done)
}

// FamilyName is the name of an address family as GoBGP's CLI and config
// spell it ("ipv4-unicast", "l2vpn-evpn").
func FamilyName(f *api.Family) string {
	if f == nil {
		return ""
	}
	return strings.ToLower(bgp.AfiSafiToRouteFamily(uint16(f.Afi), uint8(f.Safi)).String())
}

// NegotiatedFamilies are the families both sides announced in their
// OPEN's multiprotocol capabilities (IPv4 unicast when neither sent any,
// RFC 4760 §8); nil before an OPEN was received.
func NegotiatedFamilies(st *api.PeerState) []string {
	if st == nil || len(st.RemoteCap) == 0 {
		return nil
	}
	mp := func(caps []*anypb.Any) map[string]bool {
		out := map[string]bool{}
		for _, c := range caps {
			m := &api.MultiProtocolCapability{}
			if c.MessageIs(m) && c.UnmarshalTo(m) == nil {
				out[FamilyName(m.Family)] = true
			}
		}
		return out
	}
	local, remote := mp(st.LocalCap), mp(st.RemoteCap)
	if len(local) == 0 && len(remote) == 0 {
		return []string{"ipv4-unicast"}
	}
	var out []string
	for f := range local {
		if remote[f] {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}

// advertisedOf returns the advertised counts of peers.
func advertisedOf(peers []*api.Peer) map[advKey]uint64 {
	m := map[advKey]uint64{}
	for _, p := range peers {
		for _, af := range p.GetAfiSafis() {
			if st := af.GetState(); st != nil {
				m[advKey{p.GetConf().GetNeighborAddress(), st.GetFamily().GetAfi(), st.GetFamily().GetSafi()}] = st.GetAdvertised()
			}
		}
	}
	return m
}

// setAdvertised fills the advertised counts of peers from adv.
func setAdvertised(peers []*api.Peer, adv map[advKey]uint64) {
	for _, p := range peers {
		for _, af := range p.GetAfiSafis() {
			if st := af.GetState(); st != nil {
				st.Advertised = adv[advKey{p.GetConf().GetNeighborAddress(), st.GetFamily().GetAfi(), st.GetFamily().GetSafi()}]
			}
		}
	}
}
