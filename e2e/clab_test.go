//go:build linux

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
	"gopkg.in/yaml.v3"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/status"
)

// The containerlab topologies in e2e/clab (*.clab.yml) and their configs are
// what users deploy. These tests keep them honest:
//
//   - TestClabTopologies parses every topology (strictly: a misspelt key is
//     an error), checks that every bind-mounted host file exists, that nodes
//     have a kind and an image, that links join existing nodes, runs every
//     authbgpd config through the real `authbgpd check`, checks that every
//     secret file a config names is inside the container through a bind,
//     and that both ends of a session (authbgpd and FRR) and every holder of
//     an SRv6 HMAC key ID agree on the secret.
//   - TestClabMD5FRR, TestClabSRv6HMAC and TestClabFabric build each
//     topology from network namespaces (a namespace per node, a veth per
//     link with the same interface names, the nodes' sysctls and exec
//     commands run as written) and run the daemons with the very same
//     config files: what users run is what we test. The one difference
//     from containerlab: the daemons start after the links and exec
//     commands, not before. TestContainerFabric (unnumbered_test.go) runs
//     fabric.clab.yml as containers, as TestContainerLabs runs the others.

const clabDir = "clab"

// clabTopo is the part of the containerlab topology schema the files use.
// Decoding is strict: keys outside it are errors here.
type clabTopo struct {
	Name     string `yaml:"name"`
	Topology struct {
		Nodes map[string]*clabNode `yaml:"nodes"`
		Links []struct {
			Endpoints []string `yaml:"endpoints"`
		} `yaml:"links"`
	} `yaml:"topology"`

	file string // path of the .clab.yml
	dir  string // its directory: relative bind paths start there
}

type clabNode struct {
	Kind       string            `yaml:"kind"`
	Image      string            `yaml:"image"`
	Binds      []string          `yaml:"binds"`
	Exec       []string          `yaml:"exec"`
	Sysctls    map[string]any    `yaml:"sysctls"`
	Env        map[string]string `yaml:"env"`
	Entrypoint string            `yaml:"entrypoint"`
	Cmd        string            `yaml:"cmd"`
}

// clabBind is one bind mount, its host path resolved.
type clabBind struct {
	host, container string
	ro              bool
}

func parseClab(t testing.TB, file string) *clabTopo {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var topo clabTopo
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&topo); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	topo.file, topo.dir = file, filepath.Dir(file)
	return &topo
}

func clabFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(clabDir, "*.clab.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 2 {
		t.Fatalf("found %d topologies in e2e/%s; want md5-frr and srv6-hmac at least", len(files), clabDir)
	}
	return files
}

