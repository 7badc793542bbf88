package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/status"
)

// TestContainerLabs deploys e2e/clab/*.clab.yml as containerlab would, with
// podman and the images built here (scripts/images.sh for authbgpd:latest,
// Debian's frr package for the upstream FRR image): one container per node
// from its image, --network none, the binds resolved relative to the
// topology file, the sysctls, privileged (containerlab's kind: linux), a
// veth per link moved into the containers' network namespaces with the
// link's interface names, then the exec lines as root. TestClabMD5FRR runs
// the same files on bare namespaces; this test runs the image users run.

const (
	ctrDebianImage = "docker.io/library/debian:bookworm-slim"
	ctrFRRImage    = "localhost/authbgpd-e2e-frr:latest"
	ctrImage       = "authbgpd:latest"
	// ctrMaxAddedMB bounds what the image adds over its debian base.
	ctrMaxAddedMB = 45
)

var (
	ctrOnce     sync.Once
	ctrErr      error
	ctrBuildDur time.Duration
)

// podmanArgs are the global flags podman needs on these machines (see
// docs/OPERATIONS.md): runc and cgroupfs.
var podmanArgs = []string{"--runtime", "runc", "--cgroup-manager", "cgroupfs"}

var ctrUlimits = []string{"--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1000:1000"}

func podman(ctx context.Context, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, "podman", append(append([]string{}, podmanArgs...), args...)...)
}

func podmanOut(t testing.TB, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stderr bytes.Buffer
	cmd := podman(ctx, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("podman %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.Bytes())
	}
	return strings.TrimSpace(string(out))
}

// ctrFRRContainerfile: Debian's FRR, started as the upstream image does
// (frrinit.sh reads /etc/frr/daemons), then kept running.
const ctrFRRContainerfile = `FROM ` + ctrDebianImage + `
RUN apt-get update && apt-get install -y --no-install-recommends frr iproute2 iputils-ping \
    && rm -rf /var/lib/apt/lists/*
CMD ["/bin/bash", "-c", "/usr/lib/frr/frrinit.sh start; exec sleep infinity"]
`

// ctrImages builds authbgpd:latest (scripts/images.sh) and the FRR image,
// once per test binary.
func ctrImages(t *testing.T) {
	t.Helper()
	ctrOnce.Do(func() {
		start := time.Now()
		defer func() { ctrBuildDur = time.Since(start) }()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "bash", filepath.Join("..", "scripts", "images.sh"), ctrImage)
		cmd.Env = append(os.Environ(), "IMAGE_ENGINE=podman")
		if out, err := cmd.CombinedOutput(); err != nil {
			ctrErr = fmt.Errorf("scripts/images.sh: %v\n%s", err, ctrTail(out, 4000))
			return
		}
		dir, err := os.MkdirTemp("", "ctr-frr")
		if err != nil {
			ctrErr = err
			return
		}
		defer os.RemoveAll(dir)
		if err := os.WriteFile(filepath.Join(dir, "Containerfile"), []byte(ctrFRRContainerfile), 0o644); err != nil {
			ctrErr = err
			return
		}
		args := append([]string{"build", "--pull=never", "--format", "docker"}, ctrUlimits...)
		args = append(args, "-t", ctrFRRImage, dir)
		if out, err := podman(ctx, args...).CombinedOutput(); err != nil {
			ctrErr = fmt.Errorf("podman build (FRR from Debian's frr): %v\n%s", err, ctrTail(out, 4000))
		}
	})
	if ctrErr != nil {
		t.Fatal(ctrErr)
	}
}

func ctrTail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// ctrVariant says how nodes are run; the zero value is containerlab's way.
type ctrVariant struct {
	name string
	// caps, when set for a node, replace --privileged with --cap-drop ALL
	// and these --cap-add.
	caps map[string][]string
}

// ctrLab is a deployed topology.
type ctrLab struct {
	topo       *clabTopo
	containers map[string]string // node -> container name
}

var ctrSeq int

