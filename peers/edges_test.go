package peers

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"

	"github.com/authbgp/authbgpd/internal/testlog"
	"github.com/authbgp/authbgpd/keys"
	"github.com/authbgp/authbgpd/plugin"
	"github.com/authbgp/authbgpd/tcpsock"
)

const insideRange = `
[[peers]]
address = "192.0.2.2"
asn = 65002
password = "Static-Key-A"
[[peers]]
prefix = "192.0.2.0/24"
asn = 65010
password = "Range-Key-B"
`

// established feeds GoBGP's event for an established session and waits
// until the manager has taken it.
func establish(t *testing.T, m *Manager, b *fakeBGP, peer, local, remote string) {
	t.Helper()
	b.setState(peer, api.PeerState_ESTABLISHED)
	b.events <- plugin.PeerEvent{Peer: netip.MustParseAddr(peer), State: "established",
		Local: netip.MustParseAddrPort(local), Remote: netip.MustParseAddrPort(remote), Time: time.Now()}
	waitFor(t, "session "+peer, func() bool {
		m.mu.Lock()
		defer m.mu.Unlock()
		s := m.sess[nbr("", netip.MustParseAddr(peer))]
		return s != nil && s.state == "established"
	})
}

// Item 2: a range's key change re-keys the range's sessions, never the
// live socket of a static peer inside the range (the most specific match
// owns a session, as the kernel's key lookup does).
func TestRangeRekeySparesStaticPeerInside(t *testing.T) {
	s := newFakeSockets()
	var logs testlog.Buffer
	m, b := start(t, cfg(t, insideRange), s, &logs)
	// GoBGP knows the dynamic neighbor too (accepted through the range).
	b.mu.Lock()
	b.peers["192.0.2.7"] = &api.Peer{Conf: &api.PeerConf{NeighborAddress: "", PeerGroup: groupName("", netip.MustParsePrefix("192.0.2.0/24"))}}
	b.mu.Unlock()
	establish(t, m, b, "192.0.2.2", "192.0.2.1:179", "192.0.2.2:40001")
	establish(t, m, b, "192.0.2.7", "192.0.2.1:179", "192.0.2.7:40002")
	if _, err := m.Reload(context.Background(), cfg(t, strings.Replace(insideRange, "Range-Key-B", "Range-Key-B2", 1))); err != nil {
		t.Fatal(err)
	}
	rekeyedAfterHold(t, s, "192.0.2.7:40002", "Range-Key-B2")
	s.mu.Lock()
	defer s.mu.Unlock()
	if got, ok := s.conns["192.0.2.2:40001"]; ok {
		t.Fatalf("static peer's session inside the range re-keyed with the range's key (%d bytes)", len(got))
	}
	if s.conns["192.0.2.7:40002"] != "Range-Key-B2" {
		t.Fatal("the range's own session was not re-keyed")
	}
	if s.listener["192.0.2.2"] != "Static-Key-A" || s.listener["192.0.2.0/24"] != "Range-Key-B2" {
		t.Fatal("listener keys wrong after the range's key change")
	}
}

const followChain = `
[[keychains]]
name = "core"
  [[keychains.keys]]
  id = 1
  secret = "Chain-Key-One"
  [[keychains.keys]]
  id = 2
  secret = "Chain-Key-Two"
  send-from = 2099-01-01T00:00:00Z
[[peers]]
prefix = "198.51.100.0/24"
asn = 65010
keychain = "core"
`

