package plugin

import (
	"context"
	"fmt"
	"net/netip"
	"syscall"

	"github.com/osrg/gobgp/v3/pkg/server"
)

// ListenHook runs on every BGP listening socket GoBGP creates (the default
// VRF's instance at Start, a VRF's when its first neighbor is added),
// inside the listener's Control, before bind(2) and listen(2) (the carried
// GoBGP's server.ListenerControlOption: third_party/gobgp, patch 0035).
// vrf is the instance's VRF ("" the default VRF's; its listeners are bound
// to the VRF's device), local the address:port it will listen on. An error
// aborts the listener: the instance's StartBgp fails with it and nothing
// listens. It runs on the goroutine that starts the instance: it must not
// call GoBGP.
type ListenHook func(vrf string, local netip.AddrPort, c syscall.RawConn) error

// OnListen sets the hook every BGP listener goes through before it listens
// (the peers plugin's: it puts every listener key the desired state wants
// on the socket, so that no unsigned SYN is ever accepted). Until one is
// set, listeners get no keys before they listen.
func (h *Host) OnListen(fn ListenHook) { h.listen.Store(&fn) }

// Preparer is a Plugin with work to do before GoBGP starts: Host.Start
// calls Prepare on each registered Preparer, in registration order, before
// the default VRF's instance creates its listeners (and before any
// plugin's Start). An error fails Start.
type Preparer interface {
	Prepare(ctx context.Context, h *Host) error
}

// listenControlIn is what vrf's instance calls for each of its listeners.
func (h *Host) listenControlIn(vrf string) server.ListenerControl {
	return func(_, address string, c syscall.RawConn) error {
		fn := h.listen.Load()
		if fn == nil {
			return nil
		}
		local, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("plugin: listener in %s: address %q: %w", vrfName(vrf), address, err)
		}
		if err := (*fn)(vrf, netip.AddrPortFrom(local.Addr().Unmap(), local.Port()), c); err != nil {
			return fmt.Errorf("plugin: listener %s in %s (not listening: fail closed): %w", local, vrfName(vrf), err)
		}
		return nil
	}
}

// prepare runs the Preparers (Start, before GoBGP starts).
func (h *Host) prepare(ctx context.Context, plugins []Plugin) error {
	for _, p := range plugins {
		if pr, ok := p.(Preparer); ok {
			if err := pr.Prepare(ctx, h); err != nil {
				return fmt.Errorf("plugin %s: prepare: %w", p.Name(), err)
			}
		}
	}
	return nil
}
