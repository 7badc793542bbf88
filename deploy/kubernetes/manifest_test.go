// Package kubernetes_test checks deploy/kubernetes/authbgpd.yaml against
// what the image really has: its name (scripts/images.sh), user, file
// capabilities and secrets directory (Dockerfile), the HTTP routes and
// port the daemon serves (httpapi, the config the ConfigMap carries), the
// probes' timings against the watchdog of GoBGP's loop (plugin), that
// the config parses with the Secret's files where the mounts put them, and
// that two nodes' environments (the downward API) give it two router IDs
// and two announced prefixes.
package kubernetes_test

import (
	"bytes"
	"errors"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/httpapi"
	"github.com/authbgp/authbgpd/plugin"
	"github.com/authbgp/authbgpd/status"
)

const (
	manifest   = "authbgpd.yaml"
	dockerfile = "../../Dockerfile"
	imagesSh   = "../../scripts/images.sh"
)

// The parts of the objects the test reads.
type object struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Data       map[string]string `yaml:"data"`
	StringData map[string]string `yaml:"stringData"`
	Spec       struct {
		Template struct {
			Spec podSpec `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type podSpec struct {
	HostNetwork     bool `yaml:"hostNetwork"`
	SecurityContext struct {
		RunAsUser    *int64 `yaml:"runAsUser"`
		RunAsGroup   *int64 `yaml:"runAsGroup"`
		RunAsNonRoot *bool  `yaml:"runAsNonRoot"`
		FSGroup      *int64 `yaml:"fsGroup"`
	} `yaml:"securityContext"`
	Containers []container `yaml:"containers"`
	Volumes    []struct {
		Name      string `yaml:"name"`
		ConfigMap *struct {
			Name string `yaml:"name"`
		} `yaml:"configMap"`
		Secret *struct {
			SecretName  string `yaml:"secretName"`
			DefaultMode *int   `yaml:"defaultMode"`
		} `yaml:"secret"`
	} `yaml:"volumes"`

	TerminationGracePeriodSeconds *int `yaml:"terminationGracePeriodSeconds"`
}

type container struct {
	Name  string   `yaml:"name"`
	Image string   `yaml:"image"`
	Args  []string `yaml:"args"`
	Env   []envVar `yaml:"env"`
	Ports []struct {
		Name          string `yaml:"name"`
		ContainerPort int    `yaml:"containerPort"`
	} `yaml:"ports"`
	SecurityContext struct {
		Privileged               *bool `yaml:"privileged"`
		AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
		Capabilities             struct {
			Drop []string `yaml:"drop"`
			Add  []string `yaml:"add"`
		} `yaml:"capabilities"`
	} `yaml:"securityContext"`
	StartupProbe   *probe `yaml:"startupProbe"`
	LivenessProbe  *probe `yaml:"livenessProbe"`
	ReadinessProbe *probe `yaml:"readinessProbe"`
	VolumeMounts   []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
		SubPath   string `yaml:"subPath"`
	} `yaml:"volumeMounts"`
}

type envVar struct {
	Name      string `yaml:"name"`
	Value     string `yaml:"value"`
	ValueFrom *struct {
		FieldRef *struct {
			FieldPath string `yaml:"fieldPath"`
		} `yaml:"fieldRef"`
	} `yaml:"valueFrom"`
}

// node is what the downward API gives a pod on one node.
type node struct{ hostIP string }

// nodeEnv is c's environment on n, as the kubelet makes it: the downward
// API's fields, and $(VAR) replaced by the value of a variable defined
// before it. Any other valueFrom fails t (the test knows no other).
func nodeEnv(t *testing.T, c container, n node) map[string]string {
	t.Helper()
	env := map[string]string{}
	ref := regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)
	for _, e := range c.Env {
		switch {
		case e.ValueFrom == nil:
			env[e.Name] = ref.ReplaceAllStringFunc(e.Value, func(m string) string {
				if v, ok := env[m[2:len(m)-1]]; ok {
					return v
				}
				return m // the kubelet leaves an unknown reference as is
			})
		case e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "status.hostIP":
			env[e.Name] = n.hostIP
		default:
			t.Fatalf("env %s: a valueFrom this test cannot render", e.Name)
		}
	}
	return env
}

// parseOn loads the ConfigMap's config as `authbgpd check` does, in c's
// environment on n.
func parseOn(t *testing.T, c container, n node, file, toml string) (*config.Config, error) {
	t.Helper()
	for k, v := range nodeEnv(t, c, n) {
		t.Setenv(k, v)
	}
	return config.Parse(file, []byte(toml))
}

type probe struct {
	HTTPGet *struct {
		Path string `yaml:"path"`
		Port any    `yaml:"port"` // a number or a port name
		Host string `yaml:"host"`
	} `yaml:"httpGet"`
	// Kubernetes' defaults when absent: 10, 1, 3.
	PeriodSeconds    int `yaml:"periodSeconds"`
	TimeoutSeconds   int `yaml:"timeoutSeconds"`
	FailureThreshold int `yaml:"failureThreshold"`
}

func (p *probe) timings() (period, timeout time.Duration, failures int) {
	period, timeout, failures = 10*time.Second, time.Second, 3
	if p.PeriodSeconds > 0 {
		period = time.Duration(p.PeriodSeconds) * time.Second
	}
	if p.TimeoutSeconds > 0 {
		timeout = time.Duration(p.TimeoutSeconds) * time.Second
	}
	if p.FailureThreshold > 0 {
		failures = p.FailureThreshold
	}
	return period, timeout, failures
}

func readObjects(t *testing.T) map[string]object {
	t.Helper()
	data, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	objs := map[string]object{}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var o object
		err := dec.Decode(&o)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", manifest, err)
		}
		if _, dup := objs[o.Kind]; dup {
			t.Fatalf("%s: two %s objects", manifest, o.Kind)
		}
		objs[o.Kind] = o
	}
	for _, k := range []string{"ConfigMap", "Secret", "DaemonSet"} {
		if _, ok := objs[k]; !ok {
			t.Fatalf("%s has no %s", manifest, k)
		}
	}
	return objs
}

// image is what the Dockerfile and scripts/images.sh say of the image.
type image struct {
	tag        string
	uid, gid   int64
	user       string
	caps       []string // as Kubernetes names them: NET_RAW, ...
	secretsDir string
	exposed    []int
}

func readImage(t *testing.T) image {
	t.Helper()
	df, err := os.ReadFile(dockerfile)
	if err != nil {
		t.Fatal(err)
	}
	sh, err := os.ReadFile(imagesSh)
	if err != nil {
		t.Fatal(err)
	}
	must := func(re, text, what string) []string {
		m := regexp.MustCompile(re).FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("cannot find %s (%s)", what, re)
		}
		return m
	}
	var im image
	im.tag = must(`(?m)^tag=\$\{1:-([^}]+)\}`, string(sh), "the image tag in scripts/images.sh")[1]
	im.uid, _ = strconv.ParseInt(must(`useradd [^\n]*--uid (\d+)`, string(df), "the user's uid")[1], 10, 64)
	im.gid, _ = strconv.ParseInt(must(`groupadd [^\n]*--gid (\d+)`, string(df), "the group's gid")[1], 10, 64)
	im.user = must(`(?m)^USER (\S+)`, string(df), "USER")[1]
	ua := strings.Fields(strings.TrimSuffix(strings.TrimSpace(must(`(?m)useradd [^\n]*$`, string(df), "useradd")[0]), "\\"))
	if u := ua[len(ua)-1]; u != im.user {
		t.Fatalf("Dockerfile: USER %s, but useradd makes %s", im.user, u)
	}
	for _, c := range strings.Split(must(`setcap (\S+)=p`, string(df), "the binary's file capabilities")[1], ",") {
		im.caps = append(im.caps, strings.ToUpper(strings.TrimPrefix(c, "cap_")))
	}
	im.secretsDir = must(`mkdir -p (/\S+)`, string(df), "the secrets directory")[1]
	for _, p := range strings.Fields(must(`(?m)^EXPOSE (.+)$`, string(df), "EXPOSE")[1]) {
		n, _ := strconv.Atoi(p)
		im.exposed = append(im.exposed, n)
	}
	return im
}

// stub is an httpapi.Source and httpapi.Liveness: healthy and alive
// unless told.
type stub struct{ health, alive error }

func (stub) Status() status.Status { return status.Status{RouterID: "192.0.2.1", ASN: 65001} }
func (s stub) Healthy() error      { return s.health }
func (s stub) Alive() error        { return s.alive }

// The faults the daemon reports: a stalled GoBGP loop (Alive and Healthy,
// as speaker reports it; a restart fixes it) and a kernel whose TCP-MD5
// does not work (Healthy only; a restart does not fix it).
var (
	stalled = stub{
		health: &plugin.LoopStallError{For: 6 * time.Second, LastAnswer: time.Now(), How: "blocked (chan receive) in x"},
		alive:  &plugin.LoopStallError{For: 6 * time.Second, LastAnswer: time.Now(), How: "blocked (chan receive) in x"},
	}
	noMD5 = stub{health: errors.New("tcp-md5: the kernel is in FIPS mode")}
)

func TestManifest(t *testing.T) {
	objs := readObjects(t)
	im := readImage(t)
	pod := objs["DaemonSet"].Spec.Template.Spec
	if len(pod.Containers) != 1 {
		t.Fatalf("DaemonSet: %d containers, want 1", len(pod.Containers))
	}
	c := pod.Containers[0]

	t.Run("image", func(t *testing.T) {
		if c.Image != im.tag {
			t.Errorf("image %q, want %q (what make image tags)", c.Image, im.tag)
		}
	})

	t.Run("user", func(t *testing.T) {
		sc := pod.SecurityContext
		if sc.RunAsUser == nil || *sc.RunAsUser != im.uid || sc.RunAsGroup == nil || *sc.RunAsGroup != im.gid {
			t.Errorf("runAsUser/runAsGroup %v/%v, want the image's %s: %d/%d", deref(sc.RunAsUser), deref(sc.RunAsGroup), im.user, im.uid, im.gid)
		}
		if sc.FSGroup == nil || *sc.FSGroup != im.gid {
			t.Errorf("fsGroup %v, want %d: the Secret's files must be readable by the image's group", deref(sc.FSGroup), im.gid)
		}
		if sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
			t.Error("runAsNonRoot is not true")
		}
	})

	t.Run("capabilities", func(t *testing.T) {
		s := c.SecurityContext
		if !slices.Equal(s.Capabilities.Drop, []string{"ALL"}) {
			t.Errorf("capabilities.drop %q, want [ALL]", s.Capabilities.Drop)
		}
		add := slices.Sorted(slices.Values(s.Capabilities.Add))
		want := slices.Sorted(slices.Values(im.caps))
		if !slices.Equal(add, want) {
			t.Errorf("capabilities.add %q, want the binary's file capabilities %q", add, want)
		}
		if s.AllowPrivilegeEscalation != nil && !*s.AllowPrivilegeEscalation {
			t.Error("allowPrivilegeEscalation: false sets no_new_privs: the kernel then ignores the binary's file capabilities")
		}
		if s.Privileged != nil && *s.Privileged {
			t.Error("privileged: the capabilities are enough")
		}
	})

	// The config the ConfigMap carries, where the mounts put it.
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		if m.SubPath != "" {
			t.Errorf("volume %s mounted with subPath: the kubelet never updates such a mount, so [config] watch would see nothing", m.Name)
		}
		mounts[m.Name] = m.MountPath
	}
	var cmName, secretName, cmMount, secretMount string
	for _, v := range pod.Volumes {
		switch {
		case v.ConfigMap != nil:
			cmName, cmMount = v.ConfigMap.Name, mounts[v.Name]
		case v.Secret != nil:
			secretName, secretMount = v.Secret.SecretName, mounts[v.Name]
			// Readable by the image's group (fsGroup), by no one else.
			if v.Secret.DefaultMode == nil || *v.Secret.DefaultMode != 0o440 {
				t.Errorf("secret volume defaultMode %v, want 0440: readable by group %d, by no others", v.Secret.DefaultMode, im.gid)
			}
		}
	}
	if cmName != objs["ConfigMap"].Metadata.Name || secretName != objs["Secret"].Metadata.Name || cmMount == "" || secretMount == "" {
		t.Fatalf("volumes: ConfigMap %q at %q, Secret %q at %q; want the manifest's %q and %q, mounted",
			cmName, cmMount, secretName, secretMount, objs["ConfigMap"].Metadata.Name, objs["Secret"].Metadata.Name)
	}
	t.Run("secret-mount", func(t *testing.T) {
		if secretMount != im.secretsDir {
			t.Errorf("the Secret is mounted at %s, want the image's secrets directory %s", secretMount, im.secretsDir)
		}
	})
	confFile := ""
	for i, a := range c.Args {
		if a == "-f" && i+1 < len(c.Args) {
			confFile = c.Args[i+1]
		}
	}
	name, ok := strings.CutPrefix(confFile, cmMount+"/")
	toml, has := objs["ConfigMap"].Data[name]
	if !ok || !has {
		t.Fatalf("args %q: -f %q is not a file of the ConfigMap mounted at %s (keys %v)", c.Args, confFile, cmMount, keys(objs["ConfigMap"].Data))
	}

	// Lay the volumes out in a directory, as the kubelet does (..data
	// and links included), with the config's absolute paths moved there.
	root := t.TempDir()
	secretDir := filepath.Join(root, filepath.FromSlash(secretMount))
	kubeletVolume(t, secretDir, objs["Secret"].StringData)
	confDir := filepath.Join(root, filepath.FromSlash(cmMount))
	kubeletVolume(t, confDir, objs["ConfigMap"].Data)
	moved := strings.ReplaceAll(toml, `"`+secretMount+"/", `"`+secretDir+"/")
	node1, node2 := node{hostIP: "192.0.2.11"}, node{hostIP: "192.0.2.12"}
	cfg, err := parseOn(t, c, node1, filepath.Join(confDir, name), moved)
	if err != nil {
		t.Fatalf("the ConfigMap's %s does not load with the Secret's files mounted:\n%v", name, err)
	}
	// One ConfigMap for every node: two nodes differ in router ID and in
	// the prefix they announce.
	t.Run("per-node", func(t *testing.T) {
		cfg2, err := parseOn(t, c, node2, filepath.Join(confDir, name), moved)
		if err != nil {
			t.Fatalf("on a second node: %v", err)
		}
		for i, cf := range []*config.Config{cfg, cfg2} {
			n := []node{node1, node2}[i]
			if cf.Global.RouterID.String() != n.hostIP {
				t.Errorf("node %s: router ID %s (from %q), want the node's address", n.hostIP, cf.Global.RouterID, cf.Global.RouterIDFrom)
			}
			if len(cf.Networks) == 0 || cf.Networks[0].PrefixEnv == "" {
				t.Fatalf("node %s: no network's prefix comes from the environment: %+v", n.hostIP, cf.Networks)
			}
		}
		if cfg.Global.RouterID == cfg2.Global.RouterID || cfg.Networks[0].Prefix == cfg2.Networks[0].Prefix {
			t.Errorf("two nodes share router ID %s / %s or prefix %s / %s", cfg.Global.RouterID, cfg2.Global.RouterID, cfg.Networks[0].Prefix, cfg2.Networks[0].Prefix)
		}
		if p := cfg2.Networks[0].Prefix; p.String() != node2.hostIP+"/32" {
			t.Errorf("node %s announces %s, want its address as a /32", node2.hostIP, p)
		}
	})
	t.Run("config", func(t *testing.T) {
		if !cfg.Config.Watch {
			t.Error("[config] watch is off: a new Secret version would not be followed")
		}
		files := cfg.Files()[1:] // the secret files, after the config itself
		if len(files) == 0 {
			t.Fatal("the config names no *-file secret")
		}
		for _, f := range files {
			rel, err := filepath.Rel(secretDir, f)
			if err != nil || strings.HasPrefix(rel, "..") {
				t.Errorf("secret file %s is not in the Secret's mount %s", f, secretMount)
				continue
			}
			if _, ok := objs["Secret"].StringData[rel]; !ok {
				t.Errorf("secret file %s: the Secret has no key %q", f, rel)
			}
		}
	})

	// code is what GET path on the daemon's HTTP API answers for src.
	code := func(src stub, path string) int {
		rec := httptest.NewRecorder()
		httpapi.New(cfg.API.HTTP, src, nil, nil).Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec.Code
	}
	t.Run("probes", func(t *testing.T) {
		host, port, err := net.SplitHostPort(cfg.API.HTTP)
		if err != nil {
			t.Fatalf("[api] http %q: %v", cfg.API.HTTP, err)
		}
		if ip := net.ParseIP(host); ip == nil || !ip.IsUnspecified() {
			t.Errorf("[api] http %q: the kubelet probes the pod's address, so it must listen on 0.0.0.0", cfg.API.HTTP)
		}
		apiPort, _ := strconv.Atoi(port)
		if !slices.Contains(im.exposed, apiPort) {
			t.Errorf("[api] http port %d is not one the image exposes (%v)", apiPort, im.exposed)
		}
		for what, p := range map[string]*probe{"startupProbe": c.StartupProbe, "livenessProbe": c.LivenessProbe, "readinessProbe": c.ReadinessProbe} {
			if p == nil || p.HTTPGet == nil {
				t.Errorf("%s: no httpGet probe", what)
				continue
			}
			got := 0
			switch v := p.HTTPGet.Port.(type) {
			case int:
				got = v
			case string:
				for _, cp := range c.Ports {
					if cp.Name == v {
						got = cp.ContainerPort
					}
				}
			}
			if got != apiPort {
				t.Errorf("%s: port %v (%d), want [api] http's %d", what, p.HTTPGet.Port, got, apiPort)
			}
			if got := code(stub{}, p.HTTPGet.Path); got != http.StatusOK {
				t.Errorf("%s: GET %s on the daemon's HTTP API: %d, want 200", what, p.HTTPGet.Path, got)
			}
		}
	})

	// A stalled GoBGP loop fails the liveness probe (a restart fixes it);
	// a kernel without TCP-MD5 fails readiness only: a liveness probe
	// failing for it would restart the router in a loop, dropping the
	// sessions of unkeyed peers and hiding /status each time.
	t.Run("liveness", func(t *testing.T) {
		live, ready, start := c.LivenessProbe, c.ReadinessProbe, c.StartupProbe
		if live == nil || live.HTTPGet == nil || ready == nil || ready.HTTPGet == nil {
			t.Fatal("no liveness or readiness httpGet probe")
		}
		for _, want := range []struct {
			what  string
			path  string
			src   stub
			fault string
			code  int
		}{
			{"livenessProbe", live.HTTPGet.Path, stalled, "GoBGP's loop stalled", http.StatusServiceUnavailable},
			{"livenessProbe", live.HTTPGet.Path, noMD5, "TCP-MD5 unusable", http.StatusOK},
			{"readinessProbe", ready.HTTPGet.Path, stalled, "GoBGP's loop stalled", http.StatusServiceUnavailable},
			{"readinessProbe", ready.HTTPGet.Path, noMD5, "TCP-MD5 unusable", http.StatusServiceUnavailable},
		} {
			if got := code(want.src, want.path); got != want.code {
				t.Errorf("%s GET %s with %s: %d, want %d", want.what, want.path, want.fault, got, want.code)
			}
		}
		if start == nil || start.HTTPGet == nil || start.HTTPGet.Path != live.HTTPGet.Path {
			t.Error("no startupProbe on the liveness path: a daemon configuring many peers before it serves HTTP would be killed by liveness")
		} else if sp, _, sf := start.timings(); time.Duration(sf)*sp < 2*time.Minute {
			t.Errorf("startupProbe allows %v to start, want at least 2m", time.Duration(sf)*sp)
		}

		// A stall: the liveness path fails within threshold + period; the kubelet
		// then needs failures consecutive probes, at most one period
		// apart each; then the stop.
		period, timeout, failures := live.timings()
		detect := plugin.LoopWatchThreshold + plugin.LoopWatchPeriod
		restart := detect + time.Duration(failures)*period
		grace := 30 * time.Second
		if g := pod.TerminationGracePeriodSeconds; g != nil {
			grace = time.Duration(*g) * time.Second
		}
		t.Logf("a stall: %s fails within %v, the kubelet restarts within %v, stopped within %v", live.HTTPGet.Path, detect, restart, restart+grace)
		if restart > 30*time.Second || restart+grace > time.Minute {
			t.Errorf("a stalled router is restarted %v after the stall (%v with the stop): want well under a minute", restart, restart+grace)
		}
		// A slow answer: the probe must fail failures times in a row, i.e.
		// for (failures-1) periods; a question that waits up to twice the
		// threshold (10 s more than a stall needs) restarts nothing.
		if failures < 2 || time.Duration(failures-1)*period < 2*plugin.LoopWatchThreshold {
			t.Errorf("livenessProbe: %d failures %v apart restart the router after /livez failed for %v: a one-off slow answer must not (want at least %v)",
				failures, period, time.Duration(failures-1)*period, 2*plugin.LoopWatchThreshold)
		}
		if timeout < 2*time.Second {
			t.Errorf("livenessProbe timeoutSeconds %v: a busy node answers later than 1 s", timeout)
		}
	})

	t.Run("dockerfile-healthcheck", func(t *testing.T) { dockerHealthcheck(t) })
}

// dockerHealthcheck checks the image's HEALTHCHECK: `authbgpd status
// --health` (GET /healthz within 2 s: cmd/authbgpd's healthTimeout), a
// timeout above that, and a stall marked unhealthy well within a minute.
// Docker itself restarts nothing on unhealthy (docs/OPERATIONS.md).
func dockerHealthcheck(t *testing.T) {
	df, err := os.ReadFile(dockerfile)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^HEALTHCHECK((?: --[a-z-]+=\S+)*) CMD (\[.*\])$`).FindStringSubmatch(string(df))
	if m == nil {
		t.Fatal("Dockerfile: no HEALTHCHECK ... CMD [...] line")
	}
	opts := map[string]time.Duration{"interval": 30 * time.Second, "timeout": 30 * time.Second}
	retries := 3
	for _, f := range strings.Fields(m[1]) {
		k, v, _ := strings.Cut(strings.TrimPrefix(f, "--"), "=")
		if k == "retries" {
			retries, _ = strconv.Atoi(v)
			continue
		}
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("HEALTHCHECK --%s=%s: %v", k, v, err)
		}
		opts[k] = d
	}
	if !strings.Contains(m[2], `"status", "--health"`) {
		t.Errorf("HEALTHCHECK CMD %s: want authbgpd status --health", m[2])
	}
	if opts["timeout"] <= 2*time.Second {
		t.Errorf("HEALTHCHECK --timeout=%v: status --health may take 2 s", opts["timeout"])
	}
	unhealthy := plugin.LoopWatchThreshold + plugin.LoopWatchPeriod + time.Duration(retries)*opts["interval"]
	t.Logf("a stall: unhealthy within %v", unhealthy)
	if unhealthy > 45*time.Second || retries < 2 {
		t.Errorf("HEALTHCHECK marks a stall unhealthy after %v (%d retries): want well under a minute, and more than one failure", unhealthy, retries)
	}
}

// kubeletVolume writes files into dir as the kubelet lays out a Secret or
// ConfigMap volume: dir/..TIMESTAMP/KEY, dir/..data -> ..TIMESTAMP,
// dir/KEY -> ..data/KEY.
func kubeletVolume(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	stamp := "..2026_12_02_12_00_00.000000001"
	if err := os.MkdirAll(filepath.Join(dir, stamp), 0o755); err != nil {
		t.Fatal(err)
	}
	for k, v := range files {
		if err := os.WriteFile(filepath.Join(dir, stamp, k), []byte(v), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join("..data", k), filepath.Join(dir, k)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(stamp, filepath.Join(dir, "..data")); err != nil {
		t.Fatal(err)
	}
}

func keys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}
