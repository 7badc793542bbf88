//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
)

// Helpers that start real BGP speakers in a network namespace of a
// netns.Topology. Every speaker gets a private directory (t.TempDir) for its
// configuration, control socket, pid file and log, talks to no other daemon
// (FRR runs bgpd alone, without zebra), listens for control connections only
// on a socket or loopback address of its own namespace, and is stopped by PID
// when the topology is closed. When a test fails, the log of every speaker it
// started is printed.
//
// All speakers are configured from one PeerConfig. A neighbor carries the
// unicast family of its address (IPv4 or IPv6), and each network is announced
// to the neighbors of its family. Sessions are directly connected (eBGP TTL
// 1, or iBGP when the ASNs are equal) and retry connecting every
// connectRetry, so tests do not wait minutes for a second attempt.
//
// Known limits: gobgpd's API is GoBGPAPI inside its namespace, so one gobgpd
// per namespace; gobgpd dials its first connection 5-10 s after it starts
// (random delay), so a session comes up faster when the other side dials;
// ExaBGP only dials, it does not listen; FRR's bgpd without zebra knows no
// interfaces and treats an IPv6 UPDATE with a link-local next hop (BIRD sends
// one on direct sessions) as a withdrawal.

// Established is the session state WaitSession waits for. Peer.State
// returns the RFC 4271 state names in lower case: "idle", "connect",
// "active", "opensent", "openconfirm", "established" (ExaBGP, which reports
// less, returns "idle", "connected", "established").
const Established = "established"

// connectRetry is the connect-retry timer the helpers configure.
const connectRetry = 5

// PeerConfig is the BGP configuration of a test speaker.
type PeerConfig struct {
	ASN       uint32
	RouterID  netip.Addr // an IPv4 address
	Neighbors []Neighbor
	Networks  []netip.Prefix // announced (as locally originated routes)
}

// Neighbor is one configured BGP neighbor.
type Neighbor struct {
	Addr     netip.Addr
	ASN      uint32
	Password string // TCP-MD5 key; "" = no TCP-MD5
}

// Peer is a running BGP speaker.
type Peer interface {
	// Name says which implementation this is ("frr", "gobgpd", "bird", "exabgp").
	Name() string
	// State is the session state with the neighbor at addr (see Established).
	State(addr netip.Addr) (string, error)
	// Accepted is the number of prefixes received from addr and accepted.
	Accepted(addr netip.Addr) (int, error)
	// Stop stops the speaker (SIGTERM, then SIGKILL) and waits for it.
	Stop()
	// Log returns what the speaker has logged so far.
	Log() string
}

// WaitSession waits until p's session with addr is Established and at least
// minAccepted prefixes from addr are accepted. The error says how far it got.
func WaitSession(ctx context.Context, p Peer, addr netip.Addr, minAccepted int) error {
	var state string
	var n int
	var err error
	ok := netns.WaitFor(ctx, func() bool {
		state, err = p.State(addr)
		if err != nil || state != Established {
			return false
		}
		n, err = p.Accepted(addr)
		return err == nil && n >= minAccepted
	})
	if ok {
		return nil
	}
	return fmt.Errorf("%s: session with %s: state %q, %d of %d prefixes accepted (last error: %v): %w",
		p.Name(), addr, state, n, minAccepted, err, ctx.Err())
}

// daemon is what all speakers share: the process, its directory and log.
type daemon struct {
	name string
	ns   string
	dir  string
	log  string
	cmd  *exec.Cmd
}

func (d *daemon) Name() string { return d.name }

func (d *daemon) Stop() { netns.Stop(d.cmd) }

func (d *daemon) Log() string {
	b, err := os.ReadFile(d.log)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", d.log, err)
	}
	return string(b)
}