func (tp *clabTopo) nodeNames() []string {
	names := make([]string, 0, len(tp.Topology.Nodes))
	for n := range tp.Topology.Nodes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// binds parses a node's binds ("host:container[:ro|rw]").
func (tp *clabTopo) binds(n *clabNode) ([]clabBind, error) {
	var out []clabBind
	for _, b := range n.Binds {
		parts := strings.Split(b, ":")
		if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[1] == "" {
			return nil, fmt.Errorf("bind %q: want HOST:CONTAINER[:ro|rw]", b)
		}
		cb := clabBind{host: parts[0], container: parts[1]}
		if len(parts) == 3 {
			switch parts[2] {
			case "ro":
				cb.ro = true
			case "rw":
			default:
				return nil, fmt.Errorf("bind %q: unknown option %q", b, parts[2])
			}
		}
		if !filepath.IsAbs(cb.host) {
			cb.host = filepath.Join(tp.dir, cb.host)
		}
		if !filepath.IsAbs(cb.container) {
			return nil, fmt.Errorf("bind %q: container path is not absolute", b)
		}
		out = append(out, cb)
	}
	return out, nil
}

// clabHostPath maps a container path to the host through the node's binds
// (the most specific bind wins); ok is false when no bind covers it.
func clabHostPath(binds []clabBind, p string) (string, bool) {
	best := -1
	for i, b := range binds {
		if p == b.container || strings.HasPrefix(p, b.container+"/") {
			if best < 0 || len(b.container) > len(binds[best].container) {
				best = i
			}
		}
	}
	if best < 0 {
		return "", false
	}
	return binds[best].host + strings.TrimPrefix(p, binds[best].container), true
}

const authbgpdConfPath = "/etc/authbgpd/authbgpd.toml"

// authbgpdConfig returns the host path of the authbgpd config of a node
// that runs the authbgpd daemon (image authbgpd, entrypoint not replaced),
// or "".
func (tp *clabTopo) authbgpdConfig(n *clabNode) string {
	if !strings.HasPrefix(n.Image, "authbgpd") || n.Entrypoint != "" {
		return ""
	}
	binds, err := tp.binds(n)
	if err != nil {
		return ""
	}
	p, _ := clabHostPath(binds, authbgpdConfPath)
	return p
}

// frrConfig returns the host path of the frr.conf of an FRR node that runs
// bgpd, or "".
func (tp *clabTopo) frrConfig(n *clabNode) string {
	if !strings.Contains(n.Image, "frrouting/frr") {
		return ""
	}
	binds, err := tp.binds(n)
	if err != nil {
		return ""
	}
	conf, ok := clabHostPath(binds, "/etc/frr/frr.conf")
	if !ok {
		return ""
	}
	if d, ok := clabHostPath(binds, "/etc/frr/daemons"); ok {
		if b, err := os.ReadFile(d); err != nil || !regexp.MustCompile(`(?m)^bgpd=yes`).Match(b) {
			return ""
		}
	}
	return conf
}

var execAddrRE = regexp.MustCompile(`^ip (?:-6 )?addr(?:ess)? add (\S+)/\d+ dev \S+`)

// addresses are the addresses a node's exec commands assign.
func (n *clabNode) addresses() []netip.Addr {
	var out []netip.Addr
	for _, c := range n.Exec {
		if m := execAddrRE.FindStringSubmatch(c); m != nil {
			if a, err := netip.ParseAddr(m[1]); err == nil {
				out = append(out, a)
			}
		}
	}
	return out
}

var (
	frrPasswordRE = regexp.MustCompile(`(?m)^\s*neighbor (\S+) password (\S+)\s*$`)
	srHMACSetRE   = regexp.MustCompile(`ip sr hmac set (\d+) (sha1|sha256) < (\S+?)'?$`)
)

// TestClabTopologies checks every topology file statically (no root needed,
// no containers).
func TestClabTopologies(t *testing.T) {
	bin := authbgpdBinary(t, "")
	for _, file := range clabFiles(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			topo := parseClab(t, file)
			if topo.Name == "" {
				t.Errorf("%s: no name", file)
			}
			if len(topo.Topology.Nodes) == 0 {
				t.Fatalf("%s: no nodes", file)
			}
			configs := map[string]*config.Config{} // node -> its authbgpd config
			for _, name := range topo.nodeNames() {
				n := topo.Topology.Nodes[name]
				if n == nil {
					t.Errorf("node %s: empty", name)
					continue
				}
				if n.Kind == "" {
					t.Errorf("node %s: no kind", name)
				}
				if n.Image == "" {
					t.Errorf("node %s: no image", name)
				}
				binds, err := topo.binds(n)
				if err != nil {
					t.Errorf("node %s: %v", name, err)
					continue
				}
				for _, b := range binds {
					if _, err := os.Stat(b.host); err != nil {
						t.Errorf("node %s: bind %s -> %s: host file missing: %v", name, b.host, b.container, err)
					}
				}
				// Files the exec commands read must come from a bind.
				for _, c := range n.Exec {
					for _, f := range strings.Fields(strings.NewReplacer("'", " ", `"`, " ").Replace(c)) {
						if !strings.HasPrefix(f, "/etc/") {
							continue
						}
						hp, ok := clabHostPath(binds, f)
						if !ok {
							t.Errorf("node %s: exec %q reads %s, which no bind provides", name, c, f)
						} else if _, err := os.Stat(hp); err != nil {
							t.Errorf("node %s: exec %q reads %s: %v", name, c, f, err)
						}
					}
				}
				if conf := topo.authbgpdConfig(n); conf != "" {
					out, err := exec.Command(bin, "check", "-f", conf).CombinedOutput()
					if err != nil {
						t.Errorf("node %s: authbgpd check -f %s: %v\n%s", name, conf, err, out)
						continue
					}
					t.Logf("node %s: %s", name, strings.TrimSpace(clabCheckLine(string(out))))
					cfg, err := config.Load(conf)
					if err != nil {
						t.Errorf("node %s: %v", name, err)
						continue
					}
					configs[name] = cfg
					checkSecretsBound(t, name, cfg, binds)
				} else if strings.HasPrefix(n.Image, "authbgpd") && n.Entrypoint == "" {
					t.Errorf("node %s: runs authbgpd but binds no %s", name, authbgpdConfPath)
				}
			}
			checkLinks(t, topo)
			checkFRRPasswords(t, topo, configs)
			checkSRv6Secrets(t, topo, configs)
		})
	}
}

func clabCheckLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for _, l := range lines {
		if strings.Contains(l, ": ok (") {
			return l
		}
	}
	return lines[len(lines)-1]
}

// checkSecretsBound: every secret file of cfg (read on the host relative to
// the config) is the same file the container sees at the same place
// relative to /etc/authbgpd/authbgpd.toml.
func checkSecretsBound(t *testing.T, node string, cfg *config.Config, binds []clabBind) {
	t.Helper()
	var files []string
	for _, p := range cfg.Peers {
		if p.PasswordSource == config.SourcePasswordFile {
			files = append(files, p.PasswordRef)
		}
	}
	for _, kc := range cfg.Keychains {
		for _, k := range kc.Keys {
			if k.SecretSource == config.SourceSecretFile {
				files = append(files, k.SecretRef)
			}
		}
	}
	for _, h := range cfg.SRv6.HMACKeys {
		if h.SecretSource == config.SourceSecretFile {
			files = append(files, h.SecretRef)
		}
	}
	for _, f := range files {
		rel, err := filepath.Rel(cfg.Dir, f)
		if err != nil || strings.HasPrefix(rel, "..") {
			t.Errorf("node %s: secret file %s is outside the config's directory: give the container path instead", node, f)
			continue
		}
		inContainer := filepath.Join(filepath.Dir(authbgpdConfPath), rel)
		hp, ok := clabHostPath(binds, inContainer)
		if !ok {
			t.Errorf("node %s: the config reads %s in the container, which no bind provides", node, inContainer)
			continue
		}
		if filepath.Clean(hp) != filepath.Clean(f) {
			t.Errorf("node %s: the container's %s is %s on the host, but the config read %s", node, inContainer, hp, f)
		}
	}
}

func checkLinks(t *testing.T, topo *clabTopo) {
	t.Helper()
	seen := map[string]bool{}
	for i, l := range topo.Topology.Links {
		if len(l.Endpoints) != 2 {
			t.Errorf("link %d: %d endpoints, want 2", i, len(l.Endpoints))
			continue
		}
		for _, ep := range l.Endpoints {
			node, ifc, ok := strings.Cut(ep, ":")
			switch {
			case !ok || node == "" || ifc == "":
				t.Errorf("link %d: endpoint %q is not NODE:INTERFACE", i, ep)
			case topo.Topology.Nodes[node] == nil:
				t.Errorf("link %d: endpoint %q: no node %s", i, ep, node)
			case ifc == "eth0":
				t.Errorf("link %d: endpoint %q: eth0 is containerlab's management interface", i, ep)
			case len(ifc) > 15:
				t.Errorf("link %d: endpoint %q: interface name longer than 15", i, ep)
			case seen[ep]:
				t.Errorf("link %d: endpoint %q used twice", i, ep)
			}
			seen[ep] = true
		}
	}
}

