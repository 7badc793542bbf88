//go:build !linux

package md5auth

import "errors"

var (
	ErrNoTCPAO = errors.New("md5auth: TCP-AO is not supported on this system")
	ErrNoVRF   = errors.New("md5auth: VRF devices are not supported on this system")
)

// CheckTCPAO reports that TCP-AO is unavailable here.
func CheckTCPAO() error { return ErrNoTCPAO }

// CheckVRF reports that VRF devices are unavailable here.
func CheckVRF() error { return ErrNoVRF }
