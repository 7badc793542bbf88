//go:build !linux

package tcpsock

// ProbeAOAlgorithms reports that TCP-AO is unavailable here (ErrNoTCPAO).
func ProbeAOAlgorithms() AOAlgorithms { return AOAlgorithms{Err: ErrNoTCPAO} }

// ProbeAOAlgorithm reports that TCP-AO is unavailable here (ErrNoTCPAO).
func ProbeAOAlgorithm(string) error { return ErrNoTCPAO }

// KernelRelease is "" here: there is no Linux kernel to name.
func KernelRelease() string { return "" }
