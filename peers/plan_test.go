package peers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/plugin"
	"github.com/authbgp/authbgpd/tcpsock"
)

// The plan as data: each stage's planner, given what the pass observed and
// what the reconciler applied, returns the exact actions.

func TestPlanGuards(t *testing.T) {
	g1 := []tcpsock.Guard{{Addr: netip.MustParseAddr("fe80::2"), IfIndex: 3}}
	g2 := []tcpsock.Guard{{Addr: netip.MustParseAddr("fe80::2"), IfIndex: 4}}
	for _, c := range []struct {
		name          string
		want, set     []tcpsock.Guard
		guarded, full bool
		port          uint16
		plan          []action
	}{
		{name: "none wanted, none set", full: true, port: 179},
		{name: "new guards, light pass", want: g1, port: 179, plan: []action{{kind: actSetGuards, guards: g1}}},
		{name: "unchanged, light pass", want: g1, set: g1, guarded: true, port: 179},
		{name: "unchanged, full pass: re-asserted, quiet", want: g1, set: g1, guarded: true, full: true, port: 179,
			plan: []action{{kind: actSetGuards, guards: g1, quiet: true}}},
		{name: "changed", want: g2, set: g1, guarded: true, port: 179, plan: []action{{kind: actSetGuards, guards: g2}}},
		{name: "none wanted any more: cleared", set: g1, guarded: true, port: 179, plan: []action{{kind: actSetGuards}}},
		{name: "not listening", want: g1, full: true},
	} {
		if got := planGuards(c.want, c.set, c.guarded, c.port, c.full); !reflect.DeepEqual(got, c.plan) {
			t.Errorf("%s: plan %+v, want %+v", c.name, got, c.plan)
		}
	}
}

func TestPlanL3mdev(t *testing.T) {
	if got := planL3mdev(l3mdevView{}); got != nil {
		t.Errorf("nothing observed: %+v", got)
	}
	if got := planL3mdev(l3mdevView{err: errors.New("no /proc")}); got != nil {
		t.Errorf("unreadable: %+v", got)
	}
	if got, want := planL3mdev(l3mdevView{on: true}), []action{{kind: actL3mdevAccept}}; !reflect.DeepEqual(got, want) {
		t.Errorf("off: %+v, want %+v", got, want)
	}
	if got := observeL3mdev(nil, 179); got != (l3mdevView{}) {
		t.Errorf("no VRF peers: read the sysctl: %+v", got)
	}
}

// TestHoldFailed: a pass computes its desired state once (desiredOf) and
// holds down the install failures of its key stage with holdFailed, which
// decides what ComputeDesired with those failures as Inputs.Held decides,
// without changing the state it was given.
func TestHoldFailed(t *testing.T) {
	c := cfg(t, chainCfg)
	failed := errors.New("injected install failure")
	in := Inputs{Config: c, Now: t0}
	base := desiredOf(in)
	for _, held := range []map[string]error{
		nil,
		{"192.0.2.2": failed},
		{"192.0.2.3": failed, "192.0.2.4": failed},              // an unkeyed peer has nothing to hold down
		{"198.51.100.0/24": failed, "203.0.113.9": failed},      // held already (no key yet); not configured
		{"192.0.2.2": failed, "192.0.2.3": failed, "x": failed}, // all keyed
	} {
		in.Held = held
		got, want := holdFailed(base, held), ComputeDesired(in)
		for id, w := range want.Peers {
			g := got.Peers[id]
			if g.HeldDown != w.HeldDown || fmt.Sprint(g.Err) != fmt.Sprint(w.Err) {
				t.Errorf("held %v: %s held=%v (%v), ComputeDesired says %v (%v)", held, id, g.HeldDown, g.Err, w.HeldDown, w.Err)
			}
		}
		if len(got.Peers) != len(want.Peers) {
			t.Errorf("held %v: %d peers, want %d", held, len(got.Peers), len(want.Peers))
		}
	}
	if w := base.Peers["192.0.2.2"]; w.HeldDown {
		t.Errorf("holdFailed changed the desired state it was given: %+v", w)
	}
}

// unstarted is a manager on fakes whose passes the test runs itself
// (runPass: no loop runs them).
func unstarted(t *testing.T, c *config.Config, s *fakeSockets) (*Manager, *fakeBGP) {
	return unstartedScoped(t, c, s, nil)
}

