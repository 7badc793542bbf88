//go:build !linux

package kroute

import (
	"context"
	"fmt"
	"net/netip"
)

// Kernel is the kernel's routing tables; only Linux has them (rtnetlink).
type Kernel struct{}

// OpenKernel fails with ErrNotSupported.
func OpenKernel() (*Kernel, error) { return nil, fmt.Errorf("fib: open kernel: %w", ErrNotSupported) }

// Close does nothing.
func (k *Kernel) Close() error { return nil }

// Write fails every op with ErrNotSupported.
func (k *Kernel) Write(ops []Op, errs []error) {
	for i, op := range ops {
		errs[i] = fmt.Errorf("fib: %s: %w", op, ErrNotSupported)
	}
}

// Dump fails with ErrNotSupported.
func (k *Kernel) Dump() ([]Route, error) {
	return nil, fmt.Errorf("fib: dump routes: %w", ErrNotSupported)
}

// Resolve fails with ErrNotSupported.
func (k *Kernel) Resolve(table uint32, addr netip.Addr) (NextHop, error) {
	return NextHop{}, fmt.Errorf("fib: resolve %s in table %d: %w", addr, table, ErrNotSupported)
}

// Watch fails with ErrNotSupported.
func (k *Kernel) Watch(ctx context.Context, fn func(Event)) error {
	return fmt.Errorf("fib: watch routes: %w", ErrNotSupported)
}

// Each returns ErrNotSupported.
func (k *Kernel) Each(func(Route)) error { return ErrNotSupported }
