//go:build linux

package tcpsock

import (
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"time"

	"golang.org/x/sys/unix"
)

// DumpSocketKeys reports the TCP sockets of the caller's network namespace
// whose local or remote port is port (0: every TCP socket), IPv4 and IPv6,
// with the TCP-MD5 keys the kernel really holds on each, read with
// NETLINK_SOCK_DIAG (what `ss -tie` shows as md5keys). It covers sockets of
// every process, in every state that carries keys: listeners, connections
// (established, closing, ...) and bound sockets; TIME_WAIT and pending
// (SYN_RECV) connections are left out, the kernel reports no keys for them.
//
// The kernel gives keys only to a caller with CAP_NET_ADMIN and silently
// leaves them out otherwise. keysVisible says whether they were given: it
// is false when the calling thread lacks CAP_NET_ADMIN in its effective
// set, or when the kernel's replies show that it did not treat the caller
// as privileged (no INET_DIAG_MARK). When keysVisible is false, a socket
// without keys says nothing about its keys.
//
// A dump skips a socket whose report does not fit the kernel's dump buffer
// (and every socket after it): a socket with more than about 300 keys.
// DumpSocketKeys therefore dumps the connections with their keys, lists
// every socket without them, and asks for each listener (and any socket
// the keyed dump missed) individually. A socket with more than 655 keys
// gets an attribute whose 16-bit length the kernel wrapped; its true
// length is recovered (see md5SigLen).
//
// The netlink socket is opened on the calling goroutine's thread, which is
// locked for the call, so a caller that has joined another namespace on a
// locked thread (netns.Do) dumps that namespace. Errors never contain key
// material.
func DumpSocketKeys(port uint16) (socks []SocketKeys, keysVisible bool, err error) {
	return dumpSocketKeys(port, false)
}

// dumpSocketKeys is DumpSocketKeys; light lists only the listeners without
// keys (the keyless dump of every socket costs as much as the keyed one),
// so a connection the keyed dump could not fit is missed.
func dumpSocketKeys(port uint16, light bool) (socks []SocketKeys, keysVisible bool, err error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c, err := openDiag()
	if err != nil {
		return nil, false, dumpError(afInet, port, err)
	}
	defer c.close()
	keysVisible = hasNetAdmin()
	for _, family := range []uint8{afInet, afInet6} {
		list, err := c.sockets(family, port, light)
		if err != nil {
			return nil, false, dumpError(family, port, err)
		}
		socks = slices.Grow(socks, len(list))
		for _, d := range list {
			if !d.fullSock() || (port != 0 && d.Local.Port() != port && d.Remote.Port() != port) {
				continue
			}
			if !d.marked {
				keysVisible = false
			}
			socks = append(socks, d.SocketKeys)
		}
	}
	return socks, keysVisible, nil
}

func dumpError(family uint8, port uint16, err error) error {
	name := "AF_INET"
	if family == afInet6 {
		name = "AF_INET6"
	}
	on := fmt.Sprintf("on port %d", port)
	if port == 0 {
		on = "on any port"
	}
	return fmt.Errorf("tcpsock: sock_diag dump of %s sockets %s: %w", name, on, err)
}

// hasNetAdmin reports whether the calling thread has CAP_NET_ADMIN in its
// effective set.
func hasNetAdmin() bool {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return false
	}
	return data[unix.CAP_NET_ADMIN/32].Effective&(1<<(unix.CAP_NET_ADMIN%32)) != 0
}

const (
	diagRecvBuf   = 64 << 10 // the kernel fills dump datagrams up to ~32 KiB
	diagTimeout   = 5 * time.Second
	diagExtInfo   = 1 << (2 - 1) // 1 << (INET_DIAG_INFO-1): also turns on INET_DIAG_MD5SIG
	diagReqLen    = 56           // struct inet_diag_req_v2
	diagBytecode  = 1            // INET_DIAG_REQ_BYTECODE
	tcpSynRecv    = 3
	diagAllStates = ^uint32(0) &^ (1<<tcpTimeWait | 1<<tcpSynRecv | 1<<tcpNewSynRecv)
)

// diagConn is a NETLINK_SOCK_DIAG socket connected to the kernel.
type diagConn struct {
	fd     int
	seq    uint32
	buf    []byte
	exacts int // exact requests sent (a test's measure of a dump's cost)
}

