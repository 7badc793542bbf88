package tcpsock

import (
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"

	"github.com/authbgp/authbgpd/aocount"
	"github.com/authbgp/authbgpd/keys"
	"github.com/authbgp/authbgpd/tcpao"
)

// TCP-AO (RFC 5925) on Linux sockets: the master key tuples (MKTs) of a
// peer or prefix on a listener or connection, the per-socket current key
// and RNextKeyID, and what the kernel reports back. The layouts of the
// socket options' structs (include/uapi/linux/tcp.h, Linux 6.7+) are
// encoded here by hand, portable and tested; the syscalls are in
// ao_linux.go.

// TCP-AO socket options (IPPROTO_TCP).
const (
	tcpAOAddKey  = 38 // TCP_AO_ADD_KEY
	tcpAODelKey  = 39 // TCP_AO_DEL_KEY
	tcpAOInfo    = 40 // TCP_AO_INFO
	tcpAOGetKeys = 41 // TCP_AO_GET_KEYS
)

// Key flags of an MKT.
const (
	aoKeyfIfindex    = 1 << 0 // TCP_AO_KEYF_IFINDEX
	aoKeyfExcludeOpt = 1 << 1 // TCP_AO_KEYF_EXCLUDE_OPT
)

// Sizes of the structs.
const (
	aoAddSize    = 288 // struct tcp_ao_add
	aoDelSize    = 144 // struct tcp_ao_del
	aoInfoSize   = 48  // struct tcp_ao_info_opt
	aoGetSize    = 304 // struct tcp_ao_getsockopt
	sockaddrSize = 128 // struct __kernel_sockaddr_storage
	// MaxAOSecretLen is TCP_AO_MAXKEYLEN.
	MaxAOSecretLen = 80
)

// The kernel's names of the TCP-AO algorithms, as TCP_AO_ADD_KEY takes
// them: RFC 5926's two, and the HMACs with SHA-2 (tcpao.Algorithm's
// LinuxName).
const (
	AOAlgHMACSHA1   = "hmac(sha1)"
	AOAlgAESCMAC    = "cmac(aes128)"
	AOAlgHMACSHA224 = "hmac(sha224)"
	AOAlgHMACSHA256 = "hmac(sha256)"
	AOAlgHMACSHA384 = "hmac(sha384)"
	AOAlgHMACSHA512 = "hmac(sha512)"
)

// MAC lengths TCP_AO_ADD_KEY takes (maclen, bytes; 0 is the default, 12).
const (
	// MinAOMACLen is the shortest MAC length authbgpd installs.
	MinAOMACLen = tcpao.MinMACLen
	// MaxAOMACLen is the longest Linux takes: the option, rounded up to 4
	// bytes, must fit the 20 bytes a SYN leaves beside MSS, timestamps and
	// window scale (tcp_ao_parse_crypto: EMSGSIZE beyond); never more than
	// the algorithm's digest either (EINVAL).
	MaxAOMACLen = 16
)

// kernelCMAC is what TCP_AO_GET_KEYS calls AES-128-CMAC: Linux renames
// "cmac(aes128)" to its crypto API's "cmac(aes)" when the key is added.
const kernelCMAC = "cmac(aes)"

// ErrAOKey marks an MKT that cannot be installed as given.
var ErrAOKey = errors.New("tcpsock: invalid TCP-AO key")

// AOKey is one TCP-AO master key tuple for a peer address or prefix.
type AOKey struct {
	Prefix netip.Prefix // the peer's address (a /32 or /128) or a range
	// Alg is the kernel's algorithm name (AOAlgHMACSHA1, AOAlgAESCMAC, ...).
	Alg            string
	Secret         keys.Secret
	SendID, RecvID uint8
	// MACLen is the MAC length in bytes (TCP_AO_ADD_KEY's maclen): 0 is
	// the kernel's default, 12.
	MACLen uint8
	// ExcludeOptions: the MAC does not cover the TCP options.
	ExcludeOptions bool
	// IfIndex scopes the MKT to the VRF (L3 master device) with this
	// ifindex (TCP_AO_KEYF_IFINDEX); 0: unscoped, the MKT applies in every
	// VRF. The kernel refuses an ifindex that is not a VRF (ErrScope).
	IfIndex int
}

// String names the key without its secret.
func (k AOKey) String() string {
	s := fmt.Sprintf("tcp-ao key %d/%d for %s", k.SendID, k.RecvID, k.Prefix)
	if k.IfIndex != 0 {
		s += fmt.Sprintf(" ifindex %d", k.IfIndex)
	}
	return s
}

