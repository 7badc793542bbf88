package kdrops

import (
	"encoding/binary"
	"fmt"
	"net/netip"
)

// Key is one counter: drops of Reason from the peer address Addr. Addr is
// an IPv4 address (never v4-mapped) or an IPv6 address, without zone. For
// drops whose address could not be recorded (the table was full, or the
// IP header could not be read) Addr is the zero netip.Addr.
type Key struct {
	Addr   netip.Addr
	Reason Reason
}

func (k Key) String() string {
	if !k.Addr.IsValid() {
		return "unknown/" + k.Reason.String()
	}
	return k.Addr.String() + "/" + k.Reason.String()
}

// keySize is the size of the BPF map key, struct { u8 addr[16]; u32
// reason; u32 pad; }, in host byte order (the BPF program writes it).
const (
	keySize      = 24
	keyAddrOff   = 0
	keyReasonOff = 16
	keyPadOff    = 20
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
	return b
}

// decodeKey is the inverse of encodeKey: v4-mapped addresses come back as
// IPv4 (an IPv6 packet cannot carry a v4-mapped source: the kernel drops
// those before TCP sees them).
func decodeKey(b rawKey) (Key, error) {
	r := binary.NativeEndian.Uint32(b[keyReasonOff:])
	if r == 0 || r >= uint32(numReasons) {
		return Key{}, fmt.Errorf("kdrops: map key has unknown reason %d", r)
	}
	if pad := binary.NativeEndian.Uint32(b[keyPadOff:]); pad != 0 {
		return Key{}, fmt.Errorf("kdrops: map key has non-zero padding %#x", pad)
	}
	addr := netip.AddrFrom16([16]byte(b[keyAddrOff : keyAddrOff+16])).Unmap()
	return Key{Addr: addr, Reason: Reason(r)}, nil
}
