package fib

// The rtnetlink codec of our routes: pure and portable, on no library (the
// kernel side writes and parses millions of these, so it appends into a
// reused buffer and walks attributes in place without allocating). The
// encoding is iproute2's for `ip route replace DST proto bgp metric 20
// table T via GW [dev D]` (`via inet6 GW dev D` for an IPv6 next hop of an
// IPv4 route, `nexthop via .. nexthop via ..` for several).

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"slices"
)

// Op is one write of Kernel.Write: replace (create or overwrite) the route
// of Route.Key with Route, or delete our route of Route.Key (its next hops
// are then ignored).
type Op struct {
	Delete bool
	Route  Route
}

func (o Op) String() string {
	if o.Delete {
		return "delete " + o.Route.Key.String()
	}
	return "replace " + o.Route.String()
}

// Event is one route notification of the kernel (Kernel.Watch): a route
// added, replaced (Deleted false) or removed, whoever's it is.
type Event struct {
	// Lost: notifications were lost (the socket overflowed); every other
	// field is zero. What the kernel holds must be looked at in full.
	Lost    bool
	Deleted bool
	// Protocol, Type and Metric of the route: ours have Protocol,
	// rtnUnicast and Metric.
	Protocol uint8
	Type     uint8
	Metric   uint32
	// Route is the route's key and next hops (none for a route without a
	// gateway or device, such as a blackhole).
	Route Route
}

// Ours reports whether the event is about a route of ours.
func (e Event) Ours() bool {
	return !e.Lost && e.Protocol == Protocol && e.Type == rtnUnicast && e.Metric == Metric
}

// Errors of the kernel side, for errors.Is. They are always returned
// wrapped with what was done.
var (
	// ErrNotFound: a delete found no route of ours for the key (it is
	// already gone: the caller may count the delete as done).
	ErrNotFound = errors.New("no such route of ours")
	// ErrUnreachable: Resolve found no route to the address.
	ErrUnreachable = errors.New("no route to the address")
	// ErrNotSupported: the OS has no rtnetlink (not Linux).
	ErrNotSupported = errors.New("the kernel's routing tables are only supported on Linux")
)

// rtnetlink constants (linux/netlink.h, linux/rtnetlink.h), so that the
// codec builds on every OS.
const (
	nlmsgHdrLen = 16
	rtmsgLen    = 12
	rtnhLen     = 8 // struct rtnexthop

	nlmsgNoop  = 1
	nlmsgError = 2
	nlmsgDone  = 3

	nlmFRequest  = 0x1
	nlmFMulti    = 0x2
	nlmFAck      = 0x4
	nlmFDumpIntr = 0x10
	nlmFRoot     = 0x100
	nlmFMatch    = 0x200
	nlmFDump     = nlmFRoot | nlmFMatch
	nlmFReplace  = 0x100
	nlmFCreate   = 0x400
	nlmFCapped   = 0x100 // in an error ack: the request is not echoed
	nlmFAckTLVs  = 0x200 // in an error ack: extended ack attributes follow

	nlmsgerrAttrMsg = 1

	rtmNewRoute = 24
	rtmDelRoute = 25
	rtmGetRoute = 26

	afInet  = 2
	afInet6 = 10

	rtaDst       = 1
	rtaOIF       = 4
	rtaGateway   = 5
	rtaPriority  = 6
	rtaMultipath = 9
	rtaTable     = 15
	rtaVia       = 18

	rtnUnicast = 1

	rtScopeUniverse = 0
	rtScopeNowhere  = 255

	rtmFCloned      = 0x200
	rtmFLookupTable = 0x1000

	rtTableUnspec = 0

	// maxNextHops bounds a route's next hops (a multipath route of more
	// does not fit a netlink message the kernel sends back whole).
	maxNextHops = 256
)

// ne is the byte order of netlink integers.
var ne = binary.NativeEndian