// Item 4: a held-down range released keeps the key the manager decided
// (a followed rollover), not the schedule's.
func TestReleasedRangeKeepsFollowedKey(t *testing.T) {
	s := newFakeSockets()
	var logs testlog.Buffer
	m, _ := start(t, cfg(t, followChain), s, &logs)
	if err := m.SetPeerKeyID("198.51.100.0/24", 2); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.key("198.51.100.0/24"); v != "Chain-Key-Two" {
		t.Fatal("follow did not install key 2")
	}
	// An older key is not a proposal the manager takes.
	if err := m.SetPeerKeyID("198.51.100.0/24", 1); !errors.Is(err, ErrNotNewer) {
		t.Fatalf("proposal of an older key: %v", err)
	}
	// Hold the range down (the kernel shows its key gone, and installing
	// it again fails), then let the key install again.
	s.mu.Lock()
	s.fail["198.51.100.0/24"] = true
	s.visible, s.hide["198.51.100.0/24"] = true, true
	s.mu.Unlock()
	m.Reconcile(context.Background())
	m.mu.Lock()
	held := m.peers["198.51.100.0/24"].heldDown
	m.mu.Unlock()
	if !held {
		t.Fatal("a failed key install must hold the range down")
	}
	s.mu.Lock()
	delete(s.fail, "198.51.100.0/24")
	delete(s.hide, "198.51.100.0/24")
	s.listener["198.51.100.0/24"] = "stale"
	s.mu.Unlock()
	m.Reconcile(context.Background()) // retries the install and releases
	m.mu.Lock()
	st := m.peers["198.51.100.0/24"]
	keyID, heldDown := st.keyID, st.heldDown
	m.mu.Unlock()
	if heldDown || keyID != 2 {
		t.Fatalf("released range: held=%v key %d, want key 2", heldDown, keyID)
	}
	if v, _ := s.key("198.51.100.0/24"); v != "Chain-Key-Two" {
		t.Fatal("released range got the scheduled key instead of the followed one")
	}
	// A keychain pass keeps the decision too.
	m.Reconcile(context.Background())
	if v, _ := s.key("198.51.100.0/24"); v != "Chain-Key-Two" {
		t.Fatal("keychain tick undid the followed key")
	}
	if strings.Contains(logs.String(), "Chain-Key") {
		t.Fatal("secret in logs")
	}
}

// Item 6: events lost (GoBGP's fan-out drops them when a buffer is full)
// are made up for by the reconciliation, which reads GoBGP itself.
func TestReconcileRecoversLostEvents(t *testing.T) {
	s := newFakeSockets()
	var logs testlog.Buffer
	m, b := start(t, cfg(t, twoPeers), s, &logs)
	b.mu.Lock()
	b.peers["192.0.2.2"].State = &api.PeerState{NeighborAddress: "192.0.2.2", SessionState: api.PeerState_ESTABLISHED}
	b.mu.Unlock()
	m.Reconcile(context.Background()) // no event was delivered
	for _, p := range m.Status() {
		if p.Address == "192.0.2.2" && p.State != "established" {
			t.Fatalf("state after a lost event: %s", p.State)
		}
	}
}

// GoBGP's state is converged to the config: a peer deleted behind the
// manager's back comes back, a password given to GoBGP behind its back is
// taken away (GoBGP must hold none), and a neighbor the config does not
// name goes.
func TestReconcileConvergesGoBGP(t *testing.T) {
	s := newFakeSockets()
	var logs testlog.Buffer
	m, b := start(t, cfg(t, twoPeers), s, &logs)
	b.mu.Lock()
	delete(b.peers, "192.0.2.3")
	b.peers["192.0.2.2"].Conf.AuthPassword = "Slipped-In"
	b.peers["203.0.113.9"] = &api.Peer{Conf: &api.PeerConf{NeighborAddress: "203.0.113.9"}}
	delete(b.dyn, "198.51.100.0/24")
	b.mu.Unlock()
	m.Reconcile(context.Background())
	if p := b.peer("192.0.2.3"); p == nil {
		t.Fatal("deleted peer not restored")
	}
	if p := b.peer("192.0.2.2"); p == nil || p.Conf.AuthPassword != "" {
		t.Fatal("a password GoBGP was given behind the manager's back stayed")
	}
	if b.peer("203.0.113.9") != nil {
		t.Fatal("unmanaged neighbor left running")
	}
	b.mu.Lock()
	g := b.dyn["198.51.100.0/24"]
	b.mu.Unlock()
	if g != groupName("", netip.MustParsePrefix("198.51.100.0/24")) {
		t.Fatal("lost dynamic range not restored")
	}
	if strings.Contains(logs.String(), "Secret-") {
		t.Fatal("secret in logs")
	}
	noUpdatePeer(t, b)
}

