package peers

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/testlog"
)

func dialStatus(t *testing.T, m *Manager, addr string) string {
	t.Helper()
	for _, ps := range m.Status() {
		if ps.Address == addr {
			return ps.Auth.DialError
		}
	}
	t.Fatalf("%s not in status", addr)
	return ""
}

// TestDialKeys: every dial GoBGP makes goes through the hook, which puts
// on the socket the key the last pass decided: the peer's TCP-MD5 key, no
// key for an unkeyed peer; an address no static peer has (a range's, or
// none) is refused, since GoBGP must not dial it at all.
func TestDialKeys(t *testing.T) {
	s := newFakeSockets()
	var logs testlog.Buffer
	m, _ := start(t, cfg(t, twoPeers), s, &logs)
	if err := dial(t, m, "192.0.2.2"); err != nil {
		t.Fatal(err)
	}
	if got := s.dialedWith("192.0.2.2:179"); got != "Secret-Alpha" {
		t.Fatalf("dial got key %q", got)
	}
	if err := dial(t, m, "192.0.2.3"); err != nil || s.dialedWith("192.0.2.3:179") != "" {
		t.Fatalf("unkeyed peer: %v, key %q", err, s.dialedWith("192.0.2.3:179"))
	}
	for _, a := range []string{"198.51.100.7", "203.0.113.1"} {
		if err := dial(t, m, a); !errors.Is(err, ErrDialRefused) {
			t.Fatalf("dial to %s (no static peer): %v, want refused", a, err)
		}
	}
	// A peer the config drops: its next dial is refused.
	if _, err := m.Reload(context.Background(), cfg(t, strings.SplitN(twoPeers, "[[peers]]\nprefix", 2)[0])); err != nil {
		t.Fatal(err)
	}
	if err := dial(t, m, "192.0.2.3"); !errors.Is(err, ErrDialRefused) {
		t.Fatalf("dial to a removed peer: %v", err)
	}
}

// TestDialFailClosed: a dial whose key the socket layer refuses fails (so
// GoBGP sends no SYN), /status says why without the secret, and the next
// dial that can be keyed clears it. A held-down peer's dials are refused
// before any key is tried.
func TestDialFailClosed(t *testing.T) {
	s := newFakeSockets()
	var logs testlog.Buffer
	m, _ := start(t, cfg(t, twoPeers), s, &logs)
	s.mu.Lock()
	s.fail["dial 192.0.2.2"] = true
	s.mu.Unlock()
	err := dial(t, m, "192.0.2.2")
	if err == nil || !strings.Contains(err.Error(), "fail closed") || !strings.Contains(err.Error(), "injected") {
		t.Fatalf("dial with a refused key: %v", err)
	}
	if got := dialStatus(t, m, "192.0.2.2"); !strings.Contains(got, "injected") || strings.Contains(got, "Secret-") {
		t.Fatalf("status dial_error %q", got)
	}
	s.mu.Lock()
	delete(s.fail, "dial 192.0.2.2")
	s.mu.Unlock()
	if err := dial(t, m, "192.0.2.2"); err != nil {
		t.Fatal(err)
	}
	if got := dialStatus(t, m, "192.0.2.2"); got != "" {
		t.Fatalf("dial_error after a keyed dial: %q", got)
	}

	// Held down (its listener key fails): refused, naming why.
	s.mu.Lock()
	s.fail["192.0.2.2"] = true
	s.mu.Unlock()
	if _, err := m.Reload(context.Background(), cfg(t, strings.Replace(twoPeers, "Secret-Alpha", "Secret-Echo", 1))); err != nil {
		t.Logf("reload: %v", err)
	}
	s.mu.Lock()
	s.dialed = nil
	s.mu.Unlock()
	if err := dial(t, m, "192.0.2.2"); !errors.Is(err, ErrDialRefused) || !strings.Contains(err.Error(), "injected") {
		t.Fatalf("dial to a held-down peer: %v", err)
	}
	if got := s.dialedWith("192.0.2.2:179"); got != "" {
		t.Fatalf("a held-down peer's dial was keyed (%q): it must not be tried", got)
	}
	if strings.Contains(logs.String(), "Secret-") {
		t.Fatalf("secret in logs:\n%s", logs.String())
	}
}

// TestDialTCPAO: a TCP-AO peer's dials get every MKT with the active key
// as current key and RNextKeyID; at the keychain's switch the next dial
// gets the new key at once.
func TestDialTCPAO(t *testing.T) {
	s := newFakeAO()
	var logs testlog.Buffer
	at := time.Now().Add(500 * time.Millisecond)
	m, b := startWith(t, cfg(t, aoConfig(at)), s, &logs)
	if p := b.peer("192.0.2.2"); p == nil || p.Transport.PassiveMode || p.Conf.AuthPassword != "" {
		t.Fatalf("GoBGP neighbor of a TCP-AO peer: must dial, hold no password: %+v", p)
	}
	if err := dial(t, m, "192.0.2.2"); err != nil {
		t.Fatal(err)
	}
	if got, want := s.dialedWith("192.0.2.2:179"), "tcp-ao 2 keys, current 1, rnext 1"; got != want {
		t.Fatalf("dial got %q, want %q", got, want)
	}
	waitFor(t, "the switch", func() bool {
		_ = dial(t, m, "192.0.2.2")
		return s.dialedWith("192.0.2.2:179") == "tcp-ao 2 keys, current 20, rnext 21"
	})
	if err := dial(t, m, "198.51.100.9"); !errors.Is(err, ErrDialRefused) {
		t.Fatalf("a TCP-AO range's address: %v", err)
	}
}

// TestDialDeferredWhilePeerIdle: after GoBGP (Idle) refused the peer's
// connection, the peer sits in its own idle hold: our dial then would be
// refused and push our GoBGP into its idle hold too (two GoBGPs that both
// dial stay out of phase). The dial is deferred, not keyed, not reported
// as a dial error; once the hold is over, dials are keyed again.
func TestDialDeferredWhilePeerIdle(t *testing.T) {
	s := newFakeSockets()
	var logs testlog.Buffer
	m, _ := start(t, cfg(t, twoPeers), s, &logs)
	m.IdleRefused(netip.MustParseAddr("::ffff:192.0.2.2"))
	err := dial(t, m, "192.0.2.2")
	if !errors.Is(err, errDialDeferred) || s.dialedWith("192.0.2.2:179") != "" {
		t.Fatalf("dial while the peer is in its idle hold: %v, key %q", err, s.dialedWith("192.0.2.2:179"))
	}
	if got := dialStatus(t, m, "192.0.2.2"); got != "" {
		t.Fatalf("a deferred dial is no dial error: %q", got)
	}
	if err := dial(t, m, "192.0.2.3"); err != nil {
		t.Fatalf("another peer's dial: %v", err)
	}
	m.dialMu.Lock()
	m.waitPeer[netip.MustParseAddr("192.0.2.2")] = time.Now()
	m.dialMu.Unlock()
	if err := dial(t, m, "192.0.2.2"); err != nil || s.dialedWith("192.0.2.2:179") != "Secret-Alpha" {
		t.Fatalf("after the hold: %v, key %q", err, s.dialedWith("192.0.2.2:179"))
	}
}
