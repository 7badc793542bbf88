package dropwatch

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"sync"
	"testing"

	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/kdrops"
	"github.com/authbgp/authbgpd/status"
)

// ifConfig has two interface (unnumbered) TCP-MD5 peers, on eth1 and
// eth2, and a global TCP-MD5 peer.
const ifConfig = `[global]
asn = 65001
router-id = "192.0.2.1"

[[peers]]
interface = "eth1"
asn = 65011
password = "` + secretMD5 + `"

[[peers]]
interface = "eth2"
asn = 65012
password = "` + secretMD5 + `"

[[peers]]
address = "192.0.2.2"
asn = 65002
password = "` + secretMD5 + `"
`

// fakeIfNames is an injected Options.IfName: ifindex -> name, counting
// lookups.
type fakeIfNames struct {
	mu      sync.Mutex
	names   map[int]string
	lookups map[int]int
}

func (f *fakeIfNames) IfName(i int) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lookups[i]++
	if n, ok := f.names[i]; ok {
		return n, nil
	}
	return "", fmt.Errorf("route ip+net: no such network interface (ifindex %d)", i)
}

func (f *fakeIfNames) set(i int, name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if name == "" {
		delete(f.names, i)
	} else {
		f.names[i] = name
	}
}

func (f *fakeIfNames) count(i int) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lookups[i]
}

// ifIndex of the test's interfaces.
const (
	ifEth1 = 3
	ifEth2 = 4
	ifEth9 = 9 // an interface without a peer
	ifGone = 7 // no interface has it
)

func newIfRig(t *testing.T, o Options) (*rig, *fakeIfNames) {
	t.Helper()
	names := &fakeIfNames{names: map[int]string{ifEth1: "eth1", ifEth2: "eth2", ifEth9: "eth9"}, lookups: map[int]int{}}
	l, hook := logtest.NewNullLogger()
	l.SetLevel(logrus.DebugLevel)
	r := &rig{src: newFake(), clk: newClock(), logs: hook}
	o.Now = r.clk.Now
	o.IfName = names.IfName
	r.w = New(parse(t, ifConfig), r.src, nil, logrus.NewEntry(l), o)
	return r, names
}

// TestInterfacePeers: both far ends are fe80::2; the drops that came in
// on eth1 are eth1's peer's, those on eth2 eth2's, each under its ID (the
// interface name) so Merge finds them; a link-local address on an
// interface without a peer, on an ifindex no interface has, or without
// an ifindex goes to no peer, never to an interface peer.
func TestInterfacePeers(t *testing.T) {
	var demanded []string
	r, names := newIfRig(t, Options{OnDrops: func(id string, a netip.Addr, rs kdrops.Reason, n uint64) {
		demanded = append(demanded, fmt.Sprintf("%s %s %s %d", id, a, rs, n))
	}})
	r.src.addIf("fe80::2", ifEth1, kdrops.BadDigest, 3)
	r.src.addIf("fe80::2", ifEth2, kdrops.Missing, 5)
	r.src.addIf("fe80::2", ifEth9, kdrops.BadDigest, 7)  // no peer on eth9
	r.src.addIf("fe80::2", ifGone, kdrops.BadDigest, 11) // unknown ifindex
	r.src.add("fe80::2", kdrops.Unexpected, 13)          // no ifindex (kernel without skb_iif)
	r.src.add("192.0.2.2", kdrops.BadDigest, 1)
	r.poll(t)

	if c := r.peerCounts("eth1"); c[kdrops.BadDigest] != 3 || c.total() != 3 {
		t.Errorf("eth1: %v, want bad_digest 3", c)
	}
	if c := r.peerCounts("eth2"); c[kdrops.Missing] != 5 || c.total() != 5 {
		t.Errorf("eth2: %v, want missing 5", c)
	}
	if c := r.peerCounts("192.0.2.2"); c.total() != 1 {
		t.Errorf("192.0.2.2: %v", c)
	}
	if got := r.other(); got != 7+11+13 {
		t.Errorf("other = %d, want %d", got, 7+11+13)
	}
	want := []string{
		"eth1 fe80::2%eth1 bad_digest 3", "eth2 fe80::2%eth2 missing 5", " fe80::2%eth9 bad_digest 7",
		" fe80::2 bad_digest 11", " fe80::2 unexpected 13", "192.0.2.2 192.0.2.2 bad_digest 1",
	}
	if fmt.Sprint(sortedStrings(demanded)) != fmt.Sprint(sortedStrings(want)) {
		t.Errorf("OnDrops calls %q, want %q", demanded, want)
	}

	// The log names the zoned address and the peer.
	found := map[string]string{}
	for _, e := range r.logs.AllEntries() {
		found[e.Data["address"].(string)] = e.Data["peer"].(string)
	}
	for addr, peer := range map[string]string{"fe80::2%eth1": "eth1", "fe80::2%eth2": "eth2", "fe80::2%eth9": "", "fe80::2": ""} {
		if p, ok := found[addr]; !ok || p != peer {
			t.Errorf("log line for %s: peer %q (found %v), want %q", addr, p, ok, peer)
		}
	}

	// /status: each interface peer's entry gets its own counts.
	st := status.Status{Peers: []status.Peer{
		{Address: "fe80::2%eth1", Interface: "eth1", Auth: status.Auth{Mode: config.AuthMD5}},
		{Address: "fe80::2%eth2", Interface: "eth2", Auth: status.Auth{Mode: config.AuthMD5}},
	}}
	r.w.Merge(&st)
	if kd := st.Peers[0].KernelDrops; kd == nil || kd.BadDigest != 3 || kd.Missing != 0 || kd.Diagnosis != DiagBadDigest {
		t.Errorf("eth1 /status: %+v", kd)
	}
	if kd := st.Peers[1].KernelDrops; kd == nil || kd.Missing != 5 || kd.BadDigest != 0 || kd.Diagnosis != DiagMissing {
		t.Errorf("eth2 /status: %+v", kd)
	}

	// Names are cached: more drops, no new lookup of a known interface;
	// an unknown ifindex is tried again only a Window later.
	r.src.addIf("fe80::2", ifEth1, kdrops.BadDigest, 1)
	r.src.addIf("fe80::2", ifGone, kdrops.BadDigest, 1)
	r.poll(t)
	if n := names.count(ifEth1); n != 1 {
		t.Errorf("eth1 looked up %d times, want 1 (cached)", n)
	}
	if n := names.count(ifGone); n != 1 {
		t.Errorf("unknown ifindex looked up %d times within a Window, want 1", n)
	}
	// The unknown ifindex now names eth2 (the interface was made since):
	// a Window later it is looked up again and its drops go to eth2's peer.
	names.set(ifGone, "eth2")
	r.clk.advance(Window)
	r.src.addIf("fe80::2", ifGone, kdrops.Missing, 2)
	r.poll(t)
	if c := r.peerCounts("eth2"); c[kdrops.Missing] != 7 {
		t.Errorf("eth2 after its ifindex became known: %v, want missing 7", c)
	}
	if c := r.peerCounts("eth1"); c.total() != 4 {
		t.Errorf("eth1: %v, want 4", c)
	}

	// A reload looks the names up again (an interface renamed).
	names.set(ifEth1, "eth9")
	r.w.Reload(parse(t, ifConfig))
	r.src.addIf("fe80::2", ifEth1, kdrops.BadDigest, 1)
	r.poll(t)
	if c := r.peerCounts("eth1"); c.total() != 4 {
		t.Errorf("eth1 after its interface was renamed eth9: %v, want still 4", c)
	}
}

