// Package srv6policy implements SRv6 with HMAC (RFC 8754) as Linux does it:
// the SRH HMAC with prepared keys, a codec for the Segment Routing Header
// (routing type 4) and its TLVs, verification of captured SRHs, and (Linux
// only) the kernel's per-namespace HMAC key table through the SEG6 generic
// netlink family.
//
// The HMAC and the codec are pure Go and build everywhere; the kernel key
// client lives in keys_linux.go, with a stub elsewhere.
package srv6policy

import (
	"crypto/fips140"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/subtle"
	"encoding"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"net/netip"
	"strconv"
	"strings"
	"sync"
)

// Algorithm is an SRv6 HMAC algorithm. Its values are the kernel's
// SEG6_HMAC_ALGO_* identifiers (SEG6_ATTR_ALGID).
type Algorithm uint8

// The algorithms Linux implements.
const (
	SHA1   Algorithm = 1 // HMAC-SHA1, 20 bytes zero-padded to 32 in the TLV
	SHA256 Algorithm = 2 // HMAC-SHA256
)

// Sizes and limits, as in Linux (include/net/seg6_hmac.h, net/ipv6/seg6_hmac.c).
const (
	// HMACFieldLen is the length of the HMAC field of the HMAC TLV.
	HMACFieldLen = 32
	// MaxSecretLen is the longest secret the kernel accepts (SEG6_HMAC_SECRET_LEN).
	MaxSecretLen = 64
	// MaxHMACSegments is the most segments an SRH with an HMAC can carry:
	// the kernel builds the HMAC text in a 256-byte buffer
	// (16+1+1+4+16n < 256).
	MaxHMACSegments = 14
)

// Errors, for errors.Is. They never contain secret material.
var (
	// ErrKeyIDZero: HMAC key ID 0 means "no key" and cannot be configured.
	ErrKeyIDZero = errors.New("srv6policy: HMAC key ID 0 is invalid (IDs are 1..4294967295)")
	// ErrEmptySecret: a secret must have at least one byte.
	ErrEmptySecret = errors.New("srv6policy: HMAC secret is empty")
	// ErrSecretTooLong: a secret is longer than MaxSecretLen bytes.
	ErrSecretTooLong = fmt.Errorf("srv6policy: HMAC secret is longer than %d bytes", MaxSecretLen)
	// ErrBadAlgorithm: the algorithm is neither sha1 nor sha256.
	ErrBadAlgorithm = errors.New("srv6policy: HMAC algorithm must be sha1 or sha256")
	// ErrFIPS140Only: the program runs with GODEBUG=fips140=only, which
	// forbids HMAC-SHA1 and HMAC keys shorter than 112 bits.
	ErrFIPS140Only = errors.New("srv6policy: not allowed in FIPS 140-only mode (GODEBUG=fips140=only)")
	// ErrTooManySegments: an SRH with an HMAC holds at most MaxHMACSegments segments.
	ErrTooManySegments = fmt.Errorf("srv6policy: an SRH with an HMAC holds at most %d segments", MaxHMACSegments)
)

// String returns "sha1" or "sha256" (or "algorithm(N)").
func (a Algorithm) String() string {
	switch a {
	case SHA1:
		return "sha1"
	case SHA256:
		return "sha256"
	}
	return "algorithm(" + strconv.Itoa(int(a)) + ")"
}

// Valid reports whether a is SHA1 or SHA256.
func (a Algorithm) Valid() bool { return a == SHA1 || a == SHA256 }

// ParseAlgorithm parses "sha1" or "sha256" (case-insensitive, as ip sr hmac
// and the config file spell them).
func ParseAlgorithm(s string) (Algorithm, error) {
	switch strings.ToLower(s) {
	case "sha1":
		return SHA1, nil
	case "sha256":
		return SHA256, nil
	}
	return 0, fmt.Errorf("%w (got %q)", ErrBadAlgorithm, s)
}

