package tcpsock

import (
	"crypto/fips140"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/authbgp/authbgpd/md5auth"
)

// TestCheckKernelFIPS points KernelFIPSPath at files of its own. It must
// not run in parallel with tests that install keys (they may read it).
func TestCheckKernelFIPS(t *testing.T) {
	saved := KernelFIPSPath
	t.Cleanup(func() { KernelFIPSPath = saved })
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content string // content "-": no file
		want          error  // nil, ErrKernelFIPS, or errAny
	}{
		{"enabled", "1\n", ErrKernelFIPS},
		{"enabled no newline", "1", ErrKernelFIPS},
		{"disabled", "0\n", nil},
		{"missing", "-", nil},
		{"garbage", "yes\n", errAny},
	} {
		KernelFIPSPath = filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_"))
		if tc.content != "-" {
			if err := os.WriteFile(KernelFIPSPath, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		err := CheckKernelFIPS()
		switch {
		case tc.want == nil && err != nil:
			t.Errorf("%s: %v, want nil", tc.name, err)
		case tc.want == errAny && (err == nil || errors.Is(err, ErrKernelFIPS)):
			t.Errorf("%s: %v, want a read error that is not ErrKernelFIPS", tc.name, err)
		case tc.want == ErrKernelFIPS && !errors.Is(err, ErrKernelFIPS):
			t.Errorf("%s: %v, want ErrKernelFIPS", tc.name, err)
		}
		if tc.want == ErrKernelFIPS {
			// Preflight reports it too, and not twice.
			perr := Preflight()
			if !errors.Is(perr, ErrKernelFIPS) || strings.Count(perr.Error(), "FIPS mode") != 1 {
				t.Errorf("Preflight with a FIPS kernel = %v", perr)
			}
		}
	}
	// A directory cannot be read: an error, but not a FIPS verdict.
	KernelFIPSPath = dir
	if err := CheckKernelFIPS(); err == nil || errors.Is(err, ErrKernelFIPS) {
		t.Errorf("CheckKernelFIPS(directory) = %v", err)
	}
}

var errAny = errors.New("any error")

const fipsHelperEnv = "MD5AUTH_TEST_FIPS_HELPER"

// TestCheckGoFIPS runs this test binary again with GODEBUG=fips140=only
// and checks that CheckGoFIPS and Preflight say so (instead of crashing).
func TestCheckGoFIPS(t *testing.T) {
	if os.Getenv(fipsHelperEnv) == "1" {
		// Child: report what the checks say.
		fmt.Printf("enforced=%v gofips=%v preflight=%v\n", fips140.Enforced(),
			errors.Is(CheckGoFIPS(), ErrGoFIPS), errors.Is(Preflight(), ErrGoFIPS))
		fmt.Printf("probe=%v\n", probeMD5())
		return
	}
	if fips140.Enforced() {
		if !errors.Is(CheckGoFIPS(), ErrGoFIPS) {
			t.Fatal("fips140=only is enforced but CheckGoFIPS does not say so")
		}
		return
	}
	if err := CheckGoFIPS(); err != nil {
		t.Fatalf("CheckGoFIPS = %v", err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCheckGoFIPS$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), fipsHelperEnv+"=1", "GODEBUG=fips140=only")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child with GODEBUG=fips140=only failed: %v\n%s", err, out)
	}
	s := string(out)
	if !strings.Contains(s, "enforced=true gofips=true preflight=true") {
		t.Fatalf("child with GODEBUG=fips140=only:\n%s", s)
	}
	// The probe alone detects the mode too (Write refuses, Sum panics).
	if !strings.Contains(s, "probe=tcpsock: Go runs with GODEBUG=fips140=only") {
		t.Fatalf("MD5 probe in the child did not detect fips140=only:\n%s", s)
	}
}

func TestPreflight(t *testing.T) {
	if CheckKernelFIPS() != nil || fips140.Enforced() {
		t.Skip("this machine runs in a FIPS mode; see TestCheckKernelFIPS and TestCheckGoFIPS")
	}
	err := Preflight()
	if runtime.GOOS == "linux" {
		if err != nil {
			t.Fatalf("Preflight = %v", err)
		}
		return
	}
	if !errors.Is(err, ErrNotSupported) {
		t.Fatalf("Preflight on %s = %v, want ErrNotSupported", runtime.GOOS, err)
	}
}