func openDiag() (*diagConn, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		if errors.Is(err, unix.EPROTONOSUPPORT) || errors.Is(err, unix.EAFNOSUPPORT) {
			err = fmt.Errorf("%w (kernel without sock_diag?)", err)
		}
		return nil, fmt.Errorf("open NETLINK_SOCK_DIAG socket: %w", err)
	}
	c := &diagConn{fd: fd, buf: make([]byte, diagRecvBuf)}
	// Connected to the kernel (port 0), the socket accepts nothing from
	// other netlink sockets.
	if err := unix.Connect(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		c.close()
		return nil, fmt.Errorf("connect NETLINK_SOCK_DIAG socket: %w", err)
	}
	tv := unix.NsecToTimeval(diagTimeout.Nanoseconds())
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		c.close()
		return nil, fmt.Errorf("set NETLINK_SOCK_DIAG timeout: %w", err)
	}
	return c, nil
}

func (c *diagConn) close() {
	clear(c.buf)
	_ = unix.Close(c.fd)
}

// sockets returns the TCP sockets of family on port (0: all) with their
// keys. A keyed dump silently stops at a socket whose report does not fit
// the dump datagram (a listener with more than about 300 keys), and the
// kernel dumps listeners first: one big listener would hide every
// connection after it. So the keyed dump leaves the listeners out, a
// keyless dump (whose reports are small) lists every socket, and each one
// the keyed dump lacks (the listeners, and any connection it missed) is
// asked for individually: the kernel sizes an exact reply for the socket.
// A pass of the reconciler thus costs two dumps and one request per
// listener, however many sessions are up.
//
// With light, the keyless dump lists the listeners only (the kernel then
// walks only its listening hash): a light look costs one dump of the
// connections, and misses a connection whose report does not fit (more
// than ~300 keys, which no connection of ours carries).
func (c *diagConn) sockets(family uint8, port uint16, light bool) ([]diagSock, error) {
	// The keyless dump goes first for a second reason: reading it with a
	// large buffer makes the kernel allocate later dump datagrams of
	// ~32 KiB instead of one page.
	states := uint32(diagAllStates)
	if light {
		states = 1 << tcpListen
	}
	plain, err := c.dump(family, 0, port, states)
	if err != nil {
		return nil, err
	}
	keyed, err := c.dump(family, diagExtInfo, port, diagAllStates&^(1<<tcpListen))
	if err != nil {
		return nil, err
	}
	seen := make(map[uint64]bool, len(keyed))
	for _, d := range keyed {
		seen[d.cookie] = true
	}
	for _, p := range plain {
		if seen[p.cookie] || !p.fullSock() {
			continue
		}
		d, ok, err := c.exact(family, &p.id)
		if err != nil {
			return nil, fmt.Errorf("socket %s: %w", p.SocketKeys.describe(), err)
		}
		if ok { // else closed since
			keyed = append(keyed, d)
		}
	}
	return keyed, nil
}

func (s SocketKeys) describe() string {
	if s.Listening || !s.Remote.IsValid() {
		return s.Local.String()
	}
	return s.Local.String() + "->" + s.Remote.String()
}

// dump runs one SOCK_DIAG_BY_FAMILY dump of the TCP sockets of family in
// states (a bit per TCP state) with extensions ext, filtered by the kernel
// on port, and reads it to NLMSG_DONE.
func (c *diagConn) dump(family, ext uint8, port uint16, states uint32) ([]diagSock, error) {
	seq, err := c.send(family, ext, port, states, nil)
	if err != nil {
		return nil, err
	}
	var out []diagSock
	for {
		b, err := c.recv()
		if err != nil {
			return nil, err
		}
		var done bool
		out, done, err = parseDiag(out, b, seq, true)
		clear(b)
		if err != nil {
			return nil, err
		}
		if done {
			return out, nil
		}
	}
}

// exact asks for the one socket of family with inet_diag_sockid id (its
// cookie included), with its keys. ok is false if it no longer exists.
func (c *diagConn) exact(family uint8, id *[diagSockIDLen]byte) (d diagSock, ok bool, err error) {
	c.exacts++
	seq, err := c.send(family, diagExtInfo, 0, diagAllStates, id)
	if err != nil {
		return d, false, err
	}
	b, err := c.recv()
	if err != nil {
		return d, false, err
	}
	socks, _, err := parseDiag(nil, b, seq, true)
	clear(b)
	switch {
	case errors.Is(err, unix.ENOENT):
		return d, false, nil
	case err != nil:
		return d, false, err
	case len(socks) != 1 || socks[0].cookie != sockIDCookie(id[:]):
		return d, false, fmt.Errorf("%w: %d sockets in the reply to an exact request", errMalformed, len(socks))
	}
	return socks[0], true, nil
}

