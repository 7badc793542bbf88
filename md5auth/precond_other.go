//go:build !linux

package md5auth

// CheckKernelMD5 returns ErrNotSupported: TCP-MD5 keys are installed on
// Linux only.
func CheckKernelMD5() error { return ErrNotSupported }
