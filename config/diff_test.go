package config

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func mustParse(t *testing.T, doc string) *Config {
	t.Helper()
	c, err := parseTest(t, "r1.toml", doc)
	if err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	return c
}

const diffKeychains = `
[[keychains]]
name = "core"
[[keychains.keys]]
id = 1
secret = "core-1"
[[keychains.keys]]
id = 2
secret = "core-2"
send-from = 2026-03-01T00:00:00Z
[[keychains]]
name = "edge"
[[keychains.keys]]
id = 1
secret = "edge-1"
`

func peerDoc(peers ...string) string {
	return G + diffKeychains + strings.Join(peers, "\n")
}

const (
	pA = "[[peers]]\naddress = \"192.0.2.2\"\nasn = 65002\npassword = \"pw-a\"\n"
	pB = "[[peers]]\naddress = \"192.0.2.3\"\nasn = 65003\nkeychain = \"core\"\n"
	pC = "[[peers]]\nprefix = \"198.51.100.0/24\"\nasn = 65004\n"
)

func ids(ps []*Peer) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.ID())
	}
	return out
}

func TestDiffPeers(t *testing.T) {
	old := mustParse(t, peerDoc(pA, pB, pC))

	cases := []struct {
		name                      string
		new                       string
		added, removed, unchanged []string
		changed                   map[string][]string // id -> fields
		keyChanged                map[string]bool
		keychainsChanged          []string
		restart                   bool
	}{
		{name: "identical", new: peerDoc(pA, pB, pC), unchanged: []string{"192.0.2.2", "192.0.2.3", "198.51.100.0/24"}},
		{name: "reordered and comments", new: peerDoc(pC, "# hi\n"+pB, pA), unchanged: []string{"198.51.100.0/24", "192.0.2.3", "192.0.2.2"}},
		{name: "add and remove", new: peerDoc(pA, "[[peers]]\naddress = \"2001:db8::9\"\nasn = 9\n"),
			added: []string{"2001:db8::9"}, removed: []string{"192.0.2.3", "198.51.100.0/24"}, unchanged: []string{"192.0.2.2"}},
		{name: "password changed", new: peerDoc(strings.Replace(pA, "pw-a", "pw-a2", 1), pB, pC),
			changed: map[string][]string{"192.0.2.2": {"secret"}}, keyChanged: map[string]bool{"192.0.2.2": true},
			unchanged: []string{"192.0.2.3", "198.51.100.0/24"}},
		{name: "secret from env", new: peerDoc(strings.Replace(pA, `password = "pw-a"`, `password-env = "PEER_KEY"`, 1), pB, pC),
			changed: map[string][]string{"192.0.2.2": {"auth", "secret"}}, keyChanged: map[string]bool{"192.0.2.2": true},
			unchanged: []string{"192.0.2.3", "198.51.100.0/24"}},
		{name: "asn and more", new: peerDoc(
			strings.Replace(pA, "65002", "65012", 1)+"families = [\"ipv4-unicast\", \"ipv4-srpolicy\"]\nmultihop-ttl = 3\nlocal-address = \"192.0.2.1\"\npassive = true\n", pB, pC),
			changed:   map[string][]string{"192.0.2.2": {"asn", "families", "local-address", "multihop-ttl", "passive"}},
			unchanged: []string{"192.0.2.3", "198.51.100.0/24"}},
		{name: "auth turned off", new: peerDoc(strings.Replace(pA, `password = "pw-a"`, "", 1), pB, pC),
			changed: map[string][]string{"192.0.2.2": {"auth"}}, keyChanged: map[string]bool{"192.0.2.2": true},
			unchanged: []string{"192.0.2.3", "198.51.100.0/24"}},
		{name: "auth turned on", new: peerDoc(pA, pB, pC+"password-env = \"PEER_KEY\"\n"),
			changed: map[string][]string{"198.51.100.0/24": {"auth", "secret"}}, keyChanged: map[string]bool{"198.51.100.0/24": true},
			unchanged: []string{"192.0.2.2", "192.0.2.3"}},
		{name: "keychain switched", new: peerDoc(pA, strings.Replace(pB, "core", "edge", 1), pC),
			changed: map[string][]string{"192.0.2.3": {"auth", "secret"}}, keyChanged: map[string]bool{"192.0.2.3": true},
			unchanged: []string{"192.0.2.2", "198.51.100.0/24"}},
		{name: "keychain key changed", new: strings.Replace(peerDoc(pA, pB, pC), "core-2", "core-2b", 1),
			changed: map[string][]string{"192.0.2.3": {"secret"}}, keyChanged: map[string]bool{"192.0.2.3": true},
			unchanged: []string{"192.0.2.2", "198.51.100.0/24"}, keychainsChanged: []string{"core"}},
		{name: "keychain send-from changed", new: strings.Replace(peerDoc(pA, pB, pC), "2026-03-01", "2026-04-01", 1),
			changed: map[string][]string{"192.0.2.3": {"secret"}}, keyChanged: map[string]bool{"192.0.2.3": true},
			unchanged: []string{"192.0.2.2", "198.51.100.0/24"}, keychainsChanged: []string{"core"}},
		{name: "unused keychain changed", new: strings.Replace(peerDoc(pA, pB, pC), "edge-1", "edge-1b", 1),
			unchanged: []string{"192.0.2.2", "192.0.2.3", "198.51.100.0/24"}, keychainsChanged: []string{"edge"}},
		{name: "router-id", new: strings.Replace(peerDoc(pA, pB, pC), "192.0.2.1", "192.0.2.100", 1),
			unchanged: []string{"192.0.2.2", "192.0.2.3", "198.51.100.0/24"}, restart: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ch := Diff(old, mustParse(t, tc.new))
			if got := ids(ch.Added); !slices.Equal(got, tc.added) {
				t.Errorf("added %v, want %v", got, tc.added)
			}
			if got := ids(ch.Removed); !slices.Equal(got, tc.removed) {
				t.Errorf("removed %v, want %v", got, tc.removed)
			}
			if got := ids(ch.Unchanged); !slices.Equal(got, tc.unchanged) {
				t.Errorf("unchanged %v, want %v", got, tc.unchanged)
			}
			if len(ch.Changed) != len(tc.changed) {
				t.Errorf("changed %+v, want %v", ch.Changed, tc.changed)
			}
			for _, pc := range ch.Changed {
				want, ok := tc.changed[pc.ID]
				if !ok || !slices.Equal(pc.Fields, want) {
					t.Errorf("changed %s: %v, want %v", pc.ID, pc.Fields, want)
				}
				if pc.KeyChanged != tc.keyChanged[pc.ID] {
					t.Errorf("changed %s: KeyChanged %v", pc.ID, pc.KeyChanged)
				}
				if pc.Old == nil || pc.New == nil || pc.Old.ID() != pc.ID || pc.New.ID() != pc.ID {
					t.Errorf("changed %s: old/new %v %v", pc.ID, pc.Old, pc.New)
				}
				if pc.KeyOnly() != !slices.ContainsFunc(pc.Fields, func(f string) bool { return f != "auth" && f != "secret" }) {
					t.Errorf("KeyOnly %v for %v", pc.KeyOnly(), pc.Fields)
				}
			}
			if !slices.Equal(ch.KeychainsChanged, tc.keychainsChanged) {
				t.Errorf("keychains changed %v, want %v", ch.KeychainsChanged, tc.keychainsChanged)
			}
			if ch.NeedsRestart() != tc.restart {
				t.Errorf("restart %v", ch.NeedsRestart())
			}
		})
	}
}

