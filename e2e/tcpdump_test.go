//go:build linux

package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/netns"
)

// tdProc is a tcpdump writing a capture file.
type tdProc struct {
	cmd  *exec.Cmd
	file string
}

// startTcpdump runs tcpdump in ns with args (interface, link type, buffers,
// --immediate-mode), writing BGP packets to file packet by packet (-U), and
// waits until it listens.
func startTcpdump(t testing.TB, tp *netns.Topology, ns, file string, args ...string) *tdProc {
	t.Helper()
	logFile := file + ".log"
	f, err := os.Create(logFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	argv := append([]string{"tcpdump"}, args...)
	// -Z root: Debian's tcpdump would otherwise drop to the tcpdump user,
	// which cannot write into the test's private directory.
	argv = append(argv, "-w", file, "-U", "-Z", "root", "-n", "tcp port 179")
	cmd := netns.Exec(ns, argv...)
	cmd.Stdout, cmd.Stderr = f, f
	tp.Start(cmd)
	waitFor(t, 10*time.Second, fmt.Sprintf("tcpdump %v listening", args), func() error {
		b, _ := os.ReadFile(logFile)
		if cmd.ProcessState != nil {
			t.Fatalf("tcpdump %v did not start: %s", args, b)
		}
		if !bytes.Contains(b, []byte("listening on")) {
			return fmt.Errorf("log: %s", b)
		}
		return nil
	})
	return &tdProc{cmd: cmd, file: file}
}

// stop ends the capture (tcpdump flushes the file on SIGTERM). Drops are
// only logged: each file is judged on its own, and tcpdump -i any counts
// frames it flushed while attaching its filter as "dropped by kernel".
func (p *tdProc) stop(t testing.TB) {
	t.Helper()
	netns.Stop(p.cmd)
	b, _ := os.ReadFile(p.file + ".log")
	t.Logf("tcpdump %s: %s", filepath.Base(p.file), strings.Join(strings.Fields(string(b)), " "))
}
