package srv6policy

// SR Policies in BGP (SAFI 73, RFC 9830) as authbgpd advertises and reads
// them (this file: the numbers they share on the wire):
//
//   - Policy (bgp_policy.go) is a configured policy: validation and
//     identity.
//   - Policy.Path (bgp_advertise.go) builds the GoBGP API path of a
//     configured policy: the SR Policy NLRI (distinguisher, color,
//     endpoint), a Tunnel Encapsulation attribute with one SR Policy TLV
//     (type 15: preference, Binding SID as a 16-byte SID, one segment list
//     with a Weight and SRv6 type-B segments), Route Targets naming the
//     headends (or NO_ADVERTISE), and the HMAC key ID as the Large
//     Community <asn>:8754:<key id>. Never a secret.
//   - DecodePath (bgp_decode.go) decodes a received path from the binary
//     NLRI and path attributes GoBGP's ListPath gives with
//     EnableOnlyBinary, with our own parser: GoBGP's conversion to API form
//     panics on a segment list without a Weight, and runs on GoBGP's
//     goroutines for watches.
//   - Received.Check (bgp_check.go) and SelectBest (bgp_select.go) decide
//     what a headend installs.

// BGP constants of SR policies.
const (
	// LargeCommunityHMAC is the Local Data Part 1 of the Large Community
	// that carries an SR policy's HMAC key ID (<asn>:8754:<key id>; 8754
	// is the RFC that defines the SRH HMAC).
	LargeCommunityHMAC = 8754
	// TunnelTypeSRPolicy is the Tunnel Encapsulation TLV type of an SR
	// Policy (RFC 9830).
	TunnelTypeSRPolicy = 15
	// CommunityNoAdvertise is the well-known community NO_ADVERTISE.
	CommunityNoAdvertise = 0xFFFFFF02
	// DefaultPreference is the preference of a candidate path that
	// carries no Preference sub-TLV (RFC 9256 §2.7).
	DefaultPreference = 100
	// NLRIBitsIPv4 and NLRIBitsIPv6 are the NLRI lengths, in bits, of
	// SR policies with an IPv4 and an IPv6 endpoint (GoBGP's API takes the
	// length in bits; its ListPath reports it in bytes).
	NLRIBitsIPv4 = 96
	NLRIBitsIPv6 = 192

	// Sub-TLVs of the SR Policy TLV (RFC 9830 §2.4).
	subTLVPreference     = 12
	subTLVBindingSID     = 13
	subTLVENLP           = 14
	subTLVPriority       = 15
	subTLVSRv6BindingSID = 20
	subTLVSegmentList    = 128
	// Sub-TLVs of a segment list.
	segSubTLVWeight = 9
	segTypeA        = 1  // SR-MPLS label
	segTypeB        = 13 // SRv6 SID

	// Path attribute types.
	attrOrigin           = 1
	attrCommunities      = 8
	attrExtCommunities   = 16
	attrTunnelEncap      = 23
	attrLargeCommunities = 32
	attrFlagExtLen       = 0x10
)
