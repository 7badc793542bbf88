//go:build !authbgpd_testhooks

package main

import "github.com/authbgp/authbgpd/peers"

// testSockets is nil (the real sockets) in every normal build.
func testSockets() peers.Sockets { return nil }
