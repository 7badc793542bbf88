package peers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/internal/testlog"
	"github.com/authbgp/authbgpd/status"
	"github.com/authbgp/authbgpd/tcpao"
	"github.com/authbgp/authbgpd/tcpsock"
)

// probingAO is fakeAO with a kernel that answers the TCP-AO algorithm
// probe as the test says (Sockets.AOAlgorithms).
type probingAO struct {
	*fakeAO
	pmu    sync.Mutex
	algs   tcpsock.AOAlgorithms
	probes int
}

func (p *probingAO) AOAlgorithms() tcpsock.AOAlgorithms {
	p.pmu.Lock()
	defer p.pmu.Unlock()
	p.probes++
	return p.algs
}

func (p *probingAO) setKernel(a tcpsock.AOAlgorithms) {
	p.pmu.Lock()
	defer p.pmu.Unlock()
	p.algs = a
}

// kernelOffering is a probe of Linux release rel that took algs and
// refused the rest with ENOENT.
func kernelOffering(rel string, algs ...tcpao.Algorithm) tcpsock.AOAlgorithms {
	a := tcpsock.AOAlgorithms{Kernel: rel, Refused: map[tcpao.Algorithm]error{}}
	for _, x := range tcpao.Algorithms {
		if slices.Contains(algs, x) {
			a.Accepted = append(a.Accepted, x)
		} else {
			a.Refused[x] = errors.New("ENOENT (no such file or directory)")
		}
	}
	return a
}

// linux72 is Linux 7.2: HMAC-SHA-1, AES-128-CMAC and HMAC-SHA-256 only.
var linux72 = kernelOffering("7.2.0", tcpao.HMACSHA1, tcpao.AESCMAC, tcpao.HMACSHA256)

// algsConfig: peer 192.0.2.2 on a chain of algorithms Linux 7.2 keeps,
// 192.0.2.4 on one with a future HMAC-SHA-512 key, 192.0.2.3 on TCP-MD5.
const algsConfig = `
[[keychains]]
name = "core"
type = "tcp-ao"
  [[keychains.keys]]
  id = 1
  secret = "Algs-Core-One"
  [[keychains.keys]]
  id = 2
  algorithm = "hmac-sha-256"
  secret = "Algs-Core-Two"
  send-from = 2030-01-01T00:00:00Z
[[keychains]]
name = "legacy"
type = "tcp-ao"
  [[keychains.keys]]
  id = 1
  algorithm = "hmac-sha-256"
  secret = "Algs-Legacy-One"
  [[keychains.keys]]
  id = 2
  algorithm = "hmac-sha-512"
  secret = "Algs-Legacy-Two"
  send-from = 2030-01-01T00:00:00Z
[[peers]]
address = "192.0.2.2"
asn = 65002
keychain = "core"
[[peers]]
address = "192.0.2.4"
asn = 65004
keychain = "legacy"
[[peers]]
address = "192.0.2.3"
asn = 65003
password = "Algs-Md5-Beside"
`

var algsSecrets = []string{"Algs-Core-One", "Algs-Core-Two", "Algs-Legacy-One", "Algs-Legacy-Two", "Algs-Md5-Beside"}

// lineIn is the line of r1.toml (cfg's document: three lines of [global],
// then body) that holds s.
func lineIn(t *testing.T, body, s string) int {
	t.Helper()
	doc := "[global]\nasn = 65001\nrouter-id = \"192.0.2.1\"\n" + body
	i := strings.Index(doc, s)
	if i < 0 {
		t.Fatalf("%q not in the config", s)
	}
	return strings.Count(doc[:i], "\n") + 1
}

func noSecret(t *testing.T, what, s string) {
	t.Helper()
	for _, sec := range algsSecrets {
		if strings.Contains(s, sec) {
			t.Fatalf("secret %q in %s: %s", sec, what, s)
		}
	}
}

