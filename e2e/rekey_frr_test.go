//go:build linux

package e2e

import (
	"context"
	"fmt"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/status"
)

// TestPeerResetsOnKeyChange: FRR ends its session with a Cease when its
// password changes. authbgpd, re-keyed by a reload right after, restarts
// the Idle neighbor instead of leaving it in GoBGP's 5 s idle hold, and
// the session comes back with the new key on the wire (read back from our
// connection and verified by the kernel). With FRR passive, the restarted
// neighbor's dial waits for FRR's (none comes), then dials FRR itself. With authbgpd re-keyed first, its established
// connection keeps the old key for the hold (rekeyhold.go), so FRR's Cease
// still gets through: the same restart, and no stale session to end.
func TestPeerResetsOnKeyChange(t *testing.T) {
	testenv.RequireRoot(t)
	t.Parallel()
	for _, c := range []struct {
		name, tag string
		passive   bool
		ourFirst  bool     // authbgpd reloads first, then FRR
		want      []string // log lines of authbgpd's that must appear
	}{
		{"FRR dials", "rkfa", false, false, []string{"session ended around a key change: neighbor restarted"}},
		{"FRR passive", "rkfp", true, false, []string{"session ended around a key change: neighbor restarted", "dial deferral over, no dial from the peer: dialing"}},
		{"authbgpd first", "rkfo", false, true, []string{"session ended around a key change: neighbor restarted"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			pair := newPair(t, c.tag, false)
			tp, nsA, nsB := pair.Topology, pair.A, pair.B
			a4, b4 := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
			key, newKey := newSecret(c.tag), newSecret(c.tag+"new")
			a := StartAuthbgpd(t, tp, nsA, abConfig(noWatch, abPeer{addr: b4.String(), asn: 65002, src: "password-file", ref: "b.key"}),
				AuthbgpdOptions{Files: map[string]string{"b.key": key + "\n"}})
			conf := frrConfig(PeerConfig{ASN: 65002, RouterID: b4, Neighbors: []Neighbor{{a4, 65001, key}}})
			if c.passive {
				conf = strings.Replace(conf, " neighbor 192.0.2.1 remote-as 65001\n", " neighbor 192.0.2.1 remote-as 65001\n neighbor 192.0.2.1 passive\n", 1)
			}
			f := startBgpd(t, tp, nsB, "frr", conf)
			f.waitVty(t)
			waitPeer(t, a, b4.String(), 60*time.Second, "the session", func(p *status.Peer) bool { return p.State == "established" })

			// FRR first (its Cease ends the session), then authbgpd; or
			// the other way round.
			t0 := time.Now()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			frr := func() {
				if out, err := f.Vtysh(ctx, "configure terminal", "router bgp 65002", "neighbor 192.0.2.1 password "+newKey); err != nil {
					t.Fatalf("FRR password change: %v\n%s", err, out)
				}
			}
			ours := func() {
				write(t, filepath.Join(filepath.Dir(a.Config), "b.key"), newKey+"\n")
				a.Reload(abConfig(noWatch, abPeer{addr: b4.String(), asn: 65002, src: "password-file", ref: "b.key"}))
			}
			if c.ourFirst {
				ours()
				frr()
			} else {
				frr()
				ours()
			}
			waitFor(t, 60*time.Second, "the session back with the new key", func() error {
				s, err := edgFRRSession(f, a4)
				if err != nil {
					return err
				}
				if s.state != "established" || time.Duration(s.upMsec)*time.Millisecond >= time.Since(t0) {
					return fmt.Errorf("FRR: %s", s)
				}
				p := a.Peer(b4.String())
				if p == nil || p.State != "established" || !p.Auth.Installed || p.Auth.Verified != "kernel" {
					return fmt.Errorf("authbgpd: %s", peerString(p))
				}
				socks, err := socketKeysIn(nsA, 179)
				if err != nil {
					return err
				}
				if !socketsCarry(socks, b4, newKey, key) {
					return fmt.Errorf("the new key not read back from our connection")
				}
				return nil
			})
			t.Logf("session back %.1f s after FRR's password change", time.Since(t0).Seconds())
			log := a.Log()
			for _, w := range c.want {
				if !strings.Contains(log, w) {
					t.Errorf("authbgpd's log lacks %q; its lines since the change:\n%s", w, linesSince(log, "SIGHUP"))
				}
			}
			if strings.Contains(log, "ending stale session") {
				t.Errorf("FRR's Cease did not get through: a stale session was ended; authbgpd's lines since the change:\n%s", linesSince(log, "SIGHUP"))
			}
			for _, s := range []string{key, newKey} {
				if strings.Contains(log, s) {
					t.Fatal("a secret is in the log")
				}
			}
		})
	}
}

// linesSince is log from the first line containing mark on, without debug
// lines.
func linesSince(log, mark string) string {
	i := strings.Index(log, mark)
	if i < 0 {
		return ""
	}
	var b strings.Builder
	for _, l := range strings.Split(log[i:], "\n") {
		if !strings.Contains(l, "level=debug") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}
