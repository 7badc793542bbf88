//go:build linux

package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"google.golang.org/grpc/codes"
	grpcstatus "google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/status"
)

// Edge cases of the config owning the peers and of key changes:
//
//   - TestAPIDoorGuarded: GoBGP's gRPC API cannot take a configured peer,
//     peer group or range (or a held-down peer) away from the config, nor
//     add peers the config does not name;
//   - TestStaticInsideRangeRekey: re-keying a dynamic range leaves a static
//     peer inside it alone;
//   - TestFollowRolloverEnabledByReload: follow-peer-rollover switched on by
//     a reload acts on a peer already proven on a newer key;
//   - TestStaleSessionEndsFast: a session the peer gave up (its NOTIFICATION
//     and FIN signed with a key we no longer hold) does not linger until the
//     hold timer.

// ---------------------------------------------------------------- helpers

// edgFRR starts FRR's bgpd like StartFRR, with extra router-level lines
// (e.g. "neighbor 192.0.2.1 timers 3 9") in its config.
func edgFRR(t testing.TB, tp *netns.Topology, ns string, cfg PeerConfig, extra ...string) *FRR {
	t.Helper()
	checkConfig(t, cfg)
	conf := frrConfig(cfg)
	if len(extra) > 0 {
		var lines strings.Builder
		for _, l := range extra {
			lines.WriteString(" " + l + "\n")
		}
		const at = " address-family ipv4 unicast\n"
		if !strings.Contains(conf, at) {
			t.Fatalf("edgFRR: no %q in the FRR config", at)
		}
		conf = strings.Replace(conf, at, lines.String()+at, 1)
	}
	f := startBgpd(t, tp, ns, "frr", conf)
	f.waitVty(t)
	return f
}

// edgFRRState is what FRR says of its session with a neighbor.
type edgFRRState struct {
	state       string
	established int   // connectionsEstablished: sessions that reached Established
	upMsec      int64 // bgpTimerUpMsec: uptime of the current session
	holdMsec    int64 // bgpTimerHoldTimeMsecs: negotiated hold time
	raw         map[string]any
}

func (s edgFRRState) String() string {
	return fmt.Sprintf("state %s, %d sessions established so far, up %v, hold %v",
		s.state, s.established, time.Duration(s.upMsec)*time.Millisecond, time.Duration(s.holdMsec)*time.Millisecond)
}

func edgFRRSession(f *FRR, addr netip.Addr) (edgFRRState, error) {
	n, err := f.neighbor(addr)
	if err != nil {
		return edgFRRState{}, err
	}
	num := func(k string) float64 { v, _ := n[k].(float64); return v }
	st, _ := n["bgpState"].(string)
	return edgFRRState{
		state:       strings.ToLower(st),
		established: int(num("connectionsEstablished")),
		upMsec:      int64(num("bgpTimerUpMsec")),
		holdMsec:    int64(num("bgpTimerHoldTimeMsecs")),
		raw:         n,
	}, nil
}

func edgMustFRR(t testing.TB, f *FRR, addr netip.Addr) edgFRRState {
	t.Helper()
	s, err := edgFRRSession(f, addr)
	if err != nil {
		t.Fatalf("frr: neighbor %s: %v", addr, err)
	}
	return s
}

// edgWaitPeer polls /status (for up to d) until addr's entry satisfies ok
// and returns it; GoBGP's view (State) may run a moment ahead of /status.
// When it never does, t fails (and goes on) and the result is nil.
func edgWaitPeer(t testing.TB, a *Authbgpd, addr string, d time.Duration, what string, ok func(*status.Peer) bool) *status.Peer {
	t.Helper()
	start := time.Now()
	p, err := pollPeer(a, addr, d, ok)
	if err != nil {
		t.Errorf("/status %s: not %s within %v: %v", addr, what, d, err)
		return nil
	}
	if lag := time.Since(start); lag > 500*time.Millisecond {
		t.Logf("/status showed %s %s %v after GoBGP did", addr, what, lag.Round(time.Millisecond))
	}
	return p
}