// start runs argv in namespace ns with the environment env added, its output
// going to the log file; the topology stops it. On failure of t, the log is
// printed.
func startDaemon(t testing.TB, tp *netns.Topology, ns, name, dir string, env []string, argv ...string) *daemon {
	t.Helper()
	d := &daemon{name: name, ns: ns, dir: dir, log: filepath.Join(dir, name+".log")}
	f, err := os.Create(d.log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close() // the child has its own copy
	d.cmd = netns.Exec(ns, argv...)
	d.cmd.Dir = dir
	d.cmd.Stdout, d.cmd.Stderr = f, f
	if env != nil {
		d.cmd.Env = append(os.Environ(), env...)
	}
	tp.Start(d.cmd)
	t.Logf("%s in %s: %s", name, ns, strings.Join(argv, " "))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("---- %s log (%s) ----\n%s", name, d.log, tail(d.Log(), 12000))
		}
	})
	return d
}

// run runs argv in d's namespace with a timeout and returns its stdout.
func (d *daemon) run(ctx context.Context, argv ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", d.ns}, argv...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// waitReady polls ready every 100 ms for up to 10 s, failing t (with the
// daemon's log) when it never holds or the daemon exits.
func (d *daemon) waitReady(t testing.TB, what string, ready func() error) {
	t.Helper()
	if err := poll(10*time.Second, ready); err != nil {
		t.Fatalf("%s did not become ready (%s): %v", d.name, what, err)
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// checkConfig rejects what the helpers cannot write into a config safely.
func checkConfig(t testing.TB, cfg PeerConfig) {
	t.Helper()
	if !cfg.RouterID.Is4() {
		t.Fatalf("PeerConfig: router ID %v is not an IPv4 address", cfg.RouterID)
	}
	for _, n := range cfg.Neighbors {
		if !n.Addr.IsValid() || n.Addr.Zone() != "" {
			t.Fatalf("PeerConfig: bad neighbor address %v", n.Addr)
		}
		for _, r := range n.Password {
			if r <= ' ' || r == '"' || r == '\\' || r == 0x7f {
				t.Fatalf("PeerConfig: the helpers only take passwords without spaces, quotes, backslashes and control characters")
			}
		}
	}
}

func family(a netip.Addr) string {
	if a.Is4() {
		return "ipv4"
	}
	return "ipv6"
}

func prefixFamily(p netip.Prefix) string { return family(p.Addr()) }

// ---------------------------------------------------------------- FRR

// FRR is bgpd of FRRouting running alone (no zebra, no kernel routes).
type FRR struct {
	*daemon
	Bin string // path of bgpd
}

// StartFRR starts FRR's bgpd in namespace ns and waits for its vty socket.
func StartFRR(t testing.TB, tp *netns.Topology, ns string, cfg PeerConfig) *FRR {
	t.Helper()
	checkConfig(t, cfg)
	f := startBgpd(t, tp, ns, "frr", frrConfig(cfg))
	f.waitVty(t)
	return f
}

// startBgpd runs FRR's bgpd alone in ns (as name, for logs) with the
// config text conf; it does not wait for the vty socket (waitVty).
func startBgpd(t testing.TB, tp *netns.Topology, ns, name, conf string) *FRR {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "bgpd.conf")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	return startBgpdFile(t, tp, ns, name, dir, path)
}

// startBgpdFile runs FRR's bgpd alone in ns with the config file path and
// its vty socket and PID file in dir.
func startBgpdFile(t testing.TB, tp *netns.Topology, ns, name, dir, path string) *FRR {
	t.Helper()
	bin := testenv.RequireBinary(t, "bgpd", "/usr/lib/frr")
	testenv.RequireBinary(t, "vtysh")
	// -Z: no zebra; -n: no kernel routes; -S: stay root, skip the frr
	// user's capability and group checks (the files are root's);
	// -P 0: no vty TCP port; --vty_socket: bgpd.vty in our directory.
	d := startDaemon(t, tp, ns, name, dir, nil, bin,
		"-Z", "-n", "-S", "-P", "0",
		"-f", path, "-i", filepath.Join(dir, "bgpd.pid"),
		"--vty_socket", dir, "--log", "stdout")
	return &FRR{daemon: d, Bin: bin}
}

// waitVty waits until bgpd answers on its vty socket.
func (f *FRR) waitVty(t testing.TB) {
	t.Helper()
	f.waitReady(t, "vty socket "+filepath.Join(f.dir, "bgpd.vty"), func() error {
		if f.cmd.ProcessState != nil {
			return errors.New("exited")
		}
		_, err := f.Vtysh(context.Background(), "show bgp summary json")
		return err
	})
}

func frrConfig(cfg PeerConfig) string {
	var b strings.Builder
	fmt.Fprintf(&b, "frr defaults traditional\nhostname frr\nlog stdout informational\n!\n")
	fmt.Fprintf(&b, "router bgp %d\n bgp router-id %s\n", cfg.ASN, cfg.RouterID)
	b.WriteString(" no bgp default ipv4-unicast\n no bgp ebgp-requires-policy\n no bgp network import-check\n")
	for _, n := range cfg.Neighbors {
		fmt.Fprintf(&b, " neighbor %s remote-as %d\n neighbor %s timers connect %d\n", n.Addr, n.ASN, n.Addr, connectRetry)
		if n.Password != "" {
			fmt.Fprintf(&b, " neighbor %s password %s\n", n.Addr, n.Password)
		}
	}
	for _, fam := range []string{"ipv4", "ipv6"} {
		fmt.Fprintf(&b, " address-family %s unicast\n", fam)
		for _, n := range cfg.Neighbors {
			if family(n.Addr) == fam {
				fmt.Fprintf(&b, "  neighbor %s activate\n", n.Addr)
			}
		}
		for _, p := range cfg.Networks {
			if prefixFamily(p) == fam {
				fmt.Fprintf(&b, "  network %s\n", p.Masked())
			}
		}
		b.WriteString(" exit-address-family\n")
	}
	b.WriteString("!\n")
	return b.String()
}

// Vtysh runs vtysh commands against this bgpd and returns the output.
func (f *FRR) Vtysh(ctx context.Context, commands ...string) (string, error) {
	argv := []string{"vtysh", "--vty_socket", f.dir, "-d", "bgpd"}
	for _, c := range commands {
		argv = append(argv, "-c", c)
	}
	out, err := f.run(ctx, argv...)
	return string(out), err
}

func (f *FRR) neighbor(addr netip.Addr) (map[string]any, error) {
	out, err := f.Vtysh(context.Background(), "show bgp neighbors "+addr.String()+" json")
	if err != nil {
		return nil, err
	}
	var m map[string]map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		return nil, fmt.Errorf("frr: show bgp neighbors %s json: %w: %q", addr, err, tail(out, 200))
	}
	n, ok := m[addr.String()]
	if !ok {
		return nil, fmt.Errorf("frr: no neighbor %s in %q", addr, tail(out, 200))
	}
	return n, nil
}

// State implements Peer.
func (f *FRR) State(addr netip.Addr) (string, error) {
	n, err := f.neighbor(addr)
	if err != nil {
		return "", err
	}
	s, _ := n["bgpState"].(string)
	return strings.ToLower(s), nil
}

// Accepted implements Peer.
func (f *FRR) Accepted(addr netip.Addr) (int, error) {
	n, err := f.neighbor(addr)
	if err != nil {
		return 0, err
	}
	afs, _ := n["addressFamilyInfo"].(map[string]any)
	total := 0
	for _, af := range afs {
		m, _ := af.(map[string]any)
		c, _ := m["acceptedPrefixCounter"].(float64)
		total += int(c)
	}
	return total, nil
}

// ---------------------------------------------------------------- gobgpd

// GoBGPAPI is where the gobgpd helper's gRPC API listens, inside its
// namespace (so every namespace can have its own).
const GoBGPAPI = "127.0.0.1:50051"

// GoBGP is Debian's gobgpd.
type GoBGP struct {
	*daemon
}

// StartGoBGP starts gobgpd in namespace ns, waits for its API and adds
// cfg.Networks to its global RIB.
func StartGoBGP(t testing.TB, tp *netns.Topology, ns string, cfg PeerConfig) *GoBGP {
	t.Helper()
	bin := testenv.RequireBinary(t, "gobgpd")
	testenv.RequireBinary(t, "gobgp")
	checkConfig(t, cfg)
	g := startGobgpd(t, tp, ns, "gobgpd", bin, nil, gobgpConfig(cfg), "debug")
	for _, p := range cfg.Networks {
		if _, err := g.CLI(context.Background(), "global", "rib", "-a", prefixFamily(p), "add", p.Masked().String()); err != nil {
			t.Fatalf("gobgpd: announce %s: %v", p, err)
		}
	}
	return g
}

// startGobgpd runs gobgpd bin in ns (as name, for logs) with the TOML
// config conf, extra environment env and log level level, and waits until
// its gRPC API answers.
func startGobgpd(t testing.TB, tp *netns.Topology, ns, name, bin string, env []string, conf, level string) *GoBGP {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "gobgpd.toml")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	d := startDaemon(t, tp, ns, name, dir, env, bin,
		"-f", path, "-t", "toml", "-p", "-l", level,
		"--api-hosts", GoBGPAPI, "--pprof-disable")
	g := &GoBGP{daemon: d}
	g.waitReady(t, "gRPC API on "+GoBGPAPI, func() error {
		if g.cmd.ProcessState != nil {
			return fmt.Errorf("exited: %s", tail(g.Log(), 2000))
		}
		_, err := g.CLI(context.Background(), "global")
		return err
	})
	return g
}

