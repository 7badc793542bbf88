package srv6policy

// Headend routes of an SR policy, and their rtnetlink encoding (ours, on
// mdlayher/netlink's attribute codec: vishvananda/netlink can neither
// encode the HMAC TLV of a seg6 SRH nor list routes that carry one). The
// codec is pure and portable; the connection that sends it is in
// routes_linux.go.
//
// A policy is installed as up to two routes:
//
//	BSID/128     encap seg6local action End.B6.Encaps srh segs S1,..,Sn hmac ID dev <interface towards S1>
//	ENDPOINT/len encap seg6 mode encap segs S1,..,Sn hmac ID dev <interface towards S1>
//
// both with the SRH Linux builds for them (EncapSRH: flag 0x08 and a zeroed
// HMAC TLV that the kernel fills per packet), exactly as iproute2 encodes
// `ip -6 route add ...` with those arguments.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/mdlayher/netlink"
)

// RouteKind says which of a policy's routes a Route is.
type RouteKind uint8

// Route kinds.
const (
	// RouteSteer: traffic to Dst is encapsulated into the policy (`encap
	// seg6 mode encap`).
	RouteSteer RouteKind = 1
	// RouteBSID: the Binding SID; packets whose active segment is Dst are
	// encapsulated into the policy (`encap seg6local action
	// End.B6.Encaps`).
	RouteBSID RouteKind = 2
)

