package peers

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/internal/testlog"
	"github.com/authbgp/authbgpd/keys"
	"github.com/authbgp/authbgpd/tcpsock"
)

var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

const chainCfg = `
[[keychains]]
name = "core"
  [[keychains.keys]]
  id = 1
  secret = "Chain-One"
  send-from = 2026-12-01T11:00:00Z
  [[keychains.keys]]
  id = 2
  secret = "Chain-Two"
  send-from = 2026-12-01T13:00:00Z
[[keychains]]
name = "later"
  [[keychains.keys]]
  id = 7
  secret = "Later-Seven"
  send-from = 2026-12-01T14:00:00Z
[[peers]]
address = "192.0.2.2"
asn = 65002
keychain = "core"
[[peers]]
prefix = "198.51.100.0/24"
asn = 65010
keychain = "later"
[[peers]]
address = "192.0.2.3"
asn = 65003
password = "Plain-Pass"
[[peers]]
address = "192.0.2.4"
asn = 65004
`

// TestComputeDesired: the table of what a pass decides from its inputs.
func TestComputeDesired(t *testing.T) {
	c := cfg(t, chainCfg)
	injected := errors.New("injected install failure")
	for _, tc := range []struct {
		name     string
		in       Inputs
		id       string
		keyID    int
		secret   string
		held     bool
		errIs    error
		errHas   string
		pin      int
		nextAt   time.Time
		unkeyed  bool
		noSecret bool
	}{
		{name: "schedule", in: Inputs{Now: t0}, id: "192.0.2.2", keyID: 1, secret: "Chain-One", pin: -1, nextAt: t0.Add(time.Hour)},
		{name: "schedule later", in: Inputs{Now: t0.Add(90 * time.Minute)}, id: "192.0.2.2", keyID: 2, secret: "Chain-Two", pin: -1, nextAt: t0.Add(2 * time.Hour)},
		{name: "pin ahead", in: Inputs{Now: t0, Proposals: map[string]int{"192.0.2.2": 2}}, id: "192.0.2.2", keyID: 2, secret: "Chain-Two", pin: 2},
		{name: "pin caught up is dropped", in: Inputs{Now: t0.Add(90 * time.Minute), Proposals: map[string]int{"192.0.2.2": 2}}, id: "192.0.2.2", keyID: 2, secret: "Chain-Two", pin: -1},
		{name: "pin of an older key does not rule", in: Inputs{Now: t0.Add(90 * time.Minute), Proposals: map[string]int{"192.0.2.2": 1}}, id: "192.0.2.2", keyID: 2, secret: "Chain-Two", pin: -1},
		{name: "keys all start later: held until the first", in: Inputs{Now: t0}, id: "198.51.100.0/24", keyID: -1, held: true, errIs: ErrNoValidKey, errHas: "first key starts at 2026-12-01T14:00:00Z", pin: -1, noSecret: true},
		{name: "first key started", in: Inputs{Now: t0.Add(2 * time.Hour)}, id: "198.51.100.0/24", keyID: 7, secret: "Later-Seven", pin: -1},
		{name: "password", in: Inputs{Now: t0}, id: "192.0.2.3", keyID: -1, secret: "Plain-Pass", pin: -1},
		{name: "held by an install failure", in: Inputs{Now: t0, Held: map[string]error{"192.0.2.3": injected}}, id: "192.0.2.3", keyID: -1, secret: "Plain-Pass", held: true, errIs: injected, pin: -1},
		{name: "preflight holds every keyed peer", in: Inputs{Now: t0, Preflight: tcpsock.ErrKernelFIPS}, id: "192.0.2.3", keyID: -1, secret: "Plain-Pass", held: true, errIs: tcpsock.ErrKernelFIPS, pin: -1},
		{name: "unkeyed peer", in: Inputs{Now: t0, Preflight: tcpsock.ErrKernelFIPS, Held: map[string]error{"192.0.2.4": injected}}, id: "192.0.2.4", keyID: -1, unkeyed: true, pin: -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.in.Config = c
			d := ComputeDesired(tc.in)
			w, ok := d.Peers[tc.id]
			if !ok {
				t.Fatalf("%s not desired", tc.id)
			}
			if w.Key.Keyed() == tc.unkeyed || w.Key.KeyID != tc.keyID || w.HeldDown != tc.held || w.Pin != tc.pin {
				t.Fatalf("want keyed=%v key %d held=%v pin %d; got %+v", !tc.unkeyed, tc.keyID, tc.held, tc.pin, w)
			}
			if !tc.unkeyed && (len(w.Key.MD5) == 0) != tc.noSecret {
				t.Fatalf("secret present=%v", len(w.Key.MD5) > 0)
			}
			if tc.secret != "" && !w.Key.MD5.Equal(keys.Secret(tc.secret)) {
				t.Fatal("wrong secret")
			}
			if (tc.errIs == nil) != (w.Err == nil) || (tc.errIs != nil && !errors.Is(w.Err, tc.errIs)) {
				t.Fatalf("err %v, want %v", w.Err, tc.errIs)
			}
			if tc.errHas != "" && !strings.Contains(w.Err.Error(), tc.errHas) {
				t.Fatalf("err %q lacks %q", w.Err, tc.errHas)
			}
			if w.Err != nil && strings.Contains(w.Err.Error(), "Later-Seven") {
				t.Fatal("secret in error")
			}
			if !tc.nextAt.IsZero() && !d.NextSwitch.Equal(tc.nextAt) {
				t.Fatalf("next switch %v, want %v", d.NextSwitch, tc.nextAt)
			}
		})
	}
}

