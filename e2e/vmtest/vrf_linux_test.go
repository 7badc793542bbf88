package vmtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/status"
	"github.com/authbgp/authbgpd/tcpsock"
)

// One authbgpd router ("r") with a peer in each of two VRFs (issue 28):
// blue (192.0.2.0/30, TCP-MD5, to namespace "p1") and red
// (198.51.100.0/30, TCP-AO, to namespace "p2"), each far end an authbgpd
// in its default VRF. The steps share the routers:
//
//	up:       both sessions Established, each with its own key, /status
//	          naming the VRF; each VRF's GoBGP instance listening bound to
//	          its VRF (tcp_l3mdev_accept turned off by the daemon)
//	scoped:   a host in VRF red using the blue peer's address and key
//	          cannot even complete a handshake with r (the key on r's
//	          listener is scoped to blue; TCPMD5Unexpected counts it):
//	          red when the key install drops the l3index
//	wrong:    the blue peer's key changed on p1 only: blue is diagnosed
//	          there (bad-digest), red stays up and ok
//	apart:    each far end originates a prefix (gobgp global rib add); no
//	          far end learns the other VRF's (a RIB per VRF, issue 43): red
//	          with one GoBGP instance for all VRFs
//	fib:      r puts each prefix into its VRF's table (blue 10, red 20),
//	          via the far end on the VRF's link, and neither into the main
//	          table (next hops resolved through the VRF device)
//	same:     red numbers a new link like blue's (r 192.0.2.1, far end
//	          "p3" 192.0.2.2, both in VRF red), and r gets a red peer at
//	          blue's peer's address with a key of its own (issue 43): both
//	          sessions up, each socket bound to its VRF, each /status entry
//	          and metric label its own; p3's prefix only in red's table
//	          and not learnt by p1; p3's key changed: red's peer goes down
//	          (its last_error), blue's stays up
//	move:     blue's link and peer moved to VRF red by reload: the session
//	          is reset and comes up again in red

const (
	vrfBlueKey  = "blue vrf md5 key"
	vrfWrongKey = "not the blue key"
	vrfSameKey  = "red same-address key" // red's peer at blue's peer's address
	vrfSameHold = 9                      // its hold time: the wrong key's end comes sooner
)

var (
	vrfR1 = netip.MustParseAddr("192.0.2.1")
	vrfP1 = netip.MustParseAddr("192.0.2.2")
	vrfR2 = netip.MustParseAddr("198.51.100.1")
	vrfP2 = netip.MustParseAddr("198.51.100.2")
	vrfAO = []mkt{{id: 1, sendID: 3, recvID: 4, alg: "hmac(sha256)", secret: "red vrf tcp-ao key"}}
)

// vrfRouterConf is r's config, its blue peer in vrf blueVRF.
func vrfRouterConf(blueVRF string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[global]\nasn = %d\nrouter-id = %q\n", asRouter, vrfR1)
	fmt.Fprintf(&b, "\n[api]\ngrpc = \"\"\nhttp = %q\n", routerHTTP)
	b.WriteString("\n[shadow]\nenabled = true\ninterfaces = []\nworkers = 1\n")
	b.WriteString(keychainTOML("red", vrfAO...))
	fmt.Fprintf(&b, "\n[[peers]]\naddress = %q\nvrf = %q\nasn = %d\npassword = %q\nhold-time = %d\n", vrfP1, blueVRF, asPeer, vrfBlueKey, holdTime)
	fmt.Fprintf(&b, "\n[[peers]]\naddress = %q\nvrf = \"red\"\nasn = %d\nkeychain = \"red\"\nhold-time = %d\n", vrfP2, asPeer+1, holdTime)
	return b.String()
}

// vrfPeerConf is a far end's config (no VRF of its own; the gRPC API on,
// so that the gobgp CLI originates a prefix there).
func vrfPeerConf(self, peer netip.Addr, asn uint32, auth string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[global]\nasn = %d\nrouter-id = %q\n", asn, self)
	fmt.Fprintf(&b, "\n[api]\ngrpc = \"127.0.0.1:50051\"\nhttp = %q\n", routerHTTP)
	if strings.HasPrefix(auth, "keychain") {
		b.WriteString(keychainTOML("red", mirrorAll(vrfAO)...))
	}
	fmt.Fprintf(&b, "\n[[peers]]\naddress = %q\nasn = %d\n%s\nhold-time = %d\n", peer, asRouter, auth, holdTime)
	return b.String()
}