func unstartedScoped(t *testing.T, c *config.Config, s Sockets, sc ScopeObserver) (*Manager, *fakeBGP) {
	t.Helper()
	l := logrus.New()
	l.SetOutput(io.Discard)
	m := New(Options{Config: c, Logger: l, Sockets: s, Scopes: sc})
	b := newFakeBGP()
	m.mu.Lock()
	m.started, m.bgp = true, b
	if p := c.Global.ListenPort; p > 0 {
		m.port = uint16(p)
	}
	m.preflight(c)
	m.mu.Unlock()
	return m, b
}

// passDone runs a pass and describes the actions it carried out, in order.
func passDone(m *Manager, full bool) []string {
	var out []string
	for _, a := range m.runPass(context.Background(), full).done {
		out = append(out, describeAction(a))
	}
	return out
}

// reloadTo makes next the config of the manager's next pass (as Reload
// does, without its pass).
func reloadTo(m *Manager, next *config.Config) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.preflight(next)
	m.cfg = next
}

func describeAction(a action) string {
	admin := ""
	if a.adminDown {
		admin = " admin-down"
	}
	switch a.kind {
	case actSetListenerKey:
		return "set-listener-key " + a.key.Scope()
	case actDeleteListenerKey:
		return "delete-listener-key " + a.key.Scope()
	case actSetConnKey:
		return "set-conn-key " + a.remote.String()
	case actAddNeighbor:
		return "add-neighbor " + a.peer.Address.String() + admin
	case actReaddNeighbor:
		return "readd-neighbor " + a.peer.Address.String() + admin
	case actDeleteNeighbor:
		return "delete-neighbor " + a.addr.String()
	case actAddRange:
		return "add-range " + a.peer.Prefix.String()
	case actDropRange:
		return "drop-range " + a.peer.Prefix.String()
	case actDeleteRange:
		return "delete-range " + a.prefix
	case actResetSession:
		return "reset-session " + a.addr.String()
	case actSetGuards:
		return fmt.Sprintf("set-guards %d", len(a.guards))
	case actL3mdevAccept:
		return "l3mdev-accept"
	case actSetListenerAO:
		return "set-listener-ao " + a.ao.Prefix.String()
	case actDeleteListenerAO:
		return "delete-listener-ao " + a.ao.Prefix.String()
	case actSetConnAO:
		return "set-conn-ao " + a.remote.String()
	}
	return fmt.Sprintf("action %d", a.kind)
}

