//go:build linux

package kdrops

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
	"github.com/cilium/ebpf/link"
	"golang.org/x/sys/unix"
)

// maxEntries is the size of the per-(address, reason) table. Drops past it
// are counted per reason in the overflow slots, never lost.
const maxEntries = 4096

// Counter counts the kernel's authentication drops in one network
// namespace. Its methods are safe for concurrent use.
type Counter struct {
	mu       sync.Mutex
	counts   *ebpf.Map // rawKey -> u64
	overflow *ebpf.Map // u32 reason -> u64
	progs    []*ebpf.Program
	links    []link.Link
	names    []string
	reasons  []Reason // what progs[i] counts
	closed   bool
	// ifErr says why link-local drops are counted without their ingress
	// interface (IfIndex 0); nil when they have it.
	ifErr error
}

// Open loads and attaches the counting programs for the network namespace
// of the calling OS thread (in the daemon, whose threads share one
// namespace, the process's; a test that uses several namespaces calls it
// on a thread locked into the one it wants).
//
// Errors match ErrUnsupported (no kernel BTF, a kernel without the drop
// tracepoints — the error names them — or without netns cookies) or
// ErrPermission (missing capabilities); anything else is unexpected.
func Open() (*Counter, error) { return open(maxEntries) }

func open(entries uint32) (*Counter, error) {
	spec, err := btf.LoadKernelSpec()
	if err != nil {
		return nil, fmt.Errorf("kdrops: load kernel BTF (needs CONFIG_DEBUG_INFO_BTF, /sys/kernel/btf/vmlinux): %w (%w)", ErrUnsupported, err)
	}
	tps, err := availableTracepoints(spec)
	if err != nil {
		return nil, err
	}
	offs, ifErr, err := kernelOffsets(spec)
	if err != nil {
		return nil, err
	}
	cookie, err := netnsCookie()
	if err != nil {
		return nil, err
	}

	c := &Counter{}
	if ifErr != nil {
		c.ifErr = fmt.Errorf("kdrops: link-local drops are counted without their interface (ifindex 0): %w", ifErr)
	}
	if err := c.load(tps, offs, cookie, entries); err != nil {
		_ = c.Close()
		return nil, err
	}
	return c, nil
}

// load creates the maps and loads and attaches one program per tracepoint.
func (c *Counter) load(tps []tracepoint, offs offsets, cookie uint64, entries uint32) (err error) {
	c.counts, err = ebpf.NewMap(&ebpf.MapSpec{
		Name:       "kdrops_counts",
		Type:       ebpf.Hash,
		KeySize:    keySize,
		ValueSize:  8,
		MaxEntries: entries,
	})
	if err != nil {
		return classify("create the counts map", err)
	}
	c.overflow, err = ebpf.NewMap(&ebpf.MapSpec{
		Name:       "kdrops_ovfl",
		Type:       ebpf.Array,
		KeySize:    4,
		ValueSize:  8,
		MaxEntries: uint32(numReasons),
	})
	if err != nil {
		return classify("create the overflow map", err)
	}
	for _, tp := range tps {
		prog, err := c.newProgram(tp, offs, cookie)
		if err1 := err; err != nil && offs.hasIif && !errors.Is(err, unix.EPERM) {
			// The ingress ifindex is an extra: a program the verifier
			// refuses with it is loaded without it (ifindex 0) from here on.
			offs.hasIif = false
			prog, err = c.newProgram(tp, offs, cookie)
			if err == nil {
				c.ifErr = fmt.Errorf("kdrops: link-local drops are counted without their interface (ifindex 0): "+
					"the kernel refused the program that reads sk_buff.skb_iif: %w", err1)
			}
		}
		if err != nil {
			return classify("load the program for tracepoint "+tp.name, err)
		}
		c.progs = append(c.progs, prog)
		c.reasons = append(c.reasons, tp.reason)
		l, err := link.AttachRawTracepoint(link.RawTracepointOptions{Name: tp.name, Program: prog})
		if err != nil {
			return classify("attach to raw tracepoint "+tp.name, err)
		}
		c.links = append(c.links, l)
		c.names = append(c.names, tp.name)
	}
	return nil
}

// testBreakIfIndex makes the ifindex part of the programs invalid (a test
// of the fallback when the verifier refuses it).
var testBreakIfIndex bool

// newProgram loads the program counting tp.
func (c *Counter) newProgram(tp tracepoint, offs offsets, cookie uint64) (*ebpf.Program, error) {
	insns := program(offs, cookie, tp.reason, c.counts.FD(), c.overflow.FD())
	if testBreakIfIndex && offs.hasIif {
		// A read of R5, which no instruction set: the verifier refuses it.
		insns = append(asm.Instructions{asm.Mov.Reg(asm.R0, asm.R5)}, insns...)
	}
	return ebpf.NewProgram(&ebpf.ProgramSpec{
		Name:         progName(tp.reason),
		Type:         ebpf.RawTracepoint,
		Instructions: insns,
		// bpf_probe_read_kernel is GPL-only.
		License: "Dual MIT/GPL",
	})
}

// IfIndexErr says why the drops of IPv6 link-local sources are counted
// without their ingress interface (Key.IfIndex 0): the kernel's BTF lacks
// sk_buff.skb_iif, or the verifier refused to read it. nil when they have
// it. Counting works either way.
func (c *Counter) IfIndexErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ifErr
}

// progName is the kernel's name of the program counting r (at most 15
// characters).
func progName(r Reason) string {
	n := "kdrops_" + r.String()
	if len(n) > 15 {
		n = n[:15]
	}
	return n
}