// checkFRRPasswords: for every "neighbor ADDR password PW" of an FRR node,
// the authbgpd node owning ADDR has a peer at one of the FRR node's
// addresses with the same key.
func checkFRRPasswords(t *testing.T, topo *clabTopo, configs map[string]*config.Config) {
	t.Helper()
	owner := map[netip.Addr]string{}
	for _, name := range topo.nodeNames() {
		for _, a := range topo.Topology.Nodes[name].addresses() {
			owner[a] = name
		}
	}
	for _, name := range topo.nodeNames() {
		n := topo.Topology.Nodes[name]
		conf := topo.frrConfig(n)
		if conf == "" {
			continue
		}
		data, err := os.ReadFile(conf)
		if err != nil {
			t.Errorf("node %s: %v", name, err)
			continue
		}
		for _, m := range frrPasswordRE.FindAllStringSubmatch(string(data), -1) {
			addr, err := netip.ParseAddr(m[1])
			if err != nil {
				continue
			}
			peerNode := owner[addr]
			cfg := configs[peerNode]
			if cfg == nil {
				t.Errorf("node %s: neighbor %s: no authbgpd node has that address", name, addr)
				continue
			}
			found := false
			for _, own := range n.addresses() {
				p := cfg.Peer(own.String())
				if p == nil {
					continue
				}
				found = true
				if string(p.Password) != m[2] {
					t.Errorf("node %s: neighbor %s password differs from %s's key for peer %s (%s)", name, addr, peerNode, own, p.PasswordRef)
				}
			}
			if !found {
				t.Errorf("node %s: neighbor %s: %s has no peer at %v", name, addr, peerNode, n.addresses())
			}
		}
	}
}

// checkSRv6Secrets: every holder of an SRv6 HMAC key ID (authbgpd configs,
// `ip sr hmac set` exec commands) has the same secret and algorithm.
func checkSRv6Secrets(t *testing.T, topo *clabTopo, configs map[string]*config.Config) {
	t.Helper()
	type holder struct{ node, algo, secret string }
	keys := map[string][]holder{}
	for _, name := range topo.nodeNames() {
		if cfg := configs[name]; cfg != nil {
			for _, h := range cfg.SRv6.HMACKeys {
				id := fmt.Sprint(h.ID)
				keys[id] = append(keys[id], holder{name, h.Algorithm, string(h.Secret)})
			}
		}
		n := topo.Topology.Nodes[name]
		binds, _ := topo.binds(n)
		for _, c := range n.Exec {
			m := srHMACSetRE.FindStringSubmatch(c)
			if m == nil {
				continue
			}
			hp, ok := clabHostPath(binds, m[3])
			if !ok {
				continue // reported above
			}
			b, err := os.ReadFile(hp)
			if err != nil {
				continue
			}
			// getpass(3) reads one line: the secret up to the newline.
			line, _, _ := strings.Cut(string(b), "\n")
			keys[m[1]] = append(keys[m[1]], holder{name, m[2], line})
		}
	}
	for id, hs := range keys {
		for _, h := range hs[1:] {
			if h.algo != hs[0].algo || h.secret != hs[0].secret {
				t.Errorf("SRv6 HMAC key %s: %s and %s hold different secrets or algorithms (%s, %s)", id, hs[0].node, h.node, hs[0].algo, h.algo)
			}
		}
		t.Logf("SRv6 HMAC key %s held by %d nodes, one secret", id, len(hs))
	}
}

// ---------------------------------------------------------------- namespaces

// clabLab is a topology built from network namespaces.
type clabLab struct {
	topo *clabTopo
	tp   *netns.Topology
	ns   map[string]string // node -> namespace
}

