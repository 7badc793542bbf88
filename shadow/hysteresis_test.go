package shadow_test

// Step-by-step tests of the checker's hysteresis (Options.Hysteresis,
// default 3) and of follow-peer-rollover's "proven after 3 consecutive
// segments under a newer key" rule (Options.Rollover, default 3): the
// diagnosis and the callbacks are looked at after every single segment, not
// only at the end of a capture. Only the exported API is used.

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/shadow"
)

const (
	hPeer   = "192.0.2.2" // the configured peer, sending from port 179
	hLocal  = "192.0.2.1" // us
	hGood   = "the-right-key"
	hWrong  = "not-the-key"
	hOldKey = "keychain-key-1"
	hNewKey = "keychain-key-2"
	hKey3   = "keychain-key-3"
)

var (
	hPeerAddr  = netip.MustParseAddr(hPeer)
	hLocalAddr = netip.MustParseAddr(hLocal)
)

// segment is one received segment: signed with key, or unsigned when key
// is "".
type segment struct{ key string }

func signed(key string) segment { return segment{key} }

var unsigned = segment{}

// bytes builds the TCP segment (header, NOP NOP MD5 option, a 19-byte
// keepalive-sized payload) from the peer to us with sequence number seq,
// signed by md5auth's Digester.
func (s segment) bytes(t testing.TB, seq uint32) []byte {
	t.Helper()
	hl := 20
	if s.key != "" {
		hl += 20
	}
	seg := make([]byte, hl+19)
	binary.BigEndian.PutUint16(seg[0:], 179)
	binary.BigEndian.PutUint16(seg[2:], 40000)
	binary.BigEndian.PutUint32(seg[4:], seq)
	binary.BigEndian.PutUint32(seg[8:], 2000)
	seg[12] = byte(hl/4) << 4
	seg[13] = 0x18
	binary.BigEndian.PutUint16(seg[14:], 502)
	for i := hl; i < len(seg); i++ {
		seg[i] = 0xff
	}
	if s.key == "" {
		return seg
	}
	copy(seg[20:], []byte{md5auth.OptNOP, md5auth.OptNOP, md5auth.OptMD5, 18})
	sig, err := md5auth.NewDigester().Sum(nil, hPeerAddr, hLocalAddr, seg, []byte(s.key))
	if err != nil {
		t.Fatal(err)
	}
	copy(seg[24:40], sig)
	return seg
}

// rig is a checker for one peer that records its callbacks.
type rig struct {
	t   *testing.T
	c   *shadow.Checker
	now time.Time
	seq uint32

	mu       sync.Mutex
	changes  []shadow.PeerReport
	rollover []int // key ids, one per OnRollover call
}

func newRig(t *testing.T, keys ...shadow.Key) *rig {
	r := &rig{t: t, now: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), seq: 1000}
	peer := shadow.Peer{ID: hPeer, Prefix: netip.PrefixFrom(hPeerAddr, 32), Keys: keys, Pinned: -1}
	r.c = shadow.New([]shadow.Peer{peer}, shadow.Options{
		OnChange: func(rep shadow.PeerReport) {
			r.mu.Lock()
			r.changes = append(r.changes, rep)
			r.mu.Unlock()
		},
		OnRollover: func(peerID string, keyID int) {
			if peerID != hPeer {
				t.Errorf("OnRollover(%q, %d): wrong peer", peerID, keyID)
			}
			r.mu.Lock()
			r.rollover = append(r.rollover, keyID)
			r.mu.Unlock()
		},
	})
	return r
}

// send feeds one received segment and returns its verdict.
func (r *rig) send(s segment) shadow.Result {
	r.t.Helper()
	r.now = r.now.Add(time.Second)
	r.seq += 19
	return r.c.Check(hPeerAddr, hLocalAddr, 179, 40000, s.bytes(r.t, r.seq), r.now)
}

// report returns the peer's report, if the checker has one yet.
func (r *rig) report() (shadow.PeerReport, bool) {
	for _, rep := range r.c.Reports(r.now) {
		if rep.Address == hPeerAddr {
			return rep, true
		}
	}
	return shadow.PeerReport{}, false
}

// diag returns the peer's diagnosis and the key id it is proven on (-1).
func (r *rig) diag() (string, int) {
	r.t.Helper()
	rep, ok := r.report()
	if !ok {
		r.t.Fatalf("no report for %s", hPeer)
	}
	if rep.PeerKeyID != nil {
		return rep.Diagnosis, *rep.PeerKeyID
	}
	return rep.Diagnosis, -1
}

