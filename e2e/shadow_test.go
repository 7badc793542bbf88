//go:build linux

package e2e

import (
	"fmt"
	"net/netip"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/status"
)

// TestShadowLive runs authbgpd with [shadow] enabled against real peers,
// each subtest in its own topology, all at once:
//
//   - wrong-key: FRR signs with another key: /status says bad-digest
//     within 10 s of FRR's start (IPv4 and IPv6 peers), the log names the
//     peer and the diagnosis, no secret shows anywhere;
//   - missing: FRR sends no signature, authbgpd holds a key: missing;
//   - unexpected: FRR signs, authbgpd holds no key: unexpected;
//   - right-key: sessions come up; ok, received and sent segments valid,
//     authbgpd_md5_segments_total{verdict="valid"} counts them, no drops;
//   - rollover-follow / rollover-nofollow: two authbgpd routers share a
//     keychain (key 1, then key 2); B is already on key 2, A's schedule
//     still says key 1: A reports other-key with peer_key_id 2. With
//     follow-peer-rollover A switches to key 2 and the sessions come up;
//     without, they stay down and the diagnosis stays other-key;
//   - dynamic-range: FRR dials into a dynamic range with the wrong key
//     (IPv4) and the right one (IPv6): the wrongly keyed address shows in
//     /status under its range with bad-digest; the right one is ok, and
//     authbgpd's own address (inside the range too) never shows as a peer.
func TestShadowLive(t *testing.T) {
	testenv.RequireRoot(t)
	testenv.RequireBinary(t, "bgpd", "/usr/lib/frr")
	testenv.RequireBinary(t, "gobgp")
	authbgpdBinary(t, "") // build once, before the subtests start their clocks
	start := time.Now()
	cases := []struct {
		name string
		fn   func(t *testing.T)
	}{
		{"wrong-key", func(t *testing.T) { testShadowOneSide(t, "wrong-key") }},
		{"missing", func(t *testing.T) { testShadowOneSide(t, "missing") }},
		{"unexpected", func(t *testing.T) { testShadowOneSide(t, "unexpected") }},
		{"right-key", testShadowRightKey},
		{"rollover-follow", func(t *testing.T) { testShadowRollover(t, true) }},
		{"rollover-nofollow", func(t *testing.T) { testShadowRollover(t, false) }},
		{"dynamic-range", testShadowDynamic},
	}
	names := make([]string, len(cases))
	for i, c := range cases {
		names[i] = c.name
	}
	concurrently(t, names, func(t *testing.T, i int) {
		s := time.Now()
		cases[i].fn(t)
		t.Logf("%s took %v", cases[i].name, time.Since(s).Round(time.Millisecond))
	})
	t.Logf("TestShadowLive took %v", time.Since(start).Round(time.Millisecond))
}

var (
	shA4, shA6 = pairA4, pairA6
	shB4, shB6 = pairB4, pairB6
)

// shLogLine returns the first line of authbgpd's log that is a shadow
// diagnosis for peer with diagnosis diag (text format: quoted or not).
func shLogLine(log, peer, diag string) string {
	peerRE := regexp.MustCompile(`(^|\s)peer="?` + regexp.QuoteMeta(peer) + `"?(\s|$)`)
	diagRE := regexp.MustCompile(`(^|\s)diagnosis="?` + regexp.QuoteMeta(diag) + `"?(\s|$)`)
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "shadow diagnosis") && peerRE.MatchString(line) && diagRE.MatchString(line) {
			return line
		}
	}
	return ""
}

func waitLogLine(t testing.TB, a *Authbgpd, peer, diag string, d time.Duration) string {
	t.Helper()
	var l string
	waitFor(t, d, fmt.Sprintf("authbgpd logging a shadow diagnosis %s for %s", diag, peer), func() error {
		l = shLogLine(a.Log(), peer, diag)
		return holds(l != "")
	})
	return l
}

// segmentsMetric is authbgpd_md5_segments_total{peer,verdict}.
func segmentsMetric(t testing.TB, a *Authbgpd, peer, verdict string) float64 {
	t.Helper()
	body, err := a.HTTPGet("/metrics")
	if err != nil {
		t.Fatalf("GET /metrics: %v", err)
	}
	v, ok := metricValue(body, "authbgpd_md5_segments_total", fmt.Sprintf("peer=%q,verdict=%q", peer, verdict))
	if !ok {
		return -1
	}
	return v
}

