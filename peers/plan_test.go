package peers

import (
	"errors"
	"fmt"
	"net/netip"
	"reflect"
	"testing"

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
	if got, want := planL3mdev(l3mdevView{off: true}), []action{{kind: actL3mdevAccept}}; !reflect.DeepEqual(got, want) {
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
