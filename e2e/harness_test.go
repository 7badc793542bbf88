//go:build linux

package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/status"
)

// The helpers every e2e test shares: the two-namespace topology, waiting,
// and the authbgpd config the tests write.

// ---------------------------------------------------------------- topology

// Documentation addresses of the usual two-router pair: a (.1 / ::1) and
// b (.2 / ::2) on eth0, 192.0.2.0/24 and 2001:db8::/64.
var (
	pairA4, pairA6 = netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("2001:db8::1")
	pairB4, pairB6 = netip.MustParseAddr("192.0.2.2"), netip.MustParseAddr("2001:db8::2")
)

// newPair is namespaces a and b joined on eth0 with pairA4/pairB4 (/24)
// and, when v6, pairA6/pairB6 (/64).
func newPair(t testing.TB, tag string, v6 bool) *netns.Pair {
	t.Helper()
	a, b := []string{pairA4.String() + "/24"}, []string{pairB4.String() + "/24"}
	if v6 {
		a, b = append(a, pairA6.String()+"/64"), append(b, pairB6.String()+"/64")
	}
	return netns.NewPair(t, tag, netns.End{NS: "a", If: "eth0", Addrs: a}, netns.End{NS: "b", If: "eth0", Addrs: b})
}

// ---------------------------------------------------------------- waiting

// poll calls cond every 100 ms until it returns nil or d has passed, and
// returns nil or cond's last error (what it was still waiting for).
func poll(d time.Duration, cond func() error) error {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var err error
	if netns.WaitFor(ctx, func() bool { err = cond(); return err == nil }) {
		return nil
	}
	return err
}

// waitFor polls cond (every 100 ms, for up to d) and fails t with what and
// cond's last error when it never returns nil.
func waitFor(t testing.TB, d time.Duration, what string, cond func() error) {
	t.Helper()
	if err := poll(d, cond); err != nil {
		t.Fatalf("%s: not within %v: %v", what, d, err)
	}
}

// errNotYet is the error of a condition that has no more to say.
var errNotYet = errors.New("condition not met")

// holds is a boolean condition as one for poll and waitFor.
func holds(ok bool) error {
	if ok {
		return nil
	}
	return errNotYet
}

// until is a boolean condition as one for poll and waitFor.
func until(cond func() bool) func() error {
	return func() error { return holds(cond()) }
}

// pollPeer polls a's /status (for up to d) until addr's entry satisfies ok;
// on timeout the error is the last entry.
func pollPeer(a *Authbgpd, addr string, d time.Duration, ok func(*status.Peer) bool) (*status.Peer, error) {
	var p *status.Peer
	err := poll(d, func() error {
		p = a.Peer(addr)
		if p != nil && ok(p) {
			return nil
		}
		return errors.New(peerString(p))
	})
	return p, err
}

// waitPeer waits (up to d) until addr's /status entry satisfies ok and
// returns it; it fails t with the last entry otherwise.
func waitPeer(t testing.TB, a *Authbgpd, addr string, d time.Duration, what string, ok func(*status.Peer) bool) *status.Peer {
	t.Helper()
	p, err := pollPeer(a, addr, d, ok)
	if err != nil {
		t.Fatalf("/status peer %s: not %s within %v; last: %v", addr, what, d, err)
	}
	return p
}

// waitShadow is waitPeer for an entry with a shadow report satisfying ok.
func waitShadow(t testing.TB, a *Authbgpd, addr string, d time.Duration, what string, ok func(*status.Peer) bool) *status.Peer {
	t.Helper()
	return waitPeer(t, a, addr, d, what, func(p *status.Peer) bool { return p.Shadow != nil && ok(p) })
}

// waitDiagnosis waits for the shadow checker's diagnosis diag of addr.
func waitDiagnosis(t testing.TB, a *Authbgpd, addr, diag string, d time.Duration) *status.Peer {
	t.Helper()
	return waitShadow(t, a, addr, d, "diagnosis "+diag, func(p *status.Peer) bool { return p.Shadow.Diagnosis == diag })
}

// peerString renders a /status peer for failure messages (never a secret:
// /status has none).
func peerString(p *status.Peer) string {
	if p == nil {
		return "<absent>"
	}
	s := fmt.Sprintf("state %s prefix %q auth %+v", p.State, p.Prefix, p.Auth)
	if p.Auth.KeyID != nil {
		s += fmt.Sprintf(" key_id %d", *p.Auth.KeyID)
	}
	if p.Shadow == nil {
		return s + " shadow <nil>"
	}
	s += fmt.Sprintf(" shadow{diagnosis %s segments %+v", p.Shadow.Diagnosis, p.Shadow.Segments)
	if p.Shadow.PeerKeyID != nil {
		s += fmt.Sprintf(" peer_key_id %d", *p.Shadow.PeerKeyID)
	}
	if p.Shadow.Sent != nil {
		s += fmt.Sprintf(" sent %+v", *p.Shadow.Sent)
	}
	return s + "}"
}

