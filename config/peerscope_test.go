package config

import (
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestInterfaceVRFErrors: every refusal of an interface peer, a vrf and
// a conflict between peers, exactly, at its FILE:LINE, naming both
// entries' lines where two entries conflict. G is lines 1-3 and a blank
// line 4, so the first [[peers]] is at line 5.
func TestInterfaceVRFErrors(t *testing.T) {
	const two = "peers are named by their address alone (in /status, metrics and the shadow's verdicts), so one address cannot be a peer in two VRFs; give each VRF's peer its own address"
	const twoRanges = "peers are named by their address alone (in /status, metrics and the shadow's verdicts), so one range cannot accept peers in two VRFs; give each VRF's range its own addresses"
	const rule = `1..15 bytes, no '/', ':' or whitespace, not "." or ".."`
	cases := []struct {
		name string
		toml string
		want []string // every error, in order
	}{
		{"address and interface", `
[[peers]]
address = "192.0.2.2"
interface = "eth1"
asn = 65002
`, []string{`r1.toml:7: interface: set one of address, prefix and interface, not more (address is at line 6)`}},
		{"interface and prefix", `
[[peers]]
interface = "eth1"
prefix = "192.0.2.0/24"
asn = 65002
`, []string{`r1.toml:7: prefix: set one of address, prefix and interface, not more (interface is at line 6)`}},
		{"all three", `
[[peers]]
prefix = "192.0.2.0/24"
address = "192.0.2.2"
interface = "eth1"
asn = 65002
`, []string{
			`r1.toml:7: address: set one of address, prefix and interface, not more (prefix is at line 6)`,
			`r1.toml:8: interface: set one of address, prefix and interface, not more (prefix is at line 6)`,
		}},
		{"none", `
[[peers]]
asn = 65002
vrf = "blue"
`, []string{`r1.toml:5: [[peers]]: address, prefix or interface is missing (exactly one is required)`}},
		{"interface empty", "\n[[peers]]\ninterface = \"\"\nasn = 65002\n",
			[]string{`r1.toml:6: interface: "" is not an interface name (` + rule + `)`}},
		{"interface too long", "\n[[peers]]\ninterface = \"abcdefghijklmnop\"\nasn = 65002\n",
			[]string{`r1.toml:6: interface: "abcdefghijklmnop" is not an interface name (` + rule + `)`}},
		{"interface slash", "\n[[peers]]\ninterface = \"eth/1\"\nasn = 65002\n",
			[]string{`r1.toml:6: interface: "eth/1" is not an interface name (` + rule + `)`}},
		{"interface space", "\n[[peers]]\ninterface = \"eth 1\"\nasn = 65002\n",
			[]string{`r1.toml:6: interface: "eth 1" is not an interface name (` + rule + `)`}},
		{"interface tab", "\n[[peers]]\ninterface = \"eth\\t1\"\nasn = 65002\n",
			[]string{`r1.toml:6: interface: "eth\t1" is not an interface name (` + rule + `)`}},
		{"interface colon", "\n[[peers]]\ninterface = \"eth1:0\"\nasn = 65002\n",
			[]string{`r1.toml:6: interface: "eth1:0" is not an interface name (` + rule + `)`}},
		{"interface dot", "\n[[peers]]\ninterface = \".\"\nasn = 65002\n",
			[]string{`r1.toml:6: interface: "." is not an interface name (` + rule + `)`}},
		{"interface dotdot", "\n[[peers]]\ninterface = \"..\"\nasn = 65002\n",
			[]string{`r1.toml:6: interface: ".." is not an interface name (` + rule + `)`}},
		{"interface like an address", "\n[[peers]]\ninterface = \"10.0.0.1\"\nasn = 65002\n",
			[]string{`r1.toml:6: interface: "10.0.0.1" is an IP address, not an interface name (for a numbered peer, set address = "10.0.0.1")`}},
		{"interface wrong type", "\n[[peers]]\ninterface = 1\nasn = 65002\n",
			[]string{`r1.toml:6: interface: expected string, got integer`}},
		{"vrf bad name", "\n[[peers]]\naddress = \"192.0.2.2\"\nvrf = \"blue/red\"\nasn = 65002\n",
			[]string{`r1.toml:7: vrf: "blue/red" is not a VRF device name (` + rule + `); leave vrf unset for the default VRF`}},
		{"vrf empty", "\n[[peers]]\naddress = \"192.0.2.2\"\nvrf = \"\"\nasn = 65002\n",
			[]string{`r1.toml:7: vrf: "" is not a VRF device name (` + rule + `); leave vrf unset for the default VRF`}},
		{"vrf too long", "\n[[peers]]\nprefix = \"192.0.2.0/24\"\nvrf = \"tenant-0123456789\"\nasn = 65002\n",
			[]string{`r1.toml:7: vrf: "tenant-0123456789" is not a VRF device name (` + rule + `); leave vrf unset for the default VRF`}},
		{"vrf default", "\n[[peers]]\ninterface = \"eth1\"\nvrf = \"default\"\nasn = 65002\n",
			[]string{`r1.toml:7: vrf: "default": leave vrf unset for the default VRF (a VRF device cannot be called default)`}},
		{"vrf an address", "\n[[peers]]\naddress = \"192.0.2.2\"\nvrf = \"10.0.0.1\"\nasn = 65002\n",
			[]string{`r1.toml:7: vrf: "10.0.0.1" is an IP address, not a VRF device name (a VRF peer's ID, 10.0.0.1/ADDRESS, must not read as a default-VRF prefix)`}},
		{"vrf wrong type", "\n[[peers]]\naddress = \"192.0.2.2\"\nvrf = true\nasn = 65002\n",
			[]string{`r1.toml:7: vrf: expected string, got boolean`}},
		{"interface local-address ipv4", "\n[[peers]]\ninterface = \"eth1\"\nasn = 65002\nlocal-address = \"192.0.2.1\"\n",
			[]string{`r1.toml:8: local-address: 192.0.2.1: an interface peer's session runs from eth1's own link-local address (the kernel picks it, and it is the next hop we announce); remove local-address`}},
		{"interface local-address global ipv6", "\n[[peers]]\ninterface = \"eth1\"\nasn = 65002\nlocal-address = \"2001:db8::1\"\n",
			[]string{`r1.toml:8: local-address: 2001:db8::1: an interface peer's session runs from eth1's own link-local address (the kernel picks it, and it is the next hop we announce); remove local-address`}},
		{"interface local-address zone", "\n[[peers]]\ninterface = \"eth1\"\nasn = 65002\nlocal-address = \"fe80::1%eth1\"\n",
			[]string{`r1.toml:8: local-address: fe80::1%eth1: an interface peer's session runs from eth1's own link-local address (the kernel picks it, and it is the next hop we announce); remove local-address`}},
		{"interface multihop", "\n[[peers]]\ninterface = \"eth1\"\nasn = 65002\nmultihop-ttl = 2\n",
			[]string{`r1.toml:8: multihop-ttl: 2: an interface peer is directly connected (its IPv6 link-local address is one hop away); remove multihop-ttl`}},
		{"address with zone", "\n[[peers]]\naddress = \"fe80::2%eth1\"\nasn = 65002\n",
			[]string{`r1.toml:6: address: fe80::2%eth1: zones are not supported (for a peer on a link, set interface = "eth1" instead)`}},
		{"same interface twice", `
[[peers]]
interface = "eth1"
asn = 65002

[[peers]]
interface = "eth1"
asn = 65003
`, []string{`r1.toml:10: interface: duplicate peer eth1 (also at line 6)`}},
		{"same interface in two VRFs", `
[[peers]]
interface = "eth1"
vrf = "blue"
asn = 65002

[[peers]]
interface = "eth1"
vrf = "red"
asn = 65003
`, []string{`r1.toml:11: interface: duplicate peer eth1 (also at line 6, in VRF blue; an interface is in one VRF at most)`}},
		{"same address twice in one VRF", `
[[peers]]
address = "192.0.2.2"
vrf = "blue"
asn = 65002

[[peers]]
vrf = "blue"
address = "192.0.2.2"
asn = 65003
`, []string{`r1.toml:12: address: duplicate peer 192.0.2.2 in VRF blue (also at line 6)`}},
		{"same range twice in one VRF", `
[[peers]]
prefix = "198.51.100.0/24"
vrf = "blue"
asn = 65002

[[peers]]
prefix = "198.51.100.0/24"
vrf = "blue"
asn = 65003
`, []string{`r1.toml:11: prefix: duplicate peer 198.51.100.0/24 in VRF blue (also at line 6)`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseTest(t, "r1.toml", G+tc.toml)
			if err == nil {
				t.Fatalf("no error; peers %+v", c.Peers)
			}
			if got := errStrings(err); !slices.Equal(got, tc.want) {
				t.Errorf("got:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

// TestInterfacePeer: an interface peer decodes with its interface as ID,
// the families GoBGP's neighbor-interface negotiates by default, and a
// keys, keychains and VRFs work with it.
func TestInterfacePeer(t *testing.T) {
	c := mustParse(t, G+`
[[keychains]]
name = "fabric"
type = "tcp-ao"
  [[keychains.keys]]
  id = 1
  secret = "ao-1"

[[peers]]
interface = "swp1"
asn = 65101
password = "md5-1"

[[peers]]
interface = "swp2.100"
vrf = "blue"
asn = 65102
keychain = "fabric"
families = ["ipv6-unicast"]
passive = true

[[peers]]
address = "192.0.2.2"
vrf = "blue"
asn = 65002

[[peers]]
prefix = "198.51.100.0/24"
vrf = "red"
asn = 65003
`)
	type want struct {
		id, iface, vrf string
		isIface        bool
		families       []Family
		mode           string
	}
	wants := []want{
		{"swp1", "swp1", "", true, []Family{IPv4Unicast, IPv6Unicast}, AuthMD5},
		{"swp2.100", "swp2.100", "blue", true, []Family{IPv6Unicast}, AuthTCPAO},
		{"blue/192.0.2.2", "", "blue", false, []Family{IPv4Unicast}, AuthNone},
		{"red/198.51.100.0/24", "", "red", false, []Family{IPv4Unicast}, AuthNone},
	}
	if len(c.Peers) != len(wants) {
		t.Fatalf("%d peers", len(c.Peers))
	}
	for i, w := range wants {
		p := &c.Peers[i]
		if p.ID() != w.id || p.Interface != w.iface || p.VRF != w.vrf || p.IsInterface() != w.isIface ||
			!slices.Equal(p.Families, w.families) || p.Auth().Mode != w.mode {
			t.Errorf("peer %d: id %q interface %q vrf %q interface peer %v families %v auth %s; want %+v",
				i, p.ID(), p.Interface, p.VRF, p.IsInterface(), p.Families, p.Auth().Mode, w)
		}
		if c.Peer(w.id) != p {
			t.Errorf("Peer(%q) is not peer %d", w.id, i)
		}
	}
	if c.Peers[0].LocalAddress.IsValid() || c.Peers[0].Line != 12 || c.Peers[0].LineOf("interface") != 13 {
		t.Errorf("peer 0: local-address %v line %d interface line %d", c.Peers[0].LocalAddress, c.Peers[0].Line, c.Peers[0].LineOf("interface"))
	}
	if c.Peers[1].IsDynamic() || !c.Peers[1].Passive {
		t.Errorf("peer 1: dynamic %v passive %v", c.Peers[1].IsDynamic(), c.Peers[1].Passive)
	}
	if len(c.Warnings) != 2 || !strings.Contains(c.Warnings[1].String(), "r1.toml:15: password: inline") {
		t.Errorf("warnings: %v", c.Warnings)
	}
}

// TestInterfacePeerInCode: a Peer built in code with Interface validates
// as a parsed one does (lines 0).
func TestInterfacePeerInCode(t *testing.T) {
	c := &Config{Global: Global{ASN: 1, RouterID: netip.MustParseAddr("192.0.2.1"), ListenPort: -1}, API: API{}, Log: Log{Level: "info", Format: "text"}}
	c.Peers = []Peer{{Interface: "eth1", VRF: "blue", ASN: 2, Families: []Family{IPv6Unicast}}}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	c.Peers = append(c.Peers, Peer{Interface: "eth1", ASN: 3, Families: []Family{IPv6Unicast}, MultihopTTL: 3})
	want := []string{
		"interface: duplicate peer eth1 (also at line 0, in VRF blue; an interface is in one VRF at most)",
		"multihop-ttl: 3: an interface peer is directly connected (its IPv6 link-local address is one hop away); remove multihop-ttl",
	}
	if got := errStrings(c.Validate()); !slices.Equal(got, want) {
		t.Errorf("got %q", got)
	}
}

// TestVRFs: the VRF scene loads without a warning: a static peer inside
// another VRF's range, or a range inside another VRF's, is that VRF's
// alone (each VRF its own GoBGP instance, its listeners bound to the VRF
// device; the most-specific-match rule holds per VRF: peerindex's
// TestOwnerRules).
func TestVRFs(t *testing.T) {
	c := mustParse(t, vrfScene(t))
	if len(c.Warnings) != 0 {
		t.Errorf("warnings: %v", c.Warnings)
	}
}

// TestSameAddressTwoVRFs: one address (or range) may be a peer in two
// VRFs, each its own peer with its own key, named by its ID ("VRF/ADDRESS";
// the default VRF's peer by its address alone); twice in one VRF it is
// still a duplicate.
func TestSameAddressTwoVRFs(t *testing.T) {
	c := mustParse(t, G+`
[[peers]]
address = "192.0.2.2"
vrf = "blue"
asn = 65002
password = "blue-key"

[[peers]]
address = "192.0.2.2"
vrf = "red"
asn = 65003
password = "red-key"

[[peers]]
address = "192.0.2.2"
asn = 65004

[[peers]]
prefix = "198.51.100.0/24"
vrf = "blue"
asn = 65005

[[peers]]
prefix = "198.51.100.0/24"
asn = 65006
`)
	for _, w := range []struct{ id, vrf, name string }{
		{"blue/192.0.2.2", "blue", "192.0.2.2"}, {"red/192.0.2.2", "red", "192.0.2.2"}, {"192.0.2.2", "", "192.0.2.2"},
		{"blue/198.51.100.0/24", "blue", "198.51.100.0/24"}, {"198.51.100.0/24", "", "198.51.100.0/24"},
	} {
		p := c.Peer(w.id)
		if p == nil || p.VRF != w.vrf {
			t.Fatalf("Peer(%q) = %+v", w.id, p)
		}
		if v, n := SplitScopedID(w.id); v != w.vrf || n != w.name {
			t.Errorf("SplitScopedID(%q) = %q, %q", w.id, v, n)
		}
	}
	if c.Peer("red/192.0.2.2").Password.Equal(c.Peer("blue/192.0.2.2").Password) {
		t.Error("one key for both VRFs' peers")
	}
	if len(c.Warnings) != 2 { // the inline passwords
		t.Errorf("warnings: %v", c.Warnings)
	}
}

// TestValidIfName: Linux's dev_valid_name.
func TestValidIfName(t *testing.T) {
	for n, ok := range map[string]bool{
		"eth0": true, "swp1.100": true, "vrf-blue": true, "a": true, "123456789012345": true, "..a": true,
		"": false, ".": false, "..": false, "1234567890123456": false, "a/b": false, "a:b": false,
		"a b": false, "a\tb": false, "a\nb": false, "a\rb": false, "a\vb": false, "a\fb": false, "a\x00b": false,
	} {
		if validIfName(n) != ok {
			t.Errorf("validIfName(%q) = %v", n, !ok)
		}
	}
}

// vrfScene is the VRF scene (testdata/vrf.toml).
func vrfScene(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "vrf.toml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
