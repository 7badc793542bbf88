package tcpao

import (
	"crypto/aes"
	"crypto/hmac"
	"crypto/subtle"
	"encoding/binary"
	"fmt"
	"hash"
	"net/netip"
)

// Segment is a TCP segment as the MAC sees it: the IP source and
// destination (for the pseudo-header) and the TCP header, options and
// payload.
type Segment struct {
	Src, Dst netip.Addr
	TCP      []byte
}

// parsed is what the MAC needs to know about a segment.
type parsed struct {
	hl   int
	fam  uint8 // 4 or 6
	opts Options
}

// parse checks the segment and finds its options.
func (s Segment) parse() (parsed, error) {
	var p parsed
	src, dst := s.Src.Unmap(), s.Dst.Unmap()
	switch {
	case src.Is4() && dst.Is4():
		p.fam = 4
	case src.Is6() && dst.Is6():
		p.fam = 6
	default:
		return p, fmt.Errorf("%w: %v -> %v", ErrAddrFamily, s.Src, s.Dst)
	}
	hl, err := headerLen(s.TCP)
	if err != nil {
		return p, err
	}
	if len(s.TCP) > 0xffff {
		return p, fmt.Errorf("%w: %d bytes", ErrSegmentTooBig, len(s.TCP))
	}
	p.hl = hl
	if hl == 20+12+OptionLen && p.linuxLayout(s.TCP) {
		return p, nil
	}
	p.opts, err = ParseOptions(s.TCP[20:hl])
	return p, err
}

// The two option lists of established BGP sessions over TCP-AO: Linux's
// (TCP-AO first, then NOP, NOP, timestamps) and the RFC 9235 vectors'
// (NOP, NOP, timestamps, then TCP-AO).
const (
	nopNopTS = OptNOP<<24 | OptNOP<<16 | 8<<8 | 10 // NOP, NOP, kind 8 length 10
	aoHead16 = OptAO<<8 | OptionLen                // kind 29, length 16
)

// linuxLayout recognizes a 28-byte option list of exactly a 16-byte TCP-AO
// option and NOP, NOP, timestamps, in either order, and fills p.opts as
// ParseOptions would (such a list is valid as a whole). Walking the list
// costs a fifth of a keepalive's CMAC otherwise.
func (p *parsed) linuxLayout(tcp []byte) bool {
	be := binary.BigEndian
	var ao int
	switch {
	case be.Uint16(tcp[20:22]) == aoHead16 && be.Uint32(tcp[36:40]) == nopNopTS:
		ao = 0
	case be.Uint32(tcp[20:24]) == nopNopTS && be.Uint16(tcp[32:34]) == aoHead16:
		ao = 12
	default:
		return false
	}
	o := 20 + ao
	p.opts = Options{HasAO: true, AOOffset: ao, AO: Option{KeyID: tcp[o+2], RNextKeyID: tcp[o+3], MAC: tcp[o+4 : o+OptionLen : o+OptionLen]}}
	return true
}

// errorf wraps err with the segment's identity.
func (s Segment) errorf(d Direction, err error) error {
	if len(s.TCP) >= 8 {
		return fmt.Errorf("tcpao: %s segment %v -> %v seq %d: %w", d, netip.AddrPortFrom(s.Src, binary.BigEndian.Uint16(s.TCP[0:2])),
			netip.AddrPortFrom(s.Dst, binary.BigEndian.Uint16(s.TCP[2:4])), binary.BigEndian.Uint32(s.TCP[4:8]), err)
	}
	return fmt.Errorf("tcpao: %s segment %v -> %v: %w", d, s.Src, s.Dst, err)
}

// maxHead is the most the MAC message holds before the payload: SNE 4,
// IPv6 pseudo-header 40, TCP header 20, options 40.
const maxHead = 4 + 40 + 20 + 40

