package peers

import (
	"context"
	"errors"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/keys"
	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/tcpsock"
)

// The key stage's plan as data: planPeerKeys and planRemoval, given a
// peer's desired state, its record as it is and what the pass observed of
// the listeners, return the exact actions; recordKey makes of their
// outcomes what the record then says.

const keyPlanCfg = "[[peers]]\naddress = \"192.0.2.2\"\nasn = 65002\npassword = \"Secret-Alpha\"\n"

// wantOf is the desired state of peer id in config c at t0.
func wantOf(t *testing.T, c *config.Config, sc *fakeScopes, id string) Want {
	t.Helper()
	in := Inputs{Config: c, Now: t0}
	if sc != nil {
		in.Links, in.VRFs = sc.links, sc.vrfs
	}
	w, ok := desiredOf(in).Peers[id]
	if !ok {
		t.Fatalf("no desired peer %s", id)
	}
	return w
}

// installedRec is the record of w's peer with key secret on the listeners
// (scoped to l3), as a pass leaves it.
func installedRec(w Want, secret string, l3 int) keyRec {
	return keyRec{id: w.Cfg.ID(), cfg: w.Cfg, shape: w.Cfg, inGoBGP: true, secret: keys.Secret(secret), keyID: w.Key.KeyID, l3: l3, installed: true, ok: true}
}

