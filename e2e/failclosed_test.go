//go:build linux

package e2e

import (
	"errors"
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
	"github.com/authbgp/authbgpd/tcpsock"
)

// A keyed peer gets in only with its key: unsigned and wrongly signed
// connections never complete the handshake (the kernel drops their SYNs),
// keys leave with the peer, and a key that cannot be installed holds the
// peer down instead of letting it talk unauthenticated.

// probeTimeout is how long a probe connection waits for the handshake. A
// dropped SYN is retransmitted after 1 s (and is dropped again); an
// answered one completes in a millisecond on a veth.
const probeTimeout = 2 * time.Second

// dialTCP connects from local (any port) to remote inside namespace ns with
// a socket of its own — signed with key, or unsigned when key is "" — and
// closes the connection once the handshake completes. nil means it did.
func dialTCP(ns string, local netip.Addr, remote netip.AddrPort, key string) error {
	d := &net.Dialer{
		Timeout:   probeTimeout,
		LocalAddr: &net.TCPAddr{IP: local.AsSlice()},
	}
	d.SetMultipathTCP(false) // TCP-MD5 needs plain TCP
	if key != "" {
		k := md5auth.AddrKey(remote.Addr(), []byte(key))
		d.Control = func(_, _ string, rc syscall.RawConn) error { return tcpsock.SetKey(rc, k) }
	}
	return netns.Do(ns, func() error {
		c, err := d.Dial("tcp", remote.String())
		if err != nil {
			return err
		}
		return c.Close()
	})
}

// requireDropped fails t unless the probe err timed out: the SYN was
// dropped. A refused connection (RST) or a completed one are failures.
func requireDropped(t testing.TB, what string, err error) {
	t.Helper()
	var ne net.Error
	switch {
	case err == nil:
		t.Errorf("%s: the TCP handshake completed; it must not", what)
	case errors.As(err, &ne) && ne.Timeout(), errors.Is(err, os.ErrDeadlineExceeded):
		t.Logf("%s: dropped (%v)", what, err)
	default:
		t.Errorf("%s: %v; want a timeout (SYN dropped by the kernel's TCP-MD5 check)", what, err)
	}
}

// requireAccepted fails t unless the probe completed the handshake.
func requireAccepted(t testing.TB, what string, err error) {
	t.Helper()
	if err != nil {
		t.Errorf("%s: %v; want the TCP handshake to complete", what, err)
	} else {
		t.Logf("%s: handshake completed", what)
	}
}