// MarshalText implements encoding.TextMarshaler.
func (a Algorithm) MarshalText() ([]byte, error) {
	if !a.Valid() {
		return nil, fmt.Errorf("%w (got %d)", ErrBadAlgorithm, uint8(a))
	}
	return []byte(a.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (a *Algorithm) UnmarshalText(b []byte) error {
	v, err := ParseAlgorithm(string(b))
	if err != nil {
		return err
	}
	*a = v
	return nil
}

func (a Algorithm) newHash() hash.Hash {
	if a == SHA1 {
		return sha1.New()
	}
	return sha256.New()
}

func (a Algorithm) size() int {
	if a == SHA1 {
		return sha1.Size
	}
	return sha256.Size
}

// ValidateKey checks a key's ID, algorithm and secret length as the kernel
// does (and as NewKey and KernelKeys.Set do). The error names the key ID and
// the secret's length, never its contents.
func ValidateKey(id uint32, alg Algorithm, secret []byte) error {
	switch {
	case id == 0:
		return ErrKeyIDZero
	case !alg.Valid():
		return fmt.Errorf("key %d: %w (got %d)", id, ErrBadAlgorithm, uint8(alg))
	case len(secret) == 0:
		return fmt.Errorf("key %d: %w", id, ErrEmptySecret)
	case len(secret) > MaxSecretLen:
		return fmt.Errorf("key %d: %w (it has %d)", id, ErrSecretTooLong, len(secret))
	}
	return nil
}

// checkFIPS applies the rules crypto/hmac enforces under GODEBUG=fips140=only
// (where it panics): no SHA-1, no key shorter than 112 bits. Key computes
// HMAC itself, so it must refuse what crypto/hmac would.
func checkFIPS(id uint32, alg Algorithm, secretLen int) error {
	if !fips140.Enforced() {
		return nil
	}
	if alg == SHA1 {
		return fmt.Errorf("key %d: HMAC-SHA1: %w", id, ErrFIPS140Only)
	}
	if secretLen < 112/8 {
		return fmt.Errorf("key %d: secret of %d bytes is shorter than 112 bits: %w", id, secretLen, ErrFIPS140Only)
	}
	return nil
}

// Key is a prepared SRv6 HMAC key: the hash states after the inner and the
// outer padded key blocks are computed once by NewKey, so each HMAC costs
// two hash finalisations and no allocation. A Key does not keep the secret
// itself, but its states are equivalent to it: they never print (every fmt
// verb gives the key ID and algorithm only).
//
// A Key is safe for concurrent use: computations are serialised by a mutex.
// Goroutines that compute HMACs in parallel should each use their own Clone.
type Key struct {
	id  uint32
	alg Algorithm
	// inner and outer are the marshalled hash states after H(K^ipad) and
	// H(K^opad) (encoding.BinaryAppender). Immutable after NewKey, shared
	// by clones.
	inner, outer keyState

	mu     sync.Mutex
	hi, ho hash.Hash // working digests, restored from inner/outer per use
	hiU    encoding.BinaryUnmarshaler
	hoU    encoding.BinaryUnmarshaler
	buf    [256]byte // HMAC text (the kernel's ring buffer size)
	sum    [HMACFieldLen]byte
}

// keyState is a marshalled hash state derived from the secret: it prints
// redacted, even inside a copied Key value.
type keyState []byte

// Format writes "<redacted>" whatever the verb.
func (keyState) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(redacted)) }

// NewKey prepares key id with algorithm alg and secret (1..64 bytes). It does
// not keep secret: the caller may clear it afterwards.
func NewKey(id uint32, alg Algorithm, secret []byte) (*Key, error) {
	if err := ValidateKey(id, alg, secret); err != nil {
		return nil, err
	}
	if err := checkFIPS(id, alg, len(secret)); err != nil {
		return nil, err
	}
	k := &Key{id: id, alg: alg}
	var pad [64]byte // both hashes have 64-byte blocks; secrets are at most 64 bytes
	defer clear(pad[:])
	copy(pad[:], secret)
	state := func(x byte) (keyState, error) {
		for i := range pad {
			pad[i] ^= x
		}
		h := alg.newHash()
		if _, err := h.Write(pad[:]); err != nil {
			// crypto/sha1 refuses to hash under fips140=only.
			return nil, fmt.Errorf("key %d: %s: %w: %v", id, alg, ErrFIPS140Only, err)
		}
		for i := range pad {
			pad[i] ^= x
		}
		return h.(encoding.BinaryAppender).AppendBinary(nil)
	}
	var err error
	if k.inner, err = state(0x36); err != nil {
		return nil, err
	}
	if k.outer, err = state(0x5c); err != nil {
		return nil, err
	}
	k.initWork()
	return k, nil
}

func (k *Key) initWork() {
	k.hi, k.ho = k.alg.newHash(), k.alg.newHash()
	k.hiU = k.hi.(encoding.BinaryUnmarshaler)
	k.hoU = k.ho.(encoding.BinaryUnmarshaler)
}