// Validate checks k before it goes to the kernel.
func (k AOKey) Validate() error {
	switch {
	case !k.Prefix.IsValid():
		return fmt.Errorf("%w: %s: no address", ErrAOKey, k)
	case aoAlgorithm(k.Alg) == 0:
		return fmt.Errorf("%w: %s: unknown algorithm %q", ErrAOKey, k, k.Alg)
	case len(k.Secret) == 0 || len(k.Secret) > MaxAOSecretLen:
		return fmt.Errorf("%w: %s: secret of %d bytes (want 1..%d)", ErrAOKey, k, len(k.Secret), MaxAOSecretLen)
	case k.IfIndex < 0:
		return fmt.Errorf("%w: %s: negative ifindex", ErrAOKey, k)
	}
	if n, d := int(k.MACLen), aoAlgorithm(k.Alg).DigestSize(); n != 0 && (n < MinAOMACLen || n > min(MaxAOMACLen, d)) {
		return fmt.Errorf("%w: %s: MAC length %d (want %d..%d for %s)", ErrAOKey, k, n, MinAOMACLen, min(MaxAOMACLen, d), k.Alg)
	}
	return nil
}

// aoAlgorithm is the tcpao algorithm of a kernel name (0: none).
func aoAlgorithm(name string) tcpao.Algorithm {
	for _, a := range tcpao.Algorithms {
		if a.LinuxName() == name {
			return a
		}
	}
	return 0
}

// macLength is k's MAC length as the kernel keeps it (0 is 12).
func (k AOKey) macLength() uint8 {
	if k.MACLen == 0 {
		return tcpao.MACLen
	}
	return k.MACLen
}

// aoSockaddr writes the peer prefix's address into b (a sockaddr_storage
// of a socket of family: IPv4 addresses as v4-mapped on AF_INET6) and
// returns the prefix length the kernel expects.
func aoSockaddr(b []byte, family int, p netip.Prefix) (uint8, error) {
	if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
		p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
	}
	p = p.Masked()
	a := p.Addr()
	switch family {
	case afInet:
		if !a.Is4() {
			return 0, fmt.Errorf("%w: an IPv6 key cannot go on an IPv4 (AF_INET) socket", ErrFamilyMismatch)
		}
		binary.NativeEndian.PutUint16(b[0:], afInet)
		a4 := a.As4()
		copy(b[4:8], a4[:])
	case afInet6:
		binary.NativeEndian.PutUint16(b[0:], afInet6)
		a16 := a.As16()
		copy(b[8:24], a16[:])
	default:
		return 0, fmt.Errorf("%w (address family %d)", ErrNotTCP, family)
	}
	return uint8(p.Bits()), nil
}

// encodeAOAdd builds a struct tcp_ao_add for k on a socket of family.
func encodeAOAdd(b *[aoAddSize]byte, family int, k AOKey, setCurrent, setRNext bool) error {
	clear(b[:])
	prefix, err := aoSockaddr(b[:sockaddrSize], family, k.Prefix)
	if err != nil {
		return err
	}
	copy(b[128:192], k.Alg)
	binary.NativeEndian.PutUint32(b[192:], uint32(int32(k.IfIndex)))
	var bits uint32
	if setCurrent {
		bits |= 1
	}
	if setRNext {
		bits |= 2
	}
	binary.NativeEndian.PutUint32(b[196:], bits)
	b[202], b[203], b[204], b[205] = prefix, k.SendID, k.RecvID, k.MACLen // maclen 0: the default (12)
	b[206] = keyFlags(k)
	b[207] = byte(copy(b[208:288], k.Secret))
	return nil
}

func keyFlags(k AOKey) byte {
	var f byte
	if k.IfIndex != 0 {
		f |= aoKeyfIfindex
	}
	if k.ExcludeOptions {
		f |= aoKeyfExcludeOpt
	}
	return f
}

// encodeAODel builds a struct tcp_ao_del for k's scope and KeyIDs.
func encodeAODel(b *[aoDelSize]byte, family int, k AOKey) error {
	clear(b[:])
	prefix, err := aoSockaddr(b[:sockaddrSize], family, k.Prefix)
	if err != nil {
		return err
	}
	binary.NativeEndian.PutUint32(b[128:], uint32(int32(k.IfIndex)))
	b[138], b[139], b[140] = prefix, k.SendID, k.RecvID
	b[143] = keyFlags(k) & aoKeyfIfindex
	return nil
}

// AOInfo is a socket's TCP-AO state (struct tcp_ao_info_opt).
type AOInfo struct {
	// Current is the SendID of the key we send with; RNext the RecvID we
	// ask the peer to send with. Valid only when the socket has keys.
	Current, RNext uint8
	// Required: the socket refuses segments without TCP-AO.
	Required bool
	// AcceptICMPs: the socket acts on ICMP hard errors quoting it;
	// otherwise it ignores them and counts them (DroppedICMP).
	AcceptICMPs bool
	// The socket's counters (verified, failed, no matching key, missing
	// TCP-AO, ICMPs ignored): the one TCP-AO counter type.
	aocount.Counts
}

// tcp_ao_info_opt's flag bits (after set_current and set_rnext).
const (
	aoInfoRequired    = 1 << 2 // ao_required
	aoInfoAcceptICMPs = 1 << 4 // accept_icmps (bit 3 is set_counters)
)

