//go:build !linux

package srv6policy

import (
	"fmt"
	"net/netip"
	"runtime"
)

// KernelRoutes installs headend routes: Linux only.
type KernelRoutes struct{}

// RouteOptions configures OpenKernelRoutes.
type RouteOptions struct {
	Protocol uint8  // rtm_protocol of our routes; 0: RouteProtocol
	Table    uint32 // 0: MainTable
}

func noRoutes() error {
	return fmt.Errorf("%w: SRv6 routes are a Linux feature (GOOS=%s)", ErrNoRouteSupport, runtime.GOOS)
}

// OpenKernelRoutes returns an error wrapping ErrNoRouteSupport.
func OpenKernelRoutes(RouteOptions) (*KernelRoutes, error) { return nil, noRoutes() }

// Close does nothing.
func (*KernelRoutes) Close() error { return nil }

// Add returns an error wrapping ErrNoRouteSupport (after validating r).
func (*KernelRoutes) Add(r Route) error {
	if err := r.Validate(); err != nil {
		return err
	}
	return noRoutes()
}

// Replace returns an error wrapping ErrNoRouteSupport (after validating r).
func (k *KernelRoutes) Replace(r Route) error { return k.Add(r) }

// Delete returns an error wrapping ErrNoRouteSupport.
func (*KernelRoutes) Delete(netip.Prefix) error { return noRoutes() }

// List returns an error wrapping ErrNoRouteSupport.
func (*KernelRoutes) List() ([]Route, error) { return nil, noRoutes() }

// ListAll returns an error wrapping ErrNoRouteSupport.
func (*KernelRoutes) ListAll() ([]Route, error) { return nil, noRoutes() }

// Flush returns an error wrapping ErrNoRouteSupport.
func (*KernelRoutes) Flush() (int, error) { return 0, noRoutes() }

// InterfaceTo returns an error wrapping ErrNoRouteSupport.
func (*KernelRoutes) InterfaceTo(netip.Addr) (int, error) { return 0, noRoutes() }

// TunnelSource returns an error wrapping ErrNoKernelSupport.
func (*KernelKeys) TunnelSource() (netip.Addr, error) { return netip.Addr{}, notSupported() }

// SetTunnelSource returns an error wrapping ErrNoKernelSupport.
func (*KernelKeys) SetTunnelSource(netip.Addr) error { return notSupported() }
