package tcpsock

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/authbgp/authbgpd/aocount"
)

// KernelCounters are the kernel's own TCP-MD5 drop counters of a network
// namespace (TcpExt in /proc/net/netstat). They count segments, for the
// whole namespace and since it was made; no peer is named. They need no
// capability to read, so they signal wrong keys even with the shadow
// checker off.
type KernelCounters struct {
	// NotFound: segments without a signature from a peer we hold a key
	// for (TCPMD5NotFound; the shadow's "missing").
	NotFound uint64
	// Unexpected: signed segments from a peer we hold no key for
	// (TCPMD5Unexpected; the shadow's "unexpected").
	Unexpected uint64
	// Failure: segments whose signature does not verify with our key
	// (TCPMD5Failure; the shadow's "bad_digest").
	Failure uint64
	// HasAO: the kernel has TCP-AO counters (Linux 6.7+ with TCP_AO).
	HasAO bool
	// AO are the TCP-AO counters: verified (TCPAOGood), bad MAC
	// (TCPAOBad), no MKT for the KeyID (TCPAOKeyNotFound), TCP-AO missing
	// where required (TCPAORequired), ICMPs ignored (TCPAODroppedIcmps).
	AO aocount.Counts
}

// Since is how much c grew since start (the counters of the same namespace
// read earlier), field by field; the TCP-AO ones only if both reads have
// them (otherwise c's as they are). A counter below start's (the
// namespace's counters were reset) counts from 0, as aocount.Counts.Delta.
func (c KernelCounters) Since(start KernelCounters) KernelCounters {
	d := c
	d.NotFound, d.Unexpected, d.Failure = grow(c.NotFound, start.NotFound), grow(c.Unexpected, start.Unexpected), grow(c.Failure, start.Failure)
	if c.HasAO && start.HasAO {
		d.AO = c.AO.Delta(start.AO)
	}
	return d
}

// grow is now - prev for a counter that only grows, now if it was reset.
func grow(now, prev uint64) uint64 {
	if now < prev {
		return now
	}
	return now - prev
}

// ErrNoMD5Counters: the netstat text has no TcpExt TCP-MD5 counters (a
// kernel without TCP-MD5, or not a netstat file).
var ErrNoMD5Counters = errors.New("tcpsock: no TcpExt TCPMD5 counters in netstat")

// ParseNetstat reads the TCP-MD5 counters from the text of
// /proc/net/netstat: pairs of lines "TcpExt: NAME..." and "TcpExt: VALUE...".
func ParseNetstat(b []byte) (KernelCounters, error) {
	var c KernelCounters
	var names [][]byte
	found := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 8192), 1<<20)
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) == 0 || string(f[0]) != "TcpExt:" {
			names = nil
			continue
		}
		if names == nil {
			names = f[1:]
			continue
		}
		vals := f[1:]
		if len(vals) != len(names) {
			return KernelCounters{}, fmt.Errorf("tcpsock: netstat TcpExt has %d names and %d values", len(names), len(vals))
		}
		for i, n := range names {
			var dst *uint64
			switch string(n) {
			case "TCPMD5NotFound":
				dst = &c.NotFound
			case "TCPMD5Unexpected":
				dst = &c.Unexpected
			case "TCPMD5Failure":
				dst = &c.Failure
			case "TCPAOGood", "TCPAOBad", "TCPAOKeyNotFound", "TCPAORequired", "TCPAODroppedIcmps":
				dst, c.HasAO = c.aoField(string(n)), true
			default:
				continue
			}
			v, err := strconv.ParseUint(string(vals[i]), 10, 64)
			if err != nil {
				return KernelCounters{}, fmt.Errorf("tcpsock: netstat TcpExt %s: %w", n, err)
			}
			*dst = v
			found++
		}
		names = nil
	}
	if err := sc.Err(); err != nil {
		return KernelCounters{}, fmt.Errorf("tcpsock: netstat: %w", err)
	}
	if found == 0 {
		return KernelCounters{}, ErrNoMD5Counters
	}
	return c, nil
}

// aoField is the field of TcpExt counter name (a TCPAO* one).
func (c *KernelCounters) aoField(name string) *uint64 {
	switch name {
	case "TCPAOGood":
		return &c.AO.Good
	case "TCPAOBad":
		return &c.AO.Bad
	case "TCPAOKeyNotFound":
		return &c.AO.KeyNotFound
	case "TCPAORequired":
		return &c.AO.AORequired
	}
	return &c.AO.DroppedICMP
}
