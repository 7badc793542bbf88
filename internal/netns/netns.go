//go:build linux

// Package netns builds throw-away network topologies for tests: named
// network namespaces joined by veth pairs, with documentation addresses.
// Everything a Topology creates is removed by Close (registered with
// t.Cleanup); it deletes only namespaces it created and stops only processes
// it started, by PID.
package netns

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

var seq atomic.Uint32

// Topology is a set of namespaces owned by one test.
type Topology struct {
	t      testing.TB
	prefix string
	mu     sync.Mutex
	ns     []string
	procs  []*exec.Cmd
}

// New returns an empty topology whose namespaces are named
// "abgp<pid>-<tag><n>-<name>", unique per test process and call.
func New(t testing.TB, tag string) *Topology {
	t.Helper()
	if len(tag) > 6 {
		tag = tag[:6]
	}
	tp := &Topology{t: t, prefix: fmt.Sprintf("abgp%d-%s%d-", os.Getpid(), tag, seq.Add(1))}
	t.Cleanup(tp.Close)
	return tp
}

// Run runs an ip(8)-style command on the host and fails the test on error.
func Run(t testing.TB, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Add creates namespace name (returned with the topology prefix) and brings lo up.
func (tp *Topology) Add(name string) string {
	tp.t.Helper()
	full := tp.prefix + name
	Run(tp.t, "ip", "netns", "add", full)
	tp.mu.Lock()
	tp.ns = append(tp.ns, full)
	tp.mu.Unlock()
	Run(tp.t, "ip", "-n", full, "link", "set", "lo", "up")
	// Addresses must be usable at once: no IPv6 duplicate address detection.
	Run(tp.t, "ip", "netns", "exec", full, "sysctl", "-qw", "net.ipv6.conf.all.accept_dad=0", "net.ipv6.conf.default.accept_dad=0")
	return full
}

// Link joins namespaces a and b with a veth pair named ifA (in a) and ifB
// (in b), assigns the given addresses (CIDR, IPv4 or IPv6; "nodad" is added
// for IPv6) and brings both ends up.
func (tp *Topology) Link(a, ifA string, addrsA []string, b, ifB string, addrsB []string) {
	tp.t.Helper()
	tmpA := fmt.Sprintf("ab%dx%d", os.Getpid()%100000, seq.Add(1))
	tmpB := tmpA + "p"
	Run(tp.t, "ip", "link", "add", tmpA, "type", "veth", "peer", "name", tmpB)
	Run(tp.t, "ip", "link", "set", tmpA, "netns", a, "name", ifA)
	Run(tp.t, "ip", "link", "set", tmpB, "netns", b, "name", ifB)
	for _, x := range []struct {
		ns, ifc string
		addrs   []string
	}{{a, ifA, addrsA}, {b, ifB, addrsB}} {
		for _, ad := range x.addrs {
			args := []string{"-n", x.ns, "addr", "add", ad, "dev", x.ifc}
			if strings.Contains(ad, ":") {
				args = append(args, "nodad")
			}
			Run(tp.t, "ip", args...)
		}
		Run(tp.t, "ip", "-n", x.ns, "link", "set", x.ifc, "up")
	}
}

// Exec returns a command that runs argv inside namespace ns.
func Exec(ns string, argv ...string) *exec.Cmd {
	return exec.Command("ip", append([]string{"netns", "exec", ns}, argv...)...)
}

// Start starts cmd (usually from Exec) and stops it, by PID, at cleanup.
// Its process group is killed so children of `ip netns exec` go too.
func (tp *Topology) Start(cmd *exec.Cmd) {
	tp.t.Helper()
	cmd.SysProcAttr = &unix.SysProcAttr{Setpgid: true, Pdeathsig: unix.SIGKILL}
	var err error
	onSpawnThread(func() { err = cmd.Start() })
	if err != nil {
		tp.t.Fatalf("start %v: %v", cmd.Args, err)
	}
	tp.mu.Lock()
	tp.procs = append(tp.procs, cmd)
	tp.mu.Unlock()
}

// Pdeathsig is sent when the *thread* that forked the child exits, not the
// process (golang/go#27505). Do discards the threads it runs on, so a child
// forked earlier from a thread that a later Do locks would be SIGKILLed when
// that Do returns. Children are therefore forked from one thread that is
// locked for the life of the process and never exits.
var (
	spawnOnce sync.Once
	spawnCh   chan func()
)

func onSpawnThread(f func()) {
	spawnOnce.Do(func() {
		spawnCh = make(chan func())
		go func() {
			// Never unlocked. Threads used by Do are discarded, never
			// reused, so this one is in the process's own namespace.
			runtime.LockOSThread()
			for f := range spawnCh {
				f()
			}
		}()
	})
	done := make(chan struct{})
	spawnCh <- func() { defer close(done); f() }
	<-done
}

// Stop signals a process started with Start (SIGTERM, then SIGKILL after
// 5 s) and waits for it.
func Stop(cmd *exec.Cmd) {
	if cmd.Process == nil || cmd.ProcessState != nil {
		return
	}
	pgid := cmd.Process.Pid
	_ = unix.Kill(-pgid, unix.SIGTERM)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = unix.Kill(-pgid, unix.SIGKILL)
		<-done
	}
}

// Close stops started processes and deletes the namespaces, in reverse order.
func (tp *Topology) Close() {
	tp.mu.Lock()
	procs, nss := tp.procs, tp.ns
	tp.procs, tp.ns = nil, nil
	tp.mu.Unlock()
	for i := len(procs) - 1; i >= 0; i-- {
		Stop(procs[i])
	}
	for i := len(nss) - 1; i >= 0; i-- {
		_ = exec.Command("ip", "netns", "del", nss[i]).Run()
	}
}

// Do runs fn on a goroutine locked to an OS thread that has joined
// namespace ns. Sockets created by fn belong to ns for their whole life,
// whichever thread uses them later. The thread is discarded afterwards.
func Do(ns string, fn func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		// Never UnlockOSThread: the thread's namespace is changed, so the
		// runtime must throw the thread away when this goroutine exits.
		f, err := os.Open("/run/netns/" + ns)
		if err != nil {
			errc <- fmt.Errorf("netns: open %s: %w", ns, err)
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			errc <- fmt.Errorf("netns: setns %s: %w", ns, err)
			return
		}
		errc <- fn()
	}()
	return <-errc
}

// Counters returns the TcpExt counters (from /proc/net/netstat) of ns.
func Counters(ns string) (map[string]uint64, error) {
	out, err := Exec(ns, "cat", "/proc/net/netstat").Output()
	if err != nil {
		return nil, fmt.Errorf("netns: read netstat in %s: %w", ns, err)
	}
	m := map[string]uint64{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	var names []string
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || f[0] != "TcpExt:" {
			continue
		}
		if names == nil {
			names = f[1:]
			continue
		}
		for i, v := range f[1:] {
			if i < len(names) {
				n, _ := strconv.ParseUint(v, 10, 64)
				m[names[i]] = n
			}
		}
		names = nil
	}
	return m, nil
}

// WaitFor polls cond every 100 ms until it returns true or ctx ends.
func WaitFor(ctx context.Context, cond func() bool) bool {
	for {
		if cond() {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(100 * time.Millisecond):
		}
	}
}