// Clone returns a Key with the same prepared states and its own working
// buffers, for a goroutine that computes in parallel with others.
func (k *Key) Clone() *Key {
	c := &Key{id: k.id, alg: k.alg, inner: k.inner, outer: k.outer}
	c.initWork()
	return c
}

// ID returns the HMAC key ID.
func (k *Key) ID() uint32 { return k.id }

// Algorithm returns the key's algorithm.
func (k *Key) Algorithm() Algorithm { return k.alg }

// String describes the key without its secret.
func (k *Key) String() string {
	if k == nil {
		return "srv6policy.Key(nil)"
	}
	return fmt.Sprintf("srv6policy.Key(id=%d, %s)", k.id, k.alg)
}

// GoString describes the key without its secret.
func (k *Key) GoString() string { return k.String() }

// Format prints the key ID and algorithm whatever the verb, so that a Key
// logged by mistake (%v, %+v, %#v, %x) shows no key material.
func (k *Key) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(k.String())) }

// usable reports whether the key can be used now: a SHA-1 key prepared
// before FIPS 140-only enforcement was turned on (fips140.WithoutEnforcement)
// cannot, and crypto/sha1 would panic.
func (k *Key) usable() bool { return k.alg != SHA1 || !fips140.Enforced() }

// The HMAC text is fed to the inner digest through k.buf: start restores
// the inner state and writes the 22-byte header into k.buf, add appends a
// segment (flushing k.buf when full: the kernel's 14 segments always fit),
// finish writes the rest and computes the outer hash into k.sum. k.mu must
// be held.
func (k *Key) start(src netip.Addr, lastEntry, flags uint8) int {
	k.hiU.UnmarshalBinary(k.inner) //nolint:errcheck // the state came from the same hash
	a := src.As16()
	copy(k.buf[:16], a[:])
	k.buf[16] = lastEntry
	k.buf[17] = flags
	binary.BigEndian.PutUint32(k.buf[18:22], k.id)
	return 22
}

func (k *Key) add(n int, seg []byte) int {
	if n+16 > len(k.buf) {
		k.hi.Write(k.buf[:n])
		n = 0
	}
	return n + copy(k.buf[n:n+16], seg)
}

// finish completes the HMAC into k.sum (zero-padded to 32 bytes).
func (k *Key) finish(n int) {
	k.hi.Write(k.buf[:n])
	s := k.hi.Sum(k.sum[:0])
	k.hoU.UnmarshalBinary(k.outer) //nolint:errcheck
	k.ho.Write(s)
	k.ho.Sum(k.sum[:0])
	clear(k.sum[k.alg.size():])
}

func (k *Key) computeAddrs(src netip.Addr, lastEntry, flags uint8, segments []netip.Addr) {
	n := k.start(src, lastEntry, flags)
	for _, s := range segments {
		a := s.As16()
		n = k.add(n, a[:])
	}
	k.finish(n)
}

// Sum appends to dst the 32-byte HMAC field (RFC 8754 §2.1.2.1, as Linux
// computes it) for outer source address src and an SRH with Last Entry
// lastEntry, flags and segments in wire order (segments[0] is the last
// segment, the final destination). The HMAC text is src (16 bytes), Last
// Entry, Flags, the key ID (4 bytes, big endian) and each segment (16
// bytes); the caller passes lastEntry = len(segments)-1 for a well-formed
// SRH. Addresses are taken as 16 bytes (As16). An HMAC-SHA1 is zero-padded
// to 32 bytes.
//
// It appends nothing only for a SHA-1 key used while FIPS 140-only
// enforcement is on (possible only if the key was made inside
// fips140.WithoutEnforcement).
func (k *Key) Sum(dst []byte, src netip.Addr, lastEntry, flags uint8, segments []netip.Addr) []byte {
	if !k.usable() {
		return dst
	}
	k.mu.Lock()
	k.computeAddrs(src, lastEntry, flags, segments)
	dst = append(dst, k.sum[:]...)
	k.mu.Unlock()
	return dst
}

// Verify reports, in constant time, whether mac (the 32-byte HMAC field of
// an HMAC TLV) is the HMAC of src and the SRH fields given as for Sum.
func (k *Key) Verify(mac []byte, src netip.Addr, lastEntry, flags uint8, segments []netip.Addr) bool {
	if !k.canVerify(mac) {
		return false
	}
	k.mu.Lock()
	k.computeAddrs(src, lastEntry, flags, segments)
	ok := k.sumIs(mac)
	k.mu.Unlock()
	return ok
}

