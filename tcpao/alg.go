package tcpao

import (
	"crypto/fips140"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"errors"
	"fmt"
	"hash"
	"slices"
	"strconv"
	"strings"

	"github.com/authbgp/authbgpd/tcpopt"
)

// Algorithm is a TCP-AO MAC algorithm with its KDF: the two of RFC 5926,
// and the HMACs with SHA-2 that Linux (any "hmac(<hash>)") and BIRD offer.
//
// Every algorithm's KDF is RFC 5926 §3.1's, as Linux computes it for all
// of them (net/ipv4/tcp_ao.c, tcp_v4_ao_calc_key): one iteration of the
// PRF over 1, "TCP-AO", the context and the output length in bits, where
// the output is the PRF's whole digest (DigestSize bytes: 160 bits for
// SHA-1, 256 for SHA-256, 128 for AES-128-CMAC). An HMAC's PRF is keyed
// with the secret; AES-128-CMAC's with the secret when it has 16 bytes,
// else with AES-CMAC(0^128, secret). The MAC is the same PRF keyed with
// the traffic key, truncated to the MAC length (12 bytes by default, the
// "-96" of RFC 5926).
type Algorithm uint8

// The algorithms.
const (
	// HMACSHA1 is HMAC-SHA-1 with KDF_HMAC_SHA1 (160-bit traffic keys);
	// with a 12-byte MAC, RFC 5926's HMAC-SHA-1-96. Linux calls it
	// "hmac(sha1)".
	HMACSHA1 Algorithm = 1
	// AESCMAC is AES-128-CMAC with KDF_AES_128_CMAC (128-bit traffic
	// keys); with a 12-byte MAC, RFC 5926's AES-128-CMAC-96. Linux calls
	// it "cmac(aes128)".
	AESCMAC Algorithm = 2
	// HMACSHA224 .. HMACSHA512 are HMAC-SHA-224, -256, -384 and -512 with
	// the KDF of RFC 5926 §3.1 over the same HMAC (traffic keys of 28, 32,
	// 48 and 64 bytes), as Linux's "hmac(sha224)" .. "hmac(sha512)".
	HMACSHA224 Algorithm = 3
	HMACSHA256 Algorithm = 4
	HMACSHA384 Algorithm = 5
	HMACSHA512 Algorithm = 6
)

// Algorithms lists every Algorithm, in order (algorithmTable's).
var Algorithms = func() []Algorithm {
	out := make([]Algorithm, len(algorithmTable))
	for i, r := range algorithmTable {
		out[i] = r.alg
	}
	return out
}()

// Sizes.
const (
	// MACLen is the default MAC length (RFC 5925 §2.2, Linux's maclen 0),
	// and the only one of RFC 5926's "-96" algorithms.
	MACLen = 12
	// MinMACLen is the shortest MAC length a key may have.
	MinMACLen = 4
	// OptionLen is the length of a TCP-AO option with a MACLen-byte MAC.
	OptionLen = 4 + MACLen
	// maxDigest is the longest digest of any algorithm (SHA-512).
	maxDigest = sha512.Size
	// MaxSecretLen is the longest master key secret Linux accepts
	// (TCP_AO_MAXKEYLEN).
	MaxSecretLen = 80
)

// Errors, for errors.Is. Returned errors wrap them with context (which
// segment, which key ID, which length), never with key material.
var (
	// ErrAlgorithm: the algorithm is none of Algorithms.
	ErrAlgorithm = errors.New("tcpao: unknown algorithm")
	// ErrKeyLength: a master key secret is not 1..80 bytes, or a traffic
	// key has not its algorithm's length (DigestSize).
	ErrKeyLength = errors.New("tcpao: wrong key length")
	// ErrMACLength: a MAC length outside MinMACLen..DigestSize for a
	// key, or a segment whose MAC field has not the key's MAC length.
	ErrMACLength = errors.New("tcpao: wrong MAC length")
	// ErrAddrFamily: addresses are not both IPv4 or both IPv6.
	ErrAddrFamily = errors.New("tcpao: source and destination are not both IPv4 or both IPv6")
	// ErrShortSegment: the TCP segment is shorter than its header.
	ErrShortSegment = errors.New("tcpao: TCP segment shorter than its header")
	// ErrSegmentTooBig: the TCP segment is longer than 65535 bytes.
	ErrSegmentTooBig = errors.New("tcpao: TCP segment longer than 65535 bytes")
	// ErrBadOptions: the TCP option list is malformed (see OptionError);
	// tcpopt's, shared by every parser of authbgpd's.
	ErrBadOptions = tcpopt.ErrBadOptions
	// ErrNoOption: the segment carries no TCP-AO option.
	ErrNoOption = errors.New("tcpao: no TCP-AO option")
	// ErrParsedOptions: the parsed options given to VerifyParsed do not
	// describe the segment (another header length, or no whole TCP-AO
	// option where they place it).
	ErrParsedOptions = errors.New("tcpao: parsed options do not match the segment")
	// ErrMD5Option: the segment carries a TCP-MD5 option (RFC 5925 §7.7:
	// a segment with both is discarded; one with MD5 only is not TCP-AO).
	ErrMD5Option = errors.New("tcpao: segment carries a TCP-MD5 option")
	// ErrKeyID: the segment's KeyID is not the one the MKT expects.
	ErrKeyID = errors.New("tcpao: unexpected KeyID")
	// ErrBadMAC: the MAC does not match.
	ErrBadMAC = errors.New("tcpao: bad MAC")
	// ErrFIPS140Only: HMAC-SHA-1 is not allowed with GODEBUG=fips140=only.
	ErrFIPS140Only = errors.New("tcpao: HMAC-SHA-1 is not allowed in FIPS 140-only mode (GODEBUG=fips140=only)")
	// ErrFIPS140ShortSecret: with GODEBUG=fips140=only an HMAC key (here
	// the master key secret the KDF is keyed with) must have 112 bits at
	// least (crypto/hmac would panic).
	ErrFIPS140ShortSecret = errors.New("tcpao: an HMAC secret shorter than 14 bytes is not allowed in FIPS 140-only mode (GODEBUG=fips140=only)")
)

