package vmtest

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/capture/capfile"
	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/frame"
	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/internal/testlog"
	"github.com/authbgp/authbgpd/metrics"
	"github.com/authbgp/authbgpd/peerindex"
	"github.com/authbgp/authbgpd/shadow"
	"github.com/authbgp/authbgpd/status"
)

// TestTCPAOSNEWrap proves the sequence number extension (RFC 5925 §6.2) on
// a kernel-made TCP-AO session that crosses the 2^32 sequence wrap both
// ways: two sockets in two namespaces (veth, MTU 65000, hmac(sha1))
// carry 4 GiB + 64 MiB each way, so each direction wraps whatever its
// ISN, and
//
//   - the live shadow checker (shadow.Runner on an AF_PACKET capture, as
//     the daemon runs it) finds every segment it saw valid, none bad-mac
//     or no-handshake, and counts valid segments of each direction sent
//     after its wrap: the transfer pauses at the wrap (the sender has
//     written exactly up to the byte whose sequence number is 0), the
//     checker's counts are read, and the next 8 MiB are all past it;
//   - authbgpd verify-pcap, over tcpdump windows of full segments (the
//     handshake and the first 8 MiB, 8 MiB at each GiB, and 8 MiB either
//     side of each direction's wrap, so that no direction has a gap of
//     2 GiB or more between the captured segments), finds every captured
//     segment valid; the test checks from the files (with its own
//     unwrapping) that they hold segments just before and just after
//     each wrap and that the gaps are under 2^31.
//
// The transfer is paused while a capture starts and stops, so the windows
// are exact in sequence space. Breaking the SNE increment in tcpao/sne.go
// turns the post-wrap segments bad-mac in both checks.
//
// It moves 8.7 GB through the kernel's TCP-AO (a MAC each way per segment)
// and the checker: about 6.5 minutes in the VM under TCG, so it runs only
// with VMSOAK_WRAP=1 (make soak-vm).
func TestTCPAOSNEWrap(t *testing.T) {
	requireVM(t)
	if os.Getenv("VMSOAK_WRAP") != "1" {
		t.Skip("SKIP: VMSOAK_WRAP=1 runs it (make soak-vm): 4 GiB each way through TCP-AO takes minutes in the VM")
	}
	if fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0); err != nil {
		t.Fatal(err)
	} else {
		err := addAOKey(fd, aoKey{peer: netip.MustParseAddr("198.51.100.2"), prefix: 32, alg: "hmac(sha1)", sndID: 1, rcvID: 1, secret: []byte("probe")})
		unix.Close(fd)
		if errors.Is(err, unix.ENOPROTOOPT) {
			t.Fatalf("the guest kernel has no TCP-AO (CONFIG_TCP_AO): %v", err)
		} else if err != nil {
			t.Fatal(err)
		}
	}
	tcpdump := testenv.RequireBinary(t, "tcpdump", "/usr/sbin", "/usr/bin")
	bin := authbgpdBinary(t)
	start := time.Now()

	const (
		port   = 179
		window = 8 << 20              // bytes per direction a capture window holds
		total  = 1<<32 + 64<<20       // bytes each way: > 2^32, so both directions wrap
		chunk  = 1 << 20              // write size
		alg    = "hmac(sha1)"         // the kernel's generic SHA-1 is its fastest MAC here
		secret = "sne wrap test: mkt" // in the config file, never logged
	)
	srv, cli := netip.MustParseAddr("198.51.100.1"), netip.MustParseAddr("198.51.100.2")
	p := netns.NewPair(t, "snewr",
		netns.End{NS: "srv", If: "eth0", Addrs: []string{"198.51.100.1/24"}},
		netns.End{NS: "cli", If: "eth0", Addrs: []string{"198.51.100.2/24"}})
	for _, ns := range []string{p.A, p.B} {
		netns.Run(t, "ip", "-n", ns, "link", "set", "eth0", "mtu", "65000")
	}
	dir := t.TempDir()

	// The live checker, as the daemon's [shadow] runs it: our end is the
	// server, the peer is the client. KeyIDs differ per direction.
	var conf strings.Builder
	fmt.Fprintf(&conf, "[global]\nasn = 65001\nrouter-id = %q\n", srv)
	conf.WriteString("\n[shadow]\nenabled = true\ninterfaces = []\nworkers = 1\n")
	conf.WriteString(keychainTOML("w", mkt{id: 1, sendID: 3, recvID: 5, alg: alg, secret: secret}))
	fmt.Fprintf(&conf, "\n[[peers]]\naddress = %q\nasn = 65002\nkeychain = \"w\"\n", cli)
	confPath := filepath.Join(dir, "authbgpd.toml")
	if err := os.WriteFile(confPath, []byte(conf.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse(confPath, []byte(conf.String()))
	if err != nil {
		t.Fatal(err)
	}
	var logBuf testlog.Buffer
	log := logrus.New()
	log.SetOutput(&logBuf)
	runner := shadow.NewRunner(peerindex.New(cfg), log, metrics.New("test"), shadow.RunnerOptions{})
	if err := netns.Do(p.A, func() error { return runner.Start(context.Background()) }); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = runner.Stop(context.Background())
		if t.Failed() {
			t.Logf("---- shadow runner log ----\n%s", logBuf.String())
		}
	})
	if st := runner.CaptureStatus(); !st.Running || st.Error != "" {
		t.Fatalf("shadow capture: %+v", st)
	}

	// Capture windows: tcpdump with full segments (the MAC covers the
	// payload) and a ring that holds a whole window.
	var windows []string
	var capt *exec.Cmd
	startWin := func() {
		t.Helper()
		wd := filepath.Join(dir, fmt.Sprintf("w%02d", len(windows)))
		if err := os.Mkdir(wd, 0o755); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(wd, "capture.pcap")
		var logPath string
		capt, logPath = startProc(t, p.Topology, p.A, wd, "tcpdump", nil, tcpdump,
			"-i", "eth0", "-n", "--immediate-mode", "-U", "-s", "0", "-B", "65536", "-w", file, fmt.Sprintf("tcp port %d", port))
		waitFor(t, 30*time.Second, "tcpdump listening", func() error {
			b, _ := os.ReadFile(logPath)
			if strings.Contains(string(b), "listening on") {
				return nil
			}
			if capt.ProcessState != nil {
				return fmt.Errorf("tcpdump exited: %s", b)
			}
			return errNotYet
		})
		windows = append(windows, file)
	}
	stopWin := func() {
		time.Sleep(200 * time.Millisecond) // tcpdump writes the last segments
		netns.Stop(capt)
		capt = nil
	}

	// The session.
	srvKey := aoKey{peer: cli, prefix: 32, alg: alg, sndID: 3, rcvID: 5, secret: []byte(secret)}
	cliKey := aoKey{peer: srv, prefix: 32, alg: alg, sndID: 5, rcvID: 3, secret: []byte(secret)}
	var ln net.Listener
	if err := netns.Do(p.A, func() (err error) {
		lc := net.ListenConfig{Control: keyControl(&srvKey)}
		ln, err = lc.Listen(context.Background(), "tcp", netip.AddrPortFrom(srv, port).String())
		return err
	}); err != nil {
		t.Fatalf("listen: %v", err)
	}
	defer ln.Close()
	startWin() // the handshake is in the first window
	accepted := make(chan *net.TCPConn, 1)
	go func() {
		c, err := ln.(*net.TCPListener).AcceptTCP()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	cc, err := (&aoPair{Pair: p}).dial(ctx, netip.AddrPortFrom(srv, port).String(), &cliKey)
	cancel()
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer cc.Close()
	sc, ok := <-accepted
	if !ok {
		t.Fatal("accept failed")
	}
	defer sc.Close()

	// Two directions, each a sender writing up to the targets it is given
	// and a receiver reading everything.
	payload := make([]byte, chunk)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range payload {
		payload[i] = byte(rng.Uint32())
	}
	type direction struct {
		name   string
		w, r   *net.TCPConn
		target chan int64
		sent   chan error // one per target reached
		got    atomic.Int64
		rerr   chan error
		cur    int64 // the last target reached
	}
	dirs := [2]*direction{
		{name: "client->server", w: cc, r: sc},
		{name: "server->client", w: sc, r: cc},
	}
	for _, d := range dirs {
		d.target, d.sent, d.rerr = make(chan int64), make(chan error, 1), make(chan error, 1)
		go func() {
			var n int64
			for tgt := range d.target {
				var err error
				for n < tgt && err == nil {
					var m int
					m, err = d.w.Write(payload[:min(int64(chunk), tgt-n)])
					n += int64(m)
				}
				d.sent <- err
			}
		}()
		go func() {
			buf := make([]byte, chunk)
			for {
				n, err := d.r.Read(buf)
				d.got.Add(int64(n))
				if err != nil {
					if err == io.EOF {
						err = nil
					}
					d.rerr <- err
					return
				}
			}
		}()
	}
	defer func() {
		for _, d := range dirs {
			close(d.target)
		}
	}()
	// advance has direction i write up to tgt[i] (at least where it is)
	// and returns once the receivers have read it all: every segment
	// carrying those bytes has passed the captures.
	advance := func(tgt [2]int64) {
		t.Helper()
		for i, d := range dirs {
			tgt[i] = min(max(tgt[i], d.cur), total)
			d.target <- tgt[i]
		}
		for _, d := range dirs {
			if err := <-d.sent; err != nil {
				t.Fatalf("%s: write: %v", d.name, err)
			}
		}
		deadline := time.Now().Add(10 * time.Minute) // a GiB takes 1.5 minutes under TCG
		for i, d := range dirs {
			for d.got.Load() < tgt[i] {
				if time.Now().After(deadline) {
					t.Fatalf("%s: read %d of %d bytes in 10 minutes", d.name, d.got.Load(), tgt[i])
				}
				time.Sleep(time.Millisecond)
			}
			d.cur = tgt[i]
		}
	}
	// settle waits until the live checker has taken every segment of the
	// capture (nothing is sent: its counts stop moving) and returns them.
	settle := func() shadow.PeerReport {
		t.Helper()
		var last shadow.PeerReport
		sum := func(r shadow.PeerReport) [2]uint64 {
			c, s := r.Received, r.Sent
			return [2]uint64{c.Valid + c.BadDigest + c.Missing + c.Unexpected + c.BadMAC + c.UnknownKey + c.NoHandshake,
				s.Valid + s.Invalid + s.Unsigned + s.NoHandshake}
		}
		for i, stable := 0, 0; i < 100; i++ {
			time.Sleep(100 * time.Millisecond)
			r := runner.Reports()[cli.String()]
			if sum(r) == sum(last) {
				if stable++; stable >= 3 {
					return r
				}
			} else {
				stable = 0
			}
			last = r
		}
		t.Fatalf("the live checker's counts did not settle in 10 s: %+v", last)
		return last
	}
	valid := func(r shadow.PeerReport, i int) uint64 { // direction i's valid segments
		if i == 0 {
			return r.Received.Valid
		}
		return r.Sent.Valid
	}

	// Window 0: the handshake and the first bytes. Its SYNs give the ISNs,
	// and so where each direction wraps (the stream offset whose sequence
	// number is 0).
	advance([2]int64{window, window})
	stopWin()
	isn, err := wrapISNs(windows[0], cli, srv, port)
	if err != nil {
		t.Fatal(err)
	}
	var wrapAt [2]int64
	for i := range dirs {
		wrapAt[i] = int64(uint32(-(isn[i] + 1))) // offset o has sequence number isn+1+o
		if wrapAt[i] <= dirs[i].cur {            // wrapped in window 0: take the second wrap
			wrapAt[i] += 1 << 32
		}
		t.Logf("%s: ISN %d, the sequence number wraps after %d bytes (SNE %d from there)", dirs[i].name, isn[i], wrapAt[i], wrapAt[i]>>32+1)
	}

	// The windows, in order of where they begin: 8 MiB at every GiB both
	// ways, and each direction's wrap ±8 MiB with the transfer paused at
	// the wrap.
	type win struct {
		from int64
		dir  int // -1: both directions, at every GiB; else the wrap of dir
	}
	var plan []win
	for k := int64(1); k <= 4; k++ {
		plan = append(plan, win{from: k << 30, dir: -1})
	}
	for i := range dirs {
		plan = append(plan, win{from: wrapAt[i] - window, dir: i})
	}
	for i := 1; i < len(plan); i++ { // insertion sort by from
		for j := i; j > 0 && plan[j].from < plan[j-1].from; j-- {
			plan[j], plan[j-1] = plan[j-1], plan[j]
		}
	}
	var postWrap [2]uint64 // valid segments the live checker saw of each direction past its wrap
	var wrapWin [2]int     // the capture window of each wrap
	for _, w := range plan {
		advance([2]int64{w.from, w.from})
		startWin()
		if w.dir < 0 {
			advance([2]int64{w.from + window, w.from + window})
		} else {
			i := w.dir
			tgt := [2]int64{dirs[0].cur, dirs[1].cur}
			tgt[i] = wrapAt[i]
			advance(tgt)
			before := settle()
			tgt[i] = wrapAt[i] + window
			advance(tgt)
			after := settle()
			postWrap[i] = valid(after, i) - valid(before, i)
			wrapWin[i] = len(windows) - 1
			t.Logf("%s: the live checker verified %d segments past the wrap (received %+v, sent %+v)", dirs[i].name, postWrap[i], after.Received, after.Sent)
		}
		stopWin()
	}
	advance([2]int64{total, total})
	for _, d := range dirs {
		_ = d.w.CloseWrite()
	}
	for _, d := range dirs {
		select {
		case err := <-d.rerr:
			if err != nil {
				t.Fatalf("%s: read: %v", d.name, err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: no end of stream", d.name)
		}
		if d.got.Load() != total {
			t.Errorf("%s: read %d bytes, want %d", d.name, d.got.Load(), total)
		}
	}
	elapsed := time.Since(start)
	for _, s := range []struct {
		who string
		c   *net.TCPConn
	}{{"client", cc}, {"server", sc}} {
		var info aoInfo
		if err := rawFD(s.c, func(fd int) (err error) { info, err = getAOInfo(fd); return err }); err != nil {
			t.Fatalf("%s: %v", s.who, err)
		}
		t.Logf("%s TCP_AO_INFO: good %d bad %d key_not_found %d", s.who, info.Good, info.Bad, info.KeyNotFound)
		if info.Good == 0 || info.Bad != 0 || info.KeyNotFound != 0 {
			t.Errorf("%s: the kernel counts good %d bad %d key_not_found %d", s.who, info.Good, info.Bad, info.KeyNotFound)
		}
	}
	t.Logf("transferred %d bytes client->server and %d bytes server->client in %v (%.0f MB/s each way)",
		dirs[0].got.Load(), dirs[1].got.Load(), elapsed.Round(time.Millisecond), float64(total)/elapsed.Seconds()/1e6)

	// (a) The live checker: everything it saw valid, post-wrap segments
	// among them in both directions.
	live := settle()
	st := runner.CaptureStatus()
	t.Logf("live checker: diagnosis %s, received %+v, sent %+v; capture %d packets, %d dropped (ring full), %d truncated",
		live.Diagnosis, live.Received, live.Sent, st.Packets, st.Drops, st.Truncated)
	rc, sn := live.Received, live.Sent
	if live.Diagnosis != shadow.DiagOK || rc.Valid == 0 || rc.BadMAC != 0 || rc.NoHandshake != 0 || rc.UnknownKey != 0 ||
		rc.Missing != 0 || rc.Unexpected != 0 || rc.BadDigest != 0 {
		t.Errorf("live checker: %s, received %+v: want ok, every segment valid", live.Diagnosis, rc)
	}
	if sn.Valid == 0 || sn.Invalid != 0 || sn.Unsigned != 0 || sn.NoHandshake != 0 {
		t.Errorf("live checker: sent %+v: want every segment valid", sn)
	}
	if st.Truncated != 0 {
		t.Errorf("live checker: %d frames truncated", st.Truncated)
	}
	// Every frame the ring delivered (the dropped ones never reached the
	// checker) was a segment of the session, and checked.
	all := rc.Valid + rc.BadDigest + rc.Missing + rc.Unexpected + rc.BadMAC + rc.UnknownKey + rc.NoHandshake +
		sn.Valid + sn.Invalid + sn.Unsigned + sn.NoHandshake
	if all != st.Packets-st.Drops {
		t.Errorf("live checker: %d segments checked of %d frames captured (%d dropped)", all, st.Packets-st.Drops, st.Drops)
	}
	for i, d := range dirs {
		if postWrap[i] == 0 {
			t.Errorf("%s: the live checker verified no segment past the wrap", d.name)
		}
	}

	// (b) The capture windows, read by the test: segments just before
	// and just after each wrap, no gap of 2^31 or more.
	segs, err := wrapCaptured(windows, cli, srv, port, isn)
	if err != nil {
		t.Fatal(err)
	}
	var capBytes int64
	for _, f := range windows {
		if fi, err := os.Stat(f); err == nil {
			capBytes += fi.Size()
		}
	}
	t.Logf("%d capture windows, %d bytes of pcap, %d segments", len(windows), capBytes, segs.n)
	for i, d := range dirs {
		ws := segs.dir[i]
		w := uint64(wrapAt[i]) + uint64(isn[i]) + 1 // the extended sequence number of the wrap
		t.Logf("%s: %d segments captured, highest sequence %#x (SNE %d), largest gap %d bytes; around the wrap at %#x: %d segments before, %d after",
			d.name, ws.n, ws.hi, ws.hi>>32, ws.maxGap, w, ws.near(w, window, false), ws.near(w, window, true))
		if ws.maxGap >= 1<<31 {
			t.Errorf("%s: a gap of %d bytes between captured segments, want < 2^31", d.name, ws.maxGap)
		}
		if ws.near(w, window, false) == 0 || ws.near(w, window, true) == 0 {
			t.Errorf("%s: the capture (window %d) has no segment within %d bytes before or after the wrap", d.name, wrapWin[i], window)
		}
	}

	// verify-pcap over the windows, in order.
	var stderr strings.Builder
	cmd := exec.Command(bin, append([]string{"verify-pcap", "-f", confPath, "--json"}, windows...)...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("authbgpd verify-pcap: %v\n%s%s", err, stderr.String(), out)
	}
	var rep struct {
		Files []struct {
			Name  string           `json:"name"`
			Stats shadow.FileStats `json:"stats"`
		} `json:"files"`
		Peers []struct {
			Address string         `json:"address"`
			Shadow  *status.Shadow `json:"shadow"`
		} `json:"peers"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("verify-pcap --json: %v\n%s", err, out)
	}
	var checked uint64
	for _, f := range rep.Files {
		checked += f.Stats.Checked
	}
	seen := false
	for _, pr := range rep.Peers {
		if pr.Address != cli.String() || pr.Shadow == nil {
			continue
		}
		seen = true
		sh := pr.Shadow
		t.Logf("verify-pcap %s: %s (%d segments checked in %d files)", pr.Address, shadowJSON(sh), checked, len(rep.Files))
		sg := sh.Segments
		if sh.Diagnosis != shadow.DiagOK || sg.Valid == 0 || val(sg.BadMAC) != 0 || val(sg.NoHandshake) != 0 || val(sg.UnknownKey) != 0 ||
			sg.Missing != 0 || sg.Unexpected != 0 || sg.BadDigest != 0 {
			t.Errorf("verify-pcap: %s: received %s, want every segment valid", pr.Address, shadowJSON(sh))
		}
		if sh.Sent == nil || sh.Sent.Valid == 0 || sh.Sent.Invalid != 0 || sh.Sent.Unsigned != 0 || val(sh.Sent.NoHandshake) != 0 {
			t.Errorf("verify-pcap: %s: sent %s, want every segment valid", pr.Address, shadowJSON(sh))
		} else if n := sg.Valid + sh.Sent.Valid; n != checked || n != uint64(segs.n) {
			t.Errorf("verify-pcap: %d valid segments of %d checked (%d in the files)", n, checked, segs.n)
		}
	}
	if !seen {
		t.Errorf("verify-pcap reports nothing of %s:\n%s", cli, out)
	}
	t.Logf("TestTCPAOSNEWrap took %v", time.Since(start).Round(time.Millisecond))
}

// wrapISNs reads the ISNs of the session to srv:port from its SYN
// (client->server, index 0) and SYN-ACK (server->client, index 1).
func wrapISNs(file string, cli, srv netip.Addr, port uint16) ([2]uint32, error) {
	var isn [2]uint32
	var have [2]bool
	err := capfile.EachFile(file, func(pk capfile.Packet) error {
		var f frame.TCP
		if frame.DecodeTCP(pk.LinkType, pk.Data, &f) != nil {
			return nil
		}
		flags, seq := f.Segment[13], binary.BigEndian.Uint32(f.Segment[4:])
		switch {
		case flags&0x12 == 0x02 && f.Src.Unmap() == cli && f.Dst.Unmap() == srv && f.DstPort == port:
			isn[0], have[0] = seq, true
		case flags&0x12 == 0x12 && f.Src.Unmap() == srv && f.SrcPort == port && f.Dst.Unmap() == cli:
			isn[1], have[1] = seq, true
		}
		return nil
	})
	if err == nil && (!have[0] || !have[1]) {
		err = fmt.Errorf("%s: no SYN (%v) or SYN-ACK (%v) of the session", file, have[0], have[1])
	}
	return isn, err
}

// wrapSeqs is one direction's captured sequence numbers, extended to 64
// bits from its ISN (SNE 0) by the test's own reckoning: a captured
// segment is within 2^31 of the highest one before it.
type wrapSeqs struct {
	n      int
	hi     uint64   // the highest extended sequence number
	maxGap uint64   // the largest step up between consecutive captured segments
	seqs   []uint64 // every extended sequence number, in capture order
}

func (w *wrapSeqs) add(seq uint32) {
	x := uint64(int64(w.hi) + int64(int32(seq-uint32(w.hi))))
	if x > w.hi {
		w.maxGap = max(w.maxGap, x-w.hi)
		w.hi = x
	}
	w.seqs = append(w.seqs, x)
	w.n++
}

// near counts the segments within d bytes before (after: at or after) the
// extended sequence number wrap.
func (w *wrapSeqs) near(wrap uint64, d int64, after bool) int {
	n := 0
	for _, x := range w.seqs {
		if (after && x >= wrap && x < wrap+uint64(d)) || (!after && x < wrap && x+uint64(d) >= wrap) {
			n++
		}
	}
	return n
}

type wrapCapture struct {
	n   int // segments of the session
	dir [2]*wrapSeqs
}

// wrapCaptured reads the windows in order: the session's segments, both
// directions.
func wrapCaptured(files []string, cli, srv netip.Addr, port uint16, isn [2]uint32) (wrapCapture, error) {
	c := wrapCapture{dir: [2]*wrapSeqs{{hi: uint64(isn[0])}, {hi: uint64(isn[1])}}}
	for _, file := range files {
		err := capfile.EachFile(file, func(pk capfile.Packet) error {
			var f frame.TCP
			if frame.DecodeTCP(pk.LinkType, pk.Data, &f) != nil {
				return nil
			}
			i := 0
			switch {
			case f.Src.Unmap() == cli && f.Dst.Unmap() == srv && f.DstPort == port:
			case f.Src.Unmap() == srv && f.SrcPort == port && f.Dst.Unmap() == cli:
				i = 1
			default:
				return nil
			}
			if len(pk.Data) < pk.OrigLen {
				return fmt.Errorf("%s: a truncated segment (%d of %d bytes)", file, len(pk.Data), pk.OrigLen)
			}
			c.n++
			c.dir[i].add(binary.BigEndian.Uint32(f.Segment[4:]))
			return nil
		})
		if err != nil {
			return c, err
		}
	}
	return c, nil
}
