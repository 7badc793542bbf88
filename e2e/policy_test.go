//go:build linux

package e2e

// Routing policies (issue 44): authbgpd between two FRR routers over
// TCP-MD5, with gobgpd's policy sections, evaluated by GoBGP's engine. An
// import policy on the left peer rejects a prefix set; an export policy on
// the right peer adds a community; authbgpd's own network reaches the right
// router only, an export policy on the left peer rejecting it. The right router gets the left's other
// prefix with the community, never the rejected one; a reload that
// changes the prefix set lets the rejected prefix through, in place: both
// FRR sessions keep their connection (FRR's counters of established and
// dropped connections do not move). The stock gobgp CLI reads the
// policies through the gRPC API and cannot change them; authbgpd status
// PEER shows a peer's policies.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
)

const policyPassword = "policy-md5-key-1"

// policyNetwork is authbgpd's own network, which the left peer's export
// policy keeps from it.
const policyNetwork = "192.0.2.64/26"

// policySections are the policy part of authbgpd's config: gobgpd's
// schema, as GoBGP's docs/sources/policy.md writes it, and a network.
// blocked is the prefix set the left peer's import policy rejects.
func policySections(blocked string) string {
	return fmt.Sprintf(`
[[networks]]
prefix = %q

[[defined-sets.prefix-sets]]
  prefix-set-name = "blocked"
  [[defined-sets.prefix-sets.prefix-list]]
    ip-prefix = %q

[[defined-sets.prefix-sets]]
  prefix-set-name = "own"
  [[defined-sets.prefix-sets.prefix-list]]
    ip-prefix = %q

[[policy-definitions]]
  name = "keep-own"
  [[policy-definitions.statements]]
    name = "drop-own"
    [policy-definitions.statements.conditions.match-prefix-set]
      prefix-set = "own"
    [policy-definitions.statements.actions]
      route-disposition = "reject-route"

[[policy-definitions]]
  name = "drop-blocked"
  [[policy-definitions.statements]]
    name = "drop"
    [policy-definitions.statements.conditions.match-prefix-set]
      prefix-set = "blocked"
      match-set-options = "any"
    [policy-definitions.statements.actions]
      route-disposition = "reject-route"

[[policy-definitions]]
  name = "tag"
  [[policy-definitions.statements]]
    name = "add-community"
    [policy-definitions.statements.actions]
      route-disposition = "accept-route"
    [policy-definitions.statements.actions.bgp-actions.set-community]
      options = "add"
      [policy-definitions.statements.actions.bgp-actions.set-community.set-community-method]
        communities-list = ["65100:100"]
`, policyNetwork, blocked, policyNetwork)
}

func policyConfig(blocked string) string {
	c := abConf{ASN: 65100, RouterID: "192.0.2.100", Extra: policySections(blocked)}
	c.Peers = []abPeer{
		{addr: "192.0.2.2", asn: 65101, src: "password-file", ref: "pw"},
		{addr: "192.0.2.6", asn: 65102, src: "password-file", ref: "pw"},
	}
	s := c.String()
	s = strings.Replace(s, "address = \"192.0.2.2\"\n", "address = \"192.0.2.2\"\nimport-policy-list = [\"drop-blocked\"]\nexport-policy-list = [\"keep-own\"]\n", 1)
	return strings.Replace(s, "address = \"192.0.2.6\"\n", "address = \"192.0.2.6\"\nexport-policy-list = [\"tag\"]\n", 1)
}

func policyFRR(name string, asn uint32, id, nbr, networks string) string {
	return fmt.Sprintf(`frr defaults traditional
hostname %s
log stdout informational
!
router bgp %d
 bgp router-id %s
 no bgp default ipv4-unicast
 no bgp ebgp-requires-policy
 no bgp network import-check
 neighbor %s remote-as 65100
 neighbor %s password %s
 neighbor %s timers connect %d
 address-family ipv4 unicast
  neighbor %s activate
  neighbor %s send-community
%s exit-address-family
!
`, name, asn, id, nbr, nbr, policyPassword, nbr, connectRetry, nbr, nbr, networks)
}

