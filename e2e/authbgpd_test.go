package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/status"
)

// AuthbgpdHTTP is where the test routers serve /status and /metrics (inside
// their own namespace). Their gRPC API is GoBGPAPI, so the GoBGP helpers
// (State, Accepted, CLI) work on them unchanged.
const AuthbgpdHTTP = "127.0.0.1:9179"

var (
	binMu    sync.Mutex
	binPaths = map[string]string{}
	binDir   string
)

// authbgpdBinary builds cmd/authbgpd once per test binary, statically
// (CGO_ENABLED=0) exactly as the Dockerfile does, optionally with build
// tags (e.g. "authbgpd_testhooks").
func authbgpdBinary(t testing.TB, tags string) string {
	t.Helper()
	binMu.Lock()
	defer binMu.Unlock()
	if p, ok := binPaths[tags]; ok {
		return p
	}
	if binDir == "" {
		d, err := os.MkdirTemp("", "authbgpd-e2e-bin-")
		if err != nil {
			t.Fatal(err)
		}
		binDir = d
	}
	out := filepath.Join(binDir, "authbgpd"+strings.ReplaceAll(tags, ",", "-"))
	args := []string{"build", "-trimpath", "-o", out}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	args = append(args, "github.com/authbgp/authbgpd/cmd/authbgpd")
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build authbgpd: %v\n%s", err, b)
	}
	binPaths[tags] = out
	return out
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// Authbgpd is an authbgpd router running in a namespace.
type Authbgpd struct {
	*GoBGP
	Config string // path of its config file
	t      testing.TB
}

// AuthbgpdOptions tune StartAuthbgpd.
type AuthbgpdOptions struct {
	Tags     string   // build tags of the binary ("authbgpd_testhooks")
	Env      []string // extra environment
	LogLevel string   // default "debug" (the no-leak tests read everything); "config": no --log-level, [log] rules
	Files    map[string]string
}

// StartAuthbgpd writes config (TOML) and files (name → content, mode 0600,
// e.g. secrets) into a fresh directory and runs authbgpd -f there in ns,
// waiting until /healthz answers. config should set [api] grpc = GoBGPAPI
// and http = AuthbgpdHTTP (the defaults).
func StartAuthbgpd(t testing.TB, tp *netns.Topology, ns, config string, o AuthbgpdOptions) *Authbgpd {
	t.Helper()
	bin := authbgpdBinary(t, o.Tags)
	dir := t.TempDir()
	for name, content := range o.Files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	conf := filepath.Join(dir, "authbgpd.toml")
	if err := os.WriteFile(conf, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	if o.LogLevel == "" {
		o.LogLevel = "debug"
	}
	args := []string{bin, "-f", conf}
	if o.LogLevel != "config" {
		args = append(args, "--log-level", o.LogLevel)
	}
	d := startDaemon(t, tp, ns, "authbgpd", dir, o.Env, args...)
	a := &Authbgpd{GoBGP: &GoBGP{daemon: d}, Config: conf, t: t}
	a.waitHealthy(t)
	return a
}

// waitHealthy waits until /healthz answers, failing t (with the log) if
// authbgpd exits first or never answers.
func (a *Authbgpd) waitHealthy(t testing.TB) {
	t.Helper()
	a.waitReady(t, "/healthz on "+AuthbgpdHTTP, func() error {
		if a.cmd.ProcessState != nil {
			return fmt.Errorf("exited: %s", tail(a.Log(), 2000))
		}
		_, err := a.HTTPGet("/healthz")
		return err
	})
}

// Name implements Peer.
func (a *Authbgpd) Name() string { return "authbgpd" }

// httpClient returns a client whose connections are made inside ns.
func httpClient(ns string) *http.Client {
	return &http.Client{
		Timeout: 5 * time.Second,
		Transport: &http.Transport{
			DisableKeepAlives: true,
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				var c net.Conn
				err := netns.Do(ns, func() error {
					var err error
					c, err = (&net.Dialer{Timeout: 3 * time.Second}).DialContext(ctx, network, addr)
					return err
				})
				return c, err
			},
		},
	}
}

// HTTPGet fetches path from the router's HTTP API; non-200 is an error.
func (a *Authbgpd) HTTPGet(path string) (string, error) { return a.HTTPGetTimeout(path, 0) }

// HTTPGetTimeout is HTTPGet with the client's timeout d (0: 5 s).
func (a *Authbgpd) HTTPGetTimeout(path string, d time.Duration) (string, error) {
	c := httpClient(a.ns)
	if d > 0 {
		c.Timeout = d
	}
	resp, err := c.Get("http://" + AuthbgpdHTTP + path)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return string(b), fmt.Errorf("GET %s: %s: %s", path, resp.Status, b)
	}
	return string(b), nil
}

// Status returns the router's /status document.
func (a *Authbgpd) Status() status.Status {
	a.t.Helper()
	s, err := a.TryStatus()
	if err != nil {
		a.t.Fatalf("authbgpd %v", err)
	}
	return *s
}

// TryStatus returns the router's /status document without failing the
// test (for polling, and goroutines other than the test's).
func (a *Authbgpd) TryStatus() (*status.Status, error) {
	body, err := a.HTTPGet("/status")
	if err != nil {
		return nil, fmt.Errorf("/status: %w", err)
	}
	var s status.Status
	if err := json.Unmarshal([]byte(body), &s); err != nil {
		return nil, fmt.Errorf("/status: %w: %s", err, body)
	}
	return &s, nil
}

// Peer returns the /status entry of address (nil when absent).
func (a *Authbgpd) Peer(address string) *status.Peer {
	s := a.Status()
	for i := range s.Peers {
		if s.Peers[i].Address == address {
			return &s.Peers[i]
		}
	}
	return nil
}

// Reload replaces the config file and sends SIGHUP.
func (a *Authbgpd) Reload(config string) {
	a.t.Helper()
	if err := os.WriteFile(a.Config, []byte(config), 0o600); err != nil {
		a.t.Fatal(err)
	}
	if err := a.cmd.Process.Signal(unix.SIGHUP); err != nil {
		a.t.Fatalf("SIGHUP authbgpd: %v", err)
	}
}

// StopClean sends SIGTERM and requires a clean exit (status 0) in time.
func (a *Authbgpd) StopClean() {
	a.t.Helper()
	if err := a.cmd.Process.Signal(unix.SIGTERM); err != nil {
		a.t.Fatalf("SIGTERM authbgpd: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- a.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			a.t.Fatalf("authbgpd exited uncleanly after SIGTERM: %v\n%s", err, tail(a.Log(), 4000))
		}
	case <-time.After(15 * time.Second):
		a.t.Fatalf("authbgpd did not exit within 15 s of SIGTERM")
	}
}
