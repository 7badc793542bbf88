package config

import (
	"net/netip"
	"slices"
	"strings"
	"testing"
)

func parseEnv(t *testing.T, data string, env map[string]string) (*Config, error) {
	t.Helper()
	return parse("n.toml", []byte(data), func(k string) (string, bool) { v, ok := env[k]; return v, ok }, testNow)
}

const peerBlue = `
[[peers]]
address = "192.0.2.2"
asn = 65002
vrf = "blue"
`

func TestNetworks(t *testing.T) {
	c, err := parseEnv(t, G+peerBlue+`
[[networks]]
prefix = "198.51.100.0/24"
communities = ["65001:100", "no-export", "0:65535"]
large-communities = ["65001:1:2", "4294967295:0:4294967295"]

[[networks]]
prefix = "2001:db8:100::/48"

[[networks]]
prefix = "198.51.100.0/24"
vrf = "blue"

[[networks]]
prefix-env = "POD_CIDR"
`, map[string]string{"POD_CIDR": "10.244.3.0/24"})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Networks) != 4 {
		t.Fatalf("networks: %+v", c.Networks)
	}
	n := c.Networks[0]
	if n.Prefix != netip.MustParsePrefix("198.51.100.0/24") || n.VRF != "" || n.Line != 10 || n.ID() != "198.51.100.0/24" {
		t.Errorf("network 0: %+v", n)
	}
	if got := []string{n.Communities[0].String(), n.Communities[1].String(), n.Communities[2].String()}; !slices.Equal(got, []string{"65001:100", "no-export", "0:65535"}) {
		t.Errorf("communities: %v", got)
	}
	if n.Communities[0] != 65001<<16|100 || n.Communities[1] != CommunityNoExport {
		t.Errorf("community values: %x", n.Communities)
	}
	if n.LargeCommunities[0] != (LargeCommunity{65001, 1, 2}) || n.LargeCommunities[1].String() != "4294967295:0:4294967295" {
		t.Errorf("large communities: %v", n.LargeCommunities)
	}
	if !c.Networks[1].Prefix.Addr().Is6() {
		t.Errorf("v6: %+v", c.Networks[1])
	}
	if c.Networks[2].ID() != "198.51.100.0/24 in VRF blue" {
		t.Errorf("vrf: %s", c.Networks[2].ID())
	}
	if e := c.Networks[3]; e.Prefix != netip.MustParsePrefix("10.244.3.0/24") || e.PrefixEnv != "POD_CIDR" {
		t.Errorf("prefix-env: %+v", e)
	}
}

