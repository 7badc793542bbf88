//go:build linux

package e2e

// max-prefixes (issue 44 item 3) against FRR over TCP-MD5: FRR announces
// five prefixes to a peer allowed three; authbgpd closes the session with a
// Cease NOTIFICATION, subcode 1, says why (/status, its log, a counter),
// tries again after GoBGP's idle hold and closes it again. Raised by a
// reload, the limit lets the session stay up with the per-family counts
// (received, accepted, sent: FRR sends our own two prefixes back, received
// and not accepted) in /status, `authbgpd status PEER` and the
// metrics; changed again on the Established session, it applies in place
// (the same connection), and lowered below what FRR sends, it cuts the
// session at once.

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/status"
)

// mxpPrefixes are what FRR announces: five, in one UPDATE.
var mxpPrefixes = []string{"198.51.100.0/28", "198.51.100.16/28", "198.51.100.32/28", "198.51.100.48/28", "198.51.100.64/28"}

func mxpFRRConfig(password string) string {
	var b strings.Builder
	b.WriteString("frr defaults traditional\nhostname frr\nlog stdout informational\n!\n")
	b.WriteString("router bgp 65002\n bgp router-id 192.0.2.2\n no bgp default ipv4-unicast\n no bgp ebgp-requires-policy\n no bgp network import-check\n")
	fmt.Fprintf(&b, " neighbor 192.0.2.1 remote-as 65001\n neighbor 192.0.2.1 password %s\n neighbor 192.0.2.1 timers connect %d\n", password, connectRetry)
	b.WriteString(" address-family ipv4 unicast\n  neighbor 192.0.2.1 activate\n")
	for _, p := range mxpPrefixes {
		fmt.Fprintf(&b, "  network %s\n", p)
	}
	b.WriteString(" exit-address-family\n!\n")
	return b.String()
}