// deployCtrLab runs topo's nodes as containers and wires its links.
func deployCtrLab(t *testing.T, file string, v ctrVariant) *ctrLab {
	t.Helper()
	topo := parseClab(t, file)
	ctrSeq++
	prefix := fmt.Sprintf("ctr%d%d", os.Getpid()%100000, ctrSeq)
	lab := &ctrLab{topo: topo, containers: map[string]string{}}
	t.Cleanup(func() {
		names := make([]string, 0, len(lab.containers))
		for _, n := range lab.containers {
			names = append(names, n)
		}
		if len(names) > 0 {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			podman(ctx, append([]string{"rm", "-f", "-t", "0"}, names...)...).Run()
		}
	})
	for _, name := range topo.nodeNames() {
		n := topo.Topology.Nodes[name]
		binds, err := topo.binds(n)
		if err != nil {
			t.Fatal(err)
		}
		image := n.Image
		if strings.Contains(image, "frrouting/frr") {
			image = ctrFRRImage
		}
		cname := prefix + "-" + name
		args := []string{"run", "-d", "--name", cname, "--hostname", name, "--network", "none"}
		args = append(args, ctrUlimits...)
		if caps, ok := v.caps[name]; ok {
			args = append(args, "--cap-drop", "ALL")
			for _, c := range caps {
				args = append(args, "--cap-add", c)
			}
		} else {
			args = append(args, "--privileged")
		}
		for _, b := range binds {
			host, err := filepath.Abs(b.host)
			if err != nil {
				t.Fatal(err)
			}
			spec := host + ":" + b.container
			if b.ro {
				spec += ":ro"
			}
			args = append(args, "-v", spec)
		}
		keys := make([]string, 0, len(n.Sysctls))
		for k := range n.Sysctls {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			args = append(args, "--sysctl", fmt.Sprintf("%s=%v", k, n.Sysctls[k]))
		}
		for k, val := range n.Env {
			args = append(args, "-e", k+"="+val)
		}
		if n.Entrypoint != "" {
			args = append(args, "--entrypoint", n.Entrypoint)
		}
		args = append(args, image)
		if n.Cmd != "" {
			args = append(args, strings.Fields(n.Cmd)...)
		}
		podmanOut(t, args...)
		lab.containers[name] = cname
	}
	pid := func(node string) string {
		return podmanOut(t, "inspect", "-f", "{{.State.Pid}}", lab.containers[node])
	}
	for i, l := range topo.Topology.Links {
		na, ia, _ := strings.Cut(l.Endpoints[0], ":")
		nb, ib, _ := strings.Cut(l.Endpoints[1], ":")
		ha, hb := fmt.Sprintf("%s-%da", prefix, i), fmt.Sprintf("%s-%db", prefix, i)
		ctrRun(t, "ip", "link", "add", ha, "type", "veth", "peer", "name", hb)
		for _, e := range []struct{ host, node, ifname string }{{ha, na, ia}, {hb, nb, ib}} {
			p := pid(e.node)
			ctrRun(t, "ip", "link", "set", e.host, "netns", p)
			ctrRun(t, "nsenter", "--net=/proc/"+p+"/ns/net", "ip", "link", "set", e.host, "name", e.ifname)
			ctrRun(t, "nsenter", "--net=/proc/"+p+"/ns/net", "ip", "link", "set", e.ifname, "up")
		}
	}
	for _, name := range topo.nodeNames() {
		for _, c := range topo.Topology.Nodes[name].Exec {
			podmanOut(t, "exec", "--user", "root", lab.containers[name], "sh", "-c", c)
		}
	}
	return lab
}

func ctrRun(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// status asks `authbgpd status --json` inside node's container.
func (lab *ctrLab) status(t *testing.T, node string) (*status.Status, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := podman(ctx, "exec", lab.containers[node], "authbgpd", "status", "--json").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, out)
	}
	var st status.Status
	if err := json.Unmarshal(out, &st); err != nil {
		return nil, fmt.Errorf("%v: %s", err, out)
	}
	return &st, nil
}

func (lab *ctrLab) dumpLogs(t *testing.T) {
	for _, name := range lab.topo.nodeNames() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		out, _ := podman(ctx, "logs", lab.containers[name]).CombinedOutput()
		cancel()
		t.Logf("podman logs %s:\n%s", name, ctrTail(out, 3000))
	}
}

var uidRE = regexp.MustCompile(`(?m)^Uid:\s+(\d+)\s+(\d+)`)

