package tcpao

import (
	"crypto/hmac"
	"encoding/binary"
	"fmt"
	"net/netip"
)

// Context is the connection part of the KDF input (RFC 5925 §5.2) for one
// direction: source and destination address and port, then the source's
// and the destination's ISN. IPv4-mapped IPv6 addresses count as IPv4.
type Context struct {
	Src, Dst       netip.AddrPort
	SrcISN, DstISN uint32
}

// AppendBinary appends the context as the KDF reads it: IPv4 20 bytes
// (4+4+2+2+4+4), IPv6 44 bytes. Mixed families are ErrAddrFamily.
func (c Context) AppendBinary(b []byte) ([]byte, error) {
	s, d := c.Src.Addr().Unmap(), c.Dst.Addr().Unmap()
	switch {
	case s.Is4() && d.Is4():
		s4, d4 := s.As4(), d.As4()
		b = append(b, s4[:]...)
		b = append(b, d4[:]...)
	case s.Is6() && d.Is6():
		s16, d16 := s.As16(), d.As16()
		b = append(b, s16[:]...)
		b = append(b, d16[:]...)
	default:
		return b, fmt.Errorf("%w: %v -> %v", ErrAddrFamily, c.Src, c.Dst)
	}
	b = binary.BigEndian.AppendUint16(b, c.Src.Port())
	b = binary.BigEndian.AppendUint16(b, c.Dst.Port())
	b = binary.BigEndian.AppendUint32(b, c.SrcISN)
	return binary.BigEndian.AppendUint32(b, c.DstISN), nil
}

// kdfLabel is RFC 5926 §3.1.1's Label, without a terminating zero (RFC 9235
// §8.3 names the zero as a common mistake).
const kdfLabel = "TCP-AO"

// DeriveTrafficKey is the KDF of RFC 5926 §3.1, as Linux computes it for
// every algorithm: one iteration (i = 1) of the PRF over i (1 byte), the
// label "TCP-AO", the context and the output length in bits (2 bytes: 8
// times the algorithm's DigestSize, e.g. 160 for KDF_HMAC_SHA1, 128 for
// KDF_AES_128_CMAC, 256 for HMAC-SHA-256). An HMAC keys its PRF with the
// secret; KDF_AES_128_CMAC keys AES-128-CMAC with the secret when it has
// 16 bytes, else with AES-128-CMAC(0^128, secret) (RFC 5926 §3.1.2). It
// returns the traffic key (DigestSize bytes), which is secret. The secret
// must have 1..80 bytes.
func DeriveTrafficKey(alg Algorithm, secret []byte, ctx Context) ([]byte, error) {
	if !alg.Valid() {
		return nil, fmt.Errorf("tcpao: KDF: %w (%d)", ErrAlgorithm, uint8(alg))
	}
	if len(secret) == 0 || len(secret) > MaxSecretLen {
		return nil, fmt.Errorf("tcpao: KDF: %w: secret of %d bytes, want 1..%d", ErrKeyLength, len(secret), MaxSecretLen)
	}
	if err := checkSecret(alg, secret); err != nil {
		return nil, err
	}
	var in [1 + len(kdfLabel) + 44 + 2]byte
	b := append(in[:0], 1)
	b = append(b, kdfLabel...)
	b, err := ctx.AppendBinary(b)
	if err != nil {
		return nil, err
	}
	b = binary.BigEndian.AppendUint16(b, uint16(8*alg.DigestSize()))
	defer clear(in[:])
	if alg.isHMAC() {
		h := hmac.New(alg.newHash(), secret)
		h.Write(b)
		return h.Sum(make([]byte, 0, alg.DigestSize())), nil
	}
	// AESCMAC
	k, err := CMACKey(secret)
	if err != nil {
		return nil, err
	}
	defer clear(k[:])
	out, err := cmacSum(k[:], b)
	if err != nil {
		return nil, err
	}
	return out[:], nil
}

// Direction tells which way a segment goes, seen from the local end of a
// Connection.
type Direction uint8

// Directions.
const (
	// Send: from Local to Remote.
	Send Direction = iota
	// Receive: from Remote to Local.
	Receive
)

func (d Direction) String() string {
	if d == Send {
		return "sent"
	}
	return "received"
}

// Connection is what RFC 5925 §5.2 needs of a TCP connection: its local
// and remote ends and the ISN each end chose (seen in the handshake).
type Connection struct {
	Local, Remote       netip.AddrPort
	LocalISN, RemoteISN uint32
}

// Context returns the KDF context of the traffic key for segments going
// in direction d: syn for the SYN keys (the other end's ISN is 0), else
// for all other segments (both ISNs).
func (c Connection) Context(d Direction, syn bool) Context {
	ctx := Context{Src: c.Local, Dst: c.Remote, SrcISN: c.LocalISN, DstISN: c.RemoteISN}
	if d == Receive {
		ctx = Context{Src: c.Remote, Dst: c.Local, SrcISN: c.RemoteISN, DstISN: c.LocalISN}
	}
	if syn {
		ctx.DstISN = 0
	}
	return ctx
}

// Keys are the four prepared traffic keys of RFC 5925 §5.2 for one
// connection and one master key, and the key IDs that go with them.
type Keys struct {
	SendSYN, RecvSYN, SendOther, RecvOther *TrafficKey
	SendID, RecvID                         uint8
}

