package vmtest

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/capture/capfile"
	"github.com/authbgp/authbgpd/frame"
	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/status"
	"github.com/authbgp/authbgpd/tcpao"
)

// The helpers of the BGP tests in the VM: the authbgpd binary, an authbgpd
// router in a namespace of the guest read through its HTTP API, ExaBGP
// speaking TCP-AO through exabgp_ao.py, and tcpdump captures.

// ---------------------------------------------------------------- files

const modulePath = "github.com/authbgp/authbgpd"

var (
	rootOnce sync.Once
	rootDir  string
	rootErr  error
)

// repoRoot is the module's directory: make vmtest runs the test binary
// from it, go test from e2e/vmtest.
func repoRoot(t testing.TB) string {
	t.Helper()
	rootOnce.Do(func() {
		d, err := os.Getwd()
		if err != nil {
			rootErr = err
			return
		}
		for {
			b, err := os.ReadFile(filepath.Join(d, "go.mod"))
			if err == nil && strings.HasPrefix(string(b), "module "+modulePath+"\n") {
				rootDir = d
				return
			}
			up := filepath.Dir(d)
			if up == d {
				rootErr = fmt.Errorf("no go.mod of %s above the working directory", modulePath)
				return
			}
			d = up
		}
	})
	if rootErr != nil {
		t.Fatal(rootErr)
	}
	return rootDir
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// authbgpdBinary is the daemon the tests run: $AUTHBGPD_BIN, else
// bin/authbgpd of the repository (`make build`: CGO_ENABLED=0, on the host)
// when it is newer than every Go source, go.mod and go.sum of the module, so
// that a stale binary is never tested. Otherwise it is built here in the
// guest when the guest shares a Go build cache (VM_GOCACHE=$(go env
// GOCACHE): about 80 s under TCG); without one that takes 11 minutes, so the
// test fails and says what to run.
func authbgpdBinary(t testing.TB) string {
	t.Helper()
	root := repoRoot(t)
	binOnce.Do(func() {
		if p := os.Getenv("AUTHBGPD_BIN"); p != "" {
			binPath = p
			return
		}
		p := filepath.Join(root, "bin", "authbgpd")
		newer, err := newerSource(root, p)
		if err == nil && newer == "" {
			binPath = p
			return
		}
		why := fmt.Sprintf("%s is older than %s", p, newer)
		if err != nil {
			why = err.Error()
		}
		if os.Getenv("VM_GOCACHE") == "" {
			binErr = fmt.Errorf("%s: run `make build` (CGO_ENABLED=0 go build -trimpath -o bin/authbgpd ./cmd/authbgpd) "+
				"on the host first, or set AUTHBGPD_BIN, or VM_GOCACHE=$(go env GOCACHE) to build it in the guest (~80 s)", why)
			return
		}
		dir, err := os.MkdirTemp("", "vmtest-authbgpd-")
		if err != nil {
			binErr = err
			return
		}
		out := filepath.Join(dir, "authbgpd")
		t.Logf("%s: building authbgpd in the guest with GOCACHE %s (`make build` first avoids it)", why, os.Getenv("GOCACHE"))
		start := time.Now()
		cmd := exec.Command("go", "build", "-trimpath", "-o", out, "./cmd/authbgpd")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if b, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build ./cmd/authbgpd: %v\n%s", err, b)
			return
		}
		t.Logf("built %s in %v", out, time.Since(start).Round(time.Second))
		binPath = out
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// newerSource returns a non-test Go file (or go.mod, go.sum) of the module
// at root modified after bin, "" when there is none; an error when bin is
// missing. The test-only trees (e2e, internal, tcpsock/tcpsocktest) are not
// the daemon's: edits there do not make it stale.
func newerSource(root, bin string) (string, error) {
	st, err := os.Stat(bin)
	if err != nil {
		return "", err
	}
	built := st.ModTime()
	var newer string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if newer != "" {
			return fs.SkipAll
		}
		name := d.Name()
		if d.IsDir() {
			switch rel, _ := filepath.Rel(root, p); {
			case p == root:
			case strings.HasPrefix(name, "."), name == "bin", name == "testdata", name == "node_modules",
				rel == "e2e", rel == "internal", rel == filepath.Join("tcpsock", "tcpsocktest"):
				return fs.SkipDir
			}
			return nil
		}
		if (strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go")) || name == "go.mod" || name == "go.sum" {
			if fi, err := d.Info(); err == nil && fi.ModTime().After(built) {
				newer = p
			}
		}
		return nil
	})
	return newer, err
}

// startProc runs argv in namespace ns with env added, output to dir/name.log;
// tp stops it by PID. The log is printed when t fails (or VMTEST_LOGS=1).
func startProc(t testing.TB, tp *netns.Topology, ns, dir, name string, env []string, argv ...string) (*exec.Cmd, string) {
	t.Helper()
	logPath := filepath.Join(dir, name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := netns.Exec(ns, argv...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Env = append(os.Environ(), env...)
	tp.Start(cmd)
	t.Cleanup(func() {
		if t.Failed() || os.Getenv("VMTEST_LOGS") == "1" {
			b, _ := os.ReadFile(logPath)
			s := string(b)
			if len(s) > 12000 {
				s = "…" + s[len(s)-12000:]
			}
			t.Logf("---- %s log (%s) ----\n%s", name, logPath, s)
		}
	})
	return cmd, logPath
}

// ---------------------------------------------------------------- authbgpd

// routerHTTP is the router's HTTP API, on loopback of its namespace.
const routerHTTP = "127.0.0.1:9179"

// router is an authbgpd running in a namespace.
type router struct {
	t       testing.TB
	ns, bin string
	conf    string // its config file
	cmd     *exec.Cmd
	logPath string
}

// startRouter writes conf into a fresh directory and runs authbgpd -f on it
// in ns, waiting until /healthz answers.
func startRouter(t testing.TB, tp *netns.Topology, ns, conf string) *router {
	t.Helper()
	r := launchRouter(t, tp, ns, conf)
	r.waitHealthy(t)
	return r
}

// launchRouter is startRouter without the wait: it returns once the
// process is started (routers meant to start at the same time).
func launchRouter(t testing.TB, tp *netns.Topology, ns, conf string) *router {
	t.Helper()
	return launchRouterIn(t, tp, ns, t.TempDir(), conf)
}

// launchRouterIn is launchRouter with the router's files in dir (one that
// outlives t, for a router a subtest starts and later ones use).
func launchRouterIn(t testing.TB, tp *netns.Topology, ns, dir, conf string) *router {
	t.Helper()
	r := &router{t: t, ns: ns, bin: authbgpdBinary(t)}
	r.conf = filepath.Join(dir, "authbgpd.toml")
	if err := os.WriteFile(r.conf, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	r.cmd, r.logPath = startProc(t, tp, ns, dir, "authbgpd", nil, r.bin, "-f", r.conf, "--log-level", "debug")
	return r
}

// waitHealthy waits until the router's /healthz answers.
func (r *router) waitHealthy(t testing.TB) {
	t.Helper()
	waitFor(t, 30*time.Second, "authbgpd /healthz", func() error {
		if r.cmd.ProcessState != nil {
			return errors.New("authbgpd exited")
		}
		_, err := r.get("/healthz")
		return err
	})
}

// get fetches path from the router's HTTP API, connecting from inside its
// namespace.
func (r *router) get(path string) ([]byte, error) {
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		DisableKeepAlives: true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			var c net.Conn
			err := netns.Do(r.ns, func() (err error) {
				c, err = (&net.Dialer{Timeout: 3 * time.Second}).DialContext(ctx, network, addr)
				return err
			})
			return c, err
		},
	}}
	resp, err := c.Get("http://" + routerHTTP + path)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %s: %s", path, resp.Status, b)
	}
	return b, err
}