// ---------------------------------------------------------------- config

// abConf is an authbgpd config written by the tests; String renders it as
// TOML. Zero fields take the harness's values: AS 65001, router ID
// 192.0.2.1, [api] on GoBGPAPI and AuthbgpdHTTP.
type abConf struct {
	ASN        uint32
	RouterID   string
	ListenPort string // e.g. "-1" (no listener); "" = the default
	NoAPI      bool   // [api] grpc = "" and http = "": no API at all
	Pprof      bool   // [api] pprof = true
	Extra      string // TOML sections before the peers (keychains, [shadow], [srv6...])
	Peers      []abPeer
	Tail       string // TOML sections after the peers
}

// abPeer is one [[peers]] entry of an authbgpd config written by the tests.
type abPeer struct {
	addr     string // address, or prefix when it contains "/"
	asn      uint32
	src      string // "password", "password-file", "password-env", "keychain"; "" = no key
	ref      string // the inline secret, file name, variable name or keychain name
	passive  bool
	local    string   // local-address, or ""
	families []string // families, or none
}

func (c abConf) String() string {
	var b strings.Builder
	asn, rid := c.ASN, c.RouterID
	if asn == 0 {
		asn = 65001
	}
	if rid == "" {
		rid = "192.0.2.1"
	}
	fmt.Fprintf(&b, "[global]\nasn = %d\nrouter-id = %q\n", asn, rid)
	if c.ListenPort != "" {
		fmt.Fprintf(&b, "listen-port = %s\n", c.ListenPort)
	}
	grpc, http := GoBGPAPI, AuthbgpdHTTP
	if c.NoAPI {
		grpc, http = "", ""
	}
	fmt.Fprintf(&b, "\n[api]\ngrpc = %q\nhttp = %q\n", grpc, http)
	if c.Pprof {
		b.WriteString("pprof = true\n")
	}
	b.WriteString("\n")
	b.WriteString(c.Extra)
	for _, p := range c.Peers {
		b.WriteString(p.toml())
	}
	b.WriteString(c.Tail)
	return b.String()
}

// toml is the [[peers]] entry.
func (p abPeer) toml() string {
	var b strings.Builder
	key := "address"
	if strings.Contains(p.addr, "/") {
		key = "prefix"
	}
	fmt.Fprintf(&b, "\n[[peers]]\n%s = %q\nasn = %d\n", key, p.addr, p.asn)
	if p.src != "" {
		fmt.Fprintf(&b, "%s = %q\n", p.src, p.ref)
	}
	if p.passive {
		b.WriteString("passive = true\n")
	}
	if p.local != "" {
		fmt.Fprintf(&b, "local-address = %q\n", p.local)
	}
	if len(p.families) > 0 {
		fmt.Fprintf(&b, "families = [%s]\n", quoteList(p.families))
	}
	return b.String()
}

// quoteList is a TOML array's elements: "a", "b".
func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// abConfig is an authbgpd config (router ID 192.0.2.1, AS 65001, the
// harness's API addresses) with peers, after extra (e.g. keychains).
func abConfig(extra string, peers ...abPeer) string {
	return abConf{Extra: extra, Peers: peers}.String()
}

// shadowSection is the [shadow] section with the live checker on every
// BGP interface.
func shadowSection(follow bool) string {
	return fmt.Sprintf("\n[shadow]\nenabled = true\ninterfaces = []\nfollow-peer-rollover = %t\n", follow)
}

// srv6HMACKey is one [[srv6.hmac-keys]] entry (sha256) read from file.
func srv6HMACKey(id int, file string) string {
	return fmt.Sprintf("\n[[srv6.hmac-keys]]\nid = %d\nalgorithm = \"sha256\"\nsecret-file = %q\n", id, file)
}

// keychainKey is one key of a [[keychains]] entry: its secret from file,
// or inline when file is ""; sendFrom is RFC 3339 or "".
type keychainKey struct {
	id       int
	file     string
	secret   string
	sendFrom string
}

// keychainSection is a [[keychains]] entry with keys read from files.
func keychainSection(name string, keys ...keychainKey) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n[[keychains]]\nname = %q\n", name)
	for _, k := range keys {
		if k.file != "" {
			fmt.Fprintf(&b, "  [[keychains.keys]]\n  id = %d\n  secret-file = %q\n", k.id, k.file)
		} else {
			fmt.Fprintf(&b, "  [[keychains.keys]]\n  id = %d\n  secret = %q\n", k.id, k.secret)
		}
		if k.sendFrom != "" {
			fmt.Fprintf(&b, "  send-from = %s\n", k.sendFrom)
		}
	}
	return b.String()
}