// edgCLI runs the gobgp CLI against a once, retrying (for up to 10 s) only
// when the CLI could not reach the API: a refused request must not be
// retried. It returns stdout and stderr together.
func edgCLI(a *Authbgpd, args ...string) (string, error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, err := a.CLI(context.Background(), args...)
		all := out
		if err != nil {
			all += "\n" + err.Error()
		}
		unreachable := err != nil && regexp.MustCompile(`connection refused|context deadline exceeded|Unavailable|timeout`).MatchString(all) &&
			!strings.Contains(all, "code = FailedPrecondition")
		if !unreachable || time.Now().After(deadline) {
			return all, err
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// edgCodeRE matches the gobgp CLI's printing of a gRPC error.
var edgCodeRE = regexp.MustCompile(`code = (\w+) desc = (.*)`)

// edgCode is the gRPC code and message in a gobgp CLI error ("rpc error:
// code = X desc = ..."), OK when the command succeeded.
func edgCode(out string, err error) (codes.Code, string) {
	if err == nil {
		return codes.OK, ""
	}
	m := edgCodeRE.FindStringSubmatch(out)
	if m == nil {
		return codes.Unknown, strings.TrimSpace(out)
	}
	for c := codes.OK; c <= codes.Unauthenticated; c++ {
		if c.String() == m[1] {
			return c, m[2]
		}
	}
	return codes.Unknown, m[2]
}

// edgAnswers collects every gRPC answer (and CLI output) of a test, to be
// searched for secrets.
type edgAnswers struct {
	mu  sync.Mutex
	all map[string]string
}

func (e *edgAnswers) add(name, text string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.all == nil {
		e.all = map[string]string{}
	}
	e.all[fmt.Sprintf("%02d %s", len(e.all), name)] = text
}

func (e *edgAnswers) addProto(name string, m proto.Message) {
	b, err := protojson.Marshal(m)
	if err != nil {
		e.add(name, fmt.Sprintf("(cannot marshal: %v) %v", err, m))
		return
	}
	e.add(name, string(b))
}

func (e *edgAnswers) check(t testing.TB, secrets ...string) {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	size := 0
	for name, text := range e.all {
		size += len(text)
		for i, s := range secrets {
			for form, v := range secretForms(s) {
				if strings.Contains(text, v) {
					t.Errorf("secret #%d (%s form) leaked in the gRPC answer to %s", i, form, name)
				}
			}
		}
	}
	t.Logf("no-leak check of the gRPC answers: %d answers, %d bytes, %d secrets", len(e.all), size, len(secrets))
}

// edgList drains a GoBGP server stream.
func edgList[T any](recv func() (T, error)) ([]T, error) {
	var out []T
	for {
		r, err := recv()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
}

// ---------------------------------------------------------------- 1. the API door

// TestAPIDoorGuarded: authbgpd (a test build in which the key of 192.0.2.3
// cannot be installed, so that peer is held down) has a keyed static peer,
// FRR at 192.0.2.2 with the right key, and a keyed dynamic range
// 198.51.100.0/24. Through GoBGP's gRPC API — the stock gobgp CLI and a Go
// client — every request that would take a configured peer, range or peer
// group away from the config is refused with FailedPrecondition, naming the
// address or range and the config file: deleting the peer, re-adding it
// without a password, UpdatePeer with no password and with another one,
// AddPeer of an address the config does not name, AddDynamicNeighbor into
// the range's group, DeleteDynamicNeighbor of the range, DeletePeerGroup of
// its group, EnablePeer of the held-down peer. Afterwards FRR's session is
// the very one of before (uptime not reset), an unsigned SYN from the
// peer's address is dropped by the kernel and /status says the key is
// installed. DisablePeer, EnablePeer and ResetPeer of the healthy peer stay
// allowed; the session comes back on its key. No secret shows in any gRPC
// answer or in the log.
func TestAPIDoorGuarded(t *testing.T) {
	testenv.RequireRoot(t)
	testenv.RequireBinary(t, "gobgp")
	t.Parallel()
	start := time.Now()
	pair := newPair(t, "edg1", false)
	tp, nsA, nsB := pair.Topology, pair.A, pair.B
	var (
		a4      = netip.MustParseAddr("192.0.2.1")
		b4      = netip.MustParseAddr("192.0.2.2")
		down4   = netip.MustParseAddr("192.0.2.3") // held down: its key fails
		unconf  = netip.MustParseAddr("192.0.2.9") // in no config
		rng     = "198.51.100.0/24"
		newRng  = "203.0.113.0/25"
		keyB    = newSecret("edg1b")
		keyDown = newSecret("edg1down")
		keyRng  = newSecret("edg1rng")
		other   = newSecret("edg1other")
		secrets = []string{keyB, keyDown, keyRng, other}
	)
	a := StartAuthbgpd(t, tp, nsA, abConfig("",
		abPeer{addr: b4.String(), asn: 65002, src: "password-file", ref: "b.key"},
		abPeer{addr: down4.String(), asn: 65003, src: "password-file", ref: "down.key"},
		abPeer{addr: rng, asn: 65010, src: "password-env", ref: "AUTHBGPD_EDG1_RANGE", passive: true}),
		AuthbgpdOptions{
			Tags:  "authbgpd_testhooks",
			Files: map[string]string{"b.key": keyB + "\n", "down.key": keyDown + "\n"},
			Env:   []string{"AUTHBGPD_EDG1_RANGE=" + keyRng, "AUTHBGPD_TEST_FAIL_KEYS=" + down4.String()},
		})
	f := StartFRR(t, tp, nsB, PeerConfig{ASN: 65002, RouterID: b4,
		Neighbors: []Neighbor{{a4, 65001, keyB}},
		Networks:  []netip.Prefix{netip.MustParsePrefix("203.0.113.128/25")}})
	waitSessions(t, 60*time.Second, 1, sessionCheck{a, b4})
	waitSessions(t, 10*time.Second, 0, sessionCheck{f, a4})
	if p := mustPeer(t, a, down4.String()); p.State != "admin-down" || p.Auth.Installed {
		t.Fatalf("/status %s: %s; want admin-down with the key not installed (the test build's injected failure)", down4, peerString(p))
	}
	c := dialPerfAPI(t, nsA).c
	var answers edgAnswers
	ctx := context.Background()

	// The range's peer group, as GoBGP tells it.
	var group string
	groups, err := func() ([]*api.ListPeerGroupResponse, error) {
		st, err := c.ListPeerGroup(ctx, &api.ListPeerGroupRequest{})
		if err != nil {
			return nil, err
		}
		return edgList(st.Recv)
	}()
	if err != nil {
		t.Fatalf("ListPeerGroup: %v", err)
	}
	for _, g := range groups {
		answers.addProto("ListPeerGroup", g)
	}
	dyns, err := func() ([]*api.ListDynamicNeighborResponse, error) {
		st, err := c.ListDynamicNeighbor(ctx, &api.ListDynamicNeighborRequest{})
		if err != nil {
			return nil, err
		}
		return edgList(st.Recv)
	}()
	if err != nil {
		t.Fatalf("ListDynamicNeighbor: %v", err)
	}
	for _, d := range dyns {
		answers.addProto("ListDynamicNeighbor", d)
		if d.GetDynamicNeighbor().GetPrefix() == rng {
			group = d.GetDynamicNeighbor().GetPeerGroup()
		}
	}
	if group == "" {
		t.Fatalf("ListDynamicNeighbor: no dynamic neighbor %s among %d (peer groups: %d)", rng, len(dyns), len(groups))
	}
	t.Logf("the range %s is carried by GoBGP peer group %q", rng, group)

	before := edgMustFRR(t, f, a4)
	beforeUp := mustPeer(t, a, b4.String()).UptimeSeconds
	beforeAt := time.Now()
	t.Logf("before the API requests: frr %s; authbgpd /status uptime %d s", before, beforeUp)

	// The refused requests.
	refused := []struct {
		name  string
		names []string // the message must name one of these
		call  func() (codes.Code, string)
	}{
		{"gobgp neighbor del " + b4.String(), []string{b4.String()}, func() (codes.Code, string) {
			out, err := edgCLI(a, "neighbor", "del", b4.String())
			answers.add("gobgp neighbor del", out)
			return edgCode(out, err)
		}},
		{"gobgp neighbor add " + b4.String() + " as 65002 (no password)", []string{b4.String()}, func() (codes.Code, string) {
			out, err := edgCLI(a, "neighbor", "add", b4.String(), "as", "65002")
			answers.add("gobgp neighbor add (configured)", out)
			return edgCode(out, err)
		}},
		{"UpdatePeer " + b4.String() + ` with AuthPassword ""`, []string{b4.String()}, func() (codes.Code, string) {
			return edgUpdatePeer(t, c, &answers, b4, "")
		}},
		{"UpdatePeer " + b4.String() + " with another password", []string{b4.String()}, func() (codes.Code, string) {
			return edgUpdatePeer(t, c, &answers, b4, other)
		}},
		{"gobgp neighbor add " + unconf.String() + " as 65009 (AddPeer, not configured)", []string{unconf.String()}, func() (codes.Code, string) {
			out, err := edgCLI(a, "neighbor", "add", unconf.String(), "as", "65009")
			answers.add("gobgp neighbor add (unconfigured)", out)
			return edgCode(out, err)
		}},
		{"AddDynamicNeighbor " + newRng + " into group " + group, []string{newRng, rng}, func() (codes.Code, string) {
			r, err := c.AddDynamicNeighbor(ctx, &api.AddDynamicNeighborRequest{DynamicNeighbor: &api.DynamicNeighbor{Prefix: newRng, PeerGroup: group}})
			return edgAnswer(&answers, "AddDynamicNeighbor", r, err)
		}},
		{"DeleteDynamicNeighbor " + rng + " of group " + group, []string{rng}, func() (codes.Code, string) {
			r, err := c.DeleteDynamicNeighbor(ctx, &api.DeleteDynamicNeighborRequest{Prefix: rng, PeerGroup: group})
			return edgAnswer(&answers, "DeleteDynamicNeighbor", r, err)
		}},
		{"DeletePeerGroup " + group, []string{rng}, func() (codes.Code, string) {
			r, err := c.DeletePeerGroup(ctx, &api.DeletePeerGroupRequest{Name: group})
			return edgAnswer(&answers, "DeletePeerGroup", r, err)
		}},
		{"gobgp neighbor " + down4.String() + " enable (EnablePeer of the held-down peer)", []string{down4.String()}, func() (codes.Code, string) {
			out, err := edgCLI(a, "neighbor", down4.String(), "enable")
			answers.add("gobgp neighbor enable (held down)", out)
			return edgCode(out, err)
		}},
	}
	nRefused := 0
	for _, r := range refused {
		code, msg := r.call()
		switch {
		case code != codes.FailedPrecondition:
			t.Errorf("%s: answered %v %q; want FailedPrecondition", r.name, code, msg)
		case !strings.Contains(msg, a.Config):
			t.Errorf("%s: refused (%v), but the message does not name the config file %s: %q", r.name, code, a.Config, msg)
		case !edgContainsAny(msg, r.names):
			t.Errorf("%s: refused (%v), but the message names none of %v: %q", r.name, code, r.names, msg)
		default:
			nRefused++
			t.Logf("%s: refused: %v: %s", r.name, code, msg)
		}
	}
	t.Logf("%d of %d requests refused as they should be", nRefused, len(refused))

	// Nothing of that touched the session, the key or the range.
	time.Sleep(2 * time.Second)
	after, err := edgFRRSession(f, a4)
	elapsed := time.Since(beforeAt)
	if err != nil || after.state != Established || after.established != before.established ||
		time.Duration(after.upMsec)*time.Millisecond < time.Duration(before.upMsec)*time.Millisecond+elapsed-2*time.Second {
		t.Errorf("frr after the refused requests: %s (err %v); before, %v ago: %s: the session was reset", after, err, elapsed.Round(time.Millisecond), before)
	} else {
		t.Logf("frr after the refused requests: %s: the same session", after)
	}
	p := mustPeer(t, a, b4.String())
	if p.State != Established || p.UptimeSeconds < beforeUp+int64(elapsed.Seconds())-2 {
		t.Errorf("/status %s after the refused requests: %s, uptime %d s (was %d s %v ago)", b4, p.State, p.UptimeSeconds, beforeUp, elapsed.Round(time.Second))
	}
	requireAuth(t, p, "password-file", true)
	if q := mustPeer(t, a, rng); q.State != "listening" || !q.Auth.Installed {
		t.Errorf("/status range %s after the refused requests: %s; want listening with its key installed", rng, peerString(q))
	}
	if q := mustPeer(t, a, down4.String()); q.State != "admin-down" {
		t.Errorf("/status %s after EnablePeer: %s; want still admin-down", down4, peerString(q))
	}
	if q := a.Peer(unconf.String()); q != nil {
		t.Errorf("/status lists %s, which no config names: %s", unconf, peerString(q))
	}
	requireDropped(t, "unsigned SYN from "+b4.String()+" after the refused requests", dialTCP(nsB, b4, netip.AddrPortFrom(a4, 179), ""))
	edgCheckGoBGP(t, c, &answers, b4, rng, group, newRng, unconf)
	answers.check(t, secrets...)
	assertNoSecrets(t, a, secrets...)

	// Allowed: disable, enable, reset of the healthy peer.
	for _, op := range []struct {
		name string
		call func() (proto.Message, error)
	}{
		{"DisablePeer", func() (proto.Message, error) {
			return c.DisablePeer(ctx, &api.DisablePeerRequest{Address: b4.String(), Communication: "edges test"})
		}},
		{"EnablePeer", func() (proto.Message, error) {
			return c.EnablePeer(ctx, &api.EnablePeerRequest{Address: b4.String()})
		}},
		{"ResetPeer", func() (proto.Message, error) {
			return c.ResetPeer(ctx, &api.ResetPeerRequest{Address: b4.String(), Communication: "edges test"})
		}},
	} {
		r, err := op.call()
		if code, msg := edgAnswer(&answers, op.name, r, err); code != codes.OK {
			t.Errorf("%s %s of the healthy configured peer: %v %q; want it allowed", op.name, b4, code, msg)
		} else {
			t.Logf("%s %s: allowed", op.name, b4)
		}
		if op.name == "DisablePeer" {
			time.Sleep(time.Second)
		}
	}
	back := time.Now()
	waitSessions(t, 60*time.Second, 1, sessionCheck{a, b4})
	waitSessions(t, 10*time.Second, 0, sessionCheck{f, a4})
	t.Logf("after disable, enable, reset: the session came back on its key in %v", time.Since(back).Round(time.Millisecond))
	if p := edgWaitPeer(t, a, b4.String(), 5*time.Second, "established with its key installed", func(p *status.Peer) bool {
		return p.State == Established && p.Auth.Installed
	}); p != nil {
		requireAuth(t, p, "password-file", true)
	}
	requireDropped(t, "unsigned SYN from "+b4.String()+" at the end", dialTCP(nsB, b4, netip.AddrPortFrom(a4, 179), ""))
	requireHealthy(t, a)
	answers.check(t, secrets...)
	assertNoSecrets(t, a, secrets...)
	t.Logf("TestAPIDoorGuarded took %v", time.Since(start).Round(time.Millisecond))
}

func edgContainsAny(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// edgAnswer records a unary answer and returns its code and message.
func edgAnswer(answers *edgAnswers, name string, r proto.Message, err error) (codes.Code, string) {
	if err != nil {
		st := grpcstatus.Convert(err)
		answers.add(name+" (error)", err.Error())
		return st.Code(), st.Message()
	}
	if r != nil {
		answers.addProto(name, r)
	}
	return codes.OK, ""
}

// edgUpdatePeer sends UpdatePeer for addr as GoBGP lists it, with password.
func edgUpdatePeer(t *testing.T, c api.GobgpApiClient, answers *edgAnswers, addr netip.Addr, password string) (codes.Code, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := c.ListPeer(ctx, &api.ListPeerRequest{Address: addr.String()})
	if err != nil {
		return codes.Unknown, fmt.Sprintf("(no UpdatePeer sent: ListPeer %s: %v)", addr, err)
	}
	rs, err := edgList(st.Recv)
	if err != nil || len(rs) != 1 || rs[0].GetPeer().GetConf() == nil {
		return codes.Unknown, fmt.Sprintf("(no UpdatePeer sent: ListPeer %s: %d peers, %v)", addr, len(rs), err)
	}
	answers.addProto("ListPeer "+addr.String(), rs[0])
	p := proto.Clone(rs[0].Peer).(*api.Peer)
	p.State = nil
	if p.Timers != nil {
		p.Timers.State = nil
	}
	p.Conf.AuthPassword = password
	r, err := c.UpdatePeer(ctx, &api.UpdatePeerRequest{Peer: p})
	return edgAnswer(answers, "UpdatePeer", r, err)
}

// edgCheckGoBGP fails t unless GoBGP still holds the peer, the range in its
// group and no trace of the refused additions.
func edgCheckGoBGP(t *testing.T, c api.GobgpApiClient, answers *edgAnswers, peer netip.Addr, rng, group, newRng string, unconf netip.Addr) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := c.ListPeer(ctx, &api.ListPeerRequest{})
	if err != nil {
		t.Fatalf("ListPeer: %v", err)
	}
	ps, err := edgList(st.Recv)
	if err != nil {
		t.Fatalf("ListPeer: %v", err)
	}
	seen := map[string]bool{}
	for _, p := range ps {
		answers.addProto("ListPeer", p)
		seen[p.GetPeer().GetConf().GetNeighborAddress()] = true
	}
	if !seen[peer.String()] {
		t.Errorf("GoBGP no longer has the configured peer %s", peer)
	}
	if seen[unconf.String()] {
		t.Errorf("GoBGP has the unconfigured peer %s", unconf)
	}
	ds, err := c.ListDynamicNeighbor(ctx, &api.ListDynamicNeighborRequest{})
	if err != nil {
		t.Fatalf("ListDynamicNeighbor: %v", err)
	}
	dyn, err := edgList(ds.Recv)
	if err != nil {
		t.Fatalf("ListDynamicNeighbor: %v", err)
	}
	got := map[string]string{}
	for _, d := range dyn {
		answers.addProto("ListDynamicNeighbor", d)
		got[d.GetDynamicNeighbor().GetPrefix()] = d.GetDynamicNeighbor().GetPeerGroup()
	}
	if got[rng] != group {
		t.Errorf("GoBGP's dynamic neighbors after the refused requests: %v; want %s in group %s", got, rng, group)
	}
	if _, ok := got[newRng]; ok {
		t.Errorf("GoBGP has the dynamic neighbor %s added through the API: %v", newRng, got)
	}
}

// ---------------------------------------------------------------- 2. static inside a range

// TestStaticInsideRangeRekey: authbgpd has a static peer 192.0.2.2 (FRR,
// key A) inside its dynamic range 192.0.2.0/24 (key B); a second FRR at
// 192.0.2.18 is a dynamic neighbor of the range. Both FRRs run `timers 3
// 9`, so the negotiated hold time is 9 s. A reload changes only the range's
// key, to B2 (and the dynamic neighbor moves to B2): the static session is
// the same session 30 s later (more than three hold times: a wrong key on
// its socket would have ended it), carries an UPDATE, and the dynamic
// neighbor comes back on B2.
func TestStaticInsideRangeRekey(t *testing.T) {
	testenv.RequireRoot(t)
	testenv.RequireBinary(t, "gobgp")
	t.Parallel()
	start := time.Now()
	tp := netns.New(t, "edg2")
	nsA, nsB, nsC := tp.Add("a"), tp.Add("b"), tp.Add("c")
	tp.Link(nsA, "eth0", []string{"192.0.2.1/28"}, nsB, "eth0", []string{"192.0.2.2/28"})
	tp.Link(nsA, "eth1", []string{"192.0.2.17/28"}, nsC, "eth0", []string{"192.0.2.18/28"})
	var (
		a4, ac4           = netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.17")
		b4, c4            = netip.MustParseAddr("192.0.2.2"), netip.MustParseAddr("192.0.2.18")
		keyA, keyB, keyB2 = newSecret("edg2a"), newSecret("edg2b"), newSecret("edg2b2")
		static            = abPeer{addr: b4.String(), asn: 65002, src: "password-file", ref: "static.key"}
		rng               = abPeer{addr: "192.0.2.0/24", asn: 65003, src: "password-file", ref: "range.key", passive: true}
		cfg               = abConfig("", static, rng)
	)
	a := StartAuthbgpd(t, tp, nsA, cfg, AuthbgpdOptions{Files: map[string]string{"static.key": keyA + "\n", "range.key": keyB + "\n"}})
	announce(t, a, "198.51.100.0/25")
	fb := edgFRR(t, tp, nsB, PeerConfig{ASN: 65002, RouterID: b4,
		Neighbors: []Neighbor{{a4, 65001, keyA}},
		Networks:  []netip.Prefix{netip.MustParsePrefix("203.0.113.0/25")}},
		"neighbor "+a4.String()+" timers 3 9")
	fc := edgFRR(t, tp, nsC, PeerConfig{ASN: 65003, RouterID: c4,
		Neighbors: []Neighbor{{ac4, 65001, keyB}},
		Networks:  []netip.Prefix{netip.MustParsePrefix("203.0.113.128/25")}},
		"neighbor "+ac4.String()+" timers 3 9")
	waitSessions(t, 60*time.Second, 1, sessionCheck{a, b4}, sessionCheck{a, c4}, sessionCheck{fb, a4}, sessionCheck{fc, ac4})
	if p := mustPeer(t, a, b4.String()); p.Prefix != "" {
		t.Errorf("/status %s: under range %q; want the static peer", b4, p.Prefix)
	}
	edgWaitPeer(t, a, c4.String(), 5*time.Second, "established under the range 192.0.2.0/24", func(p *status.Peer) bool {
		return p.Prefix == "192.0.2.0/24" && p.State == Established
	})
	sb := edgMustFRR(t, fb, a4)
	if sb.holdMsec != 9000 {
		t.Fatalf("frr %s: negotiated hold time %v, want 9 s (timers 3 9): %v", b4, time.Duration(sb.holdMsec)*time.Millisecond, sb.raw)
	}
	sc := edgMustFRR(t, fc, ac4)
	beforeUp := mustPeer(t, a, b4.String()).UptimeSeconds
	t.Logf("before the reload: static %s; dynamic %s", sb, sc)

	// Only the range's key changes.
	writeSecretFile(t, a, "range.key", keyB2+"\n")
	reload := time.Now()
	a.Reload(cfg)
	waitLog(t, a, "config reloaded", 10*time.Second)
	if _, err := fc.Vtysh(context.Background(), "configure terminal", "router bgp 65003", "neighbor "+ac4.String()+" password "+keyB2); err != nil {
		t.Fatalf("frr %s: change the password: %v", c4, err)
	}
	t.Logf("range key changed by reload; the dynamic neighbor changed its key %v later", time.Since(reload).Round(time.Millisecond))

	// The static session through more than three hold times.
	const watch = 30 * time.Second
	var dynBack time.Time
	for time.Since(reload) < watch {
		s, err := edgFRRSession(fb, a4)
		if err != nil || s.state != Established || s.established != sb.established {
			t.Fatalf("frr: the static session with authbgpd broke %v after the reload of the range's key: %s (err %v); before: %s",
				time.Since(reload).Round(time.Millisecond), s, err, sb)
		}
		if st, err := a.State(b4); err != nil || st != Established {
			t.Fatalf("authbgpd: the static session with %s is %q (%v) %v after the reload of the range's key",
				b4, st, err, time.Since(reload).Round(time.Millisecond))
		}
		if dynBack.IsZero() {
			if s, err := edgFRRSession(fc, ac4); err == nil && s.state == Established && s.established > sc.established {
				if st, err := a.State(c4); err == nil && st == Established {
					dynBack = time.Now()
				}
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	sb2 := edgMustFRR(t, fb, a4)
	t.Logf("static session %v after the reload (%.1f hold times): %s", time.Since(reload).Round(time.Millisecond),
		float64(time.Since(reload))/float64(9*time.Second), sb2)
	if time.Duration(sb2.upMsec)*time.Millisecond < time.Duration(sb.upMsec)*time.Millisecond+watch-2*time.Second {
		t.Errorf("frr: static session uptime %v, was %v before the reload: reset", time.Duration(sb2.upMsec)*time.Millisecond, time.Duration(sb.upMsec)*time.Millisecond)
	}
	p := mustPeer(t, a, b4.String())
	if el := int64(time.Since(reload).Seconds()); p.State != Established || p.UptimeSeconds < beforeUp+el-2 {
		t.Errorf("/status %s: %s, uptime %d s (was %d s, %d s before)", b4, p.State, p.UptimeSeconds, beforeUp, el)
	}
	requireAuth(t, p, "password-file", true)

	// The static session carries an UPDATE, and its listener key is A.
	upd := time.Now()
	announce(t, a, "198.51.100.128/25")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := WaitSession(ctx, fb, a4, 2); err != nil {
		t.Errorf("an UPDATE on the static session after the range's reload: %v", err)
	} else {
		t.Logf("an UPDATE reached the static peer %v after it was announced", time.Since(upd).Round(time.Millisecond))
	}
	requireDropped(t, "unsigned SYN from the static peer "+b4.String(), dialTCP(nsB, b4, netip.AddrPortFrom(a4, 179), ""))
	requireDropped(t, "SYN from the static peer "+b4.String()+" signed with the range's new key", dialTCP(nsB, b4, netip.AddrPortFrom(a4, 179), keyB2))

	// The dynamic neighbor on B2.
	if dynBack.IsZero() {
		waitSessions(t, 60*time.Second, 1, sessionCheck{fc, ac4}, sessionCheck{a, c4})
		if s := edgMustFRR(t, fc, ac4); s.established <= sc.established {
			t.Errorf("frr %s: %s: no new session on the new key", c4, s)
		}
		dynBack = time.Now()
	}
	t.Logf("the dynamic neighbor came back on the range's new key %v after the reload", dynBack.Sub(reload).Round(time.Millisecond))
	edgWaitPeer(t, a, c4.String(), 5*time.Second, "established under the range 192.0.2.0/24", func(p *status.Peer) bool {
		return p.Prefix == "192.0.2.0/24" && p.State == Established
	})
	requireAuth(t, mustPeer(t, a, "192.0.2.0/24"), "password-file", true)
	requireHealthy(t, a)
	assertNoSecrets(t, a, keyA, keyB, keyB2)
	t.Logf("TestStaticInsideRangeRekey took %v", time.Since(start).Round(time.Millisecond))
}

// ---------------------------------------------------------------- 3. follow-peer-rollover by reload

// TestFollowRolloverEnabledByReload: authbgpd's keychain peer has key 1 now
// and key 2 from 2099; FRR signs with key 2 already. With
// follow-peer-rollover = false, /status says other-key with peer_key_id 2
// and nothing comes up. A reload that only sets follow-peer-rollover =
// true makes authbgpd switch to key 2 within 15 s and the session come up;
// the diagnosis becomes ok.
func TestFollowRolloverEnabledByReload(t *testing.T) {
	testenv.RequireRoot(t)
	testenv.RequireBinary(t, "gobgp")
	t.Parallel()
	start := time.Now()
	pair := newPair(t, "edg3", false)
	tp, nsA, nsB := pair.Topology, pair.A, pair.B
	a4, b4 := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	k1, k2 := newSecret("edg3k1"), newSecret("edg3k2")
	cfg := func(follow bool) string {
		return abConfig(shKeychain("", "2099-01-01T00:00:00Z")+shadowSection(follow),
			abPeer{addr: b4.String(), asn: 65002, src: "keychain", ref: "core"})
	}
	a := StartAuthbgpd(t, tp, nsA, cfg(false), AuthbgpdOptions{Files: map[string]string{"k1": k1 + "\n", "k2": k2 + "\n"}})
	if p := mustPeer(t, a, b4.String()); p.Auth.KeyID == nil || *p.Auth.KeyID != 1 {
		t.Fatalf("/status %s at start: %s; want key_id 1", b4, peerString(p))
	}
	announce(t, a, "198.51.100.0/24")
	started := time.Now()
	f := StartFRR(t, tp, nsB, PeerConfig{ASN: 65002, RouterID: b4,
		Neighbors: []Neighbor{{a4, 65001, k2}},
		Networks:  []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24")}})
	p := waitShadow(t, a, b4.String(), 20*time.Second, "other-key with peer_key_id 2", func(p *status.Peer) bool {
		return p.Shadow.Diagnosis == "other-key" && p.Shadow.PeerKeyID != nil && *p.Shadow.PeerKeyID == 2
	})
	t.Logf("other-key %v after FRR started: %s", time.Since(started).Round(time.Millisecond), peerString(p))
	// The peer is proven on key 2 before the reload.
	waitLog(t, a, "follow-peer-rollover is off", 15*time.Second)
	t.Logf("authbgpd logged the proof with follow-peer-rollover off %v after FRR started", time.Since(started).Round(time.Millisecond))
	if s, _ := a.State(b4); s == Established {
		t.Fatalf("established on key 1 with a peer on key 2")
	}

	reload := time.Now()
	a.Reload(cfg(true))
	waitLog(t, a, "config reloaded", 10*time.Second)
	var switched, up time.Time
	deadline := reload.Add(15 * time.Second)
	var last *status.Peer
	for time.Now().Before(deadline) && up.IsZero() {
		last = a.Peer(b4.String())
		if last != nil && switched.IsZero() && last.Auth.KeyID != nil && *last.Auth.KeyID == 2 && last.Auth.Installed {
			switched = time.Now()
		}
		if last != nil && !switched.IsZero() && last.State == Established {
			if s, err := f.State(a4); err == nil && s == Established {
				up = time.Now()
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	if switched.IsZero() || up.IsZero() {
		t.Fatalf("15 s after the reload that turned follow-peer-rollover on: switched to key 2: %v, established: %v; /status %s",
			!switched.IsZero(), !up.IsZero(), peerString(last))
	}
	t.Logf("after the reload: key 2 installed in %v, the session established in %v",
		switched.Sub(reload).Round(time.Millisecond), up.Sub(reload).Round(time.Millisecond))
	p = waitShadow(t, a, b4.String(), 10*time.Second, "ok on key 2", func(p *status.Peer) bool {
		return p.Shadow.Diagnosis == "ok" && p.Auth.KeyID != nil && *p.Auth.KeyID == 2 && p.State == Established
	})
	t.Logf("diagnosis ok %v after the reload: %s", time.Since(reload).Round(time.Millisecond), peerString(p))
	if !strings.Contains(a.Log(), "follow-peer-rollover: switched") {
		t.Errorf("authbgpd did not log the follow-peer-rollover switch")
	}
	assertNoSecrets(t, a, k1, k2)
	t.Logf("TestFollowRolloverEnabledByReload took %v", time.Since(start).Round(time.Millisecond))
}

// ---------------------------------------------------------------- 4. stale session

// edgSample is one /status observation of a peer.
type edgSample struct {
	at        time.Time
	state     string
	diagnosis string
	uptime    int64
}

// TestStaleSessionEndsFast: FRR (default timers) and authbgpd (hold 90 s)
// are established on K1, shadow checker on. authbgpd reloads to K2; 3 s
// later FRR changes its password to K2, which resets its session: its
// NOTIFICATION and FIN carry K1 and authbgpd's kernel drops them, so GoBGP
// alone would keep the dead session "Established" for up to its hold time
// and turn FRR's new connections away. authbgpd must end the stale session
// at once: the new session on K2 is Established within 20 s of FRR's
// change, the log says the session was ended as stale, and while the stale
// session stood /status did not claim established and ok for more than 3 s
// in a row.
func TestStaleSessionEndsFast(t *testing.T) { staleSessionEndsFast(t, "edg4", true) }

// TestStaleSessionEndsFastWithoutShadow is the same with the shadow checker
// off (the default). What tells authbgpd the session is stale is GoBGP
// turning FRR's new connection away: the kernel accepted it, so its SYN
// was signed with K2, and the old session, re-keyed in place to K2, has
// received no message since.
func TestStaleSessionEndsFastWithoutShadow(t *testing.T) { staleSessionEndsFast(t, "edg7", false) }

func staleSessionEndsFast(t *testing.T, prefix string, shadow bool) {
	testenv.RequireRoot(t)
	testenv.RequireBinary(t, "gobgp")
	t.Parallel()
	start := time.Now()
	pair := newPair(t, prefix, false)
	tp, nsA, nsB := pair.Topology, pair.A, pair.B
	a4, b4 := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	k1, k2 := newSecret(prefix+"k1"), newSecret(prefix+"k2")
	sh := ""
	if shadow {
		sh = shadowSection(false)
	}
	cfg := abConfig(sh, abPeer{addr: b4.String(), asn: 65002, src: "password-file", ref: "pw"})
	a := StartAuthbgpd(t, tp, nsA, cfg, AuthbgpdOptions{Files: map[string]string{"pw": k1 + "\n"}})
	announce(t, a, "198.51.100.0/24")
	f := StartFRR(t, tp, nsB, PeerConfig{ASN: 65002, RouterID: b4,
		Neighbors: []Neighbor{{a4, 65001, k1}},
		Networks:  []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24")}})
	waitSessions(t, 60*time.Second, 1, sessionCheck{a, b4}, sessionCheck{f, a4})
	if shadow {
		waitDiagnosis(t, a, b4.String(), "ok", 10*time.Second)
	}
	s0 := edgMustFRR(t, f, a4)
	t.Logf("established on K1: frr %s", s0)

	// /status, every 200 ms.
	var (
		mu      sync.Mutex
		samples []edgSample
		stop    = make(chan struct{})
		done    = make(chan struct{})
	)
	go func() {
		defer close(done)
		for {
			if p, err := rkPeerStatus(a, b4); err == nil {
				s := edgSample{at: time.Now(), state: p.State, uptime: p.UptimeSeconds}
				if p.Shadow != nil {
					s.diagnosis = p.Shadow.Diagnosis
				}
				mu.Lock()
				samples = append(samples, s)
				mu.Unlock()
			}
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
	stopMonitor := func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
		<-done
	}
	defer stopMonitor()

	writeSecretFile(t, a, "pw", k2+"\n")
	reload := time.Now()
	a.Reload(cfg)
	waitLog(t, a, "config reloaded", 10*time.Second)
	time.Sleep(time.Until(reload.Add(3 * time.Second)))
	frrChange := time.Now()
	if _, err := f.Vtysh(context.Background(), "configure terminal", "router bgp 65002", "neighbor "+a4.String()+" password "+k2); err != nil {
		t.Fatalf("frr: change the password: %v", err)
	}
	t.Logf("authbgpd reloaded to K2; FRR changed to K2 %v later", frrChange.Sub(reload).Round(time.Millisecond))

	// The new session: FRR counts another Established session, and
	// authbgpd's is younger than FRR's change.
	const want, patience = 20 * time.Second, 120 * time.Second
	var newUp time.Time
	var last string
	_ = poll(patience, until(func() bool {
		s, err := edgFRRSession(f, a4)
		if err != nil || s.state != Established || s.established <= s0.established {
			last = fmt.Sprintf("frr %s (err %v)", s, err)
			return false
		}
		p, err := rkPeerStatus(a, b4)
		if err != nil || p.State != Established || time.Duration(p.UptimeSeconds)*time.Second > time.Since(frrChange)+time.Second {
			last = fmt.Sprintf("frr %s; authbgpd /status %s (err %v)", s, peerString(&p), err)
			return false
		}
		newUp = time.Now()
		return true
	}))
	time.Sleep(time.Second)
	stopMonitor()
	if newUp.IsZero() {
		t.Errorf("no new session on K2 within %v of FRR's change: %s", patience, last)
	} else {
		took := newUp.Sub(frrChange)
		t.Logf("the new session on K2 was Established %v after FRR's change", took.Round(time.Millisecond))
		if took > want {
			t.Errorf("the new session on K2 took %v after FRR's change, want at most %v: the stale session was left to its hold timer", took.Round(time.Millisecond), want)
		}
	}

	// When the stale session ended in /status: the first sample after
	// FRR's change that is not established, or whose uptime started after
	// the change.
	mu.Lock()
	defer mu.Unlock()
	var staleEnd time.Time
	for _, s := range samples {
		if s.at.Before(frrChange) {
			continue
		}
		if s.state != Established || time.Duration(s.uptime)*time.Second < s.at.Sub(frrChange) {
			staleEnd = s.at
			break
		}
	}
	if staleEnd.IsZero() {
		staleEnd = samples[len(samples)-1].at
		t.Errorf("/status never showed the stale session end (%d samples after FRR's change)", len(samples))
	} else {
		t.Logf("/status: the stale session ended %v after FRR's change", staleEnd.Sub(frrChange).Round(time.Millisecond))
	}
	var run, longest time.Duration
	var runStart time.Time
	var seen []string
	for _, s := range samples {
		if s.at.Before(frrChange) || s.at.After(staleEnd) {
			continue
		}
		if len(seen) == 0 || seen[len(seen)-1] != s.state+"/"+s.diagnosis {
			seen = append(seen, s.state+"/"+s.diagnosis)
		}
		if s.state == Established && s.diagnosis == "ok" {
			if runStart.IsZero() {
				runStart = s.at
			}
			run = s.at.Sub(runStart)
			longest = max(longest, run)
		} else {
			runStart, run = time.Time{}, 0
		}
	}
	t.Logf("/status while the stale session stood: %s; longest run of established+ok: %v", strings.Join(seen, " → "), longest.Round(time.Millisecond))
	if longest > 3*time.Second {
		t.Errorf("/status claimed established and ok for %v in a row while the session was stale", longest.Round(time.Millisecond))
	}

	// The log says why.
	var why string
	for _, l := range strings.Split(a.Log(), "\n") {
		if strings.Contains(strings.ToLower(l), "stale") && strings.Contains(l, b4.String()) {
			why = l
			break
		}
	}
	if why == "" {
		t.Errorf("authbgpd logged no line about ending the stale session with %s", b4)
	} else {
		t.Logf("log: %s", why)
	}
	assertNoSecrets(t, a, k1, k2)
	t.Logf("%s took %v", t.Name(), time.Since(start).Round(time.Millisecond))
}