// testShadowOneSide: authbgpd against FRR with keys that cannot work.
func testShadowOneSide(t *testing.T, kind string) {
	pair := newPair(t, "sh"+kind[:3], true)
	tp, nsA, nsB := pair.Topology, pair.A, pair.B
	keyA, keyF := newSecret("shA"), newSecret("shF")
	var want, src string
	switch kind {
	case "wrong-key":
		want, src = "bad-digest", "password-file"
	case "missing":
		want, src, keyF = "missing", "password-file", ""
	case "unexpected":
		want, src, keyA = "unexpected", "", ""
	}
	files := map[string]string{}
	if keyA != "" {
		files["peer.key"] = keyA + "\n"
	}
	a := StartAuthbgpd(t, tp, nsA, abConfig(shadowSection(false),
		abPeer{addr: shB4.String(), asn: 65002, src: src, ref: "peer.key"},
		abPeer{addr: shB6.String(), asn: 65002, src: src, ref: "peer.key"}),
		AuthbgpdOptions{Files: files})
	started := time.Now()
	f := StartFRR(t, tp, nsB, PeerConfig{ASN: 65002, RouterID: shB4,
		Neighbors: []Neighbor{{shA4, 65001, keyF}, {shA6, 65001, keyF}}})
	for _, addr := range []netip.Addr{shB4, shB6} {
		p := waitDiagnosis(t, a, addr.String(), want, 10*time.Second-time.Since(started))
		t.Logf("%s: %s after %v: %s", addr, want, time.Since(started).Round(time.Millisecond), peerString(p))
		if p.State == Established {
			t.Errorf("%s: established with %s", addr, kind)
		}
		if p.Shadow.PeerKeyID != nil {
			t.Errorf("%s: peer_key_id %d with %s", addr, *p.Shadow.PeerKeyID, want)
		}
		var n uint64
		switch want {
		case "bad-digest":
			n = p.Shadow.Segments.BadDigest
		case "missing":
			n = p.Shadow.Segments.Missing
		case "unexpected":
			n = p.Shadow.Segments.Unexpected
		}
		if n < 3 || p.Shadow.Segments.Valid != 0 {
			t.Errorf("%s: segments %+v: want >= 3 %s and none valid", addr, p.Shadow.Segments, want)
		}
		line := shLogLine(a.Log(), addr.String(), want)
		if line == "" {
			t.Errorf("authbgpd logged no shadow diagnosis line naming %s and %s", addr, want)
		} else {
			t.Logf("log: %s", line)
		}
		if m := segmentsMetric(t, a, addr.String(), strings.ReplaceAll(want, "-", "_")); m < 3 {
			t.Errorf("authbgpd_md5_segments_total{peer=%q,verdict=%q} = %v, want >= 3", addr, strings.ReplaceAll(want, "-", "_"), m)
		}
	}
	if c := a.Status().Capture; c == nil || !c.Running || c.Error != "" || c.Drops != 0 {
		t.Errorf("/status capture: %+v", c)
	}
	for _, addr := range []netip.Addr{shA4, shA6} {
		if s, err := f.State(addr); err == nil && s == Established {
			t.Errorf("frr: session with %s established with %s", addr, kind)
		}
	}
	var secrets []string
	for _, s := range []string{keyA, keyF} {
		if s != "" {
			secrets = append(secrets, s)
		}
	}
	assertNoSecrets(t, a, secrets...)
}