// randomConfig builds a config of static peers and (nested, overlapping)
// ranges, keyed by passwords or keychains with random start times, and
// some unkeyed.
func randomConfig(t *testing.T, r *rand.Rand) *config.Config {
	var b strings.Builder
	for k := range 3 {
		fmt.Fprintf(&b, "[[keychains]]\nname = \"kc%d\"\n", k)
		used, at, always := map[int]bool{}, map[int]bool{}, false
		for range 1 + r.IntN(4) {
			id, min := r.IntN(256), r.IntN(480)-240
			if used[id] || at[min] || (always && r.IntN(4) == 0) {
				continue
			}
			used[id] = true
			fmt.Fprintf(&b, "  [[keychains.keys]]\n  id = %d\n  secret = \"kc%d-key%d\"\n", id, k, id)
			if always || r.IntN(4) > 0 {
				at[min] = true
				fmt.Fprintf(&b, "  send-from = %s\n", t0.Add(time.Duration(min)*time.Minute).Format(time.RFC3339))
			} else {
				always = true
			}
		}
	}
	seen := map[string]bool{}
	for i := range 2 + r.IntN(10) {
		var id string
		if r.IntN(2) == 0 {
			id = fmt.Sprintf("address = \"192.0.2.%d\"", 1+r.IntN(16))
		} else {
			bits := 24 + r.IntN(7)
			pfx := netip.PrefixFrom(netip.AddrFrom4([4]byte{192, 0, 2, byte(r.IntN(16))}), bits).Masked()
			id = fmt.Sprintf("prefix = %q", pfx)
		}
		if seen[id] || id == `address = "192.0.2.1"` {
			continue
		}
		seen[id] = true
		fmt.Fprintf(&b, "[[peers]]\n%s\nasn = %d\n", id, 65100+i)
		switch r.IntN(3) {
		case 0:
			fmt.Fprintf(&b, "password = \"pw-%d\"\n", i)
		case 1:
			fmt.Fprintf(&b, "keychain = \"kc%d\"\n", r.IntN(3))
		}
	}
	return cfg(t, b.String())
}