// encodeAOInfoSet builds a struct tcp_ao_info_opt that sets the current
// key and/or RNext (negative: leave it), ao_required and accept_icmps. The
// kernel rewrites ao_required and accept_icmps on every set: both are
// given.
func encodeAOInfoSet(b *[aoInfoSize]byte, current, rnext int, required, acceptICMPs bool) {
	clear(b[:])
	var bits uint32
	if current >= 0 {
		bits |= 1
		b[6] = uint8(current)
	}
	if rnext >= 0 {
		bits |= 2
		b[7] = uint8(rnext)
	}
	if required {
		bits |= aoInfoRequired
	}
	if acceptICMPs {
		bits |= aoInfoAcceptICMPs
	}
	binary.NativeEndian.PutUint32(b[0:], bits)
}

// decodeAOInfo reads a struct tcp_ao_info_opt.
func decodeAOInfo(b []byte) AOInfo {
	bits := binary.NativeEndian.Uint32(b[0:])
	u := func(off int) uint64 { return binary.NativeEndian.Uint64(b[off:]) }
	return AOInfo{Current: b[6], RNext: b[7], Required: bits&aoInfoRequired != 0, AcceptICMPs: bits&aoInfoAcceptICMPs != 0,
		Counts: aocount.Counts{Good: u(8), Bad: u(16), KeyNotFound: u(24), AORequired: u(32), DroppedICMP: u(40)}}
}

// ObservedAOKey is an MKT as the kernel reports it on a socket.
//
// TCP_AO_GET_KEYS reports the MKT's L3 scope: keyflags (TCP_AO_KEYF_IFINDEX)
// and ifindex (the l3index). AOKey.IfIndex is that ifindex when the flag is
// set, 0 otherwise; Scoped is the flag itself, so that an MKT scoped to the
// default VRF only (the flag with ifindex 0, which tcpsock never installs)
// is not taken for an unscoped one.
type ObservedAOKey struct {
	AOKey
	Scoped             bool // TCP_AO_KEYF_IFINDEX
	IsCurrent, IsRNext bool
	Good, Bad          uint64
}

// InScope reports whether o is an MKT of the scope (p, ifindex): p's
// address and prefix length, and the same L3 scope (ifindex 0: unscoped).
func (o ObservedAOKey) InScope(p netip.Prefix, ifindex int) bool {
	return o.Prefix == p.Masked() && o.IfIndex == ifindex && o.Scoped == (ifindex != 0)
}

// Matches reports whether the kernel's o is exactly the MKT k: the same
// scope (address, prefix length and L3 scope: a key read back with another
// ifindex, or unscoped where k is scoped, does not match), KeyIDs,
// algorithm, MAC length, flags and secret (compared in constant time).
// The kernel keeps, and reports, an AES-128-CMAC secret that is not 16
// bytes long as the key RFC 5926 §3.1.1.2 derives from it (AES-CMAC with
// a zero key), so such a secret is compared derived.
func (o ObservedAOKey) Matches(k AOKey) bool {
	if !o.InScope(k.Prefix, k.IfIndex) || o.SendID != k.SendID || o.RecvID != k.RecvID || o.Alg != k.Alg ||
		o.macLength() != k.macLength() || o.ExcludeOptions != k.ExcludeOptions {
		return false
	}
	want := []byte(k.Secret)
	if k.Alg == AOAlgAESCMAC && len(want) != 16 {
		d, err := tcpao.CMACKey(want)
		defer clear(d[:])
		if err != nil {
			return false
		}
		want = d[:]
	}
	return subtle.ConstantTimeCompare(o.Secret, want) == 1
}

// decodeAOGet reads one struct tcp_ao_getsockopt of a socket of family.
func decodeAOGet(b []byte) (ObservedAOKey, error) {
	var k ObservedAOKey
	fam := int(binary.NativeEndian.Uint16(b[0:]))
	prefix := int(b[280])
	switch fam {
	case afInet:
		k.Prefix = netip.PrefixFrom(netip.AddrFrom4([4]byte(b[4:8])), prefix)
	case afInet6:
		a := netip.AddrFrom16([16]byte(b[8:24]))
		if a.Is4In6() && prefix <= 32 {
			a = a.Unmap()
		}
		k.Prefix = netip.PrefixFrom(a, prefix)
	default:
		return k, fmt.Errorf("tcpsock: TCP-AO key of address family %d", fam)
	}
	alg := b[192-64 : 192]
	for i, c := range alg {
		if c == 0 {
			alg = alg[:i]
			break
		}
	}
	k.Alg = string(alg)
	if k.Alg == kernelCMAC {
		k.Alg = AOAlgAESCMAC
	}
	n := int(b[283])
	k.Secret = append(keys.Secret(nil), b[192:192+min(n, MaxAOSecretLen)]...)
	bits := binary.NativeEndian.Uint16(b[276:])
	k.IsCurrent, k.IsRNext = bits&1 != 0, bits&2 != 0
	k.SendID, k.RecvID, k.MACLen = b[278], b[279], b[281]
	k.ExcludeOptions = b[282]&aoKeyfExcludeOpt != 0
	if b[282]&aoKeyfIfindex != 0 {
		k.Scoped = true
		k.IfIndex = int(int32(binary.NativeEndian.Uint32(b[284:])))
	}
	k.Good, k.Bad = binary.NativeEndian.Uint64(b[288:]), binary.NativeEndian.Uint64(b[296:])
	return k, nil
}
