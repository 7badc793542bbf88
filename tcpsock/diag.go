package tcpsock

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"syscall"

	"github.com/authbgp/authbgpd/keys"
	"github.com/authbgp/authbgpd/md5auth"
)

// ObservedKey is a TCP-MD5 key as the kernel reports it on a socket
// (NETLINK_SOCK_DIAG, attribute INET_DIAG_MD5SIG).
type ObservedKey struct {
	// Prefix is the peer scope the kernel holds, unmapped: a key installed
	// as ::ffff:a.b.c.d on an AF_INET6 socket is an IPv4 prefix. A single
	// address is a full-length prefix. The address is reported as stored,
	// not masked.
	Prefix netip.Prefix
	// Secret is the key material (1..80 bytes). It never formats.
	Secret keys.Secret
}

// Matches reports whether the kernel's o can be the key k: the same peer
// scope (address or prefix) and the same secret (compared in constant
// time). k.IfIndex is not compared: sock_diag cannot show it (see
// SocketKeys), so a VRF-scoped key read back looks unscoped and must not be
// taken for drift. What the read-back cannot tell — which VRF a key is
// scoped to, or whether it is scoped at all — is for the writer to know: it
// installed the key with Key.IfIndex, and the kernel refuses an ifindex that
// is not a VRF (ErrScope).
func (o ObservedKey) Matches(k md5auth.Key) bool {
	p := k.Prefix
	if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
		p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
	}
	return o.Prefix.Masked() == p.Masked() && o.Secret.Equal(k.Secret)
}

// SocketKeys is one TCP socket and the TCP-MD5 keys the kernel holds on it.
//
// What sock_diag (INET_DIAG_MD5SIG, struct tcp_diag_md5sig: family, prefix
// length, key length, address, key) reports of a key, and what it does not:
//   - it reports the address, the prefix length and the secret of every key;
//   - it does not report a key's L3 domain: neither TCP_MD5SIG_FLAG_IFINDEX
//     nor the l3index. A key scoped to VRF blue shows up exactly like an
//     unscoped key, and a scoped and an unscoped key for one address show up
//     as two keys for that address, told apart by their secrets only (two
//     with the same secret are indistinguishable);
//   - a key scoped to a VRF that has since been deleted still shows up (the
//     kernel keeps it; it matches no segment);
//   - IfIndex below is the device the socket is bound to (SO_BINDTODEVICE,
//     e.g. a VRF-bound listener, or an accepted connection of a VRF), not a
//     key's scope.
//
// So a comparison of wanted with observed TCP-MD5 keys compares addresses
// and secrets (ObservedKey.Matches, Has) and never calls a scoped key drift
// because it reads back unscoped. TCP-AO is different: TCP_AO_GET_KEYS
// reports each MKT's ifindex and TCP_AO_KEYF_IFINDEX (ObservedAOKey), so a
// TCP-AO key's scope is observed and compared.
type SocketKeys struct {
	Local     netip.AddrPort // local address, unmapped ([::]:179 for a dual-stack listener)
	Remote    netip.AddrPort // peer address, unmapped; zero for a listener
	Listening bool           // TCP_LISTEN
	Family    int            // 2 (AF_INET) or 10 (AF_INET6)
	Inode     uint64         // socket inode ("socket:[inode]" in /proc/PID/fd)
	Keys      []ObservedKey  // in the kernel's order (most recently added first)
	// IfIndex is the device the socket is bound to (idiag_if; 0 none):
	// the interface of a link-local connection (addresses carry no zone
	// here), or a VRF.
	IfIndex int
}

// Has reports whether the socket holds a key that Matches k (its scope and
// secret; the L3 scope is not observable).
func (s SocketKeys) Has(k md5auth.Key) bool {
	for _, o := range s.Keys {
		if o.Matches(k) {
			return true
		}
	}
	return false
}

// KeysFor returns the socket's keys whose peer scope is p (p is unmapped and
// masked; the kernel's addresses are compared masked): every key for p, of
// whatever L3 scope, since sock_diag does not tell them apart.
func (s SocketKeys) KeysFor(p netip.Prefix) []ObservedKey {
	if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
		p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
	}
	p = p.Masked()
	var out []ObservedKey
	for _, k := range s.Keys {
		if k.Prefix.Masked() == p {
			out = append(out, k)
		}
	}
	return out
}

