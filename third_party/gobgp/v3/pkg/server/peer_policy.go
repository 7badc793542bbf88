package server

import (
	"github.com/osrg/gobgp/v3/internal/pkg/table"
)

// peerPolicy applies, to a path the global RIB's policy let through
// (path; nil: filtered), the peer's own assignment in direction dir when
// the peer is not a route-server client. GoBGP keeps every neighbor's
// assignment (apply-policy, SetPolicyAssignment) but evaluated it only for
// route-server clients, whose RIB is their own; a program that gives each
// neighbor its import and export policies (authbgpd's per-peer
// import-policy-list and export-policy-list) needs them evaluated for the
// others too: after the global RIB's, as one more stage. A neighbor's
// assignment defaults to accept-route with no policy (SetPeerPolicy at
// AddPeer), so a neighbor that sets none sees no change, nor does one
// without an assignment (table's ApplyPeerPolicy). A path with no peer (a
// local one) is left alone.
func peerPolicy(peer *peer, dir table.PolicyDirection, path *table.Path, options *table.PolicyOptions) *table.Path {
	if path == nil || peer == nil || peer.isRouteServerClient() {
		return path
	}
	return peer.policy.ApplyPeerPolicy(peer.ID(), dir, path, options)
}
