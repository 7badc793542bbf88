//go:build linux

package e2e

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
	"github.com/cilium/ebpf/link"
	dto "github.com/prometheus/client_model/go"
	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/kdrops"
	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/status"
	"github.com/authbgp/authbgpd/tcpsock"
)

// The kernel's own per-peer TCP-MD5 drop verdicts (package kdrops, shown by
// dropwatch as /status peers[].kernel_drops, top-level kernel_drops and
// authbgpd_peer_kernel_drops_total{peer,reason}), end to end against FRR.

// kdReasons are the reason names of /status kernel_drops and of the
// metric's reason label, in kdrops.Reasons order.
var kdReasons = []string{"bad_digest", "missing", "unexpected", "bad_option", "ao_bad", "ao_key_not_found", "ao_required"}

// kdMD5Reasons are the reasons a TCP-MD5 peer has series of from the start.
var kdMD5Reasons = []string{"bad_digest", "missing", "unexpected", "bad_option"}

// kdTcpExt is the router namespace's TcpExt counter each TCP-MD5 reason
// explains (include/net/tcp.h tcp_inbound_hash, net/ipv4/tcp.c
// tcp_inbound_md5_hash: each tracepoint fires next to its counter).
var kdTcpExt = map[string]string{
	"bad_digest": "TCPMD5Failure",
	"missing":    "TCPMD5NotFound",
	"unexpected": "TCPMD5Unexpected",
}

// kdDiagnosis is the kernel_drops.diagnosis a reason gives.
var kdDiagnosis = map[string]string{"bad_digest": "bad-digest", "missing": "missing", "unexpected": "unexpected"}

// kdCounts is a /status kernel_drops entry by reason name (nil: all 0).
func kdCounts(kd *status.KernelDrops) map[string]uint64 {
	m := map[string]uint64{}
	if kd == nil {
		return m
	}
	m["bad_digest"], m["missing"], m["unexpected"], m["bad_option"] = kd.BadDigest, kd.Missing, kd.Unexpected, kd.BadOption
	for name, p := range map[string]*uint64{"ao_bad": kd.AOBad, "ao_key_not_found": kd.AOKeyNotFound, "ao_required": kd.AORequired} {
		if p != nil {
			m[name] = *p
		}
	}
	return m
}

// kdShadowCounts are a peer's shadow segment verdicts by the same names.
func kdShadowCounts(sh *status.Shadow) map[string]uint64 {
	if sh == nil {
		return map[string]uint64{}
	}
	return map[string]uint64{"bad_digest": sh.Segments.BadDigest, "missing": sh.Segments.Missing, "unexpected": sh.Segments.Unexpected}
}

// kdString renders a kernel_drops entry for messages.
func kdString(kd *status.KernelDrops) string {
	if kd == nil {
		return "<absent>"
	}
	var parts []string
	c := kdCounts(kd)
	for _, r := range kdReasons {
		if v, ok := c[r]; ok {
			parts = append(parts, fmt.Sprintf("%s %d", r, v))
		}
	}
	return fmt.Sprintf("{%s diagnosis %q last_drop %q}", strings.Join(parts, " "), kd.Diagnosis, kd.LastDrop)
}

// kdEntry is the /status entry of a configured peer by its ID (a static
// peer's address, a range's prefix: the range's own entry), or nil.
func kdEntry(st *status.Status, id string) *status.Peer {
	for i := range st.Peers {
		p := &st.Peers[i]
		if p.Prefix == "" && p.Address == id || p.Prefix == id && p.Address == id {
			return p
		}
	}
	return nil
}

// tcpExtDelta is after - before for the given counters.
func tcpExtDelta(before, after map[string]uint64, names ...string) map[string]uint64 {
	d := map[string]uint64{}
	for _, n := range names {
		d[n] = after[n] - before[n]
	}
	return d
}