// TestComputeDesiredProperties: over random configs, times, proposals and
// install failures, a keyed peer is never unkeyed, a peer that runs has a
// usable key (the schedule's or an accepted proposal still ahead of it),
// a failure or an unusable key holds it down, and the most specific match
// owns an address.
func TestComputeDesiredProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 300 {
		c := randomConfig(t, r)
		in := Inputs{Config: c, Now: t0.Add(time.Duration(r.IntN(600)-300) * time.Minute), Proposals: map[string]int{}, Held: map[string]error{}}
		for i := range c.Peers {
			if r.IntN(4) == 0 {
				in.Proposals[c.Peers[i].ID()] = r.IntN(256)
			}
			if r.IntN(6) == 0 {
				in.Held[c.Peers[i].ID()] = errors.New("injected")
			}
		}
		if r.IntN(10) == 0 {
			in.Preflight = tcpsock.ErrKernelFIPS
		}
		d := ComputeDesired(in)
		for i := range c.Peers {
			checkWant(t, n, in, &c.Peers[i], d.Peers[c.Peers[i].ID()])
		}
		checkOwners(t, n, c, r)
	}
}

func checkWant(t *testing.T, n int, in Inputs, p *config.Peer, w Want) {
	t.Helper()
	keyed := p.Auth().Mode == config.AuthMD5
	if w.Key.Keyed() != keyed {
		t.Fatalf("case %d: %s keyed=%v but desired keyed=%v", n, p.ID(), keyed, w.Key.Keyed())
	}
	if !keyed {
		if w.HeldDown {
			t.Fatalf("case %d: unkeyed %s held down", n, p.ID())
		}
		return
	}
	if !w.HeldDown && !w.Key.Usable() {
		t.Fatalf("case %d: %s runs without a usable key", n, p.ID())
	}
	if (in.Held[p.ID()] != nil || in.Preflight != nil) && !w.HeldDown {
		t.Fatalf("case %d: %s failed to install but is not held down", n, p.ID())
	}
	if !w.Key.Usable() {
		return
	}
	s, id, ok := in.Config.PeerKey(p, in.Now)
	if w.Pin >= 0 {
		kc := in.Config.Keychain(p.Keychain)
		if w.Pin != in.Proposals[p.ID()] || !kc.Schedule().Ahead(in.Now, w.Pin) || w.Key.KeyID != w.Pin {
			t.Fatalf("case %d: %s kept pin %d not ahead of the schedule", n, p.ID(), w.Pin)
		}
		return
	}
	if !ok || id != w.Key.KeyID || !s.Equal(w.Key.MD5) {
		t.Fatalf("case %d: %s key %d is not the schedule's (%d, ok=%v)", n, p.ID(), w.Key.KeyID, id, ok)
	}
}

// checkOwners compares ownerOf with a brute-force most-specific match.
func checkOwners(t *testing.T, n int, c *config.Config, r *rand.Rand) {
	t.Helper()
	for range 8 {
		a := netip.AddrFrom4([4]byte{192, 0, 2, byte(r.IntN(20))})
		want, bits := "", -1
		for i := range c.Peers {
			p := &c.Peers[i]
			switch {
			case !p.IsDynamic() && p.Address == a:
				want, bits = p.ID(), 33
			case p.IsDynamic() && p.Prefix.Contains(a) && p.Prefix.Bits() > bits:
				want, bits = p.ID(), p.Prefix.Bits()
			}
		}
		if got := ownerOf(c, nbr("", a)); got != want {
			t.Fatalf("case %d: owner of %s is %q, want %q", n, a, got, want)
		}
	}
}