// Validate reports whether r can be written: a masked, unzoned destination,
// a table, and one to maxNextHops next hops, sorted and without repeats
// (Normalize), each with a gateway of the destination's family (or an IPv6
// one for an IPv4 destination, RFC 8950), a device, or both; a link-local
// gateway needs its device.
func (r Route) Validate() error {
	if err := r.Key.validate(); err != nil {
		return err
	}
	if len(r.NextHops) == 0 {
		return fmt.Errorf("fib: route %s: no next hop", r.Key)
	}
	if len(r.NextHops) > maxNextHops {
		return fmt.Errorf("fib: route %s: %d next hops (at most %d)", r.Key, len(r.NextHops), maxNextHops)
	}
	for i, n := range r.NextHops {
		if err := n.validate(r.Dst.Addr().Is4()); err != nil {
			return fmt.Errorf("fib: route %s: %w", r.Key, err)
		}
		if i > 0 && n.Compare(r.NextHops[i-1]) <= 0 {
			return fmt.Errorf("fib: route %s: next hops not sorted or repeated (Normalize)", r.Key)
		}
	}
	return nil
}

// Matches reports whether the kernel's route k (from Dump or Watch) is
// what writing r installs: the same key and gateways, and the same devices
// where r names them (for a next hop without one, the kernel fills in the
// device it found).
func (r Route) Matches(k Route) bool {
	if r.Key != k.Key || len(r.NextHops) != len(k.NextHops) {
		return false
	}
	for i, n := range r.NextHops {
		o := k.NextHops[i]
		if n.Gateway != o.Gateway || n.Ifindex != 0 && n.Ifindex != o.Ifindex {
			return false
		}
	}
	return true
}

func (k Key) validate() error {
	d := k.Dst
	if !d.IsValid() || d.Addr().Zone() != "" || d.Addr().Is4In6() || d != d.Masked() {
		return fmt.Errorf("fib: route destination %v is not a masked, unzoned prefix", d)
	}
	if k.Table == rtTableUnspec {
		return fmt.Errorf("fib: route %s: no table", d)
	}
	return nil
}

func (n NextHop) validate(dst4 bool) error {
	if n.Ifindex < 0 || n.Ifindex > math.MaxInt32 {
		return fmt.Errorf("next hop %s: bad device index", n)
	}
	g := n.Gateway
	switch {
	case !g.IsValid():
		if n.Ifindex == 0 {
			return errors.New("a next hop has neither gateway nor device")
		}
	case g.Zone() != "" || g.Is4In6():
		return fmt.Errorf("next hop %s: the gateway must be unzoned and not IPv4-mapped", n)
	case g.Is4() && !dst4:
		return fmt.Errorf("next hop %s: an IPv4 gateway of an IPv6 route", n)
	case g.Is6() && g.IsLinkLocalUnicast() && n.Ifindex == 0:
		return fmt.Errorf("next hop %s: a link-local gateway needs its device", n)
	}
	return nil
}

func family(a netip.Addr) uint8 {
	if a.Is4() {
		return afInet
	}
	return afInet6
}