// Keys derives and prepares the connection's four traffic keys:
//
//	Send_SYN_traffic_key       local end first, local ISN, 0
//	Receive_SYN_traffic_key    remote end first, remote ISN, 0
//	Send_other_traffic_key     local end first, local ISN, remote ISN
//	Receive_other_traffic_key  remote end first, remote ISN, local ISN
func (k MasterKey) Keys(c Connection) (*Keys, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	ks := &Keys{SendID: k.SendID, RecvID: k.RecvID}
	for _, x := range []struct {
		dst *(*TrafficKey)
		d   Direction
		syn bool
	}{{&ks.SendSYN, Send, true}, {&ks.RecvSYN, Receive, true}, {&ks.SendOther, Send, false}, {&ks.RecvOther, Receive, false}} {
		tk, err := DeriveTrafficKey(k.Alg, k.Secret, c.Context(x.d, x.syn))
		if err != nil {
			return nil, fmt.Errorf("tcpao: connection %v <-> %v: %w", c.Local, c.Remote, err)
		}
		*x.dst, err = NewTrafficKeyMACLen(k.Alg, tk, k.MACLength(), k.IncludeOptions)
		clear(tk)
		if err != nil {
			return nil, err
		}
	}
	return ks, nil
}

// TCP header flags RFC 5925 §5.2 looks at.
const (
	flagSYN = 0x02
	flagACK = 0x10
)

// Select returns the traffic key for a segment going in direction d with
// the TCP flags byte flags (byte 13 of the header): the SYN key for a SYN
// segment (SYN set, ACK clear), else the other key; a SYN-ACK uses the
// other keys.
func (ks *Keys) Select(d Direction, flags byte) *TrafficKey {
	syn := flags&(flagSYN|flagACK) == flagSYN
	switch {
	case d == Send && syn:
		return ks.SendSYN
	case d == Send:
		return ks.SendOther
	case syn:
		return ks.RecvSYN
	}
	return ks.RecvOther
}

// Clone returns Keys with the same traffic keys and their own scratch
// state, for another goroutine.
func (ks *Keys) Clone() *Keys {
	return &Keys{SendSYN: ks.SendSYN.Clone(), RecvSYN: ks.RecvSYN.Clone(), SendOther: ks.SendOther.Clone(), RecvOther: ks.RecvOther.Clone(), SendID: ks.SendID, RecvID: ks.RecvID}
}

// Verify checks a segment going in direction d with extension sne: it must
// carry a TCP-AO option and no TCP-MD5 option, the option's KeyID must be
// the master key's (SendID for a segment we send, RecvID for one we
// receive), its MAC field must have the key's MAC length, and its MAC must
// be right for the selected traffic key. It returns nil, or an error
// wrapping ErrBadMAC, ErrMACLength, ErrKeyID, ErrNoOption,
// ErrMD5Option, ErrBadOptions, ErrShortSegment, ErrSegmentTooBig or
// ErrAddrFamily that names the segment (addresses, ports, sequence number,
// key IDs), never key material. It allocates only for an error.
func (ks *Keys) Verify(d Direction, sne uint32, seg Segment) error {
	p, err := seg.parse()
	if err != nil {
		return seg.errorf(d, err)
	}
	if p.opts.HasMD5() {
		return seg.errorf(d, ErrMD5Option)
	}
	if !p.opts.HasAO() {
		return seg.errorf(d, ErrNoOption)
	}
	keyID, _ := p.opts.AOKeyIDs(p.list(seg.TCP))
	mac := p.mac(seg.TCP)
	want := ks.SendID
	if d == Receive {
		want = ks.RecvID
	}
	if id := keyID; id != want {
		return seg.errorf(d, fmt.Errorf("%w %d, the master key's is %d", ErrKeyID, id, want))
	}
	k := ks.Select(d, seg.TCP[13])
	if n := len(mac); n != k.macLen {
		return seg.errorf(d, fmt.Errorf("%w: a %d-byte MAC field (KeyID %d), the master key's MACs have %d", ErrMACLength, n, keyID, k.macLen))
	}
	ok, err := k.verify(sne, &seg, &p)
	if err != nil {
		return seg.errorf(d, err)
	}
	if !ok {
		return seg.errorf(d, fmt.Errorf("%w (KeyID %d, SNE %d, %s key)", ErrBadMAC, keyID, sne, keyName(d, seg.TCP[13])))
	}
	return nil
}

func keyName(d Direction, flags byte) string {
	syn := flags&(flagSYN|flagACK) == flagSYN
	switch {
	case d == Send && syn:
		return "Send_SYN"
	case d == Send:
		return "Send_other"
	case syn:
		return "Receive_SYN"
	}
	return "Receive_other"
}

// CMACKey is the 128-bit key KDF_AES_128_CMAC keys its PRF with for a
// master key secret (RFC 5926 §3.1.1.2): the secret itself when it has 16
// bytes, else AES-CMAC(0^128, secret). Linux keeps an AES-128-CMAC MKT's
// secret in this form. The result is secret.
func CMACKey(secret []byte) ([16]byte, error) {
	if len(secret) == 16 {
		return [16]byte(secret), nil
	}
	var zero [16]byte
	return cmacSum(zero[:], secret)
}
