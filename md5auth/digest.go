package md5auth

import (
	"crypto/md5"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"net/netip"

	"github.com/authbgp/authbgpd/tcpopt"
)

// DigestLen is the length of an RFC 2385 signature.
const DigestLen = md5.Size

// Verdict is the outcome of checking one segment's TCP-MD5 signature.
type Verdict uint8

const (
	// Unsigned: the segment carries no MD5 option.
	Unsigned Verdict = iota
	// Valid: the MD5 option matches the key.
	Valid
	// Invalid: the MD5 option does not match the key.
	Invalid
)

func (v Verdict) String() string {
	switch v {
	case Unsigned:
		return "unsigned"
	case Valid:
		return "valid"
	case Invalid:
		return "invalid"
	}
	return fmt.Sprintf("verdict(%d)", uint8(v))
}

// Errors about segments that cannot be checked.
var (
	ErrShortSegment  = tcpopt.ErrShortSegment // the TCP segment is shorter than its header
	ErrAddrFamily    = errors.New("md5auth: source and destination are not both IPv4 or both IPv6")
	ErrSegmentTooBig = errors.New("md5auth: TCP segment longer than 65535 bytes")
)

// Digester computes and verifies RFC 2385 signatures. It reuses its MD5
// state and scratch space, so Sum and Check do not allocate. A Digester is
// not safe for concurrent use; give each goroutine its own.
type Digester struct {
	// buf holds the covered bytes contiguously: pseudo-header, TCP header,
	// payload, key. One md5.Sum over a contiguous buffer is measurably
	// faster than streaming the parts through hash.Hash (no interface
	// calls, no partial-block copies, no state copy in Sum); copying the
	// payload costs far less than that. It grows to the largest segment
	// seen and is then reused.
	buf []byte
	sum [DigestLen]byte
}

// NewDigester returns a ready Digester.
func NewDigester() *Digester { return &Digester{buf: make([]byte, 0, 2048)} }

// Sum appends to out the RFC 2385 digest of a TCP segment from src to dst
// (the segment is the TCP header with options, then the payload) under key.
// The digest covers the pseudo-header (IPv4: src, dst, zero, 6, TCP length;
// IPv6: src, dst, upper-layer length, zero, next header 6), the 20-byte TCP
// header with a zero checksum (options excluded), the payload and the key.
func (d *Digester) Sum(out []byte, src, dst netip.Addr, segment, key []byte) ([]byte, error) {
	if err := d.digest(src, dst, segment, key); err != nil {
		return out, err
	}
	return append(out, d.sum[:]...), nil
}

// digest leaves the signature of segment in d.sum.
func (d *Digester) digest(src, dst netip.Addr, segment, key []byte) error {
	hdrLen, err := headerLen(segment)
	if err != nil {
		return err
	}
	var w [4]uint64
	fam := addrWords(&w, src, dst)
	return d.digestWords(&w, fam, segment, hdrLen, key)
}

// PseudoHeader is the address part of an RFC 2385 pseudo-header (IPv4:
// source and destination, 8 bytes; IPv6: 32 bytes), prepared once for a
// (source, destination) pair so that a caller digesting many segments of
// one connection, such as the shadow checker, pays for unmapping, family
// checks and address copies once, not per segment. The zero PseudoHeader
// belongs to no family: digesting with it is ErrAddrFamily.
type PseudoHeader struct {
	// w holds the address bytes as the little-endian 8-byte words that
	// digestWords stores (IPv4: w[0] only), so preparing does all the
	// shuffling and a segment only adds its length/protocol word.
	w   [4]uint64
	fam uint8 // 4 or 6; 0 for the zero value
}

// NewPseudoHeader prepares the pseudo-header addresses of segments from
// src to dst. IPv4-mapped IPv6 addresses count as IPv4 (the kernel signs
// a 4-in-6 connection as IPv4). Mixed families are ErrAddrFamily.
func NewPseudoHeader(src, dst netip.Addr) (PseudoHeader, error) {
	var ph PseudoHeader
	ph.fam = addrWords(&ph.w, src, dst)
	if ph.fam == 0 {
		return PseudoHeader{}, ErrAddrFamily
	}
	return ph, nil
}

