package peers

import (
	"context"
	"io"
	"net/netip"
	"strings"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/authbgp/authbgpd/plugin"
	"github.com/authbgp/authbgpd/status"
)

// fakeSessions is a sessionSource with fixed answers.
type fakeSessions struct {
	peers []*api.Peer
	notif map[netip.Addr]plugin.Notification
	down  map[netip.Addr]plugin.Down
	// malformed are the peers' malformed messages.
	malformed map[netip.Addr]plugin.Malformed
}

func (f fakeSessions) PeerStates(context.Context, time.Time) ([]*api.Peer, time.Time, error) {
	return f.peers, time.Now(), nil
}
func (f fakeSessions) LastNotification(_ string, a netip.Addr) (plugin.Notification, bool) {
	n, ok := f.notif[a]
	return n, ok
}
func (f fakeSessions) LastDown(_ string, a netip.Addr) (plugin.Down, bool) {
	d, ok := f.down[a]
	return d, ok
}
func (f fakeSessions) Malformed(_ string, a netip.Addr) (plugin.Malformed, bool) {
	m, ok := f.malformed[a]
	return m, ok
}

func mpCap(t *testing.T, afi api.Family_Afi) *anypb.Any {
	t.Helper()
	a, err := anypb.New(&api.MultiProtocolCapability{Family: &api.Family{Afi: afi, Safi: api.Family_SAFI_UNICAST}})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestAddSessions: GoBGP's view of each session (timers, families with
// prefix counts, messages, downtime) and the last NOTIFICATION and down
// reason land on the right peers; a dynamic range gets none.
func TestAddSessions(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	v4 := &api.Family{Afi: api.Family_AFI_IP, Safi: api.Family_SAFI_UNICAST}
	v6 := &api.Family{Afi: api.Family_AFI_IP6, Safi: api.Family_SAFI_UNICAST}
	up := &api.Peer{
		Conf:   &api.PeerConf{NeighborAddress: "192.0.2.2"},
		State:  &api.PeerState{Messages: &api.Messages{Sent: &api.Message{Open: 1, Update: 2, Keepalive: 5, Total: 8}, Received: &api.Message{Open: 1, Update: 7, Notification: 1, Total: 9}}, LocalCap: []*anypb.Any{mpCap(t, api.Family_AFI_IP), mpCap(t, api.Family_AFI_IP6)}, RemoteCap: []*anypb.Any{mpCap(t, api.Family_AFI_IP)}},
		Timers: &api.Timers{Config: &api.TimersConfig{HoldTime: 90, KeepaliveInterval: 30, ConnectRetry: 120}, State: &api.TimersState{NegotiatedHoldTime: 9, KeepaliveInterval: 3}},
		AfiSafis: []*api.AfiSafi{
			{Config: &api.AfiSafiConfig{Family: v4, Enabled: true}, State: &api.AfiSafiState{Received: 5, Accepted: 4, Advertised: 2}},
			{Config: &api.AfiSafiConfig{Family: v6, Enabled: true}},
		},
	}
	down := &api.Peer{
		Conf:   &api.PeerConf{NeighborAddress: "192.0.2.3"},
		Timers: &api.Timers{Config: &api.TimersConfig{HoldTime: 90, KeepaliveInterval: 30}, State: &api.TimersState{NegotiatedHoldTime: 9, Downtime: timestamppb.New(now.Add(-312 * time.Second))}},
	}
	a3 := netip.MustParseAddr("192.0.2.3")
	bad := plugin.MalformedMessage{Message: "update", Handling: "session-reset", Code: 3, Subcode: 5,
		Text: "code 3(update) subcode 5(attribute length error)", Reason: "nexthop length isn't correct", At: now.Add(-time.Minute)}
	src := fakeSessions{
		peers: []*api.Peer{up, down},
		notif: map[netip.Addr]plugin.Notification{a3: {Code: 6, Subcode: 3, Direction: "received", Text: "code 6(cease) subcode 3(peer deconfigured)", At: now.Add(-time.Minute)}},
		down: map[netip.Addr]plugin.Down{a3: {Reason: "notification-sent code 3(update) subcode 5(attribute length error)", At: now.Add(-time.Minute),
			Malformed: &bad}},
		malformed: map[netip.Addr]plugin.Malformed{a3: {Updates: 2, ByHandling: map[string]uint64{"treat-as-withdraw": 1, "session-reset": 1}, Last: bad}},
	}
	out := []status.Peer{
		{Address: "192.0.2.2", State: "established"},
		{Address: "192.0.2.3", State: "active"},
		{Address: "198.51.100.0/24", Prefix: "198.51.100.0/24", State: "listening"},
	}
	addSessions(context.Background(), out, src, now, now)

	p := out[0]
	if p.Timers == nil || *p.Timers != (status.Timers{HoldTime: 90, Keepalive: 30, ConnectRetry: 120, NegotiatedHoldTime: 9, NegotiatedKeepalive: 3}) {
		t.Errorf("timers %+v", p.Timers)
	}
	wantF := []status.Family{{Name: "ipv4-unicast", Negotiated: true, Received: 5, Accepted: 4, Sent: 2}, {Name: "ipv6-unicast"}}
	if len(p.Families) != 2 || p.Families[0] != wantF[0] || p.Families[1] != wantF[1] {
		t.Errorf("families %+v, want %+v", p.Families, wantF)
	}
	if p.Messages == nil || p.Messages.Sent.Update != 2 || p.Messages.Received.Notification != 1 || p.Messages.Received.Total != 9 {
		t.Errorf("messages %+v", p.Messages)
	}
	if p.DowntimeSeconds != nil || p.LastError != nil || p.LastNotification != nil {
		t.Errorf("established peer: downtime %v, last error %v, notification %v", p.DowntimeSeconds, p.LastError, p.LastNotification)
	}
	q := out[1]
	if q.DowntimeSeconds == nil || *q.DowntimeSeconds != 312 {
		t.Errorf("downtime %v, want 312", q.DowntimeSeconds)
	}
	if q.Timers.NegotiatedHoldTime != 0 {
		t.Errorf("a session that is down shows a negotiated hold time: %+v", q.Timers)
	}
	if n := q.LastNotification; n == nil || n.Code != 6 || n.Subcode != 3 || n.Direction != "received" || n.At != "2026-12-01T11:59:00Z" {
		t.Errorf("notification %+v", n)
	}
	if e := q.LastError; e == nil || !strings.HasPrefix(e.Reason, "notification-sent") || e.At != "2026-12-01T11:59:00Z" ||
		e.Malformed != "malformed update: nexthop length isn't correct (session-reset, code 3(update) subcode 5(attribute length error))" {
		t.Errorf("last error %+v", e)
	}
	if m := q.Malformed; m == nil || m.Updates != 2 || m.ByHandling["treat-as-withdraw"] != 1 || m.Last.Reason != "nexthop length isn't correct" ||
		m.Last.At != "2026-12-01T11:59:00Z" || m.Last.Code != 3 || m.Last.Subcode != 5 {
		t.Errorf("malformed %+v", m)
	}
	if p.Malformed != nil {
		t.Errorf("a peer that sent nothing malformed: %+v", p.Malformed)
	}
	if r := out[2]; r.Timers != nil || r.Families != nil || r.LastError != nil {
		t.Errorf("range got session fields: %+v", r)
	}
}

// TestStatusNextKey: a keychain peer's /status names the next scheduled
// key and when it starts; after the last switch there is none.
func TestStatusNextKey(t *testing.T) {
	at := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	c := cfg(t, `
[[keychains]]
name = "core"
  [[keychains.keys]]
  id = 1
  secret = "Chain-One"
  [[keychains.keys]]
  id = 2
  secret = "Chain-Two"
  send-from = "`+at.Format(time.RFC3339)+`"
[[peers]]
address = "192.0.2.2"
asn = 65002
keychain = "core"
`)
	m, _ := start(t, c, newFakeSockets(), io.Discard)
	a := m.Status()[0].Auth
	if a.NextKeyID == nil || *a.NextKeyID != 2 || a.NextKeyAt != at.Format(time.RFC3339) {
		t.Errorf("next key %v at %q, want 2 at %s", a.NextKeyID, a.NextKeyAt, at.Format(time.RFC3339))
	}
	m.mu.Lock()
	m.now = func() time.Time { return at.Add(time.Minute) }
	m.mu.Unlock()
	if a := m.Status()[0].Auth; a.NextKeyID != nil || a.NextKeyAt != "" {
		t.Errorf("after the last switch: next key %v at %q", a.NextKeyID, a.NextKeyAt)
	}
}