// appendOp appends the netlink request of op (RTM_NEWROUTE with
// NLM_F_CREATE|NLM_F_REPLACE, or RTM_DELROUTE), asking for an ack, with
// sequence number seq. b is unchanged on error.
func appendOp(b []byte, op Op, seq uint32) ([]byte, error) {
	r := op.Route
	if op.Delete {
		if err := r.Key.validate(); err != nil {
			return b, err
		}
	} else if err := r.Validate(); err != nil {
		return b, err
	}
	start := len(b)
	typ, flags := uint16(rtmNewRoute), uint16(nlmFRequest|nlmFAck|nlmFCreate|nlmFReplace)
	rtype, scope := uint8(rtnUnicast), uint8(rtScopeUniverse)
	if op.Delete {
		// Only our route: the kernel matches the protocol, the metric
		// and the table (and, scope nowhere and type unspec, any scope
		// and type).
		typ, flags = rtmDelRoute, nlmFRequest|nlmFAck
		rtype, scope = 0, rtScopeNowhere
	}
	b = appendHeader(b, typ, flags, seq)
	b = appendRtmsg(b, r.Dst.Addr(), uint8(r.Dst.Bits()), r.Table, Protocol, scope, rtype, 0)
	b = appendU32Attr(b, rtaTable, r.Table)
	if r.Dst.Bits() > 0 {
		b = appendAddrAttr(b, rtaDst, r.Dst.Addr())
	}
	b = appendU32Attr(b, rtaPriority, Metric)
	if !op.Delete {
		dst4 := r.Dst.Addr().Is4()
		if len(r.NextHops) == 1 {
			n := r.NextHops[0]
			b = appendGateway(b, dst4, n.Gateway)
			if n.Ifindex != 0 {
				b = appendU32Attr(b, rtaOIF, uint32(n.Ifindex))
			}
		} else {
			mp := len(b)
			b = appendAttrHeader(b, rtaMultipath)
			for _, n := range r.NextHops {
				nh := len(b)
				// struct rtnexthop: len, flags, hops (weight - 1), ifindex
				b = append(b, 0, 0, 0, 0)
				b = ne.AppendUint32(b, uint32(n.Ifindex))
				b = appendGateway(b, dst4, n.Gateway)
				ne.PutUint16(b[nh:], uint16(len(b)-nh))
			}
			if len(b)-mp > math.MaxUint16 {
				return b[:start], fmt.Errorf("fib: route %s: too many next hops for one attribute", r.Key)
			}
			ne.PutUint16(b[mp:], uint16(len(b)-mp))
		}
	}
	ne.PutUint32(b[start:], uint32(len(b)-start))
	return b, nil
}

// appendHeader appends a struct nlmsghdr whose length is filled in later.
func appendHeader(b []byte, typ, flags uint16, seq uint32) []byte {
	b = append(b, 0, 0, 0, 0)
	b = ne.AppendUint16(b, typ)
	b = ne.AppendUint16(b, flags)
	b = ne.AppendUint32(b, seq)
	return append(b, 0, 0, 0, 0) // port id: the kernel fills it in
}

// appendRtmsg appends a struct rtmsg of dst's family. A table ≥ 256 is
// RT_TABLE_UNSPEC there (it goes in RTA_TABLE).
func appendRtmsg(b []byte, dst netip.Addr, dstLen uint8, table uint32, proto, scope, typ uint8, flags uint32) []byte {
	t := uint8(rtTableUnspec)
	if table < 256 {
		t = uint8(table)
	}
	b = append(b, family(dst), dstLen, 0 /* src_len */, 0 /* tos */, t, proto, scope, typ)
	return ne.AppendUint32(b, flags)
}

func appendAttrHeader(b []byte, typ uint16) []byte {
	return ne.AppendUint16(append(b, 0, 0), typ)
}

func appendU32Attr(b []byte, typ uint16, v uint32) []byte {
	b = ne.AppendUint16(b, 8)
	b = ne.AppendUint16(b, typ)
	return ne.AppendUint32(b, v)
}

// appendAddrAttr appends an attribute holding a (4 or 16 byte) address:
// either length is a multiple of 4, so no padding.
func appendAddrAttr(b []byte, typ uint16, a netip.Addr) []byte {
	if a.Is4() {
		b = ne.AppendUint16(b, 8)
		b = ne.AppendUint16(b, typ)
		a4 := a.As4()
		return append(b, a4[:]...)
	}
	b = ne.AppendUint16(b, 20)
	b = ne.AppendUint16(b, typ)
	a16 := a.As16()
	return append(b, a16[:]...)
}

// appendGateway appends g (nothing when invalid) as RTA_GATEWAY, or as
// RTA_VIA (struct rtvia: family, address) for an IPv6 gateway of an IPv4
// route.
func appendGateway(b []byte, dst4 bool, g netip.Addr) []byte {
	switch {
	case !g.IsValid():
		return b
	case dst4 && g.Is6():
		b = ne.AppendUint16(b, 4+2+16)
		b = ne.AppendUint16(b, rtaVia)
		b = ne.AppendUint16(b, afInet6)
		a16 := g.As16()
		return append(append(b, a16[:]...), 0, 0) // padding to 24
	}
	return appendAddrAttr(b, rtaGateway, g)
}