// TestDynamicNeighbors: authbgpd accepts BGP sessions from the ranges
// 192.0.2.0/24 (key from a file) and 2001:db8::/64 (key from a variable).
// FRR at 192.0.2.2 / 2001:db8::2 with the right keys gets in, shows in
// /status under its range and exchanges routes; from 192.0.2.3 /
// 2001:db8::3, another address of the ranges, unsigned and wrongly signed
// connections never complete the TCP handshake (the kernel counts
// TCPMD5NotFound and TCPMD5Failure), while one signed with the range's key
// does (the control: the probes are dropped for their signature, not for
// want of a route).
func TestDynamicNeighbors(t *testing.T) {
	testenv.RequireRoot(t)
	t.Parallel()
	pair := newPair(t, "dyn", true)
	tp, nsA, nsB := pair.Topology, pair.A, pair.B
	// The probes' addresses: a secondary IPv4 address and a deprecated
	// IPv6 one, so that FRR's connections keep .2 and ::2 as source.
	netns.Run(t, "ip", "-n", nsB, "addr", "add", "192.0.2.3/24", "dev", "eth0")
	netns.Run(t, "ip", "-n", nsB, "addr", "add", "2001:db8::3/64", "dev", "eth0", "nodad", "preferred_lft", "0")
	var (
		a4, a6     = netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("2001:db8::1")
		b4, b6     = netip.MustParseAddr("192.0.2.2"), netip.MustParseAddr("2001:db8::2")
		p4, p6     = netip.MustParseAddr("192.0.2.3"), netip.MustParseAddr("2001:db8::3")
		key4, key6 = newSecret("dyn4"), newSecret("dyn6")
		wrong      = newSecret("dynwrong")
	)
	a := StartAuthbgpd(t, tp, nsA, abConfig("",
		abPeer{addr: "192.0.2.0/24", asn: 65002, src: "password-file", ref: "dyn4.key", passive: true},
		abPeer{addr: "2001:db8::/64", asn: 65002, src: "password-env", ref: "AUTHBGPD_DYN6", passive: true}),
		AuthbgpdOptions{Files: map[string]string{"dyn4.key": key4 + "\n"}, Env: []string{"AUTHBGPD_DYN6=" + key6}})
	announce(t, a, "198.51.100.0/24", "2001:db8:100::/48")
	f := StartFRR(t, tp, nsB, PeerConfig{ASN: 65002, RouterID: b4,
		Neighbors: []Neighbor{{a4, 65001, key4}, {a6, 65001, key6}},
		Networks:  []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24"), netip.MustParsePrefix("2001:db8:200::/48")}})
	waitSessions(t, 60*time.Second, 1, sessionCheck{a, b4}, sessionCheck{a, b6}, sessionCheck{f, a4}, sessionCheck{f, a6})

	for _, x := range []struct{ addr, prefix, src string }{
		{"192.0.2.2", "192.0.2.0/24", "password-file"},
		{"2001:db8::2", "2001:db8::/64", "password-env"},
	} {
		rng := mustPeer(t, a, x.prefix)
		if rng.Prefix != x.prefix || rng.State != "listening" {
			t.Errorf("/status range %s: prefix %q state %q, want the range, listening", x.prefix, rng.Prefix, rng.State)
		}
		requireAuth(t, rng, x.src, true)
		s := mustPeer(t, a, x.addr)
		if s.Prefix != x.prefix || s.State != Established || s.ASN != 65002 {
			t.Errorf("/status session %s: prefix %q state %q asn %d, want %s established 65002", x.addr, s.Prefix, s.State, s.ASN, x.prefix)
		}
		requireAuth(t, s, x.src, true)
	}

	for _, x := range []struct {
		local  netip.Addr
		remote netip.AddrPort
		key    string
	}{
		{p4, netip.AddrPortFrom(a4, 179), key4},
		{p6, netip.AddrPortFrom(a6, 179), key6},
	} {
		notFound := counter(t, nsA, "TCPMD5NotFound")
		requireDropped(t, "unsigned connect from "+x.local.String()+" in the range", dialTCP(nsB, x.local, x.remote, ""))
		if n := counter(t, nsA, "TCPMD5NotFound"); n <= notFound {
			t.Errorf("TCPMD5NotFound stayed at %d after an unsigned SYN into a keyed range", n)
		}
		failure := counter(t, nsA, "TCPMD5Failure")
		requireDropped(t, "wrongly signed connect from "+x.local.String(), dialTCP(nsB, x.local, x.remote, wrong))
		if n := counter(t, nsA, "TCPMD5Failure"); n <= failure {
			t.Errorf("TCPMD5Failure stayed at %d after a wrongly signed SYN", n)
		}
		requireAccepted(t, "connect from "+x.local.String()+" signed with the range's key", dialTCP(nsB, x.local, x.remote, x.key))
	}
	for _, addr := range []string{"192.0.2.2", "2001:db8::2"} {
		if s := mustPeer(t, a, addr); s.State != Established {
			t.Errorf("/status session %s: %q after the probes", addr, s.State)
		}
	}
	requireHealthy(t, a)
	assertNoSecrets(t, a, key4, key6, wrong)

	// A reload removing the IPv4 range takes its key off the listener and
	// its sessions down; the IPv6 range is not touched. Adding the range
	// back lets FRR in again.
	range4 := abPeer{addr: "192.0.2.0/24", asn: 65002, src: "password-file", ref: "dyn4.key", passive: true}
	range6 := abPeer{addr: "2001:db8::/64", asn: 65002, src: "password-env", ref: "AUTHBGPD_DYN6", passive: true}
	before6 := mustPeer(t, a, "2001:db8::2").UptimeSeconds
	at := time.Now()
	a.Reload(abConfig("", range6))
	waitLog(t, a, "config reloaded", 10*time.Second)
	requireAccepted(t, "unsigned connect from 192.0.2.3 after the range was removed", dialTCP(nsB, p4, netip.AddrPortFrom(a4, 179), ""))
	requireDropped(t, "unsigned connect from 2001:db8::3 in the remaining range", dialTCP(nsB, p6, netip.AddrPortFrom(a6, 179), ""))
	if poll(10*time.Second, until(func() bool { s, _ := f.State(a4); return s != Established })) != nil {
		t.Errorf("frr: the session from the removed range 192.0.2.0/24 is still Established 10 s after the reload")
	}
	for _, q := range a.Status().Peers {
		if q.Prefix == "192.0.2.0/24" || q.Address == "192.0.2.0/24" {
			t.Errorf("/status after removing the range: %+v", q)
		}
	}
	if s := mustPeer(t, a, "2001:db8::2"); s.State != Established || s.UptimeSeconds < before6+int64(time.Since(at).Seconds())-2 {
		t.Errorf("/status session 2001:db8::2 after a reload that did not change its range: %q, uptime %d s (was %d s)", s.State, s.UptimeSeconds, before6)
	}
	a.Reload(abConfig("", range4, range6))
	waitSessions(t, 60*time.Second, 1, sessionCheck{a, b4}, sessionCheck{f, a4})
	requireDropped(t, "unsigned connect from 192.0.2.3 after the range came back", dialTCP(nsB, p4, netip.AddrPortFrom(a4, 179), ""))

	// When FRR goes, GoBGP deletes its dynamic neighbors; /status follows.
	f.Stop()
	var left []string
	if poll(10*time.Second, until(func() bool {
		left = nil
		for _, q := range a.Status().Peers {
			if q.Address == "192.0.2.2" || q.Address == "2001:db8::2" {
				left = append(left, q.Address+" "+q.State)
			}
		}
		return len(left) == 0
	})) != nil {
		t.Errorf("/status still lists sessions of the stopped dynamic neighbor: %v", left)
	}
	a.StopClean()
}

// TestReloadRemovesPeerKey: while authbgpd has a keyed peer, an unsigned
// connection from the peer's address is dropped; after a reload removes
// the peer (GoBGP would leave the key on its listener), the same connection
// completes the handshake. The other peer, untouched by the reload, keeps
// its session and its key. A reload adding the peer back brings the key and
// the session back.
func TestReloadRemovesPeerKey(t *testing.T) {
	testenv.RequireRoot(t)
	t.Parallel()
	pair := newPair(t, "rmpeer", true)
	tp, nsA, nsB := pair.Topology, pair.A, pair.B
	var (
		a4, a6     = netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("2001:db8::1")
		b4, b6     = netip.MustParseAddr("192.0.2.2"), netip.MustParseAddr("2001:db8::2")
		key4, key6 = newSecret("rm4"), newSecret("rm6")
		to4, to6   = netip.AddrPortFrom(a4, 179), netip.AddrPortFrom(a6, 179)
		peer4      = abPeer{addr: "192.0.2.2", asn: 65002, src: "password-file", ref: "rm4.key"}
		peer6      = abPeer{addr: "2001:db8::2", asn: 65002, src: "password-env", ref: "AUTHBGPD_RM6"}
	)
	a := StartAuthbgpd(t, tp, nsA, abConfig("", peer4, peer6),
		AuthbgpdOptions{Files: map[string]string{"rm4.key": key4 + "\n"}, Env: []string{"AUTHBGPD_RM6=" + key6}})
	announce(t, a, "198.51.100.0/24", "2001:db8:100::/48")
	f := StartFRR(t, tp, nsB, PeerConfig{ASN: 65002, RouterID: b4,
		Neighbors: []Neighbor{{a4, 65001, key4}, {a6, 65001, key6}},
		Networks:  []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24"), netip.MustParsePrefix("2001:db8:200::/48")}})
	waitSessions(t, 60*time.Second, 1, sessionCheck{a, b4}, sessionCheck{a, b6}, sessionCheck{f, a4}, sessionCheck{f, a6})

	requireDropped(t, "unsigned connect from the keyed peer 192.0.2.2", dialTCP(nsB, b4, to4, ""))
	requireDropped(t, "unsigned connect from the keyed peer 2001:db8::2", dialTCP(nsB, b6, to6, ""))

	// Remove the IPv4 peer.
	before6 := mustPeer(t, a, b6.String()).UptimeSeconds
	at := time.Now()
	a.Reload(abConfig("", peer6))
	waitLog(t, a, "config reloaded", 10*time.Second)
	if p := a.Peer(b4.String()); p != nil {
		t.Errorf("/status still lists the removed peer: %+v", p)
	}
	requireAccepted(t, "unsigned connect from the removed peer 192.0.2.2", dialTCP(nsB, b4, to4, ""))
	requireDropped(t, "unsigned connect from the remaining peer 2001:db8::2", dialTCP(nsB, b6, to6, ""))
	if s, _ := f.State(a4); s == Established {
		t.Errorf("frr: the session with the removed peer is still Established")
	}
	p6 := mustPeer(t, a, b6.String())
	if el := int64(time.Since(at).Seconds()); p6.State != Established || p6.UptimeSeconds < before6+el-2 {
		t.Errorf("/status peer %s: %q, uptime %d s (was %d s %d s ago): the reload touched a peer it did not change", b6, p6.State, p6.UptimeSeconds, before6, el)
	}
	requireAuth(t, p6, "password-env", true)

	// Add it back.
	a.Reload(abConfig("", peer4, peer6))
	waitSessions(t, 60*time.Second, 1, sessionCheck{a, b4}, sessionCheck{f, a4})
	requireAuth(t, mustPeer(t, a, b4.String()), "password-file", true)
	requireDropped(t, "unsigned connect from the re-added peer 192.0.2.2", dialTCP(nsB, b4, to4, ""))
	requireMetric(t, a, "authbgpd_config_reloads_total", `result="ok"`, 2)
	requireHealthy(t, a)
	assertNoSecrets(t, a, key4, key6)
	a.StopClean()
}

// TestFailClosed uses a test build of authbgpd in which installing the key
// of the listed peers fails, as when the kernel refuses it. Such a peer must
// be held down — never an unauthenticated session — and say why in /status
// and the log, without the secret. FRR has the right keys and keeps trying
// for 15 s. An IPv6 peer whose key installs fine is the control: it comes
// up in the same daemon.
func TestFailClosed(t *testing.T) {
	testenv.RequireRoot(t)
	t.Parallel()
	cases := []struct {
		name string
		v4   abPeer // the peer (or range) whose key fails
		id   string // its /status address and AUTHBGPD_TEST_FAIL_KEYS entry
	}{
		{"static", abPeer{addr: "192.0.2.2", asn: 65002, src: "password-file", ref: "fc4.key"}, "192.0.2.2"},
		{"dynamic", abPeer{addr: "192.0.2.0/24", asn: 65002, src: "password-file", ref: "fc4.key", passive: true}, "192.0.2.0/24"},
	}
	names := []string{cases[0].name, cases[1].name}
	concurrently(t, names, func(t *testing.T, i int) {
		tc := cases[i]
		pair := newPair(t, "fc"+tc.name[:3], true)
		tp, nsA, nsB := pair.Topology, pair.A, pair.B
		var (
			a4, a6     = netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("2001:db8::1")
			b4, b6     = netip.MustParseAddr("192.0.2.2"), netip.MustParseAddr("2001:db8::2")
			key4, key6 = newSecret("fc4" + tc.name), newSecret("fc6" + tc.name)
		)
		a := StartAuthbgpd(t, tp, nsA, abConfig("", tc.v4,
			abPeer{addr: "2001:db8::2", asn: 65002, src: "password-env", ref: "AUTHBGPD_FC6"}),
			AuthbgpdOptions{
				Tags:  "authbgpd_testhooks",
				Files: map[string]string{"fc4.key": key4 + "\n"},
				Env:   []string{"AUTHBGPD_FC6=" + key6, "AUTHBGPD_TEST_FAIL_KEYS=" + tc.id},
			})
		announce(t, a, "198.51.100.0/24", "2001:db8:100::/48")
		start := time.Now()
		f := StartFRR(t, tp, nsB, PeerConfig{ASN: 65002, RouterID: b4,
			Neighbors: []Neighbor{{a4, 65001, key4}, {a6, 65001, key6}},
			Networks:  []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24"), netip.MustParsePrefix("2001:db8:200::/48")}})

		// The control comes up; the failed peer never does.
		waitSessions(t, 60*time.Second, 1, sessionCheck{a, b6}, sessionCheck{f, a6})
		neverEstablished(t, start.Add(15*time.Second), sessionCheck{a, b4}, sessionCheck{f, a4})
		if s, _ := f.State(a4); s == Established {
			t.Fatalf("frr: IPv4 session Established with a peer whose key is not installed")
		}

		p := mustPeer(t, a, tc.id)
		if p.State != "admin-down" || p.Auth.Installed || p.Auth.Error == "" {
			t.Errorf("/status %s: state %q, auth %+v; want admin-down, installed false and an error", tc.id, p.State, p.Auth)
		}
		if strings.Contains(p.Auth.Error, key4) {
			t.Errorf("/status %s: auth.error contains the secret", tc.id)
		}
		t.Logf("/status %s: state %s, auth.error %q", tc.id, p.State, p.Auth.Error)
		for _, q := range a.Status().Peers {
			if q.Prefix == tc.id && q.Address != tc.id {
				t.Errorf("/status: a session %s (%s) under the held-down range", q.Address, q.State)
			}
		}
		requireAuth(t, mustPeer(t, a, "2001:db8::2"), "password-env", true)
		requireMetric(t, a, "authbgpd_md5_key_installed", `peer="`+tc.id+`"`, 0)
		requireMetric(t, a, "authbgpd_md5_key_installed", `peer="2001:db8::2"`, 1)

		var errLine string
		for _, l := range strings.Split(a.Log(), "\n") {
			if strings.Contains(l, "level=error") && strings.Contains(l, tc.id) {
				errLine = l
				break
			}
		}
		if errLine == "" {
			t.Errorf("authbgpd logged no error line naming %s", tc.id)
		} else {
			t.Logf("log: %s", errLine)
		}
		requireHealthy(t, a)
		assertNoSecrets(t, a, key4, key6)
		a.StopClean()
	})
}
