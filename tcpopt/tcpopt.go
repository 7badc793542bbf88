// Package tcpopt is the one TCP option parser: md5auth, tcpao and the
// shadow checker judge every segment's option list by its rules, so a
// segment gets the same verdict whichever of them looks at it (the live
// shadow, verify-pcap, the digest code).
//
// The rules (RFC 793 §3.1, RFC 2385 §3.0, RFC 5925 §2.2 and §7.7):
//
//   - NOPs are skipped; EOL ends the list (what follows is padding).
//   - Every other option has a length byte of at least 2 and lies wholly
//     inside the list.
//   - A TCP-MD5 option (kind 19) has length 18, and there is at most one.
//   - A TCP-AO option (kind 29) has length 4 or more (KeyID, RNextKeyID,
//     then the MAC: length − 4 bytes), and there is at most one.
//   - A breach of any of these is an *Error wrapping ErrBadOptions.
//   - A well-formed list carrying both a TCP-MD5 and a TCP-AO option is
//     its own verdict, ErrMD5AndAO: RFC 5925 §7.7 has such a segment
//     discarded (Linux drops it, SKB_DROP_REASON_TCP_AUTH_HDR).
//
// Parse never panics, reads nothing outside the list it is given and does
// not allocate unless it returns an error. The package imports nothing of
// authbgpd's and has no build constraints.
package tcpopt

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Option kinds and lengths.
const (
	KindEOL = 0  // end of option list
	KindNOP = 1  // no-operation (padding)
	KindMD5 = 19 // RFC 2385 TCP-MD5 signature
	KindAO  = 29 // RFC 5925 TCP Authentication Option

	SignatureLen = 16               // the TCP-MD5 signature
	MD5Len       = 2 + SignatureLen // a TCP-MD5 option: kind, length, signature
	AOMinLen     = 4                // a TCP-AO option without MAC: kind, length, KeyID, RNextKeyID
	AOMaxMACLen  = 255 - AOMinLen   // what the length byte allows

	FixedHeaderLen = 20 // the TCP header without options
	MaxLen         = 40 // the most options a TCP header holds (data offset 15)
)

// Errors, for errors.Is.
var (
	// ErrBadOptions: the option list breaks a rule (see *Error).
	ErrBadOptions = errors.New("tcpopt: malformed TCP options")
	// ErrMD5AndAO: the list is well formed but carries both a TCP-MD5 and
	// a TCP-AO option (RFC 5925 §7.7: the segment is discarded).
	ErrMD5AndAO = errors.New("tcpopt: both a TCP-MD5 and a TCP-AO option")
	// ErrShortSegment: the TCP segment is shorter than 20 bytes or than
	// its data offset says, or the data offset is below 5.
	ErrShortSegment = errors.New("tcpopt: TCP segment shorter than its header")
)

// Error describes the first rule an option list breaks. Offset is where
// the offending option's kind byte is in the list (relative to byte 20 of
// the TCP header). It wraps ErrBadOptions.
type Error struct {
	Offset int
	Kind   byte
	Reason string
}

func (e *Error) Error() string {
	return fmt.Sprintf("tcpopt: malformed TCP options: option kind %d at offset %d: %s", e.Kind, e.Offset, e.Reason)
}

// Unwrap lets errors.Is(err, ErrBadOptions) match.
func (e *Error) Unwrap() error { return ErrBadOptions }

// Options is what Parse found: where the TCP-MD5 and the TCP-AO option are
// in the list. The zero value has neither.
type Options struct {
	md5, ao int // offset of the option's kind byte + 1; 0: absent
}

// HasMD5 reports whether the list carries a TCP-MD5 option.
func (o Options) HasMD5() bool { return o.md5 != 0 }

// HasAO reports whether the list carries a TCP-AO option.
func (o Options) HasAO() bool { return o.ao != 0 }

// MD5Offset is the offset of the TCP-MD5 option's kind byte in the list,
// or -1.
func (o Options) MD5Offset() int { return o.md5 - 1 }

// AOOffset is the offset of the TCP-AO option's kind byte in the list, or
// -1.
func (o Options) AOOffset() int { return o.ao - 1 }

