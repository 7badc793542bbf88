//go:build !linux

package netdev

// IfIndex is not supported off Linux.
func IfIndex(name string) (int, error) { return 0, ErrNotSupported }

// VRFIndex is not supported off Linux.
func VRFIndex(name string) (int, error) { return 0, ErrNotSupported }

// MasterVRF is not supported off Linux.
func MasterVRF(ifname string) (string, int, error) { return "", 0, ErrNotSupported }

// LinkByName is not supported off Linux.
func LinkByName(name string) (Link, error) { return Link{}, ErrNotSupported }

// LinkByIndex is not supported off Linux.
func LinkByIndex(index int) (Link, error) { return Link{}, ErrNotSupported }

// VRFTable returns ErrNotSupported.
func VRFTable(name string) (uint32, error) { return 0, ErrNotSupported }
