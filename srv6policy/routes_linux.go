//go:build linux

package srv6policy

import (
	"errors"
	"fmt"
	"net/netip"
	"sync"

	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"
)

// KernelRoutes installs, lists and removes headend routes in the routing
// table of the network namespace it was opened in, through a NETLINK_ROUTE
// connection (mdlayher/netlink) and our encoding (routes.go). Every route it installs
// has its protocol (RouteOptions.Protocol) and is in its table; it deletes
// and lists only such routes. Methods are safe for concurrent use.
type KernelRoutes struct {
	mu sync.Mutex
	nlConn
	proto uint8
	table uint32
}

// RouteOptions configures OpenKernelRoutes.
type RouteOptions struct {
	Protocol uint8  // rtm_protocol of our routes; 0: RouteProtocol
	Table    uint32 // 0: MainTable
}

// OpenKernelRoutes opens a route netlink socket in the calling thread's
// network namespace.
func OpenKernelRoutes(o RouteOptions) (*KernelRoutes, error) {
	if o.Protocol == 0 {
		o.Protocol = RouteProtocol
	}
	if o.Table == 0 {
		o.Table = MainTable
	}
	// The kernel's error messages (extended acks): route requests hold
	// no secrets, so the acks may echo them.
	c, err := dialNetlink(unix.NETLINK_ROUTE, "route netlink", netlink.ExtendedAcknowledge)
	if err != nil {
		return nil, err
	}
	return newKernelRoutes(c, o), nil
}

// newKernelRoutes makes a KernelRoutes on c; o has its defaults.
func newKernelRoutes(c *netlink.Conn, o RouteOptions) *KernelRoutes {
	return &KernelRoutes{nlConn: nlConn{t: c}, proto: o.Protocol, table: o.Table}
}

// Close closes the socket.
func (k *KernelRoutes) Close() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.close()
}

// Add installs r; it fails with ErrRouteExists when the table already has
// a route for r.Dst (ours or anyone's: Add never overwrites).
func (k *KernelRoutes) Add(r Route) error { return k.install(r, false) }

// Replace installs r in place of the route for r.Dst (or adds it). The
// kernel replaces whatever route has the destination and metric: use it
// only to update a route Add installed.
func (k *KernelRoutes) Replace(r Route) error { return k.install(r, true) }

func (k *KernelRoutes) install(r Route, replace bool) error {
	if err := r.Validate(); err != nil {
		return err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.t == nil {
		return errors.New("srv6policy: KernelRoutes is closed")
	}
	if r.OIF == 0 {
		oif, err := k.routeOIF(r.Segments[0])
		if err != nil {
			return fmt.Errorf("srv6policy: install %s: no route to the first segment: %w", r, err)
		}
		r.OIF = oif
	}
	msg, err := encodeRoute(r, k.proto, k.table, replace)
	if err != nil {
		return err
	}
	if err := k.exchange(msg, nil); err != nil {
		return routeErr("install "+r.String(), err)
	}
	return nil
}

// Delete removes our route for dst. It returns an error wrapping
// ErrRouteNotFound when there is none.
func (k *KernelRoutes) Delete(dst netip.Prefix) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.t == nil {
		return errors.New("srv6policy: KernelRoutes is closed")
	}
	msg, err := encodeDelRoute(dst, k.proto, k.table)
	if err == nil {
		err = k.exchange(msg, nil)
	}
	if err != nil {
		return routeErr("delete "+dst.String(), err)
	}
	return nil
}

// List returns our routes (protocol and table of the KernelRoutes) that
// are SR policy routes, IPv6 and IPv4.
func (k *KernelRoutes) List() ([]Route, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.list(true)
}

// ListAll returns every SR policy route (seg6 encap and seg6local
// End.B6.Encaps) of every table and protocol: what `ip route` would show.
func (k *KernelRoutes) ListAll() ([]Route, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.list(false)
}

func (k *KernelRoutes) list(ours bool) ([]Route, error) {
	if k.t == nil {
		return nil, errors.New("srv6policy: KernelRoutes is closed")
	}
	var out []Route
	var derr error
	for _, fam := range []uint8{afInet6, afInet} {
		msg, err := encodeDumpRoutes(fam)
		if err == nil {
			err = k.exchange(msg, func(m netlink.Message) error {
				if m.Header.Type != unix.RTM_NEWROUTE {
					return nil
				}
				r, err := decodeRoute(m.Data)
				if errors.Is(err, errNotOurs) {
					return nil
				}
				if ours && (r.Protocol != k.proto || r.Table != k.table) {
					return nil
				}
				if err != nil {
					if derr == nil {
						derr = err
					}
					return nil
				}
				out = append(out, r)
				return nil
			})
		}
		if err != nil {
			return nil, routeErr("list routes", err)
		}
	}
	if derr != nil && ours {
		return out, fmt.Errorf("srv6policy: list routes: %w", derr)
	}
	return out, nil
}

