// Package craftedrun sends the crafted messages of the carried GoBGP's
// security fixes (third_party/gobgp/crafted) to a running authbgpd over
// keyed sessions, one peer per message, and checks what the daemon did
// with each: the NOTIFICATION or the RFC 7606 handling the fixed copy
// gives, /status's account of it, and that the daemon stays up. The host's
// end-to-end test runs it over TCP-MD5 (e2e), the VM's over TCP-AO
// (e2e/vmtest).
package craftedrun

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/osrg/gobgp/v3/pkg/packet/bgp"

	"github.com/authbgp/authbgpd/status"
	"github.com/authbgp/authbgpd/third_party/gobgp/crafted"
)

// Daemon is the authbgpd the messages go to.
type Daemon interface {
	// Peer is /status's entry of the peer at addr (nil if none).
	Peer(addr string) *status.Peer
	// Healthy is nil while GET /healthz says ok.
	Healthy() error
}

// Case is one crafted message with the address its peer sends it from.
type Case struct {
	crafted.Case
	From netip.Addr
}

// Cases are the crafted messages a daemon can be sent (not the decoder
// panic only a doctored copy of GoBGP has, nor the confederation one:
// authbgpd configures no confederation), the i-th from from(i), with
// routes whose next hop is that address.
func Cases(from func(i int) netip.Addr) []Case {
	var out []Case
	for _, c := range crafted.Cases([4]byte{}) {
		if c.Injected || c.Confed {
			continue
		}
		a := from(len(out))
		for _, cc := range crafted.Cases(a.As4()) {
			if cc.Name == c.Name {
				out = append(out, Case{Case: cc, From: a})
			}
		}
	}
	return out
}

// Run sends each case over a connection dial makes from its address (to
// the daemon, keyed as the daemon's peer there is) and checks the outcome.
// Every case's peer must be configured in the daemon, passive, AS
// crafted.PeerAS, IPv4 unicast, and not yet connected.
func Run(t *testing.T, d Daemon, cases []Case, dial func(from netip.Addr) (net.Conn, error)) {
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			if err := runCase(t, d, c, dial); err != nil {
				t.Errorf("%s (%s): %v", c.Name, c.Source, err)
			}
			if err := d.Healthy(); err != nil {
				t.Fatalf("after %s: the daemon is not healthy: %v", c.Name, err)
			}
		})
	}
}

func runCase(t *testing.T, d Daemon, c Case, dial func(netip.Addr) (net.Conn, error)) error {
	addr := c.From.String()
	if err := waitPeer(d, addr, 20*time.Second, func(p *status.Peer) error {
		if p.State != "active" {
			return fmt.Errorf("state %s, want active (ready to take a connection)", p.State)
		}
		return nil
	}); err != nil {
		return err
	}
	conn, err := dial(c.From)
	if err != nil {
		return fmt.Errorf("dial from %s: %w", addr, err)
	}
	defer conn.Close()
	p := &crafted.Peer{Conn: conn}
	var early []byte
	if c.BeforeUp {
		early = c.Message
	}
	if err := p.Handshake(crafted.Open(crafted.PeerAS, c.From.As4()), early); err != nil {
		return fmt.Errorf("handshake: %w", err)
	}
	if !c.BeforeUp {
		if err := waitPeer(d, addr, 10*time.Second, func(p *status.Peer) error {
			if p.State != "established" {
				return fmt.Errorf("state %s", p.State)
			}
			return nil
		}); err != nil {
			return fmt.Errorf("before the message: %w", err)
		}
		if err := p.Send(c.Message); err != nil {
			return err
		}
	}
	code, sub, notified, err := p.Notification(2 * time.Second)
	if err != nil {
		return err
	}
	if c.Want.Reset {
		if !notified {
			return fmt.Errorf("no NOTIFICATION within 2 s, want %s", c.Want)
		}
		if got := crafted.ResetWith(code, sub); got != c.Want {
			return fmt.Errorf("%s, want %s", got, c.Want)
		}
		t.Logf("%s: %s", c.Name, c.Want)
		return waitPeer(d, addr, 10*time.Second, func(p *status.Peer) error { return checkReset(c, p) })
	}
	if notified {
		return fmt.Errorf("%s, want %s", crafted.ResetWith(code, sub), c.Want)
	}
	t.Logf("%s: %s", c.Name, c.Want)
	return waitPeer(d, addr, 10*time.Second, func(p *status.Peer) error { return checkUp(c, p) })
}

