package config

import (
	"fmt"
	"net"
	"net/netip"
)

// hostAddrs lists the addresses of the host's interfaces (in the network
// namespace authbgpd runs in), for the router ID's choice.
func hostAddrs() ([]HostAddr, error) {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, fmt.Errorf("list interfaces: %w", err)
	}
	var out []HostAddr
	for _, ifc := range ifs {
		as, err := ifc.Addrs()
		if err != nil {
			return nil, fmt.Errorf("list the addresses of %s: %w", ifc.Name, err)
		}
		for _, a := range as {
			n, ok := a.(*net.IPNet)
			if !ok {
				continue
			}
			ip, ok := netip.AddrFromSlice(n.IP)
			if !ok {
				continue
			}
			out = append(out, HostAddr{Interface: ifc.Name, Up: ifc.Flags&net.FlagUp != 0,
				Loopback: ifc.Flags&net.FlagLoopback != 0, Addr: ip.Unmap()})
		}
	}
	return out, nil
}
