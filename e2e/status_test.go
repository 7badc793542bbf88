//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/status"
)

// TestStatusAgainstFRR: FRR announces 3 prefixes over TCP-MD5 and
// authbgpd 2; /status, `authbgpd status` and `authbgpd status PEER` show
// what FRR itself says: received what FRR sent (its 3 and, FRR not
// checking the AS path before sending, our 2 back), accepted 3, sent the 2
// FRR accepted, the negotiated hold time and keepalive, the session's
// local address and ports, the family.
// Then FRR stops: its Cease NOTIFICATION shows as received, with the down
// reason, and the session's time down counts. No secret in any output.
func TestStatusAgainstFRR(t *testing.T) {
	testenv.RequireRoot(t)
	testenv.RequireBinary(t, "gobgp")
	t.Parallel()
	pair := newPair(t, "sts1", false)
	tp, nsA, nsB := pair.Topology, pair.A, pair.B
	key := newSecret("sts1")
	a := StartAuthbgpd(t, tp, nsA, abConfig(shadowSection(false),
		abPeer{addr: pairB4.String(), asn: 65002, src: "password-file", ref: "b.key"}),
		AuthbgpdOptions{Files: map[string]string{"b.key": key + "\n"}})
	nets := []netip.Prefix{netip.MustParsePrefix("203.0.113.0/26"), netip.MustParsePrefix("203.0.113.64/26"), netip.MustParsePrefix("203.0.113.128/26")}
	f := StartFRR(t, tp, nsB, PeerConfig{ASN: 65002, RouterID: pairB4,
		Neighbors: []Neighbor{{pairA4, 65001, key}}, Networks: nets})
	announce(t, a, "198.18.0.0/24", "198.18.1.0/24")
	waitSessions(t, 60*time.Second, len(nets), sessionCheck{a, pairB4})
	waitSessions(t, 20*time.Second, 2, sessionCheck{f, pairA4})

	n, err := f.neighbor(pairA4)
	if err != nil {
		t.Fatal(err)
	}
	num := func(m map[string]any, k string) uint64 { v, _ := m[k].(float64); return uint64(v) }
	v4, _ := n["addressFamilyInfo"].(map[string]any)["ipv4Unicast"].(map[string]any)
	frrSent, frrAccepted := num(v4, "sentPrefixCounter"), num(v4, "acceptedPrefixCounter")
	if frrSent < 3 || frrAccepted != 2 {
		t.Fatalf("FRR: sent %d prefixes, accepted %d; want ≥ 3 and 2", frrSent, frrAccepted)
	}
	what := fmt.Sprintf("%d received (FRR's count), 3 accepted, 2 sent", frrSent)
	p := waitPeer(t, a, pairB4.String(), 20*time.Second, what, func(p *status.Peer) bool {
		return len(p.Families) == 1 && p.Families[0].Received == frrSent && p.Families[0].Accepted == 3 && p.Families[0].Sent == 2
	})
	if fam := p.Families[0]; fam.Name != "ipv4-unicast" || !fam.Negotiated {
		t.Errorf("family %+v, want ipv4-unicast negotiated", fam)
	}
	if p.Timers == nil || p.Timers.NegotiatedHoldTime == 0 ||
		p.Timers.NegotiatedHoldTime*1000 != num(n, "bgpTimerHoldTimeMsecs") || p.Timers.NegotiatedKeepalive == 0 {
		t.Errorf("timers %+v; FRR: hold %v ms keepalive %v ms", p.Timers, n["bgpTimerHoldTimeMsecs"], n["bgpTimerKeepAliveIntervalMsecs"])
	}
	if p.LocalAddress != pairA4.String() || uint64(p.LocalPort) != num(n, "portForeign") || uint64(p.RemotePort) != num(n, "portLocal") {
		t.Errorf("ends %s:%d remote port %d; FRR: foreign %v:%v local port %v",
			p.LocalAddress, p.LocalPort, p.RemotePort, n["hostForeign"], n["portForeign"], n["portLocal"])
	}
	if m := p.Messages; m == nil || m.Sent.Open == 0 || m.Received.Open == 0 || m.Received.Update == 0 {
		t.Errorf("messages %+v", m)
	}

	bin := authbgpdBinary(t, "")
	cli := func(args ...string) string {
		t.Helper()
		out, err := a.run(context.Background(), append([]string{bin, "status", "--api", AuthbgpdHTTP}, args...)...)
		if err != nil {
			t.Fatalf("authbgpd status %q: %v\n%s", args, err, out)
		}
		if strings.Contains(string(out), key) {
			t.Fatalf("authbgpd status %q shows the secret", args)
		}
		return string(out)
	}
	row := regexp.MustCompile(fmt.Sprintf(`(?m)^192\.0\.2\.2\s+65002\s+established\s+\S+\s+%d\s+3\s+2\s+md5\s`, frrSent))
	if out := cli(); !row.MatchString(out) || !strings.Contains(out, "capture: running on all interfaces") {
		t.Errorf("table without %s or the capture:\n%s", what, out)
	}
	detail := cli(pairB4.String())
	for _, want := range []string{
		fmt.Sprintf("  local %s:%d  remote port %d\n", pairA4, p.LocalPort, p.RemotePort),
		fmt.Sprintf("negotiated hold %ds keepalive %ds\n", p.Timers.NegotiatedHoldTime, p.Timers.NegotiatedKeepalive),
		"auth: md5 from password-file",
	} {
		if !strings.Contains(detail, want) {
			t.Errorf("status %s lacks %q:\n%s", pairB4, want, detail)
		}
	}
	if !regexp.MustCompile(fmt.Sprintf(`(?m)^  ipv4-unicast\s+yes\s+%d\s+3\s+2$`, frrSent)).MatchString(detail) {
		t.Errorf("status %s: no family row ipv4-unicast yes %d 3 2:\n%s", pairB4, frrSent, detail)
	}

	f.Stop()
	p = waitPeer(t, a, pairB4.String(), 30*time.Second, "the NOTIFICATION FRR sent when it stopped", func(p *status.Peer) bool {
		return p.State != "established" && p.LastNotification != nil
	})
	if nt := p.LastNotification; nt.Code != 6 || nt.Direction != "received" {
		t.Errorf("last notification %+v, want Cease (6) received", nt)
	}
	if p.LastError == nil || !strings.HasPrefix(p.LastError.Reason, "notification-received code 6(cease)") {
		t.Errorf("last error %+v, want notification-received code 6(cease) ...", p.LastError)
	}
	if p.DowntimeSeconds == nil {
		t.Error("no downtime_seconds for a session that went down")
	}
	if out := cli(); !regexp.MustCompile(`(?m)^192\.0\.2\.2\s.*received cease/\S.*\(6/\d+\) \S+ ago`).MatchString(out) {
		t.Errorf("table without the received Cease:\n%s", out)
	}
	js := cli(pairB4.String(), "--json")
	var one status.Peer
	if err := json.Unmarshal([]byte(js), &one); err != nil || one.Address != pairB4.String() || one.LastNotification == nil {
		t.Errorf("status %s --json: %v\n%s", pairB4, err, js)
	}
	if out, err := a.run(context.Background(), bin, "status", "--api", AuthbgpdHTTP, "192.0.2.99"); err == nil ||
		!strings.Contains(err.Error(), "exit status 1") || !strings.Contains(err.Error(), `no peer "192.0.2.99"`) {
		t.Errorf("unknown peer: %v\n%s", err, out)
	}
	if strings.Contains(a.Log(), key) {
		t.Error("the log shows the secret")
	}
}