func TestMaxPrefixes(t *testing.T) {
	testenv.RequireRoot(t)
	t.Parallel()
	pair := newPair(t, "mxp", false)
	tp, nsA, nsB := pair.Topology, pair.A, pair.B
	key := newSecret("mxp")
	frr := startBgpd(t, tp, nsB, "frr", mxpFRRConfig(key))
	frr.waitVty(t)
	conf := func(limit string) string {
		return abConfig(noWatch, abPeer{addr: "192.0.2.2", asn: 65002, src: "password-file", ref: "b.key"}) + limit
	}
	a := StartAuthbgpd(t, tp, nsA, conf("max-prefixes = 3\n"), AuthbgpdOptions{Files: map[string]string{"b.key": key + "\n"}})
	exceeded := func(p *status.Peer) uint64 {
		if p == nil || p.PrefixLimit == nil {
			return 0
		}
		return p.PrefixLimit.Exceeded
	}

	// Five prefixes to a peer allowed three: closed with Cease/1, and
	// tried again after the idle hold (and closed again).
	if !t.Run("over the limit", func(t *testing.T) {
		p := waitPeer(t, a, "192.0.2.2", 20*time.Second, "the session closed for max-prefixes", func(p *status.Peer) bool {
			return p.LastError != nil && p.LastError.MaxPrefixes == 3 && exceeded(p) >= 1
		})
		if e := p.LastError; e.Reason != "notification-sent code 6(cease) subcode 1(maximum number of prefixes reached)" {
			t.Errorf("/status last_error %+v", e)
		}
		if n := p.LastNotification; n == nil || n.Direction != "sent" || n.Code != 6 || n.Subcode != 1 {
			t.Errorf("/status last_notification %+v, want sent 6/1", n)
		}
		nb, err := frr.neighbor(pairA4)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := json.Marshal(nb); !strings.Contains(string(got), "Maximum Number of Prefixes Reached") {
			t.Errorf("FRR does not say it received Cease/Maximum Number of Prefixes Reached: %s", got)
		}
		log := a.Log()
		if !strings.Contains(log, "max-prefixes exceeded") || !strings.Contains(log, "max_prefixes=3") {
			t.Errorf("authbgpd's log names neither the limit nor its being exceeded:\n%s", tail(log, 3000))
		}
		waitFor(t, 20*time.Second, "the peer tried again after the idle hold, and closed again", func() error {
			if p := a.Peer("192.0.2.2"); exceeded(p) < 2 {
				return fmt.Errorf("exceeded %d time(s): %s", exceeded(p), peerString(p))
			}
			return nil
		})
		requireMetricAtLeast(t, a, "authbgpd_peer_max_prefixes_exceeded_total", `peer="192.0.2.2"`, 2)
	}) {
		t.FailNow()
	}

	// authbgpd sends two prefixes of its own (through the API): FRR's sent
	// count once the session stays up.
	for _, p := range []string{"203.0.113.0/24", "203.0.113.128/25"} {
		if _, err := a.CLI(context.Background(), "global", "rib", "-a", "ipv4", "add", p); err != nil {
			t.Fatal(err)
		}
	}

	// Raised by a reload (the preview says in place): up, and it stays up
	// with the counts; five of ten is past a 40% warning.
	t.Run("raised", func(t *testing.T) {
		next := filepath.Join(filepath.Dir(a.Config), "next.toml")
		write(t, next, conf("max-prefixes = 10\nmax-prefixes-warning = 40\n"))
		code, out, errs := abCLI(t, nsA, "check", "-f", next, "--diff")
		if code != 0 || !strings.Contains(out, "change    192.0.2.2: max-prefixes, max-prefixes-warning (in place, no session reset)") {
			t.Fatalf("check --diff: exit %d\n%s%s", code, out, errs)
		}
		a.Reload(conf("max-prefixes = 10\nmax-prefixes-warning = 40\n"))
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := WaitSession(ctx, frr, pairA4, 2); err != nil {
			t.Fatalf("%v\n%s", err, peerString(a.Peer("192.0.2.2")))
		}
		// FRR sends our two back (eBGP): received, refused for the AS
		// path loop, so not accepted.
		p := waitPeer(t, a, "192.0.2.2", 10*time.Second, "7 received, 5 accepted, 2 sent", func(p *status.Peer) bool {
			return p.State == "established" && len(p.Families) == 1 && p.Families[0] == status.Family{Name: "ipv4-unicast", Negotiated: true, Received: 7, Accepted: 5, Sent: 2}
		})
		if l := p.PrefixLimit; l == nil || l.MaxPrefixes != 10 || l.WarningPct != 40 {
			t.Errorf("/status prefix_limit %+v", l)
		}
		if out := statusText(t, nsA, "192.0.2.2"); !strings.Contains(out, "max-prefixes: 10 per family, warning at 40%") ||
			!strings.Contains(out, "ipv4-unicast  yes         7         5         2") {
			t.Errorf("authbgpd status 192.0.2.2:\n%s", out)
		}
		for dir, want := range map[string]float64{"received": 7, "accepted": 5, "sent": 2} {
			requireMetric(t, a, "authbgpd_peer_prefixes", `direction="`+dir+`",family="ipv4-unicast",peer="192.0.2.2"`, want)
		}
		waitFor(t, 5*time.Second, "the warning in the log", func() error {
			if l := a.Log(); !strings.Contains(l, "prefix limit warning threshold crossed") || !strings.Contains(l, "max_prefixes=10") {
				return errNotYet
			}
			return nil
		})
	})

	// Changed on the Established session: in place, the same connection.
	t.Run("in place", func(t *testing.T) {
		before := a.Peer("192.0.2.2")
		if before == nil || before.State != "established" {
			t.Fatalf("before: %s", peerString(before))
		}
		a.Reload(conf("max-prefixes = 20\n"))
		waitPeer(t, a, "192.0.2.2", 5*time.Second, "the new limit", func(p *status.Peer) bool {
			return p.PrefixLimit != nil && p.PrefixLimit.MaxPrefixes == 20
		})
		time.Sleep(time.Second) // a re-add would have reset it by now
		if p := a.Peer("192.0.2.2"); p.State != "established" || p.RemotePort != before.RemotePort || p.LocalPort != before.LocalPort {
			t.Errorf("the session was reset by an in-place change: before %s, after %s", peerString(before), peerString(p))
		}
		// Below what FRR sends: GoBGP closes the session at once.
		n := exceeded(before)
		a.Reload(conf("max-prefixes = 4\n"))
		waitPeer(t, a, "192.0.2.2", 5*time.Second, "closed for the lowered limit", func(p *status.Peer) bool {
			return exceeded(p) == n+1 && p.LastError != nil && p.LastError.MaxPrefixes == 4
		})
	})
}

// requireMetricAtLeast fails t unless a's /metrics has name{labels} >= want.
func requireMetricAtLeast(t testing.TB, a *Authbgpd, name, labels string, want float64) {
	t.Helper()
	body, err := a.HTTPGet("/metrics")
	if err != nil {
		t.Fatalf("GET /metrics: %v", err)
	}
	if got, ok := metricValue(body, name, labels); !ok || got < want {
		t.Errorf("/metrics %s{%s} = %v (present %v), want at least %v", name, labels, got, ok, want)
	}
}
