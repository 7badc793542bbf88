package gobgp_test

import (
	"context"
	"errors"
	"net"
	"strconv"
	"syscall"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/osrg/gobgp/v3/pkg/server"
)

// The listener hook (patch 0035): it runs on each BGP listening socket
// before the socket listens, and its error leaves the server without a
// listener.

// listenerServer starts a server on a free loopback port with hook as its
// listener Control, and returns StartBgp's error and the port.
func listenerServer(t *testing.T, hook server.ListenerControl) (*server.BgpServer, int, error) {
	t.Helper()
	port := freeTCPPort(t, "127.0.0.1")
	s := server.NewBgpServer(server.LoggerOption(quietLogger{}), server.ListenerControlOption(hook))
	go s.Serve()
	t.Cleanup(func() { _ = s.StopBgp(context.Background(), &api.StopBgpRequest{}) })
	err := s.StartBgp(context.Background(), &api.StartBgpRequest{Global: &api.Global{
		Asn: 65001, RouterId: "192.0.2.1", ListenPort: int32(port), ListenAddresses: []string{"127.0.0.1"},
	}})
	return s, port, err
}

func dialable(port int) bool {
	c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second)
	if err != nil {
		return false
	}
	_ = c.Close()
	return true
}

// TestListenerControlBeforeListen: the hook gets the listener's network
// and address and its raw socket while nothing can connect to it yet; once
// StartBgp returns, the port accepts.
func TestListenerControlBeforeListen(t *testing.T) {
	var calls []string
	var early bool
	var raw bool
	_, port, err := listenerServer(t, func(network, address string, c syscall.RawConn) error {
		calls = append(calls, network+" "+address)
		_, p, _ := net.SplitHostPort(address)
		n, _ := strconv.Atoi(p)
		early = early || dialable(n) // a connection now would be accepted before the hook's options
		raw = c != nil && c.Control(func(uintptr) {}) == nil
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "tcp4 127.0.0.1:" + strconv.Itoa(port)
	if len(calls) != 1 || calls[0] != want {
		t.Fatalf("hook calls %q, want one: %q", calls, want)
	}
	if early {
		t.Error("a connection was accepted while the hook ran: it must run before listen(2)")
	}
	if !raw {
		t.Error("the hook's RawConn did not give the socket")
	}
	if !dialable(port) {
		t.Error("after StartBgp the listener does not accept")
	}
}

// TestListenerControlErrorAborts: a hook's error fails StartBgp with it,
// and nothing listens on the port.
func TestListenerControlErrorAborts(t *testing.T) {
	refuse := errors.New("no keys for this listener")
	_, port, err := listenerServer(t, func(string, string, syscall.RawConn) error { return refuse })
	if !errors.Is(err, refuse) {
		t.Fatalf("StartBgp: %v, want the hook's error", err)
	}
	if dialable(port) {
		t.Fatal("a listener whose hook failed accepts connections")
	}
}