// status is the router's /status.
func (r *router) status() (*status.Status, error) {
	b, err := r.get("/status")
	if err != nil {
		return nil, err
	}
	var s status.Status
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("/status: %w: %s", err, b)
	}
	return &s, nil
}

// peer is addr's entry of /status (nil when absent or unreadable).
func (r *router) peer(addr string) *status.Peer {
	s, err := r.status()
	if err != nil {
		return nil
	}
	for i := range s.Peers {
		if s.Peers[i].Address == addr {
			return &s.Peers[i]
		}
	}
	return nil
}

// waitPeer polls addr's /status entry (up to d) until ok holds, and fails
// t with the last entry if it never does.
func (r *router) waitPeer(t testing.TB, addr string, d time.Duration, what string, ok func(*status.Peer) bool) *status.Peer {
	t.Helper()
	var p *status.Peer
	err := poll(d, func() error {
		p = r.peer(addr)
		if p != nil && ok(p) {
			return nil
		}
		return errors.New(peerString(p))
	})
	if err != nil {
		t.Fatalf("/status peer %s: not %s within %v; last: %v", addr, what, d, err)
	}
	return p
}

// reload writes conf and has the daemon apply it (`authbgpd reload`, which
// returns when the reload is done), failing t unless it is applied.
func (r *router) reload(t testing.TB, conf string) {
	t.Helper()
	if err := os.WriteFile(r.conf, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := netns.Exec(r.ns, r.bin, "reload", "--api", routerHTTP).CombinedOutput()
	if err != nil {
		t.Fatalf("authbgpd reload: %v\n%s", err, out)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if !strings.Contains(l, "warning") {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	t.Logf("authbgpd reload: %s", strings.Join(lines, "; "))
}

// metric is the value of the series name{labels} ("peer=\"192.0.2.2\"")
// on /metrics, and whether it is there.
func (r *router) metric(t testing.TB, name, labels string) (float64, bool) {
	t.Helper()
	b, err := r.get("/metrics")
	if err != nil {
		t.Fatal(err)
	}
	want := name + "{" + labels + "} "
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, want) {
			var v float64
			if _, err := fmt.Sscan(strings.TrimPrefix(line, want), &v); err == nil {
				return v, true
			}
		}
	}
	return 0, false
}

// log is what the router logged so far.
func (r *router) log() string {
	b, _ := os.ReadFile(r.logPath)
	return string(b)
}

// peerString renders a /status peer for failure messages (/status holds
// no secret).
func peerString(p *status.Peer) string {
	if p == nil {
		return "<absent>"
	}
	b, _ := json.Marshal(p)
	return string(b)
}

// ---------------------------------------------------------------- TCP-AO keys

// mkt is one TCP-AO master key tuple of a test chain, for both ends: the
// router's [[keychains.keys]] entry (id, send-id, recv-id) and the far
// end's, which mirrors it (the far end sends with our recv-id).
type mkt struct {
	id             int
	sendID, recvID int // ours
	alg            string
	secret         string
	sendFrom       time.Time // zero: none
	noOptions      bool      // include-tcp-options = false (TCP_AO_KEYF_EXCLUDE_OPT)
	cfgAlg         string    // the config's algorithm name, when alg does not say it (hmac-sha-256, ...)
	macLen         int       // mac-length; 0: none written (12)
}

// configAlg is the config's name of the kernel algorithm.
func (k mkt) configAlg() string {
	if k.cfgAlg != "" {
		return k.cfgAlg
	}
	if k.alg == "cmac(aes128)" {
		return "aes-128-cmac-96"
	}
	return "hmac-sha-1-96"
}

// keychainTOML is a [[keychains]] entry of type tcp-ao.
func keychainTOML(name string, keys ...mkt) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n[[keychains]]\nname = %q\ntype = \"tcp-ao\"\n", name)
	for _, k := range keys {
		fmt.Fprintf(&b, "  [[keychains.keys]]\n  id = %d\n  send-id = %d\n  recv-id = %d\n  algorithm = %q\n  secret = %q\n",
			k.id, k.sendID, k.recvID, k.configAlg(), k.secret)
		if !k.sendFrom.IsZero() {
			fmt.Fprintf(&b, "  send-from = %s\n", k.sendFrom.UTC().Format(time.RFC3339Nano))
		}
		if k.noOptions {
			b.WriteString("  include-tcp-options = false\n")
		}
		if k.macLen != 0 {
			fmt.Fprintf(&b, "  mac-length = %d\n", k.macLen)
		}
	}
	return b.String()
}

