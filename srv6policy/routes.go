package srv6policy

// Headend routes of an SR policy, and their rtnetlink encoding (our own:
// vishvananda/netlink can neither encode the HMAC TLV of a seg6 SRH nor
// list routes that carry one). The codec is pure and portable; the socket
// that sends it is in routes_linux.go.
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

// Netlink constants (linux/netlink.h, linux/rtnetlink.h, linux/lwtunnel.h,
// linux/seg6_iptunnel.h, linux/seg6_local.h), so the codec builds on every
// OS.
const (
	nlmsgHdrLen = 16
	rtmsgLen    = 12
	nlaHdrLen   = 4
	nlaFNested  = 0x8000
	nlaTypeMsk  = 0x3fff

	rtmNewRoute = 24
	rtmDelRoute = 25
	rtmGetRoute = 26

	nlmFRequest = 0x1
	nlmFAck     = 0x4
	nlmFDump    = 0x300
	nlmFReplace = 0x100
	nlmFExcl    = 0x200
	nlmFCreate  = 0x400

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

func nlAppendAttr(b []byte, typ uint16, v []byte) []byte {
	b = binary.NativeEndian.AppendUint16(b, uint16(nlaHdrLen+len(v)))
	b = binary.NativeEndian.AppendUint16(b, typ)
	b = append(b, v...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// nlNest appends a nested attribute whose content fill appends.
func nlNest(b []byte, typ uint16, fill func([]byte) []byte) []byte {
	start := len(b)
	b = binary.NativeEndian.AppendUint16(b, 0)
	b = binary.NativeEndian.AppendUint16(b, typ|nlaFNested)
	b = fill(b)
	binary.NativeEndian.PutUint16(b[start:], uint16(len(b)-start))
	return b
}

// nlAttrs calls fn for each attribute of b; it fails on a malformed one.
func nlAttrs(b []byte, fn func(typ uint16, v []byte) error) error {
	for len(b) >= nlaHdrLen {
		l := int(binary.NativeEndian.Uint16(b[0:2]))
		typ := binary.NativeEndian.Uint16(b[2:4]) & nlaTypeMsk
		if l < nlaHdrLen || l > len(b) {
			return fmt.Errorf("malformed netlink attribute (length %d, %d bytes left)", l, len(b))
		}
		if err := fn(typ, b[nlaHdrLen:l]); err != nil {
			return err
		}
		al := (l + 3) &^ 3
		if al >= len(b) {
			return nil
		}
		b = b[al:]
	}
	return nil
}

func nlHeader(typ, flags uint16, seq uint32) []byte {
	b := make([]byte, nlmsgHdrLen, 256)
	binary.NativeEndian.PutUint16(b[4:6], typ)
	binary.NativeEndian.PutUint16(b[6:8], flags)
	binary.NativeEndian.PutUint32(b[8:12], seq)
	return b
}

func nlFinish(b []byte) []byte {
	binary.NativeEndian.PutUint32(b[0:4], uint32(len(b)))
	return b
}

func routeFamily(p netip.Prefix) uint8 {
	if p.Addr().Is4() {
		return afInet
	}
	return afInet6
}

// appendRtmsg appends a struct rtmsg.
func appendRtmsg(b []byte, family, dstLen uint8, table uint32, proto, scope, typ uint8) []byte {
	t := uint8(table)
	if table >= 256 {
		t = 0 // RT_TABLE_UNSPEC; the table goes in RTA_TABLE
	}
	return append(b, family, dstLen, 0 /* src_len */, 0 /* tos */, t, proto, scope, typ, 0, 0, 0, 0 /* flags */)
}

// encodeRoute builds the RTM_NEWROUTE request for r, as iproute2 does for
// `ip route add ... proto P table T dev OIF` (no metric: the kernel's
// default, 1024 for IPv6). replace selects NLM_F_REPLACE (update our own
// route) over NLM_F_EXCL (never overwrite a route that is not ours).
func encodeRoute(seq uint32, r Route, proto uint8, table uint32, replace bool) ([]byte, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	if r.OIF <= 0 {
		return nil, fmt.Errorf("srv6policy: route %s: no output interface", r)
	}
	srh, err := EncapSRH(r.Segments, r.KeyID)
	if err != nil {
		return nil, err
	}
	srhb, err := srh.Encode()
	if err != nil {
		return nil, err
	}
	flags := uint16(nlmFRequest | nlmFAck | nlmFCreate)
	if replace {
		flags |= nlmFReplace
	} else {
		flags |= nlmFExcl
	}
	b := nlHeader(rtmNewRoute, flags, seq)
	scope := uint8(rtScopeUniverse)
	if r.Dst.Addr().Is4() {
		scope = rtScopeLink // iproute2's scope for an IPv4 route without a gateway
	}
	b = appendRtmsg(b, routeFamily(r.Dst), uint8(r.Dst.Bits()), table, proto, scope, rtnUnicast)
	if table >= 256 {
		b = nlAppendAttr(b, rtaTable, binary.NativeEndian.AppendUint32(nil, table))
	}
	b = nlAppendAttr(b, rtaDst, r.Dst.Masked().Addr().AsSlice())
	b = nlAppendAttr(b, rtaOIF, binary.NativeEndian.AppendUint32(nil, uint32(r.OIF)))
	switch r.Kind {
	case RouteSteer:
		b = nlAppendAttr(b, rtaEncapType, binary.NativeEndian.AppendUint16(nil, lwtunnelEncapSeg6))
		b = nlNest(b, rtaEncap, func(b []byte) []byte {
			// struct seg6_iptunnel_encap { int mode; struct ipv6_sr_hdr srh[]; }
			v := binary.NativeEndian.AppendUint32(nil, seg6IPTunModeEncap)
			return nlAppendAttr(b, seg6IPTunnelSRH, append(v, srhb...))
		})
	case RouteBSID:
		b = nlAppendAttr(b, rtaEncapType, binary.NativeEndian.AppendUint16(nil, lwtunnelEncapSeg6Local))
		b = nlNest(b, rtaEncap, func(b []byte) []byte {
			b = nlAppendAttr(b, seg6LocalAction, binary.NativeEndian.AppendUint32(nil, seg6LocalActionEndB6Encap))
			return nlAppendAttr(b, seg6LocalSRH, srhb)
		})
	}
	return nlFinish(b), nil
}

// encodeDelRoute builds the RTM_DELROUTE request for dst in table, matching
// only routes of protocol proto.
func encodeDelRoute(seq uint32, dst netip.Prefix, proto uint8, table uint32) []byte {
	b := nlHeader(rtmDelRoute, nlmFRequest|nlmFAck, seq)
	b = appendRtmsg(b, routeFamily(dst), uint8(dst.Bits()), table, proto, rtScopeNowhere, 0)
	if table >= 256 {
		b = nlAppendAttr(b, rtaTable, binary.NativeEndian.AppendUint32(nil, table))
	}
	b = nlAppendAttr(b, rtaDst, dst.Masked().Addr().AsSlice())
	return nlFinish(b)
}

// encodeDumpRoutes builds an RTM_GETROUTE dump request for a family.
func encodeDumpRoutes(seq uint32, family uint8) []byte {
	b := nlHeader(rtmGetRoute, nlmFRequest|nlmFDump, seq)
	b = appendRtmsg(b, family, 0, 0, 0, 0, 0)
	return nlFinish(b)
}

// encodeGetRoute builds an RTM_GETROUTE request for the route to dst
// (`ip route get`).
func encodeGetRoute(seq uint32, dst netip.Addr) []byte {
	fam, bits := uint8(afInet6), uint8(128)
	if dst.Is4() {
		fam, bits = afInet, 32
	}
	b := nlHeader(rtmGetRoute, nlmFRequest|nlmFAck, seq)
	b = appendRtmsg(b, fam, bits, 0, 0, 0, 0)
	b = nlAppendAttr(b, rtaDst, dst.AsSlice())
	return nlFinish(b)
}

// decodeRoute decodes an RTM_NEWROUTE message body (after the netlink
// header): the route if it is a seg6 encap or seg6local End.B6.Encaps
// route, errNotOurs for any other route.
func decodeRoute(body []byte) (Route, error) {
	var r Route
	if len(body) < rtmsgLen {
		return r, fmt.Errorf("truncated rtmsg (%d bytes)", len(body))
	}
	family, dstLen, table := body[0], body[1], uint32(body[4])
	r.Protocol = body[5]
	var (
		dst       []byte
		encapType uint16 = 0xffff
		encap     []byte
	)
	err := nlAttrs(body[rtmsgLen:], func(typ uint16, v []byte) error {
		switch typ {
		case rtaDst:
			dst = v
		case rtaOIF:
			if len(v) >= 4 {
				r.OIF = int(binary.NativeEndian.Uint32(v))
			}
		case rtaTable:
			if len(v) >= 4 {
				table = binary.NativeEndian.Uint32(v)
			}
		case rtaEncapType:
			if len(v) >= 2 {
				encapType = binary.NativeEndian.Uint16(v)
			}
		case rtaEncap:
			encap = v
		}
		return nil
	})
	if err != nil {
		return r, err
	}
	r.Table = table
	if family != afInet && family != afInet6 {
		return r, errNotOurs
	}
	var a netip.Addr
	switch {
	case dst == nil && family == afInet6:
		a = netip.IPv6Unspecified()
	case dst == nil:
		a = netip.IPv4Unspecified()
	default:
		var ok bool
		if a, ok = netip.AddrFromSlice(dst); !ok {
			return r, fmt.Errorf("bad RTA_DST of %d bytes", len(dst))
		}
	}
	if r.Dst, err = a.Prefix(int(dstLen)); err != nil {
		return r, err
	}
	var srh []byte
	switch encapType {
	case lwtunnelEncapSeg6:
		r.Kind = RouteSteer
		mode := uint32(0xffffffff)
		if err := nlAttrs(encap, func(typ uint16, v []byte) error {
			if typ == seg6IPTunnelSRH && len(v) >= 4 {
				mode, srh = binary.NativeEndian.Uint32(v[:4]), v[4:]
			}
			return nil
		}); err != nil {
			return r, err
		}
		if mode != seg6IPTunModeEncap {
			return r, errNotOurs
		}
	case lwtunnelEncapSeg6Local:
		r.Kind = RouteBSID
		action := uint32(0)
		if err := nlAttrs(encap, func(typ uint16, v []byte) error {
			switch {
			case typ == seg6LocalAction && len(v) >= 4:
				action = binary.NativeEndian.Uint32(v)
			case typ == seg6LocalSRH:
				srh = v
			}
			return nil
		}); err != nil {
			return r, err
		}
		if action != seg6LocalActionEndB6Encap {
			return r, errNotOurs
		}
	default:
		return r, errNotOurs
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
	err = nlAttrs(body[rtmsgLen:], func(typ uint16, v []byte) error {
		if typ == rtaOIF && len(v) >= 4 {
			oif = int(binary.NativeEndian.Uint32(v))
		}
		return nil
	})
	return oif, body[7], err
}
