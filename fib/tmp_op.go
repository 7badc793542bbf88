package fib

// TEMPORARY: these come from codec.go (the kernel side) when it merges.

import "errors"

type Op struct {
	Delete bool
	Route  Route
}

type Event struct {
	Deleted  bool
	Lost     bool
	Protocol uint8
	Route    Route
}

var (
	ErrNotFound     = errors.New("fib: no such route")
	ErrUnreachable  = errors.New("fib: unreachable")
	ErrNotSupported = errors.New("fib: not supported")
)

func OpenKernel() (KernelRoutes, error) { return nil, ErrNotSupported }