// exaKey is an MKT as exabgp_ao.py reads it: the far end's view of k
// (SendID and RecvID swapped) for a scope of prefix bits.
type exaKey struct {
	SendID    int      `json:"send_id"`
	RecvID    int      `json:"recv_id"`
	Alg       string   `json:"alg"`
	SecretHex string   `json:"secret_hex"`
	Prefix    int      `json:"prefix,omitempty"`
	SendFrom  *float64 `json:"send_from,omitempty"`
	NoOptions bool     `json:"exclude_options,omitempty"`
}

func farEnd(keys ...mkt) []exaKey {
	out := make([]exaKey, len(keys))
	for i, k := range keys {
		out[i] = exaKey{SendID: k.recvID, RecvID: k.sendID, Alg: k.alg, SecretHex: hex.EncodeToString([]byte(k.secret)), NoOptions: k.noOptions}
		if !k.sendFrom.IsZero() {
			f := float64(k.sendFrom.UnixNano()) / 1e9
			out[i].SendFrom = &f
		}
	}
	return out
}

// ---------------------------------------------------------------- ExaBGP

// exaNeighbor is one neighbor of the ExaBGP peer: it dials peer from local.
type exaNeighbor struct {
	peer, local netip.Addr
	asn, peerAS uint32
	// auth: "" none, "ao-NAME" the TCP-AO chain NAME of the keys file,
	// anything else a TCP-MD5 password.
	auth   string
	routes []string // announced prefixes, next-hop self
	// passive: ExaBGP does not dial; it listens on local (port 179,
	// exabgp.tcp.bind), the neighbor's MKTs on its listening socket
	// (exabgp_ao.py's MD5() there too).
	passive bool
}

