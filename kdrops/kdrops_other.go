//go:build !linux

package kdrops

import (
	"fmt"
	"io"
	"runtime"
)

// Counter counts the kernel's authentication drops; only on Linux.
type Counter struct{}

func errOS() error {
	return fmt.Errorf("kdrops: kernel drop counters need Linux, not %s: %w", runtime.GOOS, ErrUnsupported)
}

// Open fails with ErrUnsupported: kernel drop counters need Linux.
func Open() (*Counter, error) { return nil, errOS() }

// Tracepoints returns nil.
func (c *Counter) Tracepoints() []string { return nil }

// Read fails with ErrUnsupported.
func (c *Counter) Read(fn func(k Key, n uint64)) error { return errOS() }

// IfIndexErr returns nil.
func (c *Counter) IfIndexErr() error { return nil }

// Counts fails with ErrUnsupported.
func (c *Counter) Counts() (map[Key]uint64, error) { return nil, errOS() }

// RunCount fails with ErrUnsupported.
func (c *Counter) RunCount() (uint64, error) { return 0, errOS() }

// Missed fails with ErrUnsupported.
func (c *Counter) Missed() (map[Reason]uint64, error) { return nil, errOS() }

// Close does nothing.
func (c *Counter) Close() error { return nil }

// EnableStats fails with ErrUnsupported.
func EnableStats() (io.Closer, error) { return nil, errOS() }