// Signature returns the 16-byte TCP-MD5 signature in list (the list Parse
// was given), a view with no capacity past it, or nil when there is none.
func (o Options) Signature(list []byte) []byte {
	if o.md5 == 0 {
		return nil
	}
	i := o.md5 + 1 // o.md5-1 is the kind byte
	return list[i : i+SignatureLen : i+SignatureLen]
}

// AOKeyIDs returns the TCP-AO option's KeyID and RNextKeyID in list (0, 0
// when there is none).
func (o Options) AOKeyIDs(list []byte) (keyID, rnextKeyID uint8) {
	if o.ao == 0 {
		return 0, 0
	}
	return list[o.ao+1], list[o.ao+2]
}

// MAC returns the TCP-AO option's MAC field in list (length − 4 bytes), a
// view with no capacity past the option, or nil when there is no option.
func (o Options) MAC(list []byte) []byte {
	if o.ao == 0 {
		return nil
	}
	i := o.ao - 1
	end := i + int(list[i+1])
	return list[i+AOMinLen : end : end]
}

// AOLen returns the TCP-AO option's length byte (4 + the MAC's length), or
// 0.
func (o Options) AOLen(list []byte) int {
	if o.ao == 0 {
		return 0
	}
	return int(list[o.ao])
}

// The option lists of established BGP sessions, recognised without the
// walk (which would otherwise cost a tenth of a keepalive's digest):
// Linux's TCP-MD5 list (NOP, NOP, MD5: a 40-byte header), and the two
// TCP-AO lists of 28 bytes, a 16-byte TCP-AO option and NOP, NOP,
// timestamps in either order (Linux's and RFC 9235's). Each is valid as a
// whole, so Parse's result is the walk's.
const (
	nopNopMD5 = KindNOP | KindNOP<<8 | KindMD5<<16 | MD5Len<<24 // little-endian
	nopNopTS  = KindNOP<<24 | KindNOP<<16 | 8<<8 | 10           // big-endian: NOP, NOP, kind 8 length 10
	aoHead16  = KindAO<<8 | 16                                  // big-endian: kind 29, length 16
)

// Parse walks a TCP option list (the bytes between the 20-byte fixed header
// and the data offset) by the package's rules. On an error it returns what
// it found before the error (and, for ErrMD5AndAO, both options).
func Parse(list []byte) (Options, error) {
	if o, ok := recognised(list); ok {
		return o, nil
	}
	return walk(list)
}

// recognised returns the options of the lists known without the walk.
func recognised(list []byte) (Options, bool) {
	switch len(list) {
	case 20:
		if binary.LittleEndian.Uint32(list) == nopNopMD5 {
			return Options{md5: 2 + 1}, true
		}
	case 28:
		be := binary.BigEndian
		if be.Uint16(list[0:2]) == aoHead16 && be.Uint32(list[16:20]) == nopNopTS {
			return Options{ao: 0 + 1}, true
		}
		if be.Uint32(list[0:4]) == nopNopTS && be.Uint16(list[12:14]) == aoHead16 {
			return Options{ao: 12 + 1}, true
		}
	}
	return Options{}, false
}

// walk is Parse without the recognised lists.
func walk(list []byte) (Options, error) {
	var o Options
	for i := 0; i < len(list); {
		kind := list[i]
		switch kind {
		case KindEOL:
			return o.done()
		case KindNOP:
			i++
			continue
		}
		if i+1 >= len(list) {
			return o, &Error{Offset: i, Kind: kind, Reason: "length byte missing"}
		}
		l := int(list[i+1])
		if l < 2 {
			return o, &Error{Offset: i, Kind: kind, Reason: fmt.Sprintf("length %d is below 2", l)}
		}
		if l > len(list)-i {
			return o, &Error{Offset: i, Kind: kind, Reason: fmt.Sprintf("length %d runs past the option list (%d bytes left)", l, len(list)-i)}
		}
		switch kind {
		case KindMD5:
			if o.md5 != 0 {
				return o, &Error{Offset: i, Kind: kind, Reason: fmt.Sprintf("second TCP-MD5 option (the first is at offset %d)", o.md5-1)}
			}
			if l != MD5Len {
				return o, &Error{Offset: i, Kind: kind, Reason: fmt.Sprintf("TCP-MD5 option length %d, want %d", l, MD5Len)}
			}
			o.md5 = i + 1
		case KindAO:
			if o.ao != 0 {
				return o, &Error{Offset: i, Kind: kind, Reason: fmt.Sprintf("second TCP-AO option (the first is at offset %d)", o.ao-1)}
			}
			if l < AOMinLen {
				return o, &Error{Offset: i, Kind: kind, Reason: fmt.Sprintf("TCP-AO option length %d is below %d", l, AOMinLen)}
			}
			o.ao = i + 1
		}
		i += l
	}
	return o.done()
}