// exaBGP is ExaBGP 4.2 run by exabgp_ao.py in a namespace.
type exaBGP struct {
	cmd        *exec.Cmd
	logPath    string
	eventsFile string
	keysFile   string
}

// startExaBGP runs ExaBGP (through exabgp_ao.py) in ns with the neighbors
// and the TCP-AO chains (name -> far-end keys).
func startExaBGP(t testing.TB, tp *netns.Topology, ns string, routerID string, nbrs []exaNeighbor, chains map[string][]exaKey) *exaBGP {
	t.Helper()
	py := testenv.RequireBinary(t, "python3")
	testenv.RequireBinary(t, "exabgp", "/usr/sbin")
	dir := t.TempDir()
	e := &exaBGP{eventsFile: filepath.Join(dir, "events.json"), keysFile: filepath.Join(dir, "keys.json")}
	e.setChains(t, chains)
	// Not "exec cat": ExaBGP takes the end of the API process's stdout for
	// its death, so the shell keeps it open while cat appends.
	script := filepath.Join(dir, "events.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ncat >> '"+e.eventsFile+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "process events {\n  run %s;\n  encoder json;\n}\n", script)
	var binds []string
	for _, n := range nbrs {
		fam := "ipv4"
		if n.peer.Is6() {
			fam = "ipv6"
		}
		fmt.Fprintf(&b, "neighbor %s {\n  router-id %s;\n  local-address %s;\n  local-as %d;\n  peer-as %d;\n  hold-time 30;\n",
			n.peer, routerID, n.local, n.asn, n.peerAS)
		if n.auth != "" {
			fmt.Fprintf(&b, "  md5-password %q;\n", n.auth)
		}
		if n.passive {
			b.WriteString("  passive true;\n")
			if !slices.Contains(binds, n.local.String()) {
				binds = append(binds, n.local.String())
			}
		}
		fmt.Fprintf(&b, "  family { %s unicast; }\n", fam)
		b.WriteString("  api { processes [ events ]; neighbor-changes; }\n  static {\n")
		for _, r := range n.routes {
			fmt.Fprintf(&b, "    route %s next-hop self;\n", r)
		}
		b.WriteString("  }\n}\n")
	}
	conf := filepath.Join(dir, "exabgp.conf")
	if err := os.WriteFile(conf, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{
		"EXABGP_AO_KEYS=" + e.keysFile,
		"exabgp_daemon_user=root", "exabgp_daemon_drop=false", "exabgp_daemon_daemonize=false",
		"exabgp_daemon_pid=" + filepath.Join(dir, "exabgp.pid"),
		"exabgp_api_cli=false", "exabgp_log_destination=stdout", "exabgp_log_all=false",
		"exabgp_reactor_speed=0.1", "PYTHONDONTWRITEBYTECODE=1",
	}
	if len(binds) > 0 {
		env = append(env, "exabgp_tcp_bind="+strings.Join(binds, " "), "exabgp_tcp_port=179")
	}
	e.cmd, e.logPath = startProc(t, tp, ns, dir, "exabgp", env, py, filepath.Join(repoRoot(t), "e2e", "vmtest", "exabgp_ao.py"), conf)
	return e
}

// setChains (re)writes the keys file exabgp_ao.py follows, atomically.
func (e *exaBGP) setChains(t testing.TB, chains map[string][]exaKey) {
	t.Helper()
	b, err := json.Marshal(map[string]any{"chains": chains})
	if err != nil {
		t.Fatal(err)
	}
	tmp := e.keysFile + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, e.keysFile); err != nil {
		t.Fatal(err)
	}
}

// state is ExaBGP's last reported state of its session from local to peer:
// "up", "connected", "down" or "" (none yet), and how many times it came up.
func (e *exaBGP) state(local, peer netip.Addr) (string, int) {
	data, _ := os.ReadFile(e.eventsFile)
	state, ups := "", 0
	for _, line := range strings.Split(string(data), "\n") {
		var ev struct {
			Type     string `json:"type"`
			Neighbor struct {
				Address struct {
					Local string `json:"local"`
					Peer  string `json:"peer"`
				} `json:"address"`
				State string `json:"state"`
			} `json:"neighbor"`
		}
		if json.Unmarshal([]byte(line), &ev) != nil || ev.Type != "state" || ev.Neighbor.Address.Peer != peer.String() || ev.Neighbor.Address.Local != local.String() {
			continue
		}
		state = ev.Neighbor.State
		if state == "up" {
			ups++
		}
	}
	return state, ups
}

