package ndp

// ICMPv6 Router Advertisement (RFC 4861 section 4.2).
const (
	icmpv6RouterAdvertisement = 134
	optSourceLinkLayerAddr    = 1
	raHeaderLen               = 16
)

// encodeRA returns an ICMPv6 Router Advertisement: current hop limit 0
// (unspecified), no M/O flags, router lifetime 0 (not a default router:
// RFC 4861 6.2.3 lets a router advertise with lifetime 0 so that hosts do
// not use it as default router, and the kernel still records the sender as
// a neighbor), reachable and retransmit times 0 (unspecified), no prefix
// information, and, when lladdr is not empty, a source link-layer address
// option with lladdr padded to a multiple of 8 octets.
//
// The checksum is left 0: for raw ICMPv6 sockets Linux computes it (RFC 3542
// section 3.1), since only the kernel knows the source address it picks.
func encodeRA(lladdr []byte) []byte {
	n := raHeaderLen
	optLen := 0
	if len(lladdr) > 0 {
		optLen = (2 + len(lladdr) + 7) / 8 * 8
		if optLen/8 > 255 {
			optLen = 0 // cannot be encoded; no link-layer addresses are that long
		}
	}
	b := make([]byte, n+optLen)
	b[0] = icmpv6RouterAdvertisement
	// b[1] code 0, b[2:4] checksum (kernel), b[4] cur hop limit 0,
	// b[5] flags 0, b[6:8] router lifetime 0, b[8:12] reachable time 0,
	// b[12:16] retrans timer 0.
	if optLen > 0 {
		b[n] = optSourceLinkLayerAddr
		b[n+1] = byte(optLen / 8)
		copy(b[n+2:], lladdr)
	}
	return b
}
