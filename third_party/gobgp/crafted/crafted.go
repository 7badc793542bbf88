// Package crafted holds the crafted BGP messages of the 2026 GoBGP
// advisories, and of the decoder bugs upstream's fuzzing found, that the
// carried GoBGP's patches fix (third_party/gobgp/SECURITY.md): each with
// what the fixed copy does with it, and a raw BGP peer that sends whatever
// bytes it is given. The carry's tests send them to an in-process GoBGP
// server (crafted_test.go); the end-to-end tests send them to the daemon
// over keyed sessions (e2e, e2e/vmtest).
//
// It imports GoBGP's packet package only, for its constants: the carry's
// tests copy it into a module of their own, built on a copy of GoBGP with
// some of the patches left out.
package crafted

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"time"

	"github.com/osrg/gobgp/v3/pkg/packet/bgp"
)

// ---------------------------------------------------------------- encoding

// Msg is a BGP message: marker, length, type, body.
func Msg(typ byte, body []byte) []byte {
	b := make([]byte, 19, 19+len(body))
	for i := range 16 {
		b[i] = 0xff
	}
	binary.BigEndian.PutUint16(b[16:], uint16(19+len(body)))
	b[18] = typ
	return append(b, body...)
}

// Attr is a path attribute, with the extended length flag when needed.
func Attr(flags byte, typ bgp.BGPAttrType, val []byte) []byte {
	if len(val) > 255 {
		b := []byte{flags | 0x10, byte(typ), 0, 0}
		binary.BigEndian.PutUint16(b[2:], uint16(len(val)))
		return append(b, val...)
	}
	return append([]byte{flags, byte(typ), byte(len(val))}, val...)
}

// Update is an UPDATE with these withdrawn routes, attributes and NLRI.
func Update(withdrawn, attrs, nlri []byte) []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(len(withdrawn)))
	b = append(b, withdrawn...)
	b = binary.BigEndian.AppendUint16(b, uint16(len(attrs)))
	b = append(b, attrs...)
	return Msg(bgp.BGP_MSG_UPDATE, append(b, nlri...))
}

// Cat concatenates.
func Cat(bs ...[]byte) []byte { return slices.Concat(bs...) }

func u16(v uint16) []byte { return binary.BigEndian.AppendUint16(nil, v) }
func u32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }

// PeerAS is the AS of the raw peer whose routes the cases carry.
const PeerAS = 64501

// Prefix is the prefix the cases announce, as GoBGP prints it.
const Prefix = "198.51.100.0/24"

// Origin is an ORIGIN IGP attribute.
var Origin = Attr(0x40, bgp.BGP_ATTR_TYPE_ORIGIN, []byte{0})

// ASPath is an AS_PATH of PeerAS alone (4-octet AS numbers: the sessions
// negotiate them).
var ASPath = ASPathOf(bgp.BGP_ASPATH_ATTR_TYPE_SEQ, PeerAS)

// ASPathOf is an AS_PATH of one segment of type typ.
func ASPathOf(typ uint8, as ...uint32) []byte {
	v := []byte{typ, byte(len(as))}
	for _, a := range as {
		v = append(v, u32(a)...)
	}
	return Attr(0x40, bgp.BGP_ATTR_TYPE_AS_PATH, v)
}

// NextHop is a NEXT_HOP attribute.
func NextHop(nh [4]byte) []byte { return Attr(0x40, bgp.BGP_ATTR_TYPE_NEXT_HOP, nh[:]) }

// NLRI is the IPv4 NLRI of a /24.
func NLRI24(a, b, c byte) []byte { return []byte{24, a, b, c} }

// Open is the raw peer's OPEN: AS as, hold time 90 s, BGP Identifier id,
// 4-octet AS, IPv4 and IPv6 unicast, route refresh.
func Open(as uint32, id [4]byte) []byte {
	caps := Cat(
		[]byte{byte(bgp.BGP_CAP_MULTIPROTOCOL), 4, 0, 1, 0, 1},
		[]byte{byte(bgp.BGP_CAP_MULTIPROTOCOL), 4, 0, 2, 0, 1},
		[]byte{byte(bgp.BGP_CAP_ROUTE_REFRESH), 0},
		Cat([]byte{byte(bgp.BGP_CAP_FOUR_OCTET_AS_NUMBER), 4}, u32(as)),
	)
	b := Cat([]byte{4}, u16(uint16(min(as, bgp.AS_TRANS))), u16(90), id[:])
	b = append(b, byte(2+len(caps)), 2, byte(len(caps)))
	return Msg(bgp.BGP_MSG_OPEN, append(b, caps...))
}

