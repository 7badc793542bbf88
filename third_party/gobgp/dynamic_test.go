package gobgp_test

import (
	"context"
	"strings"
	"testing"

	api "github.com/osrg/gobgp/v3/api"
)

// TestDynamicNeighborUnknownPeerGroup checks what patch 0026 is carried
// for: adding or deleting a dynamic neighbor of a peer group that does not
// exist is an error. Unpatched, GoBGP dereferenced the missing group on
// Serve's goroutine and the process died.
func TestDynamicNeighborUnknownPeerGroup(t *testing.T) {
	s := passiveServer(t, 0)
	ctx := context.Background()
	err := s.AddDynamicNeighbor(ctx, &api.AddDynamicNeighborRequest{DynamicNeighbor: &api.DynamicNeighbor{Prefix: "192.0.2.0/24", PeerGroup: "nowhere"}})
	if err == nil || !strings.Contains(err.Error(), "no such peer-group: nowhere") {
		t.Fatalf("add to an unknown peer group: %v", err)
	}
	err = s.DeleteDynamicNeighbor(ctx, &api.DeleteDynamicNeighborRequest{Prefix: "192.0.2.0/24", PeerGroup: "nowhere"})
	if err == nil || !strings.Contains(err.Error(), "no such peer-group: nowhere") {
		t.Fatalf("delete from an unknown peer group: %v", err)
	}
	// A known group still takes and gives back its range.
	if err := s.AddPeerGroup(ctx, &api.AddPeerGroupRequest{PeerGroup: &api.PeerGroup{Conf: &api.PeerGroupConf{PeerGroupName: "g", PeerAsn: 64501}}}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddDynamicNeighbor(ctx, &api.AddDynamicNeighborRequest{DynamicNeighbor: &api.DynamicNeighbor{Prefix: "192.0.2.0/24", PeerGroup: "g"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteDynamicNeighbor(ctx, &api.DeleteDynamicNeighborRequest{Prefix: "192.0.2.0/24", PeerGroup: "g"}); err != nil {
		t.Fatal(err)
	}
}
