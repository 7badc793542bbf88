package tcpao

import (
	"crypto/aes"
	"crypto/hmac"
	"crypto/subtle"
	"encoding/binary"
	"fmt"
	"hash"
	"net/netip"

	"github.com/authbgp/authbgpd/tcpopt"
)

// Segment is a TCP segment as the MAC sees it: the IP source and
// destination (for the pseudo-header) and the TCP header, options and
// payload.
type Segment struct {
	Src, Dst netip.Addr
	TCP      []byte
}

// parsed is what the MAC needs to know about a segment: its header length,
// address family and options (tcpopt's offsets, relative to TCP[20:hl]).
type parsed struct {
	hl   int
	fam  uint8 // 4 or 6
	opts tcpopt.Options
}

// list is the segment's option list, which p.opts indexes.
func (p *parsed) list(tcp []byte) []byte { return tcp[tcpopt.FixedHeaderLen:p.hl] }

// mac is the MAC field of the segment's TCP-AO option (p.opts has one).
func (p *parsed) mac(tcp []byte) []byte { return p.opts.MAC(p.list(tcp)) }

// parse checks the segment and finds its options: one walk by tcpopt's
// rules (whose recognised lists, Linux's and RFC 9235's, skip the walk).
func (s Segment) parse() (parsed, error) {
	p, err := s.header()
	if err != nil {
		return p, err
	}
	p.opts, err = tcpopt.Parse(p.list(s.TCP))
	return p, optionsErr(err)
}

// header checks the segment's addresses, header length and size: parse
// without the options.
func (s *Segment) header() (parsed, error) {
	var p parsed
	if p.fam = family(s.Src, s.Dst); p.fam == 0 {
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
	return p, nil
}

// family is the address family of a segment from src to dst, 4 or 6
// (IPv4-mapped IPv6 addresses count as IPv4), or 0 for mixed families.
func family(src, dst netip.Addr) uint8 {
	src, dst = src.Unmap(), dst.Unmap()
	switch {
	case src.Is4() && dst.Is4():
		return 4
	case src.Is6() && dst.Is6():
		return 6
	}
	return 0
}

// parsedAs is parse for a segment whose options the caller parsed with
// tcpopt.ParseSegment (opts, hl): instead of walking them again it checks
// that they describe this segment — the header length is its data offset,
// and at opts.AOOffset lies a whole TCP-AO option inside the list — so
// options that do not fit fail closed (ErrParsedOptions), never read out
// of bounds. A TCP-MD5 option with the TCP-AO option is ErrMD5Option, as
// from parse.
func (s *Segment) parsedAs(opts tcpopt.Options, hl int) (parsed, error) {
	p := parsed{hl: hl, fam: family(s.Src, s.Dst), opts: opts}
	tcp := s.TCP
	switch {
	case p.fam == 0:
		return p, fmt.Errorf("%w: %v -> %v", ErrAddrFamily, s.Src, s.Dst)
	case len(tcp) < tcpopt.FixedHeaderLen || hl < tcpopt.FixedHeaderLen || hl > len(tcp) || hl != int(tcp[12]>>4)*4:
		// (ParseSegment gives no options for a segment shorter than its
		// header: these are another segment's.)
		return p, fmt.Errorf("%w: header length %d, %d bytes", ErrParsedOptions, hl, len(tcp))
	case len(tcp) > 0xffff:
		return p, fmt.Errorf("%w: %d bytes", ErrSegmentTooBig, len(tcp))
	case !opts.HasAO():
		return p, ErrNoOption
	case opts.HasMD5():
		return p, fmt.Errorf("%w: %w", ErrMD5Option, tcpopt.ErrMD5AndAO)
	}
	list, o := tcp[tcpopt.FixedHeaderLen:hl], opts.AOOffset()
	if o+tcpopt.AOMinLen > len(list) || list[o] != OptAO || list[o+1] < tcpopt.AOMinLen || o+int(list[o+1]) > len(list) {
		return p, fmt.Errorf("%w: no TCP-AO option at offset %d of a %d-byte option list", ErrParsedOptions, o, len(list))
	}
	return p, nil
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
	if err == nil && !p.opts.HasAO() {
		err = ErrNoOption
	}
	if err == nil {
		err = k.compute(sne, &seg, &p)
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
	if err == nil && !p.opts.HasAO() {
		err = ErrNoOption
	}
	if err != nil {
		return false, verifyErr(seg, err)
	}
	ok, err := k.verify(sne, &seg, &p)
	if err != nil {
		return false, verifyErr(seg, err)
	}
	return ok, nil
}

// VerifyParsed is Verify for a segment whose options the caller has
// already parsed with tcpopt.ParseSegment(seg.TCP) (opts and hl, the
// header length, from a call that returned no error): the same MAC and
// the same constant-time comparison, without walking the options again
// (the shadow checker parses them once for its own verdicts). Options that
// do not describe seg — another header length, no whole TCP-AO option at
// opts' offset — are an error wrapping ErrParsedOptions, never a MAC
// computed from the wrong bytes; a TCP-MD5 option besides the TCP-AO one
// is ErrMD5Option and none ErrNoOption, as from Verify. It does not
// allocate unless it returns an error. It neither keeps nor changes *seg
// (a pointer: the per-segment path copies no Segment).
func (k *TrafficKey) VerifyParsed(sne uint32, seg *Segment, opts tcpopt.Options, hl int) (bool, error) {
	p, err := seg.parsedAs(opts, hl)
	if err != nil {
		return false, verifyErr(*seg, err)
	}
	ok, err := k.verify(sne, seg, &p)
	if err != nil {
		return false, verifyErr(*seg, err)
	}
	return ok, nil
}

// verifyErr wraps err of a segment Verify or VerifyParsed cannot check.
func verifyErr(seg Segment, err error) error {
	return fmt.Errorf("tcpao: verify %d-byte segment %v -> %v: %w", len(seg.TCP), seg.Src, seg.Dst, err)
}

// verify is Verify for a segment parse has checked and found an option in.
func (k *TrafficKey) verify(sne uint32, seg *Segment, p *parsed) (bool, error) {
	if err := k.compute(sne, seg, p); err != nil {
		return false, err
	}
	return subtle.ConstantTimeCompare(p.mac(seg.TCP), k.sum[:k.macLen]) == 1, nil
}

// compute leaves the MAC of seg (checked by parse, with a TCP-AO option)
// in k.sum. The message (RFC 5925 §5.1) is assembled in k.head up to the
// payload, which is fed from the segment itself.
func (k *TrafficKey) compute(sne uint32, seg *Segment, p *parsed) error {
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
	ao := 20 + p.opts.AOOffset() // the option's offset in tcp
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