// netnsCookie returns the cookie of the calling thread's network
// namespace (SO_NETNS_COOKIE, Linux 5.14).
func netnsCookie() (uint64, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0, fmt.Errorf("kdrops: open a socket for the netns cookie: %w", err)
	}
	defer unix.Close(fd)
	v, err := unix.GetsockoptUint64(fd, unix.SOL_SOCKET, unix.SO_NETNS_COOKIE)
	if err != nil {
		if errors.Is(err, unix.ENOPROTOOPT) {
			return 0, fmt.Errorf("kdrops: read the netns cookie (SO_NETNS_COOKIE, Linux 5.14): %w (%w)", ErrUnsupported, err)
		}
		return 0, fmt.Errorf("kdrops: read the netns cookie: %w", err)
	}
	return v, nil
}

// classify wraps a bpf(2) error with what was being done, and with
// ErrPermission or ErrUnsupported when that is the cause.
//
// For EPERM, cilium/ebpf's own text is left out: it suggests raising
// RLIMIT_MEMLOCK, which no kernel with these tracepoints looks at (BPF
// memory is charged to the memory cgroup since Linux 5.11); the cause that
// remains is missing capabilities. The error still matches unix.EPERM.
func classify(what string, err error) error {
	switch {
	case errors.Is(err, unix.EPERM):
		return fmt.Errorf("kdrops: %s: %w: needs CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN, in the initial user namespace (%w)",
			what, ErrPermission, unix.EPERM)
	case errors.Is(err, ebpf.ErrNotSupported), errors.Is(err, unix.ENOENT):
		return fmt.Errorf("kdrops: %s: %w: %w", what, ErrUnsupported, err)
	}
	return fmt.Errorf("kdrops: %s: %w", what, err)
}

// Tracepoints returns the names of the attached tracepoints, in attach
// order.
func (c *Counter) Tracepoints() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.names)
}

// Read calls fn for every non-zero counter: n drops of k since Open
// (k.Addr, k.Reason and, for IPv6 link-local sources, k.IfIndex). Counters
// of drops whose address was not recorded (see Key) have the zero addr.
// Read allocates nothing per entry; fn must not call c's methods.
func (c *Counter) Read(fn func(k Key, n uint64)) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return fmt.Errorf("kdrops: read: counter is closed")
	}
	var (
		k rawKey
		n uint64
	)
	it := c.counts.Iterate()
	for it.Next(&k, &n) {
		key, err := decodeKey(k)
		if err != nil {
			return err
		}
		if n != 0 {
			fn(key, n)
		}
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("kdrops: read the counts map: %w", err)
	}
	for r := Reason(1); r < numReasons; r++ {
		if err := c.overflow.Lookup(uint32(r), &n); err != nil {
			return fmt.Errorf("kdrops: read the overflow map: %w", err)
		}
		if n != 0 {
			fn(Key{Reason: r}, n)
		}
	}
	return nil
}

// Counts returns every non-zero counter (see Read).
func (c *Counter) Counts() (map[Key]uint64, error) {
	m := map[Key]uint64{}
	err := c.Read(func(k Key, n uint64) { m[k] += n })
	if err != nil {
		return nil, err
	}
	return m, nil
}

// RunCount returns how many times the programs have run, summed. The
// kernel counts runs only while statistics are enabled (EnableStats, or
// sysctl kernel.bpf_stats_enabled=1); otherwise it stays 0.
func (c *Counter) RunCount() (uint64, error) {
	var sum uint64
	err := c.eachStats(func(_ Reason, st *ebpf.ProgramStats) { sum += st.RunCount })
	return sum, err
}

// Missed returns, per reason, how many times the kernel skipped a
// counting program instead of running it (bpf_prog_info.recursion_misses:
// the kernel does not run a raw tracepoint program while the same program
// is running on that CPU). A skipped run is a drop that was not counted,
// of this namespace or another's: the program had not yet looked. Reasons
// without a miss are left out.
func (c *Counter) Missed() (map[Reason]uint64, error) {
	out := map[Reason]uint64{}
	err := c.eachStats(func(r Reason, st *ebpf.ProgramStats) {
		if st.RecursionMisses != 0 {
			out[r] += st.RecursionMisses
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// eachStats calls fn with the kernel's statistics of every program and
// the reason it counts.
func (c *Counter) eachStats(fn func(r Reason, st *ebpf.ProgramStats)) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return fmt.Errorf("kdrops: program statistics: counter is closed")
	}
	for i, p := range c.progs {
		st, err := p.Stats()
		if err != nil {
			return fmt.Errorf("kdrops: program statistics: %w", err)
		}
		fn(c.reasons[i], st)
	}
	return nil
}

// Close detaches the programs and frees the maps. It is safe to call
// more than once.
func (c *Counter) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	var errs []error
	for _, l := range c.links {
		errs = append(errs, l.Close())
	}
	for _, p := range c.progs {
		errs = append(errs, p.Close())
	}
	for _, m := range []*ebpf.Map{c.counts, c.overflow} {
		if m != nil {
			errs = append(errs, m.Close())
		}
	}
	c.links, c.progs, c.names = nil, nil, nil
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("kdrops: close: %w", err)
	}
	return nil
}

// EnableStats makes the kernel count program runs (see RunCount) until the
// returned Closer is closed (BPF_ENABLE_STATS; needs CAP_SYS_ADMIN). It
// costs a little on every BPF program run system-wide.
func EnableStats() (io.Closer, error) {
	cl, err := ebpf.EnableStats(unix.BPF_STATS_RUN_TIME)
	if err != nil {
		if errors.Is(err, unix.EPERM) {
			return nil, fmt.Errorf("kdrops: enable BPF statistics: %w: needs CAP_SYS_ADMIN (%w)", ErrPermission, unix.EPERM)
		}
		return nil, classify("enable BPF statistics", err)
	}
	return cl, nil
}
