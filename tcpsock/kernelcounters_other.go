//go:build !linux

package tcpsock

// ReadKernelCounters reports ErrNotSupported outside Linux.
func ReadKernelCounters() (KernelCounters, error) { return KernelCounters{}, ErrNotSupported }
