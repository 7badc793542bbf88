//go:build linux

package plugin

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"sync"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/osrg/gobgp/v3/pkg/packet/bgp"
	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/third_party/gobgp/crafted"
)

// TestFSMEventsFromSession drives a real GoBGP session with a raw peer and
// reads what the Host learned from GoBGP's FSM events, with GoBGP's log at
// Error level (its Warn and Info lines, which say the same, are not even
// formatted): the refusal hooks in Established, Idle and OpenSent, the
// NOTIFICATION sent for a malformed message and the session's end it
// caused (with that message), and a NOTIFICATION received and its end.
func TestFSMEventsFromSession(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits out GoBGP's idle hold (5 s)")
	}
	ctx := context.Background()
	port := freePort(t)
	h := newTestHost(t, Options{ListenPort: int32(port), ListenAddresses: []string{"127.0.0.1"},
		Logger: newTestLogger(&syncBuffer{}, logrus.ErrorLevel, false)})
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	refusals := map[string][]netip.Addr{}
	hook := func(kind string) RefusalHook {
		return func(_ string, a netip.Addr) {
			mu.Lock()
			defer mu.Unlock()
			refusals[kind] = append(refusals[kind], a)
		}
	}
	h.OnConnectionRefused(hook("established"))
	h.OnIdleRefusal(hook("idle"))
	h.OnOpenSentRefusal(hook("opensent"))
	peer := netip.MustParseAddr("127.0.0.2")
	refusedIn := func(kind string, n int) {
		t.Helper()
		waitFor(t, 5*time.Second, fmt.Sprintf("%d refusal(s) in %s", n, kind), func() bool {
			mu.Lock()
			defer mu.Unlock()
			return slices.Equal(refusals[kind], slices.Repeat([]netip.Addr{peer}, n))
		})
	}

	events, cancel := h.Subscribe(64)
	defer cancel()
	state := func(want string) {
		t.Helper()
		waitEvent(t, events, 10*time.Second, want, func(ev PeerEvent) bool { return ev.Peer == peer && ev.State == want })
	}
	if err := h.AddPeer(ctx, &api.Peer{
		Conf:      &api.PeerConf{NeighborAddress: peer.String(), PeerAsn: crafted.PeerAS},
		Transport: &api.Transport{LocalAddress: "127.0.0.1", PassiveMode: true},
	}); err != nil {
		t.Fatal(err)
	}
	dial := func() *crafted.Peer { return dialRaw(t, peer, port) }
	id := [4]byte{192, 0, 2, 2}
	open := crafted.Open(crafted.PeerAS, id)

	// Established: a second connection is refused.
	state("active")
	p := dial()
	if err := p.Handshake(open, nil); err != nil {
		t.Fatal(err)
	}
	state("established")
	dial()
	refusedIn("established", 1)

	// A message of an unknown type: GoBGP resets the session with a
	// NOTIFICATION, and the session's end names the message.
	if err := p.Send(crafted.Msg(255, nil)); err != nil {
		t.Fatal(err)
	}
	state("idle")
	waitFor(t, 5*time.Second, "the session's end", func() bool {
		_, ok := h.LastDown("", peer)
		return ok
	})
	if n, ok := h.LastNotification("", peer); !ok || n.Direction != "sent" || n.Code != bgp.BGP_ERROR_MESSAGE_HEADER_ERROR || n.Subcode != bgp.BGP_ERROR_SUB_BAD_MESSAGE_TYPE {
		t.Errorf("after a message of an unknown type: last NOTIFICATION %+v %v", n, ok)
	}
	if d, _ := h.LastDown("", peer); d.Reason != "notification-sent code 1(header) subcode 3(bad message type)" ||
		d.Malformed == nil || d.Malformed.Message != "type 255" {
		t.Errorf("after a message of an unknown type: down %+v (malformed %+v)", d, d.Malformed)
	}

	// Idle (GoBGP's idle hold): a connection is refused.
	dial()
	refusedIn("idle", 1)

	// OpenSent: a second connection is refused.
	state("active")
	p = dial()
	state("opensent")
	dial()
	refusedIn("opensent", 1)

	// The peer ends the session: a NOTIFICATION received.
	if err := p.Handshake(open, nil); err != nil {
		t.Fatal(err)
	}
	state("established")
	if err := p.Send(crafted.Msg(bgp.BGP_MSG_NOTIFICATION, []byte{bgp.BGP_ERROR_CEASE, bgp.BGP_ERROR_SUB_PEER_DECONFIGURED})); err != nil {
		t.Fatal(err)
	}
	state("idle")
	waitFor(t, 5*time.Second, "the second end", func() bool {
		d, _ := h.LastDown("", peer)
		return d.Reason == "notification-received code 6(cease) subcode 3(peer deconfigured)" && d.Malformed == nil
	})
	if n, ok := h.LastNotification("", peer); !ok || n.Direction != "received" || n.Code != 6 || n.Subcode != 3 || n.Text != "code 6(cease) subcode 3(peer deconfigured)" {
		t.Errorf("after the peer's NOTIFICATION: last NOTIFICATION %+v %v", n, ok)
	}
	mu.Lock()
	defer mu.Unlock()
	if n := len(refusals["established"]) + len(refusals["idle"]) + len(refusals["opensent"]); n != 3 {
		t.Errorf("refusals %v: want one of each", refusals)
	}
}

// dialRaw is a raw peer's connection from peer to the Host's listener on
// 127.0.0.1:port, closed when the test ends.
func dialRaw(t *testing.T, peer netip.Addr, port int) *crafted.Peer {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: peer.AsSlice()}, Timeout: 5 * time.Second}
	c, err := d.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &crafted.Peer{Conn: c}
}
