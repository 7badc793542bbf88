package shadow

import (
	"io"
	"net/netip"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/metrics"
	"github.com/authbgp/authbgpd/peerindex"
)

// TestApplyFollowsSnapshot: the Runner follows the peers manager's
// snapshots as it followed the pushes they replaced (KeyInUse, Session):
// a keychain key is pinned once it is installed, once for each key in
// turn (the same snapshot again pins nothing, a password in between
// counts as a turn), a peer gone from the snapshot is pinned again when
// it comes back; an established session's port is set on every checker
// and cleared when the session is down or gone. FollowProven reads the
// key in use from the last snapshot applied.
func TestApplyFollowsSnapshot(t *testing.T) {
	l := logrus.New()
	l.SetOutput(io.Discard)
	c := parseConf(t, reloadBase+reloadChain)
	c.Shadow.Workers = 2
	r := NewRunner(peerindex.New(c), l, metrics.New("test"), RunnerOptions{})
	const id = "192.0.2.3"
	a := netip.MustParseAddr(id)
	pins := func(what string, want int) {
		t.Helper()
		for i, c := range r.chks {
			c.mu.Lock()
			got := c.lookup(a).Pinned
			c.mu.Unlock()
			if got != want {
				t.Errorf("%s: checker %d pinned %d, want %d", what, i, got, want)
			}
		}
	}
	unpin := func() {
		for _, c := range r.chks {
			c.Pin(id, -1)
		}
	}
	snap := func(k peerindex.KeyInUse, sess map[peerindex.Neighbor]peerindex.Session) *peerindex.Snapshot {
		return &peerindex.Snapshot{Keys: map[string]peerindex.KeyInUse{id: k}, Sessions: sess}
	}
	r.Apply(snap(peerindex.KeyInUse{KeyID: 2, Keychain: true}, nil))
	pins("not installed", -1)
	if _, ok := r.snapshot().KeyID(id); !ok {
		t.Error("FollowProven's key in use: none")
	}
	r.Apply(snap(peerindex.KeyInUse{KeyID: 2, Keychain: true, Installed: true}, nil))
	pins("installed", 2)
	unpin()
	r.Apply(snap(peerindex.KeyInUse{KeyID: 2, Keychain: true, Installed: true}, nil))
	pins("the same key again", -1)
	r.Apply(snap(peerindex.KeyInUse{KeyID: -1, Installed: true}, nil))
	pins("a password", -1)
	r.Apply(snap(peerindex.KeyInUse{KeyID: 2, Keychain: true, Installed: true}, nil))
	pins("the key after a password", 2)
	unpin()
	r.Apply(peerindex.Empty)
	r.Apply(snap(peerindex.KeyInUse{KeyID: 2, Keychain: true, Installed: true}, nil))
	pins("a peer back in the snapshot", 2)

	port := func(what string, want uint16) {
		t.Helper()
		for i, c := range r.chks {
			c.mu.Lock()
			var got uint16
			if st := c.state[a]; st != nil {
				got = st.conn
			}
			c.mu.Unlock()
			if got != want {
				t.Errorf("%s: checker %d session port %d, want %d", what, i, got, want)
			}
		}
	}
	up := peerindex.Session{Established: true, Local: netip.MustParseAddrPort("192.0.2.1:179"), Remote: netip.MustParseAddrPort("192.0.2.3:40001")}
	k := peerindex.KeyInUse{KeyID: 2, Keychain: true, Installed: true}
	r.Apply(snap(k, map[peerindex.Neighbor]peerindex.Session{{Addr: a}: up}))
	port("established", 40001)
	r.Apply(snap(k, map[peerindex.Neighbor]peerindex.Session{{Addr: a}: {}}))
	port("down", 0)
	r.Apply(snap(k, map[peerindex.Neighbor]peerindex.Session{{Addr: a}: up}))
	port("up again", 40001)
	r.Apply(snap(k, nil))
	port("gone", 0)
}
