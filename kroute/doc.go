// Package kroute is the kernel side of authbgpd's forwarding table: the
// routes of ours (protocol 186, `proto bgp`, metric 20) as values (Key,
// NextHop, Route), their rtnetlink codec (codec.go: pure, portable,
// fuzzed; one next hop as RTA_GATEWAY, or RTA_VIA for an IPv6 next hop of
// an IPv4 route (RFC 8950); several as RTA_MULTIPATH), and Kernel
// (kernel_linux.go, its own netlink sockets in the calling thread's
// network namespace): Write (replaces and deletes in batches, one error
// per route), Dump (every route of ours, all tables, filtered by the
// kernel), Resolve (how a table reaches an address) and Watch (the
// kernel's route notifications). Package fib reconciles GoBGP's best paths
// into the kernel with it. Imports nothing of ours.
package kroute
