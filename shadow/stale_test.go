package shadow_test

import (
	"encoding/binary"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/shadow"
)

// tcpSeg builds a segment from the peer (port sport) to us (port 179) with
// TCP flags, signed with key ("" unsigned).
func tcpSeg(t testing.TB, sport uint16, flags byte, key string, payload int) []byte {
	t.Helper()
	hl := 20
	if key != "" {
		hl += 20
	}
	seg := make([]byte, hl+payload)
	binary.BigEndian.PutUint16(seg[0:], sport)
	binary.BigEndian.PutUint16(seg[2:], 179)
	binary.BigEndian.PutUint32(seg[4:], 1000)
	seg[12] = byte(hl/4) << 4
	seg[13] = flags
	binary.BigEndian.PutUint16(seg[14:], 502)
	if key == "" {
		return seg
	}
	copy(seg[20:], []byte{md5auth.OptNOP, md5auth.OptNOP, md5auth.OptMD5, 18})
	sig, err := md5auth.NewDigester().Sum(nil, hPeerAddr, hLocalAddr, seg, []byte(key))
	if err != nil {
		t.Fatal(err)
	}
	copy(seg[24:40], sig)
	return seg
}

const (
	flagSYN    = 0x02
	flagACKPSH = 0x18
)

type staleRig struct {
	t     *testing.T
	c     *shadow.Checker
	now   time.Time
	mu    sync.Mutex
	stale []uint16
}

func newStaleRig(t *testing.T, key string) *staleRig {
	r := &staleRig{t: t, now: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	peer := shadow.Peer{ID: hPeer, Prefix: netip.PrefixFrom(hPeerAddr, 32), Keys: []shadow.Key{{ID: -1, Secret: []byte(key)}}, Pinned: -1}
	r.c = shadow.New([]shadow.Peer{peer}, shadow.Options{
		OnStale: func(id string, a netip.Addr, port uint16) {
			if id != hPeer || a != hPeerAddr {
				t.Errorf("OnStale(%q, %s)", id, a)
			}
			r.mu.Lock()
			r.stale = append(r.stale, port)
			r.mu.Unlock()
		},
	})
	return r
}

func (r *staleRig) send(sport uint16, flags byte, key string) {
	r.now = r.now.Add(100 * time.Millisecond)
	r.c.Check(hPeerAddr, hLocalAddr, sport, 179, tcpSeg(r.t, sport, flags, key, 19), r.now)
}

func (r *staleRig) diag() string {
	for _, rep := range r.c.Reports(r.now) {
		if rep.Address == hPeerAddr {
			return rep.Diagnosis
		}
	}
	return ""
}

func (r *staleRig) staleCalls() []uint16 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]uint16(nil), r.stale...)
}

// Item 7: the established session's segments stop verifying (the peer
// moved to a new key and reset its side; its NOTIFICATION and FIN, signed
// with the old key, are dropped by our kernel), then the peer connects anew
// with a SYN that verifies: the session is stale, exactly once. While the
// session stands, the diagnosis describes its connection, not new SYNs.
func TestStaleSession(t *testing.T) {
	r := newStaleRig(t, "new-key")
	r.c.SetSession(hPeerAddr, 40001)
	for i := 0; i < 3; i++ {
		r.send(40001, flagACKPSH, "new-key")
	}
	if d := r.diag(); d != shadow.DiagOK {
		t.Fatalf("healthy session: %s", d)
	}
	// A valid SYN while the session's segments verify: no verdict on the
	// session (a collision, or a restart whose FIN we processed).
	r.send(40002, flagSYN, "new-key")
	if n := len(r.staleCalls()); n != 0 {
		t.Fatalf("stale called for a healthy session: %d", n)
	}
	// The session's segments fail (old key), new SYNs do verify.
	for i := 0; i < 3; i++ {
		r.send(40001, flagACKPSH, "old-key")
	}
	if d := r.diag(); d != shadow.DiagBadDigest {
		t.Fatalf("session whose segments fail: %s", d)
	}
	// An unsigned or wrongly signed SYN proves nothing.
	r.send(40003, flagSYN, "")
	r.send(40003, flagSYN, "old-key")
	if n := len(r.staleCalls()); n != 0 {
		t.Fatalf("stale on a SYN that does not verify: %d", n)
	}
	// A data segment on another connection is no new connection either.
	r.send(40003, flagACKPSH, "new-key")
	if n := len(r.staleCalls()); n != 0 {
		t.Fatalf("stale on a non-SYN: %d", n)
	}
	for i := 0; i < 5; i++ {
		r.send(40004, flagSYN, "new-key")
		if d := r.diag(); d != shadow.DiagBadDigest {
			t.Fatalf("new SYNs changed the session's diagnosis to %s", d)
		}
	}
	if got := r.staleCalls(); len(got) != 1 || got[0] != 40001 {
		t.Fatalf("OnStale calls %v, want exactly one for port 40001", got)
	}
	// Once the session is gone, SYNs count again.
	r.c.SetSession(hPeerAddr, 0)
	for i := 0; i < 3; i++ {
		r.send(40005, flagSYN, "new-key")
	}
	if d := r.diag(); d != shadow.DiagOK {
		t.Fatalf("after the session: %s", d)
	}
	// A new session can be stale in turn.
	r.c.SetSession(hPeerAddr, 40005)
	r.send(40005, flagACKPSH, "old-key")
	r.send(40006, flagSYN, "new-key")
	if got := r.staleCalls(); len(got) != 2 || got[1] != 40005 {
		t.Fatalf("second session: OnStale calls %v", got)
	}
}