// TestStatusNoCapture: when the shadow checker cannot capture (here: an
// interface that does not exist; in production, no CAP_NET_RAW), the
// table says why and a keyed peer reads no-capture, not no-traffic.
func TestStatusNoCapture(t *testing.T) {
	testenv.RequireRoot(t)
	t.Parallel()
	pair := newPair(t, "sts2", false)
	a := StartAuthbgpd(t, pair.Topology, pair.A, abConfig("\n[shadow]\nenabled = true\ninterfaces = [\"nosuch0\"]\n",
		abPeer{addr: pairB4.String(), asn: 65002, src: "password", ref: newSecret("sts2")}), AuthbgpdOptions{})
	waitFor(t, 10*time.Second, "the capture error in /status", func() error {
		if c := a.Status().Capture; c == nil || c.Running || c.Error == "" {
			return fmt.Errorf("capture %+v", c)
		}
		return nil
	})
	out, err := a.run(context.Background(), authbgpdBinary(t, ""), "status", "--api", AuthbgpdHTTP)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^capture: not running: \S.*nosuch0`).MatchString(string(out)) ||
		!regexp.MustCompile(`(?m)^192\.0\.2\.2\s.*\sno-capture\s`).MatchString(string(out)) {
		t.Errorf("authbgpd status:\n%s", out)
	}
}
