//go:build linux

package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/status"
)

// The container image's privilege model, proved without a container engine.
// The image runs authbgpd as uid 179 (not root) with file capabilities
// cap_net_bind_service,cap_net_raw,cap_net_admin,cap_bpf,cap_perfmon=p: the
// container is given exactly the first three (docker run --cap-drop ALL --cap-add NET_BIND_SERVICE
// --cap-add NET_RAW --cap-add NET_ADMIN). TestCaps runs the static
// binary the same way in a network namespace, with an FRR peer:
//
//   - ambient: an unprivileged user holding exactly the three capabilities
//     (setpriv: inheritable + ambient, bounding set of the three);
//   - file-caps: the image's model exactly: a copy of the binary with the
//     image's file capabilities, run by the unprivileged user whose
//     bounding set is the three, with no inheritable or ambient ones;
//
// and for both: the daemon's CapEff (and CapPrm, CapBnd) is exactly
// NET_BIND_SERVICE, NET_RAW, NET_ADMIN, its uid is the user's, it listens on
// port 179, the TCP-MD5 session with FRR comes up, the shadow checker
// captures (/status capture.running) and diagnoses ok, and SRv6 HMAC key 42
// is programmed into the kernel (/status srv6.hmac_keys installed, `ip sr
// hmac show`). Then with one capability less:
//
//   - no-net-raw: BGP runs, the shadow checker reports a capture error;
//   - no-net-admin: BGP and the shadow checker run, the SRv6 key is reported
//     not installed, with an error;
//   - image-without-net-admin: the image's binary (permitted-only file
//     capabilities, raised by authbgpd itself at start) still starts when
//     the container lacks one of the three: BGP and the shadow checker run,
//     and the missing CAP_NET_ADMIN shows as an SRv6 key error. (A file
//     with the effective bit would be refused at execve with EPERM.)
//   - image-with-bpf: the image's binary in a container also given BPF
//     and PERFMON: the kernel's per-peer drop verdicts are counted
//     (/status kernel_drops available); in every other case /status says
//     they are unavailable, naming CAP_BPF, and nothing else is lost.
//
// Files are readable by that user only as needed: the config directory is
// 0750 root:GROUP, the config 0640 root:GROUP, the secrets 0600 USER.

// Capability numbers (linux/capability.h).
const (
	capNetBindService = 10
	capNetAdmin       = 12
	capNetRaw         = 13
	capPerfmon        = 38
	capBPF            = 39
)

func capsMask(caps ...int) uint64 {
	var m uint64
	for _, c := range caps {
		m |= 1 << c
	}
	return m
}

// capsIDs returns the uid and gid to run as: 179 (the image's authbgpd user)
// when no user or group has it on this machine, else nobody:nogroup.
func capsIDs(t testing.TB) (uid, gid int) {
	t.Helper()
	free := func(db, id string) bool {
		err := exec.Command("getent", db, id).Run()
		var ee *exec.ExitError
		return errors.As(err, &ee) && ee.ExitCode() == 2 // 2: not found
	}
	if free("passwd", "179") && free("group", "179") {
		return 179, 179
	}
	return 65534, 65534
}

type capsCase struct {
	name      string
	fileCaps  bool // run a copy with the image's file capabilities
	caps      []string
	wantEff   uint64
	wantStart bool // false: execve must fail with EPERM
}