// canVerify reports whether mac has the HMAC field's length and the key
// can be used (see usable).
func (k *Key) canVerify(mac []byte) bool { return len(mac) == HMACFieldLen && k.usable() }

// sumIs compares, in constant time, mac with k.sum; k.mu must be held.
func (k *Key) sumIs(mac []byte) bool { return subtle.ConstantTimeCompare(mac, k.sum[:]) == 1 }

// srhSegments checks that raw SRH bytes hold their Last Entry + 1 segments
// and no more than the kernel can HMAC.
func srhSegments(srh []byte) (lastEntry, flags uint8, err error) {
	if len(srh) < srhFixedLen {
		return 0, 0, fmt.Errorf("%w: %d bytes, under the 8-byte fixed header", ErrSRHTruncated, len(srh))
	}
	lastEntry, flags = srh[4], srh[5]
	if int(lastEntry)+1 > MaxHMACSegments {
		return 0, 0, fmt.Errorf("%w (Last Entry %d)", ErrTooManySegments, lastEntry)
	}
	if need := srhFixedLen + 16*(int(lastEntry)+1); len(srh) < need {
		return 0, 0, fmt.Errorf("%w: Last Entry %d needs %d bytes, have %d", ErrSRHTruncated, lastEntry, need, len(srh))
	}
	return lastEntry, flags, nil
}

// sumSRH computes into k.sum; k.mu must be held.
func (k *Key) sumSRH(src netip.Addr, srh []byte, lastEntry, flags uint8) {
	n := k.start(src, lastEntry, flags)
	for i := 0; i <= int(lastEntry); i++ {
		off := srhFixedLen + 16*i
		n = k.add(n, srh[off:off+16])
	}
	k.finish(n)
}

// SumSRH appends to dst the 32-byte HMAC field for outer source src and the
// raw SRH srh (its Last Entry, Flags and Last Entry + 1 segments; the key ID
// is this key's, whatever the SRH's HMAC TLV says). The SRH must hold its
// segments and at most MaxHMACSegments of them.
func (k *Key) SumSRH(dst []byte, src netip.Addr, srh []byte) ([]byte, error) {
	lastEntry, flags, err := srhSegments(srh)
	if err != nil {
		return dst, err
	}
	if !k.usable() {
		return dst, fmt.Errorf("key %d: HMAC-SHA1: %w", k.id, ErrFIPS140Only)
	}
	k.mu.Lock()
	k.sumSRH(src, srh, lastEntry, flags)
	dst = append(dst, k.sum[:]...)
	k.mu.Unlock()
	return dst, nil
}

// verifySRH compares, in constant time, mac with the HMAC of src and srh.
func (k *Key) verifySRH(mac []byte, src netip.Addr, srh []byte) bool {
	lastEntry, flags, err := srhSegments(srh)
	if err != nil || !k.canVerify(mac) {
		return false
	}
	k.mu.Lock()
	k.sumSRH(src, srh, lastEntry, flags)
	ok := k.sumIs(mac)
	k.mu.Unlock()
	return ok
}

// Verdict is the result of checking the HMAC of a captured SRH.
type Verdict uint8

// Verdicts, as counted in authbgpd_srh_hmac_total{verdict}.
const (
	// VerdictNoHMAC: the SRH carries no HMAC TLV the kernel would look at
	// (flag 0x08 clear, or the last 40 bytes are not a type-5 length-38 TLV).
	VerdictNoHMAC Verdict = iota
	// VerdictValid: the HMAC is right for the configured key.
	VerdictValid
	// VerdictInvalid: the HMAC is wrong, or the SRH is malformed or has
	// more segments than an HMAC can cover.
	VerdictInvalid
	// VerdictUnknownKey: the HMAC TLV names a key ID we do not have.
	VerdictUnknownKey
)

// String returns the metric label: valid, invalid, no_hmac or unknown_key.
func (v Verdict) String() string {
	switch v {
	case VerdictValid:
		return "valid"
	case VerdictInvalid:
		return "invalid"
	case VerdictNoHMAC:
		return "no_hmac"
	case VerdictUnknownKey:
		return "unknown_key"
	}
	return "verdict(" + strconv.Itoa(int(v)) + ")"
}