func gobgpConfig(cfg PeerConfig) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[global.config]\n  as = %d\n  router-id = %q\n", cfg.ASN, cfg.RouterID.String())
	for _, n := range cfg.Neighbors {
		fmt.Fprintf(&b, "\n[[neighbors]]\n  [neighbors.config]\n    neighbor-address = %q\n    peer-as = %d\n", n.Addr.String(), n.ASN)
		if n.Password != "" {
			fmt.Fprintf(&b, "    auth-password = %q\n", n.Password) // checkConfig: no escapes needed
		}
		fmt.Fprintf(&b, "  [neighbors.timers.config]\n    connect-retry = %d\n", connectRetry)
		fmt.Fprintf(&b, "  [[neighbors.afi-safis]]\n    [neighbors.afi-safis.config]\n      afi-safi-name = \"%s-unicast\"\n", family(n.Addr))
	}
	return b.String()
}

// CLI runs the gobgp client against this gobgpd and returns its output.
func (g *GoBGP) CLI(ctx context.Context, args ...string) (string, error) {
	host, port, _ := strings.Cut(GoBGPAPI, ":")
	out, err := g.run(ctx, append([]string{"gobgp", "-u", host, "-p", port}, args...)...)
	return string(out), err
}

type gobgpNeighbor struct {
	State struct {
		SessionState json.RawMessage `json:"session_state"`
	} `json:"state"`
	AfiSafis []struct {
		State struct {
			Accepted uint64 `json:"accepted"`
		} `json:"state"`
	} `json:"afi_safis"`
}

