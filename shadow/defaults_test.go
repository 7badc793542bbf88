package shadow_test

import (
	"net/netip"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/shadow"
)

// TestRetiredForDefault: without RetiredFor, a key a reload retired still
// proves a SYN is the peer's for 90 s (BGP's usual hold time), and no
// longer after. (TestStaleSessionRetiredKey sets its own RetiredFor; this
// one holds the default.)
func TestRetiredForDefault(t *testing.T) {
	for _, c := range []struct {
		after time.Duration
		stale bool
	}{{89 * time.Second, true}, {91 * time.Second, false}} {
		r := &staleRig{t: t, now: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
		peerWith := func(key string) []shadow.Peer {
			return []shadow.Peer{{ID: hPeer, Prefix: netip.PrefixFrom(hPeerAddr, 32), Keys: []shadow.Key{{ID: -1, Secret: []byte(key)}}, Pinned: -1}}
		}
		r.c = shadow.New(peerWith("key-a"), shadow.Options{
			Now: func() time.Time { return r.now },
			OnStale: func(id string, a netip.Addr, port uint16) {
				r.mu.Lock()
				r.stale = append(r.stale, port)
				r.mu.Unlock()
			},
		})
		r.c.SetSession(hPeerAddr, 40001)
		r.send(40001, flagACKPSH, "key-a")
		r.c.SetPeers(peerWith("key-b"))    // reload: A → B (the peer follows and resets)
		r.send(40001, flagACKPSH, "key-a") // its last segment, signed with A: dropped
		r.c.SetPeers(peerWith("key-c"))    // reload: B → C before the peer reconnected
		r.now = r.now.Add(c.after - 100*time.Millisecond)
		r.send(40002, flagSYN, "key-b") // the peer reconnects with B
		if got := len(r.staleCalls()); (got == 1) != c.stale || got > 1 {
			t.Errorf("a SYN signed with the key retired %v ago: %d OnStale calls, want stale %v", c.after, got, c.stale)
		}
	}
}
