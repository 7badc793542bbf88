package dropwatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/kdrops"
	"github.com/authbgp/authbgpd/status"
)

// TestDeltas: cumulative counts become deltas, counted once; a count that
// goes down restarts from 0.
func TestDeltas(t *testing.T) {
	r := newRig(t, Options{})
	r.src.add("192.0.2.2", kdrops.BadDigest, 4)
	r.poll(t)
	r.poll(t) // nothing moved: nothing counted twice
	if got := r.peerCounts("192.0.2.2")[kdrops.BadDigest]; got != 4 {
		t.Fatalf("after 4 drops: bad_digest = %d, want 4", got)
	}
	r.src.add("192.0.2.2", kdrops.BadDigest, 3)
	r.src.add("192.0.2.2", kdrops.Missing, 1)
	r.poll(t)
	c := r.peerCounts("192.0.2.2")
	if c[kdrops.BadDigest] != 7 || c[kdrops.Missing] != 1 || c.total() != 8 {
		t.Fatalf("after 3+1 more: %v, want bad_digest 7, missing 1", c)
	}
	// The Source restarted (a reopened counter): its 2 are new drops.
	r.src.set("192.0.2.2", kdrops.BadDigest, 2)
	r.poll(t)
	if got := r.peerCounts("192.0.2.2")[kdrops.BadDigest]; got != 9 {
		t.Fatalf("after the source restarted at 2: bad_digest = %d, want 9", got)
	}
}

// TestAttribution: a static peer by exact address; a range address to
// the most specific range, with its own session counts; the rest (and the
// overflow slot) to other.
func TestAttribution(t *testing.T) {
	r := newRig(t, Options{})
	r.src.add("192.0.2.2", kdrops.BadDigest, 1)
	r.src.add("2001:db8::2", kdrops.Missing, 2)
	r.src.add("198.51.100.7", kdrops.Unexpected, 3)    // the /24 only
	r.src.add("198.51.100.8", kdrops.Unexpected, 4)    // the /24 only
	r.src.add("198.51.100.200", kdrops.BadDigest, 5)   // the /25 too: most specific wins
	r.src.add("203.0.113.5", kdrops.BadDigest, 6)      // no peer
	r.src.add("", kdrops.Missing, 7)                   // address not recorded
	r.src.add("192.0.2.9", kdrops.Unexpected, 8)       // an unkeyed peer that signs
	r.src.add("192.0.2.6", kdrops.AOKeyNotFound, 9)    // the TCP-AO peer
	r.src.add("::ffff:192.0.2.2", kdrops.BadOption, 1) // mapped: the same peer
	r.poll(t)

	if c := r.peerCounts("192.0.2.2"); c[kdrops.BadDigest] != 1 || c[kdrops.BadOption] != 1 || c.total() != 2 {
		t.Errorf("192.0.2.2: %v", c)
	}
	if c := r.peerCounts("2001:db8::2"); c[kdrops.Missing] != 2 || c.total() != 2 {
		t.Errorf("2001:db8::2: %v", c)
	}
	if c := r.peerCounts("198.51.100.0/24"); c[kdrops.Unexpected] != 7 || c.total() != 7 {
		t.Errorf("198.51.100.0/24 sums its sessions: %v, want unexpected 7", c)
	}
	if c := r.peerCounts("198.51.100.128/25"); c[kdrops.BadDigest] != 5 || c.total() != 5 {
		t.Errorf("198.51.100.128/25: %v, want bad_digest 5", c)
	}
	if c, ok := r.sessionCounts("198.51.100.0/24", "198.51.100.7"); !ok || c[kdrops.Unexpected] != 3 {
		t.Errorf("session 198.51.100.7: %v %v, want unexpected 3", c, ok)
	}
	if _, ok := r.sessionCounts("198.51.100.0/24", "198.51.100.200"); ok {
		t.Error("198.51.100.200 is a session of the /24, want the /25's")
	}
	if c := r.peerCounts("192.0.2.9"); c[kdrops.Unexpected] != 8 {
		t.Errorf("unkeyed 192.0.2.9: %v, want unexpected 8", c)
	}
	if c := r.peerCounts("192.0.2.6"); c[kdrops.AOKeyNotFound] != 9 {
		t.Errorf("192.0.2.6: %v", c)
	}
	if got := r.other(); got != 13 {
		t.Errorf("other = %d, want 13 (6 from 203.0.113.5, 7 unrecorded)", got)
	}
}