// KeyFor returns the key the kernel would use for peer address a on this
// socket: the most specific prefix that contains a (a is unmapped and its
// zone ignored), as tcp_md5_do_lookup picks it; among equally specific
// ones, the first in the kernel's order. L3 (VRF) scoping is not taken
// into account: sock_diag does not report it (the kernel prefers a key
// scoped to the segment's VRF over an unscoped one; a socket holding both
// for a has two candidates here, and KeyFor returns one of them).
func (s SocketKeys) KeyFor(a netip.Addr) (ObservedKey, bool) {
	a = a.Unmap().WithZone("")
	best := -1
	for i, k := range s.Keys {
		if k.Prefix.Contains(a) && (best < 0 || k.Prefix.Bits() > s.Keys[best].Prefix.Bits()) {
			best = i
		}
	}
	if best < 0 {
		return ObservedKey{}, false
	}
	return s.Keys[best], true
}

// Netlink and inet_diag constants (linux/netlink.h, linux/inet_diag.h,
// linux/sock_diag.h), defined here so that the parser is portable.
const (
	nlmsgHdrLen  = 16
	nlmsgNoop    = 1
	nlmsgError   = 2
	nlmsgDone    = 3
	nlmsgOverrun = 4
	nlmFDumpIntr = 0x10

	sockDiagByFamily = 20

	diagSockIDLen = 48                            // struct inet_diag_sockid
	diagMsgLen    = 4 + diagSockIDLen + 20        // struct inet_diag_msg
	diagMD5SigLen = 4 + 16 + md5auth.MaxSecretLen // struct tcp_diag_md5sig
	nlaTypeMask   = ^uint16(0xc000)               // strips NLA_F_NESTED, NLA_F_NET_BYTEORDER
	diagAttrMark  = 15                            // INET_DIAG_MARK (only for CAP_NET_ADMIN)
	diagAttrMD5   = 18                            // INET_DIAG_MD5SIG
	afInet        = 2
	afInet6       = 10
	tcpListen     = 10
	tcpTimeWait   = 6
	tcpNewSynRecv = 12
)

// errMalformed is wrapped by every error about a malformed message.
var errMalformed = errors.New("malformed sock_diag reply")

// diagSock is a parsed inet_diag_msg with what the Linux side needs besides
// the exported fields.
type diagSock struct {
	SocketKeys
	state  uint8
	id     [diagSockIDLen]byte // raw inet_diag_sockid, for an exact request
	cookie uint64
	// marked: the message carries INET_DIAG_MARK, which the kernel adds
	// only for a caller with CAP_NET_ADMIN (the same condition as keys).
	marked bool
}

// fullSock reports whether the message describes a full socket, which is
// the only kind the kernel reports keys (and the mark) for.
func (d *diagSock) fullSock() bool { return d.state != tcpTimeWait && d.state != tcpNewSynRecv }

// ParseDiagMessages parses a buffer of netlink messages answering a
// SOCK_DIAG_BY_FAMILY request for TCP sockets (inet_diag_msg followed by
// attributes, as one or more datagrams of a dump deliver them). An
// NLMSG_DONE ends the parse (anything after it is ignored); an NLMSG_ERROR
// with a non-zero code is an error wrapping the syscall.Errno. Every length
// is checked: a malformed buffer is an error, never a panic, and errors
// never contain key material.
//
// Addresses are unmapped (see SocketKeys and ObservedKey). Secrets are
// copies: b can be cleared afterwards.
func ParseDiagMessages(b []byte) ([]SocketKeys, error) {
	socks, _, err := parseDiag(nil, b, 0, false)
	if err != nil {
		return nil, fmt.Errorf("tcpsock: parse sock_diag messages: %w", err)
	}
	out := make([]SocketKeys, 0, len(socks))
	for _, s := range socks {
		out = append(out, s.SocketKeys)
	}
	return out, nil
}