// nextAttr splits the first netlink attribute off b: its type (without the
// nested and byte-order flags) and value, and the attributes after it. ok is
// false when b holds no whole attribute.
func nextAttr(b []byte) (typ uint16, v, rest []byte, ok bool) {
	if len(b) < 4 {
		return 0, nil, nil, false
	}
	l := int(ne.Uint16(b))
	if l < 4 || l > len(b) {
		return 0, nil, nil, false
	}
	typ, v = ne.Uint16(b[2:])&0x3fff, b[4:l]
	if al := (l + 3) &^ 3; al < len(b) {
		rest = b[al:]
	}
	return typ, v, rest, true
}

// routeMeta is what a route message says besides its Route.
type routeMeta struct {
	Protocol, Type, Scope uint8
	Flags                 uint32 // rtm_flags
	Metric                uint32 // RTA_PRIORITY (0 when absent)
}

// ours reports whether a parsed route is one of ours (a route of the
// kernel's cache, RTM_F_CLONED, never is).
func (m routeMeta) ours() bool {
	return m.Protocol == Protocol && m.Type == rtnUnicast && m.Metric == Metric && m.Flags&rtmFCloned == 0
}

// parseRoute parses the body (after the netlink header) of an RTM_NEWROUTE
// or RTM_DELROUTE message: ok is false when it is not an IPv4 or IPv6 route
// or is malformed. The next hops are appended to *arena when arena is not
// nil (the caller's slab: a dump of many routes then allocates little) and
// normalized. It never panics.
func parseRoute(body []byte, arena *[]NextHop) (r Route, m routeMeta, ok bool) {
	if len(body) < rtmsgLen {
		return r, m, false
	}
	fam, dstLen := body[0], int(body[1])
	r.Table = uint32(body[4])
	m.Protocol, m.Scope, m.Type = body[5], body[6], body[7]
	m.Flags = ne.Uint32(body[8:])
	alen := 16
	switch fam {
	case afInet:
		alen = 4
	case afInet6:
	default:
		return r, m, false
	}
	if dstLen > alen*8 {
		return r, m, false
	}
	var local []NextHop
	nhs := &local
	if arena != nil {
		nhs = arena
	}
	first := len(*nhs)
	var dst []byte
	var one NextHop
	haveOne, multipath := false, false
	for b := body[rtmsgLen:]; len(b) > 0; {
		typ, v, rest, aok := nextAttr(b)
		if !aok {
			return r, m, false
		}
		b = rest
		switch typ {
		case rtaDst:
			if len(v) != alen {
				return r, m, false
			}
			dst = v
		case rtaTable:
			if len(v) != 4 {
				return r, m, false
			}
			r.Table = ne.Uint32(v)
		case rtaPriority:
			if len(v) != 4 {
				return r, m, false
			}
			m.Metric = ne.Uint32(v)
		case rtaOIF:
			if len(v) != 4 || int32(ne.Uint32(v)) < 0 {
				return r, m, false
			}
			one.Ifindex, haveOne = int(ne.Uint32(v)), true
		case rtaGateway, rtaVia:
			g, gok := parseGateway(typ, v, alen)
			if !gok {
				return r, m, false
			}
			one.Gateway, haveOne = g, true
		case rtaMultipath:
			if multipath {
				return r, m, false
			}
			multipath = true
			var mok bool
			if *nhs, mok = parseMultipath(*nhs, v, alen); !mok {
				return r, m, false
			}
		}
	}
	var a netip.Addr
	switch {
	case dst != nil && alen == 4:
		a = netip.AddrFrom4([4]byte(dst))
	case dst != nil:
		a = netip.AddrFrom16([16]byte(dst))
	case alen == 4:
		a = netip.IPv4Unspecified()
	default:
		a = netip.IPv6Unspecified()
	}
	r.Dst = netip.PrefixFrom(a, dstLen).Masked()
	if haveOne && !multipath {
		*nhs = append(*nhs, one)
	}
	if len(*nhs) > first {
		r.NextHops = (*nhs)[first:len(*nhs):len(*nhs)]
		r.Normalize()
		*nhs = (*nhs)[:first+len(r.NextHops)]
	}
	return r, m, true
}

