package peers

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/testlog"

	api "github.com/osrg/gobgp/v3/api"

	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/plugin"
)

// blockingSockets is fakeSockets whose listener key installs wait, once
// armed, until released: a pass stuck inside an action.
type blockingSockets struct {
	*fakeSockets
	mu      sync.Mutex
	armed   bool
	entered chan struct{} // closed when an install begins waiting
	release chan struct{}
}

func (b *blockingSockets) arm() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.armed, b.entered, b.release = true, make(chan struct{}), make(chan struct{})
}

func (b *blockingSockets) Look(port uint16, _ bool) Look { return b.lookAt(b, port) }

func (b *blockingSockets) SetListenerKey(port uint16, k md5auth.Key) (int, error) {
	b.mu.Lock()
	wait := b.armed
	b.armed = false
	entered, release := b.entered, b.release
	b.mu.Unlock()
	if wait {
		close(entered)
		<-release
	}
	return b.fakeSockets.SetListenerKey(port, k)
}

// unblock lets a waiting install go on (idempotent).
func (b *blockingSockets) unblock() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.release != nil {
		close(b.release)
		b.release = nil
	}
}

// answers fails t unless f returns within the bound: far more than any
// answer takes, far less than forever (a pass blocked in an action never
// ends until the test releases it).
func answers(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not answer while a pass was inside an action (it waits for the pass)", what)
	}
}

// TestAnswersWhilePassActs: a pass holds no lock while it acts. With the
// pass stuck inside a listener key install (a reload's key change), GoBGP's
// events are recorded, /status answers from them (not from its last
// snapshot), the API guard refuses what the config owns, the dial hook keys
// a dial with the key the last pass published and fails closed for an
// address no peer has, and KeyIDs and Healthy answer. Once released, the
// pass finishes the reload.
func TestAnswersWhilePassActs(t *testing.T) {
	s := &blockingSockets{fakeSockets: newFakeSockets()}
	m := New(Options{Config: cfg(t, twoPeers), Logger: quietLogger(&testlog.Buffer{}), Sockets: s, ReconcileEvery: time.Hour})
	b := newFakeBGP()
	if err := m.start(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	defer m.Stop(context.Background())
	defer s.unblock()               // before Stop, even when the test fails: the pass must end
	for _, ps := range m.Status() { // the snapshot Status falls back on
		if ps.Address == "192.0.2.3" && ps.State == "established" {
			t.Fatal("the session is established before its event")
		}
	}

	s.arm()
	reloaded := make(chan error, 1)
	go func() {
		_, err := m.Reload(context.Background(), cfg(t, strings.Replace(twoPeers, "Secret-Alpha", "Secret-Alpha-2", 1)))
		reloaded <- err
	}()
	select {
	case <-s.entered:
	case err := <-reloaded:
		t.Fatalf("the reload ended without installing the changed key: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the reload's pass never installed the changed key")
	}

	a3 := netip.MustParseAddr("192.0.2.3")
	b.events <- plugin.PeerEvent{Peer: a3, State: "established", Time: time.Now(),
		Local: netip.MustParseAddrPort("192.0.2.1:179"), Remote: netip.MustParseAddrPort("192.0.2.3:40001")}
	answers(t, "an event and /status", func() {
		for !statusEstablished(m, "192.0.2.3") {
			time.Sleep(5 * time.Millisecond)
		}
	})
	answers(t, "the API guard", func() {
		err := m.GuardAPI(context.Background(), &api.AddPeerRequest{Peer: &api.Peer{Conf: &api.PeerConf{NeighborAddress: "192.0.2.2"}}})
		if !errors.Is(err, ErrManagedByConfig) {
			t.Errorf("guard: %v", err)
		}
	})
	answers(t, "the dial hook", func() {
		if err := m.dialKey(context.Background(), "", netip.MustParseAddr("192.0.2.2"), netip.MustParseAddrPort("192.0.2.2:179"), nil); err != nil {
			t.Errorf("dial of a keyed peer: %v", err)
		}
		if err := m.dialKey(context.Background(), "", netip.MustParseAddr("192.0.2.99"), netip.MustParseAddrPort("192.0.2.99:179"), nil); !errors.Is(err, ErrDialRefused) {
			t.Errorf("dial of an address no peer has: %v", err)
		}
	})
	if got := s.dialedWith("192.0.2.2:179"); got != "Secret-Alpha" {
		t.Errorf("the dial during the pass got another key than the one published (%d bytes)", len(got))
	}
	answers(t, "Snapshot and Healthy", func() { _ = m.Snapshot(); _ = m.Healthy() })

	s.unblock()
	select {
	case err := <-reloaded:
		if err != nil {
			t.Fatalf("reload: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the pass did not finish once released")
	}
	if k, _ := s.key("192.0.2.2"); k != "Secret-Alpha-2" {
		t.Fatal("the changed key is not on the listener after the pass")
	}
}

func statusEstablished(m *Manager, id string) bool {
	for _, ps := range m.Status() {
		if ps.Address == id {
			return ps.State == "established"
		}
	}
	return false
}