func (r *rig) counts() (changes, rollovers int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.changes), len(r.rollover)
}

func (r *rig) lastChange() shadow.PeerReport {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.changes) == 0 {
		r.t.Fatal("no OnChange call")
	}
	return r.changes[len(r.changes)-1]
}

// expectRun sends n segments s one after the other. Before the run the
// diagnosis is from; it must stay from (and OnChange silent) after each of
// segments 1..2 and become to, with exactly one OnChange call reporting to,
// at segment 3; segments 4..n change nothing more.
func (r *rig) expectRun(s segment, n int, from, to string) {
	r.t.Helper()
	ch0, _ := r.counts()
	if rep, ok := r.report(); ok && rep.Diagnosis != from || !ok && from != shadow.DiagNoTraffic {
		r.t.Fatalf("before the run of %v: report %+v (exists: %v), want diagnosis %q", s, rep, ok, from)
	}
	for i := 1; i <= n; i++ {
		r.send(s)
		d, _ := r.diag()
		ch, _ := r.counts()
		switch {
		case i < 3:
			if d != from || ch != ch0 {
				r.t.Fatalf("after segment %d of %v: diagnosis %q (OnChange calls %d→%d), want it still %q: hysteresis is 3 segments", i, s, d, ch0, ch, from)
			}
		default:
			if d != to || ch != ch0+1 {
				r.t.Fatalf("after segment %d of %v: diagnosis %q (OnChange calls %d→%d), want %q with one OnChange", i, s, d, ch0, ch, to)
			}
			if i == 3 {
				if got := r.lastChange(); got.Diagnosis != to || got.Address != hPeerAddr || got.PeerID != hPeer {
					r.t.Fatalf("OnChange at segment 3 reported %+v, want %q for %s", got, to, hPeer)
				}
			}
		}
	}
}

func (s segment) String() string {
	if s.key == "" {
		return "unsigned segments"
	}
	return fmt.Sprintf("segments signed with %q", s.key)
}

// TestHysteresisSegmentBySegment walks a peer with one password through
// every received diagnosis, checking after each segment that the diagnosis
// changes at exactly the third consecutive segment supporting it.
func TestHysteresisSegmentBySegment(t *testing.T) {
	r := newRig(t, shadow.Key{ID: -1, Secret: []byte(hGood)})
	for i := 1; i <= 2; i++ {
		if v := r.send(signed(hGood)).Verdict; v != shadow.Valid {
			t.Fatalf("segment %d: verdict %v, want valid", i, v)
		}
		if d, _ := r.diag(); d != shadow.DiagNoTraffic {
			t.Fatalf("after valid segment %d: diagnosis %q, want %q until the 3rd", i, d, shadow.DiagNoTraffic)
		}
		if ch, _ := r.counts(); ch != 0 {
			t.Fatalf("after valid segment %d: %d OnChange calls, want none", i, ch)
		}
	}
	r.send(signed(hGood))
	if d, _ := r.diag(); d != shadow.DiagOK {
		t.Fatalf("after valid segment 3: diagnosis %q, want %q", d, shadow.DiagOK)
	}
	if ch, _ := r.counts(); ch != 1 || r.lastChange().Diagnosis != shadow.DiagOK {
		t.Fatalf("after valid segment 3: OnChange calls %+v, want one to ok", r.changes)
	}
	r.expectRunNoChange(signed(hGood), 5, shadow.DiagOK) // no change: no OnChange
	// ok → bad-digest → missing → ok, each at exactly its 3rd segment.
	r.expectRun(signed(hWrong), 10, shadow.DiagOK, shadow.DiagBadDigest)
	r.expectRun(unsigned, 4, shadow.DiagBadDigest, shadow.DiagMissing)
	r.expectRun(signed(hGood), 3, shadow.DiagMissing, shadow.DiagOK)
}

// The same steady state repeated must not call OnChange again.
func (r *rig) expectRunNoChange(s segment, n int, d string) {
	r.t.Helper()
	ch0, _ := r.counts()
	for i := 1; i <= n; i++ {
		r.send(s)
		if got, _ := r.diag(); got != d {
			r.t.Fatalf("segment %d of %v: diagnosis %q, want %q", i, s, got, d)
		}
	}
	if ch, _ := r.counts(); ch != ch0 {
		r.t.Fatalf("%d OnChange calls for a diagnosis that did not change", ch-ch0)
	}
}

// TestHysteresisUnexpected: a peer without a key that signs becomes
// unexpected at the 3rd signed segment.
func TestHysteresisUnexpected(t *testing.T) {
	r := newRig(t)
	r.expectRun(signed(hGood), 3, shadow.DiagNoTraffic, shadow.DiagUnexpected)
	r.expectRunNoChange(signed(hWrong), 3, shadow.DiagUnexpected)
}