// buildClab creates a namespace per node and a veth per link (interface
// names as in the file), then applies each node's sysctls and runs its
// exec commands in its namespace, container paths replaced by the bound
// host paths. Commands run without a controlling terminal, as in
// `docker exec` without -t.
func buildClab(t *testing.T, file string) *clabLab {
	t.Helper()
	topo := parseClab(t, file)
	lab := &clabLab{topo: topo, tp: netns.New(t, "clab"), ns: map[string]string{}}
	for _, name := range topo.nodeNames() {
		lab.ns[name] = lab.tp.Add(name)
	}
	for _, l := range topo.Topology.Links {
		na, ia, _ := strings.Cut(l.Endpoints[0], ":")
		nb, ib, _ := strings.Cut(l.Endpoints[1], ":")
		lab.tp.Link(lab.ns[na], ia, nil, lab.ns[nb], ib, nil)
	}
	for _, name := range topo.nodeNames() {
		n := topo.Topology.Nodes[name]
		keys := make([]string, 0, len(n.Sysctls))
		for k := range n.Sysctls {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			netns.Run(t, "ip", "netns", "exec", lab.ns[name], "sysctl", "-qw", fmt.Sprintf("%s=%v", k, n.Sysctls[k]))
		}
		binds, err := topo.binds(n)
		if err != nil {
			t.Fatal(err)
		}
		// Longest container paths first, so /etc/a/b wins over /etc/a.
		sort.Slice(binds, func(i, j int) bool { return len(binds[i].container) > len(binds[j].container) })
		for _, c := range n.Exec {
			cmdline := c
			for _, b := range binds {
				cmdline = strings.ReplaceAll(cmdline, b.container, b.host)
			}
			cmd := netns.Exec(lab.ns[name], "sh", "-c", cmdline)
			cmd.SysProcAttr = &unix.SysProcAttr{Setsid: true}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("node %s: exec %q: %v\n%s", name, c, err, out)
			}
		}
	}
	return lab
}

// startAuthbgpdNode runs authbgpd in node's namespace with the node's own
// config file (from the repository, not a copy).
func (lab *clabLab) startAuthbgpdNode(t *testing.T, node string) *Authbgpd {
	t.Helper()
	return lab.startAuthbgpd(t, node, false)
}

// startAuthbgpdNodeCopy is startAuthbgpdNode with a copy of the node's
// config directory, for tests that change the config (Reload, secrets).
func (lab *clabLab) startAuthbgpdNodeCopy(t *testing.T, node string) *Authbgpd {
	t.Helper()
	return lab.startAuthbgpd(t, node, true)
}

func (lab *clabLab) startAuthbgpd(t *testing.T, node string, copyDir bool) *Authbgpd {
	t.Helper()
	n := lab.topo.Topology.Nodes[node]
	conf := lab.topo.authbgpdConfig(n)
	if conf == "" {
		t.Fatalf("node %s does not run authbgpd", node)
	}
	conf, err := filepath.Abs(conf)
	if err != nil {
		t.Fatal(err)
	}
	if copyDir {
		dst := t.TempDir()
		clabCopyTree(t, filepath.Dir(conf), dst)
		conf = filepath.Join(dst, filepath.Base(conf))
	}
	bin := authbgpdBinary(t, "")
	d := startDaemon(t, lab.tp, lab.ns[node], "authbgpd-"+node, t.TempDir(), nil, bin, "-f", conf, "--log-level", "debug")
	a := &Authbgpd{GoBGP: &GoBGP{daemon: d}, Config: conf, t: t}
	a.waitHealthy(t)
	return a
}

// clabCopyTree copies the regular files under src to dst (modes 0600, 0700).
func clabCopyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// startFRRNode runs FRR's bgpd alone in node's namespace with the node's
// frr.conf.
func (lab *clabLab) startFRRNode(t *testing.T, node string) *FRR {
	t.Helper()
	conf := lab.topo.frrConfig(lab.topo.Topology.Nodes[node])
	if conf == "" {
		t.Fatalf("node %s does not run FRR's bgpd", node)
	}
	conf, err := filepath.Abs(conf)
	if err != nil {
		t.Fatal(err)
	}
	f := startBgpdFile(t, lab.tp, lab.ns[node], "frr-"+node, t.TempDir(), conf)
	f.waitVty(t)
	return f
}

