//go:build !linux

package config

import "errors"

// hostAddrs: the router ID is taken from the host on Linux only.
func hostAddrs() ([]HostAddr, error) {
	return nil, errors.New("taking the router ID from the host is supported on Linux only")
}
