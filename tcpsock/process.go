package tcpsock

// ProcessSockets puts TCP-MD5 and TCP-AO keys on the BGP sockets of this
// process — GoBGP's listeners and connections, which no exported API
// hands out — through a look at them (Look, Scan: the kernel's own view,
// DumpSocketKeys, and one walk of /proc/self/fd), and keys its dialing
// sockets (DialMD5, DialAO). It has no state: the zero value is ready to
// use. On systems other than Linux every method returns ErrNotSupported.
//
// The address family rule (which listener must carry which key) lives
// here: an IPv4 key belongs on AF_INET listeners and an IPv6 key on
// AF_INET6 ones; an IPv4 key is also put, as a v4-mapped address, on
// AF_INET6 listeners, which may be dual-stack, but a failure there does
// not count (GoBGP's "::" listener is IPv6-only: IPv4 peers never reach
// it).
type ProcessSockets struct{}

// Observed is what the kernel says about this process's BGP sockets.
type Observed struct {
	// KeysVisible is false when the kernel hides TCP-MD5 keys from this
	// process (no CAP_NET_ADMIN): then Keys are empty and prove nothing.
	KeysVisible bool
	// Sockets are the listeners on the BGP port and the connections to or
	// from it, with the keys the kernel holds on each.
	Sockets []SocketKeys
}

// ownOnly keeps the sockets whose inode is in own and wipes the secrets of
// the others (another process's keys are not this process's to hold).
func ownOnly(socks []SocketKeys, own map[uint64]bool) []SocketKeys {
	out := socks[:0] // in place: socks is the caller's to give up
	for _, s := range socks {
		if own[s.Inode] {
			out = append(out, s)
			continue
		}
		for _, k := range s.Keys {
			k.Secret.Wipe()
		}
	}
	return out
}
