//go:build linux

package e2e

// gobgpd equivalence (issue 44): policy sections taken unchanged from
// GoBGP's own documentation load into authbgpd and accept the same routes
// as stock gobgpd (Debian's; 3.10.0 on the development machine, whose
// policy engine authbgpd's carried GoBGP 3.37 must agree with) given the
// same feed. One FRR router (AS 65001, at
// 10.0.255.1 as in policy.md's "Policy Configuration Example", whose
// neighbor-set names it) announces seven prefixes, with the communities,
// large communities, extended communities and AS paths the policies match
// on, over TCP-MD5 to authbgpd and to gobgpd on one bridged LAN. gobgpd
// applies a neighbor's own apply-policy only to route-server clients, so
// there the import policy is the global one; authbgpd has it on the peer.
// Both must accept exactly the two prefixes the documented policies let
// through, with the same AS paths and communities.
//
// The LAN is 10.0.255.0/24, not a documentation range, because the
// documented neighbor-set is 10.0.255.1: the namespaces have no route out.

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
)

// gobgpDocs is GoBGP's documentation in the carried copy.
const gobgpDocs = "../third_party/gobgp/v3/docs/sources"

// docBlock is the first ```toml block after the line containing marker
// in GoBGP's document file, as written there.
func docBlock(t *testing.T, file, marker string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(gobgpDocs, file))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), marker)
	if !ok {
		t.Fatalf("%s: no %q", file, marker)
	}
	_, after, ok = strings.Cut(after, "```toml\n")
	if !ok {
		t.Fatalf("%s: no toml block after %q", file, marker)
	}
	block, _, ok := strings.Cut(after, "```")
	if !ok {
		t.Fatalf("%s: toml block after %q does not end", file, marker)
	}
	return block
}

// docPart is block from the line starting with from (leading blanks
// ignored) up to, not including, the next line starting with to ("" = to
// the end).
func docPart(t *testing.T, block, from, to string) string {
	t.Helper()
	var out []string
	in := false
	for _, l := range strings.SplitAfter(block, "\n") {
		s := strings.TrimSpace(l)
		if in && to != "" && strings.HasPrefix(s, to) {
			break
		}
		if !in && strings.HasPrefix(s, from) {
			in = true
		}
		if in {
			out = append(out, l)
		}
	}
	if !in {
		t.Fatalf("no line %q in\n%s", from, block)
	}
	return strings.Join(out, "")
}

// docPolicies are the policy sections both daemons load: from
// configuration.md, its whole defined-sets and policy-definitions
// (policy1, policy2, ...); from policy.md, the "defined-sets example"
// (ps1, ns1), the "bgp-defined-sets example" and, from the "Policy
// Configuration Example", prefix-set ps2 and policy pd2. That example's
// own ns1 is left out: it writes neighbor-info-list as a table
// ([[defined-sets.neighbor-sets.neighbor-info-list]] address = ...),
// which gobgpd and authbgpd both refuse (a list of strings); the
// "defined-sets example"'s ns1 is the same neighbor.
func docPolicies(t *testing.T) string {
	conf := docBlock(t, "configuration.md", "# Configuration Example")
	ex := docBlock(t, "policy.md", "## Policy Configuration Example")
	return strings.Join([]string{
		docPart(t, conf, "[[defined-sets.prefix-sets]]", ""),
		docBlock(t, "policy.md", "- defined-sets example"),
		docBlock(t, "policy.md", "- bgp-defined-sets example"),
		docPart(t, ex, "[[defined-sets.prefix-sets]]", "[[defined-sets.neighbor-sets]]"),
		docPart(t, ex, "[[policy-definitions]]", ""),
	}, "\n")
}

// eqImport is the import policy both daemons apply: the documented
// policies in order, and configuration.md's default.
const eqImport = `import-policy-list = ["pd2", "policy1", "policy2"]
default-import-policy = "reject-route"
`

const eqPassword = "policy-eq-md5-key"

