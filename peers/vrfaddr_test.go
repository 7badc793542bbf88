package peers

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/peerindex"
	"github.com/authbgp/authbgpd/plugin"
	"github.com/authbgp/authbgpd/tcpsock"
)

// One address, 192.0.2.2, a peer in the default VRF, in blue and in red,
// each with its own key.
const sameAddress = `
[[peers]]
address = "192.0.2.2"
asn = 65001
password = "Default-Key"

[[peers]]
address = "192.0.2.2"
vrf = "blue"
asn = 65002
password = "Blue-Key"

[[peers]]
address = "192.0.2.2"
vrf = "red"
asn = 65003
password = "Red-Key"
`

// TestSameAddressTwoVRFs: the same address in the default VRF, blue and
// red is three peers. Each has its own key, scoped to its VRF's l3index
// on the listeners (which then carry three keys for one prefix: no drift,
// pass after pass); its own GoBGP neighbor in its VRF's instance; each
// instance's dial carries its own VRF's key (and a VRF with no such peer
// dials nothing); its own /status entry, metric label and session, an
// event of one VRF's instance changing only that VRF's session.
func TestSameAddressTwoVRFs(t *testing.T) {
	s := newFakeSockets()
	s.visible = true
	sc := &fakeScopes{links: map[string]Link{}, vrfs: map[string]VRF{"blue": {Index: 7}, "red": {Index: 8}}}
	m, b, logs := startScoped(t, sameAddress, s, sc)
	for scope, want := range map[string]string{"192.0.2.2": "Default-Key", "192.0.2.2 ifindex 7": "Blue-Key", "192.0.2.2 ifindex 8": "Red-Key"} {
		if got, _ := s.key(scope); got != want {
			t.Errorf("listener key %s: %q, want %q (%v)", scope, got, want, s.listener)
		}
	}
	for k, vrf := range map[string]string{"192.0.2.2": "", "blue/192.0.2.2": "blue", "red/192.0.2.2": "red"} {
		if p := b.peer(k); p == nil || p.Conf.AdminDown || p.Transport.GetBindInterface() != vrf || b.vrfOf[k] != vrf {
			t.Errorf("GoBGP neighbor %s: %v (in %q)", k, p, b.vrfOf[k])
		}
	}
	a, remote := netip.MustParseAddr("192.0.2.2"), netip.MustParseAddrPort("192.0.2.2:179")
	for vrf, want := range map[string]string{"": "Default-Key", "blue": "Blue-Key", "red": "Red-Key"} {
		if err := m.dialKey(context.Background(), vrf, a, remote, nil); err != nil {
			t.Fatalf("dial in %q: %v", vrf, err)
		}
		if got := s.dialedWith(remote.String()); got != want {
			t.Errorf("dial in %q keyed with %q, want %q", vrf, got, want)
		}
	}
	if err := m.dialKey(context.Background(), "green", a, remote, nil); err == nil {
		t.Error("a dial of VRF green's instance, which has no such peer, was keyed")
	}
	// Passes find each key in place: no drift, no re-install.
	for range 3 {
		if err := m.pass(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Contains(logs.String(), "drift") {
		t.Errorf("drift logged:\n%s", logs)
	}

	// Blue's session comes up: blue's alone.
	b.events <- plugin.PeerEvent{VRF: "blue", Peer: a, State: "established", Time: time.Now(),
		Local: netip.MustParseAddrPort("192.0.2.1:179"), Remote: netip.MustParseAddrPort("192.0.2.2:40000")}
	blue := peerindex.Neighbor{VRF: "blue", Addr: a}
	waitFor(t, "blue's session published", func() bool { return m.Snapshot().Sessions[blue].Established })
	if sn := m.Snapshot(); sn.Sessions[peerindex.Neighbor{Addr: a}].Established || sn.Sessions[peerindex.Neighbor{VRF: "red", Addr: a}].Established {
		t.Errorf("another VRF's session is up: %v", sn.Sessions)
	}
	st := m.Status()
	states := map[string]string{}
	for _, p := range st {
		if p.Address != "192.0.2.2" || !p.Auth.Installed || p.Auth.Error != "" {
			t.Errorf("status entry %+v", p)
		}
		states[p.VRF] = p.State
	}
	if len(st) != 3 || states[""] == "established" || states["blue"] != "established" || states["red"] == "established" {
		t.Errorf("status: %d entries, states by VRF %v", len(st), states)
	}
	var labels []string
	for _, ps := range MetricStates(st, nil, nil) {
		labels = append(labels, ps.Peer)
	}
	if strings.Join(labels, " ") != "192.0.2.2 blue/192.0.2.2 red/192.0.2.2" {
		t.Errorf("metric labels %q", labels)
	}
	for _, sec := range []string{"Default-Key", "Blue-Key", "Red-Key"} {
		if strings.Contains(logs.String(), sec) {
			t.Fatal("a secret is in the log")
		}
	}
}

// TestConnNeighbor: an observed connection is its remote address in the
// VRF whose device its socket is bound to (GoBGP's VRF instances bind
// theirs); unbound, or bound to a device that is no VRF's, the default
// VRF.
func TestConnNeighbor(t *testing.T) {
	p := &pass{m: &Manager{vrfs: map[string]VRF{"blue": {Index: 7}, "red": {Index: 8}, "gone": {Index: 9, Err: ErrNoDevice}}}}
	remote := netip.MustParseAddrPort("192.0.2.2:40000")
	for ifindex, want := range map[int]string{0: "", 7: "blue", 8: "red", 9: "", 3: ""} {
		got := p.connNeighbor(tcpsock.SocketKeys{Remote: remote, IfIndex: ifindex})
		if got != (peerindex.Neighbor{VRF: want, Addr: remote.Addr()}) {
			t.Errorf("a connection bound to ifindex %d: %v, want VRF %q", ifindex, got, want)
		}
	}
}
