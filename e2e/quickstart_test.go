//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/internal/testenv"
)

// TestQuickstart runs `bash scripts/quickstart.sh` (what `make quickstart`
// runs) as a user would, within 120 s:
//
//   - full: exit 0; the output shows the session established, FRR's
//     route at authbgpd and authbgpd's own network (with its community) at
//     FRR, the bad-digest diagnosis after the key is broken, and ok again
//     after the fix; afterwards no abqs-<pid>-* namespace and none of the processes it
//     started are left;
//   - interrupted: Ctrl-C (SIGINT to its process group, as a terminal does)
//     while it waits for the session: it exits 130 and still leaves nothing
//     behind.
func TestQuickstart(t *testing.T) {
	testenv.RequireRoot(t)
	testenv.RequireBinary(t, "go")
	testenv.RequireBinary(t, "bgpd", "/usr/lib/frr")
	testenv.RequireBinary(t, "vtysh")
	script, err := filepath.Abs(filepath.Join("..", "scripts", "quickstart.sh"))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("full", func(t *testing.T) {
		start := time.Now()
		q := startQuickstart(t, script, "")
		err := q.wait(120 * time.Second)
		out := q.output()
		t.Logf("quickstart took %v", time.Since(start).Round(100*time.Millisecond))
		if err != nil {
			t.Fatalf("quickstart: %v\n%s", err, out)
		}
		for _, want := range []*regexp.Regexp{
			regexp.MustCompile(`(?m)^\s+192\.0\.2\.2\s+65002\s+established\s.*\sok\s`),
			regexp.MustCompile(`(?m)^\s+192\.0\.2\.2\s+65002\s+\S+\s.*\sbad-digest\s`),
			regexp.MustCompile(`203\.0\.113\.0/24`),
			// authbgpd's own [[networks]] prefix, as FRR shows it.
			regexp.MustCompile(`BGP routing table entry for 198\.51\.100\.0/24`),
			regexp.MustCompile(`(?m)^\s+Community: 65001:100$`),
			regexp.MustCompile(`==> \d+\. SRv6 HMAC key programming`),
			regexp.MustCompile(`quickstart: cleaned up`),
			regexp.MustCompile(`and skipped \(QUICKSTART_TCPAO=0\)`),
		} {
			if !want.MatchString(out) {
				t.Errorf("quickstart output does not match %s", want)
			}
		}
		if !strings.Contains(out, "established") || !strings.Contains(out, "bad-digest") {
			t.Errorf("quickstart output lacks \"established\" or \"bad-digest\"")
		}
		if strings.Contains(out, "42             sha256     yes") {
			t.Logf("quickstart showed SRv6 HMAC key 42 installed")
		} else {
			t.Logf("quickstart did not show an installed SRv6 HMAC key (SRv6 part skipped)")
		}
		q.checkClean(t)
		if t.Failed() {
			t.Logf("quickstart output:\n%s", out)
		}
	})
	t.Run("interrupted", func(t *testing.T) {
		q := startQuickstart(t, script, "==> 6.")
		select {
		case <-q.marker:
		case <-time.After(90 * time.Second):
			q.kill()
			t.Fatalf("quickstart never reached the session step:\n%s", q.output())
		}
		time.Sleep(300 * time.Millisecond)
		// Ctrl-C: the terminal signals the whole foreground process group.
		if err := unix.Kill(-q.cmd.Process.Pid, unix.SIGINT); err != nil {
			t.Fatal(err)
		}
		err := q.wait(30 * time.Second)
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Errorf("quickstart after Ctrl-C: %v, want exit status 130\n%s", err, q.output())
		}
		q.checkClean(t)
	})
}

type quickstart struct {
	cmd    *exec.Cmd
	mu     sync.Mutex
	buf    bytes.Buffer
	marker chan struct{}
	done   chan error
}

