package tcpao

import (
	"fmt"
)

// TCP option kinds this package looks at.
const (
	OptEOL = 0  // end of option list
	OptNOP = 1  // no-operation (padding)
	OptMD5 = 19 // RFC 2385 TCP-MD5 signature
	OptAO  = 29 // RFC 5925 TCP Authentication Option
)

// Option is a TCP-AO option (RFC 5925 §2.2): Kind 29, Length (4 + the MAC's
// length), KeyID, RNextKeyID, MAC.
type Option struct {
	KeyID      uint8
	RNextKeyID uint8
	// MAC is the option's MAC field. From ParseOptions it is a view into
	// the option list, not a copy.
	MAC []byte
}

// Len returns the option's length on the wire, 4 + len(MAC).
func (o Option) Len() int { return 4 + len(o.MAC) }

// Append appends the encoded option to b. The MAC must be at most 251 bytes
// (a TCP header has room for 40 bytes of options anyway).
func (o Option) Append(b []byte) []byte {
	b = append(b, OptAO, byte(o.Len()), o.KeyID, o.RNextKeyID)
	return append(b, o.MAC...)
}

// Options is what ParseOptions found in a TCP option list.
type Options struct {
	AO     Option // valid when HasAO
	HasAO  bool
	HasMD5 bool // a TCP-MD5 option (kind 19) is present
	// AOOffset is the offset of the TCP-AO option's kind byte in the
	// option list (-1 when there is none).
	AOOffset int
}

// OptionError describes a malformed option list. It wraps ErrBadOptions.
// Offset is relative to the start of the options (byte 20 of the TCP
// header).
type OptionError struct {
	Offset int
	Kind   byte
	Reason string
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("tcpao: malformed TCP options: option kind %d at offset %d: %s", e.Kind, e.Offset, e.Reason)
}

// Unwrap lets errors.Is(err, ErrBadOptions) match.
func (e *OptionError) Unwrap() error { return ErrBadOptions }

// ParseOptions walks a TCP option list (the bytes between the 20-byte fixed
// header and the data offset). NOPs are skipped; EOL ends the list (what
// follows is padding). An option whose length byte is missing, is below 2
// or runs past the list, a TCP-AO option shorter than 4 bytes, or a second
// TCP-AO option is an *OptionError; what was found before it is returned
// with it. It reads nothing outside opts, never panics and does not
// allocate on success. A TCP-MD5 option of any valid length counts.
func ParseOptions(opts []byte) (Options, error) {
	o := Options{AOOffset: -1}
	for i := 0; i < len(opts); {
		kind := opts[i]
		switch kind {
		case OptEOL:
			return o, nil
		case OptNOP:
			i++
			continue
		}
		if i+1 >= len(opts) {
			return o, &OptionError{Offset: i, Kind: kind, Reason: "length byte missing"}
		}
		l := int(opts[i+1])
		if l < 2 {
			return o, &OptionError{Offset: i, Kind: kind, Reason: fmt.Sprintf("length %d is below 2", l)}
		}
		if l > len(opts)-i {
			return o, &OptionError{Offset: i, Kind: kind, Reason: fmt.Sprintf("length %d runs past the option list (%d bytes left)", l, len(opts)-i)}
		}
		switch kind {
		case OptMD5:
			o.HasMD5 = true
		case OptAO:
			if l < 4 {
				return o, &OptionError{Offset: i, Kind: kind, Reason: fmt.Sprintf("TCP-AO option length %d is below 4", l)}
			}
			if o.HasAO {
				return o, &OptionError{Offset: i, Kind: kind, Reason: fmt.Sprintf("second TCP-AO option (the first is at offset %d)", o.AOOffset)}
			}
			o.HasAO = true
			o.AOOffset = i
			o.AO = Option{KeyID: opts[i+2], RNextKeyID: opts[i+3], MAC: opts[i+4 : i+l : i+l]}
		}
		i += l
	}
	return o, nil
}

// headerLen returns the TCP header length (data offset) of a segment.
func headerLen(tcp []byte) (int, error) {
	if len(tcp) < 20 {
		return 0, fmt.Errorf("%w: %d bytes", ErrShortSegment, len(tcp))
	}
	hl := int(tcp[12]>>4) * 4
	if hl < 20 || hl > len(tcp) {
		return 0, fmt.Errorf("%w: data offset %d, %d bytes", ErrShortSegment, hl, len(tcp))
	}
	return hl, nil
}

// SegmentOptions parses the options of a TCP segment (header, options,
// payload). AOOffset is then relative to the options, as in ParseOptions.
func SegmentOptions(tcp []byte) (Options, error) {
	hl, err := headerLen(tcp)
	if err != nil {
		return Options{AOOffset: -1}, err
	}
	return ParseOptions(tcp[20:hl])
}