// TrafficKey is a prepared traffic key and its MAC length: for the HMACs
// the HMAC's inner and outer states (crypto/hmac keeps them after the
// first Reset), for AES-128-CMAC the expanded AES key and the subkeys K1,
// K2. MAC and
// Verify then neither allocate nor redo key set-up. A TrafficKey does not
// keep the key itself, but its states are as good as the key: it never
// prints them (every fmt verb gives the algorithm only).
//
// A TrafficKey is not safe for concurrent use; Clone gives another
// goroutine its own.
type TrafficKey struct {
	alg     Algorithm
	include bool
	macLen  int
	raw     keyBytes  // the traffic key, kept for Clone only
	h       hash.Hash // the HMACs
	c       *cmac     // AESCMAC
	head    [maxHead]byte
	sum     [maxDigest]byte
}

// keyBytes is key material that prints redacted, even inside a copied
// TrafficKey.
type keyBytes []byte

// Format writes "<redacted>" whatever the verb.
func (keyBytes) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte("<redacted>")) }

// NewTrafficKey prepares a traffic key of algorithm alg (DigestSize bytes:
// 20 for HMACSHA1, 16 for AESCMAC, as DeriveTrafficKey returns them) for
// MACs of the default length (MACLen) that cover the TCP options
// (includeOptions) or only the TCP-AO option. It copies key.
func NewTrafficKey(alg Algorithm, key []byte, includeOptions bool) (*TrafficKey, error) {
	return NewTrafficKeyMACLen(alg, key, MACLen, includeOptions)
}

// NewTrafficKeyMACLen is NewTrafficKey for MACs of macLen bytes
// (MinMACLen up to alg's DigestSize): the PRF's output truncated.
func NewTrafficKeyMACLen(alg Algorithm, key []byte, macLen int, includeOptions bool) (*TrafficKey, error) {
	if !alg.Valid() {
		return nil, fmt.Errorf("tcpao: traffic key: %w (%d)", ErrAlgorithm, uint8(alg))
	}
	if len(key) != alg.TrafficKeyLen() {
		return nil, fmt.Errorf("tcpao: %s traffic key: %w: %d bytes, want %d", alg, ErrKeyLength, len(key), alg.TrafficKeyLen())
	}
	if err := alg.checkMACLen(macLen); err != nil {
		return nil, fmt.Errorf("tcpao: traffic key: %w", err)
	}
	if err := alg.usable(); err != nil {
		return nil, err
	}
	k := &TrafficKey{alg: alg, include: includeOptions, macLen: macLen, raw: keyBytes(append([]byte(nil), key...))}
	if err := k.init(); err != nil {
		return nil, err
	}
	return k, nil
}

func (k *TrafficKey) init() error {
	if k.alg.isHMAC() {
		k.h = hmac.New(k.alg.newHash(), k.raw)
		k.h.Reset() // crypto/hmac saves the padded states here, for every later Reset
		return nil
	}
	var err error
	k.c, err = newCMAC(k.raw)
	return err
}

// Clone returns a TrafficKey with the same key and its own state.
func (k *TrafficKey) Clone() *TrafficKey {
	c := &TrafficKey{alg: k.alg, include: k.include, macLen: k.macLen, raw: k.raw}
	if k.alg == AESCMAC {
		c.c = k.c.clone()
	} else if err := c.init(); err != nil {
		panic("tcpao: Clone: " + err.Error()) // the same key prepared before
	}
	return c
}

// Algorithm returns the key's algorithm.
func (k *TrafficKey) Algorithm() Algorithm { return k.alg }

// IncludeOptions reports whether the key's MACs cover all TCP options.
func (k *TrafficKey) IncludeOptions() bool { return k.include }

// MACLen returns the length of the key's MACs in bytes.
func (k *TrafficKey) MACLen() int { return k.macLen }

// String describes the key without key material. (The methods that print
// have value receivers so that a TrafficKey value prints no fields either.)
func (k TrafficKey) String() string {
	return fmt.Sprintf("tcpao.TrafficKey(%s, %d-byte MAC, options %s)", k.alg, k.macLen, optionsWord(k.include))
}

// GoString describes the key without key material.
func (k TrafficKey) GoString() string { return k.String() }

// Format writes String whatever the verb.
func (k TrafficKey) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(k.String())) }