func TestDiffSameSecretOtherSource(t *testing.T) {
	old := mustParse(t, peerWith(`password = "env-secret"`))
	ch := Diff(old, mustParse(t, peerWith(`password-env = "PEER_KEY"`)))
	if len(ch.Changed) != 1 || !slices.Equal(ch.Changed[0].Fields, []string{"auth"}) || ch.Changed[0].KeyChanged || !ch.Changed[0].KeyOnly() {
		t.Errorf("%+v", ch.Changed)
	}
	if !ch.Changed[0].Has("auth") || ch.Changed[0].Has("secret") {
		t.Errorf("Has")
	}
}

func TestDiffGlobal(t *testing.T) {
	base := G + "listen-port = 179\nlisten-addresses = [\"0.0.0.0\", \"::\"]\n"
	old := mustParse(t, base)
	if ch := Diff(old, mustParse(t, G+"listen-addresses = [\"::\", \"0.0.0.0\"]\n")); !ch.Empty() {
		t.Errorf("reordered listen addresses / defaults: %+v", ch)
	}
	ch := Diff(old, mustParse(t, "[global]\nasn = 65009\nrouter-id = \"192.0.2.9\"\nlisten-port = 1179\nlisten-addresses = [\"::\"]\n[log]\nlevel = \"debug\"\n[api]\nhttp = \"\"\n[shadow]\nenabled = true\n"))
	if !ch.ASN || !ch.RouterID || !ch.ListenPort || !ch.ListenAddresses || !ch.NeedsRestart() || !ch.Log || !ch.API || !ch.Shadow || ch.Empty() {
		t.Errorf("global changes: %+v", ch)
	}
	if ch := Diff(old, mustParse(t, base+"[log]\nformat = \"json\"\n")); ch.NeedsRestart() || !ch.Log || ch.Empty() {
		t.Errorf("log only: %+v", ch)
	}
	pp := mustParse(t, base+"[api]\npprof = true\n")
	if !pp.API.Pprof || old.API.Pprof {
		t.Errorf("[api] pprof decoded as %v (default %v)", pp.API.Pprof, old.API.Pprof)
	}
	if ch := Diff(old, pp); !ch.API || ch.NeedsRestart() { // noted, not refused: it waits for a restart
		t.Errorf("pprof turned on: %+v", ch)
	}

	// nil old: everything is added.
	c := mustParse(t, peerDoc(pA, pB))
	ch = Diff(nil, c)
	if !slices.Equal(ids(ch.Added), []string{"192.0.2.2", "192.0.2.3"}) || !slices.Equal(ch.KeychainsAdded, []string{"core", "edge"}) {
		t.Errorf("from nil: %+v", ch)
	}
	ch = Diff(c, nil)
	if !slices.Equal(ids(ch.Removed), []string{"192.0.2.2", "192.0.2.3"}) || !slices.Equal(ch.KeychainsRemoved, []string{"core", "edge"}) {
		t.Errorf("to nil: %+v", ch)
	}
}

