package peers

import (
	"io"
	"net/netip"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/peerindex"
	"github.com/authbgp/authbgpd/plugin"
)

// TestSnapshotSessions: the snapshot the reconciler publishes has each of
// GoBGP's sessions, with its connection's ends while it is established
// (what the shadow checker judges), and none once it is not.
func TestSnapshotSessions(t *testing.T) {
	m, b := start(t, cfg(t, twoPeers), newFakeSockets(), io.Discard)
	a := netip.MustParseAddr("192.0.2.2")
	established(b, "192.0.2.2")
	want := peerindex.Session{Established: true, Local: netip.MustParseAddrPort("192.0.2.1:179"), Remote: netip.MustParseAddrPort("192.0.2.2:40000")}
	waitFor(t, "the session published", func() bool { return m.Snapshot().Sessions[nbr("", a)] == want })
	if k := m.Snapshot().Keys["192.0.2.2"]; !k.Installed || k.KeyID != -1 || k.AOCurrent != -1 {
		t.Errorf("key in use: %+v", k)
	}
	b.events <- plugin.PeerEvent{Peer: a, State: "active", Time: time.Now()}
	waitFor(t, "the session down", func() bool { s, ok := m.Snapshot().Sessions[nbr("", a)]; return ok && s == peerindex.Session{} })
}