func TestBGPVRFPeers(t *testing.T) {
	testenv.RequireRoot(t)
	if err := tcpsock.CheckVRF(); err != nil {
		testenv.SkipKernelLacks(t, "VRF devices (CONFIG_NET_VRF)", err.Error())
	}
	if err := tcpsock.CheckTCPAO(); err != nil {
		testenv.SkipKernelLacks(t, "TCP-AO (CONFIG_TCP_AO)", err.Error())
	}
	tp := netns.New(t, "vrf")
	r, p1, p2 := tp.Add("r"), tp.Add("p1"), tp.Add("p2")
	tp.Link(r, "blue0", []string{"192.0.2.1/30"}, p1, "eth0", []string{"192.0.2.2/30"})
	tp.Link(r, "red0", []string{"198.51.100.1/30"}, p2, "eth0", []string{"198.51.100.2/30"})
	for _, c := range [][]string{
		{"link", "add", "blue", "type", "vrf", "table", "10"},
		{"link", "add", "red", "type", "vrf", "table", "20"},
		{"link", "set", "blue", "up"},
		{"link", "set", "red", "up"},
		{"link", "set", "blue0", "master", "blue"},
		{"link", "set", "red0", "master", "red"},
	} {
		netns.Run(t, "ip", append([]string{"-n", r}, c...)...)
	}
	netns.Run(t, "ip", "netns", "exec", r, "sysctl", "-qw", "net.ipv4.tcp_l3mdev_accept=0")

	rt := startRouter(t, tp, r, vrfRouterConf("blue"))
	f1 := startRouter(t, tp, p1, vrfPeerConf(vrfP1, vrfR1, asPeer, fmt.Sprintf("password = %q", vrfBlueKey)))
	f2 := startRouter(t, tp, p2, vrfPeerConf(vrfP2, vrfR2, asPeer+1, `keychain = "red"`))

	upIn := func(vrf string) func(*status.Peer) bool {
		return func(p *status.Peer) bool { return p.State == "established" && p.VRF == vrf && p.Auth.Installed }
	}
	t.Run("up", func(t *testing.T) {
		b := rt.waitPeer(t, vrfP1.String(), 90*time.Second, "established in VRF blue", upIn("blue"))
		red := rt.waitPeer(t, vrfP2.String(), 90*time.Second, "established in VRF red", upIn("red"))
		if b.Auth.Mode != "md5" || red.Auth.Mode != "tcp-ao" {
			t.Fatalf("modes: blue %s, red %s", b.Auth.Mode, red.Auth.Mode)
		}
		f1.waitPeer(t, vrfR1.String(), 30*time.Second, "established", func(p *status.Peer) bool { return p.State == "established" })
		f2.waitPeer(t, vrfR2.String(), 30*time.Second, "established", established)
		out := netns.Run(t, "ip", "netns", "exec", r, "sysctl", "-n", "net.ipv4.tcp_l3mdev_accept")
		if strings.TrimSpace(out) != "0" {
			t.Fatalf("tcp_l3mdev_accept = %s; log: %v", out, linesWith(rt.log(), "l3mdev"))
		}
		// Each VRF's GoBGP instance listens in its VRF, beside the
		// default VRF's listener.
		ls := netns.Run(t, "ip", "netns", "exec", r, "ss", "-Htln", "sport", "= :179")
		for _, vrf := range []string{"blue", "red"} {
			if !strings.Contains(ls, "%"+vrf+":179") {
				t.Errorf("no listener bound to VRF %s:\n%s", vrf, ls)
			}
		}
		// Each session's socket is bound to its VRF.
		for vrf, peer := range map[string]netip.Addr{"blue": vrfP1, "red": vrfP2} {
			ss := netns.Run(t, "ip", "netns", "exec", r, "ss", "-Htn", "state", "established", "dst", peer.String())
			if !strings.Contains(ss, "%"+vrf) {
				t.Errorf("the session with %s is not bound to VRF %s: %s", peer, vrf, ss)
			}
		}
	})
	if t.Failed() {
		t.Logf("router log:\n%s", rt.log())
		return
	}

	t.Run("apart", func(t *testing.T) {
		for ns, pfx := range map[string]string{p1: "203.0.113.0/25", p2: "203.0.113.128/25"} {
			if out, err := netns.Exec(ns, "gobgp", "global", "rib", "add", "-a", "ipv4", pfx).CombinedOutput(); err != nil {
				t.Fatalf("gobgp global rib add %s: %v\n%s", pfx, err, out)
			}
		}
		accepted := func(p *status.Peer) bool {
			for _, f := range p.Families {
				if f.Name == "ipv4-unicast" && f.Accepted >= 1 {
					return true
				}
			}
			return false
		}
		rt.waitPeer(t, vrfP1.String(), 30*time.Second, "blue's prefix accepted", accepted)
		rt.waitPeer(t, vrfP2.String(), 30*time.Second, "red's prefix accepted", accepted)
		// Tenants apart: r's VRFs are RIBs of their own, so neither far
		// end hears of the other's prefix (with one RIB, r sends each to
		// the other as soon as it has it).
		time.Sleep(2 * time.Second)
		for ns, other := range map[string]string{p1: "203.0.113.128/25", p2: "203.0.113.0/25"} {
			out, err := netns.Exec(ns, "gobgp", "global", "rib", "-a", "ipv4").CombinedOutput()
			if err != nil {
				t.Fatalf("gobgp global rib: %v\n%s", err, out)
			}
			if strings.Contains(string(out), other) {
				t.Errorf("%s learnt the other VRF's %s through r:\n%s", ns, other, out)
			}
		}
	})

	t.Run("fib", func(t *testing.T) {
		want := map[string]string{
			"10":   "203.0.113.0/25 via 192.0.2.2 dev blue0 proto bgp metric 20",
			"20":   "203.0.113.128/25 via 198.51.100.2 dev red0 proto bgp metric 20",
			"main": "",
		}
		var got map[string]string
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		ok := netns.WaitFor(ctx, func() bool {
			got = map[string]string{}
			for table := range want {
				var lines []string
				for _, l := range strings.Split(netns.Run(t, "ip", "-n", r, "-4", "route", "show", "table", table), "\n") {
					if l = strings.Join(strings.Fields(l), " "); strings.Contains(l, " proto bgp ") {
						lines = append(lines, l)
					}
				}
				got[table] = strings.Join(lines, "; ")
			}
			return fmt.Sprint(got) == fmt.Sprint(want)
		})
		if !ok {
			t.Fatalf("r's routes of proto bgp by table: %q, want %q", got, want)
		}
		st, err := rt.status()
		if err != nil {
			t.Fatal(err)
		}
		if st.FIB == nil {
			t.Fatal("/status has no fib section")
		}
		tables := map[string]string{}
		for _, tb := range st.FIB.Tables {
			tables[tb.VRF] = fmt.Sprintf("%d:%d", tb.Table, tb.Routes)
		}
		if w := map[string]string{"": "254:0", "blue": "10:1", "red": "20:1"}; fmt.Sprint(tables) != fmt.Sprint(w) {
			t.Errorf("/status fib.tables by VRF: %v, want %v (%+v)", tables, w, st.FIB)
		}
	})

	t.Run("scoped", func(t *testing.T) {
		// An impostor in VRF red with the blue peer's address and key.
		netns.Run(t, "ip", "-n", p2, "addr", "add", vrfP1.String()+"/32", "dev", "eth0")
		netns.Run(t, "ip", "-n", r, "route", "add", vrfP1.String()+"/32", "dev", "red0", "vrf", "red")
		before, err := netns.Counters(r)
		if err != nil {
			t.Fatal(err)
		}
		err = netns.Do(p2, func() error {
			d := net.Dialer{Timeout: 4 * time.Second, LocalAddr: &net.TCPAddr{IP: vrfP1.AsSlice()},
				Control: func(_, _ string, c syscall.RawConn) error {
					return tcpsock.ProcessSockets{}.DialMD5(c, netip.AddrPortFrom(vrfR2, 179), md5auth.AddrKey(vrfR2, []byte(vrfBlueKey)))
				}}
			c, err := d.DialContext(context.Background(), "tcp4", netip.AddrPortFrom(vrfR2, 179).String())
			if err == nil {
				c.Close()
				return errors.New("connected")
			}
			return nil
		})
		if err != nil {
			t.Fatalf("an impostor in VRF red with the blue peer's address and key reached r's listener (%v): the key is not scoped to VRF blue", err)
		}
		after, err := netns.Counters(r)
		if err != nil {
			t.Fatal(err)
		}
		if after["TCPMD5Unexpected"] <= before["TCPMD5Unexpected"] {
			t.Errorf("TCPMD5Unexpected %d -> %d: the impostor's SYN was not refused for want of a key in VRF red", before["TCPMD5Unexpected"], after["TCPMD5Unexpected"])
		}
		rt.waitPeer(t, vrfP1.String(), 5*time.Second, "still established", upIn("blue"))
		netns.Run(t, "ip", "-n", p2, "addr", "del", vrfP1.String()+"/32", "dev", "eth0")
	})

	t.Run("wrong", func(t *testing.T) {
		f1.reload(t, vrfPeerConf(vrfP1, vrfR1, asPeer, fmt.Sprintf("password = %q", vrfWrongKey)))
		// keepalives every hold-time/3 s: r sees p1's segments fail.
		rt.waitPeer(t, vrfP1.String(), 3*holdTime*time.Second, "diagnosed bad-digest", func(p *status.Peer) bool {
			return p.Shadow != nil && p.Shadow.Diagnosis == "bad-digest"
		})
		red := rt.peer(vrfP2.String())
		if red == nil || red.State != "established" || red.Shadow == nil || red.Shadow.Diagnosis != "ok" {
			t.Errorf("the red peer, whose key is right: %s", peerString(red))
		}
		f1.reload(t, vrfPeerConf(vrfP1, vrfR1, asPeer, fmt.Sprintf("password = %q", vrfBlueKey)))
		rt.waitPeer(t, vrfP1.String(), 90*time.Second, "up again with the right key", upIn("blue"))
	})

	t.Run("same", func(t *testing.T) { vrfSameAddress(t, tp, r, p1, rt) })

	t.Run("move", func(t *testing.T) {
		netns.Run(t, "ip", "-n", r, "route", "del", vrfP1.String()+"/32", "vrf", "red")
		netns.Run(t, "ip", "-n", r, "link", "set", "blue0", "master", "red")
		if err := os.WriteFile(rt.conf, []byte(vrfRouterConf("red")), 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := netns.Exec(r, rt.bin, "reload", "--api", routerHTTP).CombinedOutput()
		if err != nil {
			t.Fatalf("authbgpd reload: %v\n%s", err, out)
		}
		if !strings.Contains(string(out), "moves from VRF blue to VRF red: session reset") {
			t.Errorf("the reload did not say the peer moves VRF and is reset:\n%s", out)
		}
		rt.waitPeer(t, vrfP1.String(), 90*time.Second, "established in VRF red", upIn("red"))
		ss := netns.Run(t, "ip", "netns", "exec", r, "ss", "-Htn", "state", "established", "dst", vrfP1.String())
		if !strings.Contains(ss, "%red") {
			t.Errorf("the moved session is not bound to VRF red: %s", ss)
		}
	})
	if t.Failed() {
		t.Logf("router log:\n%s", rt.log())
	}
	out, _ := netns.Exec(r, rt.bin, "status", "--api", routerHTTP).CombinedOutput()
	t.Logf("authbgpd status (r):\n%s", out)
	for _, s := range []string{vrfBlueKey, vrfWrongKey, vrfAO[0].secret} {
		if strings.Contains(rt.log(), s) || strings.Contains(string(out), s) {
			t.Fatal("a secret is in the router's log or status")
		}
	}
}

// vrfSameAddress is TestBGPVRFPeers's "same" step (see there); it leaves
// r's links, routes and config as it found them.
func vrfSameAddress(t *testing.T, tp *netns.Topology, r, p1 string, rt *router) {
	p3 := tp.Add("p3")
	tp.Link(r, "red1", []string{"192.0.2.1/30"}, p3, "eth0", []string{"192.0.2.2/30"})
	netns.Run(t, "ip", "-n", r, "link", "set", "red1", "master", "red")
	// The scoped step's host route to 192.0.2.2 in red (via red0) would
	// take red1's traffic; put back at the end for the move step.
	if strings.TrimSpace(netns.Run(t, "ip", "-n", r, "route", "show", "vrf", "red", vrfP1.String()+"/32")) != "" {
		netns.Run(t, "ip", "-n", r, "route", "del", vrfP1.String()+"/32", "vrf", "red")
		defer netns.Run(t, "ip", "-n", r, "route", "add", vrfP1.String()+"/32", "dev", "red0", "vrf", "red")
	}
	defer netns.Run(t, "ip", "-n", r, "link", "del", "red1")
	red := fmt.Sprintf("\n[[peers]]\naddress = %q\nvrf = \"red\"\nasn = %d\npassword = %q\nhold-time = %d\n", vrfP1, asPeer+2, vrfSameKey, vrfSameHold)
	rt.reload(t, vrfRouterConf("blue")+red)
	defer rt.reload(t, vrfRouterConf("blue"))
	p3conf := func(key string) string {
		return strings.Replace(vrfPeerConf(vrfP1, vrfR1, asPeer+2, fmt.Sprintf("password = %q", key)),
			fmt.Sprintf("hold-time = %d", holdTime), fmt.Sprintf("hold-time = %d", vrfSameHold), 1)
	}
	f3 := startRouter(t, tp, p3, p3conf(vrfSameKey))

	inVRF := func(vrf string, ok func(*status.Peer) bool) func() error {
		return func() error {
			st, err := rt.status()
			if err != nil {
				return err
			}
			for i := range st.Peers {
				if p := &st.Peers[i]; p.Address == vrfP1.String() && p.VRF == vrf {
					if ok(p) {
						return nil
					}
					return errors.New(peerString(p))
				}
			}
			return fmt.Errorf("no entry for %s in VRF %s", vrfP1, vrf)
		}
	}
	up := func(p *status.Peer) bool { return p.State == "established" && p.Auth.Installed && p.Auth.Error == "" }
	waitFor(t, 60*time.Second, "r's red peer at blue's peer's address established", inVRF("red", up))
	if err := inVRF("blue", up)(); err != nil {
		t.Fatalf("blue's peer at the same address: %v", err)
	}
	f3.waitPeer(t, vrfR1.String(), 10*time.Second, "established", func(p *status.Peer) bool { return p.State == "established" })
	// Two sessions with 192.0.2.2, one bound to each VRF.
	ss := netns.Run(t, "ip", "netns", "exec", r, "ss", "-Htn", "state", "established", "dst", vrfP1.String())
	if !strings.Contains(ss, "%blue") || !strings.Contains(ss, "%red") {
		t.Errorf("the sessions with %s are not one in each VRF:\n%s", vrfP1, ss)
	}
	for _, id := range []string{"blue/" + vrfP1.String(), "red/" + vrfP1.String()} {
		if v, ok := rt.metric(t, "authbgpd_peer_up", fmt.Sprintf("peer=%q", id)); !ok || v != 1 {
			t.Errorf("authbgpd_peer_up{peer=%q} = %v (%v)", id, v, ok)
		}
	}

	// Routes apart: p3's prefix is red's alone.
	const p3Prefix = "203.0.113.192/26"
	if out, err := netns.Exec(p3, "gobgp", "global", "rib", "add", "-a", "ipv4", p3Prefix).CombinedOutput(); err != nil {
		t.Fatalf("gobgp global rib add %s: %v\n%s", p3Prefix, err, out)
	}
	want := p3Prefix + " via 192.0.2.2 dev red1 proto bgp metric 20"
	var got string
	waitFor(t, 20*time.Second, "p3's prefix in red's table", func() error {
		got = netns.Run(t, "ip", "-n", r, "-4", "route", "show", "table", "20", p3Prefix)
		if strings.Join(strings.Fields(got), " ") != want {
			return fmt.Errorf("table 20: %q, want %q", got, want)
		}
		return nil
	})
	if blue := netns.Run(t, "ip", "-n", r, "-4", "route", "show", "table", "10"); strings.Contains(blue, "203.0.113.192") {
		t.Errorf("red's prefix in blue's table:\n%s", blue)
	}
	if out, _ := netns.Exec(p1, "gobgp", "global", "rib", "-a", "ipv4").CombinedOutput(); strings.Contains(string(out), p3Prefix) {
		t.Errorf("p1 (blue) learnt red's %s:\n%s", p3Prefix, out)
	}

	// p3's key changed: red's peer at 192.0.2.2 goes down, blue's stays
	// (its last end is still the wrong step's).
	blueEnd := func(p *status.Peer) string {
		if p.LastError == nil {
			return ""
		}
		return p.LastError.At + " " + p.LastError.Reason
	}
	var before string
	if err := inVRF("blue", func(p *status.Peer) bool { before = blueEnd(p); return true })(); err != nil {
		t.Fatal(err)
	}
	f3.reload(t, p3conf(vrfWrongKey))
	waitFor(t, 3*vrfSameHold*time.Second, "red's peer down with its reason", inVRF("red", func(p *status.Peer) bool {
		return p.State != "established" && p.LastError != nil
	}))
	if err := inVRF("blue", func(p *status.Peer) bool { return p.State == "established" && blueEnd(p) == before })(); err != nil {
		t.Errorf("blue's peer, whose key is right: %v", err)
	}
	for _, s := range []string{vrfSameKey, vrfWrongKey} {
		if strings.Contains(rt.log(), s) || strings.Contains(f3.log(), s) {
			t.Fatal("a secret is in a log")
		}
	}
}