// TestComputeDesiredMissingAlgorithm: a TCP-AO peer whose keychain has a
// key of an algorithm the kernel refused is held down, with an error that
// names the peer, the key at its FILE:LINE, the algorithm and the kernel;
// a peer on algorithms the kernel has and a TCP-MD5 peer are not. A probe
// that learnt nothing (no TCP-AO, no prober) holds nothing down by itself.
func TestComputeDesiredMissingAlgorithm(t *testing.T) {
	c := cfg(t, algsConfig)
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	d := ComputeDesired(Inputs{Config: c, Now: now, AOAlgorithms: linux72})
	w := d.Peers["192.0.2.4"]
	if !w.HeldDown || !errors.Is(w.Err, tcpsock.ErrAOAlgorithm) {
		t.Fatalf("192.0.2.4: held %v, %v", w.HeldDown, w.Err)
	}
	line := lineIn(t, algsConfig, `algorithm = "hmac-sha-512"`)
	msg := w.Err.Error()
	for _, want := range []string{"peer 192.0.2.4", fmt.Sprintf(`keychain "legacy" key 2 (r1.toml:%d)`, line),
		"tcp-ao algorithm hmac-sha-512 is not offered by this kernel (Linux 7.2.0)", `"hmac(sha512)"`, "ENOENT"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	noSecret(t, "the error", msg)
	var ae *tcpsock.AOAlgorithmError
	if !errors.As(w.Err, &ae) || ae.Alg != tcpao.HMACSHA512 {
		t.Errorf("errors.As: %v", ae)
	}
	for _, id := range []string{"192.0.2.2", "192.0.2.3"} {
		if w := d.Peers[id]; w.HeldDown || w.Err != nil {
			t.Errorf("%s held down: %v", id, w.Err)
		}
	}
	// The key itself is still wanted: every MKT of the chain (nothing is
	// dropped to make the set fit the kernel).
	if len(w.Key.AO.Keys) != 2 {
		t.Errorf("192.0.2.4's wanted MKTs: %v", w.Key.AO.Keys)
	}

	all := kernelOffering("6.12.48", tcpao.Algorithms...)
	for name, a := range map[string]tcpsock.AOAlgorithms{"6.12": all, "no TCP-AO": {Err: tcpsock.ErrNoTCPAO}, "no prober": {Err: errNoAOProbe}} {
		d := ComputeDesired(Inputs{Config: c, Now: now, AOAlgorithms: a})
		for id, w := range d.Peers {
			if w.HeldDown {
				t.Errorf("%s: %s held down: %v", name, id, w.Err)
			}
		}
	}

	// Two keys the kernel lacks: the first is named, the count of the rest.
	two := strings.Replace(algsConfig, `algorithm = "hmac-sha-256"
  secret = "Algs-Legacy-One"`, `algorithm = "hmac-sha-384"
  secret = "Algs-Legacy-One"`, 1)
	w = ComputeDesired(Inputs{Config: cfg(t, two), Now: now, AOAlgorithms: linux72}).Peers["192.0.2.4"]
	if !w.HeldDown || !strings.Contains(w.Err.Error(), "hmac-sha-384") || !strings.Contains(w.Err.Error(), "and 1 more of its keys") {
		t.Errorf("two missing: %v", w.Err)
	}
}

// TestMissingAlgorithmHoldsItsPeerDown: through the one writer, the peer
// whose keychain has a key the kernel refused is held down in GoBGP, its
// MKTs are not installed and its dials are refused (no unsigned fallback);
// /status says why (the algorithm, the kernel) and lists what the kernel
// offers; the other TCP-AO peer and the TCP-MD5 peer run with their keys;
// no secret reaches the logs or /status.
func TestMissingAlgorithmHoldsItsPeerDown(t *testing.T) {
	s := &probingAO{fakeAO: newFakeAO(), algs: linux72}
	s.observe = true
	var logs testlog.Buffer
	m, b := startWith(t, cfg(t, algsConfig), s, &logs)

	if p := b.peer("192.0.2.4"); p == nil || !p.Conf.AdminDown {
		t.Fatalf("192.0.2.4 not held down in GoBGP: %+v", p.GetConf())
	}
	if set := s.listener("192.0.2.4/32"); len(set.Keys) != 0 {
		t.Errorf("MKTs of a held-down peer installed: %v", set.Keys)
	}
	if err := dial(t, m, "192.0.2.4"); !errors.Is(err, ErrDialRefused) {
		t.Errorf("a dial to the held-down peer: %v", err)
	}
	if p := b.peer("192.0.2.2"); p == nil || p.Conf.AdminDown {
		t.Fatalf("192.0.2.2 (hmac-sha-1, hmac-sha-256) held down: %+v", p.GetConf())
	}
	if set := s.listener("192.0.2.2/32"); len(set.Keys) != 2 || set.Keys[1].Alg != tcpsock.AOAlgHMACSHA256 {
		t.Errorf("192.0.2.2's MKTs: %v", set.Keys)
	}
	if v, _ := s.key("192.0.2.3"); v != "Algs-Md5-Beside" {
		t.Error("the TCP-MD5 peer lost its key")
	}

	st := map[string]status.Peer{}
	for _, p := range m.Status() {
		st[p.Address] = p
	}
	held := st["192.0.2.4"]
	if held.State != "admin-down" || held.Auth.Installed || !strings.Contains(held.Auth.Error, "tcp-ao algorithm hmac-sha-512 is not offered by this kernel (Linux 7.2.0)") {
		t.Errorf("/status of the held-down peer: %s", peerJSON(held))
	}
	if p := st["192.0.2.2"]; p.State == "admin-down" || !p.Auth.Installed || p.Auth.Error != "" {
		t.Errorf("/status of 192.0.2.2: %s", peerJSON(p))
	}
	k := m.KernelStatus(&status.Kernel{})
	if k.Release != "7.2.0" || !slices.Equal(k.TCPAOAlgorithms, []string{"hmac-sha-1-96", "aes-128-cmac-96", "hmac-sha-1", "aes-128-cmac", "hmac-sha-256"}) ||
		!slices.Equal(k.TCPAOAlgorithmsMissing, []string{"hmac-sha-224", "hmac-sha-384", "hmac-sha-512"}) || k.TCPAOAlgorithmsError != "" {
		t.Errorf("/status kernel: %+v", k)
	}
	if m.KernelStatus(nil) != nil {
		t.Error("an absent kernel section appeared")
	}
	doc, _ := json.Marshal(m.Status())
	noSecret(t, "/status", string(doc))
	noSecret(t, "the logs", logs.String())
	if n := strings.Count(logs.String(), "the kernel does not offer an algorithm of the keychain: peer held down (fail closed)"); n != 1 ||
		!strings.Contains(logs.String(), "tcp-ao algorithm hmac-sha-512 is not offered by this kernel (Linux 7.2.0)") {
		t.Errorf("the logs say %d times that the peer is held down, and why:\n%s", n, logs.String())
	}
	m.Reconcile(context.Background())
	if n := strings.Count(logs.String(), "peer held down (fail closed)"); n != 1 {
		t.Errorf("a pass that changed nothing logged the hold-down again (%d times)", n)
	}
}

func peerJSON(p status.Peer) string {
	b, _ := json.Marshal(p)
	return string(b)
}

// TestReloadRefusesMissingAlgorithm: a reload to a config with a key of an
// algorithm the kernel refused is refused whole, by its plan's preview
// (check --diff: FILE:LINE of the key's algorithm, the algorithm, the
// kernel) and by the reload itself, also of a plan made without the
// manager; the running config and keys stay. Each reload probes the kernel
// again: once it offers the algorithm, the reload is accepted and a peer
// held down for it runs.
func TestReloadRefusesMissingAlgorithm(t *testing.T) {
	good := strings.Replace(algsConfig, `algorithm = "hmac-sha-512"`, `algorithm = "hmac-sha-256"`, 1)
	s := &probingAO{fakeAO: newFakeAO(), algs: linux72}
	m, b := startWith(t, cfg(t, good), s, io.Discard)
	if p := b.peer("192.0.2.4"); p == nil || p.Conf.AdminDown {
		t.Fatal("192.0.2.4 held down on algorithms the kernel has")
	}
	started := m.cfg

	next := cfg(t, algsConfig)
	probes := s.probes
	pl := m.Plan(next)
	if s.probes != probes+1 {
		t.Errorf("Plan probed %d times, want once", s.probes-probes)
	}
	line := lineIn(t, algsConfig, `algorithm = "hmac-sha-512"`)
	if len(pl.Refused) != 1 {
		t.Fatalf("plan refusals: %+v", pl.Refused)
	}
	r := pl.Refused[0]
	if r.File != "r1.toml" || r.Line != line || r.Key != "keychains.keys.algorithm" ||
		!strings.HasPrefix(r.Message, fmt.Sprintf(`r1.toml:%d: keychains "legacy" key 2: algorithm = "hmac-sha-512": tcp-ao algorithm hmac-sha-512 is not offered by this kernel (Linux 7.2.0)`, line)) ||
		!strings.Contains(r.Message, "it offers hmac-sha-1-96, aes-128-cmac-96, hmac-sha-1, aes-128-cmac, hmac-sha-256") {
		t.Errorf("refusal: %+v", r)
	}
	noSecret(t, "the refusal", r.Message)
	p := pl.Preview(started)
	if p.OK() || len(p.Refused) != 1 || p.Refused[0] != r {
		t.Errorf("preview: %+v", p)
	}

	for name, pl := range map[string]config.Plan{"the manager's plan": pl, "a plan made elsewhere": config.PlanReload(started, next)} {
		_, err := m.ReloadPlan(context.Background(), pl)
		if !errors.Is(err, ErrReloadRefused) || errors.Is(err, ErrNeedsRestart) || !strings.Contains(err.Error(), "hmac-sha-512") {
			t.Errorf("%s: reload: %v", name, err)
		}
		if m.cfg != started {
			t.Fatalf("%s: the refused config runs", name)
		}
	}
	if len(s.listener("192.0.2.4/32").Keys) != 2 {
		t.Error("a refused reload changed the keys")
	}
	// A change that needs a restart is refused the same way (the speaker
	// tells refused reloads by ErrReloadRefused), and still says why.
	restart := cfg(t, good)
	restart.Global.ASN = 65099
	if _, err := m.Reload(context.Background(), restart); !errors.Is(err, ErrReloadRefused) || !errors.Is(err, ErrNeedsRestart) {
		t.Errorf("reload to another asn: %v", err)
	}

	// The kernel offers HMAC-SHA-512 now (a module loaded): the next
	// reload's probe says so, and the config is accepted.
	s.setKernel(kernelOffering("7.2.0", tcpao.Algorithms...))
	if _, err := m.Reload(context.Background(), next); err != nil {
		t.Fatalf("reload once the kernel offers the algorithm: %v", err)
	}
	if set := s.listener("192.0.2.4/32"); len(set.Keys) != 2 || set.Keys[1].Alg != tcpsock.AOAlgHMACSHA512 {
		t.Errorf("192.0.2.4's MKTs: %v", set.Keys)
	}
}

// TestReloadProbeReleasesHeldPeer: a daemon that started on a kernel
// lacking an algorithm holds the peer down; a reload (of the same config)
// probes again, and once the kernel offers it the peer runs.
func TestReloadProbeReleasesHeldPeer(t *testing.T) {
	s := &probingAO{fakeAO: newFakeAO(), algs: linux72}
	m, b := startWith(t, cfg(t, algsConfig), s, io.Discard)
	if p := b.peer("192.0.2.4"); p == nil || !p.Conf.AdminDown {
		t.Fatal("not held down")
	}
	// Still missing: the same config is refused again.
	if _, err := m.Reload(context.Background(), cfg(t, algsConfig)); !errors.Is(err, ErrReloadRefused) {
		t.Fatalf("reload: %v", err)
	}
	s.setKernel(kernelOffering("7.2.1", tcpao.Algorithms...))
	if _, err := m.Reload(context.Background(), cfg(t, algsConfig)); err != nil {
		t.Fatal(err)
	}
	if p := b.peer("192.0.2.4"); p == nil || p.Conf.AdminDown || len(s.listener("192.0.2.4/32").Keys) != 2 {
		t.Fatalf("not released: %+v", p.GetConf())
	}
	if k := m.KernelStatus(&status.Kernel{}); k.Release != "7.2.1" || len(k.TCPAOAlgorithms) != 8 || k.TCPAOAlgorithmsMissing != nil {
		t.Errorf("/status kernel after the reload: %+v", k)
	}
}

// TestKernelStatusWithoutTCPAO: a kernel without TCP-AO lists no algorithm
// and says why.
func TestKernelStatusWithoutTCPAO(t *testing.T) {
	s := &probingAO{fakeAO: newFakeAO(), algs: tcpsock.AOAlgorithms{Kernel: "6.18.0", Err: tcpsock.ErrNoTCPAO}}
	m, _ := startWith(t, cfg(t, twoPeers), s, io.Discard)
	k := m.KernelStatus(&status.Kernel{})
	if k.TCPAOAlgorithms != nil || k.TCPAOAlgorithmsMissing != nil || !strings.Contains(k.TCPAOAlgorithmsError, "CONFIG_TCP_AO") || k.Release != "6.18.0" {
		t.Errorf("%+v", k)
	}
}