func TestCheckListener(t *testing.T) {
	addr := netip.MustParseAddrPort("[::]:179")
	if err := CheckListener(&Socket{Local: addr, Listening: true, Protocol: 6}); err != nil {
		t.Errorf("CheckListener(TCP) = %v", err)
	}
	err := CheckListener(&Socket{Local: addr, Listening: true, Protocol: ProtoMPTCP})
	var me *MultipathError
	if !errors.As(err, &me) || me.Local != addr {
		t.Fatalf("CheckListener(MPTCP) = %v, want *MultipathError for %s", err, addr)
	}
	for _, want := range []string{"[::]:179", "multipath TCP", "godebug multipathtcp=0", "go.mod"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	if err := CheckListener(nil); err == nil {
		t.Error("CheckListener(nil) = nil")
	}
}

func TestErrorTypes(t *testing.T) {
	nf := &NotFoundError{Local: netip.MustParseAddrPort("192.0.2.1:179"), Remote: netip.MustParseAddrPort("192.0.2.2:40000")}
	if !errors.Is(fmt.Errorf("wrapped: %w", nf), ErrSocketNotFound) || errors.Is(nf, ErrNotSupported) {
		t.Error("NotFoundError does not match ErrSocketNotFound (only)")
	}
	if !strings.Contains(nf.Error(), "192.0.2.1:179") || !strings.Contains(nf.Error(), "192.0.2.2:40000") {
		t.Errorf("NotFoundError = %q", nf)
	}
	nl := &NotFoundError{Listener: true, Port: 179}
	if !strings.Contains(nl.Error(), "listener") || !strings.Contains(nl.Error(), "179") {
		t.Errorf("NotFoundError(listener) = %q", nl)
	}

	me := &MultipathError{Local: netip.MustParseAddrPort("0.0.0.0:179"), Err: syscall.ENOPROTOOPT}
	ke := &KeyError{Op: "set", Scope: "192.0.2.2", Socket: "listener 0.0.0.0:179", Err: me}
	if !errors.Is(ke, syscall.ENOPROTOOPT) {
		t.Error("KeyError{MultipathError{ENOPROTOOPT}} does not match ENOPROTOOPT")
	}
	var got *MultipathError
	if !errors.As(ke, &got) || got != me {
		t.Error("KeyError does not unwrap to its *MultipathError")
	}
	if msg := ke.Error(); !strings.HasPrefix(msg, "tcpsock: set key for 192.0.2.2 on listener 0.0.0.0:179: socket 0.0.0.0:179 is multipath TCP") || strings.Count(msg, "tcpsock:") != 1 {
		t.Errorf("KeyError message %q", msg)
	}
	if msg := (&MultipathError{}).Error(); !strings.Contains(msg, "default net.ListenConfig") {
		t.Errorf("MultipathError without a socket: %q", msg)
	}
}

// TestSecretNeverInErrors: errors of every key operation, whatever the
// outcome, do not contain the secret, on any OS.
func TestSecretNeverInErrors(t *testing.T) {
	secret := []byte("Secret-Do-Not-Print-1234")
	keys := []md5auth.Key{
		md5auth.AddrKey(netip.MustParseAddr("2001:db8::9"), secret),
		md5auth.AddrKey(netip.MustParseAddr("192.0.2.9"), secret),
		{Prefix: netip.MustParsePrefix("192.0.2.0/24"), IfIndex: -1, Secret: secret},
		md5auth.AddrKey(netip.MustParseAddr("192.0.2.9"), append(secret, make([]byte, 80)...)),
		{Secret: secret},
	}
	for _, k := range keys {
		for _, err := range []error{SetKeyFd(-1, k), DeleteKeyFd(-1, k), SetKeyFd(0, k), SetKey(nil, k), DeleteKey(nil, k)} {
			if err == nil {
				t.Errorf("key operation with %v on a bad descriptor succeeded", k)
				continue
			}
			if strings.Contains(err.Error(), string(secret)) || strings.Contains(fmt.Sprintf("%+v %#v", err, err), string(secret)) {
				t.Errorf("error leaks the secret: %v", err)
			}
		}
	}
}
