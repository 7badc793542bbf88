package shadow

import (
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/keys"
)

func wiped(s keys.Secret) bool {
	for _, b := range s {
		if b != 0 {
			return false
		}
	}
	return len(s) > 0
}

// TestSetPeersOwnsAndWipesSecrets: the checker keeps its own copy of the
// peers' secrets, and a reload (SetPeers) wipes the copies it replaces,
// exact peers and ranges alike, never the caller's; the new copy verifies.
func TestSetPeersOwnsAndWipesSecrets(t *testing.T) {
	secret := keys.Secret("Shadow-Owned-Key-1")
	orig := slices.Clone(secret)
	peer := Peer{ID: "192.0.2.2", Prefix: netip.MustParsePrefix("192.0.2.2/32"), Pinned: -1, Keys: []Key{{ID: -1, Secret: secret}}}
	rng := Peer{ID: "198.51.100.0/24", Prefix: netip.MustParsePrefix("198.51.100.0/24"), Pinned: -1, Keys: []Key{{ID: -1, Secret: keys.Secret("Range-Key-2")}}}
	c := New([]Peer{peer, rng}, Options{})
	held := c.lookup(netip.MustParseAddr("192.0.2.2")).Keys[0].Secret
	heldRange := c.lookup(netip.MustParseAddr("198.51.100.7")).Keys[0].Secret
	if &held[0] == &secret[0] {
		t.Fatal("the checker holds the caller's secret, not its own copy")
	}

	c.SetPeers([]Peer{peer})
	if !wiped(held) || !wiped(heldRange) {
		t.Fatal("SetPeers left the replaced secrets in memory")
	}
	if !secret.Equal(orig) {
		t.Fatal("SetPeers wiped the caller's secret")
	}
	a, l := netip.MustParseAddr("192.0.2.2"), netip.MustParseAddr("192.0.2.1")
	if r := c.Check(a, l, 179, 40000, signedSegment(t, a, l, 179, 40000, string(orig)), time.Now()); r.Verdict != Valid {
		t.Fatalf("after SetPeers: %+v, want valid", r)
	}
}