// TestDiagnosisWindow: the reason of most drops in the last minute, ties
// to the latest; empty after a quiet minute.
func TestDiagnosisWindow(t *testing.T) {
	r := newRig(t, Options{})
	diag := func() string {
		r.w.mu.Lock()
		defer r.w.mu.Unlock()
		return Diagnosis(r.w.peers["192.0.2.2"].diagnosis(r.clk.Now()))
	}
	if d := diag(); d != "" {
		t.Fatalf("before any drop: %q", d)
	}
	r.src.add("192.0.2.2", kdrops.BadDigest, 5)
	r.poll(t)
	if d := diag(); d != DiagBadDigest {
		t.Fatalf("after 5 bad digests: %q", d)
	}
	r.clk.advance(30 * time.Second)
	r.src.add("192.0.2.2", kdrops.Missing, 3)
	r.poll(t)
	if d := diag(); d != DiagBadDigest {
		t.Fatalf("5 bad digests, 3 missing in the minute: %q, want bad-digest", d)
	}
	r.clk.advance(31 * time.Second) // the bad digests are 61 s old
	if d := diag(); d != DiagMissing {
		t.Fatalf("the bad digests left the window: %q, want missing", d)
	}
	// A tie goes to the reason that moved last.
	r.src.add("192.0.2.2", kdrops.Unexpected, 3)
	r.poll(t)
	if d := diag(); d != DiagUnexpected {
		t.Fatalf("3 missing, then 3 unexpected: %q, want unexpected", d)
	}
	r.clk.advance(Window)
	if d := diag(); d != "" {
		t.Fatalf("after a quiet minute: %q, want empty", d)
	}
	if c := r.peerCounts("192.0.2.2"); c.total() != 11 {
		t.Fatalf("the counts stay: %v", c)
	}
}

// TestDiagnosisNames: every reason has its diagnosis and log text.
func TestDiagnosisNames(t *testing.T) {
	want := map[kdrops.Reason][2]string{
		kdrops.BadDigest:     {"bad-digest", "bad TCP-MD5 digest"},
		kdrops.Missing:       {"missing", "no TCP-MD5 signature"},
		kdrops.Unexpected:    {"unexpected", "unexpected TCP-MD5 signature"},
		kdrops.BadOption:     {"bad-option", "bad TCP option"},
		kdrops.AOBad:         {"bad-mac", "bad TCP-AO MAC"},
		kdrops.AOKeyNotFound: {"unknown-key", "unknown TCP-AO key"},
		kdrops.AORequired:    {"missing", "no TCP-AO signature"},
	}
	for _, r := range kdrops.Reasons() {
		if got := [2]string{Diagnosis(r), Text(r)}; got != want[r] {
			t.Errorf("%s: %q, want %q", r, got, want[r])
		}
	}
	if len(want) != len(kdrops.Reasons()) || Diagnosis(0) != "" {
		t.Error("reasons and diagnoses disagree")
	}
}

