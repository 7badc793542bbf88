//go:build !linux

package srv6policy

import (
	"fmt"
	"runtime"
)

// KernelKeys programs the kernel's SRv6 HMAC key table: Linux only.
type KernelKeys struct{}

func notSupported() error {
	return fmt.Errorf("%w: SRv6 HMAC keys are a Linux feature (GOOS=%s)", ErrNoKernelSupport, runtime.GOOS)
}

// OpenKernelKeys returns an error wrapping ErrNoKernelSupport.
func OpenKernelKeys() (*KernelKeys, error) { return nil, notSupported() }

// Close does nothing.
func (*KernelKeys) Close() error { return nil }

// Set returns an error wrapping ErrNoKernelSupport (after validating its
// arguments, so that bad ones are reported first, as on Linux).
func (*KernelKeys) Set(id uint32, alg Algorithm, secret []byte) error {
	if err := ValidateKey(id, alg, secret); err != nil {
		return err
	}
	return notSupported()
}

// Delete returns an error wrapping ErrNoKernelSupport.
func (*KernelKeys) Delete(id uint32) error {
	if id == 0 {
		return ErrKeyIDZero
	}
	return notSupported()
}

// Dump returns an error wrapping ErrNoKernelSupport.
func (*KernelKeys) Dump() ([]KernelKey, error) { return nil, notSupported() }