// checkAuthbgpdContainer: every peer of node established over TCP-MD5 with
// the key installed and the shadow checker's diagnosis ok; the HEALTHCHECK
// healthy; the daemon runs as uid 179; the logs hold no secret.
func checkAuthbgpdContainer(t *testing.T, lab *ctrLab, node string) {
	t.Helper()
	cname := lab.containers[node]
	deadline := time.Now().Add(90 * time.Second)
	var st *status.Status
	var last string
	for {
		var err error
		st, err = lab.status(t, node)
		ok := err == nil && len(st.Peers) > 0
		if err != nil {
			last = err.Error()
		} else {
			last = ""
			for _, p := range st.Peers {
				last += peerString(&p) + "\n"
				if p.State != Established || p.Auth.Mode != "md5" || !p.Auth.Installed || p.Shadow == nil || p.Shadow.Diagnosis != "ok" {
					ok = false
				}
			}
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			lab.dumpLogs(t)
			t.Fatalf("%s: peers not established over TCP-MD5 with shadow ok after 90s:\n%s", node, last)
		}
		time.Sleep(time.Second)
	}
	t.Logf("%s status:\n%s", node, last)

	// HEALTHCHECK (authbgpd status --health).
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if out, err := podman(ctx, "healthcheck", "run", cname).CombinedOutput(); err != nil {
		t.Errorf("%s: podman healthcheck run: %v: %s", node, err, out)
	} else {
		t.Logf("%s: podman healthcheck run: exit 0 %s", node, bytes.TrimSpace(out))
	}
	if hs := podmanOut(t, "inspect", "-f", "{{.State.Health.Status}}", cname); hs != "healthy" {
		t.Errorf("%s: health status %q, want healthy", node, hs)
	}

	// The daemon (pid 1) runs as uid 179, with its capabilities permitted.
	ps := podmanOut(t, "exec", "--user", "root", cname, "cat", "/proc/1/status")
	m := uidRE.FindStringSubmatch(ps)
	if m == nil || m[1] != "179" || m[2] != "179" {
		t.Errorf("%s: daemon Uid line %v, want 179", node, m)
	}
	for _, line := range strings.Split(ps, "\n") {
		if strings.HasPrefix(line, "Cap") {
			t.Logf("%s: daemon %s", node, line)
		}
	}
	if st.Capture == nil || !st.Capture.Running {
		t.Errorf("%s: /status capture %+v, want running (CAP_NET_RAW)", node, st.Capture)
	}

	// No secret in the logs.
	logs, err := podman(ctx, "logs", cname).CombinedOutput()
	if err != nil {
		t.Fatalf("podman logs %s: %v", cname, err)
	}
	n := lab.topo.Topology.Nodes[node]
	binds, _ := lab.topo.binds(n)
	secrets := 0
	for _, b := range binds {
		if !strings.Contains(b.container, "secrets") {
			continue
		}
		filepath.Walk(b.host, func(p string, fi os.FileInfo, err error) error {
			if err != nil || fi.IsDir() {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				t.Error(err)
				return nil
			}
			s := strings.TrimSpace(string(data))
			if s == "" {
				return nil
			}
			secrets++
			if bytes.Contains(logs, []byte(s)) {
				t.Errorf("%s: podman logs contain the secret of %s", node, p)
			}
			return nil
		})
	}
	if secrets == 0 {
		t.Errorf("%s: no secret files found in its binds", node)
	}
	t.Logf("%s: %d log bytes, none of %d secrets in them", node, len(logs), secrets)
}

// ctrAddedMB is what image adds over base, from podman image inspect.
func ctrAddedMB(t *testing.T, image, base string) float64 {
	size := func(img string) int64 {
		s := podmanOut(t, "image", "inspect", "-f", "{{.Size}}", img)
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("image size of %s: %q", img, s)
		}
		return n
	}
	return float64(size(image)-size(base)) / 1e6
}

