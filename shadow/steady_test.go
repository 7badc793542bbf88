package shadow

import (
	"encoding/binary"
	"fmt"
	"math/rand"
	"net/netip"
	"reflect"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/md5auth"
)

// The steady flag (addrState.steady) is a cache of isSteady, which
// CheckHeld's valid-segment fast path tests instead of the seven fields.
// These tests drive random sequences of segments (valid under each key,
// other keys, bad, unsigned, SYNs, ours, several connections) and state
// changes (SetSession, SetPeers with other keys, keychains and pins,
// Pin, time passing key schedules and IdleAfter) through two checkers:
// one as it runs, one whose flags are all cleared before every segment,
// so that every valid segment takes observe (the slow path). Their
// results, reports and callbacks must be the same, and after every step
// every flag must equal isSteady.

var (
	stLocal = netip.MustParseAddr("192.0.2.1")
	stPeers = []netip.Addr{netip.MustParseAddr("192.0.2.2"), netip.MustParseAddr("192.0.2.3"), netip.MustParseAddr("198.51.100.7")}
	stKeys  = []string{"key-one-secret!!", "key-two-secret!!", "key-three", "a-password-of-20-by", "bad-bad-bad", ""}
)

// stSeg is a segment between stLocal and remote (port 179 on our side,
// port on the peer's), signed with key ("" unsigned).
func stSeg(t testing.TB, remote netip.Addr, port uint16, out bool, flags byte, key string, payload int) (src, dst netip.Addr, sp, dp uint16, seg []byte) {
	src, dst, sp, dp = remote, stLocal, port, 179
	if out {
		src, dst, sp, dp = stLocal, remote, 179, port
	}
	hl := 20
	if key != "" {
		hl += 20
	}
	seg = make([]byte, hl+payload)
	binary.BigEndian.PutUint16(seg[0:], sp)
	binary.BigEndian.PutUint16(seg[2:], dp)
	binary.BigEndian.PutUint32(seg[4:], 1000)
	seg[12] = byte(hl/4) << 4
	seg[13] = flags
	binary.BigEndian.PutUint16(seg[14:], 502)
	for i := hl; i < len(seg); i++ {
		seg[i] = byte(i)
	}
	if key == "" {
		return
	}
	copy(seg[20:], []byte{md5auth.OptNOP, md5auth.OptNOP, md5auth.OptMD5, 18})
	sig, err := md5auth.NewDigester().Sum(nil, src, dst, seg, []byte(key))
	if err != nil {
		t.Fatal(err)
	}
	copy(seg[24:40], sig)
	return
}

// stPeerSet is one of several configurations of the three peers: a
// keychain (key 1 active at base, 2 and 3 newer), passwords, keys swapped,
// a peer missing, pins.
func stPeerSet(rng *rand.Rand, base time.Time) []Peer {
	chain := func() []Key {
		return []Key{
			{ID: 1, Secret: []byte(stKeys[0]), SendFrom: base.Add(-time.Hour)},
			{ID: 2, Secret: []byte(stKeys[1]), SendFrom: base.Add(2 * time.Hour)},
			{ID: 3, Secret: []byte(stKeys[2]), SendFrom: base.Add(4 * time.Hour)},
		}
	}
	pwk := func(i int) []Key { return []Key{{ID: -1, Secret: []byte(stKeys[i])}} }
	var keys [3][]Key
	for i := range keys {
		switch rng.Intn(5) {
		case 0:
			keys[i] = chain()
		case 1:
			keys[i] = pwk(rng.Intn(4))
		case 2:
			keys[i] = nil // unkeyed
		default:
			keys[i] = []Key{chain()[1], chain()[0]} // another order, no key 3
			if i == 2 {
				keys[i] = chain()
			}
		}
	}
	peers := []Peer{
		{ID: "a", Prefix: netip.PrefixFrom(stPeers[0], 32), Keys: keys[0], Pinned: -1},
		{ID: "b", Prefix: netip.PrefixFrom(stPeers[1], 32), Keys: keys[1], Pinned: -1},
		{ID: "r", Prefix: netip.MustParsePrefix("198.51.100.0/24"), Keys: keys[2], Pinned: -1},
	}
	if rng.Intn(6) == 0 {
		peers = peers[1:] // peer a removed (for now)
	}
	return peers
}

type stEvent struct {
	kind string
	rep  PeerReport
	id   string
	key  int
	addr netip.Addr
	port uint16
}

func newStChecker(peers []Peer, now *time.Time, ev *[]stEvent) *Checker {
	return New(peers, Options{
		Now:        func() time.Time { return *now },
		OnChange:   func(r PeerReport) { *ev = append(*ev, stEvent{kind: "change", rep: r}) },
		OnRollover: func(id string, k int) { *ev = append(*ev, stEvent{kind: "rollover", id: id, key: k}) },
		OnStale: func(id string, a netip.Addr, p uint16) {
			*ev = append(*ev, stEvent{kind: "stale", id: id, addr: a, port: p})
		},
	})
}