func (g *GoBGP) neighbor(addr netip.Addr) (*gobgpNeighbor, error) {
	out, err := g.CLI(context.Background(), "neighbor", addr.String(), "-j")
	if err != nil {
		return nil, err
	}
	var n gobgpNeighbor
	if err := json.Unmarshal([]byte(out), &n); err != nil {
		return nil, fmt.Errorf("gobgp neighbor %s -j: %w: %q", addr, err, tail(out, 200))
	}
	return &n, nil
}

// gobgpStates are the names of the API's PeerState.SessionState values.
var gobgpStates = []string{"unknown", "idle", "connect", "active", "opensent", "openconfirm", "established"}

// State implements Peer.
func (g *GoBGP) State(addr netip.Addr) (string, error) {
	n, err := g.neighbor(addr)
	if err != nil {
		return "", err
	}
	raw := string(n.State.SessionState)
	if i, err := strconv.Atoi(raw); err == nil && i >= 0 && i < len(gobgpStates) {
		return gobgpStates[i], nil
	}
	if s, err := strconv.Unquote(raw); err == nil { // newer versions print the enum name
		return strings.ToLower(strings.TrimPrefix(s, "SESSION_STATE_")), nil
	}
	if raw == "" {
		return "unknown", nil
	}
	return "", fmt.Errorf("gobgp neighbor %s: unknown session_state %s", addr, raw)
}

// Accepted implements Peer.
func (g *GoBGP) Accepted(addr netip.Addr) (int, error) {
	n, err := g.neighbor(addr)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, af := range n.AfiSafis {
		total += int(af.State.Accepted)
	}
	return total, nil
}

// ---------------------------------------------------------------- BIRD 2