// TestClabMD5FRR runs e2e/clab/md5-frr.clab.yml on namespaces: authbgpd
// with configs/md5-frr/authbgpd.toml, FRR with configs/md5-frr/frr/frr.conf.
// Both sessions (IPv4, IPv6) come up over TCP-MD5, FRR's routes arrive, the
// shadow checker says ok.
func TestClabMD5FRR(t *testing.T) {
	testenv.RequireRoot(t)
	testenv.RequireBinary(t, "gobgp")
	lab := buildClab(t, filepath.Join(clabDir, "md5-frr.clab.yml"))
	a := lab.startAuthbgpdNode(t, "r1")
	f := lab.startFRRNode(t, "r2")
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	r1 := lab.topo.Topology.Nodes["r1"].addresses()
	r2 := lab.topo.Topology.Nodes["r2"].addresses()
	if len(r1) != 2 || len(r2) != 2 {
		t.Fatalf("want an IPv4 and an IPv6 address on r1 and r2; exec gives %v and %v", r1, r2)
	}
	for i := range r1 {
		if err := WaitSession(ctx, a, r2[i], 1); err != nil {
			t.Fatal(err)
		}
		if err := WaitSession(ctx, f, r1[i], 0); err != nil {
			t.Fatal(err)
		}
	}
	for _, addr := range r2 {
		p := waitShadow(t, a, addr.String(), 10*time.Second, "ok with valid segments", func(p *status.Peer) bool {
			return p.Shadow.Diagnosis == "ok" && p.Shadow.Segments.Valid > 0
		})
		if p.State != Established || p.Auth.Mode != "md5" || !p.Auth.Installed || p.Auth.Source != "password-file" {
			t.Errorf("/status %s: %s", addr, peerString(p))
		}
		t.Logf("r1 /status %s: %s", addr, peerString(p))
	}
	if st := a.Status(); st.Capture == nil || !st.Capture.Running {
		t.Errorf("/status capture: %+v, want running", st.Capture)
	}
}

// TestClabFabric runs e2e/clab/fabric.clab.yml on namespaces: the spine's
// authbgpd with configs/fabric-spine/authbgpd.toml, each leaf's zebra and
// bgpd with its configs/fabric-leaf*/frr.conf. Both unnumbered sessions
// come up over TCP-MD5 (shadow ok), and each leaf's routes reach the other
// through the spine (runClabFabric, unnumbered_test.go).
func TestClabFabric(t *testing.T) {
	testenv.RequireRoot(t)
	testenv.RequireBinary(t, "gobgp")
	runClabFabric(t, buildClab(t, filepath.Join(clabDir, "fabric.clab.yml")))
}