func TestCaps(t *testing.T) {
	testenv.RequireRoot(t)
	testenv.RequireBinary(t, "setpriv")
	testenv.RequireBinary(t, "setcap")
	testenv.RequireBinary(t, "bgpd", "/usr/lib/frr")
	testenv.RequireBinary(t, "gobgp")
	bin := authbgpdBinary(t, "")
	uid, gid := capsIDs(t)
	t.Logf("running authbgpd as uid %d gid %d", uid, gid)
	all := []string{"net_bind_service", "net_raw", "net_admin"}
	cases := []capsCase{
		{name: "ambient", caps: all, wantEff: capsMask(capNetBindService, capNetRaw, capNetAdmin), wantStart: true},
		{name: "file-caps", fileCaps: true, caps: all, wantEff: capsMask(capNetBindService, capNetRaw, capNetAdmin), wantStart: true},
		{name: "no-net-raw", caps: []string{"net_bind_service", "net_admin"}, wantEff: capsMask(capNetBindService, capNetAdmin), wantStart: true},
		{name: "no-net-admin", caps: []string{"net_bind_service", "net_raw"}, wantEff: capsMask(capNetBindService, capNetRaw), wantStart: true},
		{name: "image-without-net-admin", fileCaps: true, caps: []string{"net_bind_service", "net_raw"}, wantEff: capsMask(capNetBindService, capNetRaw), wantStart: true},
		{name: "image-with-bpf", fileCaps: true, caps: append(all, "bpf", "perfmon"), wantEff: capsMask(capNetBindService, capNetRaw, capNetAdmin, capBPF, capPerfmon), wantStart: true},
	}
	names := make([]string, len(cases))
	for i, c := range cases {
		names[i] = c.name
	}
	concurrently(t, names, func(t *testing.T, i int) { runCapsCase(t, bin, uid, gid, cases[i]) })
}

// capsLayout lays out a world-traversable directory with the binary (a copy,
// with the image's file capabilities when fileCaps) and the config and
// secrets readable by uid/gid only as needed. It returns the binary and
// the config.
func capsLayout(t *testing.T, bin string, uid, gid int, fileCaps bool, config string, secrets map[string]string) (string, string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "authbgpd-caps-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Chmod(dir, 0o755))
	must(os.Mkdir(filepath.Join(dir, "bin"), 0o755))
	exe := filepath.Join(dir, "bin", "authbgpd")
	capsCopyFile(t, bin, exe, 0o755)
	if fileCaps {
		// Exactly the Dockerfile's line.
		if out, err := exec.Command("setcap", "cap_net_bind_service,cap_net_raw,cap_net_admin,cap_bpf,cap_perfmon=p", exe).CombinedOutput(); err != nil {
			t.Fatalf("setcap: %v\n%s", err, out)
		}
	}
	etc := filepath.Join(dir, "etc")
	must(os.Mkdir(etc, 0o750))
	must(os.Chown(etc, 0, gid))
	conf := filepath.Join(etc, "authbgpd.toml")
	must(os.WriteFile(conf, []byte(config), 0o640))
	must(os.Chown(conf, 0, gid))
	must(os.Chmod(conf, 0o640))
	sec := filepath.Join(etc, "secrets")
	must(os.Mkdir(sec, 0o750))
	must(os.Chown(sec, 0, gid))
	for name, content := range secrets {
		p := filepath.Join(sec, name)
		must(os.WriteFile(p, []byte(content), 0o600))
		must(os.Chown(p, uid, gid))
	}
	return exe, conf
}

func capsCopyFile(t *testing.T, src, dst string, mode os.FileMode) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// capsSetprivArgs drops to uid/gid with exactly caps: in the bounding set
// always, and inheritable + ambient unless fileCaps (the file's
// capabilities then grant them at execve, as in the container).
func capsSetprivArgs(uid, gid int, caps []string, fileCaps bool) []string {
	plus := make([]string, len(caps))
	for i, c := range caps {
		plus[i] = "+" + c
	}
	set := strings.Join(plus, ",")
	args := []string{"setpriv", "--reuid=" + strconv.Itoa(uid), "--regid=" + strconv.Itoa(gid), "--clear-groups"}
	if !fileCaps {
		args = append(args, "--inh-caps="+set, "--ambient-caps="+set)
	}
	return append(args, "--bounding-set=-all,"+set)
}