func TestPlanPeerKeys(t *testing.T) {
	md5 := wantOf(t, cfg(t, keyPlanCfg), nil, "192.0.2.2")
	ao := wantOf(t, cfg(t, aoConfig(t0.Add(time.Hour))), nil, "192.0.2.2")
	if !ao.Key.Usable() || ao.HeldDown {
		t.Fatalf("TCP-AO want: %+v", ao)
	}
	unkeyed := wantOf(t, cfg(t, strings.Replace(keyPlanCfg, "password = \"Secret-Alpha\"\n", "", 1)), nil, "192.0.2.2")
	sc := sameAddressScopes()
	un := cfg(t, unnumbered)
	owner, sharer := wantOf(t, un, sc, "eth1"), wantOf(t, un, sc, "eth2")
	if owner.SharesListener != "" || sharer.SharesListener != "eth1" {
		t.Fatalf("shared address: eth1 %q, eth2 %q", owner.SharesListener, sharer.SharesListener)
	}
	listening := keyObs{port: 179}
	notListening := keyObs{}
	set := func(w Want) action {
		return action{kind: actSetListenerKey, peer: w.Cfg, key: mdKey(w.Cfg, w.IfIndex, w.Key.MD5), step: stepInstall}
	}
	setAO := action{kind: actSetListenerAO, peer: ao.Cfg, ao: ao.Key.AO, step: stepInstallAO}
	note := func(w Want, step actStep) action { return action{kind: actRecord, peer: w.Cfg, step: step} }
	aoRec := keyRec{cfg: ao.Cfg, shape: ao.Cfg, inGoBGP: true, keyID: ao.Key.KeyID, installed: true, ok: true, ao: ao.Key.AO}
	switched := aoRec
	switched.ao.Current, switched.ao.RNext = 9, 9
	otherVRF := aoRec
	otherVRF.ao = cloneAOSet(ao.Key.AO)
	scopeAO(&otherVRF.ao, 7)
	lkeys := func(secret string) []listenerKeyIndex {
		return indexListenerKeys([]tcpsock.SocketKeys{{Local: netip.MustParseAddrPort("0.0.0.0:179"), Family: afInet, Listening: true,
			Keys: []tcpsock.ObservedKey{{Prefix: netip.MustParsePrefix("192.0.2.2/32"), Secret: keys.Secret(secret)}}}})
	}
	old := installedRec(md5, "Secret-Old", 0)
	for _, c := range []struct {
		name string
		w    Want
		r    keyRec
		o    keyObs
		want []action
	}{
		{"new TCP-MD5 peer", md5, keyRec{cfg: md5.Cfg, keyID: -1}, listening, []action{set(md5)}},
		{"steady", md5, installedRec(md5, "Secret-Alpha", 0), listening, nil},
		{"steady, the listeners seen to carry it", md5, installedRec(md5, "Secret-Alpha", 0),
			keyObs{port: 179, seen: true, lkeys: lkeys("Secret-Alpha")}, nil},
		{"the listeners seen to carry another key: drift, installed again", md5, installedRec(md5, "Secret-Alpha", 0),
			keyObs{port: 179, seen: true, lkeys: lkeys("Secret-Other")},
			[]action{{kind: actRecord, peer: md5.Cfg, step: stepDrift, why: "listener 0.0.0.0:179 carries another key for 192.0.2.2/32: installing it again"}, set(md5)}},
		{"key change in place: installed over the old one", md5, old, listening, []action{set(md5)}},
		{"held down by an earlier failure: installed again", md5, func() keyRec { r := installedRec(md5, "Secret-Alpha", 0); r.held = errors.New("x"); return r }(),
			listening, []action{set(md5)}},
		{"another scope: the old key goes first", md5, installedRec(md5, "Secret-Alpha", 7), listening,
			[]action{{kind: actDeleteListenerKey, peer: md5.Cfg, key: mdKey(md5.Cfg, 7, keys.Secret("Secret-Alpha")), step: stepDropKey}, set(md5)}},
		{"observation only: its key id and state", md5, func() keyRec { r := installedRec(md5, "Secret-Alpha", 0); r.ok = false; return r }(),
			listening, []action{note(md5, stepKeep)}},
		{"TCP-AO before: its keys go", md5, func() keyRec { r := aoRec; r.cfg = md5.Cfg; return r }(), listening,
			[]action{{kind: actDeleteListenerAO, peer: md5.Cfg, ao: tcpsock.AOSet{Prefix: ao.Key.AO.Prefix}, step: stepDropAO}, set(md5)}},
		{"new TCP-AO peer", ao, keyRec{cfg: ao.Cfg, keyID: -1}, listening, []action{setAO}},
		{"TCP-AO steady", ao, aoRec, listening, nil},
		{"TCP-AO held down by an earlier failure: installed again", ao, func() keyRec { r := aoRec; r.held = errors.New("x"); return r }(),
			listening, []action{setAO}},
		{"TCP-AO: another active key, no install", ao, switched, listening, []action{note(ao, stepKeepAO)}},
		{"TCP-AO: another VRF, its keys go first", ao, otherVRF, listening,
			[]action{{kind: actDeleteListenerAO, peer: ao.Cfg, ao: tcpsock.AOSet{Prefix: ao.Key.AO.Prefix}, step: stepDropAO}, setAO}},
		{"TCP-MD5 before: its key goes", ao, func() keyRec { r := installedRec(md5, "Secret-Alpha", 0); r.cfg = ao.Cfg; return r }(), listening,
			[]action{{kind: actDeleteListenerKey, peer: ao.Cfg, key: md5auth.AddrKey(netip.MustParseAddr("192.0.2.2"), keys.Secret("Secret-Alpha")), step: stepDropKey}, setAO}},
		{"not listening: the old key goes from the record alone", ao,
			func() keyRec { r := installedRec(md5, "Secret-Alpha", 0); r.cfg = ao.Cfg; return r }(), notListening,
			[]action{note(ao, stepDropKey), setAO}},
		{"unkeyed now: the key goes (the record then says unkeyed)", unkeyed, installedRec(unkeyed, "Secret-Alpha", 0), listening,
			[]action{{kind: actDeleteListenerKey, peer: unkeyed.Cfg, key: mdKey(unkeyed.Cfg, 0, keys.Secret("Secret-Alpha")), step: stepDropKey}}},
		{"unkeyed now, after an error", unkeyed, keyRec{cfg: unkeyed.Cfg, keyID: -1, err: errors.New("x")}, listening, []action{note(unkeyed, stepUnkeyed)}},
		{"unkeyed, steady", unkeyed, keyRec{cfg: unkeyed.Cfg, keyID: -1}, listening, nil},
		{"interface peer owning the listener key", owner, keyRec{cfg: owner.Cfg, keyID: -1}, listening, []action{set(owner)}},
		{"interface peer sharing it", sharer, keyRec{cfg: sharer.Cfg, keyID: -1}, listening, []action{note(sharer, stepShare)}},
	} {
		if got := planPeerKeys(nil, c.w, c.r, c.o); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: plan %+v\nwant %+v", c.name, got, c.want)
		}
	}
}