// TestInterfacePeersPollAllocs: a poll that counts nothing new, with
// link-local keys whose names are cached, allocates nothing per entry.
func TestInterfacePeersPollAllocs(t *testing.T) {
	r, _ := newIfRig(t, Options{})
	for i := range 50 {
		r.src.addIf(fmt.Sprintf("fe80::%x", i+2), ifEth1, kdrops.BadDigest, 1)
		r.src.addIf(fmt.Sprintf("fe80::%x", i+2), ifEth2, kdrops.BadDigest, 1)
	}
	r.poll(t)
	// The fake source's Read allocates (it sorts); count the Watcher's
	// own part: zoned on a cached name.
	k := kdrops.Key{Addr: netip.MustParseAddr("fe80::2"), Reason: kdrops.BadDigest, IfIndex: ifEth1}
	now := r.clk.Now()
	r.w.pollMu.Lock()
	defer r.w.pollMu.Unlock()
	if n := testing.AllocsPerRun(100, func() { _ = r.w.zoned(k, now) }); n != 0 {
		t.Errorf("zoned on a cached name: %v allocations, want 0", n)
	}
}

// TestIfIndexErrLogged: a Source whose link-local drops come without
// their interface says so once, at New.
func TestIfIndexErrLogged(t *testing.T) {
	l, hook := logtest.NewNullLogger()
	src := &ifErrSource{fakeSource: newFake(), err: errors.New("kdrops: link-local drops are counted without their interface (ifindex 0): no skb_iif")}
	w := New(parse(t, ifConfig), src, nil, logrus.NewEntry(l), Options{})
	for range 3 {
		if err := w.Poll(); err != nil {
			t.Fatal(err)
		}
	}
	var n int
	for _, e := range hook.AllEntries() {
		if e.Level == logrus.WarnLevel && e.Data[logrus.ErrorKey] != nil {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d warnings, want 1: %v", n, msgs(hook.AllEntries()))
	}
}

type ifErrSource struct {
	*fakeSource
	err error
}

func (s *ifErrSource) IfIndexErr() error { return s.err }

func sortedStrings(ss []string) []string {
	out := slices.Clone(ss)
	slices.Sort(out)
	return out
}