// MAC appends to dst the MAC of seg (the key's MACLen bytes) with sequence
// number extension sne. The segment must carry a TCP-AO option (its MAC
// field is taken as zero, whatever it holds, and as long as it is);
// ErrNoOption otherwise. With a dst of capacity MACLen() or more it does
// not allocate.
func (k *TrafficKey) MAC(dst []byte, sne uint32, seg Segment) ([]byte, error) {
	p, err := seg.parse()
	if err == nil && !p.opts.HasAO {
		err = ErrNoOption
	}
	if err == nil {
		err = k.compute(sne, seg, &p)
	}
	if err != nil {
		return dst, fmt.Errorf("tcpao: MAC of %d-byte segment %v -> %v: %w", len(seg.TCP), seg.Src, seg.Dst, err)
	}
	return append(dst, k.sum[:k.macLen]...), nil
}

// Verify reports whether the MAC in seg's TCP-AO option is right for this
// key and extension sne, comparing in constant time. A MAC field of another
// length than the key's MACLen is wrong. The error is for a segment that cannot be
// checked (ErrNoOption, ErrBadOptions, ErrShortSegment, ...); a wrong MAC is
// false with a nil error. It does not allocate unless it returns an error.
// It looks at neither KeyID nor flags: Keys.Verify does.
func (k *TrafficKey) Verify(sne uint32, seg Segment) (bool, error) {
	p, err := seg.parse()
	if err == nil && !p.opts.HasAO {
		err = ErrNoOption
	}
	if err != nil {
		return false, fmt.Errorf("tcpao: verify %d-byte segment %v -> %v: %w", len(seg.TCP), seg.Src, seg.Dst, err)
	}
	ok, err := k.verify(sne, seg, &p)
	if err != nil {
		return false, fmt.Errorf("tcpao: verify %d-byte segment %v -> %v: %w", len(seg.TCP), seg.Src, seg.Dst, err)
	}
	return ok, nil
}

// verify is Verify for a segment parse has checked and found an option in.
func (k *TrafficKey) verify(sne uint32, seg Segment, p *parsed) (bool, error) {
	if err := k.compute(sne, seg, p); err != nil {
		return false, err
	}
	return subtle.ConstantTimeCompare(p.opts.AO.MAC, k.sum[:k.macLen]) == 1, nil
}

// compute leaves the MAC of seg (checked by parse, with a TCP-AO option)
// in k.sum. The message (RFC 5925 §5.1) is assembled in k.head up to the
// payload, which is fed from the segment itself.
func (k *TrafficKey) compute(sne uint32, seg Segment, p *parsed) error {
	if err := k.alg.usable(); err != nil {
		return err
	}
	b := k.head[:]
	tcp := seg.TCP
	be := binary.BigEndian
	be.PutUint32(b[0:4], sne)
	n := 4
	switch p.fam {
	case 4:
		s, d := seg.Src.Unmap().As4(), seg.Dst.Unmap().As4()
		copy(b[4:8], s[:])
		copy(b[8:12], d[:])
		be.PutUint32(b[12:16], 6<<16|uint32(len(tcp)))
		n = 16
	default:
		s, d := seg.Src.As16(), seg.Dst.As16()
		copy(b[4:20], s[:])
		copy(b[20:36], d[:])
		be.PutUint32(b[36:40], uint32(len(tcp)))
		be.PutUint32(b[40:44], 6)
		n = 44
	}
	copy(b[n:n+20], tcp[:20])
	b[n+16], b[n+17] = 0, 0 // checksum
	n += 20
	ao := 20 + p.opts.AOOffset // the option's offset in tcp
	aoLen := int(tcp[ao+1])
	if k.include {
		m := copy(b[n:], tcp[20:p.hl])
		clear(b[n+ao-20+4 : n+ao-20+aoLen]) // the MAC field
		n += m
	} else {
		copy(b[n:n+4], tcp[ao:ao+4])
		clear(b[n+4 : n+aoLen])
		n += aoLen
	}
	payload := tcp[p.hl:]
	if k.h != nil {
		k.h.Reset()
		k.h.Write(b[:n])
		k.h.Write(payload)
		k.h.Sum(k.sum[:0])
		return nil
	}
	c := k.c
	c.reset()
	c.write(b[:n])
	c.write(payload)
	c.sum(k.sum[:aes.BlockSize])
	return nil
}
