//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
)

// The fault soak's peer speakers (soak_test.go): FRR, BIRD and gobgpd,
// each with several sessions to the router, one per (router address,
// speaker address) pair. A daemon in one namespace, on one link, is thus
// many keyed peers of the router: each neighbor of the daemon is the
// router's address remote, reached from the daemon's address local (FRR
// update-source, BIRD local, gobgpd transport local-address), and the
// router configures local as a peer with local-address remote.

// soakRouterASN is the router's AS number (abConfig's too).
const soakRouterASN = 65001

// Timers of the speakers' sessions: BGP's defaults, as the router's. The
// hold time matters: a session whose peer reset it with a NOTIFICATION the
// router's kernel dropped (signed with a key the router no longer holds)
// would stand until it expires, 90 s.
const (
	soakKeepalive = 30
	soakHold      = 90
)

// soakNbr is one neighbor of a speaker: one session with the router.
type soakNbr struct {
	remote netip.Addr // the router's address
	local  netip.Addr // the speaker's address: the router's peer
	key    string     // TCP-MD5 key the speaker uses ("" none)
}

// soakSpeakerCfg is the configuration of one speaker daemon.
type soakSpeakerCfg struct {
	name string // namespace name in the topology ("f1", "b1", ...)
	kind string // "frr", "bird", "gobgpd"
	asn  uint32
	rid  netip.Addr
	nbrs []soakNbr
}

// soakSpeaker is a running speaker (restarted in place by the faults).
type soakSpeaker struct {
	cfg      soakSpeakerCfg
	ns       string
	peer     Peer // *FRR, *BIRD or *GoBGP
	birdConf string
	starts   int
}

func soakCheckKey(t testing.TB, k string) {
	t.Helper()
	for _, r := range k {
		if r <= ' ' || r == '"' || r == '\\' || r == 0x7f {
			t.Fatalf("soak: key with a space, quote, backslash or control character")
		}
	}
}

// start (re)starts the speaker with its current cfg.
func (sp *soakSpeaker) start(t testing.TB, tp *netns.Topology) {
	t.Helper()
	for _, n := range sp.cfg.nbrs {
		soakCheckKey(t, n.key)
	}
	sp.starts++
	switch sp.cfg.kind {
	case "frr":
		sp.peer = soakStartFRR(t, tp, sp.ns, sp.cfg, sp.starts)
	case "bird":
		sp.peer = soakStartBIRD(t, tp, sp)
	case "gobgpd":
		sp.peer = soakStartGoBGP(t, tp, sp.ns, sp.cfg)
	default:
		t.Fatalf("soak: unknown speaker kind %q", sp.cfg.kind)
	}
}

// daemon is the speaker's process (`ip netns exec` execs the daemon: the same
// PID).
func (sp *soakSpeaker) daemon() *daemon {
	switch p := sp.peer.(type) {
	case *FRR:
		return p.daemon
	case *BIRD:
		return p.daemon
	case *GoBGP:
		return p.daemon
	}
	panic("soak: unknown speaker type")
}

// kill9 kills the daemon with SIGKILL (no NOTIFICATION, no FIN from BGP:
// the kernel closes its sockets) and reaps it.
func (sp *soakSpeaker) kill9() error {
	d := sp.daemon()
	if d.cmd.Process == nil || d.cmd.ProcessState != nil {
		return fmt.Errorf("%s is not running", d.name)
	}
	if err := unix.Kill(d.cmd.Process.Pid, unix.SIGKILL); err != nil {
		return fmt.Errorf("kill -9 %s (pid %d): %w", d.name, d.cmd.Process.Pid, err)
	}
	_ = d.cmd.Wait() // "signal: killed"
	return nil
}