// checkReset: the session's end and its malformed message are in /status.
func checkReset(c Case, p *status.Peer) error {
	m := p.Malformed
	if m == nil || m.ByHandling["session-reset"] == 0 {
		return fmt.Errorf("malformed %+v: no session-reset counted", m)
	}
	if m.Panics != 0 {
		return fmt.Errorf("malformed %+v: a panic was recovered (%s): a fix is missing", m, m.Last.Panic)
	}
	if l := m.Last; l.Code != c.Want.Code || l.Subcode != c.Want.Subcode || l.Reason == "" || (c.Reason != "" && !strings.Contains(l.Reason, c.Reason)) {
		return fmt.Errorf("malformed.last %+v, want code %d/%d with a reason (%q)", l, c.Want.Code, c.Want.Subcode, c.Reason)
	}
	if c.BeforeUp {
		return nil // no Established session ended: no last_error
	}
	if e := p.LastError; e == nil || !strings.Contains(e.Malformed, m.Last.Reason) {
		return fmt.Errorf("last_error %+v does not say what was malformed (%q)", e, m.Last.Reason)
	}
	return nil
}

// checkUp: the session is up, the route taken or not, the handling
// counted.
func checkUp(c Case, p *status.Peer) error {
	if p.State != "established" {
		return fmt.Errorf("state %s, want established", p.State)
	}
	accepted := AcceptedV4(p)
	if want := map[bool]uint64{true: 1}[c.Want.Taken]; accepted != want {
		return fmt.Errorf("ipv4-unicast accepted %d, want %d", accepted, want)
	}
	m := p.Malformed
	if c.Want.Handling == bgp.ERROR_HANDLING_NONE {
		if m != nil {
			return fmt.Errorf("malformed %+v, want nothing", m)
		}
		return nil
	}
	name := map[bgp.ErrorHandling]string{
		bgp.ERROR_HANDLING_ATTRIBUTE_DISCARD: "attribute-discard",
		bgp.ERROR_HANDLING_TREAT_AS_WITHDRAW: "treat-as-withdraw",
		bgp.ERROR_HANDLING_AFISAFI_DISABLE:   "afi-safi-disable",
	}[c.Want.Handling]
	if m == nil || m.ByHandling[name] == 0 || m.Updates == 0 || m.Panics != 0 {
		return fmt.Errorf("malformed %+v, want a %s UPDATE and no panic", m, name)
	}
	if c.Reason != "" && !strings.Contains(m.Last.Reason, c.Reason) {
		return fmt.Errorf("malformed.last.reason %q, want %q in it", m.Last.Reason, c.Reason)
	}
	return nil
}

var errNoPeer = errors.New("no such peer in /status")

// waitPeer polls /status every 100 ms until ok accepts addr's entry.
func waitPeer(d Daemon, addr string, timeout time.Duration, ok func(*status.Peer) error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := errNoPeer
		if p := d.Peer(addr); p != nil {
			err = ok(p)
		}
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("/status peer %s after %v: %w", addr, timeout, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Panics sums /status's recovered panics over addrs: 0 on a fixed copy.
func Panics(d Daemon, addrs []netip.Addr) uint64 {
	var n uint64
	for _, a := range addrs {
		if p := d.Peer(a.String()); p != nil && p.Malformed != nil {
			n += p.Malformed.Panics
		}
	}
	return n
}

// Addrs are the cases' peer addresses.
func Addrs(cases []Case) []netip.Addr {
	out := make([]netip.Addr, 0, len(cases))
	for _, c := range cases {
		out = append(out, c.From)
	}
	return slices.Clip(out)
}

// AcceptedV4 is the peer's accepted IPv4 unicast prefixes.
func AcceptedV4(p *status.Peer) uint64 {
	for _, f := range p.Families {
		if f.Name == "ipv4-unicast" {
			return f.Accepted
		}
	}
	return 0
}
