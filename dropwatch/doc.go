// Package dropwatch turns the kernel's own TCP-MD5/TCP-AO drop counters
// (package kdrops: cumulative counts per source address and reason) into
// what operators see: per-peer counts and a diagnosis in /status
// (status.Peer.KernelDrops, status.Status.KernelDrops), the metric
// authbgpd_peer_kernel_drops_total{peer,reason}, and a rate-limited log
// line per address whose count moves.
//
// # Counting
//
// A Watcher polls its Source (a *kdrops.Counter) every Options.Interval
// and keeps, per (address, reason), the last cumulative count it saw; what
// grew since is a delta, attributed with the running config:
//
//   - an IPv6 link-local address goes by its interface, with the peer
//     index's one owner rule (peerindex.Owners.Lookup): kdrops gives the ifindex it came in
//     on, Options.IfName (net.InterfaceByIndex in the daemon's namespace;
//     cached, looked up again after a Reload, a failure a Window later)
//     names it, and the interface peer of that interface gets the drops
//     under its ID (the interface name; /status and logs show
//     fe80::2%eth1). Without an interface peer there they go by the
//     address, as any other (a numbered peer at that link-local address,
//     or a range, else Other); without a known interface (ifindex 0, or a
//     name lookup that failed) they are drops of no peer (Other). Never
//     another interface's peer's. On an interface in a VRF the kernel
//     gives the VRF device's ifindex (see kdrops.Key), which names no
//     interface peer;
//   - an address that is a static peer's address goes to that peer;
//   - otherwise the most specific dynamic-neighbor range containing it
//     gets it, under the range's ID, and the address keeps its own counts
//     as a session of the range (/status shows each session);
//   - anything else (no configured peer, or the kdrops overflow slot whose
//     address was not recorded, the zero netip.Addr) adds to the
//     namespace-level Other total.
//
// Counts start at 0 when the daemon starts: the Source's counts are taken
// as counted since then, so the daemon must open the kdrops.Counter at
// start-up, right before New, and the first Poll counts everything the
// Source holds. A Source opened long before the Watcher (a pinned map, a
// restarted Watcher) is used with Options.Baseline: the first successful
// Poll then only records the Source's counts. A count that goes down (the
// Source was reopened) counts as new from 0.
//
// Counts are kept by peer ID. A reload (Reload) that removes a peer drops
// its counts and its metric series; configured again, it starts at 0. A
// peer kept keeps its counts; a range forgets the sessions that now belong
// to another peer (its own sum, a counter, stays).
//
// # Diagnosis
//
// The kernel's verdict for a peer is the reason with the most drops in the
// last Window (one minute), ties going to the reason that moved last, then
// to the first in kdrops.Reasons order: bad-digest, missing, unexpected,
// bad-option, and for TCP-AO bad-mac (ao_bad), unknown-key
// (ao_key_not_found), missing (ao_required). It is "" once nothing moved
// for a Window.
//
// # Unavailable
//
// When kdrops.Open failed (no kernel BTF, a kernel older than 6.7, no
// CAP_BPF and CAP_PERFMON), New gets a nil Source and the error: the
// Watcher logs one warning, Merge sets only status.Status.KernelDrops
// (available false, the error), no peer gets kernel_drops and the metric
// has no series. Nothing else of the daemon depends on it.
//
// # Wiring (the daemon)
//
// Start does the daemon's part (start.go): it opens the kdrops.Counter in
// the calling thread's namespace, makes the Watcher (OnDrops telling the
// on-demand shadow capture, through DemandReason, when demand is given) and
// polls until Stop, which closes the counter.
//
//	d := dropwatch.Start(idx, log, demand)         // at start-up, in the daemon's netns
//	m.Read(metrics.Readers{PeerKernelDrops: d.MetricSeries, ...}) // once
//	// reload: d.Reload(next) after the peers manager applied next
//	// GET /status: d.Merge(&st) after st.Peers is filled (before or after shadow.MergeStatus)
//	_ = d.Stop()                                  // at shutdown
//
// # The namespace's counters
//
// Namespace (namespace.go) is the other kernel view, with no peer named:
// the TcpExt TCP-MD5 and TCP-AO counters of the daemon's namespace
// (tcpsock.KernelCounters, its TCP-AO part aocount.Counts), as /status
// kernel (since the namespace was made, and since the daemon started) and
// the metrics authbgpd_kernel_tcp_md5_drops_total and
// authbgpd_kernel_tcp_ao_segments_total.
package dropwatch
