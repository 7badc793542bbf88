package peers

import (
	"context"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/plugin"
)

// The listen hook (listen.go): the default VRF's listeners get every
// listener key from the config's desired state before GoBGP listens
// (Prepare, before the Host starts GoBGP), and a key that fails keeps
// GoBGP from listening at all.

// listenHost makes a Host listening on a free loopback port with m
// registered, and starts it; it returns Start's error and the port.
func listenHost(t *testing.T, m *Manager) (int, error) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	h, err := plugin.New(plugin.Options{ASN: 65001, RouterID: "192.0.2.1", ListenPort: int32(port),
		ListenAddresses: []string{"127.0.0.1"}, Logger: quietLogger(io.Discard), RequireDialHook: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		_ = h.Stop(ctx)
	})
	h.Register(m)
	return port, h.Start(context.Background())
}

// TestListenerKeyedBeforeListen: GoBGP's listener went through the hook
// with the keyed peers' keys (a static peer's, a range's; none for the
// unkeyed peer) before it listened.
func TestListenerKeyedBeforeListen(t *testing.T) {
	s := newFakeSockets()
	m := New(Options{Config: cfg(t, twoPeers), Logger: quietLogger(io.Discard), Sockets: s})
	port, err := listenHost(t, m)
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	got := s.listened["127.0.0.1:"+strconv.Itoa(port)]
	s.mu.Unlock()
	slices.Sort(got)
	want := []string{"192.0.2.2=Secret-Alpha", "198.51.100.0/24=Secret-Bravo"}
	if !slices.Equal(got, want) {
		t.Fatalf("the listener got %q before listen, want %q", got, want)
	}
}

// TestListenerKeyFailsClosed: a listener key the kernel refuses aborts
// the listener: the Host does not start, and nothing listens.
func TestListenerKeyFailsClosed(t *testing.T) {
	s := newFakeSockets()
	s.fail = map[string]bool{"listen 198.51.100.0/24": true}
	m := New(Options{Config: cfg(t, twoPeers), Logger: quietLogger(io.Discard), Sockets: s})
	port, err := listenHost(t, m)
	if err == nil {
		t.Fatal("the Host started with a listener whose key failed")
	}
	if !strings.Contains(err.Error(), "listener 127.0.0.1:"+strconv.Itoa(port)) {
		t.Errorf("Start: %v, want the listener named", err)
	}
	if c, derr := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second); derr == nil {
		_ = c.Close()
		t.Fatal("a listener whose key failed accepts connections")
	}
}
