package config

import (
	"errors"
	"fmt"
	"net/netip"
	"sort"
)

// HostAddr is one address of a network interface of the host, as the
// router ID's choice sees it.
type HostAddr struct {
	Interface string
	Up        bool // the interface is administratively up
	Loopback  bool // the interface is a loopback device
	Addr      netip.Addr
}

// listHostAddrs lists the host's interface addresses (hostaddrs_linux.go);
// tests replace it.
var listHostAddrs = hostAddrs

// ErrNoRouterID is ChooseRouterID's error when no address qualifies.
var ErrNoRouterID = errors.New("no address to take the router ID from")

// ChooseRouterID picks the router ID from the host's addresses, as BIRD
// does: with iface "", the lowest IPv4 address of an up interface that is
// not a loopback; with iface set, the lowest IPv4 address of that interface
// (up, loopback allowed: a router ID on lo is common). Loopback (127/8),
// link-local (169.254/16), unspecified and multicast addresses never
// qualify. It returns the address and the interface it is on.
func ChooseRouterID(addrs []HostAddr, iface string) (netip.Addr, string, error) {
	var cands []HostAddr
	for _, h := range addrs {
		a := h.Addr.Unmap()
		if !a.Is4() || a.IsLoopback() || a.IsLinkLocalUnicast() || a.IsUnspecified() || a.IsMulticast() || !h.Up {
			continue
		}
		if iface == "" && h.Loopback || iface != "" && h.Interface != iface {
			continue
		}
		h.Addr = a
		cands = append(cands, h)
	}
	if len(cands) == 0 {
		if iface != "" {
			return netip.Addr{}, "", fmt.Errorf("%w: interface %s is not up or has no IPv4 address (loopback and link-local addresses do not count)", ErrNoRouterID, iface)
		}
		return netip.Addr{}, "", fmt.Errorf("%w: no up, non-loopback interface has an IPv4 address (loopback and link-local addresses do not count)", ErrNoRouterID)
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].Addr.Less(cands[j].Addr) })
	return cands[0].Addr, cands[0].Interface, nil
}

// routerID decodes router-id, router-id-env or router-id-interface (at
// most one): written, from an environment variable, or taken from the
// host (an interface's, or the lowest; hostaddrs_linux.go). RouterIDFrom
// says which. A router ID that cannot be had is an error at the key (at
// [global] when none is set), and router-id is marked bad so that
// validation does not report it again.
func (d *decoder) routerID(t *table, g *Global) {
	set := d.exclusive(t, "router-id", "router-id-env", "router-id-interface")
	key := ""
	if len(set) > 0 {
		key = set[0]
	}
	fail := func(k, format string, args ...any) {
		t.bad("router-id")
		if k == "" {
			t.d.errorf(t.line, "router-id: "+format, args...)
			return
		}
		t.invalid(k, format, args...)
	}
	switch key {
	case "router-id":
		if a, ok := t.addr(key); ok {
			g.RouterID = a
		}
		return
	case "router-id-env":
		a, name, ok := d.envAddr(t, key)
		if !ok {
			t.bad("router-id")
			return
		}
		if !a.Is4() || a.IsUnspecified() {
			fail(key, "environment variable %s: %s is not an IPv4 address other than 0.0.0.0", name, a)
			return
		}
		g.RouterID, g.RouterIDFrom = a, "environment variable "+name
		return
	}
	iface := ""
	if key == "router-id-interface" {
		s, ok := t.str(key)
		if !ok {
			t.bad("router-id")
			return
		}
		if !validIfName(s) {
			fail(key, "%q is not an interface name (%s)", s, ifNameRule)
			return
		}
		iface = s
	}
	addrs, err := listHostAddrs()
	if err != nil {
		fail(key, "cannot list the host's addresses to pick the router ID: %v; set router-id or router-id-env", err)
		return
	}
	a, on, err := ChooseRouterID(addrs, iface)
	if err != nil {
		if key == "" {
			fail(key, "not set, and %v; set router-id, router-id-env or router-id-interface", err)
		} else {
			fail(key, "%v; set router-id or router-id-env", err)
		}
		return
	}
	g.RouterID, g.RouterIDFrom = a, "interface "+on
}
