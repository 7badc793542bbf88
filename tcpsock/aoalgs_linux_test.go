package tcpsock

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/tcpao"
)

// TestClassifyProbe: TCP_AO_ADD_KEY's answers to the probe are sorted into
// accepted, no TCP-AO at all, a refusal of the algorithm (named by its
// errno), and a question that could not be asked.
func TestClassifyProbe(t *testing.T) {
	if classifyProbe(nil) != nil {
		t.Fatal("nil is not accepted")
	}
	for _, c := range []struct {
		err           error
		noAO, unknown bool
		text          string
	}{
		{unix.ENOPROTOOPT, true, false, "protocol not available"},
		{unix.ENOENT, false, false, "ENOENT (no such file or directory)"},
		{unix.EINVAL, false, false, "EINVAL (invalid argument)"},
		{unix.EOPNOTSUPP, false, false, "(operation not supported)"},
		{unix.ENOMEM, false, true, "ENOMEM"},
		{unix.EPERM, false, true, "EPERM"},
		{unix.EACCES, false, true, "EACCES"},
		{errors.New("not an errno"), false, true, "not an errno"},
	} {
		got := classifyProbe(c.err)
		if errors.Is(got, ErrNoTCPAO) != c.noAO || errors.Is(got, errAOProbe) != c.unknown || !errors.Is(got, c.err) || !strings.Contains(got.Error(), c.text) {
			t.Errorf("%v: %v (no TCP-AO %v, unknown %v)", c.err, got, errors.Is(got, ErrNoTCPAO), errors.Is(got, errAOProbe))
		}
	}
}

// TestTCPAOAlgorithmsProbe: the probe finds exactly the algorithms the
// running kernel has. The oracles: the kernel's crypto API through another
// door, AF_ALG (up to Linux 7.1, TCP-AO takes any "hmac(<hash>)" and
// "cmac(aes128)" it has: tcp_sigpool_alloc_ahash); and in the VM
// (AUTHBGPD_VM=1) the crypto options vm/kernel.config builds in. Names the
// crypto API lacks are refused with ENOENT (measured on Linux 6.12), which
// is a refusal, not "no TCP-AO". A kernel without TCP-AO skips, naming it.
func TestTCPAOAlgorithmsProbe(t *testing.T) {
	a := ProbeAOAlgorithms()
	if errors.Is(a.Err, ErrNoTCPAO) {
		testenv.SkipKernelLacks(t, "TCP-AO (CONFIG_TCP_AO)", a.Err.Error())
	}
	if a.Err != nil || len(a.Unknown) > 0 {
		t.Fatalf("probe: %v, unknown %v", a.Err, a.Unknown)
	}
	var refused []string
	for alg, err := range a.Refused {
		refused = append(refused, fmt.Sprintf("%s: %v", alg.LinuxName(), err))
	}
	slices.Sort(refused)
	t.Logf("Linux %s: accepted %v, refused %q, in %v", a.Kernel, a.Accepted, refused, a.Took)
	if a.Kernel == "" || len(a.Accepted)+len(a.Refused) != len(tcpao.Algorithms) {
		t.Fatalf("probe: %+v", a)
	}

	if major, minor := release(a.Kernel); major < 7 || major == 7 && minor < 2 {
		for _, alg := range tcpao.Algorithms {
			has, err := cryptoAPIHas(alg.LinuxName())
			if err != nil {
				t.Logf("AF_ALG oracle unavailable: %v", err)
				break
			}
			if has != a.Offers(alg) {
				t.Errorf("%s: the crypto API has it: %v, the probe says offered: %v (refused: %v)", alg.LinuxName(), has, a.Offers(alg), a.Refused[alg])
			}
		}
	}

	if os.Getenv("AUTHBGPD_VM") == "1" {
		want := vmAlgorithms(t)
		if !slices.Equal(a.Accepted, want) {
			t.Errorf("the guest's kernel (vm/kernel.config) has %v, the probe found %v", want, a.Accepted)
		}
	}

	// Unknown names: the kernel's answer to a name its crypto API lacks.
	for _, name := range []string{"hmac(md4)", "hmac(authbgpd-none)", "authbgpd(sha256)"} {
		err := ProbeAOAlgorithm(name)
		t.Logf("TCP_AO_ADD_KEY %q: %v", name, err)
		if err == nil || errors.Is(err, ErrNoTCPAO) || errors.Is(err, errAOProbe) {
			t.Errorf("%s: %v, want the kernel's refusal", name, err)
		}
		if os.Getenv("AUTHBGPD_VM") == "1" && !errors.Is(err, unix.ENOENT) {
			t.Errorf("%s: %v, want ENOENT (Linux 6.12)", name, err)
		}
	}
}

