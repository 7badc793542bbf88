package fib

import (
	"errors"

	"golang.org/x/sys/unix"
)

// reasonOf is the fixed reason of the kernel's refusal err.
func reasonOf(err error) string {
	switch {
	case errors.Is(err, unix.ENETUNREACH), errors.Is(err, unix.EHOSTUNREACH):
		return ReasonUnreachable
	case errors.Is(err, unix.ENODEV):
		return ReasonNoDevice
	}
	return ReasonKernel
}
