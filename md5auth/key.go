package md5auth

import (
	"errors"
	"fmt"
	"net/netip"

	"github.com/authbgp/authbgpd/keys"
)

// MaxSecretLen is the longest TCP-MD5 key Linux accepts (TCP_MD5SIG_MAXKEYLEN).
const MaxSecretLen = 80

// Key is a TCP-MD5 key scoped to one peer address or to a prefix of peer
// addresses (dynamic neighbors), optionally bound to an L3 domain (VRF) by
// interface index.
type Key struct {
	// Prefix is the peer scope. A single address is a full-length prefix
	// (/32 or /128). Use AddrKey or PrefixKey to build keys.
	Prefix netip.Prefix
	// IfIndex scopes the key to the L3 master device (VRF) with this
	// interface index; 0 means no scoping.
	IfIndex int
	// Secret is the shared key (1..80 bytes).
	Secret keys.Secret
}

// AddrKey returns a key for a single peer address.
// An address with a zone (fe80::1%eth0) gives a key without a valid scope:
// TCP-MD5 keys carry no zone; scope link-local peers with IfIndex instead.
func AddrKey(addr netip.Addr, secret []byte) Key {
	if addr.Zone() != "" {
		return Key{Secret: secret}
	}
	addr = addr.Unmap()
	return Key{Prefix: netip.PrefixFrom(addr, addr.BitLen()), Secret: secret}
}

// PrefixKey returns a key for every peer in p (p is masked).
func PrefixKey(p netip.Prefix, secret []byte) Key {
	if p.Addr().Is4In6() {
		p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
	}
	return Key{Prefix: p.Masked(), Secret: secret}
}

// IsPrefix reports whether the key covers a range rather than one address.
func (k Key) IsPrefix() bool { return k.Prefix.IsValid() && k.Prefix.Bits() < k.Prefix.Addr().BitLen() }

// Scope describes what the key applies to, e.g. "192.0.2.2", "192.0.2.0/24"
// or "192.0.2.0/24 ifindex 7". It never contains the secret.
func (k Key) Scope() string {
	s := k.Prefix.String()
	if !k.IsPrefix() && k.Prefix.IsValid() {
		s = k.Prefix.Addr().String()
	}
	if k.IfIndex != 0 {
		s += fmt.Sprintf(" ifindex %d", k.IfIndex)
	}
	return s
}

// String describes the key without its secret.
func (k Key) String() string { return "md5 key for " + k.Scope() }

// Errors returned by Key.Validate, to be matched with errors.Is.
var (
	ErrNoScope       = errors.New("no peer address or prefix")
	ErrEmptySecret   = errors.New("secret is empty")
	ErrSecretTooLong = fmt.Errorf("secret is longer than %d bytes", MaxSecretLen)
	ErrBadIfIndex    = errors.New("interface index is negative")
	ErrBadScope      = errors.New("address is unspecified")
)

// Validate checks the key. Errors name the scope and what is wrong, never
// the secret itself (its length at most).
func (k Key) Validate() error {
	var err error
	switch {
	case !k.Prefix.IsValid():
		err = ErrNoScope
	case k.Prefix.Addr().IsUnspecified() && k.Prefix.Bits() == k.Prefix.Addr().BitLen():
		err = ErrBadScope
	case len(k.Secret) == 0:
		err = ErrEmptySecret
	case len(k.Secret) > MaxSecretLen:
		return fmt.Errorf("md5auth: key for %s: %w (it has %d)", k.Scope(), ErrSecretTooLong, len(k.Secret))
	case k.IfIndex < 0:
		err = ErrBadIfIndex
	}
	if err != nil {
		return fmt.Errorf("md5auth: key for %s: %w", k.Scope(), err)
	}
	return nil
}

// Contains reports whether the key applies to peer address a.
func (k Key) Contains(a netip.Addr) bool {
	return k.Prefix.IsValid() && k.Prefix.Contains(a.Unmap())
}
