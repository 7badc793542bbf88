package peers

import (
	"context"
	"io"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/keys"
	"github.com/authbgp/authbgpd/plugin"
	"github.com/authbgp/authbgpd/status"
	"github.com/authbgp/authbgpd/tcpsock"
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
	// The kernel refuses the range's key on the listener, before listen
	// and at the pass alike.
	s.fail = map[string]bool{"listen 198.51.100.0/24": true, "198.51.100.0/24": true}
	m := New(Options{Config: cfg(t, twoPeers), Logger: quietLogger(io.Discard), Sockets: s})
	port, err := listenHost(t, m)
	if err != nil {
		t.Fatalf("Start: %v: one refused key must not keep the listener (and every other peer) down", err)
	}
	s.mu.Lock()
	got := s.listened["127.0.0.1:"+strconv.Itoa(port)]
	s.mu.Unlock()
	if !slices.Equal(got, []string{"192.0.2.2=Secret-Alpha"}) {
		t.Errorf("the listener carried %v before listen, want the static peer's key alone", got)
	}
	var rng *status.Peer
	for _, p := range m.Status() {
		if p.Address == "198.51.100.0/24" {
			rng = &p
		}
	}
	if rng == nil || rng.State != "admin-down" || rng.Auth.Error == "" {
		t.Fatalf("the range whose key the kernel refused: %+v, want held down with its error", rng)
	}
}

// TestListenerWants: the listen hook's table holds what the key stage
// installs: a VRF peer's key scoped to its VRF's l3index, a TCP-AO peer's
// MKTs, and nothing for an unkeyed peer, an interface peer not learnt yet,
// one sharing another's listener key, or one whose scope the kernel
// refuses.
func TestListenerWants(t *testing.T) {
	c := cfg(t, `
[[peers]]
address = "192.0.2.2"
asn = 65002
password = "Secret-Alpha"
[[peers]]
address = "192.0.2.3"
asn = 65003
password = "Secret-Bravo"
[[peers]]
address = "192.0.2.4"
asn = 65004
[[peers]]
address = "192.0.2.5"
asn = 65005
password = "Secret-Charlie"
[[peers]]
address = "192.0.2.6"
asn = 65006
password = "Secret-Delta"
[[peers]]
address = "192.0.2.7"
asn = 65007
password = "Secret-Echo"
`)
	p := func(i int) *config.Peer { return &c.Peers[i] }
	ao := tcpsock.AOSet{Prefix: netip.MustParsePrefix("192.0.2.8/32"), Keys: []tcpsock.AOKey{{SendID: 1, RecvID: 1}}, Current: 1, RNext: 1}
	d := Desired{Peers: map[string]Want{
		"vrf":    {Cfg: p(0), Key: Key{Mech: MechMD5, MD5: keys.Secret("Secret-Alpha")}, IfIndex: 7},
		"plain":  {Cfg: p(1), Key: Key{Mech: MechMD5, MD5: keys.Secret("Secret-Bravo")}},
		"none":   {Cfg: p(2)},
		"shares": {Cfg: p(3), Key: Key{Mech: MechMD5, MD5: keys.Secret("Secret-Charlie")}, SharesListener: "other"},
		"scope":  {Cfg: p(4), Key: Key{Mech: MechMD5, MD5: keys.Secret("Secret-Delta")}, HeldDown: true, Err: ErrScope},
		"ao":     {Cfg: p(5), Key: Key{Mech: MechTCPAO, AO: ao}},
	}}
	md5, aos := listenerWants(d)
	var got []string
	for _, k := range md5 {
		got = append(got, k.Scope()+"="+string(k.Secret)+" l3="+strconv.Itoa(k.IfIndex))
	}
	slices.Sort(got)
	want := []string{"192.0.2.2 ifindex 7=Secret-Alpha l3=7", "192.0.2.3=Secret-Bravo l3=0"}
	if !slices.Equal(got, want) {
		t.Errorf("TCP-MD5 listener keys %q, want %q", got, want)
	}
	if len(aos) != 1 || aos[0].Prefix != ao.Prefix || len(aos[0].Keys) != 1 {
		t.Errorf("TCP-AO listener sets %+v, want the ao peer's", aos)
	}
}
