package tcpsock

import (
	"fmt"
	"os"
)

// ReadKernelCounters reads the TCP-MD5 counters of the calling thread's
// network namespace.
func ReadKernelCounters() (KernelCounters, error) {
	b, err := os.ReadFile("/proc/thread-self/net/netstat")
	if err != nil {
		return KernelCounters{}, fmt.Errorf("tcpsock: read kernel TCP-MD5 counters: %w", err)
	}
	return ParseNetstat(b)
}
