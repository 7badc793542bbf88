package tcpao

import (
	"errors"
	"fmt"

	"github.com/authbgp/authbgpd/tcpopt"
)

// TCP option kinds this package looks at (tcpopt's, under the names
// callers already use).
const (
	OptEOL = tcpopt.KindEOL // end of option list
	OptNOP = tcpopt.KindNOP // no-operation (padding)
	OptMD5 = tcpopt.KindMD5 // RFC 2385 TCP-MD5 signature
	OptAO  = tcpopt.KindAO  // RFC 5925 TCP Authentication Option
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
func (o Option) Append(b []byte) []byte { return tcpopt.AppendAO(b, o.KeyID, o.RNextKeyID, o.MAC) }

// Options is what ParseOptions found in a TCP option list.
type Options struct {
	AO     Option // valid when HasAO
	HasAO  bool
	HasMD5 bool // a TCP-MD5 option (kind 19) is present
	// AOOffset is the offset of the TCP-AO option's kind byte in the
	// option list (-1 when there is none).
	AOOffset int
}

// OptionError describes a malformed option list (see tcpopt.Error). It
// wraps ErrBadOptions. Offset is relative to the start of the options
// (byte 20 of the TCP header).
type OptionError = tcpopt.Error

// ParseOptions walks a TCP option list (the bytes between the 20-byte fixed
// header and the data offset) by tcpopt's rules, the ones every part of
// authbgpd judges a segment by: an option whose length byte is missing, is
// below 2 or runs past the list, a TCP-MD5 option whose length is not 18, a
// TCP-AO option shorter than 4 bytes, or a second TCP-MD5 or TCP-AO option
// is an *OptionError (ErrBadOptions). A well-formed list with both a
// TCP-MD5 and a TCP-AO option is an error wrapping ErrMD5Option and
// tcpopt.ErrMD5AndAO (RFC 5925 §7.7: discarded). What was found before an
// error is returned with it. It reads nothing outside opts, never panics
// and does not allocate on success.
func ParseOptions(opts []byte) (Options, error) {
	t, err := tcpopt.Parse(opts)
	o := Options{AOOffset: t.AOOffset(), HasMD5: t.HasMD5()}
	if t.HasAO() {
		o.HasAO = true
		o.AO.KeyID, o.AO.RNextKeyID = t.AOKeyIDs(opts)
		o.AO.MAC = t.MAC(opts)
	}
	return o, optionsErr(err)
}

// optionsErr is tcpopt.Parse's error as this package reports it: both a
// TCP-MD5 and a TCP-AO option also wrap ErrMD5Option.
func optionsErr(err error) error {
	if err != nil && errors.Is(err, tcpopt.ErrMD5AndAO) {
		err = fmt.Errorf("%w: %w", ErrMD5Option, err)
	}
	return err
}

// headerLen returns the TCP header length (data offset) of a segment.
func headerLen(tcp []byte) (int, error) {
	hl, err := tcpopt.HeaderLen(tcp)
	if err != nil {
		hl = 0
		if len(tcp) > 12 {
			hl = int(tcp[12]>>4) * 4
		}
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