// ---------------------------------------------------------------- capture

// capture is a tcpdump writing a pcap file in a namespace.
type capture struct {
	cmd  *exec.Cmd
	file string
}

// startCapture runs tcpdump on ifc in ns with filter, into a pcap file of
// dir, and waits until it listens. With --immediate-mode libpcap uses a
// TPACKET_V2 ring of snaplen-sized frames: the defaults (-s 0, 256 KiB,
// and a 2 MiB buffer) make 8 of them, which 30 connections opening at once
// overran in the guest (TestTCPAOAlgorithmsKernel lost a handshake: "138
// packets dropped by kernel"). Signed segments are never GSO or GRO
// aggregates (the kernel turns both off for TCP-MD5 and TCP-AO sockets),
// so 64 KiB frames hold any of them, and 64 MiB holds about 1,000.
func startCapture(t testing.TB, tp *netns.Topology, ns, ifc, dir, filter string) *capture {
	t.Helper()
	bin := testenv.RequireBinary(t, "tcpdump", "/usr/sbin", "/usr/bin")
	c := &capture{file: filepath.Join(dir, "capture.pcap")}
	var logPath string
	c.cmd, logPath = startProc(t, tp, ns, dir, "tcpdump", nil, bin, "-i", ifc, "-n", "--immediate-mode", "-U", "-s", "65535", "-B", "65536", "-w", c.file, filter)
	waitFor(t, 30*time.Second, "tcpdump listening", func() error {
		b, _ := os.ReadFile(logPath)
		if strings.Contains(string(b), "listening on") {
			return nil
		}
		if c.cmd.ProcessState != nil {
			return fmt.Errorf("tcpdump exited: %s", b)
		}
		return errNotYet
	})
	return c
}

// stop ends the capture (SIGTERM: tcpdump flushes and exits).
func (c *capture) stop() { netns.Stop(c.cmd) }

// segment is one TCP segment of a capture.
type segment struct {
	src, dst netip.AddrPort
	flags    byte
	ao       *tcpao.Option // nil: no TCP-AO option
	md5      bool
	payload  int
}

func (s segment) syn() bool { return s.flags&0x02 != 0 }

// segments decodes every TCP segment of a pcap file.
func segments(t testing.TB, file string) []segment {
	t.Helper()
	out, err := readSegments(file)
	if err != nil {
		t.Fatalf("read %s: %v", file, err)
	}
	return out
}

// readSegments is segments' reading: the segments of the capture, and the
// error that ended it (a capture still being written may end in the
// middle of a record: the segments before it are returned).
func readSegments(file string) ([]segment, error) {
	var out []segment
	err := capfile.EachFile(file, func(p capfile.Packet) error {
		var f frame.TCP
		if frame.DecodeTCP(p.LinkType, p.Data, &f) != nil {
			return nil
		}
		seg := segment{src: netip.AddrPortFrom(f.Src.Unmap(), f.SrcPort), dst: netip.AddrPortFrom(f.Dst.Unmap(), f.DstPort), flags: f.Segment[13]}
		opts, err := tcpao.SegmentOptions(f.Segment)
		if err == nil && opts.HasAO {
			o := opts.AO
			o.MAC = append([]byte(nil), o.MAC...)
			seg.ao = &o
		}
		seg.md5 = opts.HasMD5
		seg.payload = len(f.Segment) - int(f.Segment[12]>>4)*4
		out = append(out, seg)
		return nil
	})
	return out, err
}

// ---------------------------------------------------------------- waiting

var errNotYet = errors.New("condition not met")

// poll calls cond every 100 ms until it returns nil or d has passed, and
// returns nil or cond's last error.
func poll(d time.Duration, cond func() error) error {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var err error
	if netns.WaitFor(ctx, func() bool { err = cond(); return err == nil }) {
		return nil
	}
	return err
}

func waitFor(t testing.TB, d time.Duration, what string, cond func() error) {
	t.Helper()
	if err := poll(d, cond); err != nil {
		t.Fatalf("%s: not within %v: %v", what, d, err)
	}
}

// linesWith returns the lines of s containing sub.
func linesWith(s, sub string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		if strings.Contains(sc.Text(), sub) {
			out = append(out, sc.Text())
		}
	}
	return out
}
