package peerindex

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/authbgp/authbgpd/config"
)

// vrfConfig is config's TestVRFs config: ranges and statics in two VRFs,
// an interface peer, and a default-VRF range.
func vrfConfig(t testing.TB) *config.Config {
	t.Helper()
	// config's VRF scene, and ranges and a link-local address of the
	// default VRF.
	scene, err := os.ReadFile(filepath.Join("..", "config", "testdata", "vrf.toml"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := config.Parse("r1.toml", []byte(string(scene)+`

[[peers]]
prefix = "2001:db8:1::/48"
asn = 65017

[[peers]]
prefix = "2001:db8:1:2::/64"
asn = 65018

[[peers]]
address = "fe80::9"
asn = 65019
`))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestOwnerRules is the one owner rule's table: every edge the four
// implementations it replaced disagreed on.
func TestOwnerRules(t *testing.T) {
	x := New(vrfConfig(t))
	id := func(p *Peer) string {
		if p == nil {
			return ""
		}
		return p.ID
	}
	for _, tc := range []struct {
		addr, vrf string
		anyVRF    bool
		want      string
	}{
		// In a VRF (OwnerIn): the rule holds per VRF.
		{"10.0.1.5", "blue", false, "blue/10.0.1.5"},        // static beats both ranges
		{"10.0.1.6", "blue", false, "blue/10.0.1.0/24"},     // most specific range
		{"10.0.9.9", "blue", false, "blue/10.0.0.0/16"},     // the wider one
		{"10.0.2.5", "blue", false, "blue/10.0.0.0/16"},     // red's static peer is not blue's
		{"10.0.2.5", "red", false, "red/10.0.2.5"},          // ... it is red's
		{"10.0.2.6", "red", false, ""},                      // blue's ranges do not cover red
		{"10.0.3.1", "", false, "10.0.3.0/24"},              // default VRF
		{"10.0.3.1", "blue", false, "blue/10.0.0.0/16"},     // blue's, not the default VRF's
		{"::ffff:10.0.1.5", "blue", false, "blue/10.0.1.5"}, // mapped addresses unmapped
		{"fe80::2%eth1", "red", false, "eth1"},              // the interface decides
		{"fe80::2%eth1", "", false, "eth1"},                 // ... whatever VRF is asked
		{"fe80::2%eth2", "red", false, ""},
		{"fe80::9%eth2", "", false, "fe80::9"},
		{"2001:db8::5%eth1", "red", false, "red/2001:db8::5"}, // not link-local: the zone is dropped
		// Any VRF (Owner): the address alone, as GoBGP matches it.
		{"10.0.2.5", "", true, "red/10.0.2.5"},
		{"10.0.2.6", "", true, "blue/10.0.0.0/16"},
		{"10.0.1.5", "", true, "blue/10.0.1.5"},
		{"::ffff:10.0.1.7", "", true, "blue/10.0.1.0/24"},
		{"::ffff:10.0.3.1", "", true, "10.0.3.0/24"},
		{"2001:db8:1:2::1", "", true, "2001:db8:1:2::/64"},
		{"2001:db8:1:3::1", "", true, "2001:db8:1::/48"},
		{"2001:db8:1:3::1%eth1", "", true, "2001:db8:1::/48"},
		{"fe80::2%eth1", "", true, "eth1"},
		{"fe80::9%eth1", "", true, "eth1"},    // the interface, not the static link-local peer
		{"fe80::9%eth2", "", true, "fe80::9"}, // a link no interface peer claims: the address decides
		{"fe80::2%eth2", "", true, ""},
		{"fe80::9", "", true, "fe80::9"}, // no zone: the address decides
		{"fe80::2", "", true, ""},
		{"192.0.2.99", "", true, ""},
		{"", "", true, ""},
	} {
		var a netip.Addr
		if tc.addr != "" {
			a = netip.MustParseAddr(tc.addr)
		}
		got := id(x.OwnerIn(a, tc.vrf))
		if tc.anyVRF {
			got = id(x.Owner(a))
		}
		if got != tc.want {
			t.Errorf("owner of %s (vrf %q, any %v) = %q, want %q", tc.addr, tc.vrf, tc.anyVRF, got, tc.want)
		}
	}
	if p := x.InterfacePeer("eth1"); p == nil || p.ID != "eth1" || x.InterfacePeer("eth2") != nil {
		t.Errorf("InterfacePeer: %v", p)
	}
	if p := x.Peer("blue/10.0.1.0/24"); p == nil || !p.IsDynamic() || x.Peer("10.0.1.0/24") != nil {
		t.Errorf("Peer: %v", p)
	}
}

// TestOwnersOrder: equally specific ranges go to the first given; a
// duplicate address or interface (refused by config) to the first too;
// host bits and IPv4-mapped ranges count as what they mean.
func TestOwnersOrder(t *testing.T) {
	o := NewOwners([]Scope{
		{Prefix: netip.MustParsePrefix("10.0.0.0/8")},
		{Prefix: netip.MustParsePrefix("10.1.0.0/16")},
		{Prefix: netip.MustParsePrefix("10.1.0.0/16")},
		{Prefix: netip.MustParsePrefix("192.0.2.1/32")},
		{Prefix: netip.MustParsePrefix("192.0.2.1/32")},
		{Interface: "eth0"},
		{Interface: "eth0"},
		{Prefix: netip.MustParsePrefix("10.2.3.4/16")},             // host bits
		{Prefix: netip.MustParsePrefix("::ffff:198.51.100.0/120")}, // mapped
		{},
	})
	for a, want := range map[string]int{
		"10.1.2.3": 1, "10.9.9.9": 0, "192.0.2.1": 3, "fe80::1%eth0": 5, "10.2.9.9": 7,
		"198.51.100.7": 8, "::ffff:198.51.100.7": 8, "203.0.113.1": -1,
	} {
		if got := o.Lookup(netip.MustParseAddr(a)); got != want {
			t.Errorf("Lookup(%s) = %d, want %d", a, got, want)
		}
	}
}

// TestOwnersTwoVRFs: one address (or range) in two VRFs is each VRF's own
// in that VRF (LookupIn); asked whatever the VRF (Lookup: the capture, the
// kernel's drop counters) it is no one's, as neither VRF's peer can be
// told from the address alone.
func TestOwnersTwoVRFs(t *testing.T) {
	o := NewOwners([]Scope{
		{Prefix: netip.MustParsePrefix("192.0.2.2/32"), VRF: "blue"},
		{Prefix: netip.MustParsePrefix("192.0.2.2/32"), VRF: "red"},
		{Prefix: netip.MustParsePrefix("198.51.100.0/24"), Range: true, VRF: "blue"},
		{Prefix: netip.MustParsePrefix("198.51.100.0/24"), Range: true, VRF: "red"},
		{Prefix: netip.MustParsePrefix("203.0.113.7/32"), VRF: "blue"},
		{Prefix: netip.MustParsePrefix("203.0.113.7/32"), VRF: "blue"}, // a duplicate (refused by config): the first
	})
	for _, tc := range []struct {
		addr, vrf string
		any       bool
		want      int
	}{
		{"192.0.2.2", "blue", false, 0},
		{"192.0.2.2", "red", false, 1},
		{"::ffff:192.0.2.2", "red", false, 1},
		{"192.0.2.2", "", false, -1},
		{"192.0.2.2", "", true, -1},
		{"198.51.100.9", "blue", false, 2},
		{"198.51.100.9", "red", false, 3},
		{"198.51.100.9", "", true, -1},
		{"203.0.113.7", "", true, 4},
		{"203.0.113.7", "blue", false, 4},
	} {
		a := netip.MustParseAddr(tc.addr)
		got := o.LookupIn(a, tc.vrf)
		if tc.any {
			got = o.Lookup(a)
		}
		if got != tc.want {
			t.Errorf("owner of %s (vrf %q, any %v) = %d, want %d", tc.addr, tc.vrf, tc.any, got, tc.want)
		}
	}
}

// TestOwnerAllocs: the shadow checker looks up both ends of every segment.
func TestOwnerAllocs(t *testing.T) {
	x := New(vrfConfig(t))
	addrs := []netip.Addr{
		netip.MustParseAddr("10.0.1.5"), netip.MustParseAddr("10.0.9.9"), netip.MustParseAddr("fe80::2%eth1"),
		netip.MustParseAddr("fe80::2%eth2"), netip.MustParseAddr("2001:db8:1:3::1%eth1"), netip.MustParseAddr("::ffff:10.0.1.7"),
		netip.MustParseAddr("192.0.2.99"),
	}
	if n := testing.AllocsPerRun(100, func() {
		for _, a := range addrs {
			_ = x.Owner(a)
			_ = x.OwnerIn(a, "blue")
		}
	}); n != 0 {
		t.Errorf("%v allocations per lookup round", n)
	}
}

func BenchmarkOwner(b *testing.B) {
	x := New(vrfConfig(b))
	a := netip.MustParseAddr("10.0.9.9")
	b.ReportAllocs()
	for b.Loop() {
		_ = x.Owner(a)
	}
}

// The four implementations the index replaced, as they were, to check
// that the one rule agrees with each where their rules agreed.

// oldConfigOwner is config.(*Config).Owner.
func oldConfigOwner(c *config.Config, a netip.Addr, vrf string) *config.Peer {
	if z := a.Zone(); z != "" && a.Is6() && a.IsLinkLocalUnicast() {
		for i := range c.Peers {
			if p := &c.Peers[i]; p.IsInterface() && p.Interface == z {
				return p
			}
		}
		return nil
	}
	a = a.WithZone("").Unmap()
	var best *config.Peer
	for i := range c.Peers {
		p := &c.Peers[i]
		switch {
		case p.VRF != vrf || p.IsInterface():
		case !p.IsDynamic():
			if p.Address == a {
				return p
			}
		case p.Prefix.Contains(a) && (best == nil || p.Prefix.Bits() > best.Prefix.Bits()):
			best = p
		}
	}
	return best
}

// oldPeersOwner is peers' indexOwners(cfg).of(a).
func oldPeersOwner(c *config.Config, a netip.Addr) string {
	if a.Is6() && a.IsLinkLocalUnicast() && a.Zone() != "" {
		for i := range c.Peers {
			if p := &c.Peers[i]; p.IsInterface() && p.Interface == a.Zone() {
				return p.ID()
			}
		}
		return ""
	}
	static := map[netip.Addr]string{}
	var ranges []*config.Peer
	for i := range c.Peers {
		p := &c.Peers[i]
		switch {
		case p.IsInterface():
		case p.IsDynamic():
			ranges = append(ranges, p)
		default:
			if _, dup := static[p.Address]; !dup {
				static[p.Address] = p.ID()
			}
		}
	}
	slices.SortStableFunc(ranges, func(x, y *config.Peer) int { return y.Prefix.Bits() - x.Prefix.Bits() })
	if id, ok := static[a]; ok {
		return id
	}
	for _, p := range ranges {
		if p.Prefix.Contains(a) {
			return p.ID()
		}
	}
	return ""
}

// oldDropwatchOwner is dropwatch's newView(cfg).attribute(a).
func oldDropwatchOwner(c *config.Config, addr netip.Addr) string {
	static, ids, ifaces := map[netip.Addr]string{}, map[netip.Prefix]string{}, map[string]string{}
	var ranges []netip.Prefix
	for i := range c.Peers {
		p := &c.Peers[i]
		switch {
		case p.IsDynamic():
			pfx := p.Prefix.Masked()
			if pfx.Addr().Is4In6() {
				pfx = netip.PrefixFrom(pfx.Addr().Unmap(), pfx.Bits()-96)
			}
			ranges = append(ranges, pfx)
			ids[pfx] = p.ID()
		case p.IsInterface():
			ifaces[p.Interface] = p.ID()
		case p.Address.IsValid():
			static[p.Address.Unmap().WithZone("")] = p.ID()
		}
	}
	slices.SortStableFunc(ranges, func(a, b netip.Prefix) int { return b.Bits() - a.Bits() })
	if !addr.IsValid() {
		return ""
	}
	if addr.Is6() && addr.IsLinkLocalUnicast() {
		if z := addr.Zone(); z != "" {
			return ifaces[z]
		}
		return ""
	}
	addr = addr.WithZone("")
	if id, ok := static[addr]; ok {
		return id
	}
	for _, p := range ranges {
		if p.Contains(addr) {
			return ids[p]
		}
	}
	return ""
}

// oldShadowOwner is the shadow Checker's lookup over PeersOf(cfg).
func oldShadowOwner(c *config.Config, a netip.Addr) string {
	exact, ifaces := map[netip.Addr]string{}, map[string]string{}
	var ranges []*config.Peer
	for i := range c.Peers {
		p := &c.Peers[i]
		switch {
		case p.IsInterface():
			ifaces[p.Interface] = p.ID()
		case p.IsDynamic():
			ranges = append(ranges, p)
		default:
			exact[p.Address] = p.ID()
		}
	}
	slices.SortStableFunc(ranges, func(x, y *config.Peer) int { return y.Prefix.Bits() - x.Prefix.Bits() })
	if z := a.Zone(); z != "" {
		if id, ok := ifaces[z]; ok && a.IsLinkLocalUnicast() {
			return id
		}
		a = a.WithZone("")
	}
	if id, ok := exact[a]; ok {
		return id
	}
	for _, p := range ranges {
		if p.Prefix.Contains(a) {
			return p.ID()
		}
	}
	return ""
}

// randomConfig is a config of unique addresses, ranges and interfaces
// (as validation demands) in up to three VRFs, overlapping a lot.
func randomConfig(r *rand.Rand) *config.Config {
	c := &config.Config{}
	seen := map[string]bool{}
	vrfs := []string{"", "", "blue", "red"}
	for range 1 + r.IntN(12) {
		var p config.Peer
		switch r.IntN(5) {
		case 0:
			p.Interface = fmt.Sprintf("eth%d", r.IntN(3))
		case 1:
			p.Address = netip.AddrFrom4([4]byte{10, 0, byte(r.IntN(3)), byte(r.IntN(8))})
		case 2:
			p.Address = netip.AddrFrom16([16]byte{0: 0xfe, 1: 0x80, 15: byte(r.IntN(4))})
		case 3:
			bits := 8 + r.IntN(25)
			p.Prefix, _ = netip.AddrFrom4([4]byte{10, 0, byte(r.IntN(3)), byte(r.IntN(8))}).Prefix(bits)
		default:
			bits := 10 + r.IntN(119)
			p.Prefix, _ = netip.AddrFrom16([16]byte{0: 0xfe, 1: 0x80, 15: byte(r.IntN(4))}).Prefix(bits)
		}
		if seen[p.ID()] {
			continue
		}
		seen[p.ID()] = true
		p.VRF = vrfs[r.IntN(len(vrfs))]
		c.Peers = append(c.Peers, p)
	}
	return c
}

// randomAddr is an address near the random configs' peers, sometimes
// zoned, sometimes IPv4-mapped.
func randomAddr(r *rand.Rand) netip.Addr {
	var a netip.Addr
	if r.IntN(2) == 0 {
		a = netip.AddrFrom4([4]byte{10, 0, byte(r.IntN(3)), byte(r.IntN(8))})
		if r.IntN(4) == 0 {
			a = netip.AddrFrom16(a.As16())
		}
	} else {
		a = netip.AddrFrom16([16]byte{0: 0xfe, 1: 0x80, 15: byte(r.IntN(4))})
	}
	if a.Is6() && r.IntN(2) == 0 {
		a = a.WithZone(fmt.Sprintf("eth%d", r.IntN(3)))
	}
	return a
}

// TestOwnerAgreesWithOldRules: on random configs the one rule gives what
// each replaced implementation gave, wherever that implementation's own
// rule agreed with it. The differences, by design:
//   - peers, the shadow and dropwatch did not unmap an IPv4-mapped address
//     (dropwatch unmapped the config's);
//   - peers did not drop a zone from an address that is not link-local;
//   - peers, dropwatch and config.Owner gave a zoned link-local address of
//     a link without an interface peer to no peer, the shadow to the
//     numbered peer or range of the address (as the kernel's keys do, and
//     the one rule does);
//   - dropwatch gave a link-local address without a zone to no peer (it
//     keeps that rule itself: its zone may be unknown);
//   - config.Owner was the only one told the VRF (OwnerIn is it).
func TestOwnerAgreesWithOldRules(t *testing.T) {
	r := rand.New(rand.NewPCG(42, 7))
	id := func(p *Peer) string {
		if p == nil {
			return ""
		}
		return p.ID
	}
	for n := range 3000 {
		c := randomConfig(r)
		x := New(c)
		for range 16 {
			a := randomAddr(r)
			got := id(x.Owner(a))
			ll, zoned, mapped := a.Is6() && a.IsLinkLocalUnicast(), a.Zone() != "", a.Is4In6()
			noIface := ll && zoned && x.InterfacePeer(a.Zone()) == nil
			if !mapped && (!zoned || ll) && !noIface {
				if want := oldPeersOwner(c, a); got != want {
					t.Fatalf("case %d: peers' owner of %s = %q, index %q\n%s", n, a, want, got, peersText(c))
				}
			}
			if !mapped && !(ll && !zoned) && !noIface {
				if want := oldDropwatchOwner(c, a); got != want {
					t.Fatalf("case %d: dropwatch's owner of %s = %q, index %q\n%s", n, a, want, got, peersText(c))
				}
			}
			if !mapped {
				if want := oldShadowOwner(c, a); got != want {
					t.Fatalf("case %d: shadow's owner of %s = %q, index %q\n%s", n, a, want, got, peersText(c))
				}
			}
			for _, vrf := range []string{"", "blue", "red"} {
				if noIface {
					break
				}
				want := ""
				if p := oldConfigOwner(c, a, vrf); p != nil {
					want = p.ID()
				}
				if got := id(x.OwnerIn(a, vrf)); got != want {
					t.Fatalf("case %d: config.Owner(%s, %q) = %q, index %q\n%s", n, a, vrf, want, got, peersText(c))
				}
			}
		}
	}
}

func peersText(c *config.Config) string {
	var b []byte
	for i := range c.Peers {
		b = fmt.Appendf(b, "%s(%q) ", c.Peers[i].ID(), c.Peers[i].VRF)
	}
	return string(b)
}