// BIRD is BIRD 2 (bird -f, with its own control socket).
type BIRD struct {
	*daemon
	protocols map[netip.Addr]string // neighbor -> BGP protocol name
}

// StartBIRD starts BIRD 2 in namespace ns and waits for its control socket.
// Networks are static blackhole routes exported to the neighbors.
func StartBIRD(t testing.TB, tp *netns.Topology, ns string, cfg PeerConfig) *BIRD {
	t.Helper()
	bin := testenv.RequireBinary(t, "bird")
	testenv.RequireBinary(t, "birdc")
	checkConfig(t, cfg)
	dir := t.TempDir()
	conf := filepath.Join(dir, "bird.conf")
	b := &BIRD{protocols: map[netip.Addr]string{}}
	for i, n := range cfg.Neighbors {
		b.protocols[n.Addr] = fmt.Sprintf("peer%d", i)
	}
	if err := os.WriteFile(conf, []byte(birdConfig(cfg, b.protocols)), 0o600); err != nil {
		t.Fatal(err)
	}
	b.daemon = startDaemon(t, tp, ns, "bird", dir, nil, bin,
		"-f", "-c", conf, "-s", filepath.Join(dir, "bird.ctl"), "-P", filepath.Join(dir, "bird.pid"))
	b.waitReady(t, "control socket", func() error {
		if b.cmd.ProcessState != nil {
			return errors.New("exited")
		}
		_, err := b.Birdc(context.Background(), "show", "status")
		return err
	})
	return b
}

func birdConfig(cfg PeerConfig, protocols map[netip.Addr]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "router id %s;\nlog stderr all;\nprotocol device { scan time 2; }\n", cfg.RouterID)
	for _, fam := range []string{"ipv4", "ipv6"} {
		fmt.Fprintf(&b, "protocol static static_%s {\n  %s;\n", fam, fam)
		for _, p := range cfg.Networks {
			if prefixFamily(p) == fam {
				fmt.Fprintf(&b, "  route %s blackhole;\n", p.Masked())
			}
		}
		b.WriteString("}\n")
	}
	for _, n := range cfg.Neighbors {
		fmt.Fprintf(&b, "protocol bgp %s {\n  local as %d;\n  neighbor %s as %d;\n  direct;\n  connect retry time %d;\n",
			protocols[n.Addr], cfg.ASN, n.Addr, n.ASN, connectRetry)
		if n.Password != "" {
			fmt.Fprintf(&b, "  password %q;\n", n.Password)
		}
		fmt.Fprintf(&b, "  %s { import all; export all; };\n}\n", family(n.Addr))
	}
	return b.String()
}

// Birdc runs a birdc command against this BIRD and returns its output.
func (b *BIRD) Birdc(ctx context.Context, args ...string) (string, error) {
	out, err := b.run(ctx, append([]string{"birdc", "-s", filepath.Join(b.dir, "bird.ctl")}, args...)...)
	return string(out), err
}

var (
	birdState  = regexp.MustCompile(`(?m)^\s*BGP state:\s+(\S+)`)
	birdRoutes = regexp.MustCompile(`(?m)^\s*Routes:\s+(\d+) imported`)
)

func (b *BIRD) protocol(addr netip.Addr) (string, error) {
	name, ok := b.protocols[addr]
	if !ok {
		return "", fmt.Errorf("bird: no neighbor %s configured", addr)
	}
	return b.Birdc(context.Background(), "show", "protocols", "all", name)
}

// State implements Peer.
func (b *BIRD) State(addr netip.Addr) (string, error) {
	out, err := b.protocol(addr)
	if err != nil {
		return "", err
	}
	m := birdState.FindStringSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("bird: no BGP state in %q", tail(out, 300))
	}
	return strings.ToLower(m[1]), nil
}

// Accepted implements Peer.
func (b *BIRD) Accepted(addr netip.Addr) (int, error) {
	out, err := b.protocol(addr)
	if err != nil {
		return 0, err
	}
	m := birdRoutes.FindStringSubmatch(out)
	if m == nil {
		return 0, nil // no channel statistics before the session is up
	}
	return strconv.Atoi(m[1])
}

// ---------------------------------------------------------------- ExaBGP