// mustCounters is netns.Counters failing t.
func mustCounters(t testing.TB, ns string) map[string]uint64 {
	t.Helper()
	c, err := netns.Counters(ns)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var kdMD5Counters = []string{"TCPMD5Failure", "TCPMD5NotFound", "TCPMD5Unexpected"}

// requireKernelDropsAvailable fails t unless /status says the counters
// work, and skips it (visibly) when this kernel cannot have them.
func requireKernelDropsAvailable(t testing.TB, a *Authbgpd) *status.KernelDropsInfo {
	t.Helper()
	info := a.Status().KernelDrops
	if info == nil {
		t.Fatal("/status has no top-level kernel_drops")
	}
	if !info.Available {
		if strings.Contains(info.Error, kdrops.ErrUnsupported.Error()) {
			testenv.SkipKernelLacks(t, "TCP authentication drop tracepoints (Linux 6.7) with BTF", info.Error)
		}
		t.Fatalf("/status kernel_drops unavailable as root: %+v", *info)
	}
	for _, tp := range []string{"tcp_hash_md5_mismatch", "tcp_hash_md5_required", "tcp_hash_md5_unexpected", "tcp_hash_bad_header"} {
		if !slices.Contains(info.Tracepoints, tp) {
			t.Errorf("/status kernel_drops.tracepoints %v lack %s", info.Tracepoints, tp)
		}
	}
	if info.Error != "" || info.Other != 0 {
		t.Errorf("/status kernel_drops at start: %+v, want no error and other 0", *info)
	}
	return info
}

// kdPeer is one peer of TestKernelDropsPerPeer's router.
type kdPeer struct {
	id    string // peer ID: address, or prefix for a range
	frr   string // the FRR that holds it ("" for the ranges)
	keyed bool   // the router has a key for it
	want  string // the only reason whose count moves; "" none
}

// TestKernelDropsPerPeer runs one authbgpd router against five FRRs, each
// alone in its own namespace, on both IPv4 and IPv6:
//
//	w: signs with a key other than the router's      -> bad_digest only
//	m: does not sign, the router holds a key         -> missing only
//	u: signs, the router holds no key (an unkeyed     -> unexpected only
//	   peer: its drops are its own, not "other")
//	h: the right key: the sessions come up           -> 0 everywhere
//	x: passive, keyed with another key; the router    -> 0: x's kernel drops
//	   dials it from an address inside one of its own    the router's SYNs,
//	   (keyed, passive) dynamic ranges                   in x's namespace
//
// Within a bound each failing peer's own counter moves, only its own, and
// kernel_drops.diagnosis names it. Once the FRRs are stopped and nothing
// moves: every peer's count on /metrics (authbgpd_peer_kernel_drops_total,
// series at 0 from the first scrape for every keyed peer) equals /status,
// and per reason the sum over the peers equals the router namespace's
// TcpExt delta exactly (TCPMD5Failure, TCPMD5NotFound, TCPMD5Unexpected);
// top-level other is 0. The router dials every FRR too, and every FRR's
// kernel drops those SYNs (x: TCPMD5Failure, w: TCPMD5Failure, m:
// TCPMD5Unexpected, u: TCPMD5NotFound): the router counts none of them:
// not as other (w, m, u: the router's own source addresses), not under the
// range that holds the router's own address on x's link, which would show
// them were drops of x's namespace counted.
//
// Phase 1 runs with [shadow] off, phase 2 (a new daemon, the same FRRs w,
// m, u started again) with the shadow checker on: there, at a quiescent
// moment, each peer's shadow segments.bad_digest/missing/unexpected equal
// its kernel_drops counts exactly (measured: 6-7 of each per address).
// They can: every segment dropped here is a SYN to a listening socket with
// a valid checksum, so the kernel reaches the hash check for each one the
// capture sees, and drops nothing else. A segment the kernel drops before
// that check (bad checksum, no socket at all, a full accept queue) would
// count in the shadow only; one the capture loses (capture.drops, asserted
// 0) in the kernel only.
func TestKernelDropsPerPeer(t *testing.T) {
	testenv.RequireRoot(t)
	testenv.RequireBinary(t, "bgpd", "/usr/lib/frr")
	authbgpdBinary(t, "")
	start := time.Now()

	tp := netns.New(t, "kdpp")
	nsR := tp.Add("r")
	type link struct {
		name         string
		r4, r6       string // the router's addresses (CIDR)
		peer4, peer6 string
	}
	links := []link{
		{"w", "192.0.2.1/28", "2001:db8:1::1/64", "192.0.2.2/28", "2001:db8:1::2/64"},
		{"m", "192.0.2.17/28", "2001:db8:2::1/64", "192.0.2.18/28", "2001:db8:2::2/64"},
		{"u", "192.0.2.33/28", "2001:db8:3::1/64", "192.0.2.34/28", "2001:db8:3::2/64"},
		{"h", "192.0.2.49/28", "2001:db8:4::1/64", "192.0.2.50/28", "2001:db8:4::2/64"},
		{"x", "198.51.100.1/24", "2001:db8:5::1/64", "198.51.100.129/24", "2001:db8:5:0:8000::2/64"},
	}
	ns := map[string]string{}
	routerAddr := map[string][2]netip.Addr{} // FRR -> the router's addresses on its link
	peerAddr := map[string][2]netip.Addr{}   // FRR -> its addresses
	for i, l := range links {
		ns[l.name] = tp.Add(l.name)
		tp.Link(nsR, fmt.Sprintf("eth%d", i), []string{l.r4, l.r6}, ns[l.name], "eth0", []string{l.peer4, l.peer6})
		pfx := func(s string) netip.Addr { return netip.MustParsePrefix(s).Addr() }
		routerAddr[l.name] = [2]netip.Addr{pfx(l.r4), pfx(l.r6)}
		peerAddr[l.name] = [2]netip.Addr{pfx(l.peer4), pfx(l.peer6)}
	}
	// The router's dynamic ranges on x's link hold the router's own
	// addresses there (198.51.100.1, 2001:db8:5::1), not x's.
	range4, range6 := "198.51.100.0/25", "2001:db8:5::/65"
	for _, r := range []string{range4, range6} {
		p := netip.MustParsePrefix(r)
		if !p.Contains(routerAddr["x"][0]) && !p.Contains(routerAddr["x"][1]) || p.Contains(peerAddr["x"][0]) || p.Contains(peerAddr["x"][1]) {
			t.Fatalf("range %s must hold the router's address on x's link and not x's", r)
		}
	}

	keyW, keyWFRR := newSecret("kdw"), newSecret("kdwfrr")
	keyM := newSecret("kdm")
	keyUFRR := newSecret("kdufrr")
	keyH := newSecret("kdh")
	keyX, keyXFRR := newSecret("kdx"), newSecret("kdxfrr")
	keyRange := newSecret("kdrange")
	files := map[string]string{"w.key": keyW + "\n", "m.key": keyM + "\n", "h.key": keyH + "\n", "x.key": keyX + "\n", "range.key": keyRange + "\n"}
	asn := map[string]uint32{"w": 65002, "m": 65003, "u": 65004, "h": 65005, "x": 65006}
	routerKey := map[string]string{"w": "w.key", "m": "m.key", "u": "", "h": "h.key", "x": "x.key"}
	frrKey := map[string]string{"w": keyWFRR, "m": "", "u": keyUFRR, "h": keyH, "x": keyXFRR}
	want := map[string]string{"w": "bad_digest", "m": "missing", "u": "unexpected", "h": "", "x": ""}

	var peers []kdPeer
	var cfgPeers []abPeer
	for _, l := range links {
		for _, a := range peerAddr[l.name] {
			p := abPeer{addr: a.String(), asn: asn[l.name]}
			if f := routerKey[l.name]; f != "" {
				p.src, p.ref = "password-file", f
			}
			cfgPeers = append(cfgPeers, p)
			peers = append(peers, kdPeer{id: a.String(), frr: l.name, keyed: routerKey[l.name] != "", want: want[l.name]})
		}
	}
	for _, r := range []string{range4, range6} {
		cfgPeers = append(cfgPeers, abPeer{addr: r, asn: 65007, src: "password-file", ref: "range.key", passive: true})
		peers = append(peers, kdPeer{id: r, keyed: true})
	}
	config := func(shadowOn bool) string {
		extra := "\n[shadow]\nenabled = false\n"
		if shadowOn {
			extra = shadowSection(false)
		}
		return abConf{Extra: extra, Peers: cfgPeers}.String()
	}

	startFRR := func(name string) *FRR {
		cfg := PeerConfig{ASN: asn[name], RouterID: peerAddr[name][0]}
		for _, a := range routerAddr[name] {
			cfg.Neighbors = append(cfg.Neighbors, Neighbor{a, 65001, frrKey[name]})
		}
		if name == "h" {
			cfg.Networks = []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24")}
		}
		if name == "x" { // x never dials: only the router's SYNs reach it
			return edgFRR(t, tp, ns[name], cfg, "neighbor "+routerAddr[name][0].String()+" passive", "neighbor "+routerAddr[name][1].String()+" passive")
		}
		return StartFRR(t, tp, ns[name], cfg)
	}

	var frrH *FRR
	phase := func(shadowOn bool) (*Authbgpd, *status.Status) {
		label := map[bool]string{false: "phase 1 (shadow off)", true: "phase 2 (shadow on)"}[shadowOn]
		a := StartAuthbgpd(t, tp, nsR, config(shadowOn), AuthbgpdOptions{Files: files})
		// The baselines: right after the daemon started, before any
		// failing peer runs (h, if up already, drops nothing).
		base := mustCounters(t, nsR)
		farBase := map[string]map[string]uint64{}
		for _, l := range links {
			farBase[l.name] = mustCounters(t, ns[l.name])
		}
		requireKernelDropsAvailable(t, a)
		st0 := a.Status()
		for _, p := range peers {
			e := kdEntry(&st0, p.id)
			switch {
			case e == nil:
				t.Fatalf("%s: no /status entry for %s", label, p.id)
			case p.keyed && (e.KernelDrops == nil || fmt.Sprint(kdCounts(e.KernelDrops)) != fmt.Sprint(kdCounts(&status.KernelDrops{})) || e.KernelDrops.Diagnosis != ""):
				t.Errorf("%s: at start, keyed peer %s: kernel_drops %s, want all 0, no diagnosis", label, p.id, kdString(e.KernelDrops))
			case !p.keyed && e.KernelDrops != nil:
				t.Errorf("%s: at start, unkeyed peer %s: kernel_drops %s, want none until a drop", label, p.id, kdString(e.KernelDrops))
			}
		}

		// The first scrape: every keyed peer's TCP-MD5 series at 0, none
		// for the unkeyed ones.
		body, err := a.HTTPGet("/metrics")
		if err != nil {
			t.Fatal(err)
		}
		first := parseMetrics(t, body)
		for _, p := range peers {
			for _, r := range kdReasons {
				v, ok := sample(first, "authbgpd_peer_kernel_drops_total", map[string]string{"peer": p.id, "reason": r})
				switch {
				case p.keyed && slices.Contains(kdMD5Reasons, r) && (!ok || v != 0):
					t.Errorf("%s: first scrape: authbgpd_peer_kernel_drops_total{peer=%q,reason=%q} = %v (present %v), want 0", label, p.id, r, v, ok)
				case (!p.keyed || !slices.Contains(kdMD5Reasons, r)) && ok:
					t.Errorf("%s: first scrape: authbgpd_peer_kernel_drops_total{peer=%q,reason=%q} = %v: a series of an unkeyed peer or of a TCP-AO reason before any drop", label, p.id, r, v)
				}
			}
		}
		if shadowOn {
			waitFor(t, 10*time.Second, "the shadow capture running", func() error {
				if c := a.Status().Capture; c == nil || !c.Running {
					return fmt.Errorf("capture %+v", c)
				}
				return nil
			})
		}

		started := time.Now()
		frrs := map[string]*FRR{}
		for _, l := range links {
			switch {
			case l.name == "h" && frrH != nil: // still up from phase 1
			case l.name == "x" && shadowOn: // phase 1 proved x's point
			default:
				frrs[l.name] = startFRR(l.name)
			}
		}
		if frrs["h"] != nil {
			frrH = frrs["h"]
		}

		// Within a bound: each failing peer's own count moves (>= minDrops:
		// more than one connection attempt each, so more than one ISN),
		// the diagnosis names it; h is up on both sides; in phase 1 every
		// FRR's kernel dropped the router's SYNs.
		const bound, minDrops = 40 * time.Second, 6
		waitFor(t, bound, label+": each failing peer's own kernel drops and diagnosis, h up", func() error {
			st, err := a.TryStatus()
			if err != nil {
				return err
			}
			var missing []string
			for _, p := range peers {
				e := kdEntry(st, p.id)
				if e == nil {
					return fmt.Errorf("no /status entry for %s", p.id)
				}
				if p.want != "" {
					if c := kdCounts(e.KernelDrops); c[p.want] < minDrops || e.KernelDrops.Diagnosis != kdDiagnosis[p.want] {
						missing = append(missing, fmt.Sprintf("%s: %s", p.id, kdString(e.KernelDrops)))
					}
					if shadowOn && (e.Shadow == nil || e.Shadow.Diagnosis != kdDiagnosis[p.want]) {
						missing = append(missing, fmt.Sprintf("%s: shadow %s", p.id, peerString(e)))
					}
				}
				if p.frr == "h" && e.State != Established {
					missing = append(missing, p.id+" not established")
				}
			}
			for _, ra := range routerAddr["h"] {
				if s, err := frrH.State(ra); err != nil || s != Established {
					missing = append(missing, fmt.Sprintf("h: session with %s %q (%v)", ra, s, err))
				}
			}
			if !shadowOn {
				for name, c := range map[string]string{"w": "TCPMD5Failure", "m": "TCPMD5Unexpected", "u": "TCPMD5NotFound", "x": "TCPMD5Failure"} {
					now, err := netns.Counters(ns[name])
					if err != nil {
						return err
					}
					if now[c] < farBase[name][c]+2 {
						missing = append(missing, fmt.Sprintf("%s's kernel: %s %d -> %d", name, c, farBase[name][c], now[c]))
					}
				}
			}
			if len(missing) > 0 {
				return errors.New(strings.Join(missing, "; "))
			}
			return nil
		})
		t.Logf("%s: all failing peers diagnosed by the kernel %v after the FRRs started", label, time.Since(started).Round(time.Millisecond))
		st := a.Status()
		for _, p := range peers {
			if p.want == "" {
				continue
			}
			e := kdEntry(&st, p.id)
			if e.State == Established {
				t.Errorf("%s: %s established with %s", label, p.id, p.want)
			}
		}

		// Quiescence: stop the failing FRRs; then nothing drops anymore
		// (the router's SYNs to a namespace without a listener get no
		// answer, or an unsigned RST its unkeyed socket accepts).
		for name, f := range frrs {
			if name != "h" {
				f.Stop()
			}
		}
		var after map[string]uint64
		var mfs map[string]*dto.MetricFamily
		var qst *status.Status
		for try := 0; ; try++ {
			c0 := mustCounters(t, nsR)
			time.Sleep(2 * time.Second) // > dropwatch's 1 s poll: c0's drops are in what /status says
			c1 := mustCounters(t, nsR)
			s, err := a.TryStatus()
			if err != nil {
				t.Fatal(err)
			}
			body, err := a.HTTPGet("/metrics")
			if err != nil {
				t.Fatal(err)
			}
			s2, err := a.TryStatus()
			if err != nil {
				t.Fatal(err)
			}
			c2 := mustCounters(t, nsR)
			same := true
			for _, n := range kdMD5Counters {
				same = same && c0[n] == c1[n] && c1[n] == c2[n]
			}
			for _, p := range peers {
				e1, e2 := kdEntry(s, p.id), kdEntry(s2, p.id)
				same = same && e1 != nil && e2 != nil && fmt.Sprint(kdCounts(e1.KernelDrops)) == fmt.Sprint(kdCounts(e2.KernelDrops)) &&
					fmt.Sprint(kdShadowCounts(e1.Shadow)) == fmt.Sprint(kdShadowCounts(e2.Shadow))
			}
			if same {
				after, qst, mfs = c1, s, parseMetrics(t, body)
				break
			}
			if try == 5 {
				t.Fatalf("%s: the router namespace never quiescent after the failing FRRs stopped: TcpExt %v -> %v -> %v", label, c0, c1, c2)
			}
		}
		delta := tcpExtDelta(base, after, kdMD5Counters...)
		t.Logf("%s: router namespace TcpExt deltas since the daemon started: %v", label, delta)

		// Per peer: only its own reason, the diagnosis, metrics == /status.
		// Runs of our programs the kernel skipped (its recursion guard: the
		// same tracepoint firing in a softirq on the CPU where the program
		// runs) are drops the kernel counted and we could not; the daemon
		// reports them (kernel_drops.missed). With none, every count below
		// is exact; with some, each may fall short by at most that many.
		var missed uint64
		if qst.KernelDrops != nil {
			missed = qst.KernelDrops.Missed
		}
		t.Logf("%s: runs of the drop programs the kernel skipped: %d", label, missed)
		short := func(ours, all uint64) bool { return ours > all || ours+missed < all }
		sum := map[string]uint64{}
		for _, p := range peers {
			e := kdEntry(qst, p.id)
			if e == nil {
				t.Fatalf("%s: no /status entry for %s", label, p.id)
			}
			if p.keyed && e.KernelDrops == nil {
				t.Errorf("%s: keyed peer %s has no kernel_drops", label, p.id)
			}
			c := kdCounts(e.KernelDrops)
			t.Logf("%s: %s kernel_drops %s; shadow %v", label, p.id, kdString(e.KernelDrops), kdShadowCounts(e.Shadow))
			for _, r := range kdReasons {
				sum[r] += c[r]
				switch {
				case r == p.want && c[r] < minDrops:
					t.Errorf("%s: %s: kernel_drops.%s = %d, want >= %d", label, p.id, r, c[r], minDrops)
				case r != p.want && c[r] != 0:
					t.Errorf("%s: %s: kernel_drops.%s = %d, want 0 (only %q moves)", label, p.id, r, c[r], p.want)
				}
				v, ok := sample(mfs, "authbgpd_peer_kernel_drops_total", map[string]string{"peer": p.id, "reason": r})
				switch {
				case p.keyed && slices.Contains(kdMD5Reasons, r) && !ok:
					t.Errorf("%s: no series authbgpd_peer_kernel_drops_total{peer=%q,reason=%q}", label, p.id, r)
				case ok && v != float64(c[r]):
					t.Errorf("%s: authbgpd_peer_kernel_drops_total{peer=%q,reason=%q} = %v, /status says %d", label, p.id, r, v, c[r])
				case !ok && c[r] != 0:
					t.Errorf("%s: no series authbgpd_peer_kernel_drops_total{peer=%q,reason=%q}, /status says %d", label, p.id, r, c[r])
				}
			}
			if p.want == "" {
				if e.KernelDrops != nil && (e.KernelDrops.Diagnosis != "" || e.KernelDrops.LastDrop != "") {
					t.Errorf("%s: %s: kernel_drops %s, want no diagnosis and no last_drop", label, p.id, kdString(e.KernelDrops))
				}
			} else if d := e.KernelDrops.Diagnosis; d != kdDiagnosis[p.want] {
				t.Errorf("%s: %s: kernel_drops.diagnosis %q, want %q", label, p.id, d, kdDiagnosis[p.want])
			} else if _, err := time.Parse(time.RFC3339, e.KernelDrops.LastDrop); err != nil {
				t.Errorf("%s: %s: kernel_drops.last_drop %q: %v", label, p.id, e.KernelDrops.LastDrop, err)
			}
			// The shadow checker saw exactly what the kernel dropped.
			if shadowOn && p.want != "" {
				sh := kdShadowCounts(e.Shadow)
				for _, r := range []string{"bad_digest", "missing", "unexpected"} {
					if short(uint64(c[r]), uint64(sh[r])) {
						t.Errorf("%s: %s: shadow segments.%s = %d, kernel_drops.%s = %d: want equal (less at most the %d skipped runs)", label, p.id, r, sh[r], r, c[r], missed)
					}
				}
			}
			if shadowOn && p.want == "" && p.frr != "" {
				if sh := kdShadowCounts(e.Shadow); sh["bad_digest"]+sh["missing"]+sh["unexpected"] != 0 {
					t.Errorf("%s: %s: shadow segments %v, want no failed ones", label, p.id, sh)
				}
			}
			if shadowOn && p.frr == "h" {
				if e.Shadow == nil || e.Shadow.Diagnosis != "ok" || e.Shadow.Segments.Valid == 0 {
					t.Errorf("%s: %s: shadow %s, want ok with valid segments", label, p.id, peerString(e))
				}
			}
		}
		// No session under the ranges: the router's own addresses in them
		// were only ever the source of segments x's kernel dropped.
		for _, e := range qst.Peers {
			if (e.Prefix == range4 || e.Prefix == range6) && e.Address != e.Prefix {
				t.Errorf("%s: /status has a session %s under range %s: %s kernel_drops %s", label, e.Address, e.Prefix, peerString(&e), kdString(e.KernelDrops))
			}
		}
		if shadowOn {
			// The equality above is only meaningful if the capture lost nothing.
			if c := qst.Capture; c == nil || !c.Running || c.Drops != 0 || c.Error != "" {
				t.Errorf("%s: /status capture %+v, want running, no drops, no error", label, c)
			}
		}
		info := qst.KernelDrops
		if info == nil || !info.Available || info.Error != "" || info.Other != 0 {
			t.Errorf("%s: /status kernel_drops %+v, want available, no error, other 0 (every drop from a peer)", label, info)
		}
		// The sums are the namespace's TcpExt deltas, exactly.
		for r, c := range kdTcpExt {
			if short(sum[r], uint64(delta[c])) {
				t.Errorf("%s: sum of kernel_drops.%s over the peers = %d, router namespace TcpExt %s delta = %d: want equal (less at most the %d skipped runs); %s",
					label, r, sum[r], c, delta[c], missed, kdLater(t, a, nsR, peers, r, base))
			}
		}
		for _, r := range []string{"bad_option", "ao_bad", "ao_key_not_found", "ao_required"} {
			if sum[r] != 0 {
				t.Errorf("%s: sum of kernel_drops.%s = %d, want 0", label, r, sum[r])
			}
		}
		if !shadowOn {
			for _, l := range links {
				now := mustCounters(t, ns[l.name])
				t.Logf("%s: %s's namespace TcpExt deltas (the router's segments its kernel dropped): %v", label, l.name, tcpExtDelta(farBase[l.name], now, kdMD5Counters...))
			}
		}
		return a, qst
	}

	a1, _ := phase(false)
	a1.StopClean()
	phase(true)
	t.Logf("TestKernelDropsPerPeer took %v", time.Since(start).Round(time.Millisecond))
}

// ---------------------------------------------------------------- good path

// daemonBPFIDs returns the IDs of the BPF objects of kind ("prog" or
// "map") that process pid holds descriptors of (from /proc/PID/fd and
// fdinfo's prog_id or map_id), each once.
func daemonBPFIDs(pid int, kind string) ([]uint64, error) {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	seen := map[uint64]bool{}
	var ids []uint64
	for _, e := range ents {
		if l, err := os.Readlink(filepath.Join(dir, e.Name())); err != nil || l != "anon_inode:bpf-"+kind {
			continue
		}
		fi, err := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/%s", pid, e.Name()))
		if err != nil {
			continue
		}
		var id uint64
		for _, line := range strings.Split(string(fi), "\n") {
			if v, ok := strings.CutPrefix(line, kind+"_id:"); ok {
				id, _ = strconv.ParseUint(strings.TrimSpace(v), 10, 32)
			}
		}
		if id != 0 && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// daemonKdropsProgs returns the kdrops programs (kernel name kdrops_*) the
// process pid holds, found through its /proc/PID/fdinfo (prog_id), so that
// other daemons' programs on this host do not count.
func daemonKdropsProgs(t testing.TB, pid int) []*ebpf.Program {
	t.Helper()
	ids, err := daemonBPFIDs(pid, "prog")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[uint64]bool{}
	var progs []*ebpf.Program
	for _, id := range ids {
		seen[id] = true
		p, err := ebpf.NewProgramFromID(ebpf.ProgramID(id))
		if err != nil {
			t.Fatalf("program %d of pid %d: %v", id, pid, err)
		}
		info, err := p.Info()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(info.Name, "kdrops_") {
			p.Close()
			continue
		}
		t.Cleanup(func() { p.Close() })
		progs = append(progs, p)
	}
	// Cross-check with the kernel's list of every program.
	all := 0
	for id := ebpf.ProgramID(0); ; {
		next, err := ebpf.ProgramGetNextID(id)
		if err != nil {
			break
		}
		id = next
		if seen[uint64(id)] {
			all++
		}
	}
	if all != len(seen) {
		t.Fatalf("ProgramGetNextID lists %d of the %d programs pid %d holds", all, len(seen), pid)
	}
	return progs
}

// runCount sums the programs' run counts (BPF statistics must be on).
func runCount(t testing.TB, progs []*ebpf.Program) uint64 {
	t.Helper()
	var n uint64
	for _, p := range progs {
		s, err := p.Stats()
		if err != nil {
			t.Fatal(err)
		}
		n += s.RunCount
	}
	return n
}

// recursionMisses sums the kernel's count of runs it skipped for progs
// (bpf_prog_info.recursion_misses: the program was already running on
// that CPU).
func recursionMisses(t testing.TB, progs []*ebpf.Program) uint64 {
	t.Helper()
	var n uint64
	for _, p := range progs {
		s, err := p.Stats()
		if err != nil {
			t.Fatal(err)
		}
		n += s.RecursionMisses
	}
	return n
}

// daemonKdropsCounts reads the daemon's kdrops_counts map (through its
// fd in /proc/PID/fd), key bytes in hex -> count, for failure messages.
func daemonKdropsCounts(t testing.TB, pid int) map[string]uint64 {
	t.Helper()
	out := map[string]uint64{}
	ids, err := daemonBPFIDs(pid, "map")
	if err != nil {
		t.Logf("the daemon's counts map: %v", err)
		return out
	}
	for _, id := range ids {
		m, err := ebpf.NewMapFromID(ebpf.MapID(id))
		if err != nil {
			continue
		}
		if info, err := m.Info(); err == nil && info.Name == "kdrops_counts" {
			k := make([]byte, m.KeySize())
			var v uint64
			it := m.Iterate()
			for it.Next(&k, &v) {
				out[fmt.Sprintf("%x", k)] = v
			}
		}
		m.Close()
	}
	return out
}

// kdWitness is the test's own raw-tracepoint program on the tracepoints
// the daemon counts: it counts every firing by the network namespace
// cookie of the socket (0: unreadable). The daemon's programs run for every
// drop on the host, in any namespace (the cookie filter is inside them);
// the witness says which namespaces those drops were in.
type kdWitness struct {
	counts *ebpf.Map // u64 netns cookie -> u64 firings
}

// btfOffset is the byte offset of the member at path in kernel struct st.
func btfOffset(t testing.TB, spec *btf.Spec, st string, path ...string) int32 {
	t.Helper()
	var s *btf.Struct
	if err := spec.TypeByName(st, &s); err != nil {
		t.Fatalf("kernel BTF: struct %s: %v", st, err)
	}
	var find func(ms []btf.Member, name string) (btf.Member, uint32, bool)
	find = func(ms []btf.Member, name string) (btf.Member, uint32, bool) {
		for _, m := range ms {
			if m.Name == name {
				return m, uint32(m.Offset), true
			}
		}
		for _, m := range ms { // anonymous structs and unions
			if m.Name != "" {
				continue
			}
			var inner []btf.Member
			switch c := btf.UnderlyingType(m.Type).(type) {
			case *btf.Struct:
				inner = c.Members
			case *btf.Union:
				inner = c.Members
			}
			if f, off, ok := find(inner, name); ok {
				return f, uint32(m.Offset) + off, true
			}
		}
		return btf.Member{}, 0, false
	}
	var cur btf.Type = s
	var bits uint32
	for _, name := range path {
		var ms []btf.Member
		switch c := btf.UnderlyingType(cur).(type) {
		case *btf.Struct:
			ms = c.Members
		case *btf.Union:
			ms = c.Members
		}
		m, off, ok := find(ms, name)
		if !ok {
			t.Fatalf("kernel BTF: struct %s has no %v", st, path)
		}
		bits += off
		cur = m.Type
	}
	return int32(bits / 8)
}

// newKdWitness loads the witness and attaches it to tracepoints (closed at
// cleanup).
func newKdWitness(t testing.TB, tracepoints []string) *kdWitness {
	t.Helper()
	spec, err := btf.LoadKernelSpec()
	if err != nil {
		t.Fatal(err)
	}
	sockNet := btfOffset(t, spec, "sock", "__sk_common", "skc_net", "net")
	netCookie := btfOffset(t, spec, "net", "net_cookie")
	m, err := ebpf.NewMap(&ebpf.MapSpec{Name: "kdw_counts", Type: ebpf.Hash, KeySize: 8, ValueSize: 8, MaxEntries: 4096})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	read := func(src asm.Register, off int32) asm.Instructions { // fp-8 = *(u64 *)(src + off)
		return asm.Instructions{
			asm.Mov.Reg(asm.R1, asm.R10), asm.Add.Imm(asm.R1, -8), asm.Mov.Imm(asm.R2, 8),
			asm.Mov.Reg(asm.R3, src), asm.Add.Imm(asm.R3, off), asm.FnProbeReadKernel.Call(),
		}
	}
	addOne := asm.Instructions{asm.Mov.Imm(asm.R1, 1), asm.StoreXAdd(asm.R0, asm.R1, asm.DWord)}
	store := func(off int16, v int64) asm.Instructions { // *(u64 *)(fp + off) = v, R1 clobbered
		return asm.Instructions{asm.Mov.Imm(asm.R1, int32(v)), asm.StoreMem(asm.R10, off, asm.R1, asm.DWord)}
	}
	var insns asm.Instructions
	insns = append(insns, asm.LoadMem(asm.R6, asm.R1, 0, asm.DWord)) // args[0]: struct sock *
	insns = append(insns, store(-8, 0)...)
	insns = append(insns, asm.JEq.Imm(asm.R6, 0, "count"))
	insns = append(insns, read(asm.R6, sockNet)...)
	insns = append(insns, asm.LoadMem(asm.R7, asm.R10, -8, asm.DWord)) // struct net *
	insns = append(insns, store(-8, 0)...)
	insns = append(insns,
		asm.JNE.Imm(asm.R0, 0, "count"),
		asm.JEq.Imm(asm.R7, 0, "count"))
	insns = append(insns, read(asm.R7, netCookie)...) // zeroes fp-8 on failure
	insns = append(insns,
		asm.LoadMapPtr(asm.R1, m.FD()).WithSymbol("count"),
		asm.Mov.Reg(asm.R2, asm.R10), asm.Add.Imm(asm.R2, -8),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "insert"))
	insns = append(insns, addOne...)
	insns = append(insns, asm.Ja.Label("exit"))
	one := store(-16, 1)
	one[0] = one[0].WithSymbol("insert")
	insns = append(insns, one...)
	insns = append(insns,
		asm.LoadMapPtr(asm.R1, m.FD()),
		asm.Mov.Reg(asm.R2, asm.R10), asm.Add.Imm(asm.R2, -8),
		asm.Mov.Reg(asm.R3, asm.R10), asm.Add.Imm(asm.R3, -16),
		asm.Mov.Imm(asm.R4, 1), // BPF_NOEXIST
		asm.FnMapUpdateElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "exit"),
		asm.LoadMapPtr(asm.R1, m.FD()), // another CPU inserted it first
		asm.Mov.Reg(asm.R2, asm.R10), asm.Add.Imm(asm.R2, -8),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "exit"))
	insns = append(insns, addOne...)
	insns = append(insns, asm.Mov.Imm(asm.R0, 0).WithSymbol("exit"), asm.Return())
	prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{Name: "kdwitness", Type: ebpf.RawTracepoint, Instructions: insns, License: "GPL"})
	if err != nil {
		t.Fatalf("load the witness program: %v", err)
	}
	t.Cleanup(func() { prog.Close() })
	for _, tp := range tracepoints {
		l, err := link.AttachRawTracepoint(link.RawTracepointOptions{Name: tp, Program: prog})
		if err != nil {
			t.Fatalf("attach the witness to %s: %v", tp, err)
		}
		t.Cleanup(func() { l.Close() })
	}
	return &kdWitness{counts: m}
}