// send sends a request: a dump (id nil) of the sockets in states, filtered
// on port unless it is 0, or an exact request for the socket with id. It
// returns the sequence number.
func (c *diagConn) send(family, ext uint8, port uint16, states uint32, id *[diagSockIDLen]byte) (uint32, error) {
	ne := binary.NativeEndian
	c.seq++
	req := make([]byte, nlmsgHdrLen+diagReqLen)
	flags := uint16(unix.NLM_F_REQUEST)
	if id == nil {
		flags |= unix.NLM_F_DUMP
		if port != 0 {
			req = append(req, portFilter(port)...)
		}
	}
	ne.PutUint32(req[0:], uint32(len(req)))
	ne.PutUint16(req[4:], sockDiagByFamily)
	ne.PutUint16(req[6:], flags)
	ne.PutUint32(req[8:], c.seq)
	r := req[nlmsgHdrLen:]
	r[0], r[1], r[2] = family, unix.IPPROTO_TCP, ext
	ne.PutUint32(r[4:], states)
	if id != nil {
		copy(r[8:], id[:])
	}
	for {
		err := unix.Sendto(c.fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK})
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("send request: %w", err)
		}
		return c.seq, nil
	}
}

// portFilter returns an INET_DIAG_REQ_BYTECODE attribute accepting sockets
// with local port or remote port equal to port:
//
//	 0: S_GE port  yes 8 (next)  no 20 (-> 20)
//	 8: S_LE port  yes 8 (next)  no 12 (-> 20)
//	16: JMP        yes 4         no 20 (-> end: accept)
//	20: D_GE port  yes 8 (next)  no 20 (past the end: reject)
//	28: D_LE port  yes 8 (end)   no 12 (past the end: reject)
//
// Each comparison is an op and an operand op whose "no" is the port. The
// kernel requires every jump target to be on the chain of "yes" jumps
// (inet_diag_bc_audit), hence the JMP.
func portFilter(port uint16) []byte {
	const (
		bcJMP  = 1
		bcSGE  = 2
		bcSLE  = 3
		bcDGE  = 4
		bcDLE  = 5
		progSz = 36
	)
	ne := binary.NativeEndian
	b := make([]byte, 4, 4+progSz)
	ne.PutUint16(b[0:], 4+progSz)
	ne.PutUint16(b[2:], diagBytecode)
	op := func(code, yes uint8, no uint16) {
		b = append(b, code, yes, 0, 0)
		ne.PutUint16(b[len(b)-2:], no)
	}
	op(bcSGE, 8, 20)
	op(0, 0, port)
	op(bcSLE, 8, 12)
	op(0, 0, port)
	op(bcJMP, 4, 20)
	op(bcDGE, 8, 20)
	op(0, 0, port)
	op(bcDLE, 8, 12)
	op(0, 0, port)
	return b
}

// recv reads one datagram from the kernel, growing the buffer to fit it.
// The returned slice aliases c.buf; the caller clears it after use.
func (c *diagConn) recv() ([]byte, error) {
	for {
		// Peek first to learn the size. Reading with a large buffer also
		// makes the kernel fill later dump datagrams up to ~32 KiB.
		n, _, err := unix.Recvfrom(c.fd, c.buf, unix.MSG_PEEK|unix.MSG_TRUNC)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if errors.Is(err, unix.EAGAIN) {
			return nil, fmt.Errorf("no reply from the kernel within %v", diagTimeout)
		}
		if err != nil {
			return nil, fmt.Errorf("receive reply: %w", err)
		}
		if n > len(c.buf) {
			clear(c.buf)
			c.buf = make([]byte, n)
		}
		n, from, err := unix.Recvfrom(c.fd, c.buf, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("receive reply: %w", err)
		}
		if sa, ok := from.(*unix.SockaddrNetlink); !ok || sa.Pid != 0 {
			clear(c.buf[:n])
			continue // not from the kernel
		}
		return c.buf[:n], nil
	}
}