// testShadowRightKey: sessions come up and every segment verifies.
func testShadowRightKey(t *testing.T) {
	pair := newPair(t, "shok", true)
	tp, nsA, nsB := pair.Topology, pair.A, pair.B
	key := newSecret("shok")
	a := StartAuthbgpd(t, tp, nsA, abConfig(shadowSection(false),
		abPeer{addr: shB4.String(), asn: 65002, src: "password-file", ref: "peer.key"},
		abPeer{addr: shB6.String(), asn: 65002, src: "password-file", ref: "peer.key"}),
		AuthbgpdOptions{Files: map[string]string{"peer.key": key + "\n"}})
	announce(t, a, "198.51.100.0/24", "2001:db8:100::/48")
	f := StartFRR(t, tp, nsB, PeerConfig{ASN: 65002, RouterID: shB4,
		Neighbors: []Neighbor{{shA4, 65001, key}, {shA6, 65001, key}},
		Networks:  []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24"), netip.MustParsePrefix("2001:db8:200::/48")}})
	waitSessions(t, 30*time.Second, 1, sessionCheck{a, shB4}, sessionCheck{a, shB6}, sessionCheck{f, shA4}, sessionCheck{f, shA6})
	for _, addr := range []netip.Addr{shB4, shB6} {
		p := waitShadow(t, a, addr.String(), 10*time.Second, "ok with valid segments both ways", func(p *status.Peer) bool {
			return p.Shadow.Diagnosis == "ok" && p.Shadow.Segments.Valid > 0 && p.Shadow.Sent != nil && p.Shadow.Sent.Valid > 0
		})
		t.Logf("%s: %s", addr, peerString(p))
		if s := p.Shadow.Segments; s.BadDigest+s.Missing+s.Unexpected != 0 || p.Shadow.Sent.Invalid+p.Shadow.Sent.Unsigned != 0 {
			t.Errorf("%s: failed segments on a right-key session: %s", addr, peerString(p))
		}
		if p.Shadow.PeerKeyID != nil {
			t.Errorf("%s: peer_key_id %d on a password peer", addr, *p.Shadow.PeerKeyID)
		}
		if m := segmentsMetric(t, a, addr.String(), "valid"); m <= 0 {
			t.Errorf(`authbgpd_md5_segments_total{peer=%q,verdict="valid"} = %v, want > 0`, addr, m)
		}
		if m := segmentsMetric(t, a, addr.String(), "bad_digest"); m > 0 {
			t.Errorf(`authbgpd_md5_segments_total{peer=%q,verdict="bad_digest"} = %v, want 0`, addr, m)
		}
		if l := shLogLine(a.Log(), addr.String(), "ok"); l == "" {
			t.Errorf("no shadow diagnosis ok line for %s in the log", addr)
		}
	}
	st := a.Status()
	if c := st.Capture; c == nil || !c.Running || c.Error != "" || c.Drops != 0 || c.Packets == 0 {
		t.Errorf("/status capture: %+v", c)
	} else if want := min(runtime.GOMAXPROCS(0), 4); c.Workers != want { // [shadow] workers = 0: one per CPU, up to 4
		t.Errorf("/status capture: %d workers, want %d", c.Workers, want)
	}
	// Only the two peers: authbgpd's own addresses are never reported.
	for _, p := range st.Peers {
		if p.Address != shB4.String() && p.Address != shB6.String() {
			t.Errorf("/status has an unexpected peer: %+v", p)
		}
	}
	assertNoSecrets(t, a, key)
}

// shRouterConfig is an authbgpd config for a router of the rollover pair.
func shRouterConfig(asn uint32, routerID netip.Addr, peerASN uint32, peers []netip.Addr, keychain string, follow bool) string {
	c := abConf{ASN: asn, RouterID: routerID.String(), Extra: keychain, Tail: shadowSection(follow)}
	for _, p := range peers {
		c.Peers = append(c.Peers, abPeer{addr: p.String(), asn: peerASN, src: "keychain", ref: "core"})
	}
	return c.String()
}

// shKeychain is keychain "core": key 1 from send1, key 2 from send2 ("" =
// no send-from).
func shKeychain(send1, send2 string) string {
	return keychainSection("core", keychainKey{id: 1, file: "k1", sendFrom: send1}, keychainKey{id: 2, file: "k2", sendFrom: send2})
}

// testShadowRollover: B is on key 2 already, A's schedule says key 1.
func testShadowRollover(t *testing.T, follow bool) {
	tag := "shrlf"
	if !follow {
		tag = "shrln"
	}
	pair := newPair(t, tag, true)
	tp, nsA, nsB := pair.Topology, pair.A, pair.B
	k1, k2 := newSecret("shk1"), newSecret("shk2")
	files := map[string]string{"k1": k1 + "\n", "k2": k2 + "\n"}
	a := StartAuthbgpd(t, tp, nsA, shRouterConfig(65001, shA4, 65002, []netip.Addr{shB4, shB6},
		shKeychain("", "2099-01-01T00:00:00Z"), follow), AuthbgpdOptions{Files: files})
	for _, addr := range []netip.Addr{shB4, shB6} {
		if p := mustPeer(t, a, addr.String()); p.Auth.KeyID == nil || *p.Auth.KeyID != 1 {
			t.Fatalf("A: %s starts with %s, want key_id 1", addr, peerString(p))
		}
	}
	started := time.Now()
	b := StartAuthbgpd(t, tp, nsB, shRouterConfig(65002, shB4, 65001, []netip.Addr{shA4, shA6},
		shKeychain("2020-01-01T00:00:00Z", "2021-01-01T00:00:00Z"), false), AuthbgpdOptions{Files: files})
	for _, addr := range []netip.Addr{shA4, shA6} {
		if p := mustPeer(t, b, addr.String()); p.Auth.KeyID == nil || *p.Auth.KeyID != 2 {
			t.Fatalf("B: %s starts with %s, want key_id 2", addr, peerString(p))
		}
	}

	if follow {
		// Proof and diagnosis come with the same segment: /status may
		// skip other-key, the log has it.
		for _, addr := range []netip.Addr{shB4, shB6} {
			line := waitLogLine(t, a, addr.String(), "other-key", 15*time.Second)
			if !regexp.MustCompile(`(^|\s)peer_key_id=2(\s|$)`).MatchString(line) {
				t.Errorf("other-key log line without peer_key_id=2: %s", line)
			}
			t.Logf("A logged after %v: %s", time.Since(started).Round(time.Millisecond), line)
		}
		waitLog(t, a, "follow-peer-rollover: switched", 15*time.Second)
		waitSessions(t, 40*time.Second, 0, sessionCheck{a, shB4}, sessionCheck{a, shB6}, sessionCheck{b, shA4}, sessionCheck{b, shA6})
		t.Logf("sessions established %v after B started", time.Since(started).Round(time.Millisecond))
		for _, addr := range []netip.Addr{shB4, shB6} {
			p := waitShadow(t, a, addr.String(), 10*time.Second, "key_id 2 and ok", func(p *status.Peer) bool {
				return p.Auth.KeyID != nil && *p.Auth.KeyID == 2 && p.Auth.Installed && p.Shadow.Diagnosis == "ok"
			})
			t.Logf("A: %s: %s", addr, peerString(p))
			if p.State != Established {
				t.Errorf("A: %s: state %s", addr, p.State)
			}
		}
		// The log's last word on each peer is ok, even though it came
		// within the rate limit of the other-key line.
		for _, addr := range []netip.Addr{shB4, shB6} {
			line := waitLogLine(t, a, addr.String(), "ok", 15*time.Second)
			t.Logf("A logged after %v: %s", time.Since(started).Round(time.Millisecond), line)
		}
	} else {
		for _, addr := range []netip.Addr{shB4, shB6} {
			p := waitShadow(t, a, addr.String(), 10*time.Second-time.Since(started), "other-key with peer_key_id 2", func(p *status.Peer) bool {
				return p.Shadow.Diagnosis == "other-key" && p.Shadow.PeerKeyID != nil && *p.Shadow.PeerKeyID == 2
			})
			t.Logf("A: %s after %v: %s", addr, time.Since(started).Round(time.Millisecond), peerString(p))
		}
		waitLog(t, a, "follow-peer-rollover is off", 10*time.Second)
		// Through more than one connect-retry period of both sides: no
		// session, no switch, the diagnosis holds.
		deadline := time.Now().Add(12 * time.Second)
		for time.Now().Before(deadline) {
			for _, addr := range []netip.Addr{shB4, shB6} {
				p := mustPeer(t, a, addr.String())
				if p.State == Established || p.Shadow == nil || p.Shadow.Diagnosis != "other-key" ||
					p.Shadow.PeerKeyID == nil || *p.Shadow.PeerKeyID != 2 || p.Auth.KeyID == nil || *p.Auth.KeyID != 1 {
					t.Fatalf("A: %s: %s; want not established, key_id 1, other-key with peer_key_id 2", addr, peerString(p))
				}
			}
			time.Sleep(500 * time.Millisecond)
		}
		if strings.Contains(a.Log(), "follow-peer-rollover: switched") {
			t.Errorf("A switched keys with follow-peer-rollover = false")
		}
	}
	assertNoSecrets(t, a, k1, k2)
}

// testShadowDynamic: a dynamic range, a wrong key from inside it (IPv4) and
// a right one (IPv6).
func testShadowDynamic(t *testing.T) {
	pair := newPair(t, "shdyn", true)
	tp, nsA, nsB := pair.Topology, pair.A, pair.B
	key4, key6, wrong := newSecret("shd4"), newSecret("shd6"), newSecret("shdw")
	a := StartAuthbgpd(t, tp, nsA, abConfig(shadowSection(false),
		abPeer{addr: "192.0.2.0/24", asn: 65002, src: "password-file", ref: "d4.key", passive: true},
		abPeer{addr: "2001:db8::/64", asn: 65002, src: "password-file", ref: "d6.key", passive: true}),
		AuthbgpdOptions{Files: map[string]string{"d4.key": key4 + "\n", "d6.key": key6 + "\n"}})
	announce(t, a, "2001:db8:100::/48")
	started := time.Now()
	f := StartFRR(t, tp, nsB, PeerConfig{ASN: 65002, RouterID: shB4,
		Neighbors: []Neighbor{{shA4, 65001, wrong}, {shA6, 65001, key6}},
		Networks:  []netip.Prefix{netip.MustParsePrefix("2001:db8:200::/48")}})
	p := waitDiagnosis(t, a, shB4.String(), "bad-digest", 10*time.Second)
	t.Logf("%s: bad-digest after %v: %s", shB4, time.Since(started).Round(time.Millisecond), peerString(p))
	if p.Prefix != "192.0.2.0/24" {
		t.Errorf("/status %s: prefix %q, want 192.0.2.0/24", shB4, p.Prefix)
	}
	if p.State == Established {
		t.Errorf("/status %s: established with the wrong key", shB4)
	}
	requireAuth(t, p, "password-file", true)
	if l := shLogLine(a.Log(), shB4.String(), "bad-digest"); l == "" {
		t.Errorf("no shadow diagnosis bad-digest line for %s in the log", shB4)
	}
	waitSessions(t, 30*time.Second, 1, sessionCheck{a, shB6}, sessionCheck{f, shA6})
	t.Logf("%s established after %v", shB6, time.Since(started).Round(time.Millisecond))
	// authbgpd's own addresses lie inside its ranges: its own segments
	// are "sent" to the peer, never a peer of their own.
	for _, own := range []netip.Addr{shA4, shA6} {
		if q := a.Peer(own.String()); q != nil {
			t.Errorf("/status reports authbgpd's own address as a peer: %s", peerString(q))
		}
	}
	p6 := waitShadow(t, a, shB6.String(), 10*time.Second, "ok with valid segments both ways", func(p *status.Peer) bool {
		return p.Shadow.Diagnosis == "ok" && p.Shadow.Segments.Valid > 0 && p.Shadow.Sent != nil && p.Shadow.Sent.Valid > 0
	})
	t.Logf("%s: %s", shB6, peerString(p6))
	if p6.Prefix != "2001:db8::/64" || p6.State != Established {
		t.Errorf("/status %s: prefix %q state %s, want 2001:db8::/64 established", shB6, p6.Prefix, p6.State)
	}
	for _, own := range []netip.Addr{shA4, shA6} {
		if q := a.Peer(own.String()); q != nil {
			t.Errorf("/status reports authbgpd's own address as a peer: %s", peerString(q))
		}
	}
	// Not assertNoSecrets: it asks GoBGP about every /status peer, and
	// 192.0.2.2 is known only to the shadow checker.
	shNoSecrets(t, a, key4, key6, wrong)
}

// shNoSecrets searches authbgpd's log, /status and /metrics for every form
// of every secret.
func shNoSecrets(t testing.TB, a *Authbgpd, secrets ...string) {
	t.Helper()
	outputs := map[string]string{"log": a.Log()}
	for _, path := range []string{"/status", "/metrics"} {
		body, err := a.HTTPGet(path)
		if err != nil {
			t.Errorf("GET %s: %v", path, err)
		}
		outputs[path] = body
	}
	for name, text := range outputs {
		for i, s := range secrets {
			for form, v := range secretForms(s) {
				if strings.Contains(text, v) {
					t.Errorf("secret #%d (%s form) leaked in %s", i, form, name)
				}
			}
		}
	}
}
