// Package tcpsock is the socket side of both TCP authentication options:
// TCP-MD5 (RFC 2385) and TCP-AO (RFC 5925). It holds every key operation
// on this process's sockets, for either option, so that one package owns
// every key the kernel holds for us. The codecs are elsewhere: TCP-MD5's
// digest, options and key scopes in package md5auth, TCP-AO's KDFs,
// traffic keys and MACs in package tcpao.
//
// TCP-MD5:
//   - installing keys on listening, connected and dialing sockets
//     (TCP_MD5SIG_EXT: install_linux.go, dial_linux.go DialMD5) and reading
//     back the keys the kernel holds (sock_diag: diag.go, diag_linux.go);
//   - the namespace's TcpExt TCP-MD5 drop counters (kernelcounters.go).
//
// TCP-AO (its socket options' structs encoded by hand, portable and
// layout-tested in ao.go; the syscalls in ao_linux.go):
//   - master key tuples (AOKey) added to and deleted from a socket
//     (TCP_AO_ADD_KEY, TCP_AO_DEL_KEY) and read back (TCP_AO_GET_KEYS,
//     every key of a socket);
//   - the socket's current key and RNextKeyID, and its segment counters
//     (TCP_AO_INFO; the counters are aocount.Counts);
//   - the per-peer operations on this process's listeners and connections
//     (a Scan's SetListenerAO, DeleteListenerAO, DeleteListenerAOScope,
//     SetConnAO, ObserveAO; process_ao*.go) and on a socket about to dial
//     (dial_linux.go DialAO);
//   - the kernel feature probe (CheckTCPAO) and the namespace's TcpExt
//     TCPAO* counters (kernelcounters.go, KernelCounters.AO).
//
// Both: finding this process's BGP sockets (the one /proc/self/fd walker,
// sockets_linux.go), the multipath-TCP check (CheckListener) and the
// kernel preconditions (precond.go, features*.go). ProcessSockets is what
// the peers manager needs, TCP-MD5 and TCP-AO alike: its Look (a Scan,
// scan*.go: one sock_diag dump and one /proc/self/fd walk) carries every
// key operation on this process's BGP sockets, the listeners' link-local
// guards included; beside it, the preflights, the dial hooks and the
// TCP-AO algorithm probe. Installing keys and discovering sockets
// that other code in the process owns (GoBGP's listeners and connections)
// live in *_linux.go files; on other systems those functions return
// ErrNotSupported. Package tcpsocktest makes the kernel refuse keys, for
// fail-closed tests.
//
// L3 (VRF) scopes, for both options (scope_linux.go): Key.IfIndex and
// AOKey.IfIndex / AOSet.IfIndex scope a key to a VRF device
// (TCP_MD5SIG_FLAG_IFINDEX, TCP_AO_KEYF_IFINDEX) on listeners, connections
// and dialing sockets alike; a scoped and an unscoped key for one address
// are two keys, each set, found and deleted on its own. An ifindex the
// kernel refuses (not a VRF, or gone) is ErrScope and nothing is installed
// instead. The read-back differs: TCP_AO_GET_KEYS reports an MKT's scope
// (ObservedAOKey.IfIndex, Scoped; a different one is not a match), sock_diag
// reports no TCP-MD5 key's (ObservedKey.Matches compares address and
// secret only; see SocketKeys).
//
// Secrets are held in keys.Secret, which never formats its contents.
package tcpsock
