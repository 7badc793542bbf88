package vmtest

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/craftedrun"
	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/status"
	"github.com/authbgp/authbgpd/third_party/gobgp/crafted"
)

// TestMalformedUpdatesTCPAO is e2e TestMalformedUpdates over TCP-AO
// (issue 41): keyed peers, each of its own address and on an MKT of the
// router's keychain, send authbgpd the crafted messages of the 2026 GoBGP
// advisories, while a TCP-AO bystander session beside them stays
// Established. authbgpd stays up, handles each as RFC 7606 and the fix
// say, reports it in /status and /metrics, and recovers no panic.
func TestMalformedUpdatesTCPAO(t *testing.T) {
	requireVM(t)
	// The router's key for the raw peers (they send with its RecvID).
	k := mkt{id: 1, sendID: 41, recvID: 14, alg: "hmac(sha1)", secret: "crafted over tcp-ao"}
	cases := craftedrun.Cases(func(i int) netip.Addr { return netip.AddrFrom4([4]byte{192, 0, 2, byte(10 + i)}) })
	addrs := craftedrun.Addrs(cases)
	bystander := netip.MustParseAddr("192.0.2.9")

	var pAddrs []string
	for _, a := range append([]netip.Addr{bystander}, addrs...) {
		pAddrs = append(pAddrs, a.String()+"/24")
	}
	tp := netns.NewPair(t, "malf",
		netns.End{NS: "r", If: "eth0", Addrs: []string{rtr4.String() + "/24"}},
		netns.End{NS: "p", If: "eth0", Addrs: pAddrs})
	var b strings.Builder
	fmt.Fprintf(&b, "[global]\nasn = %d\nrouter-id = %q\nlisten-addresses = [%q]\n", asRouter, rtr4, rtr4)
	fmt.Fprintf(&b, "\n[api]\ngrpc = \"\"\nhttp = %q\n", routerHTTP)
	b.WriteString(keychainTOML("crafted", k))
	for _, a := range append([]netip.Addr{bystander}, addrs...) {
		fmt.Fprintf(&b, "\n[[peers]]\naddress = %q\nasn = %d\nkeychain = \"crafted\"\npassive = true\n", a, crafted.PeerAS)
	}
	r := startRouter(t, tp.Topology, tp.A, b.String())

	// A peer's connection: from its address in p, with the far end of k.
	dial := func(from netip.Addr) (net.Conn, error) {
		key := aoKey{peer: rtr4, prefix: 32, alg: k.alg, sndID: uint8(k.recvID), rcvID: uint8(k.sendID), secret: []byte(k.secret)}
		var c net.Conn
		err := netns.Do(tp.B, func() (err error) {
			d := net.Dialer{Timeout: 10 * time.Second, LocalAddr: &net.TCPAddr{IP: from.AsSlice()}, Control: keyControl(&key)}
			c, err = d.Dial("tcp", netip.AddrPortFrom(rtr4, 179).String())
			return err
		})
		return c, err
	}

	// The bystander: up over TCP-AO, its route taken, KEEPALIVEs every 5 s.
	r.waitPeer(t, bystander.String(), 30*time.Second, "active", func(p *status.Peer) bool { return p.State == "active" })
	bc, err := dial(bystander)
	if err != nil {
		t.Fatalf("bystander: %v", err)
	}
	defer bc.Close()
	by := &crafted.Peer{Conn: bc}
	if err := by.Handshake(crafted.Open(crafted.PeerAS, bystander.As4()), nil); err != nil {
		t.Fatalf("bystander: %v", err)
	}
	if err := by.Send(crafted.Update(nil, crafted.Cat(crafted.Origin, crafted.ASPath, crafted.NextHop(bystander.As4())), crafted.NLRI24(203, 0, 113))); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Second):
				by.Send(crafted.Keepalive)
			}
		}
	}()
	up := r.waitPeer(t, bystander.String(), 30*time.Second, "established over TCP-AO with its route", func(p *status.Peer) bool {
		return p.State == "established" && p.Auth.Mode == "tcp-ao" && p.Auth.Installed && craftedrun.AcceptedV4(p) == 1
	})
	upSince := time.Now().Add(-time.Duration(up.UptimeSeconds) * time.Second)

	craftedrun.Run(t, routerDaemon{r}, cases, dial)

	if n := craftedrun.Panics(routerDaemon{r}, addrs); n != 0 {
		t.Errorf("%d panics recovered in GoBGP's receive path: a fix is missing", n)
	}
	p := r.peer(bystander.String())
	if p == nil || p.State != "established" || craftedrun.AcceptedV4(p) != 1 {
		t.Errorf("the bystander: %s", peerString(p))
	} else if since := time.Now().Add(-time.Duration(p.UptimeSeconds) * time.Second); since.Sub(upSince).Abs() > 2*time.Second {
		t.Errorf("the bystander session was re-established during the test (up since %v, before %v)", since, upSince)
	}
	// Every raw peer's session was TCP-AO: the router holds their keys
	// and the kernel counted good segments on the bystander's.
	if p != nil && (p.Auth.Kernel == nil || p.Auth.Kernel.Good == 0) {
		t.Errorf("the bystander's session: no good TCP-AO segments counted (%+v)", p.Auth)
	}
	if r.cmd.ProcessState != nil {
		t.Fatalf("authbgpd exited: %s", r.log())
	}
	if v, ok := r.metric(t, "authbgpd_peer_receive_panics_total", fmt.Sprintf("peer=%q", addrs[0])); !ok || v != 0 {
		t.Errorf("authbgpd_peer_receive_panics_total{peer=%q} = %v, %v; want 0", addrs[0], v, ok)
	}
}

// routerDaemon is a router as craftedrun.Daemon.
type routerDaemon struct{ r *router }

func (d routerDaemon) Peer(addr string) *status.Peer { return d.r.peer(addr) }

func (d routerDaemon) Healthy() error {
	_, err := d.r.get("/healthz")
	return err
}