func (k RouteKind) String() string {
	switch k {
	case RouteSteer:
		return "steer"
	case RouteBSID:
		return "bsid"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// RouteProtocol is the route protocol (rtm_protocol, `ip route ... proto
// 175`) of the routes authbgpd installs, so that they can be told from
// everyone else's and flushed after a crash. It is not one of iproute2's
// or FRR's named protocols.
const RouteProtocol = 175

// MainTable is the kernel's main routing table.
const MainTable = 254

// Route is one headend route.
type Route struct {
	Kind RouteKind
	// Dst is the Binding SID (a /128) or the steered destination (IPv6 or
	// IPv4: the kernel encapsulates both into SRv6).
	Dst netip.Prefix
	// Segments in travel order (first hop first).
	Segments []netip.Addr
	// KeyID is the HMAC key (0: no HMAC TLV).
	KeyID uint32
	// OIF is the output interface index the route is attached to. 0 lets
	// KernelRoutes pick the interface of the route to the first segment
	// (the kernel routes the encapsulated packet on its first segment
	// anyway). Not lo: IPv6 turns a route through lo into a reject route,
	// and a Binding SID there drops every packet (Ip6InNoRoutes).
	OIF int
	// Table and Protocol are what List found (0 when installing: the
	// KernelRoutes' own).
	Table    uint32
	Protocol uint8
}

// String renders the route as `ip route` arguments (without the device).
func (r Route) String() string {
	var segs []string
	for _, s := range r.Segments {
		segs = append(segs, s.String())
	}
	hmac := ""
	if r.KeyID != 0 {
		hmac = fmt.Sprintf(" hmac %d", r.KeyID)
	}
	switch r.Kind {
	case RouteBSID:
		return fmt.Sprintf("%s encap seg6local action End.B6.Encaps srh segs %s%s", r.Dst, strings.Join(segs, ","), hmac)
	case RouteSteer:
		return fmt.Sprintf("%s encap seg6 mode encap segs %s%s", r.Dst, strings.Join(segs, ","), hmac)
	}
	return fmt.Sprintf("%s %s", r.Dst, r.Kind)
}

// Same reports whether r and o install the same thing (kind, destination,
// segments, key; OIF only when both name one).
func (r Route) Same(o Route) bool {
	return r.Kind == o.Kind && r.Dst == o.Dst && r.KeyID == o.KeyID && slices.Equal(r.Segments, o.Segments) &&
		(r.OIF == 0 || o.OIF == 0 || r.OIF == o.OIF)
}

// Validate checks the route before encoding.
func (r Route) Validate() error {
	if !r.Dst.IsValid() || r.Dst.Addr().Zone() != "" {
		return fmt.Errorf("srv6policy: route destination %v is not a prefix", r.Dst)
	}
	switch r.Kind {
	case RouteBSID:
		if !r.Dst.Addr().Is6() || r.Dst.Addr().Is4In6() || r.Dst.Bits() != 128 {
			return fmt.Errorf("srv6policy: binding SID route %v is not an IPv6 /128", r.Dst)
		}
	case RouteSteer:
		if r.Dst.Addr().Is4In6() {
			return fmt.Errorf("srv6policy: steer route %v: use the IPv4 prefix", r.Dst)
		}
	default:
		return fmt.Errorf("srv6policy: unknown route kind %d", r.Kind)
	}
	_, err := EncapSRH(r.Segments, r.KeyID)
	return err
}

// Route netlink constants (linux/rtnetlink.h, linux/lwtunnel.h,
// linux/seg6_iptunnel.h, linux/seg6_local.h), so the codec builds on every
// OS.
const (
	rtmsgLen = 12

	rtmNewRoute = 24
	rtmDelRoute = 25
	rtmGetRoute = 26

	afInet  = 2
	afInet6 = 10

	rtaDst       = 1
	rtaOIF       = 4
	rtaTable     = 15
	rtaEncapType = 21
	rtaEncap     = 22

	rtnUnicast      = 1
	rtScopeUniverse = 0
	rtScopeLink     = 253
	rtScopeNowhere  = 255

	lwtunnelEncapSeg6      = 5
	lwtunnelEncapSeg6Local = 7

	seg6IPTunnelSRH    = 1
	seg6IPTunModeEncap = 1

	seg6LocalAction           = 1
	seg6LocalSRH              = 2
	seg6LocalActionEndB6Encap = 10
)

// Errors of KernelRoutes, for errors.Is.
var (
	// ErrRouteExists: the table already has a route for the destination
	// (with the same metric), which Add does not overwrite.
	ErrRouteExists = errors.New("srv6policy: a route for the destination already exists")
	// ErrRouteNotFound: Delete found no route of ours for the destination.
	ErrRouteNotFound = errors.New("srv6policy: no such route")
	// ErrNoRouteSupport: the kernel cannot install seg6 or seg6local
	// routes (CONFIG_IPV6_SEG6_LWTUNNEL), or the OS is not Linux.
	ErrNoRouteSupport = errors.New("srv6policy: the kernel does not support SRv6 routes (seg6 / seg6local lightweight tunnels)")
)

// errNotOurs: a dumped route that is not a policy route.
var errNotOurs = errors.New("not an SR policy route")

// rtmsg is a struct rtmsg (linux/rtnetlink.h) without its flags.
type rtmsg struct {
	family, dstLen uint8
	table          uint32 // ≥ 256: RT_TABLE_UNSPEC here, the table in RTA_TABLE
	proto, scope   uint8
	typ            uint8
}

func (m rtmsg) marshal() []byte {
	t := uint8(m.table)
	if m.table >= 256 {
		t = 0 // RT_TABLE_UNSPEC; the table goes in RTA_TABLE
	}
	return []byte{m.family, m.dstLen, 0 /* src_len */, 0 /* tos */, t, m.proto, m.scope, m.typ, 0, 0, 0, 0 /* flags */}
}

// routeMsg builds a route netlink request: the rtmsg, then RTA_TABLE (for
// a table ≥ 256) and the attributes attrs adds (nil: none).
func routeMsg(typ netlink.HeaderType, flags netlink.HeaderFlags, m rtmsg, attrs func(*netlink.AttributeEncoder)) (netlink.Message, error) {
	ae := netlink.NewAttributeEncoder()
	if m.table >= 256 {
		ae.Uint32(rtaTable, m.table)
	}
	if attrs != nil {
		attrs(ae)
	}
	b, err := ae.Encode()
	if err != nil {
		return netlink.Message{}, err
	}
	return netlink.Message{Header: netlink.Header{Type: typ, Flags: flags}, Data: append(m.marshal(), b...)}, nil
}

func routeFamily(p netip.Prefix) uint8 {
	if p.Addr().Is4() {
		return afInet
	}
	return afInet6
}

// encodeRoute builds the RTM_NEWROUTE request for r, as iproute2 does for
// `ip route add ... proto P table T dev OIF` (no metric: the kernel's
// default, 1024 for IPv6). replace selects NLM_F_REPLACE (update our own
// route) over NLM_F_EXCL (never overwrite a route that is not ours).
func encodeRoute(r Route, proto uint8, table uint32, replace bool) (netlink.Message, error) {
	if err := r.Validate(); err != nil {
		return netlink.Message{}, err
	}
	if r.OIF <= 0 {
		return netlink.Message{}, fmt.Errorf("srv6policy: route %s: no output interface", r)
	}
	srh, err := EncapSRH(r.Segments, r.KeyID)
	if err != nil {
		return netlink.Message{}, err
	}
	srhb, err := srh.Encode()
	if err != nil {
		return netlink.Message{}, err
	}
	flags := netlink.Request | netlink.Acknowledge | netlink.Create
	if replace {
		flags |= netlink.Replace
	} else {
		flags |= netlink.Excl
	}
	scope := uint8(rtScopeUniverse)
	if r.Dst.Addr().Is4() {
		scope = rtScopeLink // iproute2's scope for an IPv4 route without a gateway
	}
	m := rtmsg{family: routeFamily(r.Dst), dstLen: uint8(r.Dst.Bits()), table: table, proto: proto, scope: scope, typ: rtnUnicast}
	return routeMsg(rtmNewRoute, flags, m, func(ae *netlink.AttributeEncoder) {
		ae.Bytes(rtaDst, r.Dst.Masked().Addr().AsSlice())
		ae.Uint32(rtaOIF, uint32(r.OIF))
		switch r.Kind {
		case RouteSteer:
			ae.Uint16(rtaEncapType, lwtunnelEncapSeg6)
			ae.Nested(rtaEncap, func(ae *netlink.AttributeEncoder) error {
				// struct seg6_iptunnel_encap { int mode; struct ipv6_sr_hdr srh[]; }
				ae.Bytes(seg6IPTunnelSRH, append(nativeEndian.AppendUint32(nil, seg6IPTunModeEncap), srhb...))
				return nil
			})
		case RouteBSID:
			ae.Uint16(rtaEncapType, lwtunnelEncapSeg6Local)
			ae.Nested(rtaEncap, func(ae *netlink.AttributeEncoder) error {
				ae.Uint32(seg6LocalAction, seg6LocalActionEndB6Encap)
				ae.Bytes(seg6LocalSRH, srhb)
				return nil
			})
		}
	})
}

// encodeDelRoute builds the RTM_DELROUTE request for dst in table, matching
// only routes of protocol proto.
func encodeDelRoute(dst netip.Prefix, proto uint8, table uint32) (netlink.Message, error) {
	m := rtmsg{family: routeFamily(dst), dstLen: uint8(dst.Bits()), table: table, proto: proto, scope: rtScopeNowhere}
	return routeMsg(rtmDelRoute, netlink.Request|netlink.Acknowledge, m, func(ae *netlink.AttributeEncoder) {
		ae.Bytes(rtaDst, dst.Masked().Addr().AsSlice())
	})
}

// encodeDumpRoutes builds an RTM_GETROUTE dump request for a family.
func encodeDumpRoutes(family uint8) (netlink.Message, error) {
	return routeMsg(rtmGetRoute, netlink.Request|netlink.Dump, rtmsg{family: family}, nil)
}

// encodeGetRoute builds an RTM_GETROUTE request for the route to dst
// (`ip route get`). It asks for no ack: the answer is the route (or an
// error).
func encodeGetRoute(dst netip.Addr) (netlink.Message, error) {
	m := rtmsg{family: afInet6, dstLen: 128}
	if dst.Is4() {
		m.family, m.dstLen = afInet, 32
	}
	return routeMsg(rtmGetRoute, netlink.Request, m, func(ae *netlink.AttributeEncoder) {
		ae.Bytes(rtaDst, dst.AsSlice())
	})
}

// routeAttrs are the attributes of a dumped route that decodeRoute reads.
type routeAttrs struct {
	dst       []byte
	oif       int
	table     uint32
	encapType uint16
	encap     []byte
}

// decodeRouteAttrs decodes the top-level attributes after the rtmsg; those
// of the wrong size are ignored.
func decodeRouteAttrs(b []byte, table uint32) (routeAttrs, error) {
	ra := routeAttrs{table: table, encapType: 0xffff}
	err := eachAttr(b, func(typ uint16, v []byte) {
		switch typ {
		case rtaDst:
			ra.dst = v
		case rtaOIF:
			if len(v) >= 4 {
				ra.oif = int(nativeEndian.Uint32(v))
			}
		case rtaTable:
			if len(v) >= 4 {
				ra.table = nativeEndian.Uint32(v)
			}
		case rtaEncapType:
			if len(v) >= 2 {
				ra.encapType = nativeEndian.Uint16(v)
			}
		case rtaEncap:
			ra.encap = v
		}
	})
	return ra, err
}

// eachAttr calls fn with the type (without flags) and the value of each
// netlink attribute of b; it fails on a malformed one.
func eachAttr(b []byte, fn func(typ uint16, v []byte)) error {
	ad, err := netlink.NewAttributeDecoder(b)
	if err != nil {
		return err
	}
	for ad.Next() {
		ad.Do(func(v []byte) error {
			fn(ad.Type(), v)
			return nil
		})
	}
	return ad.Err()
}

// nativeEndian is the byte order of netlink integers.
var nativeEndian = binary.NativeEndian

// routeDst is the destination prefix of a dumped route.
func routeDst(family, dstLen uint8, dst []byte) (netip.Prefix, error) {
	var a netip.Addr
	switch {
	case dst == nil && family == afInet6:
		a = netip.IPv6Unspecified()
	case dst == nil:
		a = netip.IPv4Unspecified()
	default:
		var ok bool
		if a, ok = netip.AddrFromSlice(dst); !ok {
			return netip.Prefix{}, fmt.Errorf("bad RTA_DST of %d bytes", len(dst))
		}
	}
	return a.Prefix(int(dstLen))
}

// decodeEncap decodes the RTA_ENCAP of a seg6 encap or seg6local
// End.B6.Encaps route: its kind and SRH; errNotOurs for any other.
func decodeEncap(encapType uint16, encap []byte) (RouteKind, []byte, error) {
	var srh []byte
	switch encapType {
	case lwtunnelEncapSeg6:
		mode := uint32(0xffffffff)
		if err := eachAttr(encap, func(typ uint16, v []byte) {
			if typ == seg6IPTunnelSRH && len(v) >= 4 {
				mode, srh = nativeEndian.Uint32(v[:4]), v[4:]
			}
		}); err != nil {
			return RouteSteer, nil, err
		}
		if mode != seg6IPTunModeEncap {
			return RouteSteer, nil, errNotOurs
		}
		return RouteSteer, srh, nil
	case lwtunnelEncapSeg6Local:
		action := uint32(0)
		if err := eachAttr(encap, func(typ uint16, v []byte) {
			switch {
			case typ == seg6LocalAction && len(v) >= 4:
				action = nativeEndian.Uint32(v)
			case typ == seg6LocalSRH:
				srh = v
			}
		}); err != nil {
			return RouteBSID, nil, err
		}
		if action != seg6LocalActionEndB6Encap {
			return RouteBSID, nil, errNotOurs
		}
		return RouteBSID, srh, nil
	}
	return 0, nil, errNotOurs
}

// decodeRoute decodes an RTM_NEWROUTE message body (after the netlink
// header): the route if it is a seg6 encap or seg6local End.B6.Encaps
// route, errNotOurs for any other route.
func decodeRoute(body []byte) (Route, error) {
	var r Route
	if len(body) < rtmsgLen {
		return r, fmt.Errorf("truncated rtmsg (%d bytes)", len(body))
	}
	family, dstLen := body[0], body[1]
	r.Protocol = body[5]
	ra, err := decodeRouteAttrs(body[rtmsgLen:], uint32(body[4]))
	if err != nil {
		return r, err
	}
	r.OIF, r.Table = ra.oif, ra.table
	if family != afInet && family != afInet6 {
		return r, errNotOurs
	}
	if r.Dst, err = routeDst(family, dstLen, ra.dst); err != nil {
		return r, err
	}
	var srh []byte
	if r.Kind, srh, err = decodeEncap(ra.encapType, ra.encap); err != nil {
		return r, err
	}
	s, err := DecodeSRH(srh)
	if err != nil {
		return r, fmt.Errorf("route %s: %w", r.Dst, err)
	}
	r.Segments = s.FirstHopFirst()
	if h, ok := s.HMAC(); ok {
		r.KeyID = h.KeyID
	}
	return r, nil
}

// decodeRouteOIF returns the output interface and the route type of an
// RTM_NEWROUTE answer to encodeGetRoute.
func decodeRouteOIF(body []byte) (oif int, rtype uint8, err error) {
	if len(body) < rtmsgLen {
		return 0, 0, fmt.Errorf("truncated rtmsg (%d bytes)", len(body))
	}
	ra, err := decodeRouteAttrs(body[rtmsgLen:], 0)
	return ra.oif, body[7], err
}
