//go:build !linux

package md5auth

// CheckKernelMD5 returns ErrNotSupported: TCP-MD5 keys are installed on
// Linux only.
func CheckKernelMD5() error { return ErrNotSupported }

// CheckMultipathDefault returns nil: Go uses multipath TCP on Linux only.
func CheckMultipathDefault() error { return nil }
