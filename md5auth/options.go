package md5auth

import (
	"github.com/authbgp/authbgpd/tcpopt"
)

// TCP option kinds this package cares about (tcpopt's, under the names
// callers already use).
const (
	OptEOL = tcpopt.KindEOL // end of option list
	OptNOP = tcpopt.KindNOP // no-operation (padding)
	OptMD5 = tcpopt.KindMD5 // RFC 2385 MD5 signature, length 18
	OptAO  = tcpopt.KindAO  // RFC 5925 TCP Authentication Option
)

// Options is what ParseOptions found in a TCP option list.
type Options struct {
	HasMD5                bool
	MD5                   [DigestLen]byte // the signature, when HasMD5
	HasAO                 bool            // a TCP-AO option is present (kind 29)
	AOKeyID, AORNextKeyID uint8
}

// ErrBadOptions is the sentinel wrapped by every OptionError (tcpopt's).
var ErrBadOptions = tcpopt.ErrBadOptions

// ErrMD5AndAO: a well-formed option list with both a TCP-MD5 and a TCP-AO
// option (RFC 5925 §7.7: the segment is discarded, not verified).
var ErrMD5AndAO = tcpopt.ErrMD5AndAO

// OptionError describes a malformed option list (see tcpopt.Error).
type OptionError = tcpopt.Error

// ParseOptions walks a TCP option list (the bytes between the 20-byte fixed
// header and the data offset) by tcpopt's rules, the ones every part of
// authbgpd judges a segment by: an option whose length byte is missing,
// below 2 or runs past the list, a TCP-MD5 option whose length is not 18,
// a second TCP-MD5 or TCP-AO option, or a TCP-AO option shorter than 4 is
// an *OptionError (ErrBadOptions); both a TCP-MD5 and a TCP-AO option is
// ErrMD5AndAO. What was found before an error is returned with it. It
// never panics and does not allocate on success.
func ParseOptions(opts []byte) (Options, error) {
	var o Options
	t, err := tcpopt.Parse(opts)
	if t.HasMD5() {
		o.HasMD5 = true
		copy(o.MD5[:], t.Signature(opts))
	}
	if t.HasAO() {
		o.HasAO = true
		o.AOKeyID, o.AORNextKeyID = t.AOKeyIDs(opts)
	}
	return o, err
}

// SignatureOf returns the 16-byte MD5 signature carried by segment (a
// subslice of it, not a copy), or nil when the segment is unsigned. An
// option list ParseOptions refuses is its error, with no signature.
func SignatureOf(segment []byte) ([]byte, error) {
	sig, _, err := signature(segment)
	return sig, err
}

// signature is SignatureOf that also returns the header length it checked.
func signature(segment []byte) (sig []byte, hdrLen int, err error) {
	o, hl, err := tcpopt.ParseSegment(segment)
	if err != nil {
		return nil, hl, err
	}
	return o.Signature(segment[20:hl]), hl, nil
}

// SegmentOptions parses the options of a TCP segment (header + payload).
func SegmentOptions(segment []byte) (Options, error) {
	hl, err := headerLen(segment)
	if err != nil {
		return Options{}, err
	}
	return ParseOptions(segment[20:hl])
}