// ExaBGP is ExaBGP 4 (it only connects out: it does not listen). Its state is
// read from the JSON messages of an API process that appends them to a file.
type ExaBGP struct {
	*daemon
	eventsFile string
}

// StartExaBGP starts ExaBGP in namespace ns. The local address of each
// session is the namespace's source address towards the neighbor. It does
// not wait for anything (there is no control socket): use WaitSession.
func StartExaBGP(t testing.TB, tp *netns.Topology, ns string, cfg PeerConfig) *ExaBGP {
	t.Helper()
	bin := testenv.RequireBinary(t, "exabgp")
	checkConfig(t, cfg)
	dir := t.TempDir()
	e := &ExaBGP{eventsFile: filepath.Join(dir, "events.json")}
	// Not "exec cat": ExaBGP takes the end of the process's stdout for its
	// death, so the shell keeps it open while cat appends to the file.
	script := filepath.Join(dir, "events.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ncat >> '"+e.eventsFile+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "process events {\n  run %s;\n  encoder json;\n}\n", script)
	for _, n := range cfg.Neighbors {
		local := sourceAddr(t, ns, n.Addr)
		fmt.Fprintf(&b, "neighbor %s {\n  router-id %s;\n  local-address %s;\n  local-as %d;\n  peer-as %d;\n",
			n.Addr, cfg.RouterID, local, cfg.ASN, n.ASN)
		if n.Password != "" {
			fmt.Fprintf(&b, "  md5-password %q;\n", n.Password)
		}
		fmt.Fprintf(&b, "  family { %s unicast; }\n", family(n.Addr))
		b.WriteString("  api { processes [ events ]; neighbor-changes; receive { parsed; update; } }\n  static {\n")
		for _, p := range cfg.Networks {
			if prefixFamily(p) == family(n.Addr) {
				fmt.Fprintf(&b, "    route %s next-hop self;\n", p.Masked())
			}
		}
		b.WriteString("  }\n}\n")
	}
	conf := filepath.Join(dir, "exabgp.conf")
	if err := os.WriteFile(conf, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{
		"exabgp_daemon_user=root", "exabgp_daemon_drop=false", "exabgp_daemon_daemonize=false",
		"exabgp_daemon_pid=" + filepath.Join(dir, "exabgp.pid"),
		"exabgp_api_cli=false", "exabgp_log_destination=stdout", "exabgp_log_all=false",
		"exabgp_reactor_speed=0.1",
	}
	e.daemon = startDaemon(t, tp, ns, "exabgp", dir, env, bin, conf)
	return e
}

// sourceAddr is the address ns uses as source towards dst.
func sourceAddr(t testing.TB, ns string, dst netip.Addr) netip.Addr {
	t.Helper()
	out := netns.Run(t, "ip", "-n", ns, "-j", "route", "get", dst.String())
	var routes []struct {
		PrefSrc string `json:"prefsrc"`
	}
	if err := json.Unmarshal([]byte(out), &routes); err != nil || len(routes) == 0 {
		t.Fatalf("ip route get %s in %s: %v: %s", dst, ns, err, out)
	}
	a, err := netip.ParseAddr(routes[0].PrefSrc)
	if err != nil {
		t.Fatalf("ip route get %s in %s: no source address: %s", dst, ns, out)
	}
	return a
}

type exaEvent struct {
	Type     string `json:"type"`
	Neighbor struct {
		Address struct {
			Peer string `json:"peer"`
		} `json:"address"`
		State   string `json:"state"`
		Message struct {
			Update struct {
				Announce map[string]map[string][]json.RawMessage `json:"announce"` // family -> next hop -> NLRIs
				Withdraw map[string][]json.RawMessage            `json:"withdraw"`
			} `json:"update"`
		} `json:"message"`
	} `json:"neighbor"`
}

// events replays the API messages about addr: the last state and the
// prefixes announced (and not withdrawn) since the session last came up.
func (e *ExaBGP) events(addr netip.Addr) (string, int, error) {
	data, err := os.ReadFile(e.eventsFile)
	if errors.Is(err, os.ErrNotExist) {
		return "idle", 0, nil
	}
	if err != nil {
		return "", 0, err
	}
	state := "idle"
	routes := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		var ev exaEvent
		if json.Unmarshal([]byte(line), &ev) != nil || ev.Neighbor.Address.Peer != addr.String() {
			continue // a partial last line, or another neighbor
		}
		switch ev.Type {
		case "state":
			switch ev.Neighbor.State {
			case "up":
				state = Established
				routes = map[string]bool{}
			case "connected":
				state = "connected"
			default:
				state = "idle"
			}
		case "update":
			for _, hops := range ev.Neighbor.Message.Update.Announce {
				for _, nlris := range hops {
					for _, n := range nlris {
						routes[nlriKey(n)] = true
					}
				}
			}
			for _, nlris := range ev.Neighbor.Message.Update.Withdraw {
				for _, n := range nlris {
					delete(routes, nlriKey(n))
				}
			}
		}
	}
	return state, len(routes), nil
}