// addrWords fills w with the address words of a pseudo-header from src to
// dst (see PseudoHeader) and returns the family, 4 or 6 (0: mixed).
func addrWords(w *[4]uint64, src, dst netip.Addr) uint8 {
	src, dst = src.Unmap(), dst.Unmap()
	le := binary.LittleEndian
	switch {
	case src.Is4() && dst.Is4():
		s, t := src.As4(), dst.As4()
		w[0] = uint64(le.Uint32(s[:])) | uint64(le.Uint32(t[:]))<<32
		return 4
	case src.Is6() && dst.Is6():
		s, t := src.As16(), dst.As16()
		w[0], w[1], w[2], w[3] = le.Uint64(s[0:8]), le.Uint64(s[8:16]), le.Uint64(t[0:8]), le.Uint64(t[8:16])
		return 6
	}
	return 0
}

// digestWords digests segment with the pseudo-header address words w of
// family fam (0: ErrAddrFamily, after the length check as always).
func (d *Digester) digestWords(w *[4]uint64, fam uint8, segment []byte, hdrLen int, key []byte) error {
	if len(segment) > 0xffff {
		return ErrSegmentTooBig
	}
	if fam != 4 && fam != 6 {
		return ErrAddrFamily
	}
	ph := PseudoHeader{w: *w, fam: fam}
	d.VerifyPrepared(&ph, segment, hdrLen, nil, key) // (no signature: only the digest, in d.sum)
	return nil
}

// VerifyPrepared reports whether sig is the RFC 2385 signature of segment
// under key, the addresses prepared in ph, for a caller that has parsed
// the segment (hl: its header length, as tcpopt.ParseSegment returned it):
// CheckSignaturePrepared's digest and constant-time comparison in one
// function, for the shadow checker's per-segment path. It fails closed:
// false for everything CheckSignaturePrepared does not find Valid (another
// signature, a sig not 16 bytes long, an hl that is not segment's header
// length, a segment too big, the zero PseudoHeader). It is the one place
// the covered bytes are assembled: every digest of the package is its.
func (d *Digester) VerifyPrepared(ph *PseudoHeader, segment []byte, hl int, sig, key []byte) bool {
	if len(segment) < 20 || len(segment) > 0xffff || hl != int(segment[12]>>4)*4 || hl < 20 || hl > len(segment) {
		return false
	}
	// The covered bytes, contiguous in d.buf: pseudo-header, TCP header
	// with a zero checksum, payload, key.
	need := 40 + 20 + len(segment) - hl + len(key)
	if cap(d.buf) < need {
		d.buf = make([]byte, 0, need+need/4)
	}
	b := d.buf[:need]
	// The header words are stored 8 and 4 bytes at a time: md5's 4-byte
	// loads that follow at once are then forwarded from one store each,
	// where byte stores would stall every load that spans several.
	le := binary.LittleEndian
	var n int
	switch ph.fam {
	case 4:
		le.PutUint64(b[0:8], ph.w[0])
		le.PutUint32(b[8:12], 6<<8|uint32(bits.ReverseBytes16(uint16(len(segment))))<<16)
		n = 12
	case 6:
		le.PutUint64(b[0:8], ph.w[0])
		le.PutUint64(b[8:16], ph.w[1])
		le.PutUint64(b[16:24], ph.w[2])
		le.PutUint64(b[24:32], ph.w[3])
		le.PutUint64(b[32:40], uint64(bits.ReverseBytes32(uint32(len(segment))))|6<<56)
		n = 40
	default:
		return false
	}
	le.PutUint64(b[n:n+8], le.Uint64(segment[0:8]))
	le.PutUint64(b[n+8:n+16], le.Uint64(segment[8:16]))
	le.PutUint32(b[n+16:n+20], le.Uint32(segment[16:20])&0xffff0000) // checksum zeroed
	m := n + 20
	// The payload of a keepalive (up to 48 bytes: longer ones memmove
	// moves faster, call and all) and any key of 16 bytes or more are
	// moved inline: a call to memmove spills the registers, which costs
	// more than the move.
	if pl := segment[hl:]; len(pl) >= 16 && len(pl) <= 48 {
		move16(b[m:m+len(pl)], pl)
		m += len(pl)
	} else {
		m += copy(b[m:], pl)
	}
	if len(key) >= 16 {
		move16(b[m:m+len(key)], key)
		m += len(key)
	} else {
		m += copy(b[m:], key)
	}
	// The digest is compared where md5.Sum returned it, on the stack,
	// not stored in d.sum and loaded back (docs/PERFORMANCE-shadow.md,
	// "The digest compared in place"). Only digestWords, which passes no
	// signature, wants the digest in d.sum; a sig of any other length
	// than 16 is false (equal16 refuses it too).
	sum := md5.Sum(b[:m])
	if len(sig) != DigestLen {
		d.sum = sum
		return false
	}
	return equal16(&sum, sig)
}