// parseDiag parses b, appending its sockets to socks (a dump's datagrams
// accumulate in one slice; nil on error). With checkSeq, every message
// must carry sequence number seq. done reports an NLMSG_DONE.
func parseDiag(socks []diagSock, b []byte, seq uint32, checkSeq bool) (_ []diagSock, done bool, err error) {
	ne := binary.NativeEndian
	for i, off := 0, 0; off < len(b); i++ {
		bad := func(format string, args ...any) error {
			return fmt.Errorf("%w: message %d at offset %d: %s", errMalformed, i, off, fmt.Sprintf(format, args...))
		}
		m := b[off:]
		if len(m) < nlmsgHdrLen {
			return nil, false, bad("%d bytes left, shorter than a netlink header", len(m))
		}
		n := int(ne.Uint32(m))
		if n < nlmsgHdrLen || n > len(m) {
			return nil, false, bad("length %d outside %d..%d", n, nlmsgHdrLen, len(m))
		}
		typ, flags, mseq := ne.Uint16(m[4:]), ne.Uint16(m[6:]), ne.Uint32(m[8:])
		payload := m[nlmsgHdrLen:n]
		if checkSeq && mseq != seq {
			return nil, false, bad("sequence number %d, want %d", mseq, seq)
		}
		if flags&nlmFDumpIntr != 0 {
			return nil, false, fmt.Errorf("dump interrupted (NLM_F_DUMP_INTR): the socket tables changed while they were read")
		}
		switch typ {
		case nlmsgNoop:
		case nlmsgError:
			if len(payload) < 4 {
				return nil, false, bad("NLMSG_ERROR without an error code")
			}
			if code := int32(ne.Uint32(payload)); code != 0 {
				return nil, false, fmt.Errorf("kernel answered: %w", errnoOf(code))
			}
			// Code 0 is an acknowledgement.
		case nlmsgDone:
			if len(payload) >= 4 {
				if code := int32(ne.Uint32(payload)); code < 0 {
					return nil, false, fmt.Errorf("dump failed: %w", errnoOf(code))
				}
			}
			return socks, true, nil
		case nlmsgOverrun:
			return nil, false, fmt.Errorf("netlink overrun: replies were lost")
		case sockDiagByFamily:
			s, err := parseDiagMsg(payload)
			if err != nil {
				return nil, false, bad("%v", err)
			}
			socks = append(socks, s)
		default:
			return nil, false, bad("unexpected message type %d", typ)
		}
		off += min(align4(n), len(m))
	}
	return socks, false, nil
}

func errnoOf(code int32) error {
	if code < 0 {
		code = -code
	}
	return syscall.Errno(code)
}

func align4(n int) int { return (n + 3) &^ 3 }

// sockIDCookie returns the socket cookie of an inet_diag_sockid.
func sockIDCookie(id []byte) uint64 {
	ne := binary.NativeEndian
	return uint64(ne.Uint32(id[40:])) | uint64(ne.Uint32(id[44:]))<<32
}