// setKeys changes the keys of the neighbors remote → key on the running
// speaker (FRR: vtysh, which resets those sessions; BIRD: configure, which
// restarts the changed protocols).
func (sp *soakSpeaker) setKeys(ctx context.Context, keys map[netip.Addr]string) error {
	for i := range sp.cfg.nbrs {
		if k, ok := keys[sp.cfg.nbrs[i].remote]; ok {
			sp.cfg.nbrs[i].key = k
		}
	}
	switch p := sp.peer.(type) {
	case *FRR:
		cmds := []string{"configure terminal", fmt.Sprintf("router bgp %d", sp.cfg.asn)}
		for remote, k := range keys {
			if k == "" {
				cmds = append(cmds, fmt.Sprintf("no neighbor %s password", remote))
			} else {
				cmds = append(cmds, fmt.Sprintf("neighbor %s password %s", remote, k))
			}
		}
		out, err := p.Vtysh(ctx, cmds...)
		if err != nil {
			return err
		}
		if s := strings.TrimSpace(out); s != "" {
			return fmt.Errorf("vtysh: %s", s)
		}
		return nil
	case *BIRD:
		if err := os.WriteFile(sp.birdConf, []byte(soakBIRDConfig(sp.cfg, p.protocols)), 0o600); err != nil {
			return err
		}
		out, err := p.Birdc(ctx, "configure")
		if err != nil {
			return err
		}
		if !strings.Contains(out, "Reconfigured") && !strings.Contains(out, "Reconfiguration in progress") {
			return fmt.Errorf("birdc configure: %s", strings.TrimSpace(out))
		}
		return nil
	}
	return fmt.Errorf("soak: %s: changing keys is not implemented for %T", sp.cfg.name, sp.peer)
}

// ---------------------------------------------------------------- FRR

func soakFRRConfig(c soakSpeakerCfg) string {
	var b strings.Builder
	fmt.Fprintf(&b, "frr defaults traditional\nhostname soak-%s\nlog stdout informational\n!\n", c.name)
	fmt.Fprintf(&b, "router bgp %d\n bgp router-id %s\n", c.asn, c.rid)
	b.WriteString(" no bgp default ipv4-unicast\n no bgp ebgp-requires-policy\n no bgp network import-check\n")
	for _, n := range c.nbrs {
		fmt.Fprintf(&b, " neighbor %s remote-as %d\n", n.remote, soakRouterASN)
		fmt.Fprintf(&b, " neighbor %s update-source %s\n", n.remote, n.local)
		fmt.Fprintf(&b, " neighbor %s timers %d %d\n", n.remote, soakKeepalive, soakHold)
		fmt.Fprintf(&b, " neighbor %s timers connect %d\n", n.remote, connectRetry)
		if n.key != "" {
			fmt.Fprintf(&b, " neighbor %s password %s\n", n.remote, n.key)
		}
	}
	for _, fam := range []string{"ipv4", "ipv6"} {
		fmt.Fprintf(&b, " address-family %s unicast\n", fam)
		for _, n := range c.nbrs {
			if family(n.remote) == fam {
				fmt.Fprintf(&b, "  neighbor %s activate\n", n.remote)
			}
		}
		b.WriteString(" exit-address-family\n")
	}
	b.WriteString("!\n")
	return b.String()
}

// soakStartFRR starts bgpd alone (as StartFRR does) with c's sessions.
func soakStartFRR(t testing.TB, tp *netns.Topology, ns string, c soakSpeakerCfg, start int) *FRR {
	t.Helper()
	f := startBgpd(t, tp, ns, fmt.Sprintf("frr-%s-%d", c.name, start), soakFRRConfig(c))
	f.waitVty(t)
	return f
}

// ---------------------------------------------------------------- BIRD

func soakBIRDConfig(c soakSpeakerCfg, protocols map[netip.Addr]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "router id %s;\nlog stderr { warning, error, fatal, bug, auth };\nprotocol device { scan time 10; }\n", c.rid)
	for _, n := range c.nbrs {
		fmt.Fprintf(&b, "protocol bgp %s {\n  local %s as %d;\n  neighbor %s as %d;\n  direct;\n", protocols[n.remote], n.local, c.asn, n.remote, soakRouterASN)
		fmt.Fprintf(&b, "  connect retry time %d;\n  hold time %d;\n  keepalive time %d;\n", connectRetry, soakHold, soakKeepalive)
		if n.key != "" {
			fmt.Fprintf(&b, "  password %q;\n", n.key)
		}
		fmt.Fprintf(&b, "  %s { import all; export none; };\n}\n", family(n.remote))
	}
	return b.String()
}