// Keepalive is a KEEPALIVE.
var Keepalive = Msg(bgp.BGP_MSG_KEEPALIVE, nil)

// ---------------------------------------------------------------- outcomes

// Outcome is what GoBGP does with a crafted message.
type Outcome struct {
	// Reset: the session ended with a NOTIFICATION of Code/Subcode.
	Reset         bool
	Code, Subcode uint8
	// Otherwise the session stays up; Handling is the strongest handling
	// GoBGP reports for the message (NONE: it found no error), Taken says
	// Prefix is in the peer's Adj-RIB-In, with AS path ASPath.
	Handling bgp.ErrorHandling
	Taken    bool
	ASPath   string
}

// HandlingNames are the words for GoBGP's error handlings.
var HandlingNames = map[bgp.ErrorHandling]string{
	bgp.ERROR_HANDLING_NONE:              "no error",
	bgp.ERROR_HANDLING_ATTRIBUTE_DISCARD: "attribute discarded",
	bgp.ERROR_HANDLING_TREAT_AS_WITHDRAW: "treated as withdraw",
	bgp.ERROR_HANDLING_AFISAFI_DISABLE:   "AFI/SAFI disabled",
	bgp.ERROR_HANDLING_SESSION_RESET:     "session reset",
}

func (o Outcome) String() string {
	if o.Reset {
		return fmt.Sprintf("reset with NOTIFICATION %d/%d (%s)", o.Code, o.Subcode, bgp.NewNotificationErrorCode(o.Code, o.Subcode))
	}
	s := "session up, " + HandlingNames[o.Handling]
	switch {
	case o.Taken && o.ASPath != "":
		s += ", route taken with AS path " + o.ASPath
	case o.Taken:
		s += ", route taken"
	default:
		s += ", route not taken"
	}
	return s
}

// ResetWith is the outcome of a session reset with that NOTIFICATION.
func ResetWith(code, subcode uint8) Outcome {
	return Outcome{Reset: true, Code: code, Subcode: subcode}
}

// ---------------------------------------------------------------- the cases

// Case is one crafted message.
type Case struct {
	Name string
	// Source is the advisory or fix it comes from.
	Source string
	// Message is what the raw peer sends once Established or, with
	// BeforeUp, right after its OPEN.
	Message  []byte
	BeforeUp bool
	// Confed: the receiver must be in a confederation with PeerAS.
	Confed bool
	// Want is what the fixed copy does; Panics says the copy without the
	// fixes panics on it (and, with the recovery patch, resets the
	// session with the message type's error, subcode Unspecific).
	Want   Outcome
	Panics bool
	// Before, when set, is what the copy without the fixes does with a
	// message it does not panic on, where that differs from Want.
	Before *Outcome
	// Injected marks the case of the ORIGIN decoder made to panic on 0xee
	// (only a copy of GoBGP that was made to has it).
	Injected bool
	// Reason, when set, is part of the reason the fixed copy reports.
	Reason string
	// DecodeOK says bgp.ParseBGPMessage alone accepts the message
	// (decoding only; validation and the table come after).
	DecodeOK bool
}

// prefixSID is a Prefix-SID attribute (type 40) holding these TLVs.
func prefixSID(tlvs ...[]byte) []byte {
	return Attr(0xc0, bgp.BGP_ATTR_TYPE_PREFIX_SID, Cat(tlvs...))
}

// srv6L3Service is an SRv6 L3 Service TLV (type 5) with these sub-TLVs.
func srv6L3Service(subs ...[]byte) []byte {
	v := Cat([]byte{0}, Cat(subs...)) // reserved
	return Cat([]byte{5}, u16(uint16(len(v))), v)
}

// srv6SIDInformation is an SRv6 SID Information Sub-TLV (type 1) whose
// Length field says length, holding the SID, flags 0, endpoint behavior
// 0x0013 (End.DT4) and these sub-sub-TLVs.
func srv6SIDInformation(length uint16, sid [16]byte, subs ...[]byte) []byte {
	v := Cat([]byte{0}, sid[:], []byte{0, 0, 0x13, 0}, Cat(subs...))
	return Cat([]byte{1}, u16(length), v)
}

