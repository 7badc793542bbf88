//go:build !linux

// Package tcpsocktest makes the kernel refuse TCP-MD5 keys on real
// sockets, for fail-closed tests. It needs Linux (network namespaces and
// net.core.optmem_max); elsewhere it is empty.
package tcpsocktest