// parseGateway parses an RTA_GATEWAY (an address of the route's family,
// alen bytes) or an RTA_VIA (struct rtvia).
func parseGateway(typ uint16, v []byte, alen int) (netip.Addr, bool) {
	if typ == rtaVia {
		if len(v) < 2 {
			return netip.Addr{}, false
		}
		switch ne.Uint16(v) {
		case afInet:
			alen = 4
		case afInet6:
			alen = 16
		default:
			return netip.Addr{}, false
		}
		v = v[2:]
		if len(v) < alen {
			return netip.Addr{}, false
		}
		v = v[:alen] // the kernel pads the attribute, not the struct
	}
	switch len(v) {
	case 4:
		if alen == 4 {
			return netip.AddrFrom4([4]byte(v)), true
		}
	case 16:
		if alen == 16 {
			return netip.AddrFrom16([16]byte(v)), true
		}
	}
	return netip.Addr{}, false
}

// parseMultipath appends the next hops of an RTA_MULTIPATH (struct
// rtnexthop entries, each with its attributes) to nhs.
func parseMultipath(nhs []NextHop, v []byte, alen int) ([]NextHop, bool) {
	for n := 0; len(v) > 0; n++ {
		if len(v) < rtnhLen || n == maxNextHops {
			return nhs, false
		}
		l := int(ne.Uint16(v))
		if l < rtnhLen || l > len(v) {
			return nhs, false
		}
		ifindex := int32(ne.Uint32(v[4:]))
		if ifindex < 0 {
			return nhs, false
		}
		nh := NextHop{Ifindex: int(ifindex)}
		for b := v[rtnhLen:l]; len(b) > 0; {
			typ, av, rest, ok := nextAttr(b)
			if !ok {
				return nhs, false
			}
			b = rest
			if typ == rtaGateway || typ == rtaVia {
				g, gok := parseGateway(typ, av, alen)
				if !gok {
					return nhs, false
				}
				nh.Gateway = g
			}
		}
		nhs = append(nhs, nh)
		if al := (l + 3) &^ 3; al < len(v) {
			v = v[al:]
		} else {
			v = nil
		}
	}
	return nhs, true
}

// parseAck parses the body of an NLMSG_ERROR message with header flags
// flags: the errno (0 for an ack), the sequence number of the request, and
// the kernel's message (extended ack) if any.
func parseAck(body []byte, flags uint16) (errno int32, seq uint32, msg string, ok bool) {
	if len(body) < 4+nlmsgHdrLen {
		return 0, 0, "", false
	}
	errno = -int32(ne.Uint32(body))
	seq = ne.Uint32(body[4+8:])
	if flags&nlmFAckTLVs == 0 {
		return errno, seq, "", true
	}
	rest := body[4+nlmsgHdrLen:]
	if flags&nlmFCapped == 0 {
		// The request is echoed whole: skip it.
		l := int(ne.Uint32(body[4:]))
		if l < nlmsgHdrLen || 4+l > len(body) {
			return errno, seq, "", true
		}
		rest = body[4+((l+3)&^3):]
	}
	for len(rest) > 0 {
		typ, v, r, aok := nextAttr(rest)
		if !aok {
			break
		}
		rest = r
		if typ == nlmsgerrAttrMsg {
			if i := slices.Index(v, 0); i >= 0 {
				v = v[:i]
			}
			msg = string(v)
		}
	}
	return errno, seq, msg, true
}

// nextMessage splits the first netlink message off b: its type, flags,
// sequence number and body, and the messages after it.
func nextMessage(b []byte) (typ, flags uint16, seq uint32, body, rest []byte, ok bool) {
	if len(b) < nlmsgHdrLen {
		return 0, 0, 0, nil, nil, false
	}
	l := int(ne.Uint32(b))
	if l < nlmsgHdrLen || l > len(b) {
		return 0, 0, 0, nil, nil, false
	}
	typ, flags, seq = ne.Uint16(b[4:]), ne.Uint16(b[6:]), ne.Uint32(b[8:])
	body = b[nlmsgHdrLen:l]
	if al := (l + 3) &^ 3; al < len(b) {
		rest = b[al:]
	}
	return typ, flags, seq, body, rest, true
}