// PrefixSIDWithUnknowns are Prefix-SID attributes holding what GoBGP does
// not know beside what it does, each to be relayed as it came: an SRv6 L3
// Service TLV with a sub-TLV of an unknown type, one whose SID Information
// Sub-TLV holds a sub-sub-TLV of an unknown type, and a TLV of an unknown
// type before an SRv6 L3 Service TLV.
func PrefixSIDWithUnknowns() map[string][]byte {
	sid := [16]byte{0xfc, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x42}
	info := srv6SIDInformation(21, sid)
	return map[string][]byte{
		"unknown SRv6 service sub-TLV": prefixSID(srv6L3Service(info, []byte{0xff, 0, 3, 1, 2, 3})),
		"unknown SID information sub-sub-TLV": prefixSID(srv6L3Service(srv6SIDInformation(21+6, sid,
			[]byte{0xfe, 0, 3, 7, 8, 9}))),
		"unknown Prefix-SID TLV": prefixSID(Cat([]byte{0x99}, u16(2), []byte{0xab, 0xcd}), srv6L3Service(info)),
	}
}

// srPolicyTunnel is a Tunnel Encapsulation attribute (type 23) with one SR
// Policy tunnel (type 15) holding a segment list with these sub-TLVs.
func srPolicyTunnel(segs ...[]byte) []byte {
	list := Cat([]byte{0}, Cat(segs...)) // reserved
	return SRPolicyTunnelOf(Cat([]byte{128}, u16(uint16(len(list))), list))
}

// SRPolicyTunnelOf is a Tunnel Encapsulation attribute (type 23) with one
// SR Policy tunnel (type 15) holding these sub-TLVs.
func SRPolicyTunnelOf(subs ...[]byte) []byte {
	v := Cat(subs...)
	return Attr(0xc0, bgp.BGP_ATTR_TYPE_TUNNEL_ENCAP, Cat(u16(15), u16(uint16(len(v))), v))
}

// CandidatePathName is an SR Policy Candidate Path Name sub-TLV (type
// 129: a reserved octet and the name).
func CandidatePathName(name string) []byte {
	return Cat([]byte{129}, u16(uint16(1+len(name))), []byte{0}, []byte(name))
}

// mpReach is an MP_REACH_NLRI attribute.
func mpReach(afi uint16, safi uint8, nh, nlri []byte) []byte {
	v := Cat(u16(afi), []byte{safi, byte(len(nh))}, nh, []byte{0}, nlri)
	return Attr(0x80, bgp.BGP_ATTR_TYPE_MP_REACH_NLRI, v)
}

