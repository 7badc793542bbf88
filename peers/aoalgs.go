package peers

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/status"
	"github.com/authbgp/authbgpd/tcpao"
	"github.com/authbgp/authbgpd/tcpsock"
)

// The TCP-AO algorithms the running kernel offers (Linux 7.2 keeps only
// HMAC-SHA-1, AES-128-CMAC and HMAC-SHA-256 of the six a keychain may
// name). The kernel is asked at start and on every reload (Plan, through
// Sockets.AOAlgorithms), and the answer is an input like the
// preflight verdicts: ComputeDesired holds down a TCP-AO peer whose
// keychain has a key of an algorithm the kernel refused (the key could not
// go on its sockets; no unsigned fallback), and a reload to a config with
// such a key is refused whole, its preview (check --diff) saying so at the
// key's FILE:LINE.

// errNoAOProbe is what is known of the kernel's TCP-AO algorithms before
// the first probe, and the probe of a socket layer that cannot ask. With
// nothing known, a key of an algorithm the kernel lacks fails at its
// install, which holds its peer down with the kernel's words.
var errNoAOProbe = errors.New("the socket layer cannot probe the kernel's TCP-AO algorithms")

// ErrReloadRefused marks a reload rejected whole: the running config
// stays. A change that needs a restart (ErrNeedsRestart) is one; a key of
// a TCP-AO algorithm the kernel does not offer is another.
var ErrReloadRefused = errors.New("reload refused: the running config stays")

// probeAlgorithms asks the kernel which TCP-AO algorithms it accepts (a
// few throwaway sockets; never under m.mu).
func (m *Manager) probeAlgorithms() tcpsock.AOAlgorithms {
	return m.socks.AOAlgorithms()
}

// recordAlgorithms records a probe as the passes' input (m.mu held),
// logging it the first time and when it changed.
func (m *Manager) recordAlgorithms(a tcpsock.AOAlgorithms) {
	had := m.aoAlgs.Load()
	m.aoAlgs.Store(&a)
	accepted, missing := algorithmNames(a)
	f := logrus.Fields{"kernel": a.Kernel, "accepted": strings.Join(accepted, ","), "took": a.Took.String()}
	if len(missing) > 0 {
		f["not_offered"] = strings.Join(missing, ",")
	}
	if a.Err != nil {
		f["error"] = a.Err.Error()
	}
	l := m.log.WithFields(f)
	if had != nil && sameAlgorithms(*had, a) {
		l.Debug("kernel TCP-AO algorithms probed")
		return
	}
	l.Info("kernel TCP-AO algorithms")
}

// algorithms is the last probe (the zero value before the first).
func (m *Manager) algorithms() tcpsock.AOAlgorithms {
	if a := m.aoAlgs.Load(); a != nil {
		return *a
	}
	return tcpsock.AOAlgorithms{Err: errNoAOProbe}
}

// sameAlgorithms compares what two probes learnt (not their cost).
func sameAlgorithms(a, b tcpsock.AOAlgorithms) bool {
	x1, y1 := algorithmNames(a)
	x2, y2 := algorithmNames(b)
	return a.Kernel == b.Kernel && (a.Err == nil) == (b.Err == nil) && slices.Equal(x1, x2) && slices.Equal(y1, y2)
}

// algorithmNames are the config's algorithm names (config.TCPAOAlgorithms)
// the kernel accepted and those it refused, in the config's order.
func algorithmNames(a tcpsock.AOAlgorithms) (accepted, refused []string) {
	for _, name := range config.TCPAOAlgorithms() {
		alg, err := tcpao.ParseAlgorithm(name)
		switch {
		case err != nil:
		case a.Offers(alg):
			accepted = append(accepted, name)
		case a.Refused[alg] != nil:
			refused = append(refused, name)
		}
	}
	return accepted, refused
}

// missingAlgorithm says why a TCP-AO peer's keys cannot go on sockets
// here: a key of its keychain whose algorithm the kernel refused (nil when
// there is none). The error names the peer, the key, the algorithm and the
// kernel, and matches tcpsock.ErrAOAlgorithm.
func missingAlgorithm(cfg *config.Config, p *config.Peer, algs tcpsock.AOAlgorithms) error {
	kc := cfg.Keychain(p.Keychain)
	if !kc.IsTCPAO() {
		return nil
	}
	var bad *config.Key
	var why error
	n := 0
	for i := range kc.Keys {
		k := &kc.Keys[i]
		if err := algs.Check(k.Algorithm); errors.Is(err, tcpsock.ErrAOAlgorithm) {
			if n++; bad == nil {
				bad, why = k, err
			}
		}
	}
	if bad == nil {
		return nil
	}
	more := ""
	if n > 1 {
		more = fmt.Sprintf(" (and %d more of its keys)", n-1)
	}
	return fmt.Errorf("peers: peer %s (%s:%d): keychain %q key %d (%s:%d)%s: %w",
		p.ID(), cfg.File, p.Line, kc.Name, bad.ID, cfg.File, bad.LineOf("algorithm"), more, why)
}

// algorithmRefusals are the refusals of a reload to c: every key of a
// TCP-AO keychain whose algorithm the kernel refused, at the key's
// algorithm line, with what the kernel offers instead.
func algorithmRefusals(c *config.Config, algs tcpsock.AOAlgorithms) []config.Refusal {
	var out []config.Refusal
	offered, _ := algorithmNames(algs)
	for i := range c.Keychains {
		kc := &c.Keychains[i]
		if !kc.IsTCPAO() {
			continue
		}
		for j := range kc.Keys {
			k := &kc.Keys[j]
			err := algs.Check(k.Algorithm)
			if !errors.Is(err, tcpsock.ErrAOAlgorithm) {
				continue
			}
			e := &config.Error{File: c.File, Line: k.LineOf("algorithm"),
				Msg: fmt.Sprintf("keychains %q key %d: algorithm = %q: %v (it offers %s)", kc.Name, k.ID, k.Algorithm, err, strings.Join(offered, ", "))}
			out = append(out, config.NewRefusal(e, "keychains.keys.algorithm"))
		}
	}
	return out
}

// AOAlgorithmNames are the keychain algorithm names the kernel accepted
// and those it refused at the last probe (both nil when it learnt
// nothing): authbgpd_kernel_tcp_ao_algorithm.
func (m *Manager) AOAlgorithmNames() (accepted, refused []string) {
	return algorithmNames(m.algorithms())
}

// KernelStatus adds the last probe of the kernel's TCP-AO algorithms to
// k, /status's kernel section (nil stays nil: the section is absent when
// the kernel's counters cannot be read).
func (m *Manager) KernelStatus(k *status.Kernel) *status.Kernel {
	if k == nil {
		return nil
	}
	a := m.algorithms()
	k.Release = a.Kernel
	k.TCPAOAlgorithms, k.TCPAOAlgorithmsMissing = algorithmNames(a)
	if a.Err != nil {
		k.TCPAOAlgorithmsError = a.Err.Error()
	}
	return k
}