func TestPolicies(t *testing.T) {
	testenv.RequireRoot(t)
	testenv.RequireBinary(t, "bgpd", "/usr/lib/frr")
	start := time.Now()
	tp := netns.New(t, "pol")
	mid := tp.Add("mid")
	leftNS, rightNS := tp.Add("left"), tp.Add("right")
	tp.Link(mid, "eth1", []string{"192.0.2.1/30"}, leftNS, "eth0", []string{"192.0.2.2/30"})
	tp.Link(mid, "eth2", []string{"192.0.2.5/30"}, rightNS, "eth0", []string{"192.0.2.6/30"})
	left := startBgpd(t, tp, leftNS, "frr-left", policyFRR("left", 65101, "192.0.2.2", "192.0.2.1",
		"  network 198.51.100.0/24\n  network 203.0.113.0/24\n"))
	right := startBgpd(t, tp, rightNS, "frr-right", policyFRR("right", 65102, "192.0.2.6", "192.0.2.5", ""))
	left.waitVty(t)
	right.waitVty(t)
	t.Logf("FRR up after %v", time.Since(start).Round(time.Millisecond))
	a := StartAuthbgpd(t, tp, mid, policyConfig("203.0.113.0/24"), AuthbgpdOptions{Files: map[string]string{"pw": policyPassword + "\n"}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	leftAddr, rightAddr := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.5")
	if err := WaitSession(ctx, left, leftAddr, 0); err != nil {
		t.Fatal(err)
	}
	if err := WaitSession(ctx, right, rightAddr, 1); err != nil {
		t.Fatal(err)
	}

	t.Logf("sessions up after %v", time.Since(start).Round(time.Millisecond))
	t.Run("filtered", func(t *testing.T) {
		waitRoutes(t, right, 10*time.Second, map[string]bool{"198.51.100.0/24": true, "203.0.113.0/24": false})
		if c := frrCommunities(t, right, "198.51.100.0/24"); !strings.Contains(c, "65100:100") {
			t.Errorf("198.51.100.0/24 at the right router has communities %q, want 65100:100 (the export policy)", c)
		}
	})
	t.Run("an export policy keeps a network from one peer", func(t *testing.T) {
		// The right router has authbgpd's network, so it was sent; the
		// left one's export policy rejects it.
		waitRoutes(t, right, 10*time.Second, map[string]bool{policyNetwork: true})
		waitRoutes(t, left, time.Second, map[string]bool{policyNetwork: false})
	})
	t.Run("read through the gRPC API", func(t *testing.T) {
		testenv.RequireBinary(t, "gobgp")
		for args, want := range map[string]string{
			"policy":                    "drop-blocked",
			"policy prefix":             "203.0.113.0/24",
			"neighbor 192.0.2.2 policy": "drop-blocked",
			"neighbor 192.0.2.6 policy": "tag",
		} {
			out, err := cli(a, strings.Fields(args)...)
			if err != nil || !strings.Contains(out, want) {
				t.Errorf("gobgp %s: %v\n%s\nwant %q in it", args, err, out, want)
			}
		}
		out, err := a.CLI(context.Background(), "policy", "prefix", "add", "evil", "192.0.2.0/24")
		if err == nil || !strings.Contains(out, "config file") {
			t.Errorf("gobgp policy prefix add: %v\n%s\nwant a refusal naming the config file", err, out)
		}
		if out := statusText(t, mid, "192.0.2.2"); !strings.Contains(out, "import policy: drop-blocked, then accept-route") {
			t.Errorf("authbgpd status 192.0.2.2 does not show the import policy:\n%s", out)
		}
	})

	before := map[string][2]float64{"left": frrConns(t, left, leftAddr), "right": frrConns(t, right, rightAddr)}
	t.Run("a reload with a policy error changes nothing", func(t *testing.T) {
		bad := strings.Replace(policyConfig("192.0.2.128/25"), `prefix-set = "blocked"`, `prefix-set = "nope"`, 1)
		a.Reload(bad)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if !netns.WaitFor(ctx, func() bool { return strings.Contains(a.Log(), `prefix-set: \"nope\": no such set`) }) {
			t.Fatalf("no rejection of the missing set in authbgpd's log:\n%s", tail(a.Log(), 2000))
		}
		time.Sleep(500 * time.Millisecond)
		waitRoutes(t, right, time.Second, map[string]bool{"198.51.100.0/24": true, "203.0.113.0/24": false})
	})
	a.Reload(policyConfig("192.0.2.128/25"))
	t.Run("reloaded in place", func(t *testing.T) {
		waitRoutes(t, right, 10*time.Second, map[string]bool{"198.51.100.0/24": true, "203.0.113.0/24": true})
		if c := frrCommunities(t, right, "203.0.113.0/24"); !strings.Contains(c, "65100:100") {
			t.Errorf("203.0.113.0/24 at the right router has communities %q, want 65100:100", c)
		}
		after := map[string][2]float64{"left": frrConns(t, left, leftAddr), "right": frrConns(t, right, rightAddr)}
		for k := range before {
			if before[k] != after[k] {
				t.Errorf("%s router's connections (established, dropped) went from %v to %v: the policy change reset the session", k, before[k], after[k])
			}
		}
		if !strings.Contains(a.Log(), "changed in place (soft reset, no session reset)") {
			t.Errorf("authbgpd's log does not say the policy change applied in place")
		}
	})
}

// waitRoutes waits until f's BGP table has each prefix of want that is
// true, and none that is false.
func waitRoutes(t *testing.T, f *FRR, d time.Duration, want map[string]bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var have map[string]bool
	ok := netns.WaitFor(ctx, func() bool {
		out, err := f.Vtysh(ctx, "show bgp ipv4 unicast json")
		if err != nil {
			return false
		}
		var m struct {
			Routes map[string]any `json:"routes"`
		}
		if json.Unmarshal([]byte(out), &m) != nil {
			return false
		}
		have = map[string]bool{}
		for p := range m.Routes {
			have[p] = true
		}
		for p, in := range want {
			if have[p] != in {
				return false
			}
		}
		return true
	})
	if !ok {
		t.Fatalf("routes at the FRR router: %v, want %v", have, want)
	}
}

// frrCommunities are the communities of f's best path to prefix.
func frrCommunities(t *testing.T, f *FRR, prefix string) string {
	t.Helper()
	out, err := f.Vtysh(context.Background(), "show bgp ipv4 unicast "+prefix+" json")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Paths []struct {
			Community struct {
				String string `json:"string"`
			} `json:"community"`
		} `json:"paths"`
	}
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("show bgp ipv4 unicast %s json: %v\n%s", prefix, err, out)
	}
	var cs []string
	for _, p := range m.Paths {
		cs = append(cs, p.Community.String)
	}
	return strings.Join(cs, " ")
}

// frrConns are FRR's counters of connections established and dropped with
// addr: a session reset moves both.
func frrConns(t *testing.T, f *FRR, addr netip.Addr) [2]float64 {
	t.Helper()
	n, err := f.neighbor(addr)
	if err != nil {
		t.Fatal(err)
	}
	est, _ := n["connectionsEstablished"].(float64)
	drop, _ := n["connectionsDropped"].(float64)
	return [2]float64{est, drop}
}