// Cases are the crafted messages of a peer whose routes have next hop nh
// (its own address: a next hop the receiver accepts), in order.
func Cases(nh [4]byte) []Case {
	nextHop := NextHop(nh)
	nlri := NLRI24(198, 51, 100)
	flowspec := mpReach(bgp.AFI_IP, bgp.SAFI_FLOW_SPEC_UNICAST, nil, []byte{5, 1, 24, 198, 51, 100}) // destination 198.51.100.0/24
	return []Case{
		{
			Name:     "injected-decoder-panic",
			Source:   "the ORIGIN decoder made to panic on purpose",
			Message:  Update(nil, Cat(Attr(0x40, bgp.BGP_ATTR_TYPE_ORIGIN, []byte{0xee}), ASPath, nextHop), nlri),
			Injected: true,
			Panics:   true,
		},
		{
			Name:   "prefix-sid-srv6-unknown-subtlv",
			Source: "CVE-2026-7734 (GHSA-vm3g-8xwv-mxfp, fix f9f7b55)",
			// An SRv6 L3 Service TLV whose one sub-TLV is of a type
			// GoBGP does not know (valid BGP: it is to be skipped).
			Message:  Update(nil, Cat(Origin, ASPath, nextHop, prefixSID(srv6L3Service([]byte{0xff, 0, 3, 1, 2, 3}))), nlri),
			Want:     Outcome{Taken: true, ASPath: "64501"},
			Panics:   true,
			DecodeOK: true,
		},
		{
			Name:   "prefix-sid-srv6-zero-length-tlv",
			Source: "decoder hardening (ac5a8894)",
			// An SRv6 L3 Service TLV of length 0 (no room for its
			// reserved octet), then a TLV of an unknown type.
			Message: Update(nil, Cat(Origin, ASPath, nextHop, prefixSID(Cat([]byte{5}, u16(0)), Cat([]byte{0xff}, u16(0)))), nlri),
			// RFC 8669 section 7: a malformed Prefix-SID is discarded.
			Want:   Outcome{Handling: bgp.ERROR_HANDLING_ATTRIBUTE_DISCARD, Taken: true, ASPath: "64501"},
			Panics: true,
		},
		{
			Name:   "prefix-sid-srv6-sid-information-length-5",
			Source: "Prefix-SID declared lengths (b6c58c87, 5f30deb3)",
			// The SID Information Sub-TLV says Length 5 (RFC 9252
			// section 7: malformed below 21) but its fixed fields follow
			// in full, the tail of the SID reading as one more sub-TLV
			// of an unknown type: v3.37 decoded it, and panicked
			// serializing it for the path's hash (table.ProcessMessage).
			Message: Update(nil, Cat(Origin, ASPath, nextHop, prefixSID(srv6L3Service(
				srv6SIDInformation(5, [16]byte{0xfc, 0, 0, 1, 0xff, 0, 13})))), nlri),
			Want:   Outcome{Handling: bgp.ERROR_HANDLING_ATTRIBUTE_DISCARD, Taken: true, ASPath: "64501"},
			Panics: true,
		},
		{
			Name:   "prefix-sid-srv6-sid-structure-length-1",
			Source: "Prefix-SID declared lengths (b6c58c87)",
			// A SID Structure Sub-Sub-TLV of Length 1 (RFC 9252 section
			// 3.2.1: it is 6) with its six octets there, the last five
			// reading as a sub-sub-TLV of an unknown type: v3.37 decoded
			// it with its six fields, and panicked serializing it into
			// the one octet its Length gives (the path hash).
			Message: Update(nil, Cat(Origin, ASPath, nextHop, prefixSID(srv6L3Service(
				srv6SIDInformation(21+9, [16]byte{0xfc, 0, 0, 1}, Cat([]byte{1}, u16(1), []byte{40, 0xfe, 0, 2, 16, 64}))))), nlri),
			Want:   Outcome{Handling: bgp.ERROR_HANDLING_ATTRIBUTE_DISCARD, Taken: true, ASPath: "64501"},
			Panics: true,
		},
		{
			Name:   "as4-path-before-as-path",
			Source: "CVE-2026-41643 (GHSA-8rxh-r2p6-7f2q, fix 9fe96a9)",
			// AS_PATH 64501 23456 with AS4_PATH 4200000001 before it
			// (and AS_PATH last): the merge gives 64501 4200000001.
			Message: Update(nil, Cat(Origin, nextHop,
				Attr(0xc0, bgp.BGP_ATTR_TYPE_AS4_PATH, Cat([]byte{bgp.BGP_ASPATH_ATTR_TYPE_SEQ, 1}, u32(4200000001))),
				ASPathOf(bgp.BGP_ASPATH_ATTR_TYPE_SEQ, PeerAS, bgp.AS_TRANS)), nlri),
			Want:     Outcome{Taken: true, ASPath: "64501 4200000001"},
			Panics:   true,
			DecodeOK: true,
		},
		{
			Name:   "as-set-cut-to-nothing",
			Source: "found writing Fuzz4ByteAs (patch 0025; upstream v4.9.0 the same)",
			// AS_PATH AS_SET{64501, 23456} (one AS) with AS4_PATH
			// 4200000001 (one AS): none of the AS_PATH is kept (RFC
			// 6793 4.2.3). Unpatched, the set was cut to an empty
			// segment, relayed as a malformed AS_PATH.
			Message: Update(nil, Cat(Origin, nextHop,
				ASPathOf(bgp.BGP_ASPATH_ATTR_TYPE_SET, PeerAS, bgp.AS_TRANS),
				Attr(0xc0, bgp.BGP_ATTR_TYPE_AS4_PATH, Cat([]byte{bgp.BGP_ASPATH_ATTR_TYPE_SEQ, 1}, u32(4200000001)))), nlri),
			Want:     Outcome{Taken: true, ASPath: "4200000001"},
			Before:   &Outcome{Taken: true, ASPath: "{} 4200000001"},
			DecodeOK: true,
		},
		{
			Name:   "tunnel-encap-zero-length-type-a-segment",
			Source: "SR Policy decoder fixes (ac5a8894)",
			// On a plain IPv4 unicast route.
			Message: Update(nil, Cat(Origin, ASPath, nextHop, srPolicyTunnel([]byte{1, 0})), nlri),
			Want:    Outcome{Handling: bgp.ERROR_HANDLING_ATTRIBUTE_DISCARD, Taken: true, ASPath: "64501"},
			Panics:  true,
		},
		{
			Name:   "tunnel-encap-candidate-path-name-last",
			Source: "SR Policy candidate path name over-read (7204bf9d)",
			// A Candidate Path Name sub-TLV as the UPDATE's last octets
			// (no NLRI follows): v3.37 read three octets past it.
			Message:  Update(nil, Cat(Origin, ASPath, nextHop, SRPolicyTunnelOf(CandidatePathName("gold"))), nil),
			Want:     Outcome{},
			Panics:   true,
			DecodeOK: true,
		},
		{
			Name:     "unknown-message-type-before-established",
			Source:   "osrg/gobgp#3325 (fix a38edb2)",
			Message:  Msg(0xff, nil),
			BeforeUp: true,
			Want:     ResetWith(bgp.BGP_ERROR_MESSAGE_HEADER_ERROR, bgp.BGP_ERROR_SUB_BAD_MESSAGE_TYPE),
			Panics:   true,
		},
		{
			Name:    "unknown-message-type-established",
			Source:  "osrg/gobgp#3325 (fix a38edb2)",
			Message: Msg(0xff, nil),
			Want:    ResetWith(bgp.BGP_ERROR_MESSAGE_HEADER_ERROR, bgp.BGP_ERROR_SUB_BAD_MESSAGE_TYPE),
			Panics:  true,
		},
		{
			Name:   "mp-reach-vpnv4-short-nlri",
			Source: "decoder hardening (ac5a8894): GetRouteDistinguisher",
			// VPN-IPv4 (never negotiated): a 112-bit prefix of which
			// only the label and two octets of the route distinguisher
			// are there.
			Message: Update(nil, Cat(Origin, ASPath,
				mpReach(bgp.AFI_IP, bgp.SAFI_MPLS_VPN, Cat(make([]byte, 8), nh[:]), []byte{112, 0, 0, 1, 0, 0})), nil),
			// RFC 7606 section 7.11: the AFI/SAFI is disabled.
			Want:   Outcome{Handling: bgp.ERROR_HANDLING_AFISAFI_DISABLE},
			Panics: true,
		},
		{
			Name:   "treat-as-withdraw-vpnv4-without-bottom-of-stack",
			Source: "MPLS label stack without bottom of stack (7b3e5553)",
			// ORIGIN of the wrong length (treat-as-withdraw) with a
			// VPN-IPv4 NLRI whose labels never set the bottom-of-stack
			// bit: v3.37 decoded an empty label stack, and panicked
			// serializing the withdrawal it made of it.
			Message: Update(nil, Cat(Attr(0x40, bgp.BGP_ATTR_TYPE_ORIGIN, []byte{0, 0}), ASPath,
				mpReach(bgp.AFI_IP, bgp.SAFI_MPLS_VPN, Cat(make([]byte, 8), nh[:]),
					// 88 bits: route distinguisher 0:512:131076 and
					// 198.51.100.0/24, read as three labels without
					// the bit.
					[]byte{88, 0, 0, 2, 0, 0, 2, 0, 4, 198, 51, 100})), nil),
			// RFC 7606 section 7.11: the MP_REACH_NLRI is malformed. The
			// panic needs patch 0008 (before it, the withdrawal's family
			// reset the session with code 0).
			Want:   Outcome{Handling: bgp.ERROR_HANDLING_AFISAFI_DISABLE},
			Before: &Outcome{Reset: true},
		},
		{
			Name:    "next-hop-length-2",
			Source:  "CVE-2026-30405 (GHSA-4p9m-8gc4-rw2h, fixes 583080a7, f12b8fbb)",
			Message: Update(nil, Cat(Origin, ASPath, Attr(0x40, bgp.BGP_ATTR_TYPE_NEXT_HOP, nh[:2])), nlri),
			Want:    Outcome{Handling: bgp.ERROR_HANDLING_TREAT_AS_WITHDRAW},
		},
		{
			Name:   "discarded-attribute-and-no-next-hop",
			Source: "how patch 0008 differs from upstream 583080a7",
			// A malformed Prefix-SID (discarded) in an UPDATE without a
			// NEXT_HOP: the discard must not skip the check for missing
			// well-known attributes (RFC 7606 section 3 d:
			// treat-as-withdraw).
			Message: Update(nil, Cat(Origin, ASPath, prefixSID(Cat([]byte{5}, u16(0)), Cat([]byte{0xff}, u16(0)))), nlri),
			Want:    Outcome{Handling: bgp.ERROR_HANDLING_TREAT_AS_WITHDRAW},
			Reason:  "SRv6ServiceTLV malformed; well-known mandatory attributes are not present",
			Panics:  true,
		},
		{
			Name:     "unknown-well-known-attribute",
			Source:   "CVE-2026-41642 (GHSA-7235-89m6-f4px, fix 215aee08)",
			Message:  Update(nil, Cat(Origin, ASPath, nextHop, Attr(0x40, 0xf0, []byte{1})), nlri),
			Want:     ResetWith(bgp.BGP_ERROR_UPDATE_MESSAGE_ERROR, bgp.BGP_ERROR_SUB_UNRECOGNIZED_WELL_KNOWN_ATTRIBUTE),
			DecodeOK: true,
		},
		{
			Name:   "treat-as-withdraw-unconfigured-family",
			Source: "CVE-2026-42285 (GHSA-p3w2-64xm-833j, fix d2d2be3e)",
			// ORIGIN of the wrong length (treat-as-withdraw) with an
			// MP_REACH_NLRI of IPv4 flowspec, a family never configured.
			Message: Update(nil, Cat(Attr(0x40, bgp.BGP_ATTR_TYPE_ORIGIN, []byte{0, 0}), ASPath, flowspec), nil),
			Want:    Outcome{Handling: bgp.ERROR_HANDLING_TREAT_AS_WITHDRAW},
			Before:  &Outcome{Reset: true},
		},
		{
			Name:   "mp-reach-unconfigured-family",
			Source: "CVE-2026-42285's NOTIFICATION (patch 0011)",
			// A well-formed IPv4 flowspec route, a family never
			// negotiated: v3.37 reset the session with a NOTIFICATION
			// of code 0.
			Message:  Update(nil, Cat(Origin, ASPath, flowspec), nil),
			Want:     ResetWith(bgp.BGP_ERROR_UPDATE_MESSAGE_ERROR, bgp.BGP_ERROR_SUB_OPTIONAL_ATTRIBUTE_ERROR),
			Before:   &Outcome{Reset: true},
			DecodeOK: true,
		},
		{
			Name:    "ipv6-extended-community-8-bytes",
			Source:  "CVE-2026-37461 (fix 362cce3e)",
			Message: Update(nil, Cat(Origin, ASPath, nextHop, Attr(0xc0, bgp.BGP_ATTR_TYPE_IP6_EXTENDED_COMMUNITIES, []byte{0, 2, 0, 0, 0, 0, 0, 1})), nlri),
			Want:    Outcome{Handling: bgp.ERROR_HANDLING_TREAT_AS_WITHDRAW},
		},
		{
			Name:   "path-attribute-length-underflow",
			Source: "CVE-2026-37462 (fix 9ce89366)",
			// The attributes' total length ends one octet inside
			// NEXT_HOP, and a MED follows where the NLRI would be:
			// v3.37 wrapped the remaining length around and read on.
			Message: func() []byte {
				attrs := Cat(Origin, ASPath, nextHop)
				med := Attr(0x80, bgp.BGP_ATTR_TYPE_MULTI_EXIT_DISC, u32(1))
				return Msg(bgp.BGP_MSG_UPDATE, Cat(u16(0), u16(uint16(len(attrs)-1)), attrs, med))
			}(),
			Want:   Outcome{Handling: bgp.ERROR_HANDLING_TREAT_AS_WITHDRAW},
			Reason: "exceeds path attributes boundary",
			Before: &Outcome{Reset: true, Code: bgp.BGP_ERROR_UPDATE_MESSAGE_ERROR, Subcode: bgp.BGP_ERROR_SUB_ATTRIBUTE_LENGTH_ERROR},
		},
		{
			Name:   "withdrawn-length-underflow",
			Source: "CVE-2026-37462 (fix 9ce89366)",
			// The withdrawn routes' length says 1, and the one
			// withdrawn /8 takes 2.
			Message: Msg(bgp.BGP_MSG_UPDATE, Cat(u16(1), []byte{8, 10}, u16(0))),
			Want:    ResetWith(bgp.BGP_ERROR_UPDATE_MESSAGE_ERROR, bgp.BGP_ERROR_SUB_MALFORMED_ATTRIBUTE_LIST),
			Reason:  "exceeds withdrawn routes boundary",
		},
		{
			Name:     "confederation-empty-as-path",
			Source:   "GHSA-frrj-87jh-2772 (fix 4a319a6)",
			Confed:   true,
			Message:  Update(nil, Cat(Origin, Attr(0x40, bgp.BGP_ATTR_TYPE_AS_PATH, nil), nextHop), nlri),
			Want:     ResetWith(bgp.BGP_ERROR_UPDATE_MESSAGE_ERROR, bgp.BGP_ERROR_SUB_MALFORMED_AS_PATH),
			Panics:   true,
			DecodeOK: true,
		},
	}
}