// /status reports observed keys: a key missing from a listener (seen
// through the kernel's view) is not "installed", the drift is shown and
// the key is put back; once it is seen again, installed is true.
func TestStatusReportsObservedKeys(t *testing.T) {
	s := newFakeSockets()
	s.visible = true
	var logs testlog.Buffer
	m, _ := start(t, cfg(t, twoPeers), s, &logs)
	m.Reconcile(context.Background())
	auth := func() (bool, string, string) {
		for _, p := range m.Status() {
			if p.Address == "192.0.2.2" {
				return p.Auth.Installed, p.Auth.Error, p.Auth.Verified
			}
		}
		t.Fatal("peer missing from status")
		return false, "", ""
	}
	if inst, e, by := auth(); !inst || e != "" || by != "kernel" {
		t.Fatalf("healthy: installed=%v error=%q verified=%q", inst, e, by)
	}
	s.mu.Lock()
	s.hide["192.0.2.2"] = true // the kernel no longer shows the key
	delete(s.listener, "192.0.2.2")
	s.mu.Unlock()
	m.Reconcile(context.Background())
	if inst, e, _ := auth(); inst || !strings.Contains(e, "drift") {
		t.Fatalf("missing key: installed=%v error=%q", inst, e)
	}
	if v, _ := s.key("192.0.2.2"); v != "Secret-Alpha" {
		t.Fatal("missing listener key not installed again")
	}
	s.mu.Lock()
	delete(s.hide, "192.0.2.2")
	s.mu.Unlock()
	m.Reconcile(context.Background())
	if inst, e, _ := auth(); !inst || e != "" {
		t.Fatalf("after convergence: installed=%v error=%q", inst, e)
	}
	// A wrong key on the socket is drift too, and so is a key nobody owns.
	s.mu.Lock()
	s.listener["192.0.2.2"] = "Not-The-Key"
	s.listener["203.0.113.0/24"] = "Stray-Key"
	s.mu.Unlock()
	m.Reconcile(context.Background())
	if inst, _, _ := auth(); inst {
		t.Fatal("a wrong key on the listener reported installed")
	}
	if v, _ := s.key("192.0.2.2"); v != "Secret-Alpha" {
		t.Fatal("wrong key not replaced")
	}
	if _, ok := s.key("203.0.113.0/24"); ok {
		t.Fatal("stray listener key not deleted")
	}
	// An established connection of a keyed peer with no key at all is
	// ended (fail closed); one with another key is re-keyed in place.
	s.mu.Lock()
	s.socks = []tcpsock.SocketKeys{
		{Local: netip.MustParseAddrPort("192.0.2.1:179"), Remote: netip.MustParseAddrPort("192.0.2.2:40010"), Family: afInet},
		{Local: netip.MustParseAddrPort("192.0.2.1:179"), Remote: netip.MustParseAddrPort("198.51.100.7:40011"), Family: afInet,
			Keys: []tcpsock.ObservedKey{{Prefix: netip.MustParsePrefix("198.51.100.0/24"), Secret: keys.Secret("Old-Range-Key")}}},
	}
	s.mu.Unlock()
	_, b := m, m.bgp.(*fakeBGP)
	m.Reconcile(context.Background())
	b.mu.Lock()
	calls := strings.Join(b.calls, ",")
	b.mu.Unlock()
	if !strings.Contains(calls, "reset 192.0.2.2") {
		t.Fatalf("unsigned session of a keyed peer not ended: %s", calls)
	}
	s.mu.Lock()
	rekeyed := s.conns["198.51.100.7:40011"]
	s.mu.Unlock()
	if rekeyed != "Secret-Bravo" {
		t.Fatal("connection with another key not re-keyed in place")
	}
	if strings.Contains(logs.String(), "Secret-") || strings.Contains(logs.String(), "Stray-Key") || strings.Contains(logs.String(), "Not-The-Key") {
		t.Fatal("secret in logs")
	}
}