// TestPassPlan: the actions a pass carries out, in the stages' order, for
// the changes a reload makes: keys go on the listeners before GoBGP learns
// of a peer, a failed install adds the peer admin down, a key change
// re-keys the established connection in place, and a removed peer leaves
// GoBGP before its key leaves the listeners.
func TestPassPlan(t *testing.T) {
	const one = "[[peers]]\naddress = \"192.0.2.2\"\nasn = 65002\npassword = \"Secret-Alpha\"\n"
	const other = "[[peers]]\naddress = \"192.0.2.9\"\nasn = 65009\n"
	t.Run("new peer: key before neighbor", func(t *testing.T) {
		m, _ := unstarted(t, cfg(t, twoPeers), newFakeSockets())
		got := passDone(m, true)
		want := []string{"set-listener-key 192.0.2.2", "set-listener-key 198.51.100.0/24",
			"add-neighbor 192.0.2.2", "add-neighbor 192.0.2.3", "add-range 198.51.100.0/24"}
		if !slices.Equal(got, want) {
			t.Fatalf("plan %q, want %q", got, want)
		}
		if got := passDone(m, true); len(got) != 0 {
			t.Fatalf("a second pass acts: %q", got)
		}
	})
	t.Run("install failure: neighbor added admin down", func(t *testing.T) {
		s := newFakeSockets()
		s.fail["192.0.2.2"] = true
		m, _ := unstarted(t, cfg(t, one), s)
		got := passDone(m, true)
		want := []string{"set-listener-key 192.0.2.2", "add-neighbor 192.0.2.2 admin-down"}
		if !slices.Equal(got, want) {
			t.Fatalf("plan %q, want %q", got, want)
		}
		s.fail["192.0.2.2"] = false
		got = passDone(m, true)
		want = []string{"set-listener-key 192.0.2.2", "readd-neighbor 192.0.2.2"}
		if !slices.Equal(got, want) {
			t.Fatalf("after the failure: plan %q, want %q", got, want)
		}
	})
	t.Run("key change: listener key, then the connection in place", func(t *testing.T) {
		m, b := unstarted(t, cfg(t, one), newFakeSockets())
		m.rekeyHold = 0 // no hold of the replaced key (rekeyhold.go)
		passDone(m, true)
		b.setState("192.0.2.2", api.PeerState_ESTABLISHED)
		m.event(plugin.PeerEvent{Peer: netip.MustParseAddr("192.0.2.2"), State: "established", Time: time.Now(),
			Local: netip.MustParseAddrPort("192.0.2.1:179"), Remote: netip.MustParseAddrPort("192.0.2.2:40000")})
		reloadTo(m, cfg(t, strings.Replace(one, "Secret-Alpha", "Secret-Omega", 1)))
		got := passDone(m, true)
		want := []string{"set-listener-key 192.0.2.2", "set-conn-key 192.0.2.2:40000"}
		if !slices.Equal(got, want) {
			t.Fatalf("plan %q, want %q", got, want)
		}
	})
	t.Run("TCP-AO peer: MKTs before neighbor; to TCP-MD5: neighbor out, MKTs off, key on, neighbor back", func(t *testing.T) {
		c := cfg(t, aoConfig(time.Now().Add(time.Hour)))
		m, _ := unstartedScoped(t, c, newFakeAO(), nil)
		got := passDone(m, true)
		want := []string{"set-listener-ao 192.0.2.2/32", "set-listener-key 192.0.2.3", "set-listener-ao 198.51.100.0/24",
			"add-neighbor 192.0.2.2", "add-neighbor 192.0.2.3", "add-range 198.51.100.0/24"}
		if !slices.Equal(got, want) {
			t.Fatalf("plan %q, want %q", got, want)
		}
		reloadTo(m, cfg(t, strings.Replace(aoConfig(time.Now().Add(time.Hour)), "address = \"192.0.2.2\"\nasn = 65002\nkeychain = \"ao\"", "address = \"192.0.2.2\"\nasn = 65002\npassword = \"Now-Md5\"", 1)))
		got = passDone(m, true)
		want = []string{"delete-neighbor 192.0.2.2", "delete-listener-ao 192.0.2.2/32", "set-listener-key 192.0.2.2", "add-neighbor 192.0.2.2"}
		if !slices.Equal(got, want) {
			t.Fatalf("to TCP-MD5: plan %q, want %q", got, want)
		}
	})
	t.Run("not listening: the key leaves the record alone", func(t *testing.T) {
		m, _ := unstarted(t, cfg(t, "listen-port = -1\n"+one+other), newFakeSockets())
		passDone(m, true)
		reloadTo(m, cfg(t, "listen-port = -1\n"+other))
		got := passDone(m, true)
		want := []string{"delete-neighbor 192.0.2.2"}
		if !slices.Equal(got, want) {
			t.Fatalf("plan %q, want %q", got, want)
		}
	})
	t.Run("removed peer: neighbor, then key", func(t *testing.T) {
		m, _ := unstarted(t, cfg(t, one+other), newFakeSockets())
		passDone(m, true)
		reloadTo(m, cfg(t, other))
		got := passDone(m, true)
		want := []string{"delete-neighbor 192.0.2.2", "delete-listener-key 192.0.2.2"}
		if !slices.Equal(got, want) {
			t.Fatalf("plan %q, want %q", got, want)
		}
	})
}