// ---------------------------------------------------------------- the peer

// Peer is one end of a BGP session that sends whatever bytes it is given,
// over a connection its caller made (keyed or not).
type Peer struct {
	Conn net.Conn
}

// Send writes b within 5 s.
func (p *Peer) Send(b []byte) error {
	p.Conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	_, err := p.Conn.Write(b)
	return err
}

// Next reads the next message (type and body) within d.
func (p *Peer) Next(d time.Duration) (byte, []byte, error) {
	p.Conn.SetReadDeadline(time.Now().Add(d))
	h := make([]byte, 19)
	if _, err := io.ReadFull(p.Conn, h); err != nil {
		return 0, nil, err
	}
	n := int(binary.BigEndian.Uint16(h[16:]))
	if n < 19 {
		return 0, nil, fmt.Errorf("message length %d", n)
	}
	body := make([]byte, n-19)
	if _, err := io.ReadFull(p.Conn, body); err != nil {
		return 0, nil, err
	}
	return h[18], body, nil
}

// Expect reads, within d, until a message of type typ, skipping KEEPALIVEs
// and UPDATEs.
func (p *Peer) Expect(typ byte, d time.Duration) ([]byte, error) {
	deadline := time.Now().Add(d)
	for {
		got, body, err := p.Next(time.Until(deadline))
		if err != nil {
			return nil, fmt.Errorf("waiting for a message of type %d: %w", typ, err)
		}
		if got == typ {
			return body, nil
		}
		if got != bgp.BGP_MSG_KEEPALIVE && got != bgp.BGP_MSG_UPDATE {
			return nil, fmt.Errorf("waiting for a message of type %d, got type %d (% x)", typ, got, body)
		}
	}
}