// Item 1: the gRPC door. Every request that would create, change, re-key
// or delete what the config owns is refused naming the file and line;
// peers the config does not name cannot be added; a held-down peer cannot
// be enabled; harmless operations pass.
func TestGuardAPI(t *testing.T) {
	s := newFakeSockets()
	s.fail["192.0.2.2"] = true // held down
	var logs testlog.Buffer
	m, _ := start(t, cfg(t, twoPeers+`
[[peers]]
address = "192.0.2.4"
asn = 65004
password = "Secret-Delta"
`), s, &logs)
	ctx := context.Background()
	grp := groupName("", netip.MustParsePrefix("198.51.100.0/24"))
	refused := []struct {
		req  any
		want string
	}{
		{&api.AddPeerRequest{Peer: &api.Peer{Conf: &api.PeerConf{NeighborAddress: "192.0.2.4", PeerAsn: 65004}}}, "192.0.2.4 is configured in r1.toml (line"},
		{&api.UpdatePeerRequest{Peer: &api.Peer{Conf: &api.PeerConf{NeighborAddress: "192.0.2.4", AuthPassword: ""}}}, "192.0.2.4 is configured in r1.toml"},
		{&api.UpdatePeerRequest{Peer: &api.Peer{Conf: &api.PeerConf{NeighborAddress: "192.0.2.4", AuthPassword: "other-pw"}}}, "192.0.2.4 is configured"},
		{&api.DeletePeerRequest{Address: "192.0.2.4"}, "192.0.2.4 is configured"},
		{&api.DeletePeerRequest{Address: "198.51.100.9"}, "in dynamic range 198.51.100.0/24"},
		{&api.AddPeerRequest{Peer: &api.Peer{Conf: &api.PeerConf{NeighborAddress: "203.0.113.5", PeerAsn: 65099}}}, "203.0.113.5 is not in r1.toml"},
		{&api.AddPeerRequest{Peer: &api.Peer{Conf: &api.PeerConf{NeighborAddress: "::ffff:192.0.2.4"}}}, "192.0.2.4 is configured"},
		{&api.EnablePeerRequest{Address: "192.0.2.2"}, "held down"},
		{&api.DeletePeerGroupRequest{Name: grp}, "dynamic range 198.51.100.0/24, configured in r1.toml"},
		{&api.UpdatePeerGroupRequest{PeerGroup: &api.PeerGroup{Conf: &api.PeerGroupConf{PeerGroupName: grp, AuthPassword: "x-pw"}}}, "configured in r1.toml"},
		{&api.AddPeerGroupRequest{PeerGroup: &api.PeerGroup{Conf: &api.PeerGroupConf{PeerGroupName: "mine"}}}, "peer groups are made from the dynamic ranges of r1.toml"},
		{&api.DeleteDynamicNeighborRequest{Prefix: "198.51.100.0/24", PeerGroup: grp}, "dynamic range 198.51.100.0/24 is configured in r1.toml"},
		{&api.AddDynamicNeighborRequest{DynamicNeighbor: &api.DynamicNeighbor{Prefix: "203.0.113.0/24", PeerGroup: grp}}, "ranges are configured in r1.toml only"},
		{&api.StopBgpRequest{}, "restart authbgpd"},
	}
	for _, c := range refused {
		err := m.GuardAPI(ctx, c.req)
		if !errors.Is(err, ErrManagedByConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%T: %v (want %q)", c.req, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "Secret-") {
			t.Errorf("%T: secret in refusal", c.req)
		}
	}
	for _, req := range []any{&api.DisablePeerRequest{Address: "192.0.2.4"}, &api.EnablePeerRequest{Address: "192.0.2.4"},
		&api.ResetPeerRequest{Address: "192.0.2.4"}, &api.ShutdownPeerRequest{Address: "192.0.2.4"},
		&api.ListPeerRequest{}, &api.AddPathRequest{}} {
		if err := m.GuardAPI(ctx, req); err != nil {
			t.Errorf("%T refused: %v", req, err)
		}
	}
}
