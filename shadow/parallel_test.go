package shadow

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/md5auth"
)

// mixedCapture writes a raw-IP pcap of n segments between our 192.0.2.1
// and many peers (exact peers with keychains and passwords, a dynamic
// range, an unknown address), interleaved at random, signed with the
// right key, another key of the chain, a wrong key or none, in both
// directions and on several connections per peer: every verdict and
// diagnosis the checker has, for many remote addresses at once.
func mixedCapture(t testing.TB, dir string, seed uint64, n int) ([]Peer, string) {
	return mixedCaptureSized(t, dir, seed, n, 60)
}

// mixedCaptureSized is mixedCapture with payloads of up to maxPayload bytes.
func mixedCaptureSized(t testing.TB, dir string, seed uint64, n, maxPayload int) ([]Peer, string) {
	t.Helper()
	past := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var peers []Peer
	var remotes []netip.Addr
	for i := range 12 {
		a := netip.AddrFrom4([4]byte{192, 0, 2, byte(10 + i)})
		p := addrPeer(a.String(), Key{ID: 1, Secret: []byte("k1"), SendFrom: past}, Key{ID: 2, Secret: []byte("k2"), SendFrom: past.Add(24 * time.Hour)})
		if i%3 == 0 {
			p = addrPeer(a.String(), pw("pw"))
		}
		peers = append(peers, p)
		remotes = append(remotes, a)
	}
	peers = append(peers, Peer{ID: "198.51.100.0/24", Prefix: netip.MustParsePrefix("198.51.100.0/24"), Keys: []Key{pw("pw")}, Pinned: -1})
	for i := range 20 {
		remotes = append(remotes, netip.AddrFrom4([4]byte{198, 51, 100, byte(1 + i)}))
	}
	remotes = append(remotes, netip.MustParseAddr("203.0.113.9")) // no peer
	secrets := [][]byte{[]byte("k1"), []byte("k2"), []byte("pw"), []byte("wrong"), nil}
	local := netip.MustParseAddr("192.0.2.1")
	rng := rand.New(rand.NewPCG(seed, 7))
	d := md5auth.NewDigester()
	var out []byte
	out = binary.LittleEndian.AppendUint32(out, 0xa1b2c3d4)
	out = binary.LittleEndian.AppendUint16(out, 2)
	out = binary.LittleEndian.AppendUint16(out, 4)
	out = append(out, make([]byte, 8)...)
	out = binary.LittleEndian.AppendUint32(out, 65535)
	out = binary.LittleEndian.AppendUint32(out, 101) // LINKTYPE_RAW
	ts := past.Add(12 * time.Hour)
	for i := range n {
		r := remotes[rng.IntN(len(remotes))]
		// Peers mostly stick to one key, so diagnoses settle and change.
		k := secrets[(int(r.As4()[3])+i/200+rng.IntN(4)/3)%len(secrets)]
		src, dst, sport, dport := r, local, uint16(179), uint16(40000+rng.IntN(3))
		if rng.IntN(4) == 0 {
			src, dst, sport, dport = local, r, dport, sport
		}
		pkt := rawSegment(t, d, src, dst, sport, dport, k, rng.IntN(maxPayload))
		ts = ts.Add(time.Duration(rng.IntN(5000)) * time.Microsecond)
		out = binary.LittleEndian.AppendUint32(out, uint32(ts.Unix()))
		out = binary.LittleEndian.AppendUint32(out, uint32(ts.Nanosecond()/1000))
		out = binary.LittleEndian.AppendUint32(out, uint32(len(pkt)))
		out = binary.LittleEndian.AppendUint32(out, uint32(len(pkt)))
		out = append(out, pkt...)
	}
	name := filepath.Join(dir, fmt.Sprintf("mixed-%d.pcap", seed))
	if err := os.WriteFile(name, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return peers, name
}

// rawSegment is an IPv4 packet with a TCP segment, signed with key (nil:
// no MD5 option).
func rawSegment(t testing.TB, d *md5auth.Digester, src, dst netip.Addr, sport, dport uint16, key []byte, payload int) []byte {
	hl := 20
	if key != nil {
		hl = 40
	}
	seg := make([]byte, hl+payload)
	binary.BigEndian.PutUint16(seg[0:], sport)
	binary.BigEndian.PutUint16(seg[2:], dport)
	seg[12] = byte(hl/4) << 4
	seg[13] = 0x18
	if key != nil {
		copy(seg[20:], []byte{1, 1, 19, 18})
		sig, err := d.Sum(nil, src, dst, seg, key)
		if err != nil {
			t.Fatal(err)
		}
		copy(seg[24:40], sig)
	}
	ip := make([]byte, 20, 20+len(seg))
	ip[0] = 0x45
	binary.BigEndian.PutUint16(ip[2:], uint16(20+len(seg)))
	ip[8], ip[9] = 64, 6
	copy(ip[12:16], src.AsSlice())
	copy(ip[16:20], dst.AsSlice())
	return append(ip, seg...)
}

// sequential is what one Checker reading the files in order says.
func sequential(t *testing.T, peers []Peer, o Options, names []string) ([]FileStats, []PeerReport) {
	t.Helper()
	c := New(peers, o)
	var stats []FileStats
	for _, n := range names {
		f, err := os.Open(n)
		if err != nil {
			t.Fatal(err)
		}
		st, err := ReadCapture(f, c, nil)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		stats = append(stats, st)
	}
	return stats, c.Reports(time.Time{})
}

// TestOfflineMatchesSequential: on any number of workers, Offline gives
// exactly the stats and reports of one Checker reading the files in order.
func TestOfflineMatchesSequential(t *testing.T) {
	dir := t.TempDir()
	peers, a := mixedCapture(t, dir, 1, 6000)
	_, b := mixedCapture(t, dir, 2, 3000)
	names := []string{a, "../capture/capfile/testdata/basic_usec.pcap", b}
	o := Options{IdleAfter: -1}
	wantStats, wantReps := sequential(t, peers, o, names)
	diags := map[string]bool{}
	for _, r := range wantReps {
		diags[r.Diagnosis] = true
	}
	if len(wantReps) < 25 || len(diags) < 4 {
		t.Fatalf("the capture is too plain: %d addresses, diagnoses %v", len(wantReps), diags)
	}
	for _, w := range []int{1, 2, 3, 8} {
		stats, reps, err := Offline{Peers: peers, Options: o, Workers: w}.Run(names)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(stats, wantStats) {
			t.Errorf("%d workers: stats %+v, want %+v", w, stats, wantStats)
		}
		if !reflect.DeepEqual(reps, wantReps) {
			for i := range min(len(reps), len(wantReps)) {
				if !reflect.DeepEqual(reps[i], wantReps[i]) {
					t.Errorf("%d workers: report %d\n got %+v\nwant %+v", w, i, reps[i], wantReps[i])
					break
				}
			}
			t.Errorf("%d workers: %d reports, want %d", w, len(reps), len(wantReps))
		}
	}
	t.Logf("%d addresses, diagnoses %v, stats %+v", len(wantReps), diags, wantStats)
}

// TestOfflinePipe: a capture that can be read only once (a pipe) is read
// by one worker, with the same result.
func TestOfflinePipe(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no /dev/fd")
	}
	dir := t.TempDir()
	peers, a := mixedCapture(t, dir, 4, 2000)
	o := Options{IdleAfter: -1}
	wantStats, wantReps := sequential(t, peers, o, []string{a})
	b, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		w.Write(b)
		w.Close()
	}()
	stats, reps, err := Offline{Peers: peers, Options: o, Workers: 2}.Run([]string{fmt.Sprintf("/dev/fd/%d", r.Fd())})
	if err != nil || !reflect.DeepEqual(stats, wantStats) || !reflect.DeepEqual(reps, wantReps) {
		t.Fatalf("through a pipe: %v, stats %+v (want %+v), %d reports (want %d)", err, stats, wantStats, len(reps), len(wantReps))
	}
}