func TestNetworksBad(t *testing.T) {
	env := map[string]string{"POD": "10.244.3.0/24", "EMPTY": "", "HOSTBITS": "10.244.3.1/24", "NOTAPREFIX": "10.244.3.0"}
	cases := []struct {
		name, toml string
		want       []string
	}{
		{"host bits", "[[networks]]\nprefix = \"198.51.100.1/24\"\n",
			[]string{`n.toml:5: prefix: "198.51.100.1/24" has host bits set: write 198.51.100.0/24`}},
		{"not a prefix", "[[networks]]\nprefix = \"198.51.100.1\"\n",
			[]string{`n.toml:5: prefix: "198.51.100.1" is not a prefix (ADDRESS/LENGTH)`}},
		{"mapped", "[[networks]]\nprefix = \"::ffff:198.51.100.0/120\"\n",
			[]string{`n.toml:5: prefix: "::ffff:198.51.100.0/120" is IPv4-mapped`}},
		{"missing", "[[networks]]\ncommunities = [\"1:1\"]\n",
			[]string{`n.toml:4: [[networks]]: prefix is missing`}},
		{"wrong type", "[[networks]]\nprefix = 24\n",
			[]string{`n.toml:5: prefix: expected string, got integer`}},
		{"unknown key", "[[networks]]\nprefix = \"198.51.100.0/24\"\nnext-hop = \"192.0.2.9\"\n",
			[]string{`n.toml:6: unknown key "next-hop" in [[networks]]`}},
		{"duplicate", "[[networks]]\nprefix = \"198.51.100.0/24\"\n[[networks]]\nprefix = \"198.51.100.0/24\"\n",
			[]string{`n.toml:7: prefix: duplicate network 198.51.100.0/24 (also at line 4)`}},
		{"duplicate via env", "[[networks]]\nprefix = \"10.244.3.0/24\"\n[[networks]]\nprefix-env = \"POD\"\n",
			[]string{`n.toml:7: prefix-env: duplicate network 10.244.3.0/24 (also at line 4)`}},
		{"both", "[[networks]]\nprefix = \"198.51.100.0/24\"\nprefix-env = \"POD\"\n",
			[]string{`n.toml:6: prefix-env: only one of prefix, prefix-env may be set (prefix is at line 5)`}},
		{"env unset", "[[networks]]\nprefix-env = \"NOPE\"\n",
			[]string{`n.toml:5: prefix-env: environment variable NOPE is not set`}},
		{"env empty", "[[networks]]\nprefix-env = \"EMPTY\"\n",
			[]string{`n.toml:5: prefix-env: environment variable EMPTY is empty`}},
		{"env host bits", "[[networks]]\nprefix-env = \"HOSTBITS\"\n",
			[]string{`n.toml:5: prefix-env: environment variable HOSTBITS: "10.244.3.1/24" has host bits set: write 10.244.3.0/24`}},
		{"env not a prefix", "[[networks]]\nprefix-env = \"NOTAPREFIX\"\n",
			[]string{`n.toml:5: prefix-env: environment variable NOTAPREFIX: "10.244.3.0" is not a prefix`}},
		{"community", "[[networks]]\nprefix = \"198.51.100.0/24\"\ncommunities = [\"1:1\",\n \"65536:1\", \"no-such\", 7]\n",
			[]string{`n.toml:7: communities: "65536:1" is not a community`, `n.toml:7: communities: "no-such" is not a community`, `n.toml:7: communities[3]: expected string, got integer`}},
		{"large community", "[[networks]]\nprefix = \"198.51.100.0/24\"\nlarge-communities = [\"1:2\", \"1:2:4294967296\", \"+1:2:3\"]\n",
			[]string{`n.toml:6: large-communities: "1:2" is not a large community`, `"1:2:4294967296" is not a large community`, `"+1:2:3" is not a large community`}},
		{"vrf without peers", "[[networks]]\nprefix = \"198.51.100.0/24\"\nvrf = \"red\"\n",
			[]string{`n.toml:6: vrf: no [[peers]] entry is in VRF red: a network is announced to the peers of its VRF`}},
		{"vrf default", "[[networks]]\nprefix = \"198.51.100.0/24\"\nvrf = \"default\"\n",
			[]string{`n.toml:6: vrf: "default": leave vrf unset`}},
		{"vrf empty", "[[networks]]\nprefix = \"198.51.100.0/24\"\nvrf = \"\"\n",
			[]string{`n.toml:6: vrf: "" is not a VRF device name`}},
		{"vrf bad name", "[[networks]]\nprefix = \"198.51.100.0/24\"\nvrf = \"a/b\"\n",
			[]string{`n.toml:6: vrf: "a/b" is not a VRF device name`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseEnv(t, G+tc.toml, env)
			if err == nil {
				t.Fatalf("no error: %+v", c.Networks)
			}
			got := errStrings(err)
			if len(got) != len(tc.want) {
				t.Errorf("got %d errors, want %d: %q", len(got), len(tc.want), got)
			}
			for _, w := range tc.want {
				found := false
				for _, g := range got {
					found = found || strings.Contains(g, w)
				}
				if !found {
					t.Errorf("no error contains %q; got %q", w, got)
				}
			}
		})
	}
	if _, err := parseEnv(t, "networks = \"198.51.100.0/24\"\n"+G, nil); err == nil || !strings.Contains(err.Error(), "n.toml:1: networks: expected array of tables ([[networks]])") {
		t.Errorf("not an array: %v", err)
	}
	// The same prefix in two VRFs is two networks.
	if _, err := parseEnv(t, G+peerBlue+"[[networks]]\nprefix = \"198.51.100.0/24\"\n[[networks]]\nprefix = \"198.51.100.0/24\"\nvrf = \"blue\"\n", nil); err != nil {
		t.Errorf("one prefix in two VRFs: %v", err)
	}
}

func TestNetworksDiff(t *testing.T) {
	a, err := parseEnv(t, G+`
[[networks]]
prefix = "198.51.100.0/24"
[[networks]]
prefix = "203.0.113.0/24"
communities = ["1:1"]
[[networks]]
prefix = "2001:db8::/32"
`, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := parseEnv(t, G+`
[[networks]]
prefix = "203.0.113.0/24"
communities = ["1:2"]
[[networks]]
prefix = "2001:db8::/32"
[[networks]]
prefix = "192.0.2.0/24"
`, nil)
	if err != nil {
		t.Fatal(err)
	}
	ch := Diff(a, b)
	if !slices.Equal(ch.NetworksAdded, []string{"192.0.2.0/24"}) || !slices.Equal(ch.NetworksRemoved, []string{"198.51.100.0/24"}) ||
		!slices.Equal(ch.NetworksChanged, []string{"203.0.113.0/24"}) || ch.Empty() {
		t.Errorf("diff: %+v", ch)
	}
	p := NewPreview(a, b)
	want := []string{"network 192.0.2.0/24 announced (no session reset)", "network 198.51.100.0/24 withdrawn (no session reset)",
		"network 203.0.113.0/24 announced again with its new communities (no session reset)"}
	if !slices.Equal(p.Other, want) || len(p.Changed)+len(p.Added)+len(p.Removed)+len(p.Refused) != 0 {
		t.Errorf("preview: %+v", p)
	}
	if ch := Diff(b, b); !ch.Empty() {
		t.Errorf("same config: %+v", ch)
	}
}