// Handshake sends open and waits for the other side's OPEN; then, with
// early nil, completes the handshake (its KEEPALIVE, ours: the other side
// goes Established), else sends early instead.
func (p *Peer) Handshake(open, early []byte) error {
	if err := p.Send(open); err != nil {
		return err
	}
	if _, err := p.Expect(bgp.BGP_MSG_OPEN, 10*time.Second); err != nil {
		return err
	}
	if early != nil {
		return p.Send(early)
	}
	if _, err := p.Expect(bgp.BGP_MSG_KEEPALIVE, 10*time.Second); err != nil {
		return err
	}
	return p.Send(Keepalive)
}

// ErrClosed is Notification's error when the other side closed the
// connection without a NOTIFICATION.
var ErrClosed = errors.New("the connection closed without a NOTIFICATION")

// Notification waits up to d for a NOTIFICATION, skipping other messages:
// its code and subcode and true, or false when none came within d (the
// session is still up, as far as the connection says).
func (p *Peer) Notification(d time.Duration) (code, subcode uint8, ok bool, err error) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		typ, body, err := p.Next(time.Until(deadline))
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return 0, 0, false, nil
		}
		if err != nil {
			return 0, 0, false, fmt.Errorf("%w: %v", ErrClosed, err)
		}
		if typ == bgp.BGP_MSG_NOTIFICATION {
			if len(body) < 2 {
				return 0, 0, false, fmt.Errorf("a NOTIFICATION of %d octets", len(body))
			}
			return body[0], body[1], true, nil
		}
	}
	return 0, 0, false, nil
}
