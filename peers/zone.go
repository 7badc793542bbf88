package peers

import (
	"net"
	"net/netip"

	"github.com/authbgp/authbgpd/tcpsock"
)

// Link-local connections: the sockets' addresses carry no zone, but the
// session table (GoBGP's fe80::2%eth1) and the interface peers do. A pass
// gives the observed sockets' link-local addresses the zone of the device
// they are on, so that fe80::2 on eth1 and fe80::2 on eth2 are told apart.

// zoneName is the name of the interface with index i ("" when unknown).
var zoneName = func(i int) string {
	ifi, err := net.InterfaceByIndex(i)
	if err != nil {
		return ""
	}
	return ifi.Name
}

// zoneAddrPort gives a link-local ap the zone of interface ifindex.
func zoneAddrPort(ap netip.AddrPort, ifindex int, names map[int]string) netip.AddrPort {
	a := ap.Addr()
	if ifindex == 0 || !a.Is6() || !a.IsLinkLocalUnicast() || a.Zone() != "" {
		return ap
	}
	n, ok := names[ifindex]
	if !ok {
		n = zoneName(ifindex)
		names[ifindex] = n
	}
	if n == "" {
		return ap
	}
	return netip.AddrPortFrom(a.WithZone(n), ap.Port())
}

// zoneObserved zones the link-local connections of a pass's observations
// (no lock held: it may ask the kernel for interface names).
func zoneObserved(obs *Observed, ao []tcpsock.AOSocket) {
	names := map[int]string{}
	for i := range obs.Sockets {
		s := &obs.Sockets[i]
		if !s.Listening {
			s.Local, s.Remote = zoneAddrPort(s.Local, s.IfIndex, names), zoneAddrPort(s.Remote, s.IfIndex, names)
		}
	}
	for i := range ao {
		s := &ao[i]
		if !s.Listening {
			s.Local, s.Remote = zoneAddrPort(s.Local, s.IfIndex, names), zoneAddrPort(s.Remote, s.IfIndex, names)
		}
	}
}