// Flush deletes all our routes and returns how many there were.
func (k *KernelRoutes) Flush() (int, error) {
	rs, err := k.List()
	if err != nil && len(rs) == 0 {
		return 0, err
	}
	n := 0
	var errs []error
	for _, r := range rs {
		if err := k.Delete(r.Dst); err != nil && !errors.Is(err, ErrRouteNotFound) {
			errs = append(errs, err)
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

// InterfaceTo returns the output interface of the route to dst (`ip route
// get`).
func (k *KernelRoutes) InterfaceTo(dst netip.Addr) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.t == nil {
		return 0, errors.New("srv6policy: KernelRoutes is closed")
	}
	return k.routeOIF(dst)
}

func (k *KernelRoutes) routeOIF(dst netip.Addr) (int, error) {
	oif, rtype := 0, uint8(0)
	var derr error
	msg, err := encodeGetRoute(dst)
	if err == nil {
		err = k.exchange(msg, func(m netlink.Message) error {
			if m.Header.Type == unix.RTM_NEWROUTE {
				oif, rtype, derr = decodeRouteOIF(m.Data)
			}
			return nil
		})
	}
	if err != nil {
		return 0, err
	}
	if derr != nil {
		return 0, derr
	}
	if oif <= 0 {
		return 0, fmt.Errorf("the route to %s has no output interface", dst)
	}
	if rtype != rtnUnicast {
		return 0, fmt.Errorf("the route to %s is not a unicast route (type %d: a local segment?)", dst, rtype)
	}
	return oif, nil
}

func routeErr(op string, err error) error {
	switch {
	case errors.Is(err, unix.EEXIST):
		return fmt.Errorf("srv6policy: %s: %w: %w", op, ErrRouteExists, err)
	case errors.Is(err, unix.ESRCH), errors.Is(err, unix.ENOENT):
		return fmt.Errorf("srv6policy: %s: %w: %w", op, ErrRouteNotFound, err)
	case errors.Is(err, unix.EPERM), errors.Is(err, unix.EACCES):
		return fmt.Errorf("srv6policy: %s: installing SRv6 routes needs CAP_NET_ADMIN: %w", op, err)
	case errors.Is(err, unix.EOPNOTSUPP), errors.Is(err, enotsupp):
		return fmt.Errorf("%w: %s: %v", ErrNoRouteSupport, op, err)
	}
	return fmt.Errorf("srv6policy: %s: %w", op, err)
}

// SEG6 generic netlink commands for the tunnel source.
const (
	seg6CmdSetTunsrc = 3
	seg6CmdGetTunsrc = 4
	seg6AttrDst      = 1
)

// TunnelSource returns the namespace's SRv6 tunnel source (`ip sr tunsrc
// show`): the outer source address of every seg6 encapsulation (:: when
// unset: the kernel then picks the source by route to the first segment).
func (k *KernelKeys) TunnelSource() (netip.Addr, error) {
	var a netip.Addr
	// No ack: the answer is the address (or an error).
	err := k.request(seg6CmdGetTunsrc, netlink.Request, nil, func(ad *netlink.AttributeDecoder) error {
		for ad.Next() {
			if ad.Type() == seg6AttrDst {
				ad.Do(func(v []byte) error {
					if len(v) == 16 {
						a = netip.AddrFrom16([16]byte(v))
					}
					return nil
				})
			}
		}
		return nil
	})
	if err != nil {
		return netip.Addr{}, k.wrap("get tunnel source", err)
	}
	if !a.IsValid() {
		return netip.Addr{}, errors.New("srv6policy: get tunnel source: no address in the answer")
	}
	return a, nil
}

// SetTunnelSource sets the namespace's SRv6 tunnel source (`ip sr tunsrc
// set`); :: unsets it.
func (k *KernelKeys) SetTunnelSource(a netip.Addr) error {
	if !a.Is6() || a.Is4In6() || a.Zone() != "" {
		return fmt.Errorf("srv6policy: tunnel source %v is not an IPv6 address", a)
	}
	ae := netlink.NewAttributeEncoder()
	ae.Bytes(seg6AttrDst, a.AsSlice())
	if err := k.request(seg6CmdSetTunsrc, netlink.Request|netlink.Acknowledge, ae, nil); err != nil {
		return k.wrap("set tunnel source "+a.String(), err)
	}
	return nil
}
