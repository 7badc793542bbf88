//go:build !linux

package fib

// reasonOf is the fixed reason of the kernel's refusal err.
func reasonOf(error) string { return ReasonKernel }