// TestLogRateLimit: one line per address when its count moves, then at
// most one per LogEvery, summing what it held back; fields; no secret.
func TestLogRateLimit(t *testing.T) {
	r := newRig(t, Options{LogEvery: time.Minute})
	r.src.add("192.0.2.6", kdrops.AOBad, 1)
	r.src.add("192.0.2.2", kdrops.BadDigest, 4)
	r.poll(t)
	lines := r.logs.AllEntries()
	if len(lines) != 2 {
		t.Fatalf("first drops: %d lines, want 2: %v", len(lines), msgs(lines))
	}
	e := lines[0]
	if e.Message != "kernel dropped 4 segments from 192.0.2.2: bad TCP-MD5 digest" || e.Level != logrus.WarnLevel {
		t.Errorf("line %q (%s)", e.Message, e.Level)
	}
	wantFields := logrus.Fields{"peer": "192.0.2.2", "address": "192.0.2.2", "reason": "bad_digest", "count": uint64(4)}
	for k, v := range wantFields {
		if e.Data[k] != v {
			t.Errorf("field %s = %v (%T), want %v", k, e.Data[k], e.Data[k], v)
		}
	}
	if lines[1].Message != "kernel dropped 1 segment from 192.0.2.6: bad TCP-AO MAC" {
		t.Errorf("line %q", lines[1].Message)
	}
	r.logs.Reset()

	// Within the minute: held back.
	for range 5 {
		r.clk.advance(10 * time.Second)
		r.src.add("192.0.2.2", kdrops.BadDigest, 2)
		r.poll(t)
	}
	r.src.add("192.0.2.2", kdrops.BadOption, 1)
	r.poll(t)
	if n := len(r.logs.AllEntries()); n != 0 {
		t.Fatalf("within LogEvery: %d lines, want 0: %v", n, msgs(r.logs.AllEntries()))
	}
	// The minute is over: one line sums what was held, even with no new
	// drop in this poll.
	r.clk.advance(10 * time.Second)
	r.poll(t)
	lines = r.logs.AllEntries()
	if len(lines) != 1 {
		t.Fatalf("after LogEvery: %d lines, want 1: %v", len(lines), msgs(lines))
	}
	if lines[0].Message != "kernel dropped 11 segments from 192.0.2.2: 10 bad TCP-MD5 digest, 1 bad TCP option" ||
		lines[0].Data["count"] != uint64(11) || lines[0].Data["reason"] != "bad_digest,bad_option" {
		t.Errorf("held-back line: %q %v", lines[0].Message, lines[0].Data)
	}
	r.logs.Reset()
	r.clk.advance(2 * time.Minute)
	r.poll(t)
	if n := len(r.logs.AllEntries()); n != 0 {
		t.Fatalf("nothing held: %d lines", n)
	}
	// Quiet for a LogEvery: the next drop logs at once.
	r.src.add("192.0.2.2", kdrops.Missing, 1)
	r.src.add("203.0.113.5", kdrops.Unexpected, 2)
	r.src.add("", kdrops.Missing, 3)
	r.poll(t)
	lines = r.logs.AllEntries()
	if len(lines) != 3 || lines[0].Message != "kernel dropped 3 segments from addresses the kernel-side table could not record: no TCP-MD5 signature" ||
		lines[1].Message != "kernel dropped 1 segment from 192.0.2.2: no TCP-MD5 signature" ||
		lines[2].Message != "kernel dropped 2 segments from 203.0.113.5: unexpected TCP-MD5 signature" || lines[2].Data["peer"] != "" {
		t.Errorf("after a quiet spell: %v", msgs(lines))
	}
	for _, e := range r.logs.AllEntries() {
		s, _ := e.String()
		for _, sec := range []string{secretMD5, secretAO, secretRange} {
			if strings.Contains(s, sec) {
				t.Fatalf("a log line holds a secret: %s", s)
			}
		}
	}
}

func msgs(es []*logrus.Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Message)
	}
	return out
}

// TestReload: a removed peer loses its counts and series; configured
// again it starts at 0; a kept peer keeps them; a range forgets the
// sessions that now belong to another peer.
func TestReload(t *testing.T) {
	r := newRig(t, Options{})
	r.src.add("192.0.2.2", kdrops.BadDigest, 4)
	r.src.add("192.0.2.6", kdrops.AOBad, 2)
	r.src.add("198.51.100.7", kdrops.Missing, 3)
	r.poll(t)

	without := strings.Replace(testConfig, "address = \"192.0.2.2\"\n", "address = \"192.0.2.3\"\n", 1)
	without += "\n[[peers]]\naddress = \"198.51.100.7\"\nasn = 65107\npassword = \"" + secretMD5 + "\"\n"
	r.w.Reload(parse(t, without))
	for _, s := range r.w.MetricSeries() {
		if s.Peer == "192.0.2.2" {
			t.Fatalf("the removed peer has a series: %+v", s)
		}
	}
	if c := r.peerCounts("192.0.2.6"); c[kdrops.AOBad] != 2 {
		t.Errorf("the kept peer lost its counts: %v", c)
	}
	if c := r.peerCounts("198.51.100.0/24"); c[kdrops.Missing] != 3 {
		t.Errorf("the range's own sum is a counter and stays: %v", c)
	}
	if _, ok := r.sessionCounts("198.51.100.0/24", "198.51.100.7"); ok {
		t.Error("198.51.100.7 is a static peer now, yet still a session of the range")
	}
	// Drops of 192.0.2.2 while it is not configured are other's.
	r.src.add("192.0.2.2", kdrops.BadDigest, 1)
	r.src.add("198.51.100.7", kdrops.Missing, 1)
	r.poll(t)
	if got := r.other(); got != 1 {
		t.Errorf("other = %d, want 1", got)
	}
	if c := r.peerCounts("198.51.100.7"); c[kdrops.Missing] != 1 {
		t.Errorf("the new static peer counts from 0: %v", c)
	}
	r.w.Reload(parse(t, testConfig))
	series := map[string]uint64{}
	for _, s := range r.w.MetricSeries() {
		series[s.Peer+"/"+s.Reason] = s.Count
	}
	if n, ok := series["192.0.2.2/bad_digest"]; !ok || n != 0 {
		t.Errorf("configured again: 192.0.2.2/bad_digest = %d (present %v), want 0", n, ok)
	}
	if _, ok := series["198.51.100.7/missing"]; ok {
		t.Error("the static peer removed again keeps its series")
	}
}