// algorithmTable is every algorithm's names and sizes, in Algorithms'
// order: adding an algorithm is its constant above and its row here
// (config's names, Linux's, the hash, the sizes all come from it).
var algorithmTable = []struct {
	alg Algorithm
	// names are the config's names of the algorithm; names[0] is String.
	// A name ending in "-96" is RFC 5926's, whose MAC length is MACLen.
	names []string
	// linux is the kernel's name (tcp_ao_add's alg_name).
	linux string
	// digest is the PRF's output length: the traffic keys' length and
	// the longest MAC.
	digest int
	// hash is an HMAC's hash (nil for AES-128-CMAC).
	hash func() hash.Hash
	// aliases are further names ParseAlgorithm takes (BIRD's, short ones).
	aliases []string
}{
	{HMACSHA1, []string{"hmac-sha-1-96", "hmac-sha-1"}, "hmac(sha1)", sha1.Size, sha1.New, []string{"hmac-sha1", "sha1"}},
	{AESCMAC, []string{"aes-128-cmac-96", "aes-128-cmac"}, "cmac(aes128)", 16, nil, []string{"cmac", "cmac(aes)"}},
	{HMACSHA224, []string{"hmac-sha-224"}, "hmac(sha224)", sha256.Size224, sha256.New224, []string{"hmac-sha224", "sha224"}},
	{HMACSHA256, []string{"hmac-sha-256"}, "hmac(sha256)", sha256.Size, sha256.New, []string{"hmac-sha256", "sha256"}},
	{HMACSHA384, []string{"hmac-sha-384"}, "hmac(sha384)", sha512.Size384, sha512.New384, []string{"hmac-sha384", "sha384"}},
	{HMACSHA512, []string{"hmac-sha-512"}, "hmac(sha512)", sha512.Size, sha512.New, []string{"hmac-sha512", "sha512"}},
}

// row is a's row of algorithmTable (-1 for an unknown algorithm): the
// rows are in the constants' order, from 1 (TestAlgorithmTable).
func (a Algorithm) row() int {
	if i := int(a) - 1; i >= 0 && i < len(algorithmTable) && algorithmTable[i].alg == a {
		return i
	}
	return -1
}

// ConfigNames are the names a config's TCP-AO key may give its algorithm:
// RFC 5926's "-96" names first (whose MAC length is MACLen), then the
// others, each in Algorithms' order.
func ConfigNames() []string {
	var fixed, other []string
	for _, r := range algorithmTable {
		for _, n := range r.names {
			if strings.HasSuffix(n, "-96") {
				fixed = append(fixed, n)
			} else {
				other = append(other, n)
			}
		}
	}
	return append(fixed, other...)
}

// String returns RFC 5926's names for HMACSHA1 and AESCMAC
// ("hmac-sha-1-96", "aes-128-cmac-96", whose MAC length is the default),
// "hmac-sha-224", "hmac-sha-256", "hmac-sha-384", "hmac-sha-512", or
// "algorithm(N)".
func (a Algorithm) String() string {
	if i := a.row(); i >= 0 {
		return algorithmTable[i].names[0]
	}
	return "algorithm(" + strconv.Itoa(int(a)) + ")"
}

// LinuxName returns the kernel's name for the algorithm (tcp_ao_add's
// alg_name): "hmac(sha1)", "cmac(aes128)", "hmac(sha224)", "hmac(sha256)",
// "hmac(sha384)", "hmac(sha512)"; "" for an unknown one.
func (a Algorithm) LinuxName() string {
	if i := a.row(); i >= 0 {
		return algorithmTable[i].linux
	}
	return ""
}

