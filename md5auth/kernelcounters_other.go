//go:build !linux

package md5auth

// ReadKernelCounters reports ErrNotSupported outside Linux.
func ReadKernelCounters() (KernelCounters, error) { return KernelCounters{}, ErrNotSupported }