// move16 copies src to dst, both of the same length, at least 16 bytes:
// 16 bytes at a time, the last 16 overlapping what came before.
func move16(dst, src []byte) {
	n := len(src)
	for i := 0; i < n-16; i += 16 {
		*(*[16]byte)(dst[i:]) = *(*[16]byte)(src[i:])
	}
	*(*[16]byte)(dst[n-16:]) = *(*[16]byte)(src[n-16:])
}

// Check verifies the MD5 option of segment against key. A segment without
// an MD5 option is Unsigned (not an error). The comparison is constant-time.
// A malformed option list is an error (see ParseOptions).
func (d *Digester) Check(src, dst netip.Addr, segment, key []byte) (Verdict, error) {
	sig, hl, err := signature(segment)
	if err != nil || sig == nil {
		return Unsigned, err
	}
	var ph PseudoHeader
	ph.fam = addrWords(&ph.w, src, dst)
	return d.check(&ph, segment, hl, sig, key)
}

// CheckSignature verifies sig (the 16 bytes of an MD5 option already found
// in segment) against key, in constant time.
func (d *Digester) CheckSignature(src, dst netip.Addr, segment, sig, key []byte) (Verdict, error) {
	hl, err := headerLen(segment)
	if err != nil {
		return Unsigned, err
	}
	var ph PseudoHeader
	ph.fam = addrWords(&ph.w, src, dst)
	return d.check(&ph, segment, hl, sig, key)
}

// CheckSignaturePrepared is CheckSignature for a segment whose addresses
// are prepared in ph (see NewPseudoHeader): the same digest, without the
// per-segment address work.
func (d *Digester) CheckSignaturePrepared(ph *PseudoHeader, segment, sig, key []byte) (Verdict, error) {
	hl, err := headerLen(segment)
	if err != nil {
		return Unsigned, err
	}
	return d.check(ph, segment, hl, sig, key)
}

// check is the verdict of sig on segment (header length hl, checked):
// the errors digestWords gives, in its order, then VerifyPrepared, which
// compares the digest where md5.Sum returned it (not through d.sum).
func (d *Digester) check(ph *PseudoHeader, segment []byte, hl int, sig, key []byte) (Verdict, error) {
	switch {
	case len(segment) > 0xffff:
		return Unsigned, ErrSegmentTooBig
	case ph.fam != 4 && ph.fam != 6:
		return Unsigned, ErrAddrFamily
	case d.VerifyPrepared(ph, segment, hl, sig, key):
		return Valid, nil
	}
	return Invalid, nil
}

// headerLen returns the TCP header length (data offset) of segment, or
// ErrShortSegment.
func headerLen(segment []byte) (int, error) { return tcpopt.HeaderLen(segment) }

// equal16 compares a digest with a 16-byte signature in constant time:
// two XORs of 64-bit words, no data-dependent branch (crypto/subtle's
// byte loop costs as much as a tenth of a keepalive's digest).
func equal16(sum *[DigestLen]byte, sig []byte) bool {
	if len(sig) != DigestLen {
		return false
	}
	x := binary.LittleEndian.Uint64(sum[0:8]) ^ binary.LittleEndian.Uint64(sig[0:8])
	y := binary.LittleEndian.Uint64(sum[8:16]) ^ binary.LittleEndian.Uint64(sig[8:16])
	return x|y == 0
}