// parseDiagMsg parses the payload of one SOCK_DIAG_BY_FAMILY message.
func parseDiagMsg(p []byte) (diagSock, error) {
	ne := binary.NativeEndian
	var s diagSock
	if len(p) < diagMsgLen {
		return s, fmt.Errorf("inet_diag_msg of %d bytes, want at least %d", len(p), diagMsgLen)
	}
	family := p[0]
	s.state = p[1]
	id := p[4 : 4+diagSockIDLen]
	copy(s.id[:], id)
	sport, dport := binary.BigEndian.Uint16(id[0:]), binary.BigEndian.Uint16(id[2:])
	src, dst := id[4:20], id[20:36]
	s.cookie = sockIDCookie(id)
	var local, remote netip.Addr
	switch family {
	case afInet:
		local, remote = netip.AddrFrom4([4]byte(src[:4])), netip.AddrFrom4([4]byte(dst[:4]))
	case afInet6:
		local, remote = netip.AddrFrom16([16]byte(src)).Unmap(), netip.AddrFrom16([16]byte(dst)).Unmap()
	default:
		return s, fmt.Errorf("address family %d, want %d or %d", family, afInet, afInet6)
	}
	s.Family = int(family)
	s.Listening = s.state == tcpListen
	s.Local = netip.AddrPortFrom(local, sport)
	if !s.Listening && (dport != 0 || !remote.IsUnspecified()) {
		s.Remote = netip.AddrPortFrom(remote, dport)
	}
	s.Inode = uint64(ne.Uint32(p[4+diagSockIDLen+16:]))
	s.IfIndex = int(ne.Uint32(id[36:]))

	for a := p[diagMsgLen:]; len(a) > 0; {
		if len(a) < 4 {
			return s, fmt.Errorf("%d stray bytes after the attributes", len(a))
		}
		n := int(ne.Uint16(a))
		if n < 4 || n > len(a) {
			return s, fmt.Errorf("attribute length %d outside 4..%d", n, len(a))
		}
		switch ne.Uint16(a[2:]) & nlaTypeMask {
		case diagAttrMark:
			s.marked = true
		case diagAttrMD5:
			n = md5SigLen(n, len(a))
			keys, err := parseMD5Keys(a[4:n])
			if err != nil {
				return s, err
			}
			s.Keys = append(s.Keys, keys...)
		}
		a = a[min(align4(n), len(a)):]
	}
	return s, nil
}

// md5SigLen is the true length of an INET_DIAG_MD5SIG attribute whose
// 16-bit length field says n, with room bytes left in the message. For a
// socket with more than 655 keys the kernel reserves the whole array but
// writes its length modulo 65536, so the true length is n + k*65536 for
// the k that makes the payload a whole number of 100-byte keys. Since
// 65536 is 36 modulo 100, that k is unique below 25 (16,000 keys, far more
// than a socket's option memory holds). When none fits, n stands, and
// parseMD5Keys reports the payload as malformed.
func md5SigLen(n, room int) int {
	for l := n; l <= room && l-n < 25<<16; l += 1 << 16 {
		if (l-4)%diagMD5SigLen == 0 { // less the attribute header
			return l
		}
	}
	return n
}

// parseMD5Keys parses an INET_DIAG_MD5SIG payload: an array of
// struct tcp_diag_md5sig { u8 family; u8 prefixlen; u16 keylen;
// be32 addr[4]; u8 key[80]; }.
func parseMD5Keys(p []byte) ([]ObservedKey, error) {
	if len(p)%diagMD5SigLen != 0 {
		return nil, fmt.Errorf("INET_DIAG_MD5SIG of %d bytes is not a whole number of %d-byte keys", len(p), diagMD5SigLen)
	}
	out := make([]ObservedKey, 0, len(p)/diagMD5SigLen)
	for i := 0; len(p) > 0; i, p = i+1, p[diagMD5SigLen:] {
		family, bits, keylen := p[0], int(p[1]), int(binary.NativeEndian.Uint16(p[2:]))
		addr := p[4:20]
		var pfx netip.Prefix
		switch family {
		case afInet:
			if bits > 32 {
				return nil, fmt.Errorf("key %d: IPv4 prefix length %d", i, bits)
			}
			pfx = netip.PrefixFrom(netip.AddrFrom4([4]byte(addr[:4])), bits)
		case afInet6:
			if bits > 128 {
				return nil, fmt.Errorf("key %d: IPv6 prefix length %d", i, bits)
			}
			a := netip.AddrFrom16([16]byte(addr))
			if a.Is4In6() && bits >= 96 {
				pfx = netip.PrefixFrom(a.Unmap(), bits-96)
			} else {
				pfx = netip.PrefixFrom(a, bits)
			}
		default:
			return nil, fmt.Errorf("key %d: address family %d", i, family)
		}
		if keylen < 1 || keylen > md5auth.MaxSecretLen {
			return nil, fmt.Errorf("key %d for %s: key length %d outside 1..%d", i, pfx, keylen, md5auth.MaxSecretLen)
		}
		out = append(out, ObservedKey{Prefix: pfx, Secret: keys.Secret(append([]byte(nil), p[20:20+keylen]...))})
	}
	return out, nil
}
