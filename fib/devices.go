package fib

import "github.com/authbgp/authbgpd/netdev"

// netdevDevices answers Devices' questions through netdev (rtnetlink).
type netdevDevices struct{}

func (netdevDevices) IfIndex(name string) (int, error)     { return netdev.IfIndex(name) }
func (netdevDevices) VRFTable(name string) (uint32, error) { return netdev.VRFTable(name) }