// read returns the firings so far by netns cookie.
func (w *kdWitness) read(t testing.TB) map[uint64]uint64 {
	t.Helper()
	out := map[uint64]uint64{}
	var k, v uint64
	it := w.counts.Iterate()
	for it.Next(&k, &v) {
		out[k] = v
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// kdSplit is what moved between two witness reads: in the namespaces
// ours (by cookie), and in all the others.
func kdSplit(before, after map[uint64]uint64, ours ...uint64) (own, foreign uint64) {
	for c, a := range after {
		d := a - before[c]
		if slices.Contains(ours, c) {
			own += d
		} else {
			foreign += d
		}
	}
	return own, foreign
}

// nsCookie is the cookie of network namespace ns (SO_NETNS_COOKIE).
func nsCookie(t testing.TB, ns string) uint64 {
	t.Helper()
	var c uint64
	if err := netns.Do(ns, func() error {
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		c, err = unix.GetsockoptUint64(fd, unix.SOL_SOCKET, unix.SO_NETNS_COOKIE)
		return err
	}); err != nil {
		t.Fatalf("netns cookie of %s: %v", ns, err)
	}
	return c
}

// kdTransfer is one 100k-prefix TCP-MD5 transfer from FRR to the daemon.
type kdTransfer struct {
	took    time.Duration // FRR started -> all prefixes accepted
	cpu     time.Duration // the daemon's CPU (user+sys) meanwhile
	runs    uint64        // the daemon's kdrops program runs meanwhile
	own     uint64        // drop tracepoints that fired in the router's and sender's namespaces (witness)
	foreign uint64        // ... in every other namespace of the host (witness)
	tcpExt  uint64        // the router's and sender's TCP-MD5 TcpExt drop counters' growth
	frr     *FRR
}

// runTransfer starts the FRR sender of n prefixes to the daemon (pid, its
// gRPC API in nsR) in nsS with password, waits until all are accepted and
// measures. progs and w nil: CPU and time only.
func runTransfer(t *testing.T, tp *netns.Topology, nsR, nsS string, pid int, progs []*ebpf.Program, w *kdWitness, n int, password string) kdTransfer {
	t.Helper()
	recvAddr, sendAddr := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	cli := dialPerfAPI(t, nsR)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ours := []uint64{nsCookie(t, nsR), nsCookie(t, nsS)}
	extR0, extS0 := mustCounters(t, nsR), mustCounters(t, nsS)
	// The witness's window holds the run counts' window.
	var w0 map[uint64]uint64
	var runs0 uint64
	if w != nil {
		w0, runs0 = w.read(t), runCount(t, progs)
	}
	cpu0, err := sampleProc(pid)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	f := startFRRConf(t, tp, nsS, perfFRRConfig(n, recvAddr, password))
	last := 0
	for {
		ps, err := cli.peers(ctx, sendAddr.String())
		if err == nil && len(ps) > 0 {
			if last = peerAccepted(ps[0]); last >= n {
				break
			}
		}
		if ctx.Err() != nil {
			t.Fatalf("%d of %d prefixes accepted after %v\nFRR log:\n%s", last, n, time.Since(start), tail(f.Log(), 3000))
		}
		time.Sleep(50 * time.Millisecond)
	}
	tr := kdTransfer{took: time.Since(start), frr: f}
	cpu1, err := sampleProc(pid)
	if err != nil {
		t.Fatal(err)
	}
	tr.cpu = cpu1.cpu - cpu0.cpu
	if w != nil {
		tr.runs = runCount(t, progs) - runs0
		tr.own, tr.foreign = kdSplit(w0, w.read(t), ours...)
	}
	extR1, extS1 := mustCounters(t, nsR), mustCounters(t, nsS)
	for _, c := range kdMD5Counters {
		tr.tcpExt += extR1[c] - extR0[c] + extS1[c] - extS0[c]
	}
	return tr
}

// TestKernelDropsGoodPathIdle: with BPF statistics on, the daemon's kdrops
// programs do not run for a 100k-prefix TCP-MD5 transfer from FRR (the
// tracepoints fire only on a drop), and do run after one connection
// attempt with a wrong key (the count is live). The daemon's CPU time for
// the transfer is measured and compared with the same transfer to a daemon
// whose counters are unavailable (CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN
// dropped from its bounding set: TCP-MD5 needs none of them).
//
// The daemon's programs run for every drop on the host, in any namespace:
// they compare the namespace cookie inside. On a shared machine other
// tests' wrong keys make them run during the transfer, so the test attaches
// its own program (the witness) to the same tracepoints, counting firings
// by namespace cookie: it must see none in the router's and the sender's
// namespaces, and the daemon's runs must be at most what it saw elsewhere
// (0 when the host is quiet).
func TestKernelDropsGoodPathIdle(t *testing.T) {
	testenv.RequireRoot(t)
	testenv.RequireBinary(t, "bgpd", "/usr/lib/frr")
	setpriv := testenv.RequireBinary(t, "setpriv")
	bin := authbgpdBinary(t, "")
	start := time.Now()
	stats, err := kdrops.EnableStats()
	switch {
	case errors.Is(err, kdrops.ErrUnsupported):
		testenv.SkipKernelLacks(t, "BPF run-time statistics", err.Error())
	case err != nil:
		t.Fatalf("EnableStats as root: %v", err)
	}
	defer stats.Close()

	const n = 100000
	const password = "kdrops-good-path-md5-1"
	recv, send := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	cfg := abConfig("\n[shadow]\nenabled = false\n", abPeer{addr: send.String(), asn: 65002, src: "password-file", ref: "pw"})
	files := map[string]string{"pw": password + "\n"}

	// With the counters.
	pair := newPair(t, "kdgood", false)
	a := StartAuthbgpd(t, pair.Topology, pair.A, cfg, AuthbgpdOptions{LogLevel: "info", Files: files})
	info := requireKernelDropsAvailable(t, a)
	pid := a.cmd.Process.Pid
	if c := procComm(pid); c != "authbgpd" {
		t.Fatalf("PID %d is %q, not authbgpd", pid, c)
	}
	progs := daemonKdropsProgs(t, pid)
	var names []string
	for _, p := range progs {
		in, err := p.Info()
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, in.Name)
	}
	slices.Sort(names)
	t.Logf("the daemon's kdrops programs: %v (tracepoints %v)", names, info.Tracepoints)
	if len(progs) != len(info.Tracepoints) {
		t.Fatalf("pid %d holds %d kdrops programs, /status names %d tracepoints", pid, len(progs), len(info.Tracepoints))
	}
	for _, want := range []string{"kdrops_bad_dige", "kdrops_missing", "kdrops_unexpect", "kdrops_bad_opti"} {
		if !slices.Contains(names, want) {
			t.Errorf("no program %s among %v", want, names)
		}
	}
	w := newKdWitness(t, info.Tracepoints)
	cookieR := nsCookie(t, pair.A)

	with := runTransfer(t, pair.Topology, pair.A, pair.B, pid, progs, w, n, password)
	t.Logf("with kdrops: %d prefixes in %v, daemon CPU %v, kdrops program runs %d; drop tracepoints meanwhile (witness): %d in the router's and sender's namespaces, %d in other namespaces of the host",
		n, with.took.Round(time.Millisecond), with.cpu, with.runs, with.own, with.foreign)
	if with.tcpExt != 0 || with.own != 0 {
		t.Errorf("a healthy transfer: the router's and sender's TCP-MD5 TcpExt drop counters grew by %d, the witness saw %d drops there: want 0", with.tcpExt, with.own)
	}
	if with.runs > with.own+with.foreign {
		t.Errorf("the daemon's kdrops programs ran %d times during a healthy transfer, for %d drops on the whole host (%d of them in other namespaces)", with.runs, with.own+with.foreign, with.foreign)
	}
	if p := mustPeer(t, a, send.String()); p.State != Established || p.KernelDrops == nil || kdCounts(p.KernelDrops)["bad_digest"] != 0 {
		t.Fatalf("after the transfer: %s kernel_drops %s", peerString(p), kdString(p.KernelDrops))
	}

	// One connection attempt with a wrong key, from the sender's address:
	// its SYNs (the first and a retransmission) are dropped.
	failBase := counter(t, pair.A, "TCPMD5Failure")
	w0 := w.read(t)
	runs0 := runCount(t, progs)
	wrong := md5auth.AddrKey(recv, []byte("kdrops-not-the-key"))
	err = netns.Do(pair.B, func() error {
		d := net.Dialer{Timeout: 1500 * time.Millisecond, LocalAddr: &net.TCPAddr{IP: send.AsSlice()}}
		d.SetMultipathTCP(false)
		d.Control = func(_, _ string, rc syscall.RawConn) error { return tcpsock.SetKey(rc, wrong) }
		c, err := d.Dial("tcp", netip.AddrPortFrom(recv, 179).String())
		if err == nil {
			c.Close()
			return errors.New("a connection with a wrong key was accepted")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The dial has given up: its SYNs are all counted in TcpExt and their
	// tracepoints have fired (both in the same kernel function, one after
	// the other); /status has them after dropwatch's next read (every
	// second). The oracle for the daemon is the witness: every firing of
	// the tracepoints in the router's namespace that reached a BPF program.
	fails := counter(t, pair.A, "TCPMD5Failure") - failBase
	own, foreign := kdSplit(w0, w.read(t), cookieR)
	p, waitErr := pollPeer(a, send.String(), 10*time.Second, func(p *status.Peer) bool {
		return p.KernelDrops != nil && p.KernelDrops.BadDigest == own
	})
	runs := runCount(t, progs) - runs0
	own2, foreign2 := kdSplit(w0, w.read(t), cookieR)
	if waitErr != nil || own2 != own {
		// Everything that tells where a drop went: the programs' runs and
		// the kernel's recursion misses, the witness, the daemon's drops of
		// no peer, and its counts map as it is now.
		st := a.Status()
		other := uint64(0)
		if st.KernelDrops != nil {
			other = st.KernelDrops.Other
		}
		last := "<absent>"
		if p != nil {
			last = kdString(p.KernelDrops)
		}
		t.Fatalf("/status peer %s: not kernel_drops.bad_digest = %d (the witness's firings in the router's namespace; %d later) within 10s; last kernel_drops %s (%v); "+
			"TCPMD5Failure +%d, kdrops program runs %d, recursion misses %d, witness +%d elsewhere, drops of no peer %d, the daemon's counts map %v",
			send, own, own2, last, waitErr, fails, runs, recursionMisses(t, progs), foreign2, other, daemonKdropsCounts(t, pid))
	}
	t.Logf("one wrong-key attempt: kdrops program runs %d, router TCPMD5Failure +%d, witness: %d in the router's namespace, %d elsewhere; /status %s",
		runs, fails, own, foreign, kdString(p.KernelDrops))
	if own == 0 || fails < own || runs < own || runs > own2+foreign2 {
		t.Errorf("after a wrong-key attempt: %d program runs, %d TCPMD5Failure drops, witness %d in the router's namespace (+%d elsewhere): want TcpExt drops >= witness > 0, the witness <= runs <= all the witness saw", runs, fails, own, foreign2)
	}
	if fails > own {
		// Seen once in about 12 full test runs under CI's load: the
		// kernel counted a TCPMD5Failure whose tcp_hash_md5_mismatch
		// firing reached neither the daemon's program nor the witness,
		// with no recursion miss counted. No tracepoint consumer can count
		// such a drop; the daemon's TcpExt metric (authbgpd_kernel_tcp_md5_drops_total) does.
		t.Logf("the kernel counted %d TCPMD5Failure drops, its tracepoint reached BPF programs %d times (recursion misses %d): %d drop(s) invisible to every tracepoint consumer",
			fails, own, recursionMisses(t, progs), fails-own)
	}
	with.frr.Stop()
	a.StopClean()

	// The baseline: the same transfer to a daemon without the counters.
	pair2 := newPair(t, "kdnobpf", false)
	dir := t.TempDir()
	conf := filepath.Join(dir, "authbgpd.toml")
	if err := os.WriteFile(conf, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pw"), []byte(password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d := startDaemon(t, pair2.Topology, pair2.A, "authbgpd", dir, nil, setpriv,
		"--bounding-set=-bpf,-perfmon,-sys_admin", "--inh-caps=-bpf,-perfmon,-sys_admin", "--",
		bin, "-f", conf, "--log-level", "info")
	b := &Authbgpd{GoBGP: &GoBGP{daemon: d}, Config: conf, t: t}
	b.waitHealthy(t)
	if kd := b.Status().KernelDrops; kd == nil || kd.Available || !strings.Contains(kd.Error, "CAP_BPF") {
		t.Fatalf("without CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN: /status kernel_drops %+v, want unavailable naming CAP_BPF", kd)
	}
	pidB := d.cmd.Process.Pid
	if c := procComm(pidB); c != "authbgpd" {
		t.Fatalf("PID %d is %q, not authbgpd", pidB, c)
	}
	without := runTransfer(t, pair2.Topology, pair2.A, pair2.B, pidB, nil, nil, n, password)
	t.Logf("without kdrops: %d prefixes in %v, daemon CPU %v", n, without.took.Round(time.Millisecond), without.cpu)
	t.Logf("daemon CPU for %d prefixes over TCP-MD5: with kdrops %v, without %v (ratio %.2f)", n, with.cpu, without.cpu, with.cpu.Seconds()/max(without.cpu.Seconds(), 0.01))
	// Nothing of kdrops runs on the good path; what remains is the noise of
	// a shared machine (and dropwatch's once-a-second read of an empty map).
	if with.cpu > 2*without.cpu+time.Second {
		t.Errorf("daemon CPU for the transfer with kdrops %v, without %v: more than twice (+1 s)", with.cpu, without.cpu)
	}
	b.StopClean()
	t.Logf("TestKernelDropsGoodPathIdle took %v", time.Since(start).Round(time.Millisecond))
}

// kdLater tells, for a failed comparison, what /status and TcpExt say 3 s
// later: a sum that caught up is a read taken before dropwatch's poll, one
// that did not is a drop our programs never counted.
func kdLater(t *testing.T, a *Authbgpd, nsR string, peers []kdPeer, r string, base map[string]uint64) string {
	t.Helper()
	time.Sleep(3 * time.Second)
	st := a.Status()
	var n uint64
	for _, p := range peers {
		if e := kdEntry(&st, p.id); e != nil && e.KernelDrops != nil {
			n += uint64(kdCounts(e.KernelDrops)[r])
		}
	}
	// The daemon's own counts map says whether its programs counted what
	// the kernel did (the loss then is between the map and /status) or not.
	return fmt.Sprintf("3 s later: the sum is %d, TcpExt deltas %v, kernel_drops %+v, the daemon's counts map (key hex: address, reason, ifindex) %v",
		n, tcpExtDelta(base, mustCounters(t, nsR), kdMD5Counters...), st.KernelDrops, daemonKdropsCounts(t, a.cmd.Process.Pid))
}
