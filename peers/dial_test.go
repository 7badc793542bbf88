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
	// MKTs the socket layer refuses: no SYN leaves (fail closed).
	s.mu.Lock()
	s.fail["dial 192.0.2.2/32"] = true
	s.mu.Unlock()
	if err := dial(t, m, "192.0.2.2"); err == nil || !strings.Contains(err.Error(), "fail closed") || !strings.Contains(err.Error(), "injected") {
		t.Fatalf("dial with refused TCP-AO keys: %v", err)
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
	m.IdleRefused("", netip.MustParseAddr("::ffff:192.0.2.2"))
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
	m.waitPeer[nbr("", netip.MustParseAddr("192.0.2.2"))] = time.Now()
	m.dialMu.Unlock()
	if err := dial(t, m, "192.0.2.2"); err != nil || s.dialedWith("192.0.2.2:179") != "Secret-Alpha" {
		t.Fatalf("after the hold: %v, key %q", err, s.dialedWith("192.0.2.2:179"))
	}
}

// TestDialWaitsOutTheDeferral: a dial deferred for the peer's own waits
// inside the hook until the deferral ends, then is keyed and goes out (a
// refused dial would cost GoBGP's connect loop a whole connect-retry
// tick); it returns at once when its context ends (GoBGP's connect loop
// stopped: the peer's dial arrived, and the FSM cannot leave Active until
// the hook returns), and is refused at once when the deferral does not fit
// in the dial's timeout. A peer gone from the config during the wait is
// refused (the wait re-reads the pass's table).
func TestDialWaitsOutTheDeferral(t *testing.T) {
	const hold = 400 * time.Millisecond
	s := newFakeSockets()
	var logs testlog.Buffer
	m, _ := start(t, cfg(t, twoPeers), s, &logs)
	a := netip.MustParseAddr("192.0.2.2")
	remote := netip.AddrPortFrom(a, 179)
	withTimeout := func(d time.Duration) context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		t.Cleanup(cancel)
		return ctx
	}

	t.Run("waits, then dials", func(t *testing.T) {
		m.waitForPeer(nbr("", a), hold)
		t0 := time.Now()
		err := m.dialKey(withTimeout(9*time.Second), "", a, remote, nil)
		if d := time.Since(t0); err != nil || d < hold-50*time.Millisecond {
			t.Fatalf("dial after %v: %v (want nil after the %v deferral)", d, err, hold)
		}
		if got := s.dialedWith(remote.String()); got != "Secret-Alpha" {
			t.Fatalf("the waited dial was keyed with %q", got)
		}
		if !strings.Contains(logs.String(), "dial deferral over, no dial from the peer: dialing") {
			t.Fatalf("no log of the waited dial:\n%s", logs.String())
		}
	})
	t.Run("the connect loop stops", func(t *testing.T) {
		m.waitForPeer(nbr("", a), 5*time.Second)
		ctx, cancel := context.WithCancel(withTimeout(9 * time.Second))
		time.AfterFunc(100*time.Millisecond, cancel)
		t0 := time.Now()
		err := m.dialKey(ctx, "", a, remote, nil)
		if d := time.Since(t0); !errors.Is(err, errDialDeferred) || !errors.Is(err, context.Canceled) || d > time.Second {
			t.Fatalf("dial whose connect loop stopped: %v after %v", err, d)
		}
	})
	t.Run("does not fit the timeout", func(t *testing.T) {
		m.waitForPeer(nbr("", a), 5*time.Second)
		t0 := time.Now()
		err := m.dialKey(withTimeout(5*time.Second+dialMargin/2), "", a, remote, nil)
		if d := time.Since(t0); !errors.Is(err, errDialDeferred) || d > 100*time.Millisecond {
			t.Fatalf("a deferral longer than the dial's timeout: %v after %v", err, d)
		}
		if got := dialStatus(t, m, "192.0.2.2"); got != "" {
			t.Fatalf("a deferred dial is no dial error: %q", got)
		}
	})
	t.Run("gone from the config while waiting", func(t *testing.T) {
		// waitForPeer's 5 s is still running.
		time.AfterFunc(2*dialPoll, func() {
			if _, err := m.Reload(context.Background(), cfg(t, strings.Replace(twoPeers, `address = "192.0.2.2"`, `address = "192.0.2.4"`, 1))); err != nil {
				t.Error(err)
			}
		})
		t0 := time.Now()
		err := m.dialKey(withTimeout(9*time.Second), "", a, remote, nil)
		if d := time.Since(t0); !errors.Is(err, ErrDialRefused) || d > 2*time.Second {
			t.Fatalf("a peer removed during the wait: %v after %v", err, d)
		}
	})
}
