package speaker

import (
	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/metrics"
	"github.com/authbgp/authbgpd/status"
)

// kernelDrops reads the kernel's TCP-MD5 drop counters of the daemon's
// namespace, for metrics and /status; start is their value when the daemon
// started (ok false: they could not be read then).
type kernelDrops struct {
	start md5auth.KernelCounters
	ok    bool
}

func newKernelDrops() *kernelDrops {
	c, err := md5auth.ReadKernelCounters()
	return &kernelDrops{start: c, ok: err == nil}
}

// metrics is the reader of authbgpd_kernel_tcp_md5_drops_total.
func (k *kernelDrops) metrics() (metrics.KernelMD5Drops, error) {
	c, err := md5auth.ReadKernelCounters()
	d := metrics.KernelMD5Drops{Missing: c.NotFound, Unexpected: c.Unexpected, BadDigest: c.Failure}
	if c.HasAO {
		d.AO = &metrics.AOKernelCounts{Good: c.AOGood, Bad: c.AOBad, KeyNotFound: c.AOKeyNotFound, AORequired: c.AORequired, DroppedICMP: c.AODroppedICMP}
	}
	return d, err
}

// status is the kernel part of /status (nil when the counters cannot be
// read).
func (k *kernelDrops) status() *status.Kernel {
	c, err := md5auth.ReadKernelCounters()
	if err != nil {
		return nil
	}
	st := &status.Kernel{MD5Drops: status.Drops{Missing: c.NotFound, Unexpected: c.Unexpected, BadDigest: c.Failure}}
	if k.ok {
		st.MD5DropsSinceStart = status.Drops{
			Missing:    c.NotFound - min(c.NotFound, k.start.NotFound),
			Unexpected: c.Unexpected - min(c.Unexpected, k.start.Unexpected),
			BadDigest:  c.Failure - min(c.Failure, k.start.Failure),
		}
	} else {
		st.MD5DropsSinceStart = st.MD5Drops
	}
	if c.HasAO {
		st.AO = aoCounters(c)
		since := *st.AO
		if k.ok && k.start.HasAO {
			since = status.AOCounters{Good: c.AOGood - min(c.AOGood, k.start.AOGood), Bad: c.AOBad - min(c.AOBad, k.start.AOBad),
				KeyNotFound: c.AOKeyNotFound - min(c.AOKeyNotFound, k.start.AOKeyNotFound),
				AORequired:  c.AORequired - min(c.AORequired, k.start.AORequired),
				DroppedICMP: c.AODroppedICMP - min(c.AODroppedICMP, k.start.AODroppedICMP)}
		}
		st.AOSinceStart = &since
	}
	return st
}

func aoCounters(c md5auth.KernelCounters) *status.AOCounters {
	return &status.AOCounters{Good: c.AOGood, Bad: c.AOBad, KeyNotFound: c.AOKeyNotFound, AORequired: c.AORequired, DroppedICMP: c.AODroppedICMP}
}
