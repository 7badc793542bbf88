package srv6policy

import (
	"errors"
	"fmt"

	"github.com/authbgp/authbgpd/keys"
)

// Errors of the kernel key client, for errors.Is.
var (
	// ErrNoKernelSupport: the kernel has no SEG6 generic netlink family
	// (IPv6 segment routing not built or loaded), or no HMAC support, or
	// the OS is not Linux.
	ErrNoKernelSupport = errors.New("srv6policy: the kernel does not support SRv6 HMAC keys (no generic netlink family SEG6 with HMAC)")
	// ErrPermission: the kernel refused for lack of CAP_NET_ADMIN (in the
	// network namespace's user namespace). Errors wrapping it also match
	// unix.EPERM and os.ErrPermission.
	ErrPermission = errors.New("srv6policy: programming SRv6 HMAC keys needs CAP_NET_ADMIN")
	// ErrKeyNotFound: Delete of a key ID the kernel does not have.
	ErrKeyNotFound = errors.New("srv6policy: no such SRv6 HMAC key in the kernel")
)

// Secret is SRv6 HMAC key material: the one key type of authbgpd
// (keys.Secret). It never prints its contents: every fmt verb, String,
// GoString, MarshalText and MarshalJSON give a redacted placeholder, so a
// Secret (or a KernelKey) logged by mistake leaks nothing.
type Secret = keys.Secret

const redacted = keys.Redacted

// KernelKey is one entry of the kernel's SRv6 HMAC key table (per network
// namespace). The kernel returns secrets in clear: Secret is redacted when
// printed, but must still never be logged.
type KernelKey struct {
	ID        uint32
	Algorithm Algorithm
	Secret    Secret
}

// String describes the key without its secret.
func (k KernelKey) String() string {
	return fmt.Sprintf("hmac key %d %s secret %s (%d bytes)", k.ID, k.Algorithm, redacted, len(k.Secret))
}