// TestPlanGoBGP: the GoBGP stage's plan from its facts.
func TestPlanGoBGP(t *testing.T) {
	c := cfg(t, twoPeers)
	static, rng := c.Peer("192.0.2.2"), c.Peer("198.51.100.0/24")
	held := errors.New("injected: key not installed")
	ok := Want{Cfg: static}
	down := Want{Cfg: static, HeldDown: true, Err: held}
	rOK, rDown := Want{Cfg: rng}, Want{Cfg: rng, HeldDown: true, Err: held}
	unresolved := Want{Cfg: &config.Peer{Interface: "eth1", ASN: 65002}}
	for _, tc := range []struct {
		name string
		f    gobgpFacts
		want []action
	}{
		{"new", gobgpFacts{w: ok}, []action{{kind: actAddNeighbor, peer: static, step: stepAdd}}},
		{"new, held down", gobgpFacts{w: down}, []action{{kind: actAddNeighbor, peer: static, adminDown: true, step: stepAdd}}},
		{"GoBGP has it: re-added", gobgpFacts{w: ok, known: true}, []action{{kind: actReaddNeighbor, peer: static, step: stepAdd}}},
		{"steady", gobgpFacts{w: ok, inGoBGP: true}, nil},
		{"held down now", gobgpFacts{w: down, inGoBGP: true}, []action{{kind: actReaddNeighbor, peer: static, adminDown: true, step: stepAdmin}}},
		{"released", gobgpFacts{w: ok, inGoBGP: true, heldDown: true}, []action{{kind: actReaddNeighbor, peer: static, step: stepAdmin}}},
		{"GoBGP holds a password", gobgpFacts{w: ok, inGoBGP: true, force: true}, []action{{kind: actReaddNeighbor, peer: static, step: stepAdmin}}},
		{"restart", gobgpFacts{w: ok, inGoBGP: true, restart: restartKeyChange}, []action{{kind: actReaddNeighbor, peer: static, step: stepRestart, why: restartKeyChange}}},
		{"stuck in OpenSent", gobgpFacts{w: ok, inGoBGP: true, stuck: true, refusals: 3}, []action{{kind: actReaddNeighbor, peer: static, step: stepStuck, refusals: 3}}},
		{"unresolved", gobgpFacts{w: unresolved}, nil},
		{"new range", gobgpFacts{w: rOK}, []action{{kind: actAddRange, peer: rng, step: stepAdd}}},
		{"range steady", gobgpFacts{w: rOK, inGoBGP: true}, nil},
		{"range lost", gobgpFacts{w: rOK, inGoBGP: true, lost: true}, []action{{kind: actDropRange, peer: rng, step: stepRemove}, {kind: actAddRange, peer: rng, step: stepAdd}}},
		{"range held down", gobgpFacts{w: rDown, inGoBGP: true}, []action{{kind: actDropRange, peer: rng, step: stepAdmin}}},
		{"range held down, not in GoBGP", gobgpFacts{w: rDown}, nil},
	} {
		if got := planGoBGP([]gobgpFacts{tc.f}); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: plan %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestPlanUnmanaged: GoBGP's neighbors and ranges no config names go, in
// order; a configured range's sessions and what the pass took out stay.
func TestPlanUnmanaged(t *testing.T) {
	c := cfg(t, twoPeers)
	d := desiredOf(Inputs{Config: c, Now: t0})
	nb := func(group string) *api.Peer { return &api.Peer{Conf: &api.PeerConf{PeerGroup: group}} }
	rangeGroup := groupName("", netip.MustParsePrefix("198.51.100.0/24"))
	ip := netip.MustParseAddr
	a := func(s string) neighbor { return nbr("", ip(s)) }
	gv := gobgpView{peers: map[neighbor]*api.Peer{
		a("192.0.2.2"): nb(""), a("198.51.100.7"): nb(rangeGroup), a("203.0.113.9"): nb(""), a("203.0.113.1"): nb(""),
		a("203.0.113.5"): nb(""), a("198.51.200.1"): nb(rangeGroup),
		// The static peer's address in VRF blue: no peer of the config.
		nbr("blue", ip("192.0.2.2")): nb(""),
	}, dynamic: map[string]string{rangeGroup: "198.51.100.0/24", "rogue": "203.0.113.0/24", "rogue2": "10.0.0.0/8"}}
	static := func(x neighbor) bool { return x == a("192.0.2.2") || x == a("192.0.2.3") }
	got := planUnmanaged(d, gv, static, map[neighbor]bool{a("203.0.113.5"): true}, map[string]bool{})
	want := []action{{kind: actDeleteNeighbor, addr: ip("192.0.2.2"), vrf: "blue"}, {kind: actDeleteNeighbor, addr: ip("198.51.200.1")},
		{kind: actDeleteNeighbor, addr: ip("203.0.113.1")}, {kind: actDeleteNeighbor, addr: ip("203.0.113.9")},
		{kind: actDeleteRange, prefix: "10.0.0.0/8", group: "rogue2"}, {kind: actDeleteRange, prefix: "203.0.113.0/24", group: "rogue"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("plan %+v\nwant %+v", got, want)
	}
}

// TestPlanReadds: a reload's plan names the peers the pass would take out
// of GoBGP and put back, from the pass's own planners against what it
// applied: a BGP change re-adds, a key change does not, a key that cannot
// be used holds the peer down (its neighbor re-added admin down).
func TestPlanReadds(t *testing.T) {
	m, _ := start(t, cfg(t, twoPeers), newFakeSockets(), io.Discard)
	for _, c := range []struct {
		name string
		next string
		want []string
	}{
		{"unchanged", twoPeers, nil},
		{"key", strings.Replace(twoPeers, "Secret-Alpha", "Secret-Delta", 1), nil},
		{"asn", strings.Replace(twoPeers, "asn = 65002", "asn = 65022", 1), []string{"192.0.2.2"}},
		{"range asn", strings.Replace(twoPeers, "asn = 65010", "asn = 65011", 1), []string{"198.51.100.0/24"}},
		{"auth off", strings.Replace(twoPeers, "password = \"Secret-Alpha\"\n", "", 1), []string{"192.0.2.2"}},
		{"removed", strings.Replace(twoPeers, "address = \"192.0.2.3\"", "address = \"192.0.2.4\"", 1), nil},
		{"key not valid yet", strings.Replace(twoPeers, "password = \"Secret-Alpha\"", "keychain = \"later\"", 1) +
			"[[keychains]]\nname = \"later\"\n  [[keychains.keys]]\n  id = 7\n  secret = \"Later-Seven\"\n  send-from = 2999-12-01T14:00:00Z\n", []string{"192.0.2.2"}},
	} {
		if got := m.Plan(cfg(t, c.next)).Readds; !slices.Equal(got, c.want) {
			t.Errorf("%s: readds %q, want %q", c.name, got, c.want)
		}
	}
}

// TestPlanStrays: keys on the listeners that no record wants go, each scope
// once, those this pass deleted already left alone.
func TestPlanStrays(t *testing.T) {
	pf := netip.MustParsePrefix
	l4 := netip.MustParseAddrPort("0.0.0.0:179")
	l6 := netip.MustParseAddrPort("[::]:179")
	ls := []tcpsock.SocketKeys{
		{Local: l4, Listening: true, Keys: []tcpsock.ObservedKey{{Prefix: pf("192.0.2.2/32")}, {Prefix: pf("192.0.2.9/32")}, {Prefix: pf("192.0.2.7/32")}}},
		{Local: l6, Listening: true, Keys: []tcpsock.ObservedKey{{Prefix: pf("192.0.2.9/32")}, {Prefix: pf("2001:db8::9/128")}}},
	}
	got := planStrays(ls, map[netip.Prefix]bool{pf("192.0.2.2/32"): true}, map[netip.Prefix]bool{pf("192.0.2.7/32"): true})
	want := []action{{kind: actDeleteListenerKey, local: l4, key: md5auth.Key{Prefix: pf("192.0.2.9/32")}},
		{kind: actDeleteListenerKey, local: l6, key: md5auth.Key{Prefix: pf("2001:db8::9/128")}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("plan %+v\nwant %+v", got, want)
	}
	ao := []tcpsock.AOSocket{
		{Local: l4, Listening: true, Keys: []tcpsock.ObservedAOKey{{AOKey: tcpsock.AOKey{Prefix: pf("192.0.2.2/32")}}, {AOKey: tcpsock.AOKey{Prefix: pf("192.0.2.9/32")}}, {AOKey: tcpsock.AOKey{Prefix: pf("192.0.2.9/32")}}}},
		{Local: netip.MustParseAddrPort("0.0.0.0:1179"), Listening: true, Keys: []tcpsock.ObservedAOKey{{AOKey: tcpsock.AOKey{Prefix: pf("192.0.2.8/32")}}}},
		{Local: l4, Remote: netip.MustParseAddrPort("192.0.2.6:40000"), Keys: []tcpsock.ObservedAOKey{{AOKey: tcpsock.AOKey{Prefix: pf("192.0.2.6/32")}}}},
	}
	got = planStraysAO(ao, 179, map[netip.Prefix]bool{pf("192.0.2.2/32"): true}, nil)
	want = []action{{kind: actDeleteListenerAO, local: l4, ao: tcpsock.AOSet{Prefix: pf("192.0.2.9/32")}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("TCP-AO plan %+v\nwant %+v", got, want)
	}
}

// TestPlanConn: an unsigned connection is keyed, then its session ended;
// one with another key is re-keyed in place; TCP-AO's likewise.
func TestPlanConn(t *testing.T) {
	a := netip.MustParseAddr("192.0.2.2")
	l, r := netip.MustParseAddrPort("192.0.2.1:179"), netip.MustParseAddrPort("192.0.2.2:40000")
	k := md5auth.AddrKey(a, []byte("Secret-Alpha"))
	f := connFacts{nb: nbr("", a), local: l, remote: r, key: k}
	if got := planConn(f); got != nil {
		t.Errorf("in line: %+v", got)
	}
	f.unsigned = true
	want := []action{{kind: actSetConnKey, addr: a, local: l, remote: r, key: k, step: stepUnsigned},
		{kind: actResetSession, addr: a, why: "authbgpd: session without TCP-MD5"}}
	if got := planConn(f); !reflect.DeepEqual(got, want) {
		t.Errorf("unsigned: %+v, want %+v", got, want)
	}
	f.unsigned, f.rekey = false, true
	want = []action{{kind: actSetConnKey, addr: a, local: l, remote: r, key: k, step: stepRekey}}
	if got := planConn(f); !reflect.DeepEqual(got, want) {
		t.Errorf("another key: %+v, want %+v", got, want)
	}
	set := tcpsock.AOSet{Prefix: netip.PrefixFrom(a, 32), Current: -1, RNext: 2}
	ao := aoConnFacts{nb: nbr("", a), local: l, remote: r, set: set}
	if got := planConnAO(ao); got != nil {
		t.Errorf("TCP-AO in line: %+v", got)
	}
	ao.unsigned = true
	if got, want := planConnAO(ao), []action{{kind: actResetSession, addr: a, why: "authbgpd: session without TCP-AO"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("TCP-AO unsigned: %+v, want %+v", got, want)
	}
	ao.unsigned, ao.differs = false, true
	if got, want := planConnAO(ao), []action{{kind: actSetConnAO, addr: a, local: l, remote: r, ao: set}}; !reflect.DeepEqual(got, want) {
		t.Errorf("TCP-AO differs: %+v, want %+v", got, want)
	}
}

// TestPlanStale: each session judged stale is reset, on the connection it
// was judged on (actStale leaves a newer one alone).
func TestPlanStale(t *testing.T) {
	a, r := netip.MustParseAddr("192.0.2.2"), netip.MustParseAddrPort("192.0.2.2:40000")
	want := []action{{kind: actResetSession, addr: a, remote: r, why: "authbgpd: stale session replaced by a new authenticated connection"}}
	if got := planStale([]staleFacts{{nb: nbr("", a), remote: r}}); !reflect.DeepEqual(got, want) {
		t.Errorf("plan %+v, want %+v", got, want)
	}
	if got := planStale(nil); len(got) != 0 {
		t.Errorf("nothing stale: %+v", got)
	}
}

// TestPassPlanGuards: the guards are an action of the key stage, after the
// listener keys and before GoBGP learns of the peers; a full pass puts them
// there again (they cannot be read back) without counting it as a change,
// so the pass stays steady.
func TestPassPlanGuards(t *testing.T) {
	s := newFakeSockets()
	s.visible = true
	sc := sameAddressScopes()
	m, _ := unstartedScoped(t, cfg(t, unnumbered), s, sc)
	got := passDone(m, true)
	want := []string{"set-listener-key fe80::2", "set-guards 1", "add-neighbor fe80::2%eth1", "add-neighbor fe80::2%eth2"}
	if !slices.Equal(got, want) {
		t.Fatalf("plan %q, want %q", got, want)
	}
	res := m.runPass(context.Background(), true)
	if len(res.done) != 1 || describeAction(res.done[0]) != "set-guards 1" || !res.done[0].quiet || !res.steady {
		t.Fatalf("second full pass: done %+v, steady %v", res.done, res.steady)
	}
	if got := passDone(m, false); len(got) != 0 {
		t.Fatalf("light pass: %q", got)
	}
}
