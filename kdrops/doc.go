// Package kdrops counts the kernel's own TCP-MD5 and TCP-AO drop verdicts,
// per peer address and reason, for the calling thread's network namespace
// only.
//
// Since Linux 6.7 the kernel fires a tracepoint each time it drops an
// inbound segment for authentication (include/trace/events/tcp.h, called
// from tcp_inbound_hash, tcp_inbound_md5_hash and the TCP-AO verifier):
// tcp_hash_md5_mismatch, tcp_hash_md5_required, tcp_hash_md5_unexpected,
// tcp_hash_bad_header, tcp_hash_ao_required, tcp_ao_handshake_failure and,
// with CONFIG_TCP_AO, tcp_ao_wrong_maclen, tcp_ao_mismatch and
// tcp_ao_key_not_found. Each call sits next to the TcpExt counter it
// explains (TCPMD5Failure, TCPMD5NotFound, TCPMD5Unexpected, TCPAOBad,
// TCPAOKeyNotFound, TCPAORequired), but where that counter only says how
// many, this package says from whom: one small eBPF program per tracepoint
// (written with cilium/ebpf's asm package, no C compiler) keeps a count per
// (source address, Reason) in a BPF hash map. Drops of other network
// namespaces are ignored: each program compares the socket's netns cookie
// with the one of the namespace Open was called in.
//
// An IPv6 link-local source address names a peer only with its interface
// (fe80::2 on eth1 and fe80::2 on eth2 are two unnumbered peers), so for
// those the key also holds the interface the segment came in on
// (Key.IfIndex, the skb's skb_iif; the tracepoint itself records only the
// l3index). That part is optional: a kernel whose BTF lacks
// sk_buff.skb_iif, or whose verifier refuses the read, counts such drops
// with IfIndex 0 and Counter.IfIndexErr says why.
//
// Struct offsets (struct sock, struct net, struct sk_buff, including
// sk_buff.skb_iif) come from the running kernel's BTF, never from
// headers, so one binary runs on every kernel from 6.7 on that has
// CONFIG_DEBUG_INFO_BTF (/sys/kernel/btf/vmlinux). A tracepoint is
// attached when the kernel's BTF has its btf_trace_<name> typedef; the AO
// tracepoints are optional (kernels without CONFIG_TCP_AO lack some of
// them), the MD5 ones are required.
//
// Programs are raw tracepoints, attached by name with
// BPF_RAW_TRACEPOINT_OPEN: no tracefs or debugfs mount is needed, which
// containers rarely have. Loading needs CAP_BPF and CAP_PERFMON (or
// CAP_SYS_ADMIN) in the initial user namespace; without them Open fails
// with an error matching ErrPermission. Statistics (EnableStats) need
// CAP_SYS_ADMIN. No RLIMIT_MEMLOCK change is needed: every kernel with these
// tracepoints charges BPF memory to the memory cgroup (Linux 5.11+).
//
// Nothing runs on the good path: a tracepoint fires only when the kernel
// drops a segment, so healthy sessions cost nothing (RunCount stays 0).
package kdrops