// startQuickstart runs the script in its own process group; marker, when
// set, is a line prefix whose first appearance closes q.marker.
func startQuickstart(t *testing.T, script, marker string) *quickstart {
	t.Helper()
	q := &quickstart{marker: make(chan struct{}), done: make(chan error, 1)}
	q.cmd = exec.Command("bash", script)
	// The TCP-AO part needs a kernel with TCP-AO: on this one it would boot
	// the VM. It runs in the VM on its own (e2e/vmtest TestQuickstartTCPAO
	// runs scripts/quickstart-tcpao.sh in the guest), so here it is skipped.
	q.cmd.Env = append(os.Environ(), "QUICKSTART_TCPAO=0")
	q.cmd.SysProcAttr = &unix.SysProcAttr{Setpgid: true}
	pr, pw := io.Pipe()
	q.cmd.Stdout, q.cmd.Stderr = pw, pw
	if err := q.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(pr)
		seen := false
		for sc.Scan() {
			q.mu.Lock()
			q.buf.WriteString(sc.Text() + "\n")
			q.mu.Unlock()
			if marker != "" && !seen && strings.HasPrefix(sc.Text(), marker) {
				seen = true
				close(q.marker)
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	go func() {
		err := q.cmd.Wait()
		pw.Close()
		q.done <- err
	}()
	t.Cleanup(q.kill)
	return q
}

func (q *quickstart) output() string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.buf.String()
}

func (q *quickstart) wait(d time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	select {
	case err := <-q.done:
		q.done <- err
		time.Sleep(100 * time.Millisecond) // let the reader take the last lines
		return err
	case <-ctx.Done():
		q.kill()
		return fmt.Errorf("did not finish within %v", d)
	}
}

// kill stops a quickstart that overran: its process group, by its PID.
func (q *quickstart) kill() {
	if q.cmd.Process == nil || q.cmd.ProcessState != nil {
		return
	}
	select {
	case err := <-q.done:
		q.done <- err
		return
	default:
	}
	_ = unix.Kill(-q.cmd.Process.Pid, unix.SIGTERM)
	select {
	case err := <-q.done:
		q.done <- err
	case <-time.After(10 * time.Second):
		_ = unix.Kill(-q.cmd.Process.Pid, unix.SIGKILL)
	}
}

var quickstartPIDRE = regexp.MustCompile(`runs as PID (\d+)`)

// checkClean: no namespace abqs-<script pid>-* left, and every PID the
// script said it started is gone.
func (q *quickstart) checkClean(t *testing.T) {
	t.Helper()
	prefix := fmt.Sprintf("abqs-%d-", q.cmd.Process.Pid)
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, prefix) {
			t.Errorf("namespace left behind: %s", l)
		}
	}
	if ents, _ := filepath.Glob(filepath.Join(os.TempDir(), prefix[:len(prefix)-1]+".*")); len(ents) > 0 {
		t.Errorf("work directory left behind: %v", ents)
	}
	// Any process still using the script's work directory was started by
	// it and leaked: report it, and stop it (by PID).
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	work := filepath.Join(os.TempDir(), prefix[:len(prefix)-1]+".")
	for _, f := range procs {
		b, err := os.ReadFile(f)
		if err != nil || !bytes.Contains(b, []byte(work)) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
		if pid == os.Getpid() {
			continue
		}
		t.Errorf("process %d left running: %s", pid, bytes.ReplaceAll(b, []byte{0}, []byte{' '}))
		_ = unix.Kill(pid, unix.SIGKILL)
	}
	pids := quickstartPIDRE.FindAllStringSubmatch(q.output(), -1)
	if len(pids) == 0 {
		t.Logf("the script started no daemon before it ended")
	}
	for _, m := range pids {
		pid, _ := strconv.Atoi(m[1])
		if err := unix.Kill(pid, 0); err == nil {
			// A reused PID would have to be ours to be mistaken: check the name.
			comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
			if c := strings.TrimSpace(string(comm)); c == "authbgpd" || c == "bgpd" {
				t.Errorf("process %d (%s) left running", pid, c)
			}
		}
	}
}
