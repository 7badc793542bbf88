//go:build !linux

package tcpsock

import "errors"

var (
	ErrNoTCPAO = errors.New("tcpsock: TCP-AO is not supported on this system")
	ErrNoVRF   = errors.New("tcpsock: VRF devices are not supported on this system")
)

// CheckTCPAO reports that TCP-AO is unavailable here.
func CheckTCPAO() error { return ErrNoTCPAO }

// CheckVRF reports that VRF devices are unavailable here.
func CheckVRF() error { return ErrNoVRF }
