package md5auth

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// TCP option kinds this package cares about.
const (
	OptEOL = 0  // end of option list
	OptNOP = 1  // no-operation (padding)
	OptMD5 = 19 // RFC 2385 MD5 signature, length 18
	OptAO  = 29 // RFC 5925 TCP Authentication Option

	md5OptLen = 2 + DigestLen
)

// Options is what ParseOptions found in a TCP option list.
type Options struct {
	HasMD5                bool
	MD5                   [DigestLen]byte // the signature, when HasMD5
	HasAO                 bool            // a TCP-AO option is present (kind 29)
	AOKeyID, AORNextKeyID uint8
}

// ErrBadOptions is the sentinel wrapped by every OptionError.
var ErrBadOptions = errors.New("malformed TCP options")

// OptionError describes a malformed option list. Offset is relative to the
// start of the options (byte 20 of the TCP header).
type OptionError struct {
	Offset int
	Kind   byte
	Reason string
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("md5auth: malformed TCP options: option kind %d at offset %d: %s", e.Kind, e.Offset, e.Reason)
}

// Unwrap lets errors.Is(err, ErrBadOptions) match.
func (e *OptionError) Unwrap() error { return ErrBadOptions }

// ParseOptions walks a TCP option list (the bytes between the 20-byte fixed
// header and the data offset). NOPs are skipped; EOL ends the list (what
// follows is padding). An option whose length byte is missing, below 2 or
// runs past the list, an MD5 option whose length is not 18, a second MD5
// option or a TCP-AO option shorter than 4 is an *OptionError. It never
// panics and does not allocate on success.
func ParseOptions(opts []byte) (Options, error) {
	var o Options
	md5Off, aoOff, err := scanOptions(opts)
	if md5Off >= 0 {
		o.HasMD5 = true
		copy(o.MD5[:], opts[md5Off:md5Off+DigestLen])
	}
	if aoOff >= 0 {
		o.HasAO = true
		o.AOKeyID, o.AORNextKeyID = opts[aoOff], opts[aoOff+1]
	}
	return o, err
}

// scanOptions returns the offsets of the MD5 signature and of the TCP-AO
// key IDs in opts (-1 when absent). It is the allocation-free core of
// ParseOptions, used directly on the per-segment path.
func scanOptions(opts []byte) (md5Off, aoOff int, err error) {
	md5Off, aoOff = -1, -1
	for i := 0; i < len(opts); {
		kind := opts[i]
		switch kind {
		case OptEOL:
			return md5Off, aoOff, nil
		case OptNOP:
			i++
			continue
		}
		if i+1 >= len(opts) {
			return md5Off, aoOff, &OptionError{Offset: i, Kind: kind, Reason: "length byte missing"}
		}
		l := int(opts[i+1])
		if l < 2 {
			return md5Off, aoOff, &OptionError{Offset: i, Kind: kind, Reason: fmt.Sprintf("length %d is below 2", l)}
		}
		if i+l > len(opts) {
			return md5Off, aoOff, &OptionError{Offset: i, Kind: kind, Reason: fmt.Sprintf("length %d runs past the option list (%d bytes left)", l, len(opts)-i)}
		}
		switch kind {
		case OptMD5:
			if l != md5OptLen {
				return md5Off, aoOff, &OptionError{Offset: i, Kind: kind, Reason: fmt.Sprintf("MD5 option length %d, want %d", l, md5OptLen)}
			}
			if md5Off >= 0 {
				return md5Off, aoOff, &OptionError{Offset: i, Kind: kind, Reason: "second MD5 option"}
			}
			md5Off = i + 2
		case OptAO:
			if l < 4 {
				return md5Off, aoOff, &OptionError{Offset: i, Kind: kind, Reason: fmt.Sprintf("TCP-AO option length %d is below 4", l)}
			}
			aoOff = i + 2
		}
		i += l
	}
	return md5Off, aoOff, nil
}

// SignatureOf returns the 16-byte MD5 signature carried by segment (a
// subslice of it, not a copy), or nil when the segment is unsigned.
func SignatureOf(segment []byte) ([]byte, error) {
	sig, _, err := signature(segment)
	return sig, err
}

// signature is SignatureOf that also returns the header length it checked.
func signature(segment []byte) (sig []byte, hdrLen int, err error) {
	hl, err := headerLen(segment)
	if err != nil {
		return nil, 0, err
	}
	// Linux signs with exactly NOP, NOP, MD5 as the whole option list
	// (hence a 40-byte header): nothing else to walk or validate, and the
	// walk costs a tenth of a keepalive's digest on the shadow path.
	if hl == 20+2+md5OptLen && binary.LittleEndian.Uint32(segment[20:24]) == OptNOP|OptNOP<<8|OptMD5<<16|md5OptLen<<24 {
		return segment[24:hl], hl, nil
	}
	off, _, err := scanOptions(segment[20:hl])
	if err != nil || off < 0 {
		return nil, hl, err
	}
	return segment[20+off : 20+off+DigestLen], hl, nil
}

// SegmentOptions parses the options of a TCP segment (header + payload).
func SegmentOptions(segment []byte) (Options, error) {
	hl, err := headerLen(segment)
	if err != nil {
		return Options{}, err
	}
	return ParseOptions(segment[20:hl])
}
