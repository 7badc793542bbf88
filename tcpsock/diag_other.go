//go:build !linux

package tcpsock

// DumpSocketKeys reports TCP sockets and the TCP-MD5 keys the kernel holds
// on them. It needs Linux (NETLINK_SOCK_DIAG): elsewhere it returns
// ErrNotSupported.
func DumpSocketKeys(port uint16) (socks []SocketKeys, keysVisible bool, err error) {
	return nil, false, ErrNotSupported
}
