package config

// The tests do not depend on this host's addresses: a config without
// router-id finds none unless a test says otherwise (withHostAddrs).
func init() { listHostAddrs = func() ([]HostAddr, error) { return nil, nil } }

// noHostRouterID is the error of a config without router-id on a host
// with no address to take it from.
const noHostRouterID = "router-id: not set, and no address to take the router ID from: no up, non-loopback interface has an IPv4 address (loopback and link-local addresses do not count); set router-id, router-id-env or router-id-interface"