// VerifySRH checks the HMAC of srh, a whole captured SRH (as
// frame.TCP.SRH gives it), sent from outer source outerSrc, as a Linux
// receiver does (seg6_hmac_validate_skb): the HMAC TLV is looked for only
// when flag 0x08 is set, as the last 40 bytes of the SRH; its key ID is
// looked up in keys. keyID is the TLV's key ID (0 when there is none). A
// malformed SRH is VerdictInvalid. It does not allocate; keys is only read.
func VerifySRH(keys map[uint32]*Key, outerSrc netip.Addr, srh []byte) (Verdict, uint32) {
	if len(srh) < srhFixedLen || srh[2] != RoutingTypeSRH || len(srh) != (int(srh[1])+1)*8 {
		return VerdictInvalid, 0
	}
	tlv, ok := kernelHMACTLV(srh)
	if !ok {
		return VerdictNoHMAC, 0
	}
	keyID := binary.BigEndian.Uint32(tlv[4:8])
	k := keys[keyID]
	if k == nil {
		return VerdictUnknownKey, keyID
	}
	if !outerSrc.Is6() || !k.verifySRH(tlv[8:40], outerSrc, srh) {
		return VerdictInvalid, keyID
	}
	return VerdictValid, keyID
}

// kernelHMACTLV returns the HMAC TLV where Linux looks for it
// (seg6_get_tlv_hmac): when flag 0x08 is set, the header is long enough for
// the segments and 40 more bytes, and the last 40 bytes are a TLV of type 5,
// length 38. srh has its full length ((Hdr Ext Len + 1) * 8).
func kernelHMACTLV(srh []byte) ([]byte, bool) {
	hdrlen, lastEntry := int(srh[1]), int(srh[4])
	if srh[5]&FlagHMAC == 0 || hdrlen < (lastEntry+1)*2+5 {
		return nil, false
	}
	tlv := srh[len(srh)-hmacTLVLen:]
	if tlv[0] != TLVHMAC || tlv[1] != hmacTLVLen-2 {
		return nil, false
	}
	return tlv, true
}

// Precomputed is the HMAC of a policy whose outer source and SRH never
// change: computed once, it gives the HMAC field and the SRH to send, and
// verifies received copies of the SRH without hashing.
type Precomputed struct {
	src netip.Addr
	srh []byte // encoded, HMAC field filled
	mac [HMACFieldLen]byte
}

// Precompute encodes srh (whose last TLV must be an HMAC TLV naming this
// key; its HMAC field is ignored) and fills in the HMAC for outer source src.
func (k *Key) Precompute(src netip.Addr, srh *SRH) (*Precomputed, error) {
	if !src.Is6() || src.Is4In6() {
		return nil, fmt.Errorf("srv6policy: outer source %s is not an IPv6 address", src)
	}
	b, err := srh.Encode()
	if err != nil {
		return nil, err
	}
	tlv, ok := kernelHMACTLV(b)
	if !ok {
		return nil, errors.New("srv6policy: precompute: the SRH has no HMAC TLV (flag 0x08 and a last TLV of type 5)")
	}
	if id := binary.BigEndian.Uint32(tlv[4:8]); id != k.id {
		return nil, fmt.Errorf("srv6policy: precompute: the SRH names key %d, not key %d", id, k.id)
	}
	p := &Precomputed{src: src}
	if _, err := k.SumSRH(p.mac[:0], src, b); err != nil {
		return nil, err
	}
	copy(tlv[8:], p.mac[:])
	p.srh = b
	return p, nil
}

// HMAC returns the 32-byte HMAC field.
func (p *Precomputed) HMAC() [HMACFieldLen]byte { return p.mac }

// Source returns the outer source address the HMAC covers.
func (p *Precomputed) Source() netip.Addr { return p.src }

// SRH returns a copy of the encoded SRH with its HMAC field filled in.
func (p *Precomputed) SRH() []byte { return append([]byte(nil), p.srh...) }

// Verify reports whether srh, received from src, carries this HMAC over the
// same covered fields (Segments Left, Next Header and Tag are not covered
// and may differ). The HMAC field is compared in constant time.
func (p *Precomputed) Verify(src netip.Addr, srh []byte) bool {
	if src != p.src || len(srh) != len(p.srh) || len(srh) < srhFixedLen {
		return false
	}
	tlv, ok := kernelHMACTLV(srh)
	if !ok || srh[1] != p.srh[1] || srh[2] != p.srh[2] || srh[4] != p.srh[4] || srh[5] != p.srh[5] {
		return false
	}
	n := len(srh) - HMACFieldLen
	if string(srh[srhFixedLen:n]) != string(p.srh[srhFixedLen:n]) {
		return false
	}
	return subtle.ConstantTimeCompare(tlv[8:], p.mac[:]) == 1
}