// appendDumpRequest appends an RTM_GETROUTE dump request for family fam.
// With proto (not 0) a kernel that checks dump requests strictly
// (NETLINK_GET_STRICT_CHK, Linux ≥ 4.20) sends only the routes of that
// protocol, of every table.
func appendDumpRequest(b []byte, fam uint8, proto uint8, seq uint32) []byte {
	start := len(b)
	b = appendHeader(b, rtmGetRoute, nlmFRequest|nlmFDump, seq)
	b = append(b, fam, 0, 0, 0, rtTableUnspec, proto, 0, 0, 0, 0, 0, 0)
	ne.PutUint32(b[start:], uint32(len(b)-start))
	return b
}

// appendGetRequest appends an RTM_GETROUTE request for the route the
// kernel uses to reach a (`ip route get A [oif DEV]`): the kernel's lookup
// (its rules; a VRF device as oif looks in the VRF's table). It asks for
// the table the route was found in (RTM_F_LOOKUP_TABLE). The kernel has
// no lookup in a table given by number.
func appendGetRequest(b []byte, oif int, a netip.Addr, seq uint32) []byte {
	start := len(b)
	b = appendHeader(b, rtmGetRoute, nlmFRequest, seq)
	b = appendRtmsg(b, a, uint8(a.BitLen()), 0, 0, 0, 0, rtmFLookupTable)
	b = appendAddrAttr(b, rtaDst, a)
	if oif != 0 {
		b = appendU32Attr(b, rtaOIF, uint32(oif))
	}
	ne.PutUint32(b[start:], uint32(len(b)-start))
	return b
}

// Link netlink constants (linux/if_link.h).
const (
	rtmGetLink   = 18
	rtmNewLink   = 16
	ifinfomsgLen = 16
	iflaLinkinfo = 18
	iflaInfoKind = 1
	iflaInfoData = 2
	iflaVRFTable = 1
)

// appendLinkDumpRequest appends an RTM_GETLINK dump request.
func appendLinkDumpRequest(b []byte, seq uint32) []byte {
	start := len(b)
	b = appendHeader(b, rtmGetLink, nlmFRequest|nlmFDump, seq)
	b = append(b, make([]byte, ifinfomsgLen)...)
	ne.PutUint32(b[start:], uint32(len(b)-start))
	return b
}

// parseVRF parses the body of an RTM_NEWLINK message: the ifindex and the
// table of a VRF device (ok false for any other device).
func parseVRF(body []byte) (ifindex int, table uint32, ok bool) {
	if len(body) < ifinfomsgLen {
		return 0, 0, false
	}
	ifindex = int(int32(ne.Uint32(body[4:])))
	vrf := false
	for b := body[ifinfomsgLen:]; len(b) > 0; {
		typ, v, rest, aok := nextAttr(b)
		if !aok {
			return 0, 0, false
		}
		b = rest
		if typ != iflaLinkinfo {
			continue
		}
		for li := v; len(li) > 0; {
			lt, lv, lrest, lok := nextAttr(li)
			if !lok {
				return 0, 0, false
			}
			li = lrest
			switch lt {
			case iflaInfoKind:
				vrf = string(bytesTrimNUL(lv)) == "vrf"
			case iflaInfoData:
				for d := lv; len(d) > 0; {
					dt, dv, drest, dok := nextAttr(d)
					if !dok {
						return 0, 0, false
					}
					d = drest
					if dt == iflaVRFTable && len(dv) == 4 {
						table = ne.Uint32(dv)
					}
				}
			}
		}
	}
	return ifindex, table, vrf && table != 0 && ifindex > 0
}

func bytesTrimNUL(b []byte) []byte {
	if i := slices.Index(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}