// checkSteady fails unless every address's flag is isSteady.
func checkSteady(t *testing.T, c *Checker, step int) {
	t.Helper()
	for a, st := range c.state {
		if st.steady != st.isSteady() {
			t.Fatalf("step %d: %s: steady %v, isSteady %v (%+v)", step, a, st.steady, st.isSteady(), *st)
		}
	}
}

// runSteadySeq runs n random steps of seed through a checker and its
// slow-path twin, and reports how many segments took the fast path.
func runSteadySeq(t *testing.T, seed int64, n int) (fast int) {
	rng := rand.New(rand.NewSource(seed))
	base := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	now := base
	var evA, evB []stEvent
	peers := stPeerSet(rng, base)
	a := newStChecker(clonePeers(peers), &now, &evA)
	b := newStChecker(clonePeers(peers), &now, &evB)
	ports := []uint16{40001, 40002, 40003}
	using := []string{stKeys[0], stKeys[0], stKeys[0]} // the key each peer signs with
	for step := 0; step < n; step++ {
		var what string
		switch k := rng.Intn(100); {
		case k < 80: // a segment, mostly valid under the key the peer uses
			i := rng.Intn(len(stPeers))
			remote := stPeers[i]
			if rng.Intn(20) == 0 { // the peer moves to another key
				using[i] = stKeys[rng.Intn(len(stKeys))]
			}
			key := using[i]
			if rng.Intn(8) == 0 {
				key = stKeys[rng.Intn(len(stKeys))]
			}
			flags := byte(0x18)
			if rng.Intn(12) == 0 {
				flags = 0x02
			}
			port := ports[rng.Intn(len(ports))]
			if rng.Intn(4) != 0 {
				port = ports[0]
			}
			src, dst, sp, dp, seg := stSeg(t, remote, port, rng.Intn(10) == 0, flags, key, rng.Intn(3)*19)
			what = fmt.Sprintf("segment %s:%d→%s:%d flags %#x key %q", src, sp, dst, dp, flags, key)
			if st := a.state[remote]; st != nil && st.steady && src == remote && st.conn == 0 {
				fast++ // (if valid)
			}
			for _, st := range b.state {
				st.steady = false
			}
			ra := a.Check(src, dst, sp, dp, seg, now)
			rb := b.Check(src, dst, sp, dp, seg, now)
			if ra != rb {
				t.Fatalf("seed %d step %d %s: result %+v, slow path %+v", seed, step, what, ra, rb)
			}
		case k < 85:
			remote, port := stPeers[rng.Intn(len(stPeers))], ports[rng.Intn(len(ports))]
			if rng.Intn(3) == 0 {
				port = 0
			}
			what = fmt.Sprintf("SetSession(%s, %d)", remote, port)
			a.SetSession(remote, port)
			b.SetSession(remote, port)
		case k < 90:
			peers = stPeerSet(rng, base)
			what = "SetPeers"
			a.SetPeers(clonePeers(peers))
			b.SetPeers(clonePeers(peers))
		case k < 94:
			id, key := []string{"a", "b", "r"}[rng.Intn(3)], rng.Intn(5)-1
			what = fmt.Sprintf("Pin(%s, %d)", id, key)
			a.Pin(id, key)
			b.Pin(id, key)
		default: // time: the key schedule moves on (keys 2, 3 active), IdleAfter
			d := []time.Duration{time.Second, time.Minute, 6 * time.Minute, 90 * time.Minute}[rng.Intn(4)]
			now = now.Add(d)
			what = fmt.Sprintf("time +%v", d)
		}
		checkSteady(t, a, step) // (b's are cleared on purpose)
		if ra, rb := a.Reports(now), b.Reports(now); !reflect.DeepEqual(ra, rb) {
			t.Fatalf("seed %d step %d %s: reports\n%+v\nslow path\n%+v", seed, step, what, ra, rb)
		}
		if !reflect.DeepEqual(evA, evB) {
			t.Fatalf("seed %d step %d %s: callbacks\n%+v\nslow path\n%+v", seed, step, what, evA, evB)
		}
	}
	return fast
}

func clonePeers(ps []Peer) []Peer {
	out := make([]Peer, len(ps))
	for i, p := range ps {
		p.Keys = append([]Key(nil), p.Keys...)
		out[i] = p
	}
	return out
}

func TestSteadyFlagExact(t *testing.T) {
	fast := 0
	for seed := int64(1); seed <= 60; seed++ {
		fast += runSteadySeq(t, seed, 600)
	}
	t.Logf("%d segments on the fast path", fast)
	if fast < 1000 {
		t.Fatalf("only %d segments on the fast path: the sequences do not exercise it", fast)
	}
}

func FuzzSteadyFlag(f *testing.F) {
	for _, s := range []int64{0, 7, 1 << 40} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seed int64) { runSteadySeq(t, seed, 300) })
}