// ParseAlgorithm accepts RFC 5926's, BIRD's and Linux's names,
// case-insensitive: "hmac-sha-1-96", "hmac-sha-1", "hmac-sha1", "sha1",
// "hmac(sha1)"; "aes-128-cmac-96", "aes-128-cmac", "cmac", "cmac(aes128)",
// "cmac(aes)"; and for N of 224, 256, 384, 512: "hmac-sha-N",
// "hmac-shaN", "shaN", "hmac(shaN)". The name says nothing of the MAC
// length.
func ParseAlgorithm(s string) (Algorithm, error) {
	l := strings.ToLower(s)
	for _, r := range algorithmTable {
		if l == r.linux || slices.Contains(r.names, l) || slices.Contains(r.aliases, l) {
			return r.alg, nil
		}
	}
	names := ConfigNames()
	return 0, fmt.Errorf("%w %q (want %s or %s)", ErrAlgorithm, s, strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
}

// Valid reports whether a is one of Algorithms.
func (a Algorithm) Valid() bool { return a.row() >= 0 }

// DigestSize is the length of the algorithm's PRF output: 20 for HMACSHA1,
// 16 for AESCMAC, 28, 32, 48 and 64 for HMACSHA224 .. HMACSHA512 (0 for an
// unknown algorithm). It is the traffic keys' length and the longest MAC.
func (a Algorithm) DigestSize() int {
	if i := a.row(); i >= 0 {
		return algorithmTable[i].digest
	}
	return 0
}

// TrafficKeyLen is the length of the algorithm's traffic keys, DigestSize
// (20 for HMACSHA1, 16 for AESCMAC; 0 for an unknown algorithm).
func (a Algorithm) TrafficKeyLen() int { return a.DigestSize() }

// isHMAC reports whether a is one of the HMACs.
func (a Algorithm) isHMAC() bool { return a.newHash() != nil }

// newHash is the hash of an HMAC algorithm (nil for AESCMAC).
func (a Algorithm) newHash() func() hash.Hash {
	if i := a.row(); i >= 0 {
		return algorithmTable[i].hash
	}
	return nil
}

// checkMACLen returns nil when n is a MAC length a's keys may have
// (MinMACLen..DigestSize), else an error wrapping ErrMACLength.
func (a Algorithm) checkMACLen(n int) error {
	if n < MinMACLen || n > a.DigestSize() {
		return fmt.Errorf("%w: %s MAC of %d bytes, want %d..%d", ErrMACLength, a, n, MinMACLen, a.DigestSize())
	}
	return nil
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
// KeyID the peer sends (RecvID), whether the MAC covers the TCP options
// other than TCP-AO (Linux's TCP_AO_KEYF_EXCLUDE_OPT clears it), and the
// MAC length in bytes (MACLength: 0 is the default, MACLen).
//
// A MasterKey never prints its Secret: every fmt verb gives the algorithm
// and the key IDs only.
type MasterKey struct {
	Alg            Algorithm
	Secret         []byte
	SendID, RecvID uint8
	IncludeOptions bool
	MACLen         int
}

// MACLength is the key's MAC length: MACLen, or MACLen (12) when 0.
func (k MasterKey) MACLength() int {
	if k.MACLen == 0 {
		return MACLen
	}
	return k.MACLen
}

// String describes the key without its secret.
func (k MasterKey) String() string {
	return fmt.Sprintf("tcpao.MasterKey(%s, send %d, recv %d, options %s, %d-byte MAC, %d-byte secret)",
		k.Alg, k.SendID, k.RecvID, optionsWord(k.IncludeOptions), k.MACLength(), len(k.Secret))
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

// Validate checks the algorithm, the secret's length (1..80 bytes) and
// the MAC length (MinMACLen up to the algorithm's DigestSize). The error
// names the lengths, never the secret.
func (k MasterKey) Validate() error {
	if !k.Alg.Valid() {
		return fmt.Errorf("tcpao: master key %d/%d: %w (%d)", k.SendID, k.RecvID, ErrAlgorithm, uint8(k.Alg))
	}
	if len(k.Secret) == 0 || len(k.Secret) > MaxSecretLen {
		return fmt.Errorf("tcpao: master key %d/%d: %w: secret of %d bytes, want 1..%d", k.SendID, k.RecvID, ErrKeyLength, len(k.Secret), MaxSecretLen)
	}
	if err := k.Alg.checkMACLen(k.MACLength()); err != nil {
		return fmt.Errorf("tcpao: master key %d/%d: %w", k.SendID, k.RecvID, err)
	}
	return checkSecret(k.Alg, k.Secret)
}

// checkSecret refuses what crypto/hmac would panic on under
// GODEBUG=fips140=only: HMAC-SHA-1 at all (ErrFIPS140Only), and an HMAC
// keyed with fewer than 14 bytes (ErrFIPS140ShortSecret), which the KDF
// of a short secret would be.
func checkSecret(a Algorithm, secret []byte) error {
	if err := a.usable(); err != nil {
		return err
	}
	if a.isHMAC() && len(secret) < 112/8 && fips140.Enforced() {
		return fmt.Errorf("%w: a %d-byte %s secret", ErrFIPS140ShortSecret, len(secret), a)
	}
	return nil
}
