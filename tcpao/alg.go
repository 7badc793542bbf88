package tcpao

import (
	"crypto/fips140"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Algorithm is a TCP-AO MAC algorithm with its KDF (RFC 5926).
type Algorithm uint8

// The algorithms of RFC 5926.
const (
	// HMACSHA1 is HMAC-SHA-1-96 with KDF_HMAC_SHA1 (160-bit traffic keys).
	// Linux calls it "hmac(sha1)".
	HMACSHA1 Algorithm = 1
	// AESCMAC is AES-128-CMAC-96 with KDF_AES_128_CMAC (128-bit traffic
	// keys). Linux calls it "cmac(aes128)".
	AESCMAC Algorithm = 2
)

// Sizes.
const (
	// MACLen is the length of the MAC both algorithms put in the option.
	MACLen = 12
	// OptionLen is the length of a TCP-AO option with a MACLen-byte MAC.
	OptionLen = 4 + MACLen
	// MaxSecretLen is the longest master key secret Linux accepts
	// (TCP_AO_MAXKEYLEN).
	MaxSecretLen = 80
)

// Errors, for errors.Is. Returned errors wrap them with context (which
// segment, which key ID, which length), never with key material.
var (
	// ErrAlgorithm: the algorithm is neither HMACSHA1 nor AESCMAC.
	ErrAlgorithm = errors.New("tcpao: unknown algorithm")
	// ErrKeyLength: a master key secret is not 1..80 bytes, or a traffic
	// key has not its algorithm's length (20 or 16 bytes).
	ErrKeyLength = errors.New("tcpao: wrong key length")
	// ErrAddrFamily: addresses are not both IPv4 or both IPv6.
	ErrAddrFamily = errors.New("tcpao: source and destination are not both IPv4 or both IPv6")
	// ErrShortSegment: the TCP segment is shorter than its header.
	ErrShortSegment = errors.New("tcpao: TCP segment shorter than its header")
	// ErrSegmentTooBig: the TCP segment is longer than 65535 bytes.
	ErrSegmentTooBig = errors.New("tcpao: TCP segment longer than 65535 bytes")
	// ErrBadOptions: the TCP option list is malformed (see OptionError).
	ErrBadOptions = errors.New("tcpao: malformed TCP options")
	// ErrNoOption: the segment carries no TCP-AO option.
	ErrNoOption = errors.New("tcpao: no TCP-AO option")
	// ErrMD5Option: the segment carries a TCP-MD5 option (RFC 5925 §7.7:
	// a segment with both is discarded; one with MD5 only is not TCP-AO).
	ErrMD5Option = errors.New("tcpao: segment carries a TCP-MD5 option")
	// ErrKeyID: the segment's KeyID is not the one the MKT expects.
	ErrKeyID = errors.New("tcpao: unexpected KeyID")
	// ErrBadMAC: the MAC does not match.
	ErrBadMAC = errors.New("tcpao: bad MAC")
	// ErrFIPS140Only: HMAC-SHA-1 is not allowed with GODEBUG=fips140=only.
	ErrFIPS140Only = errors.New("tcpao: HMAC-SHA-1 is not allowed in FIPS 140-only mode (GODEBUG=fips140=only)")
)

// String returns "hmac-sha-1-96" or "aes-128-cmac-96" (RFC 5926's names,
// lower case), or "algorithm(N)".
func (a Algorithm) String() string {
	switch a {
	case HMACSHA1:
		return "hmac-sha-1-96"
	case AESCMAC:
		return "aes-128-cmac-96"
	}
	return "algorithm(" + strconv.Itoa(int(a)) + ")"
}

// LinuxName returns the kernel's name for the algorithm (tcp_ao_add's
// alg_name): "hmac(sha1)" or "cmac(aes128)"; "" for an unknown one.
func (a Algorithm) LinuxName() string {
	switch a {
	case HMACSHA1:
		return "hmac(sha1)"
	case AESCMAC:
		return "cmac(aes128)"
	}
	return ""
}

// ParseAlgorithm accepts RFC 5926's and Linux's names, case-insensitive:
// "hmac-sha-1-96", "hmac-sha1", "sha1", "hmac(sha1)"; "aes-128-cmac-96",
// "aes-128-cmac", "cmac", "cmac(aes128)", "cmac(aes)".
func ParseAlgorithm(s string) (Algorithm, error) {
	switch strings.ToLower(s) {
	case "hmac-sha-1-96", "hmac-sha1", "hmac-sha-1", "sha1", "hmac(sha1)":
		return HMACSHA1, nil
	case "aes-128-cmac-96", "aes-128-cmac", "cmac", "cmac(aes128)", "cmac(aes)":
		return AESCMAC, nil
	}
	return 0, fmt.Errorf("%w %q (want hmac-sha-1-96 or aes-128-cmac-96)", ErrAlgorithm, s)
}

// Valid reports whether a is HMACSHA1 or AESCMAC.
func (a Algorithm) Valid() bool { return a == HMACSHA1 || a == AESCMAC }

// TrafficKeyLen is the length of the algorithm's traffic keys: 20 for
// HMACSHA1, 16 for AESCMAC (0 for an unknown algorithm).
func (a Algorithm) TrafficKeyLen() int {
	switch a {
	case HMACSHA1:
		return 20
	case AESCMAC:
		return 16
	}
	return 0
}

// usable returns ErrFIPS140Only for HMAC-SHA-1 under fips140=only
// enforcement (crypto/hmac and crypto/sha1 would panic), else nil.
func (a Algorithm) usable() error {
	if a == HMACSHA1 && fips140.Enforced() {
		return ErrFIPS140Only
	}
	return nil
}

// MasterKey is a TCP-AO Master Key Tuple (RFC 5925 §3.1) as a connection
// uses it: the algorithm, the secret, the KeyID we send (SendID) and the
// KeyID the peer sends (RecvID), and whether the MAC covers the TCP options
// other than TCP-AO (Linux's TCP_AO_KEYF_EXCLUDE_OPT clears it).
//
// A MasterKey never prints its Secret: every fmt verb gives the algorithm
// and the key IDs only.
type MasterKey struct {
	Alg            Algorithm
	Secret         []byte
	SendID, RecvID uint8
	IncludeOptions bool
}

// String describes the key without its secret.
func (k MasterKey) String() string {
	return fmt.Sprintf("tcpao.MasterKey(%s, send %d, recv %d, options %s, %d-byte secret)",
		k.Alg, k.SendID, k.RecvID, optionsWord(k.IncludeOptions), len(k.Secret))
}

// GoString describes the key without its secret.
func (k MasterKey) GoString() string { return k.String() }

// Format writes String whatever the verb, so that a MasterKey logged by
// mistake shows no key material.
func (k MasterKey) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(k.String())) }

func optionsWord(include bool) string {
	if include {
		return "included"
	}
	return "excluded"
}

// Validate checks the algorithm and the secret's length (1..80 bytes).
// The error names the lengths, never the secret.
func (k MasterKey) Validate() error {
	if !k.Alg.Valid() {
		return fmt.Errorf("tcpao: master key %d/%d: %w (%d)", k.SendID, k.RecvID, ErrAlgorithm, uint8(k.Alg))
	}
	if len(k.Secret) == 0 || len(k.Secret) > MaxSecretLen {
		return fmt.Errorf("tcpao: master key %d/%d: %w: secret of %d bytes, want 1..%d", k.SendID, k.RecvID, ErrKeyLength, len(k.Secret), MaxSecretLen)
	}
	return k.Alg.usable()
}