func runCapsCase(t *testing.T, bin string, uid, gid int, c capsCase) {
	key, srv6 := newSecret("caps"), newSecret("caps-srv6")
	conf := abConf{Peers: []abPeer{{addr: "192.0.2.2", asn: 65002, src: "password-file", ref: "secrets/r2.key"}},
		Tail: "\n[shadow]\nenabled = true\n" + srv6HMACKey(42, "secrets/srv6-42.key")}.String()
	exe, confPath := capsLayout(t, bin, uid, gid, c.fileCaps, conf, map[string]string{"r2.key": key + "\n", "srv6-42.key": srv6 + "\n"})
	pair := newPair(t, "caps", false)
	tp, nsA, nsB := pair.Topology, pair.A, pair.B
	argv := append(capsSetprivArgs(uid, gid, c.caps, c.fileCaps), exe, "-f", confPath, "--log-level", "debug")

	if !c.wantStart {
		out, err := netns.Exec(nsA, argv...).CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || !strings.Contains(string(out), "Operation not permitted") {
			t.Fatalf("the image's binary started without CAP_NET_ADMIN in the bounding set (%v):\n%s", err, out)
		}
		t.Logf("as expected, execve fails: exit %d: %s", ee.ExitCode(), strings.TrimSpace(string(out)))
		return
	}

	d := startDaemon(t, tp, nsA, "authbgpd", t.TempDir(), nil, argv...)
	a := &Authbgpd{GoBGP: &GoBGP{daemon: d}, Config: confPath, t: t}
	a.waitHealthy(t)
	pid := a.cmd.Process.Pid

	// The process is authbgpd itself (ip netns exec and setpriv exec it).
	if exePath, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); err != nil || exePath != exe {
		t.Fatalf("/proc/%d/exe = %q (%v), want %s", pid, exePath, err, exe)
	}
	st := capsProcStatus(t, pid)
	for _, k := range []string{"Uid", "Gid"} {
		want := strings.Repeat(strconv.Itoa(uid)+"\t", 4)
		if k == "Gid" {
			want = strings.Repeat(strconv.Itoa(gid)+"\t", 4)
		}
		if st[k]+"\t" != want {
			t.Errorf("/proc/%d/status %s: %q, want %d four times", pid, k, st[k], uid)
		}
	}
	if g := st["Groups"]; g != "" {
		t.Errorf("/proc/%d/status Groups: %q, want none", pid, g)
	}
	wantAmb := c.wantEff
	if c.fileCaps {
		wantAmb = 0
	}
	for k, want := range map[string]uint64{"CapEff": c.wantEff, "CapPrm": c.wantEff, "CapBnd": c.wantEff, "CapAmb": wantAmb} {
		got, err := strconv.ParseUint(st[k], 16, 64)
		if err != nil || got != want {
			t.Errorf("/proc/%d/status %s: %s, want %016x", pid, k, st[k], want)
		}
	}
	t.Logf("authbgpd pid %d: Uid %s CapEff %s CapPrm %s CapBnd %s CapAmb %s", pid, st["Uid"], st["CapEff"], st["CapPrm"], st["CapBnd"], st["CapAmb"])

	// BGP on port 179, as this user: the listener is authbgpd's.
	ss := netns.Run(t, "ip", "netns", "exec", nsA, "ss", "-Hltnp", "sport = :179")
	if !regexp.MustCompile(`pid=` + strconv.Itoa(pid) + `\b`).MatchString(ss) {
		t.Errorf("authbgpd (pid %d) does not listen on port 179:\n%s", pid, ss)
	}

	f := StartFRR(t, tp, nsB, PeerConfig{ASN: 65002, RouterID: capsB4,
		Neighbors: []Neighbor{{capsA4, 65001, key}},
		Networks:  []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24")}})
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	if err := WaitSession(ctx, a, capsB4, 1); err != nil {
		t.Fatal(err)
	}
	if err := WaitSession(ctx, f, capsA4, 0); err != nil {
		t.Fatal(err)
	}
	p := a.Peer(capsB4.String())
	if p == nil || p.Auth.Mode != "md5" || !p.Auth.Installed {
		t.Fatalf("/status %s: %s, want md5 installed", capsB4, peerString(p))
	}

	capture := a.Status().Capture
	hasRaw := c.wantEff&capsMask(capNetRaw) != 0
	hasAdmin := c.wantEff&capsMask(capNetAdmin) != 0
	switch {
	case capture == nil:
		t.Errorf("/status has no capture section with [shadow] enabled")
	case hasRaw && (!capture.Running || capture.Error != ""):
		t.Errorf("/status capture: %+v, want running without error", *capture)
	case !hasRaw && (capture.Running || capture.Error == ""):
		t.Errorf("without CAP_NET_RAW, /status capture: %+v, want not running, with an error", *capture)
	default:
		t.Logf("/status capture: running %t error %q", capture.Running, capture.Error)
	}
	if hasRaw {
		p = waitShadow(t, a, capsB4.String(), 10*time.Second, "ok with valid segments", func(p *status.Peer) bool {
			return p.Shadow.Diagnosis == "ok" && p.Shadow.Segments.Valid > 0
		})
		t.Logf("/status %s: %s", capsB4, peerString(p))
	}
	checkCapsKernelDrops(t, a, c.wantEff&capsMask(capBPF, capPerfmon) == capsMask(capBPF, capPerfmon))
	checkCapsSRv6(t, nsA, a, confPath, hasAdmin) // last: a kernel without SRv6 HMAC skips it, naming the feature
}

// checkCapsKernelDrops: with CAP_BPF and CAP_PERFMON the kernel's per-peer
// drop verdicts are counted (the keyed peer has kernel_drops); without,
// /status says why, naming the capabilities, and nothing else is lost.
func checkCapsKernelDrops(t *testing.T, a *Authbgpd, hasBPF bool) {
	t.Helper()
	st := a.Status()
	k := st.KernelDrops
	switch {
	case k == nil:
		t.Errorf("/status has no kernel_drops section")
	case hasBPF && (!k.Available || k.Error != "" || len(k.Tracepoints) == 0):
		t.Errorf("with CAP_BPF and CAP_PERFMON, /status kernel_drops: %+v, want available", *k)
	case !hasBPF && (k.Available || !strings.Contains(k.Error, "CAP_BPF")):
		t.Errorf("without CAP_BPF and CAP_PERFMON, /status kernel_drops: %+v, want unavailable, naming CAP_BPF", *k)
	default:
		t.Logf("/status kernel_drops: available %t error %q", k.Available, k.Error)
	}
	if p := a.Peer(capsB4.String()); p == nil || (p.KernelDrops != nil) != hasBPF {
		t.Errorf("/status %s kernel_drops with CAP_BPF %t: %s", capsB4, hasBPF, peerString(p))
	}
}

// checkCapsSRv6 checks SRv6 HMAC key 42: installed in the kernel with
// CAP_NET_ADMIN, reported not installed (with an error) without. The config
// has key 42, so /status must list it: an empty srv6.hmac_keys fails the
// test. Only a kernel without SRv6 HMAC skips the check, naming the feature.
func checkCapsSRv6(t *testing.T, ns string, a *Authbgpd, confPath string, hasAdmin bool) {
	t.Helper()
	requireSRv6HMACKernel(t, ns)
	cfg, err := config.Load(confPath)
	if err != nil {
		t.Fatalf("loading %s: %v", confPath, err)
	}
	var configured []uint32
	for _, h := range cfg.SRv6.HMACKeys {
		configured = append(configured, h.ID)
	}
	if len(configured) != 1 || configured[0] != 42 {
		t.Fatalf("%s: SRv6 HMAC keys %v, want key 42 (the test writes it)", confPath, configured)
	}
	keys := waitHMACKeyIDs(a, configured, 10*time.Second)
	requireSRv6Keys(t, "authbgpd", keys, configured)
	if len(keys) != 1 || keys[0].ID != 42 {
		t.Fatalf("/status srv6.hmac_keys: %+v, want key 42", keys)
	}
	kernel := netns.Run(t, "ip", "netns", "exec", ns, "ip", "sr", "hmac", "show")
	inKernel := strings.Contains(kernel, "hmac 42 algo sha256")
	if hasAdmin {
		if !keys[0].Installed || keys[0].Error != "" || !inKernel {
			t.Errorf("SRv6 HMAC key 42: /status %+v, in the kernel: %t; want installed", keys[0], inKernel)
		}
		return
	}
	if keys[0].Installed || keys[0].Error == "" || inKernel {
		t.Errorf("without CAP_NET_ADMIN, SRv6 HMAC key 42: /status %+v, in the kernel: %t; want not installed, with an error", keys[0], inKernel)
	}
	t.Logf("without CAP_NET_ADMIN: SRv6 key 42: %q", keys[0].Error)
}

var capsA4, capsB4 = pairA4, pairB4

// capsProcStatus returns the fields of /proc/PID/status.
func capsProcStatus(t *testing.T, pid int) map[string]string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok {
			m[k] = strings.TrimSpace(v)
		}
	}
	return m
}
