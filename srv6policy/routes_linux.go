//go:build linux

package srv6policy

import (
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// KernelRoutes installs, lists and removes headend routes in the routing
// table of the network namespace it was opened in, through our own
// NETLINK_ROUTE socket and encoding (routes.go). Every route it installs
// has its protocol (RouteOptions.Protocol) and is in its table; it deletes
// and lists only such routes. Methods are safe for concurrent use.
type KernelRoutes struct {
	mu sync.Mutex
	nlSocket
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
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		return nil, fmt.Errorf("srv6policy: route netlink socket: %w", err)
	}
	k := &KernelRoutes{nlSocket: nlSocket{fd: fd, seq: uint32(time.Now().UnixNano()), what: "route netlink"}, proto: o.Protocol, table: o.Table}
	if err := k.setup(); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return k, nil
}

func (k *KernelRoutes) setup() error { return k.init() }

// Close closes the socket.
func (k *KernelRoutes) Close() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.closeFd()
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
	if k.fd < 0 {
		return errors.New("srv6policy: KernelRoutes is closed")
	}
	if r.OIF == 0 {
		oif, err := k.routeOIF(r.Segments[0])
		if err != nil {
			return fmt.Errorf("srv6policy: install %s: no route to the first segment: %w", r, err)
		}
		r.OIF = oif
	}
	k.seq++
	msg, err := encodeRoute(k.seq, r, k.proto, k.table, replace)
	if err != nil {
		return err
	}
	if err := k.roundTrip(msg, nil); err != nil {
		return routeErr("install "+r.String(), err)
	}
	return nil
}

// Delete removes our route for dst. It returns an error wrapping
// ErrRouteNotFound when there is none.
func (k *KernelRoutes) Delete(dst netip.Prefix) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.fd < 0 {
		return errors.New("srv6policy: KernelRoutes is closed")
	}
	k.seq++
	if err := k.roundTrip(encodeDelRoute(k.seq, dst, k.proto, k.table), nil); err != nil {
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
	if k.fd < 0 {
		return nil, errors.New("srv6policy: KernelRoutes is closed")
	}
	var out []Route
	var derr error
	for _, fam := range []uint8{afInet6, afInet} {
		k.seq++
		err := k.roundTrip(encodeDumpRoutes(k.seq, fam), func(typ uint16, body []byte) error {
			if typ != unix.RTM_NEWROUTE {
				return nil
			}
			r, err := decodeRoute(body)
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
	if k.fd < 0 {
		return 0, errors.New("srv6policy: KernelRoutes is closed")
	}
	return k.routeOIF(dst)
}

func (k *KernelRoutes) routeOIF(dst netip.Addr) (int, error) {
	k.seq++
	oif, rtype := 0, uint8(0)
	var derr error
	err := k.roundTrip(encodeGetRoute(k.seq, dst), func(typ uint16, body []byte) error {
		if typ == unix.RTM_NEWROUTE {
			oif, rtype, derr = decodeRouteOIF(body)
		}
		return nil
	})
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
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.fd < 0 {
		return netip.Addr{}, errors.New("srv6policy: KernelKeys is closed")
	}
	msg := k.newMsg(k.family, unix.NLM_F_REQUEST|unix.NLM_F_ACK, seg6CmdGetTunsrc, seg6Version)
	var a netip.Addr
	err := k.roundTrip(msg, func(typ uint16, attrs []byte) error {
		if typ != k.family {
			return nil
		}
		return walkAttrs(attrs, func(t uint16, v []byte) {
			if t == seg6AttrDst && len(v) == 16 {
				a = netip.AddrFrom16([16]byte(v))
			}
		})
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
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.fd < 0 {
		return errors.New("srv6policy: KernelKeys is closed")
	}
	msg := k.newMsg(k.family, unix.NLM_F_REQUEST|unix.NLM_F_ACK, seg6CmdSetTunsrc, seg6Version)
	b := a.As16()
	msg = appendAttr(msg, seg6AttrDst, b[:])
	if err := k.roundTrip(msg, nil); err != nil {
		return k.wrap("set tunnel source "+a.String(), err)
	}
	return nil
}