// TestHysteresisInterleavedResets: a different verdict in the middle of a
// run restarts the count, so two runs of two never change the diagnosis.
func TestHysteresisInterleavedResets(t *testing.T) {
	r := newRig(t, shadow.Key{ID: -1, Secret: []byte(hGood)})
	// From no-traffic: ok ok bad ok ok stays no-traffic; the next ok is
	// the 3rd consecutive one.
	for i, s := range []segment{signed(hGood), signed(hGood), signed(hWrong), signed(hGood), signed(hGood)} {
		r.send(s)
		if d, _ := r.diag(); d != shadow.DiagNoTraffic {
			t.Fatalf("segment %d (%v) of ok ok bad ok ok: diagnosis %q, want %q", i+1, s, d, shadow.DiagNoTraffic)
		}
	}
	if ch, _ := r.counts(); ch != 0 {
		t.Fatalf("%d OnChange calls, want none", ch)
	}
	r.send(signed(hGood))
	if d, _ := r.diag(); d != shadow.DiagOK {
		t.Fatalf("3rd consecutive valid segment after the reset: %q, want ok", d)
	}
	// From ok: bad bad ok bad bad missing missing bad bad stays ok.
	seq := []segment{signed(hWrong), signed(hWrong), signed(hGood), signed(hWrong), signed(hWrong), unsigned, unsigned, signed(hWrong), signed(hWrong)}
	for i, s := range seq {
		r.send(s)
		if d, _ := r.diag(); d != shadow.DiagOK {
			t.Fatalf("segment %d (%v) of an interleaved sequence: diagnosis %q, want ok", i+1, s, d)
		}
	}
	if ch, _ := r.counts(); ch != 1 {
		t.Fatalf("%d OnChange calls, want only the first one", ch)
	}
	r.send(signed(hWrong)) // 3rd consecutive bad digest
	if d, _ := r.diag(); d != shadow.DiagBadDigest {
		t.Fatalf("3rd consecutive bad digest: %q, want %q", d, shadow.DiagBadDigest)
	}
}

// TestHysteresisPerConnection: segments of other connections from the
// peer's address (a flood of SYNs from it, each from its own port) that
// interleave with the peer's own do not keep its diagnosis from changing:
// three segments of one connection saying the same still change it.
func TestHysteresisPerConnection(t *testing.T) {
	r := newRig(t, shadow.Key{ID: -1, Secret: []byte(hGood)})
	r.expectRun(signed(hGood), 3, shadow.DiagNoTraffic, shadow.DiagOK)
	flood := func(i int) {
		r.now = r.now.Add(time.Second)
		r.seq += 19
		b := unsigned.bytes(t, r.seq)
		port := uint16(41000 + i)
		binary.BigEndian.PutUint16(b[0:], port) // to our port 179
		binary.BigEndian.PutUint16(b[2:], 179)
		if v := r.c.Check(hPeerAddr, hLocalAddr, port, 179, b, r.now).Verdict; v != shadow.Missing {
			t.Fatalf("a flood segment: verdict %v, want missing", v)
		}
	}
	for i := range 2 {
		r.send(signed(hWrong)) // the peer's connection, from port 179
		flood(2 * i)
		flood(2*i + 1)
		if d, _ := r.diag(); d != shadow.DiagOK {
			t.Fatalf("after %d bad digests of the peer's connection among flood segments: %q, want ok still", i+1, d)
		}
	}
	r.send(signed(hWrong))
	if d, _ := r.diag(); d != shadow.DiagBadDigest {
		t.Fatalf("3 bad digests of one connection, interleaved with a flood from other ports: diagnosis %q, want %q", d, shadow.DiagBadDigest)
	}
	// Fewer than three flood segments in a row change nothing; three in a
	// row do (the address's own consecutive run: peers whose connection
	// attempts are one or two SYNs each are diagnosed too).
	for i := range 2 {
		flood(100 + i)
		if d, _ := r.diag(); d != shadow.DiagBadDigest {
			t.Fatalf("flood segment %d: diagnosis %q, want %q kept", i+1, d, shadow.DiagBadDigest)
		}
	}
	flood(102)
	if d, _ := r.diag(); d != shadow.DiagMissing {
		t.Fatalf("3 unsigned segments in a row: diagnosis %q, want %q", d, shadow.DiagMissing)
	}
}