// TestMerge: /status gets the counts of every keyed peer (zeros included),
// the TCP-AO reasons only for TCP-AO peers, each session its own, a
// range's entry the sum (with an address GoBGP does not list, which gets
// no entry of its own), and the namespace's other total.
func TestMerge(t *testing.T) {
	r := newRig(t, Options{})
	r.src.tps = []string{"tcp_hash_md5_mismatch", "tcp_hash_md5_required"}
	r.w = New(parse(t, testConfig), r.src, nil, nil, Options{Now: r.clk.Now})
	r.src.add("192.0.2.2", kdrops.BadDigest, 4)
	r.src.add("198.51.100.7", kdrops.Unexpected, 3)
	r.src.add("198.51.100.8", kdrops.Missing, 2) // GoBGP has no session for it
	r.src.add("203.0.113.5", kdrops.BadDigest, 6)
	r.poll(t)
	at := r.clk.Now()
	r.clk.advance(5 * time.Second)

	md5 := status.Auth{Mode: config.AuthMD5, Source: "password", Installed: true}
	st := status.Status{Peers: []status.Peer{
		{Address: "192.0.2.2", ASN: 65002, State: "established", Auth: md5},
		{Address: "192.0.2.6", ASN: 65006, State: "idle", Auth: status.Auth{Mode: config.AuthTCPAO}},
		{Address: "192.0.2.9", ASN: 65009, State: "idle", Auth: status.Auth{Mode: config.AuthNone}},
		{Address: "2001:db8::2", ASN: 65020, State: "idle", Auth: md5},
		{Address: "198.51.100.0/24", Prefix: "198.51.100.0/24", ASN: 65100, State: "listening", Auth: md5},
		{Address: "198.51.100.7", Prefix: "198.51.100.0/24", ASN: 65100, State: "active", Auth: md5},
		{Address: "198.51.100.9", Prefix: "198.51.100.0/24", ASN: 65100, State: "established", Auth: md5},
		{Address: "198.51.100.128/25", Prefix: "198.51.100.128/25", ASN: 65128, State: "listening", Auth: md5},
	}}
	r.w.Merge(&st)
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Peers []struct {
			Address     string         `json:"address"`
			Prefix      string         `json:"prefix"`
			ASN         uint32         `json:"asn"`
			State       string         `json:"state"`
			KernelDrops map[string]any `json:"kernel_drops"`
		} `json:"peers"`
		KernelDrops map[string]any `json:"kernel_drops"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]any{}
	for _, p := range doc.Peers {
		got[p.Address] = p.KernelDrops
	}
	zeroMD5 := map[string]any{"bad_digest": 0.0, "missing": 0.0, "unexpected": 0.0, "bad_option": 0.0, "diagnosis": ""}
	with := func(m map[string]any, kv ...any) map[string]any {
		out := map[string]any{}
		for k, v := range m {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i].(string)] = kv[i+1]
		}
		return out
	}
	last := at.UTC().Format(time.RFC3339)
	want := map[string]map[string]any{
		"192.0.2.2":         with(zeroMD5, "bad_digest", 4.0, "diagnosis", "bad-digest", "last_drop", last),
		"192.0.2.6":         with(zeroMD5, "ao_bad", 0.0, "ao_key_not_found", 0.0, "ao_required", 0.0),
		"192.0.2.9":         nil, // unkeyed, nothing dropped
		"2001:db8::2":       zeroMD5,
		"198.51.100.0/24":   with(zeroMD5, "unexpected", 3.0, "missing", 2.0, "diagnosis", "unexpected", "last_drop", last),
		"198.51.100.7":      with(zeroMD5, "unexpected", 3.0, "diagnosis", "unexpected", "last_drop", last),
		"198.51.100.9":      zeroMD5,
		"198.51.100.128/25": zeroMD5,
	}
	if len(got) != len(want) {
		t.Errorf("peers %v, want %d", keys(got), len(want))
	}
	for addr, w := range want {
		if g := got[addr]; fmt.Sprint(g) != fmt.Sprint(w) {
			t.Errorf("%s: kernel_drops\n got %v\nwant %v", addr, g, w)
		}
	}
	if len(st.Peers) != 8 {
		t.Errorf("Merge changed the peers: %d, want the 8 given", len(st.Peers))
	}
	wantTop := map[string]any{"available": true, "error": "", "tracepoints": []any{"tcp_hash_md5_mismatch", "tcp_hash_md5_required"}, "other": 6.0, "missed": 0.0}
	if fmt.Sprint(doc.KernelDrops) != fmt.Sprint(wantTop) {
		t.Errorf("top-level kernel_drops %v, want %v", doc.KernelDrops, wantTop)
	}
	if strings.Contains(string(b), secretMD5) || strings.Contains(string(b), secretRange) {
		t.Fatal("/status holds a secret")
	}

	// The TCP-AO reasons show on a TCP-MD5 peer once one moved (it signs
	// with TCP-AO), and an unkeyed peer that signs gets kernel_drops.
	r.src.add("192.0.2.2", kdrops.AOKeyNotFound, 9)
	r.src.add("192.0.2.9", kdrops.Unexpected, 1)
	r.poll(t)
	st2 := status.Status{Peers: []status.Peer{
		{Address: "192.0.2.2", Auth: md5},
		{Address: "192.0.2.9", Auth: status.Auth{Mode: config.AuthNone}},
	}}
	r.w.Merge(&st2)
	if kd := st2.Peers[0].KernelDrops; kd == nil || kd.AOKeyNotFound == nil || *kd.AOKeyNotFound != 9 || *kd.AOBad != 0 || kd.Diagnosis != DiagUnknownKey {
		t.Errorf("TCP-MD5 peer signing with TCP-AO: %+v", kd)
	}
	if kd := st2.Peers[1].KernelDrops; kd == nil || kd.Unexpected != 1 || kd.AOBad != nil || kd.Diagnosis != DiagUnexpected {
		t.Errorf("unkeyed peer that signs: %+v", kd)
	}

	// After a quiet minute the diagnosis is gone, the counts and
	// last_drop stay.
	r.clk.advance(Window)
	st3 := status.Status{Peers: []status.Peer{{Address: "192.0.2.2", Auth: md5}}}
	r.w.Merge(&st3)
	if kd := st3.Peers[0].KernelDrops; kd.Diagnosis != "" || kd.BadDigest != 4 || kd.LastDrop == "" {
		t.Errorf("after a quiet minute: %+v", kd)
	}
}

func keys(m map[string]map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestUnavailable: no Source: one warning, a clear /status line, no peer
// kernel_drops, no series; Run returns.
func TestUnavailable(t *testing.T) {
	l, hook := logtest.NewNullLogger()
	openErr := fmt.Errorf("kdrops: load the program for tracepoint tcp_hash_md5_mismatch: %w: needs CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN, in the initial user namespace (operation not permitted)", kdrops.ErrPermission)
	w := New(parse(t, testConfig), nil, openErr, logrus.NewEntry(l), Options{})
	const text = "kernel drop counters unavailable: needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN): operation not permitted"
	st := status.Status{Peers: []status.Peer{{Address: "192.0.2.2", Auth: status.Auth{Mode: config.AuthMD5}}}}
	w.Merge(&st)
	w.Merge(&st)
	if kd := st.KernelDrops; kd == nil || kd.Available || kd.Error != text || kd.Tracepoints == nil || len(kd.Tracepoints) != 0 {
		t.Errorf("status: %+v", kd)
	}
	if st.Peers[0].KernelDrops != nil {
		t.Error("a peer has kernel_drops while unavailable")
	}
	if err := w.Poll(); !errors.Is(err, ErrUnavailable) || !errors.Is(err, kdrops.ErrPermission) {
		t.Errorf("Poll: %v", err)
	}
	done := make(chan struct{})
	go func() { w.Run(context.Background()); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return while unavailable")
	}
	if w.MetricSeries() != nil {
		t.Error("series while unavailable")
	}
	if n := len(hook.AllEntries()); n != 1 || !strings.HasPrefix(hook.LastEntry().Message, text) || hook.LastEntry().Level != logrus.WarnLevel {
		t.Errorf("%d log lines, want one warning: %v", n, msgs(hook.AllEntries()))
	}

	unsup := fmt.Errorf("kdrops: load kernel BTF (needs CONFIG_DEBUG_INFO_BTF, /sys/kernel/btf/vmlinux): %w (no such file)", kdrops.ErrUnsupported)
	w = New(nil, nil, unsup, nil, Options{})
	w.Merge(&st)
	if want := "kernel drop counters unavailable: load kernel BTF (needs CONFIG_DEBUG_INFO_BTF, /sys/kernel/btf/vmlinux): kernel drop counters are not supported (no such file)"; st.KernelDrops.Error != want {
		t.Errorf("unsupported: %q, want %q", st.KernelDrops.Error, want)
	}
}

// TestReadError: a failing read keeps the counts and says so in /status
// until a read succeeds; logged once.
func TestReadError(t *testing.T) {
	r := newRig(t, Options{})
	r.src.add("192.0.2.2", kdrops.BadDigest, 4)
	r.poll(t)
	r.logs.Reset()
	r.src.fail(errTest)
	for range 3 {
		if err := r.w.Poll(); !errors.Is(err, errTest) {
			t.Fatalf("Poll: %v", err)
		}
	}
	var st status.Status
	r.w.Merge(&st)
	if !st.KernelDrops.Available || st.KernelDrops.Error != "kernel drop counters: read: test error" {
		t.Errorf("while failing: %+v", st.KernelDrops)
	}
	if n := len(r.logs.AllEntries()); n != 1 {
		t.Errorf("%d lines for 3 failed reads, want 1", n)
	}
	r.src.fail(nil)
	r.src.add("192.0.2.2", kdrops.BadDigest, 1)
	r.poll(t)
	r.w.Merge(&st)
	if st.KernelDrops.Error != "" || r.peerCounts("192.0.2.2")[kdrops.BadDigest] != 5 {
		t.Errorf("after recovery: %+v, %v", st.KernelDrops, r.peerCounts("192.0.2.2"))
	}
}

// TestBaseline: with Baseline the first poll only records the counts.
func TestBaseline(t *testing.T) {
	for _, baseline := range []bool{false, true} {
		r := newRig(t, Options{Baseline: baseline})
		r.src.add("192.0.2.2", kdrops.BadDigest, 100)
		r.poll(t)
		r.src.add("192.0.2.2", kdrops.BadDigest, 2)
		r.poll(t)
		want := uint64(102)
		if baseline {
			want = 2
		}
		if got := r.peerCounts("192.0.2.2")[kdrops.BadDigest]; got != want {
			t.Errorf("baseline %v: %d, want %d", baseline, got, want)
		}
	}
}

// TestOnDrops: called with each moved (address, reason) and its growth,
// never for the unrecorded-address slot.
func TestOnDrops(t *testing.T) {
	type call struct {
		peer string
		addr netip.Addr
		r    kdrops.Reason
		n    uint64
	}
	var calls []call
	r := newRig(t, Options{OnDrops: func(p string, a netip.Addr, rs kdrops.Reason, n uint64) {
		calls = append(calls, call{p, a, rs, n})
	}})
	r.src.add("192.0.2.2", kdrops.BadDigest, 4)
	r.src.add("198.51.100.200", kdrops.Missing, 1)
	r.src.add("203.0.113.5", kdrops.Unexpected, 2)
	r.src.add("", kdrops.Missing, 3)
	r.poll(t)
	r.src.add("192.0.2.2", kdrops.BadDigest, 1)
	r.poll(t)
	r.poll(t)
	want := []call{
		{"192.0.2.2", netip.MustParseAddr("192.0.2.2"), kdrops.BadDigest, 4},
		{"198.51.100.128/25", netip.MustParseAddr("198.51.100.200"), kdrops.Missing, 1},
		{"", netip.MustParseAddr("203.0.113.5"), kdrops.Unexpected, 2},
		{"192.0.2.2", netip.MustParseAddr("192.0.2.2"), kdrops.BadDigest, 1},
	}
	if fmt.Sprint(calls) != fmt.Sprint(want) {
		t.Errorf("calls\n got %v\nwant %v", calls, want)
	}
}

// TestConcurrent: Run, Merge, MetricSeries and Reload at once (-race).
func TestConcurrent(t *testing.T) {
	r := newRig(t, Options{Interval: time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { r.w.Run(ctx) })
	cfg := parse(t, testConfig)
	for i := range 200 {
		r.src.add("192.0.2.2", kdrops.BadDigest, 1)
		r.src.add(fmt.Sprintf("198.51.100.%d", i%250+1), kdrops.Missing, 1)
		st := status.Status{Peers: []status.Peer{{Address: "192.0.2.2", Auth: status.Auth{Mode: config.AuthMD5}}}}
		r.w.Merge(&st)
		_ = r.w.MetricSeries()
		if i%50 == 0 {
			r.w.Reload(cfg)
		}
	}
	cancel()
	wg.Wait()
	r.poll(t)
	if got := r.peerCounts("192.0.2.2")[kdrops.BadDigest]; got != 200 {
		t.Errorf("bad_digest = %d, want 200", got)
	}
}

// TestMissed: the runs the kernel skipped (drops that were not counted)
// are summed into /status kernel_drops.missed and logged once per rise;
// with Baseline the first poll only records them; failing to read them
// is logged once and does not stop the counts.
func TestMissed(t *testing.T) {
	missLines := func(r *rig) (n int, skipped []any) {
		for _, e := range r.logs.AllEntries() {
			if strings.Contains(e.Message, "skipped runs") {
				n++
				skipped = append(skipped, e.Data["skipped"])
			}
		}
		return n, skipped
	}
	missed := func(r *rig) uint64 {
		var st status.Status
		r.w.Merge(&st)
		return st.KernelDrops.Missed
	}

	r := newRig(t, Options{})
	r.poll(t)
	if m, _ := missLines(r); m != 0 || missed(r) != 0 {
		t.Fatalf("no skips: %d lines, missed %d", m, missed(r))
	}
	r.src.miss(kdrops.BadDigest, 2)
	r.src.miss(kdrops.Missing, 1)
	r.poll(t)
	r.poll(t) // no rise: no line
	if n, sk := missLines(r); n != 1 || sk[0] != uint64(3) || missed(r) != 3 {
		t.Errorf("after 3 skips: %d lines (skipped %v), missed %d; want 1 line, 3", n, sk, missed(r))
	}
	r.src.miss(kdrops.BadDigest, 1)
	r.poll(t)
	if n, sk := missLines(r); n != 2 || sk[1] != uint64(1) || missed(r) != 4 {
		t.Errorf("after 1 more: %d lines (skipped %v), missed %d; want 2 lines, 4", n, sk, missed(r))
	}

	// Reading them fails: one line, the counts go on.
	r.logs.Reset()
	r.src.mu.Lock()
	r.src.missErr = errTest
	r.src.mu.Unlock()
	r.src.add("192.0.2.2", kdrops.BadDigest, 5)
	r.poll(t)
	r.poll(t)
	var errLines int
	for _, e := range r.logs.AllEntries() {
		if strings.Contains(e.Message, "cannot read how many runs") {
			errLines++
		}
	}
	if errLines != 1 || r.peerCounts("192.0.2.2")[kdrops.BadDigest] != 5 || missed(r) != 4 {
		t.Errorf("while Missed fails: %d lines, counts %v, missed %d; want 1 line, 5 bad digests, 4", errLines, r.peerCounts("192.0.2.2"), missed(r))
	}

	// Baseline: what the Source skipped before the first poll is not ours.
	b := newRig(t, Options{Baseline: true})
	b.src.miss(kdrops.Unexpected, 7)
	b.poll(t)
	b.src.miss(kdrops.Unexpected, 2)
	b.poll(t)
	if n, sk := missLines(b); n != 1 || sk[0] != uint64(2) || missed(b) != 2 {
		t.Errorf("baseline: %d lines (skipped %v), missed %d; want 1 line, 2", n, sk, missed(b))
	}
}