// TestOfflineFileErrors: a missing file and a truncated one stop the run
// with a FileError that says which, like the sequential reader.
func TestOfflineFileErrors(t *testing.T) {
	dir := t.TempDir()
	peers, a := mixedCapture(t, dir, 3, 100)
	b, _ := os.ReadFile(a)
	cut := filepath.Join(dir, "cut.pcap")
	os.WriteFile(cut, b[:len(b)-7], 0o644)
	_, _, err := Offline{Peers: peers, Workers: 2}.Run([]string{a, filepath.Join(dir, "nope.pcap")})
	var fe *FileError
	if !errors.As(err, &fe) || !fe.Open || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	_, _, err = Offline{Peers: peers, Workers: 2}.Run([]string{cut})
	if !errors.As(err, &fe) || fe.Open || fe.Name != cut || fe.Error() != cut+": shadow: after 99 packets: "+errors.Unwrap(errors.Unwrap(err)).Error() {
		t.Fatalf("truncated file: %v", err)
	}
}

// BenchmarkOffline: verify-pcap's engine on one core (GOMAXPROCS=1, so one
// worker, as `GOMAXPROCS=1 authbgpd verify-pcap` runs)
// and on all of them (GOMAXPROCS workers) over the same 100k-segment
// capture (payloads up to 1,000 bytes, as BGP UPDATEs), timed alternately
// in the same run; x-speedup is the one-core time over the all-core time.
func BenchmarkOffline(b *testing.B) {
	peers, name := mixedCaptureSized(b, b.TempDir(), 9, 100_000, 1000)
	st, _ := os.Stat(name)
	procs := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(procs)
	b.ReportAllocs()
	b.SetBytes(st.Size())
	b.ResetTimer()
	var one, all time.Duration
	for i := 0; i < b.N; i++ {
		for _, p := range []int{1, procs} {
			runtime.GOMAXPROCS(p)
			t0 := time.Now()
			if _, _, err := (Offline{Peers: peers, Options: Options{IdleAfter: -1}}).Run([]string{name}); err != nil {
				b.Fatal(err)
			}
			if p == 1 {
				one += time.Since(t0)
			} else {
				all += time.Since(t0)
			}
		}
	}
	b.ReportMetric(float64(one)/float64(all), "x-speedup")
}