// TestClabSRv6HMAC runs e2e/clab/srv6-hmac.clab.yml on namespaces. Always:
// the endpoint's exec commands work on this kernel (HMAC key 42 set with
// `ip sr hmac set`, seg6_require_hmac on, the segment address on lo); the
// controller and headend start with their configs and their TCP-MD5
// session (family ipv6-srpolicy) comes up. Their configs hold SRv6 HMAC
// key 42, so /status srv6.hmac_keys must list it (empty fails the test):
// key 42 is installed on both, the headend installs the policy, its routes
// carry HMAC key 42, and a ping from the headend to the policy's endpoint
// goes through the HMAC-checking endpoint. A kernel without SRv6 HMAC
// skips the test, naming the feature.
func TestClabSRv6HMAC(t *testing.T) {
	testenv.RequireRoot(t)
	testenv.RequireBinary(t, "gobgp")
	requireSRv6HMACKernel(t, "")
	lab := buildClab(t, filepath.Join(clabDir, "srv6-hmac.clab.yml"))
	ep := lab.ns["endpoint"]
	if out := netns.Run(t, "ip", "netns", "exec", ep, "ip", "sr", "hmac", "show"); !regexp.MustCompile(`hmac 42 algo sha256`).MatchString(out) {
		t.Fatalf("endpoint: ip sr hmac show has no key 42 (%d bytes of output)", len(out))
	}
	for k, want := range map[string]string{"net.ipv6.conf.eth1.seg6_require_hmac": "1", "net.ipv6.conf.eth1.seg6_enabled": "1", "net.ipv6.conf.all.seg6_enabled": "1"} {
		if got := strings.TrimSpace(netns.Run(t, "ip", "netns", "exec", ep, "sysctl", "-n", k)); got != want {
			t.Errorf("endpoint: %s = %s, want %s", k, got, want)
		}
	}
	if out := netns.Run(t, "ip", "-n", ep, "-6", "addr", "show", "dev", "lo"); !strings.Contains(out, "fc00:0:3::1/128") {
		t.Errorf("endpoint: no segment address fc00:0:3::1 on lo: %q", out)
	}

	ctl := lab.startAuthbgpdNode(t, "controller")
	he := lab.startAuthbgpdNode(t, "headend")
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	heAddr := netip.MustParseAddr("2001:db8:12::2")
	ctlAddr := netip.MustParseAddr("2001:db8:12::1")
	if err := WaitSession(ctx, ctl, heAddr, 0); err != nil {
		t.Fatal(err)
	}
	if err := WaitSession(ctx, he, ctlAddr, 0); err != nil {
		t.Fatal(err)
	}
	p := waitShadow(t, he, ctlAddr.String(), 10*time.Second, "ok", func(p *status.Peer) bool { return p.Shadow.Diagnosis == "ok" })
	t.Logf("headend /status %s: %s", ctlAddr, peerString(p))

	// Both configs hold SRv6 HMAC keys: /status must list them, or the key,
	// policy and data-plane checks would pass without running.
	run := true
	for name, a := range map[string]*Authbgpd{"controller": ctl, "headend": he} {
		cfg, err := config.Load(a.Config)
		if err != nil {
			t.Fatalf("%s: loading %s: %v", name, a.Config, err)
		}
		var configured []uint32
		for _, h := range cfg.SRv6.HMACKeys {
			configured = append(configured, h.ID)
		}
		keys := waitHMACKeyIDs(a, configured, 10*time.Second)
		run = requireSRv6Keys(t, name, keys, configured) && run
	}
	if !run {
		return
	}
	checkClabSRv6DataPlane(t, lab, ctl, he)
}

