//go:build linux

package e2e

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/craftedrun"
	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/status"
	"github.com/authbgp/authbgpd/tcpsock"
	"github.com/authbgp/authbgpd/third_party/gobgp/crafted"
)

// TestMalformedUpdates (issue 41): keyed peers (TCP-MD5) send authbgpd the
// crafted messages of the 2026 GoBGP advisories, one peer each, while an
// FRR session beside them stays Established. authbgpd stays up; each
// offending session is handled as RFC 7606 and the fix say (a
// NOTIFICATION, or treat-as-withdraw, attribute discard, AFI/SAFI
// disable); /status says what was malformed, /metrics counts it, and no
// panic is recovered (every fix is in). The VM runs the same over TCP-AO
// (e2e/vmtest TestMalformedUpdatesTCPAO).
//
// Topology: authbgpd in a (192.0.2.1 on eth0, 203.0.113.1 on eth1); the
// raw peers in b, 192.0.2.10 upwards, one per message, passive peers of
// authbgpd keyed with rawKey; FRR in c (203.0.113.2), keyed with frrKey,
// announcing 203.0.113.128/25.
func TestMalformedUpdates(t *testing.T) {
	testenv.RequireRoot(t)
	const rawKey, frrKey = "crafted-peer-key", "frr-bystander-key"
	cases := craftedrun.Cases(func(i int) netip.Addr { return netip.AddrFrom4([4]byte{192, 0, 2, byte(10 + i)}) })
	addrs := craftedrun.Addrs(cases)

	tp := netns.New(t, "malf")
	a, b, c := tp.Add("a"), tp.Add("b"), tp.Add("c")
	var bAddrs []string
	for _, x := range addrs {
		bAddrs = append(bAddrs, x.String()+"/24")
	}
	tp.Link(a, "eth0", []string{"192.0.2.1/24"}, b, "eth0", bAddrs)
	tp.Link(a, "eth1", []string{"203.0.113.1/24"}, c, "eth0", []string{"203.0.113.2/24"})

	frrAddr, rtr := netip.MustParseAddr("203.0.113.2"), netip.MustParseAddr("192.0.2.1")
	peers := []abPeer{{addr: frrAddr.String(), asn: 65002, src: "password", ref: frrKey}}
	for _, x := range addrs {
		peers = append(peers, abPeer{addr: x.String(), asn: crafted.PeerAS, src: "password", ref: rawKey, passive: true})
	}
	ab := StartAuthbgpd(t, tp, a, abConfig("", peers...), AuthbgpdOptions{LogLevel: "info"})
	frr := StartFRR(t, tp, c, PeerConfig{ASN: 65002, RouterID: netip.MustParseAddr("203.0.113.2"),
		Neighbors: []Neighbor{{Addr: netip.MustParseAddr("203.0.113.1"), ASN: 65001, Password: frrKey}},
		Networks:  []netip.Prefix{netip.MustParsePrefix("203.0.113.128/25")}})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := WaitSession(ctx, frr, netip.MustParseAddr("203.0.113.1"), 0); err != nil {
		t.Fatal(err)
	}
	bystander := waitPeer(t, ab, frrAddr.String(), 30*time.Second, "established with its route", func(p *status.Peer) bool {
		return p.State == "established" && craftedrun.AcceptedV4(p) == 1
	})
	upSince := time.Now().Add(-time.Duration(bystander.UptimeSeconds) * time.Second)

	// A raw peer's connection: from its address in b, signed with rawKey.
	dial := func(from netip.Addr) (net.Conn, error) {
		d := &net.Dialer{Timeout: 5 * time.Second, LocalAddr: &net.TCPAddr{IP: from.AsSlice()}}
		d.SetMultipathTCP(false)
		k := md5auth.AddrKey(rtr, []byte(rawKey))
		d.Control = func(_, _ string, rc syscall.RawConn) error { return tcpsock.SetKey(rc, k) }
		var c net.Conn
		err := netns.Do(b, func() (err error) {
			c, err = d.Dial("tcp", netip.AddrPortFrom(rtr, 179).String())
			return err
		})
		return c, err
	}
	craftedrun.Run(t, abDaemon{ab}, cases, dial)

	// Every fix is in: not one panic recovered. The bystander's session
	// never went down, and authbgpd is the process it was.
	if n := craftedrun.Panics(abDaemon{ab}, addrs); n != 0 {
		t.Errorf("%d panics recovered in GoBGP's receive path: a fix is missing", n)
	}
	p := ab.Peer(frrAddr.String())
	if p == nil || p.State != "established" || craftedrun.AcceptedV4(p) != 1 {
		t.Errorf("the FRR session beside them: %s", peerString(p))
	} else if since := time.Now().Add(-time.Duration(p.UptimeSeconds) * time.Second); since.Sub(upSince).Abs() > 2*time.Second {
		t.Errorf("the FRR session was re-established during the test (up since %v, before %v)", since, upSince)
	}
	if st, err := frr.State(netip.MustParseAddr("203.0.113.1")); err != nil || st != Established {
		t.Errorf("FRR's side of its session: %q, %v", st, err)
	}
	if ab.cmd.ProcessState != nil {
		t.Fatalf("authbgpd exited: %s", tail(ab.Log(), 3000))
	}

	// /metrics counts them per peer.
	metrics, err := ab.HTTPGet("/metrics")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		updates := 0
		if c.Message[18] == 2 && (c.Want.Reset || c.Want.Handling != 0) {
			updates = 1
		}
		want := fmt.Sprintf("authbgpd_peer_malformed_updates_total{peer=%q} %d\n", c.From.String(), updates)
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics has no %q", strings.TrimSpace(want))
		}
	}
	if !strings.Contains(metrics, fmt.Sprintf("authbgpd_peer_receive_panics_total{peer=%q} 0\n", addrs[0])) {
		t.Error("/metrics has no authbgpd_peer_receive_panics_total at 0")
	}
}

// abDaemon is an Authbgpd as craftedrun.Daemon.
type abDaemon struct{ a *Authbgpd }

func (d abDaemon) Peer(addr string) *status.Peer { return d.a.Peer(addr) }

func (d abDaemon) Healthy() error {
	_, err := d.a.HTTPGet("/healthz")
	return err
}
