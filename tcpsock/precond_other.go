//go:build !linux

package tcpsock

// CheckKernelMD5 returns ErrNotSupported: TCP-MD5 keys are installed on
// Linux only.
func CheckKernelMD5() error { return ErrNotSupported }