func TestDiffSRv6(t *testing.T) {
	srv6 := func(secret42, segs, extra string) string {
		return G + `
[[srv6.hmac-keys]]
id = 42
algorithm = "sha256"
secret = "` + secret42 + `"
` + extra + `
[[srv6.policies]]
name = "gold"
color = 100
endpoint = "2001:db8::3"
segments = [` + segs + `]
hmac-key-id = 42
headends = ["192.0.2.3", "192.0.2.4"]
`
	}
	old := mustParse(t, srv6("k42", `"fc00::1", "fc00::2"`, ""))
	ch := Diff(old, mustParse(t, srv6("k42", `"fc00::1", "fc00::2"`, "")))
	if !ch.Empty() {
		t.Errorf("same: %+v", ch)
	}
	ch = Diff(old, mustParse(t, srv6("k42b", `"fc00::2", "fc00::1"`, "[[srv6.hmac-keys]]\nid = 43\nalgorithm = \"sha1\"\nsecret = \"k43\"\n")))
	if !slices.Equal(ch.HMACKeysChanged, []uint32{42}) || !slices.Equal(ch.HMACKeysAdded, []uint32{43}) ||
		!slices.Equal(ch.PoliciesChanged, []string{"gold"}) || ch.NeedsRestart() {
		t.Errorf("changed: %+v", ch)
	}
	ch = Diff(old, mustParse(t, G+"[srv6.headend]\nenabled = true\nsource = \"2001:db8::1\"\n"))
	if !slices.Equal(ch.HMACKeysRemoved, []uint32{42}) || !slices.Equal(ch.PoliciesRemoved, []string{"gold"}) || !ch.Headend {
		t.Errorf("removed: %+v", ch)
	}
}