// eqFeed is the FRR router's config: each prefix with the attributes that
// decide it (see TestPolicyGobgpdEquivalence's want).
func eqFeed() string {
	var b strings.Builder
	b.WriteString(`frr defaults traditional
hostname feed
log stdout informational
!
route-map AS200 permit 10
 set as-path prepend 200
!
route-map BOTH permit 10
 set community 100:100
 set large-community 100:100:100 200:200:200
!
route-map ONE permit 10
 set community 100:100
 set large-community 100:100:100
!
route-map RT permit 10
 set extcommunity rt 100:100
 set as-path prepend 200
!
router bgp 65001
 bgp router-id 10.0.255.1
 no bgp default ipv4-unicast
 no bgp ebgp-requires-policy
 no bgp network import-check
`)
	nbrs := []string{"10.0.255.2", "10.0.255.3"}
	for _, n := range nbrs {
		fmt.Fprintf(&b, " neighbor %s remote-as 64512\n neighbor %s password %s\n neighbor %s timers connect %d\n",
			n, n, eqPassword, n, connectRetry)
	}
	b.WriteString(` address-family ipv4 unicast
  network 10.3.0.0/16 route-map AS200
  network 10.50.0.0/16 route-map AS200
  network 10.33.0.0/16
  network 10.33.1.0/24 route-map BOTH
  network 10.33.2.0/24 route-map ONE
  network 10.33.3.0/24 route-map RT
  network 198.51.100.0/24 route-map BOTH
`)
	for _, n := range nbrs {
		fmt.Fprintf(&b, "  neighbor %s activate\n  neighbor %s send-community all\n", n, n)
	}
	b.WriteString(" exit-address-family\n!\n")
	return b.String()
}

// eqGobgpd is stock gobgpd's config: the documented sections as they are,
// the import policy on the global RIB.
func eqGobgpd(policies string) string {
	return fmt.Sprintf(`[global.config]
  as = 64512
  router-id = "192.0.2.3"
[global.apply-policy.config]
%s
[[neighbors]]
  [neighbors.config]
    neighbor-address = "10.0.255.1"
    peer-as = 65001
    auth-password = %q
  [neighbors.timers.config]
    connect-retry = %d
  [[neighbors.afi-safis]]
    [neighbors.afi-safis.config]
      afi-safi-name = "ipv4-unicast"

%s`, eqImport, eqPassword, connectRetry, policies)
}

// eqAuthbgpd is authbgpd's config: the same sections, the import policy
// on the peer.
func eqAuthbgpd(policies string) string {
	c := abConf{ASN: 64512, RouterID: "192.0.2.2", Extra: policies + "\n"}
	c.Peers = []abPeer{{addr: "10.0.255.1", asn: 65001, src: "password-file", ref: "pw"}}
	return strings.Replace(c.String(), "address = \"10.0.255.1\"\n", "address = \"10.0.255.1\"\n"+eqImport, 1)
}

// ribRoute is what the comparison looks at in one accepted route: its AS
// path and communities, as the gobgp CLI prints them.
type ribRoute struct {
	ASPath      string
	Communities string
}

// gobgpRIB is a gobgp CLI JSON table (global rib -j, neighbor X adj-in -j):
// prefix → the best path's AS path and communities.
func gobgpRIB(g *GoBGP, args ...string) (map[string]ribRoute, error) {
	out, err := g.CLI(context.Background(), append(args, "-a", "ipv4", "-j")...)
	if err != nil {
		return nil, fmt.Errorf("gobgp %s: %w: %s", strings.Join(args, " "), err, tail(out, 300))
	}
	var tab map[string][]struct {
		Attrs []json.RawMessage `json:"attrs"`
	}
	if err := json.Unmarshal([]byte(out), &tab); err != nil {
		return nil, fmt.Errorf("gobgp %s -j: %w: %s", strings.Join(args, " "), err, tail(out, 300))
	}
	rib := map[string]ribRoute{}
	for p, paths := range tab {
		if len(paths) == 0 {
			continue
		}
		var r ribRoute
		for _, a := range paths[0].Attrs {
			var attr struct {
				Type        int             `json:"type"`
				ASPaths     json.RawMessage `json:"as_paths"`
				Communities json.RawMessage `json:"communities"`
			}
			if json.Unmarshal(a, &attr) != nil {
				continue
			}
			switch attr.Type {
			case 2:
				r.ASPath = string(attr.ASPaths)
			case 8:
				r.Communities = string(attr.Communities)
			}
		}
		rib[p] = r
	}
	return rib, nil
}

func ribPrefixes(rib map[string]ribRoute) []string { return slices.Sorted(maps.Keys(rib)) }