// chain is a keychain where key 1 is active now and keys 2 and 3 are
// scheduled later (newer), so a peer signing with them has rolled over.
func chain(now time.Time) []shadow.Key {
	return []shadow.Key{
		{ID: 1, Secret: []byte(hOldKey), SendFrom: now.Add(-24 * time.Hour)},
		{ID: 2, Secret: []byte(hNewKey), SendFrom: now.Add(24 * time.Hour)},
		{ID: 3, Secret: []byte(hKey3), SendFrom: now.Add(48 * time.Hour)},
	}
}

func newChainRig(t *testing.T) *rig {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	return newRig(t, chain(now)...)
}

// TestRolloverAtThirdSegment: OnRollover is not called for the 1st and 2nd
// consecutive segment under the newer key 2, is called by the 3rd, and over
// a run of 10 it has been called (at least once; an edge-triggered checker
// calls it exactly once) and only ever for key 2. The diagnosis turns
// other-key, proven on key 2, at the 3rd segment too.
func TestRolloverAtThirdSegment(t *testing.T) {
	r := newChainRig(t)
	for i := 1; i <= 10; i++ {
		res := r.send(signed(hNewKey))
		if res.Verdict != shadow.BadDigest || !res.Other || res.KeyID != 2 {
			t.Fatalf("segment %d: %+v, want bad_digest verified by other key 2", i, res)
		}
		_, rolls := r.counts()
		d, k := r.diag()
		switch {
		case i < 3:
			if rolls != 0 {
				t.Fatalf("OnRollover called after segment %d under the newer key, want not before the 3rd", i)
			}
			if d != shadow.DiagNoTraffic {
				t.Fatalf("after segment %d: diagnosis %q, want %q until the 3rd", i, d, shadow.DiagNoTraffic)
			}
		default:
			if rolls < 1 {
				t.Fatalf("OnRollover not called by segment %d under the newer key, want it by the 3rd", i)
			}
			if d != shadow.DiagOtherKey || k != 2 {
				t.Fatalf("after segment %d: diagnosis %q key %d, want %q key 2", i, d, k, shadow.DiagOtherKey)
			}
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.rollover) < 1 {
		t.Fatal("no OnRollover call in a run of 10")
	}
	for _, k := range r.rollover {
		if k != 2 {
			t.Fatalf("OnRollover calls %v, want key 2 only", r.rollover)
		}
	}
	if len(r.rollover) > 1 {
		t.Logf("OnRollover is level-triggered here: %d calls for a run of 10", len(r.rollover))
	}
}

// TestRolloverInterleavedResets: a segment with another verdict (valid
// under our active key, a bad digest, an unsigned one, or a different newer
// key) between segments under the newer key restarts the count.
func TestRolloverInterleavedResets(t *testing.T) {
	for _, tc := range []struct {
		name  string
		other segment
	}{
		{"active-key", signed(hOldKey)},
		{"bad-digest", signed(hWrong)},
		{"unsigned", unsigned},
		{"another-newer-key", signed(hKey3)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newChainRig(t)
			for i, s := range []segment{signed(hNewKey), signed(hNewKey), tc.other, signed(hNewKey), signed(hNewKey)} {
				r.send(s)
				if _, rolls := r.counts(); rolls != 0 {
					t.Fatalf("OnRollover after segment %d (%v) of new new %s new new: the interleaved segment must reset the run", i+1, s, tc.name)
				}
			}
			if d, _ := r.diag(); d == shadow.DiagOtherKey {
				t.Fatalf("diagnosis %q after interleaved runs of 2", d)
			}
			r.send(signed(hNewKey)) // the 3rd consecutive one
			r.mu.Lock()
			rolled := append([]int(nil), r.rollover...)
			r.mu.Unlock()
			if len(rolled) < 1 || rolled[0] != 2 {
				t.Fatalf("3rd consecutive segment under key 2 after the reset: OnRollover calls %v, want key 2", rolled)
			}
		})
	}
}

// TestRolloverNotForOlderKey: a peer still on an older key of the chain is
// other-key at the 3rd segment but never a rollover.
func TestRolloverNotForOlderKey(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	r := newRig(t,
		shadow.Key{ID: 1, Secret: []byte(hOldKey), SendFrom: now.Add(-48 * time.Hour)},
		shadow.Key{ID: 2, Secret: []byte(hNewKey), SendFrom: now.Add(-24 * time.Hour)},
	)
	r.expectRun(signed(hOldKey), 10, shadow.DiagNoTraffic, shadow.DiagOtherKey)
	if _, rolls := r.counts(); rolls != 0 {
		t.Fatalf("%d OnRollover calls for a peer on an older key", rolls)
	}
}