// TestPlanRemoval: a removed peer leaves GoBGP, then its key the listeners
// (from the record alone when GoBGP does not listen), then its record goes;
// a changed peer leaves GoBGP and keeps its key.
func TestPlanRemoval(t *testing.T) {
	c := cfg(t, keyPlanCfg)
	w := wantOf(t, c, nil, "192.0.2.2")
	r := installedRec(w, "Secret-Alpha", 0)
	none := Desired{Peers: map[string]Want{}}
	gone := action{kind: actDeleteNeighbor, peer: w.Cfg, addr: w.Cfg.Address, step: stepRemove}
	forget := action{kind: actRecord, peer: w.Cfg, step: stepForget}
	got := planRemoval(nil, r, none, keyObs{port: 179})
	want := []action{gone, {kind: actDeleteListenerKey, peer: w.Cfg, key: mdKey(w.Cfg, 0, r.secret), step: stepDropKey}, forget}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("removed: plan %+v\nwant %+v", got, want)
	}
	got = planRemoval(nil, r, none, keyObs{})
	want = []action{gone, {kind: actRecord, peer: w.Cfg, step: stepDropKey}, forget}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("removed, not listening: plan %+v\nwant %+v", got, want)
	}
	d := desiredOf(Inputs{Config: c, Now: t0})
	if got := planRemoval(nil, r, d, keyObs{port: 179}); got != nil {
		t.Errorf("unchanged: plan %+v", got)
	}
	next := cfg(t, strings.Replace(keyPlanCfg, "asn = 65002", "asn = 65022", 1))
	nw := wantOf(t, next, nil, "192.0.2.2")
	got = planRemoval(nil, r, desiredOf(Inputs{Config: next, Now: t0}), keyObs{port: 179})
	want = []action{gone, {kind: actRecord, peer: nw.Cfg, step: stepChanged}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("changed: plan %+v\nwant %+v", got, want)
	}
}

// TestRecordKey: what the record says after an action's outcome. A failed
// install holds the peer down (fail closed); a key changed in place keeps
// the key it replaced for rekeyHold; a shared listener key is the record's
// alone.
func TestRecordKey(t *testing.T) {
	c := cfg(t, keyPlanCfg)
	m, _ := unstarted(t, c, newFakeSockets())
	m.mu.Lock()
	defer m.mu.Unlock()
	p := &pass{m: m, ctx: context.Background(), in: m.inputs(), prev: map[string]keys.Secret{}, deleted: map[netip.Prefix]bool{}}
	p.d = desiredOf(p.in)
	w := p.d.Peers["192.0.2.2"]
	st := m.record(w)
	install := action{kind: actSetListenerKey, peer: w.Cfg, key: mdKey(w.Cfg, 0, w.Key.MD5), step: stepInstall}

	failed := errors.New("injected: key not installed")
	p.recordKey(st, install, failed)
	if m.held["192.0.2.2"] != failed || st.installed || st.obs.ok || st.err != failed {
		t.Fatalf("failed install: held %v, installed %v, ok %v, err %v", m.held["192.0.2.2"], st.installed, st.obs.ok, st.err)
	}
	if d := holdFailed(p.d, m.held); !d.Peers["192.0.2.2"].HeldDown {
		t.Fatal("failed install: the peer is not held down in the same pass")
	}
	p.recordKey(st, install, nil)
	if m.held["192.0.2.2"] != nil || !st.installed || !st.secret.Equal(w.Key.MD5) || st.prevSecret != nil {
		t.Fatalf("install: held %v, installed %v, prev %v", m.held["192.0.2.2"], st.installed, st.prevSecret != nil)
	}

	st.secret = keys.Secret("Secret-Old")
	p.recordKey(st, install, nil)
	if !st.prevSecret.Equal(keys.Secret("Secret-Old")) || !st.secret.Equal(w.Key.MD5) || st.keyChanged.IsZero() || p.prev["192.0.2.2"] == nil {
		t.Fatalf("key change: prev %v, changed at %v", st.prevSecret != nil, st.keyChanged)
	}
	p.recordKey(st, action{kind: actDeleteListenerKey, peer: w.Cfg, key: install.key, step: stepDropKey}, nil)
	if st.secret != nil || st.prevSecret != nil || st.installed || !p.deleted[install.key.Prefix] {
		t.Fatalf("drop: secret %v, prev %v, deleted %v", st.secret != nil, st.prevSecret != nil, p.deleted)
	}
	p.recordKey(st, action{kind: actRecord, peer: w.Cfg, step: stepForget}, nil)
	if m.peers["192.0.2.2"] != nil {
		t.Fatal("forgotten peer kept its record")
	}
}
