package kdrops

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"strconv"
)

// Key is one counter: drops of Reason from the peer address Addr. Addr is
// an IPv4 address (never v4-mapped) or an IPv6 address, without zone. For
// drops whose address could not be recorded (the table was full, or the
// IP header could not be read) Addr is the zero netip.Addr.
//
// IfIndex is, for an IPv6 link-local source (fe80::/10), the interface the
// segment came in on (skb->skb_iif: the zone the address needs to name a
// peer). It is 0 for every other address, and for link-local ones when the
// kernel's BTF lacks the field or the program could not read it (see
// Counter.IfIndexErr). On an interface enslaved to a VRF it is the VRF
// device's ifindex, not the interface's: drivers/net/vrf.c (vrf_ip6_rcv)
// rewrites skb->dev and skb->skb_iif to the VRF for link-local traffic
// before TCP sees it (the slave's ifindex then lives only in
// IP6CB(skb)->iif, skb->cb, which TCP overwrites later and this package
// does not read).
type Key struct {
	Addr    netip.Addr
	Reason  Reason
	IfIndex uint32
}

func (k Key) String() string {
	if !k.Addr.IsValid() {
		return "unknown/" + k.Reason.String()
	}
	s := k.Addr.String()
	if k.IfIndex != 0 {
		s += "%if" + strconv.FormatUint(uint64(k.IfIndex), 10)
	}
	return s + "/" + k.Reason.String()
}

// linkLocal reports whether a is an IPv6 link-local unicast address, the
// only kind whose key carries an ifindex (the BPF program's test: the
// first 10 bits are fe80::/10).
func linkLocal(a netip.Addr) bool { return a.Is6() && !a.Is4In6() && a.IsLinkLocalUnicast() }

// keySize is the size of the BPF map key, struct { u8 addr[16]; u32
// reason; u32 ifindex; }, in host byte order (the BPF program writes it).
const (
	keySize       = 24
	keyAddrOff    = 0
	keyReasonOff  = 16
	keyIfIndexOff = 20
)

// rawKey is a BPF map key.
type rawKey [keySize]byte

// encodeKey returns the map key for k: the address as 16 bytes, IPv4 as
// ::ffff:a.b.c.d (as the BPF program stores it).
func encodeKey(k Key) rawKey {
	var b rawKey
	a := k.Addr.As16()
	copy(b[keyAddrOff:], a[:])
	binary.NativeEndian.PutUint32(b[keyReasonOff:], uint32(k.Reason))
	binary.NativeEndian.PutUint32(b[keyIfIndexOff:], k.IfIndex)
	return b
}

// decodeKey is the inverse of encodeKey: v4-mapped addresses come back as
// IPv4 (an IPv6 packet cannot carry a v4-mapped source: the kernel drops
// those before TCP sees them). An ifindex on anything but an IPv6
// link-local address is an error: the program never writes one.
func decodeKey(b rawKey) (Key, error) {
	r := binary.NativeEndian.Uint32(b[keyReasonOff:])
	if r == 0 || r >= uint32(numReasons) {
		return Key{}, fmt.Errorf("kdrops: map key has unknown reason %d", r)
	}
	addr := netip.AddrFrom16([16]byte(b[keyAddrOff : keyAddrOff+16])).Unmap()
	ifindex := binary.NativeEndian.Uint32(b[keyIfIndexOff:])
	if ifindex != 0 && !linkLocal(addr) {
		return Key{}, fmt.Errorf("kdrops: map key has ifindex %d on %v, which is not IPv6 link-local", ifindex, addr)
	}
	return Key{Addr: addr, Reason: Reason(r), IfIndex: ifindex}, nil
}