func TestContainerLabs(t *testing.T) {
	testenv.RequireRoot(t)
	testenv.RequireBinary(t, "podman")
	testenv.RequireBinary(t, "nsenter")
	start := time.Now()
	defer func() {
		t.Logf("TestContainerLabs took %.0fs (image builds %.0fs)", time.Since(start).Seconds(), ctrBuildDur.Seconds())
	}()
	ctrImages(t)

	added := ctrAddedMB(t, ctrImage, ctrDebianImage)
	t.Logf("image %s adds %.1f MB over %s", ctrImage, added, ctrDebianImage)
	if added > ctrMaxAddedMB {
		t.Errorf("image %s adds %.1f MB over its base; limit %d MB", ctrImage, added, ctrMaxAddedMB)
	}
	hist := podmanOut(t, "history", "--format", "{{.Size}}\t{{.CreatedBy}}", ctrImage)
	t.Logf("podman history %s:\n%s", ctrImage, hist)

	md5 := filepath.Join(clabDir, "md5-frr.clab.yml")
	t.Run("md5-frr", func(t *testing.T) {
		lab := deployCtrLab(t, md5, ctrVariant{name: "privileged"})
		checkAuthbgpdContainer(t, lab, "r1")
	})
	t.Run("md5-frr-caps", func(t *testing.T) {
		lab := deployCtrLab(t, md5, ctrVariant{name: "caps", caps: map[string][]string{
			"r1": {"NET_BIND_SERVICE", "NET_RAW", "NET_ADMIN"},
		}})
		checkAuthbgpdContainer(t, lab, "r1")
	})
	t.Run("srv6-hmac", ctrSRv6)
}

// attachNetns names each node's network namespace (ip netns attach) so the
// namespace helpers of the clab tests work on the containers; removed at
// cleanup (only the name: the namespace stays the container's).
func (lab *ctrLab) attachNetns(t *testing.T) *clabLab {
	t.Helper()
	cl := &clabLab{topo: lab.topo, ns: map[string]string{}}
	for _, node := range lab.topo.nodeNames() {
		name := lab.containers[node]
		pid := podmanOut(t, "inspect", "-f", "{{.State.Pid}}", name)
		ctrRun(t, "ip", "netns", "attach", name, pid)
		t.Cleanup(func() { exec.Command("ip", "netns", "delete", name).Run() })
		cl.ns[node] = name
	}
	return cl
}

// ctrSRv6 runs srv6-hmac.clab.yml: the controller-headend session over
// TCP-MD5 (shadow ok, healthy, uid 179, no secret in the logs on both),
// HMAC key 42 installed on both, the headend installs the policy, and a
// datagram from the headend reaches the endpoint (seg6_require_hmac = 1)
// only while the endpoint holds the same key 42.
func ctrSRv6(t *testing.T) {
	requireSRv6HMACKernel(t, "")
	lab := deployCtrLab(t, filepath.Join(clabDir, "srv6-hmac.clab.yml"), ctrVariant{name: "privileged"})
	for _, node := range []string{"controller", "headend"} {
		checkAuthbgpdContainer(t, lab, node)
	}
	for _, node := range []string{"controller", "headend"} {
		st, err := lab.status(t, node)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.SRv6.HMACKeys) != 1 || st.SRv6.HMACKeys[0].ID != 42 || !st.SRv6.HMACKeys[0].Installed {
			t.Errorf("%s /status srv6.hmac_keys: %+v, want key 42 installed", node, st.SRv6.HMACKeys)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := lab.status(t, "headend")
		installed := false
		if err == nil {
			for _, p := range st.SRv6.Policies {
				installed = installed || p.Installed
			}
		}
		if installed {
			t.Logf("headend /status srv6.policies: %+v", st.SRv6.Policies)
			break
		}
		if time.Now().After(deadline) {
			lab.dumpLogs(t)
			t.Fatalf("headend: no SR policy installed within 30 s (%v)", err)
		}
		time.Sleep(500 * time.Millisecond)
	}
	cl := lab.attachNetns(t)
	if !sendThroughPolicy(t, cl) {
		t.Fatalf("a datagram from the headend to 2001:db8:3::3 did not arrive through the HMAC'd policy")
	}
	setEndpointKey(t, cl, "not-the-key-the-headend-uses")
	if sendThroughPolicy(t, cl) {
		t.Errorf("the endpoint accepted an SRH whose HMAC was made with another secret")
	}
	setEndpointKey(t, cl, "")
	if !sendThroughPolicy(t, cl) {
		t.Errorf("with the right key back at the endpoint, nothing arrives")
	}
}
