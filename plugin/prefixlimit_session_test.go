//go:build linux

package plugin

import (
	"context"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/osrg/gobgp/v3/pkg/packet/bgp"
	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/third_party/gobgp/crafted"
)

// TestPrefixLimitSession drives a real GoBGP session whose neighbor has a
// prefix limit (3, warning at 50%) with a raw peer: past the warning
// GoBGP's log names the peer, the limit and the count; one prefix over the
// limit, GoBGP sends a Cease, subcode 1, OnPrefixLimit's fn is told, and
// the session's end says it was the limit; after GoBGP's idle hold (5 s)
// the neighbor is tried again (the carried patch 0030: GoBGP kept it down
// for ever) and the session comes back.
func TestPrefixLimitSession(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits out GoBGP's idle hold (5 s)")
	}
	ctx := context.Background()
	port := freePort(t)
	logs := &syncBuffer{}
	h := newTestHost(t, Options{ListenPort: int32(port), ListenAddresses: []string{"127.0.0.1"},
		Logger: newTestLogger(logs, logrus.WarnLevel, false)})
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var told []netip.Addr
	h.OnPrefixLimit(func(_ string, a netip.Addr) {
		mu.Lock()
		defer mu.Unlock()
		told = append(told, a)
	})
	peer := netip.MustParseAddr("127.0.0.2")
	events, cancel := h.Subscribe(64)
	defer cancel()
	state := func(want string, d time.Duration) {
		t.Helper()
		waitEvent(t, events, d, want, func(ev PeerEvent) bool { return ev.Peer == peer && ev.State == want })
	}
	v4 := &api.Family{Afi: api.Family_AFI_IP, Safi: api.Family_SAFI_UNICAST}
	if err := h.AddPeer(ctx, &api.Peer{
		Conf:      &api.PeerConf{NeighborAddress: peer.String(), PeerAsn: crafted.PeerAS},
		Transport: &api.Transport{LocalAddress: "127.0.0.1", PassiveMode: true},
		AfiSafis: []*api.AfiSafi{{Config: &api.AfiSafiConfig{Family: v4, Enabled: true},
			PrefixLimits: &api.PrefixLimit{Family: v4, MaxPrefixes: 3, ShutdownThresholdPct: 50}}},
	}); err != nil {
		t.Fatal(err)
	}
	up := func() *crafted.Peer {
		t.Helper()
		p := dialRaw(t, peer, port)
		if err := p.Handshake(crafted.Open(crafted.PeerAS, [4]byte{192, 0, 2, 2}), nil); err != nil {
			t.Fatal(err)
		}
		state("established", 10*time.Second)
		return p
	}
	announce := func(p *crafted.Peer, thirds ...byte) {
		t.Helper()
		var nlri []byte
		for _, c := range thirds {
			nlri = append(nlri, crafted.NLRI24(198, 51, c)...)
		}
		if err := p.Send(crafted.Update(nil, crafted.Cat(crafted.Origin, crafted.ASPath, crafted.NextHop(peer.As4())), nlri)); err != nil {
			t.Fatal(err)
		}
	}
	logged := func(what string, parts ...string) {
		t.Helper()
		waitFor(t, 5*time.Second, what, func() bool {
			for _, l := range strings.Split(logs.String(), "\n") {
				if !slices.ContainsFunc(parts, func(s string) bool { return !strings.Contains(l, s) }) {
					return true
				}
			}
			return false
		})
	}

	state("active", 10*time.Second)
	p := up()
	announce(p, 100, 101) // 2 > 50% of 3: the warning
	logged("the warning", `msg="prefix limit warning threshold crossed"`, "peer=127.0.0.2", "max_prefixes=3", "count=2", "pct=50")
	if code, sub, ok, err := p.Notification(300 * time.Millisecond); ok || err != nil {
		t.Fatalf("at 2 of 3 prefixes: NOTIFICATION %d/%d %v, %v", code, sub, ok, err)
	}
	announce(p, 102, 103) // 4 > 3
	code, sub, ok, err := p.Notification(5 * time.Second)
	if !ok || err != nil || code != bgp.BGP_ERROR_CEASE || sub != bgp.BGP_ERROR_SUB_MAXIMUM_NUMBER_OF_PREFIXES_REACHED {
		t.Fatalf("at 4 of 3 prefixes: NOTIFICATION %d/%d %v, %v; want Cease/1", code, sub, ok, err)
	}
	logged("the limit", `msg="prefix limit reached"`, "peer=127.0.0.2", "max_prefixes=3", "count=4")
	state("idle", 5*time.Second)
	waitFor(t, 5*time.Second, "the session's end", func() bool {
		_, ok := h.LastDown("", peer)
		return ok
	})
	if d, _ := h.LastDown("", peer); !d.PrefixLimit || d.Reason != "notification-sent code 6(cease) subcode 1(maximum number of prefixes reached)" {
		t.Errorf("down %+v: want the prefix limit's", d)
	}
	mu.Lock()
	if !slices.Equal(told, []netip.Addr{peer}) {
		t.Errorf("OnPrefixLimit told %v, want %v once", told, peer)
	}
	mu.Unlock()

	// Tried again after the idle hold, and up again.
	state("active", 10*time.Second)
	p = up()
	announce(p, 100)
	if code, sub, ok, err := p.Notification(300 * time.Millisecond); ok || err != nil {
		t.Fatalf("after the retry, at 1 of 3 prefixes: NOTIFICATION %d/%d %v, %v", code, sub, ok, err)
	}
	// A session ended otherwise is no prefix limit's end.
	if err := p.Send(crafted.Msg(bgp.BGP_MSG_NOTIFICATION, []byte{bgp.BGP_ERROR_CEASE, bgp.BGP_ERROR_SUB_PEER_DECONFIGURED})); err != nil {
		t.Fatal(err)
	}
	state("idle", 5*time.Second)
	waitFor(t, 5*time.Second, "the second end", func() bool {
		d, _ := h.LastDown("", peer)
		return strings.HasPrefix(d.Reason, "notification-received") && !d.PrefixLimit
	})
}
