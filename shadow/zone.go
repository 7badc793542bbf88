package shadow

import (
	"net/netip"
	"time"
)

// Interfaces on the per-segment path. An unnumbered peer is known by its
// interface, not its address (fe80::2 on eth1 and fe80::2 on eth2 are two
// peers), so the capture's readers give a link-local address the interface
// it was seen on as its IPv6 zone before the checker sees it (see
// Checker.Check). netip.Addr.WithZone interns the zone (a few hundred ns),
// so a zoner keeps the last zoned addresses: a session's segments hit.

// IsLinkLocal reports an IPv6 link-local unicast address: the addresses
// that are zoned with their interface.
func IsLinkLocal(a netip.Addr) bool { return a.Is6() && a.IsLinkLocalUnicast() }

// zoneEntry is one cached zoned address.
type zoneEntry struct {
	name        string
	addr, zoned netip.Addr
}

// zoner zones link-local addresses with interface names, caching the last
// few. The zero value is ready; it is not safe for concurrent use.
type zoner struct {
	last [4]zoneEntry
	next int
}

// zone returns a with zone name (a unchanged if name is "").
func (z *zoner) zone(a netip.Addr, name string) netip.Addr {
	if name == "" {
		return a
	}
	for i := range z.last {
		if e := &z.last[i]; e.addr == a && e.name == name {
			return e.zoned
		}
	}
	e := &z.last[z.next]
	z.next = (z.next + 1) % len(z.last)
	*e = zoneEntry{name: name, addr: a, zoned: a.WithZone(name)}
	return e.zoned
}

// ifNames resolves interface indexes to names for the live capture,
// caching them (a name is looked up again after ifNameTTL: an index may be
// reused by another interface). The zero value needs resolve set.
type ifNames struct {
	resolve func(ifindex int) (string, error)
	m       map[int]ifName
	// the last index resolved (a session's segments come in bursts).
	lastIdx  int
	lastName ifName
}

type ifName struct {
	name string // "" when the index did not resolve
	at   time.Time
}

// ifNameTTL is how long a resolved name (or a failure) is trusted.
const ifNameTTL = 10 * time.Second

// name is the name of interface ifindex at t ("" if unknown).
func (n *ifNames) name(ifindex int, t time.Time) string {
	if ifindex == n.lastIdx && ifindex != 0 && t.Sub(n.lastName.at) < ifNameTTL && !t.Before(n.lastName.at) {
		return n.lastName.name
	}
	e, ok := n.m[ifindex]
	if !ok || t.Sub(e.at) >= ifNameTTL || t.Before(e.at) {
		e = ifName{at: t}
		if n.resolve != nil && ifindex > 0 {
			if s, err := n.resolve(ifindex); err == nil {
				e.name = s
			}
		}
		if n.m == nil {
			n.m = map[int]ifName{}
		}
		if len(n.m) > 4096 { // interfaces come and go: forget them all
			clear(n.m)
		}
		n.m[ifindex] = e
	}
	n.lastIdx, n.lastName = ifindex, e
	return e.name
}
