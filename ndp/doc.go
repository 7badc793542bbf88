// Package ndp makes unnumbered BGP peers find each other on a bare link.
//
// An unnumbered peer (`interface = "eth1"`, GoBGP's neighbor-interface)
// runs its session between the IPv6 link-local addresses of the two ends of
// a point-to-point link. Nobody configures the far end's address: GoBGP
// learns it from the kernel's IPv6 neighbor table, where it must find
// exactly one usable link-local neighbor on the interface that is not one of
// our own addresses (GetIPv6LinkLocalNeighborAddress in GoBGP's
// pkg/config/oc). GoBGP puts nothing there itself, so on a link where nobody
// has sent anything yet it finds nobody, and keeps finding nobody.
//
// FRR solves this with IPv6 Router Advertisements: zebra sends RAs on every
// interface with an unnumbered BGP neighbor, and bgpd learns the neighbor
// from the RAs it receives. A Linux kernel that receives an RA with a source
// link-layer address option creates a STALE neighbor entry for its source,
// even when it does not accept RAs for configuration (forwarding=1, as on
// every router); TestRAMakesNeighborEntry checks this on the running kernel.
//
// So this package does both halves:
//
//   - Resolve reads the neighbor table over rtnetlink and applies GoBGP's
//     rule (with the one deviation documented at pickNeighbor), returning the
//     peer's address with the interface as its zone, or an error that says
//     why there is no answer (ErrNoNeighbor, ErrManyNeighbors,
//     ErrNoInterface).
//   - Advertiser sends RAs with router lifetime 0 (we are nobody's default
//     router), no prefixes and a source link-layer address option from each
//     wanted interface's link-local address to ff02::1, periodically and at
//     once when an interface appears, comes up or gets its link-local
//     address. That puts us into the peer's neighbor table (an authbgpd peer
//     then Resolves us), and it is what FRR's bgpd waits for before it dials
//     an interface neighbor.
//
// Syscalls live in the *_linux.go files; elsewhere the functions return
// ErrUnsupported. Encoding the RA and parsing rtnetlink messages are pure
// and tested on any OS.
package ndp