func TestPolicyGobgpdEquivalence(t *testing.T) {
	testenv.RequireRoot(t)
	testenv.RequireBinary(t, "bgpd", "/usr/lib/frr")
	gobgpdBin := testenv.RequireBinary(t, "gobgpd")
	testenv.RequireBinary(t, "gobgp")
	start := time.Now()
	policies := docPolicies(t)

	tp := netns.New(t, "poleq")
	feedNS, abNS, gbNS := tp.Add("feed"), tp.Add("ab"), tp.Add("gb")
	tp.Link(feedNS, "eth1", nil, abNS, "eth0", []string{"10.0.255.2/24"})
	tp.Link(feedNS, "eth2", nil, gbNS, "eth0", []string{"10.0.255.3/24"})
	netns.Run(t, "ip", "-n", feedNS, "link", "add", "br0", "type", "bridge")
	for _, ifc := range []string{"eth1", "eth2"} {
		netns.Run(t, "ip", "-n", feedNS, "link", "set", ifc, "master", "br0")
	}
	netns.Run(t, "ip", "-n", feedNS, "addr", "add", "10.0.255.1/24", "dev", "br0")
	netns.Run(t, "ip", "-n", feedNS, "link", "set", "br0", "up")

	// The receivers first, so the feed's first connection attempts find
	// them listening.
	a := StartAuthbgpd(t, tp, abNS, eqAuthbgpd(policies),
		AuthbgpdOptions{Files: map[string]string{"pw": eqPassword + "\n"}, LogLevel: "info"})
	g := startGobgpd(t, tp, gbNS, "gobgpd", gobgpdBin, nil, eqGobgpd(policies), "info")
	feed := startBgpd(t, tp, feedNS, "frr-feed", eqFeed())
	feed.waitVty(t)
	t.Logf("daemons up after %v", time.Since(start).Round(time.Millisecond))

	// Everything the feed sends has arrived when both adj-in tables (before
	// the import policy) hold its seven prefixes.
	feedAddr := netip.MustParseAddr("10.0.255.1")
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	for _, r := range []*GoBGP{a.GoBGP, g} {
		if err := WaitSession(ctx, r, feedAddr, 0); err != nil {
			t.Fatal(err)
		}
		var in map[string]ribRoute
		var err error
		if !netns.WaitFor(ctx, func() bool {
			in, err = gobgpRIB(r, "neighbor", feedAddr.String(), "adj-in")
			return err == nil && len(in) == 7
		}) {
			t.Fatalf("%s: adj-in from the feed: %v (%v), want 7 prefixes", r.Name(), ribPrefixes(in), err)
		}
	}
	t.Logf("feed received by both after %v", time.Since(start).Round(time.Millisecond))

	ab, err := gobgpRIB(a.GoBGP, "global", "rib")
	if err != nil {
		t.Fatal(err)
	}
	gb, err := gobgpRIB(g, "global", "rib")
	if err != nil {
		t.Fatal(err)
	}
	// What the documented policies mean for the feed: pd2 rejects ps2's
	// exact /16s from ns1 (10.50.0.0/16 although policy2 would accept its
	// AS path); policy1's first statement accepts a 10/8 /24-/32 with
	// community 100:100 and both ls0 large communities (10.33.1.0/24, not
	// 10.33.2.0/24 with one, nor 198.51.100.0/24 outside ps0) and prepends
	// the last AS five times; its second rejects es0's rt:100:100
	// (10.33.3.0/24, before policy2); policy2 accepts an AS path ending in
	// 200 and adds 100:200 (10.3.0.0/16); the rest meets the default
	// reject-route.
	want := []string{"10.3.0.0/16", "10.33.1.0/24"}
	if got := ribPrefixes(gb); !reflect.DeepEqual(got, want) {
		t.Errorf("stock gobgpd accepted %v, want %v (the documented policies' meaning)", got, want)
	}
	if got := ribPrefixes(ab); !reflect.DeepEqual(got, ribPrefixes(gb)) {
		t.Errorf("authbgpd accepted %v, stock gobgpd %v: the same policies behave differently", got, ribPrefixes(gb))
	}
	for p, r := range gb {
		if ab[p] != r {
			t.Errorf("%s: authbgpd has AS path %s communities %s, stock gobgpd %s %s",
				p, ab[p].ASPath, ab[p].Communities, r.ASPath, r.Communities)
		}
	}
	t.Logf("authbgpd's RIB: %v (%v)", ab, time.Since(start).Round(time.Millisecond))
}