// TestTCPAOAlgorithmsProbeCost: the probe runs at start and on every
// reload, so it must be cheap; its cost is logged (mean of 50).
func TestTCPAOAlgorithmsProbeCost(t *testing.T) {
	if err := CheckTCPAO(); err != nil {
		testenv.SkipKernelLacks(t, "TCP-AO (CONFIG_TCP_AO)", err.Error())
	}
	const n = 50
	start := time.Now()
	var worst time.Duration
	for range n {
		a := ProbeAOAlgorithms()
		if a.Err != nil {
			t.Fatal(a.Err)
		}
		worst = max(worst, a.Took)
	}
	mean := time.Since(start) / n
	t.Logf("ProbeAOAlgorithms: %v a probe (mean of %d, %d algorithms), worst %v", mean, n, len(tcpao.Algorithms), worst)
	if mean > 50*time.Millisecond {
		t.Errorf("a probe costs %v: too much for every reload", mean)
	}
}

func BenchmarkProbeAOAlgorithms(b *testing.B) {
	if err := CheckTCPAO(); err != nil {
		testenv.SkipKernelLacks(b, "TCP-AO (CONFIG_TCP_AO)", err.Error())
	}
	for b.Loop() {
		if a := ProbeAOAlgorithms(); a.Err != nil {
			b.Fatal(a.Err)
		}
	}
}

// release is the major and minor of a kernel release ("6.12.48" -> 6, 12).
func release(r string) (major, minor int) {
	f := strings.FieldsFunc(r, func(c rune) bool { return c < '0' || c > '9' })
	if len(f) >= 2 {
		major, _ = strconv.Atoi(f[0])
		minor, _ = strconv.Atoi(f[1])
	}
	return major, minor
}

// cryptoAPIHas asks the kernel's crypto API, through an AF_ALG hash socket,
// whether it has the hash name ("cmac(aes128)" is TCP-AO's alias of
// "cmac(aes)").
func cryptoAPIHas(name string) (bool, error) {
	if name == "cmac(aes128)" {
		name = "cmac(aes)"
	}
	fd, err := unix.Socket(unix.AF_ALG, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return false, fmt.Errorf("AF_ALG socket: %w", err)
	}
	defer unix.Close(fd)
	err = unix.Bind(fd, &unix.SockaddrALG{Type: "hash", Name: name})
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, unix.ENOENT):
		return false, nil
	}
	return false, fmt.Errorf("AF_ALG bind %q: %w", name, err)
}

// vmAlgorithms are the TCP-AO algorithms the guest's kernel builds in, by
// the crypto options of vm/kernel.config.
func vmAlgorithms(t *testing.T) []tcpao.Algorithm {
	t.Helper()
	// The package's directory (go test, TestTCPSockInGuest) or the
	// repository's (scripts/vm.sh bin/tcpsock.test).
	f, err := os.Open(filepath.Join("..", "vm", "kernel.config"))
	if errors.Is(err, os.ErrNotExist) {
		f, err = os.Open(filepath.Join("vm", "kernel.config"))
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	y := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "="); ok && v == "y" {
			y[strings.TrimPrefix(k, "CONFIG_")] = true
		}
	}
	var out []tcpao.Algorithm
	for _, a := range tcpao.Algorithms {
		need := map[tcpao.Algorithm][]string{
			tcpao.HMACSHA1: {"CRYPTO_HMAC", "CRYPTO_SHA1"}, tcpao.AESCMAC: {"CRYPTO_CMAC", "CRYPTO_AES"},
			tcpao.HMACSHA224: {"CRYPTO_HMAC", "CRYPTO_SHA256"}, tcpao.HMACSHA256: {"CRYPTO_HMAC", "CRYPTO_SHA256"},
			tcpao.HMACSHA384: {"CRYPTO_HMAC", "CRYPTO_SHA512"}, tcpao.HMACSHA512: {"CRYPTO_HMAC", "CRYPTO_SHA512"},
		}[a]
		if !slices.ContainsFunc(need, func(o string) bool { return !y[o] }) {
			out = append(out, a)
		}
	}
	return out
}