// TestReloadIntoFutureKeychain: a reload moves a running peer onto a
// keychain whose keys all start later. The peer is held down (never left
// up on the old key, never unkeyed) until the first key starts, and comes
// up with it then: the switch time is the time of the next pass.
func TestReloadIntoFutureKeychain(t *testing.T) {
	s := newFakeSockets()
	var logs testlog.Buffer
	m, b := start(t, cfg(t, twoPeers), s, &logs)
	if p := b.peer("192.0.2.2"); p == nil || p.Conf.AdminDown {
		t.Fatalf("before: %+v", p)
	}
	at := time.Now().Add(700 * time.Millisecond).UTC()
	next := cfg(t, fmt.Sprintf(`
[[keychains]]
name = "future"
  [[keychains.keys]]
  id = 5
  secret = "Future-Five"
  send-from = %q
[[peers]]
address = "192.0.2.2"
asn = 65002
keychain = "future"
[[peers]]
prefix = "198.51.100.0/24"
asn = 65010
password = "Secret-Bravo"
[[peers]]
address = "192.0.2.3"
asn = 65003
`, at.Format(time.RFC3339Nano)))
	_, err := m.Reload(context.Background(), next)
	if !errors.Is(err, ErrNoValidKey) {
		t.Fatalf("reload: %v, want ErrNoValidKey", err)
	}
	p := b.peer("192.0.2.2")
	if p == nil || !p.Conf.AdminDown {
		t.Fatalf("a peer whose keychain has no key yet must be held down: %+v", p.GetConf())
	}
	for _, ps := range m.Status() {
		if ps.Address == "192.0.2.2" && (ps.State != "admin-down" || ps.Auth.Installed || !strings.Contains(ps.Auth.Error, "no key valid now")) {
			t.Fatalf("status while held: %+v", ps)
		}
	}
	waitFor(t, "the first key to start and the peer to come up", func() bool {
		p := b.peer("192.0.2.2")
		v, _ := s.key("192.0.2.2")
		return p != nil && !p.Conf.AdminDown && v == "Future-Five" && p.Conf.AuthPassword == ""
	})
	if time.Now().Before(at) {
		t.Fatal("released before the key's start")
	}
	if strings.Contains(logs.String(), "Future-Five") {
		t.Fatal("secret in logs")
	}
	noUpdatePeer(t, b)
}

// TestTCPAOPeerHeldDown: where TCP-AO keys cannot be put on sockets (a
// kernel without TCP-AO, or a socket layer without it), a peer on a TCP-AO
// keychain is held down (admin down in GoBGP; its range kept out of
// GoBGP), never run unauthenticated, and its status says why.
func TestTCPAOPeerHeldDown(t *testing.T) {
	c := cfg(t, `
[[keychains]]
name = "ao"
type = "tcp-ao"
  [[keychains.keys]]
  id = 1
  secret = "AO-Secret-One"
[[peers]]
address = "192.0.2.2"
asn = 65002
keychain = "ao"
[[peers]]
prefix = "198.51.100.0/24"
asn = 65010
keychain = "ao"
`)
	w := ComputeDesired(Inputs{Config: c, Now: t0, AOPreflight: tcpsock.ErrNoTCPAO}).Peers["192.0.2.2"]
	if w.Key.Mech != MechTCPAO || !w.HeldDown || !errors.Is(w.Err, ErrMechanismUnsupported) || !errors.Is(w.Err, tcpsock.ErrNoTCPAO) {
		t.Fatalf("desired %+v", w)
	}
	if w := ComputeDesired(Inputs{Config: c, Now: t0}).Peers["192.0.2.2"]; w.HeldDown || !w.Key.Usable() || w.Key.AO.Current != 1 || w.Key.AO.RNext != 1 {
		t.Fatalf("desired with TCP-AO usable %+v", w)
	}
	s := newFakeSockets()
	var logs testlog.Buffer
	m, b := start(t, c, s, &logs)
	if p := b.peer("192.0.2.2"); p == nil || !p.Conf.AdminDown || p.Conf.AuthPassword != "" {
		t.Fatalf("GoBGP neighbor %+v", p.GetConf())
	}
	b.mu.Lock()
	n := len(b.dyn)
	b.mu.Unlock()
	if n != 0 {
		t.Fatal("a TCP-AO range reached GoBGP")
	}
	for _, ps := range m.Status() {
		if ps.Auth.Mode != "tcp-ao" || ps.Auth.Installed || ps.State != "admin-down" || ps.Auth.Error != errFakeNoAO.Error() {
			t.Fatalf("status %+v", ps)
		}
	}
	if strings.Contains(logs.String(), "AO-Secret") {
		t.Fatal("secret in logs")
	}
}
