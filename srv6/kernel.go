package srv6

import (
	"context"
	"net"
	"net/netip"
	"slices"

	api "github.com/osrg/gobgp/v3/api"

	"github.com/authbgp/authbgpd/plugin"
	"github.com/authbgp/authbgpd/srv6policy"
)

// bgpHost is what the Manager uses of plugin.Host.
type bgpHost interface {
	AddPath(ctx context.Context, p *api.Path) ([]byte, error)
	DeletePathByUUID(ctx context.Context, uuid []byte) error
	ListPath(ctx context.Context, family *api.Family, opts ...plugin.ListPathOption) ([]*api.Destination, error)
	Subscribe(buf int) (<-chan plugin.PeerEvent, func())
}

// kernelKeys is srv6policy.KernelKeys.
type kernelKeys interface {
	Set(id uint32, alg srv6policy.Algorithm, secret []byte) error
	Delete(id uint32) error
	Dump() ([]srv6policy.KernelKey, error)
	TunnelSource() (netip.Addr, error)
	SetTunnelSource(netip.Addr) error
	Close() error
}

// kernelRoutes is srv6policy.KernelRoutes.
type kernelRoutes interface {
	Add(srv6policy.Route) error
	Replace(srv6policy.Route) error
	Delete(netip.Prefix) error
	Flush() (int, error)
	InterfaceTo(netip.Addr) (int, error)
	Close() error
}

func openKernelKeys() (kernelKeys, error) {
	k, err := srv6policy.OpenKernelKeys()
	if err != nil {
		return nil, err
	}
	return k, nil
}

func openKernelRoutes() (kernelRoutes, error) {
	r, err := srv6policy.OpenKernelRoutes(srv6policy.RouteOptions{})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// onLink reports whether a is on a subnet of one of our interfaces (or
// link-local): a directly connected neighbor.
func onLink(a netip.Addr) bool {
	if a.IsLinkLocalUnicast() {
		return true
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, ia := range addrs {
		n, ok := ia.(*net.IPNet)
		if !ok {
			continue
		}
		p, err := netip.ParsePrefix(n.String())
		if err != nil || p.Bits() == p.Addr().BitLen() || p.Addr().IsLoopback() {
			continue
		}
		if p.Masked().Contains(a) {
			return true
		}
	}
	return false
}

func sortedKeys[K ~uint32 | ~string, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func sortedPrefixes[V any](m map[netip.Prefix]V) []netip.Prefix {
	out := make([]netip.Prefix, 0, len(m))
	for p := range m {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b netip.Prefix) int {
		if c := a.Addr().Compare(b.Addr()); c != 0 {
			return c
		}
		return a.Bits() - b.Bits()
	})
	return out
}
