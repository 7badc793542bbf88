package plugin

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"syscall"

	"github.com/osrg/gobgp/v3/pkg/server"
)

// DialHook runs on every socket GoBGP dials to a neighbor, inside the
// dialer's Control, before connect(2) (the carried GoBGP's
// server.PeerDialControlOption: third_party/gobgp). vrf is the VRF of the
// instance that dials ("" the default VRF's; one address may be a neighbor
// in two VRFs, each with its own key), neighbor the neighbor's configured
// address, remote the address:port dialed. An error
// aborts the dial: no SYN leaves, and GoBGP tries again at its next
// connect-retry tick. It runs on a GoBGP goroutine: it must not call GoBGP.
// ctx is the dial's (its deadline is the dial timeout); it is done when
// GoBGP's connect loop stops, and GoBGP's FSM cannot leave Active (accept
// the peer's connection, say) until the hook returns: a hook that waits
// must return when ctx is done.
type DialHook func(ctx context.Context, vrf string, neighbor netip.Addr, remote netip.AddrPort, c syscall.RawConn) error

// ErrNoDialHook refuses a dial while no plugin has set a DialHook: GoBGP
// holds no keys, so a socket no plugin keyed must not connect.
var ErrNoDialHook = errors.New("no dial hook is set: refusing to dial unkeyed")

// OnDial sets the hook every dial goes through (the peers plugin's: it puts
// the key its reconciler decided on the socket). Until one is set, and with
// RequireDialHook, dials are refused.
func (h *Host) OnDial(fn DialHook) { h.dial.Store(&fn) }

// dialControlIn is what vrf's instance calls for each dial.
func (h *Host) dialControlIn(vrf string) server.PeerDialControl {
	return func(ctx context.Context, neighbor, _, address string, c syscall.RawConn) error {
		return h.dialControl(ctx, vrf, neighbor, address, c)
	}
}

func (h *Host) dialControl(ctx context.Context, vrf, neighbor, address string, c syscall.RawConn) error {
	fn := h.dial.Load()
	if fn == nil {
		if h.opts.RequireDialHook {
			return fmt.Errorf("plugin: dial to %s: %w", address, ErrNoDialHook)
		}
		return nil
	}
	n, err := netip.ParseAddr(neighbor)
	if err != nil {
		return fmt.Errorf("plugin: dial: neighbor address %q: %w", neighbor, err)
	}
	remote, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("plugin: dial to neighbor %s: address %q: %w", neighbor, address, err)
	}
	return (*fn)(ctx, vrf, n.Unmap(), remote, c)
}