func nlriKey(raw json.RawMessage) string {
	var n struct {
		NLRI string `json:"nlri"`
	}
	if json.Unmarshal(raw, &n) == nil && n.NLRI != "" {
		return n.NLRI
	}
	return string(raw)
}

// State implements Peer.
func (e *ExaBGP) State(addr netip.Addr) (string, error) {
	s, _, err := e.events(addr)
	return s, err
}

// Accepted implements Peer.
func (e *ExaBGP) Accepted(addr netip.Addr) (int, error) {
	_, n, err := e.events(addr)
	return n, err
}

// ---------------------------------------------------------------- self-test

// TestPeerHelpers brings up TCP-MD5 sessions between the helpers' speakers,
// so that a broken helper shows up here rather than in the tests using it.
func TestPeerHelpers(t *testing.T) {
	testenv.RequireRoot(t)
	type starter func(testing.TB, *netns.Topology, string, PeerConfig) Peer
	frr := func(t testing.TB, tp *netns.Topology, ns string, c PeerConfig) Peer { return StartFRR(t, tp, ns, c) }
	gobgp := func(t testing.TB, tp *netns.Topology, ns string, c PeerConfig) Peer { return StartGoBGP(t, tp, ns, c) }
	bird := func(t testing.TB, tp *netns.Topology, ns string, c PeerConfig) Peer { return StartBIRD(t, tp, ns, c) }
	exa := func(t testing.TB, tp *netns.Topology, ns string, c PeerConfig) Peer { return StartExaBGP(t, tp, ns, c) }
	for _, tc := range []struct {
		name string
		a, b starter
	}{
		// Not BIRD with FRR: BIRD sends a link-local IPv6 next hop on
		// direct sessions, which bgpd without zebra cannot place and
		// treats as a withdrawal.
		{"bird-gobgpd", bird, gobgp},
		{"exabgp-frr", exa, frr},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tp := netns.New(t, "peers")
			nsA, nsB := tp.Add("a"), tp.Add("b")
			a4, a6 := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("2001:db8::1")
			b4, b6 := netip.MustParseAddr("192.0.2.2"), netip.MustParseAddr("2001:db8::2")
			tp.Link(nsA, "eth0", []string{"192.0.2.1/24", "2001:db8::1/64"}, nsB, "eth0", []string{"192.0.2.2/24", "2001:db8::2/64"})
			const key = "peer-helpers-key"
			pa := tc.a(t, tp, nsA, PeerConfig{ASN: 65001, RouterID: a4,
				Neighbors: []Neighbor{{b4, 65002, key}, {b6, 65002, key}},
				Networks:  []netip.Prefix{netip.MustParsePrefix("198.51.100.0/24"), netip.MustParsePrefix("2001:db8:100::/48")}})
			pb := tc.b(t, tp, nsB, PeerConfig{ASN: 65002, RouterID: b4,
				Neighbors: []Neighbor{{a4, 65001, key}, {a6, 65001, key}},
				Networks:  []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24"), netip.MustParsePrefix("2001:db8:200::/48")}})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			for _, w := range []struct {
				p    Peer
				addr netip.Addr
			}{{pa, b4}, {pa, b6}, {pb, a4}, {pb, a6}} {
				if err := WaitSession(ctx, w.p, w.addr, 1); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