// done is the verdict on a list walked to its end.
func (o Options) done() (Options, error) {
	if o.md5 != 0 && o.ao != 0 {
		return o, fmt.Errorf("%w (TCP-MD5 at offset %d, TCP-AO at offset %d)", ErrMD5AndAO, o.md5-1, o.ao-1)
	}
	return o, nil
}

// HeaderLen returns the TCP header length of segment (its data offset,
// 20..60 bytes), or ErrShortSegment (not wrapped) when the segment is
// shorter than that or the data offset is below 20.
func HeaderLen(segment []byte) (int, error) {
	if len(segment) < FixedHeaderLen {
		return 0, ErrShortSegment
	}
	hl := int(segment[12]>>4) * 4
	if hl < FixedHeaderLen || hl > len(segment) {
		return 0, ErrShortSegment
	}
	return hl, nil
}

// ParseSegment parses the options of a TCP segment (header, options,
// payload) and returns them with the header length. The offsets are
// relative to the option list, segment[20:hl].
func ParseSegment(segment []byte) (Options, int, error) {
	hl, err := HeaderLen(segment)
	if err != nil {
		return Options{}, 0, err
	}
	// Parse, with its recognised lists inlined here: one call less on
	// the shadow checker's per-segment path.
	list := segment[FixedHeaderLen:hl]
	if o, ok := recognised(list); ok {
		return o, hl, nil
	}
	o, err := walk(list)
	return o, hl, err
}

// RecognisedMD5 returns ParseSegment's result for a segment whose option
// list is Linux's TCP-MD5 list (NOP, NOP, TCP-MD5: a 40-byte header, the
// list of every segment of an established Linux TCP-MD5 session; one of
// the lists Parse recognises without the walk), with ok true; for any
// other segment ok is false and the caller calls ParseSegment. It is small
// enough for the compiler to inline: the shadow checker's per-segment path
// makes no call for the list.
func RecognisedMD5(segment []byte) (o Options, hl int, ok bool) {
	if len(segment) >= 40 && segment[12]>>4 == 10 && binary.LittleEndian.Uint32(segment[20:24]) == nopNopMD5 {
		return Options{md5: 2 + 1}, 40, true
	}
	return Options{}, 0, false
}

// RecognisedAO is RecognisedMD5 for the two TCP-AO lists Parse
// recognises (a 16-byte TCP-AO option and NOP, NOP, timestamps, in
// either order: a 48-byte header), the lists of Linux's and RFC 9235's
// established TCP-AO sessions.
func RecognisedAO(segment []byte) (o Options, hl int, ok bool) {
	if len(segment) < 48 || segment[12]>>4 != 12 {
		return Options{}, 0, false
	}
	be := binary.BigEndian
	switch {
	case be.Uint16(segment[20:22]) == aoHead16 && be.Uint32(segment[36:40]) == nopNopTS:
		return Options{ao: 0 + 1}, 48, true
	case be.Uint32(segment[20:24]) == nopNopTS && be.Uint16(segment[32:34]) == aoHead16:
		return Options{ao: 12 + 1}, 48, true
	}
	return Options{}, 0, false
}

// AppendMD5 appends a TCP-MD5 option carrying sig (16 bytes; a sig of
// another length makes an option Parse refuses).
func AppendMD5(b, sig []byte) []byte {
	return append(append(b, KindMD5, byte(2+len(sig))), sig...)
}

// AppendAO appends a TCP-AO option with the IDs and the MAC (at most
// AOMaxMACLen bytes; a TCP header has room for 36 anyway).
func AppendAO(b []byte, keyID, rnextKeyID uint8, mac []byte) []byte {
	return append(append(b, KindAO, byte(AOMinLen+len(mac)), keyID, rnextKeyID), mac...)
}