func soakStartBIRD(t testing.TB, tp *netns.Topology, sp *soakSpeaker) *BIRD {
	t.Helper()
	bin := testenv.RequireBinary(t, "bird")
	testenv.RequireBinary(t, "birdc")
	dir := t.TempDir()
	sp.birdConf = filepath.Join(dir, "bird.conf")
	b := &BIRD{protocols: map[netip.Addr]string{}}
	for i, n := range sp.cfg.nbrs {
		b.protocols[n.remote] = fmt.Sprintf("peer%d", i)
	}
	if err := os.WriteFile(sp.birdConf, []byte(soakBIRDConfig(sp.cfg, b.protocols)), 0o600); err != nil {
		t.Fatal(err)
	}
	b.daemon = startDaemon(t, tp, sp.ns, fmt.Sprintf("bird-%s-%d", sp.cfg.name, sp.starts), dir, nil, bin,
		"-f", "-c", sp.birdConf, "-s", filepath.Join(dir, "bird.ctl"), "-P", filepath.Join(dir, "bird.pid"))
	b.waitReady(t, "control socket", func() error {
		if b.cmd.ProcessState != nil {
			return errors.New("exited")
		}
		_, err := b.Birdc(context.Background(), "show", "status")
		return err
	})
	return b
}

// ---------------------------------------------------------------- gobgpd

func soakGoBGPConfig(c soakSpeakerCfg) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[global.config]\n  as = %d\n  router-id = %q\n", c.asn, c.rid.String())
	for _, n := range c.nbrs {
		fmt.Fprintf(&b, "\n[[neighbors]]\n  [neighbors.config]\n    neighbor-address = %q\n    peer-as = %d\n", n.remote.String(), soakRouterASN)
		if n.key != "" {
			fmt.Fprintf(&b, "    auth-password = %q\n", n.key)
		}
		fmt.Fprintf(&b, "  [neighbors.transport.config]\n    local-address = %q\n", n.local.String())
		fmt.Fprintf(&b, "  [neighbors.timers.config]\n    connect-retry = %d\n    hold-time = %d\n    keepalive-interval = %d\n", connectRetry, soakHold, soakKeepalive)
		fmt.Fprintf(&b, "  [[neighbors.afi-safis]]\n    [neighbors.afi-safis.config]\n      afi-safi-name = \"%s-unicast\"\n", family(n.remote))
	}
	return b.String()
}

func soakStartGoBGP(t testing.TB, tp *netns.Topology, ns string, c soakSpeakerCfg) *GoBGP {
	t.Helper()
	bin := testenv.RequireBinary(t, "gobgpd")
	testenv.RequireBinary(t, "gobgp")
	return startGobgpd(t, tp, ns, "gobgpd-"+c.name, bin, nil, soakGoBGPConfig(c), "info")
}

// states returns the speaker's view of each of its sessions
// (remote → state, or the error).
func (sp *soakSpeaker) states() map[netip.Addr]string {
	out := map[netip.Addr]string{}
	for _, n := range sp.cfg.nbrs {
		s, err := sp.peer.State(n.remote)
		if err != nil {
			s = "error: " + err.Error()
		}
		out[n.remote] = s
	}
	return out
}

var soakBIRDProto = regexp.MustCompile(`(?m)^(peer\d+)\s+BGP\s+\S+\s+\S+\s+\S+\s+(\S+)`)

// bulkStates is the speaker's view of all its sessions in one query
// (remote → state, lower case as Peer.State returns it).
func (sp *soakSpeaker) bulkStates() (map[netip.Addr]string, error) {
	ctx := context.Background()
	out := map[netip.Addr]string{}
	switch p := sp.peer.(type) {
	case *FRR:
		text, err := p.Vtysh(ctx, "show bgp summary json")
		if err != nil {
			return nil, err
		}
		var sum map[string]struct {
			Peers map[string]struct {
				State string `json:"state"`
			} `json:"peers"`
		}
		if err := json.Unmarshal([]byte(text), &sum); err != nil {
			return nil, fmt.Errorf("frr: show bgp summary json: %w", err)
		}
		for _, af := range sum {
			for ad, st := range af.Peers {
				if a, err := netip.ParseAddr(ad); err == nil {
					out[a] = strings.ToLower(st.State)
				}
			}
		}
	case *BIRD:
		text, err := p.Birdc(ctx, "show", "protocols")
		if err != nil {
			return nil, err
		}
		byName := map[string]string{}
		for _, m := range soakBIRDProto.FindAllStringSubmatch(text, -1) {
			byName[m[1]] = strings.ToLower(m[2])
		}
		for remote, name := range p.protocols {
			out[remote] = byName[name]
		}
	case *GoBGP:
		for _, n := range sp.cfg.nbrs {
			st, err := p.State(n.remote)
			if err != nil {
				return nil, err
			}
			out[n.remote] = st
		}
	}
	return out, nil
}
