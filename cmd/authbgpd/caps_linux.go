//go:build linux

package main

import (
	"fmt"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// raiseCaps makes the capabilities this process is permitted to use
// effective, on every thread. The container image gives the binary its
// three capabilities as permitted-only file capabilities (no effective bit),
// so the kernel starts it even where the container lacks one of them (a
// file with the effective bit is refused outright, EPERM at exec); the
// daemon then raises what it got and each feature reports what it misses
// (no CAP_NET_RAW: no shadow capture; no CAP_NET_ADMIN: no SRv6 keys; no
// CAP_BPF and CAP_PERFMON: no kernel drop verdicts per peer).
// Capabilities are per thread in Linux, so the change is made on all of
// them (AllThreadsSyscall; static builds, which the image and tests use).
func raiseCaps() (have []string, err error) {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return nil, fmt.Errorf("capget: %w", err)
	}
	names := map[int]string{unix.CAP_NET_BIND_SERVICE: "net_bind_service", unix.CAP_NET_RAW: "net_raw", unix.CAP_NET_ADMIN: "net_admin",
		unix.CAP_BPF: "bpf", unix.CAP_PERFMON: "perfmon"}
	for c, n := range names {
		if data[c/32].Permitted&(1<<(c%32)) != 0 {
			have = append(have, n)
		}
	}
	if data[0].Effective == data[0].Permitted && data[1].Effective == data[1].Permitted {
		return have, nil
	}
	data[0].Effective, data[1].Effective = data[0].Permitted, data[1].Permitted
	_, _, errno := syscall.AllThreadsSyscall(unix.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0)
	if errno != 0 {
		return have, fmt.Errorf("capset on all threads: %w", errno)
	}
	return have, nil
}

func capsSummary(have []string) string {
	if len(have) == 0 {
		return "none of net_bind_service, net_raw, net_admin, bpf, perfmon"
	}
	return strings.Join(have, ", ")
}