// The proof that a peer signs with a newer keychain key is a standing fact
// in the reports (so switching follow-peer-rollover on later can act), set
// at the Rollover-th consecutive segment and cleared when it stops.
func TestProvenKeyIDStanding(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	keys := []shadow.Key{
		{ID: 1, Secret: []byte("chain-one")},
		{ID: 2, Secret: []byte("chain-two"), SendFrom: now.Add(24 * time.Hour)},
	}
	c := shadow.New([]shadow.Peer{{ID: hPeer, Prefix: netip.PrefixFrom(hPeerAddr, 32), Keys: keys, Pinned: -1}}, shadow.Options{})
	proven := func() *int {
		for _, rep := range c.Reports(now) {
			if rep.Address == hPeerAddr {
				return rep.ProvenKeyID
			}
		}
		return nil
	}
	for i := 1; i <= 5; i++ {
		now = now.Add(time.Second)
		c.Check(hPeerAddr, hLocalAddr, 40001, 179, tcpSegKey(t, 40001, "chain-two"), now)
		p := proven()
		switch {
		case i < 3 && p != nil:
			t.Fatalf("proven after %d segments", i)
		case i >= 3 && (p == nil || *p != 2):
			t.Fatalf("not proven on key 2 after %d segments: %v", i, p)
		}
	}
	now = now.Add(time.Second)
	c.Check(hPeerAddr, hLocalAddr, 40001, 179, tcpSegKey(t, 40001, "chain-one"), now)
	if p := proven(); p != nil {
		t.Fatalf("proof kept after the peer signed with our key: %d", *p)
	}
}

func tcpSegKey(t testing.TB, sport uint16, key string) []byte {
	return tcpSeg(t, sport, flagSYN, key, 0)
}

// A reload replaced the peer's key (A → B) and another one followed
// (B → C) before the peer, which had reset its session when it took B,
// reconnected: its SYN is signed with B, which our kernel no longer
// accepts, so BGP never sees it. A key the peer had until a reload less
// than RetiredFor ago still proves the SYN is the peer's: the session is
// stale. A key never configured, or retired too long ago, proves nothing.
func TestStaleSessionRetiredKey(t *testing.T) {
	r := &staleRig{t: t, now: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	peerWith := func(key string) []shadow.Peer {
		return []shadow.Peer{{ID: hPeer, Prefix: netip.PrefixFrom(hPeerAddr, 32), Keys: []shadow.Key{{ID: -1, Secret: []byte(key)}}, Pinned: -1}}
	}
	r.c = shadow.New(peerWith("key-a"), shadow.Options{
		RetiredFor: time.Minute,
		Now:        func() time.Time { return r.now },
		OnStale: func(id string, a netip.Addr, port uint16) {
			r.mu.Lock()
			r.stale = append(r.stale, port)
			r.mu.Unlock()
		},
	})
	r.c.SetSession(hPeerAddr, 40001)
	r.send(40001, flagACKPSH, "key-a")
	r.c.SetPeers(peerWith("key-b"))    // reload: A → B (the peer follows and resets)
	r.send(40001, flagACKPSH, "key-a") // its NOTIFICATION, signed with A: dropped
	r.c.SetPeers(peerWith("key-c"))    // reload: B → C before the peer reconnected
	r.send(40002, flagSYN, "never-configured")
	if n := len(r.staleCalls()); n != 0 {
		t.Fatalf("stale on a SYN signed with a key never configured: %d", n)
	}
	r.send(40002, flagSYN, "key-b")
	if got := r.staleCalls(); len(got) != 1 || got[0] != 40001 {
		t.Fatalf("OnStale calls %v, want one for port 40001 (SYN signed with the key retired by the last reload)", got)
	}

	// Once the retired key is older than RetiredFor it proves nothing.
	r.c.SetSession(hPeerAddr, 0)
	r.c.SetSession(hPeerAddr, 40003)
	r.send(40003, flagACKPSH, "key-a")
	r.now = r.now.Add(2 * time.Minute)
	r.send(40004, flagSYN, "key-b")
	if n := len(r.staleCalls()); n != 1 {
		t.Fatalf("stale on a SYN signed with a key retired %v ago: %d calls", 2*time.Minute, n)
	}
	// And a key that came back is the active one again (Valid, as before).
	r.c.SetPeers(peerWith("key-b"))
	r.send(40004, flagSYN, "key-b")
	if got := r.staleCalls(); len(got) != 2 || got[1] != 40003 {
		t.Fatalf("OnStale calls %v, want a second one for port 40003", got)
	}
}