func TestKeychainActive(t *testing.T) {
	d := func(m time.Month, day int) time.Time { return time.Date(2026, m, day, 0, 0, 0, 0, time.UTC) }
	c := mustParse(t, G+`
[[keychains]]
name = "k"
[[keychains.keys]]
id = 3
secret = "three"
send-from = 2026-05-01T00:00:00Z
[[keychains.keys]]
id = 1
secret = "one"
[[keychains.keys]]
id = 2
secret = "two"
send-from = 2026-03-01T02:00:00+02:00
`)
	kc := c.Keychain("k")
	cases := []struct {
		now    time.Time
		active int // -1: none
		next   time.Time
	}{
		{d(1, 1), 1, d(3, 1)},
		{d(3, 1).Add(-time.Nanosecond), 1, d(3, 1)},
		{d(3, 1), 2, d(5, 1)}, // send-from <= now is active
		{d(4, 30), 2, d(5, 1)},
		{d(5, 1), 3, time.Time{}},
		{d(12, 31), 3, time.Time{}},
	}
	for _, tc := range cases {
		k, ok := kc.Active(tc.now)
		if !ok || int(k.ID) != tc.active {
			t.Errorf("Active(%v) = %d %v, want %d", tc.now, k.ID, ok, tc.active)
		}
		next, ok := kc.NextSwitch(tc.now)
		if ok != !tc.next.IsZero() || !next.Equal(tc.next) {
			t.Errorf("NextSwitch(%v) = %v %v, want %v", tc.now, next, ok, tc.next)
		}
	}
	if kc.Key(2) == nil || string(kc.Key(2).Secret) != "two" || kc.Key(9) != nil {
		t.Errorf("Key lookup")
	}

	// All keys in the future: nothing active until the first starts.
	future := &Keychain{Name: "f", Keys: []Key{{ID: 5, SendFrom: d(7, 1)}, {ID: 6, SendFrom: d(8, 1)}}}
	if _, ok := future.Active(d(6, 1)); ok {
		t.Errorf("future keychain has an active key")
	}
	if next, ok := future.NextSwitch(d(6, 1)); !ok || !next.Equal(d(7, 1)) {
		t.Errorf("future NextSwitch %v %v", next, ok)
	}
	if k, ok := future.Active(d(9, 1)); !ok || k.ID != 6 {
		t.Errorf("future Active later: %v %v", k.ID, ok)
	}
	if _, ok := (&Keychain{}).Active(d(1, 1)); ok {
		t.Errorf("empty keychain has an active key")
	}

	// A config whose keychain has no key valid now warns.
	c, err := parseTest(t, "r1.toml", G+`[[keychains]]
name = "later"
[[keychains.keys]]
id = 1
secret-env = "PEER_KEY"
send-from = 2030-01-01T00:00:00Z
[[peers]]
address = "192.0.2.2"
asn = 2
keychain = "later"
`)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) != 1 || c.Warnings[0].String() != `r1.toml:5: keychain "later" has no key valid now; its first key starts at 2030-01-01T00:00:00Z` {
		t.Errorf("warnings: %v", c.Warnings)
	}
	if _, _, ok := c.PeerKey(&c.Peers[0], testNow); ok {
		t.Errorf("PeerKey before the first key")
	}
}
