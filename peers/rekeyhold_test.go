package peers

import (
	"context"
	"io"
	"net/netip"
	"strings"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"

	"github.com/authbgp/authbgpd/internal/testlog"
	"github.com/authbgp/authbgpd/plugin"
)

func TestKeepOldKeyRule(t *testing.T) {
	t0 := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name             string
		changed, lastBad time.Time
		now              time.Time
		want             bool
	}{
		{"no change", time.Time{}, time.Time{}, t0, false},
		{"within the hold", t0, time.Time{}, t0.Add(rekeyHold - time.Millisecond), true},
		{"the hold has run out", t0, time.Time{}, t0.Add(rekeyHold), false},
		{"a bad digest since the change: the peer moved", t0, t0.Add(time.Second), t0.Add(time.Second), false},
		{"a bad digest just before the change: the peer moved first", t0, t0.Add(-movedBefore), t0.Add(time.Millisecond), false},
		{"a bad digest long before the change", t0, t0.Add(-movedBefore - time.Millisecond), t0.Add(time.Millisecond), true},
	} {
		if got := keepOldKey(c.changed, c.lastBad, c.now, rekeyHold); got != c.want {
			t.Errorf("%s: keepOldKey = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestRekeyHold: an established connection keeps the replaced key for the
// hold. A peer that resets the session meanwhile (its NOTIFICATION signed
// with the old key gets through) leaves nothing to re-key; a bad-digest
// drop from the peer re-keys at once.
func TestRekeyHold(t *testing.T) {
	const addr = "192.0.2.2"
	conn := addr + ":40000"
	reload := func(t *testing.T, m *Manager) {
		if _, err := m.Reload(context.Background(), cfg(t, strings.Replace(twoPeers, "Secret-Alpha", "Secret-Delta", 1))); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("the peer resets the session", func(t *testing.T) {
		s := newFakeSockets()
		var logs testlog.Buffer
		m, b := start(t, cfg(t, twoPeers), s, &logs)
		established(b, addr)
		waitFor(t, "established", func() bool { return m.Status()[0].State == "established" })
		reload(t, m)
		if got := s.connKey(conn); got != "" {
			t.Fatalf("connection re-keyed at once (%d bytes)", len(got))
		}
		b.setState(addr, api.PeerState_IDLE)
		b.events <- plugin.PeerEvent{Peer: netip.MustParseAddr(addr), State: "idle", Time: time.Now()}
		waitFor(t, "idle", func() bool { return m.Status()[0].State == "idle" })
		time.Sleep(testRekeyHold)
		m.Reconcile(context.Background())
		if got := s.connKey(conn); got != "" {
			t.Fatalf("the ended session's connection was re-keyed (%d bytes)", len(got))
		}
		if strings.Contains(logs.String(), "re-key") {
			t.Fatalf("a re-key was tried:\n%s", logs.String())
		}
	})
	t.Run("a bad digest from the peer", func(t *testing.T) {
		s := newFakeSockets()
		m, b := start(t, cfg(t, twoPeers), s, io.Discard)
		m.mu.Lock()
		m.rekeyHold = time.Hour
		m.mu.Unlock()
		established(b, addr)
		waitFor(t, "established", func() bool { return m.Status()[0].State == "established" })
		reload(t, m)
		m.Reconcile(context.Background())
		if got := s.connKey(conn); got != "" {
			t.Fatalf("connection re-keyed within the hold (%d bytes)", len(got))
		}
		m.BadDigest(netip.MustParseAddr("::ffff:" + addr)) // as dropwatch may give it
		waitFor(t, "the re-key on the peer's bad digest", func() bool { return s.connKey(conn) == "Secret-Delta" })
	})
}
