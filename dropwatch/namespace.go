package dropwatch

import (
	"github.com/authbgp/authbgpd/metrics"
	"github.com/authbgp/authbgpd/status"
	"github.com/authbgp/authbgpd/tcpsock"
)

// Namespace is the kernel's namespace-wide TCP-MD5 and TCP-AO counters of
// the daemon's network namespace (TcpExt, tcpsock.KernelCounters; no peer
// named), for /status kernel and the metrics
// authbgpd_kernel_tcp_md5_drops_total and
// authbgpd_kernel_tcp_ao_segments_total: their values since the namespace
// was made, and their growth since the daemon started. Each call reads them
// again; safe for concurrent use.
type Namespace struct {
	read  func() (tcpsock.KernelCounters, error)
	start tcpsock.KernelCounters
	ok    bool // start was read
}

// NewNamespace reads the counters now, as the start of the "since start"
// figures. read is tcpsock.ReadKernelCounters when nil (the calling
// thread's namespace: call it in the daemon's).
func NewNamespace(read func() (tcpsock.KernelCounters, error)) *Namespace {
	if read == nil {
		read = tcpsock.ReadKernelCounters
	}
	c, err := read()
	return &Namespace{read: read, start: c, ok: err == nil}
}

// Metrics is the reader of the kernel metrics (for
// metrics.ReadKernelDrops): the counters since the namespace was made; AO
// nil on a kernel without TCP-AO.
func (n *Namespace) Metrics() (metrics.KernelMD5Drops, error) {
	c, err := n.read()
	d := metrics.KernelMD5Drops{Missing: c.NotFound, Unexpected: c.Unexpected, BadDigest: c.Failure}
	if c.HasAO {
		d.AO = &c.AO
	}
	return d, err
}

// Status is the kernel part of /status, nil when the counters cannot be
// read. When they could not be read at start, "since start" is since the
// namespace was made.
func (n *Namespace) Status() *status.Kernel {
	c, err := n.read()
	if err != nil {
		return nil
	}
	since := c
	if n.ok {
		since = c.Since(n.start)
	}
	st := &status.Kernel{MD5Drops: md5Drops(c), MD5DropsSinceStart: md5Drops(since)}
	if c.HasAO {
		st.AO, st.AOSinceStart = &c.AO, &since.AO
	}
	return st
}

// md5Drops names the TCP-MD5 counters by the shadow checker's verdicts.
func md5Drops(c tcpsock.KernelCounters) status.Drops {
	return status.Drops{Missing: c.NotFound, Unexpected: c.Unexpected, BadDigest: c.Failure}
}