// checkClabSRv6DataPlane is the part of TestClabSRv6HMAC that needs SRv6 in
// the speaker.
func checkClabSRv6DataPlane(t *testing.T, lab *clabLab, ctl, he *Authbgpd) {
	t.Helper()
	for name, a := range map[string]*Authbgpd{"controller": ctl, "headend": he} {
		st := a.Status()
		if len(st.SRv6.HMACKeys) != 1 || st.SRv6.HMACKeys[0].ID != 42 || !st.SRv6.HMACKeys[0].Installed {
			t.Errorf("%s /status srv6.hmac_keys: %+v, want key 42 installed", name, st.SRv6.HMACKeys)
		}
		if out := netns.Run(t, "ip", "netns", "exec", lab.ns[name], "ip", "sr", "hmac", "show"); !strings.Contains(out, "hmac 42 algo sha256") {
			t.Errorf("%s: the kernel has no HMAC key 42", name)
		}
	}
	if st := ctl.Status(); len(st.SRv6.Policies) != 1 || !st.SRv6.Policies[0].Advertised {
		t.Errorf("controller /status srv6.policies: %+v, want to-endpoint advertised", st.SRv6.Policies)
	}
	pols := waitSRv6Status(t, he, 20*time.Second, "headend: an SR policy installed", func(s status.SRv6) bool {
		for _, p := range s.Policies {
			if p.Installed {
				return true
			}
		}
		return false
	}).Policies
	t.Logf("headend /status srv6.policies: %+v", pols)
	routes := netns.Run(t, "ip", "-n", lab.ns["headend"], "-6", "route", "show")
	for _, want := range []string{"fc00:0:2:b6::100", "2001:db8:3::3"} {
		found := false
		for _, l := range strings.Split(routes, "\n") {
			if strings.HasPrefix(l, want) && strings.Contains(l, "fc00:0:3::1") && hmacRouteRE.MatchString(l) {
				found = true
			}
		}
		if !found {
			t.Errorf("headend: no route %s with segment fc00:0:3::1 and HMAC key 42:\n%s", want, routes)
		}
	}
	// Steered into the policy (the endpoint route): the endpoint accepts
	// the SRH only with a valid HMAC (seg6_require_hmac = 1), decapsulates
	// and delivers. With another secret under key 42 at the endpoint,
	// nothing arrives; with the right one again, it does.
	if !sendThroughPolicy(t, lab) {
		t.Fatalf("a datagram from the headend to 2001:db8:3::3 did not arrive through the HMAC'd policy")
	}
	setEndpointKey(t, lab, "not-the-key-the-headend-uses")
	if sendThroughPolicy(t, lab) {
		t.Errorf("the endpoint accepted an SRH whose HMAC was made with another secret")
	}
	setEndpointKey(t, lab, "")
	if !sendThroughPolicy(t, lab) {
		t.Errorf("with the right key back at the endpoint, nothing arrives")
	}
}

var hmacRouteRE = regexp.MustCompile(`(?i)hmac (0x)?2a\b`)

// setEndpointKey re-sets HMAC key 42 at the endpoint to secret, or, when
// secret is "", runs the topology's own exec command again.
func setEndpointKey(t *testing.T, lab *clabLab, secret string) {
	t.Helper()
	n := lab.topo.Topology.Nodes["endpoint"]
	binds, _ := lab.topo.binds(n)
	file, _ := clabHostPath(binds, "/etc/srv6/hmac-42.key")
	if secret != "" {
		file = filepath.Join(t.TempDir(), "wrong.key")
		if err := os.WriteFile(file, []byte(secret+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cmd := netns.Exec(lab.ns["endpoint"], "sh", "-c", "ip sr hmac set 42 sha256 < "+file)
	cmd.SysProcAttr = &unix.SysProcAttr{Setsid: true}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("endpoint: ip sr hmac set 42: %v\n%s", err, out)
	}
}

// sendThroughPolicy sends datagrams from the headend to the policy's
// endpoint address and reports whether any arrived at the endpoint.
func sendThroughPolicy(t *testing.T, lab *clabLab) bool {
	t.Helper()
	dst := &net.UDPAddr{IP: net.ParseIP("2001:db8:3::3"), Port: 9179}
	var in *net.UDPConn
	if err := netns.Do(lab.ns["endpoint"], func() error {
		var err error
		in, err = net.ListenUDP("udp6", dst)
		return err
	}); err != nil {
		t.Fatalf("endpoint: listen %v: %v", dst, err)
	}
	defer in.Close()
	var out *net.UDPConn
	if err := netns.Do(lab.ns["headend"], func() error {
		var err error
		out, err = net.DialUDP("udp6", nil, dst)
		return err
	}); err != nil {
		t.Fatalf("headend: dial %v: %v", dst, err)
	}
	defer out.Close()
	got := make(chan bool, 1)
	go func() {
		buf := make([]byte, 64)
		_ = in.SetReadDeadline(time.Now().Add(2 * time.Second))
		_, err := in.Read(buf)
		got <- err == nil
	}()
	for i := 0; i < 5; i++ {
		_, _ = out.Write([]byte("through the SR policy"))
		time.Sleep(100 * time.Millisecond)
	}
	return <-got
}
