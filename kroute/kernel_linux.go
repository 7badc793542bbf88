//go:build linux

package kroute

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Kernel reads and writes the routes of ours in the routing tables of the
// network namespace it was opened in, through two rtnetlink sockets of its
// own (codec.go encodes and parses): one for requests, one for Watch. Its
// methods are safe for concurrent use (requests are serialized).
type Kernel struct {
	mu     sync.Mutex
	req    *nlSocket
	strict bool // the kernel filters dumps by protocol
	batch  int  // requests per sendmsg: their acks fit the receive buffer
	seq    uint32
	wbuf   []byte
	rbuf   []byte
	sent   []int32 // the op index of each request of a batch
	acked  []bool
	// lastDump is the number of routes the last Dump found.
	lastDump int

	watchMu sync.Mutex
	watch   *nlSocket // nil once Watch ran or Close
	closed  bool
}

// Socket buffer sizes. The request socket's receive buffer holds the acks
// of a batch (the kernel queues them all before sendmsg returns, and drops
// what does not fit); the watch socket's holds a burst of notifications (a
// full table's worth of our own writes, at ~1 KiB of buffer each, would
// need more: it overflows, and Watch says so with a Lost event).
const (
	reqRcvBuf   = 4 << 20
	reqSndBuf   = 1 << 20
	watchRcvBuf = 32 << 20
	maxBatch    = 512
	// ackTruesize is what one ack costs in a receive buffer (an skb and
	// its data), with room for an extended ack's message.
	ackTruesize = 2048
	// maxBatchBytes bounds a batch's requests (one sendmsg).
	maxBatchBytes = 256 << 10
	// recvTimeout bounds each wait for the kernel.
	recvTimeout = 30 * time.Second
	// dumpTries: a dump the kernel marks interrupted (the table changed
	// under it) is done again this many times in all.
	dumpTries = 3
)

// Route notification groups (linux/rtnetlink.h).
const (
	rtnlgrpIPv4Route = 7
	rtnlgrpIPv6Route = 11
)

// OpenKernel opens the sockets in the calling thread's network namespace.
func OpenKernel() (*Kernel, error) {
	req, err := openSocket(reqRcvBuf, reqSndBuf)
	if err != nil {
		return nil, fmt.Errorf("fib: open route netlink socket: %w", err)
	}
	w, err := openSocket(watchRcvBuf, 0)
	if err != nil {
		req.close()
		return nil, fmt.Errorf("fib: open route netlink socket: %w", err)
	}
	k := &Kernel{req: req, watch: w, rbuf: make([]byte, 64<<10)}
	// Best effort: without them errors lack the kernel's message, and
	// dumps are filtered here rather than in the kernel.
	_ = req.setInt(unix.SOL_NETLINK, unix.NETLINK_EXT_ACK, 1)
	_ = req.setInt(unix.SOL_NETLINK, unix.NETLINK_CAP_ACK, 1)
	k.strict = req.setInt(unix.SOL_NETLINK, unix.NETLINK_GET_STRICT_CHK, 1) == nil
	rcv, err := req.getInt(unix.SOL_SOCKET, unix.SO_RCVBUF)
	if err != nil {
		k.Close()
		return nil, fmt.Errorf("fib: route netlink socket: %w", err)
	}
	k.batch = min(maxBatch, max(1, rcv/ackTruesize))
	return k, nil
}

// Close closes the sockets (and ends a Watch).
func (k *Kernel) Close() error {
	k.watchMu.Lock()
	if k.watch != nil {
		k.watch.close()
		k.watch = nil
	}
	k.closed = true
	k.watchMu.Unlock()
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.req == nil {
		return nil
	}
	err := k.req.close()
	k.req = nil
	return err
}

var errClosed = errors.New("fib: the kernel connection is closed")

// Write does ops in order, in batches (many requests per sendmsg, each
// acked), and sets errs[i] to the error of ops[i] or nil; errs must be as
// long as ops. A refused op does not stop the others. Each error names
// the op and wraps the kernel's errno (errors.Is(err, unix.ENETUNREACH));
// a delete of a route that is not there wraps ErrNotFound.
func (k *Kernel) Write(ops []Op, errs []error) {
	errs = errs[:len(ops)]
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.req == nil {
		for i, op := range ops {
			errs[i] = opErr(op, errClosed)
		}
		return
	}
	for i := 0; i < len(ops); {
		k.wbuf, k.sent = k.wbuf[:0], k.sent[:0]
		base := k.seq + 1
		for ; i < len(ops) && len(k.sent) < k.batch && len(k.wbuf) < maxBatchBytes; i++ {
			b, err := appendOp(k.wbuf, ops[i], base+uint32(len(k.sent)))
			if err != nil {
				errs[i] = opErr(ops[i], err)
				continue
			}
			errs[i] = nil
			k.wbuf = b
			k.sent = append(k.sent, int32(i))
		}
		k.seq = base + uint32(len(k.sent))
		if len(k.sent) > 0 {
			k.writeBatch(ops, errs, base)
		}
	}
}

// writeBatch sends the requests in k.wbuf (sequence numbers base, base+1,
// ...; k.sent their ops) and reads their acks.
func (k *Kernel) writeBatch(ops []Op, errs []error, base uint32) {
	fail := func(err error) {
		for j, i := range k.sent {
			if !k.acked[j] {
				errs[i] = opErr(ops[i], err)
			}
		}
	}
	k.acked = append(k.acked[:0], make([]bool, len(k.sent))...)
	if err := k.req.send(k.wbuf); err != nil {
		fail(fmt.Errorf("send: %w", err))
		return
	}
	pending, lost := len(k.sent), false
	for pending > 0 {
		n, err := k.req.recv(k.rbuf, !lost)
		switch {
		case errors.Is(err, unix.ENOBUFS):
			// Acks were dropped: take what is queued, then fail the rest.
			lost = true
			continue
		case lost && errors.Is(err, unix.EAGAIN):
			fail(errors.New("the kernel's ack was lost (receive buffer overflow): the outcome is unknown"))
			return
		case err != nil:
			fail(err)
			return
		}
		for b := k.rbuf[:n]; len(b) > 0; {
			typ, flags, seq, body, rest, ok := nextMessage(b)
			if !ok {
				break
			}
			b = rest
			j := seq - base
			if typ != nlmsgError || j >= uint32(len(k.sent)) || k.acked[j] {
				continue // not an ack of this batch (a stale answer)
			}
			errno, _, msg, ok := parseAck(body, flags)
			if !ok {
				continue
			}
			k.acked[j] = true
			pending--
			if errno != 0 {
				i := k.sent[j]
				errs[i] = opErr(ops[i], &kernelError{errno: unix.Errno(errno), msg: msg})
			}
		}
	}
}

// opErr wraps err with op: ErrNotFound too for a delete of a route that is
// not there (ESRCH).
func opErr(op Op, err error) error {
	if op.Delete && errors.Is(err, unix.ESRCH) {
		return fmt.Errorf("fib: %s: %w: %w", op, ErrNotFound, err)
	}
	return fmt.Errorf("fib: %s: %w", op, err)
}

// kernelError is an error ack: the errno and the kernel's message.
type kernelError struct {
	errno unix.Errno
	msg   string
}

func (e *kernelError) Error() string {
	if e.msg != "" {
		return e.errno.Error() + " (" + e.msg + ")"
	}
	return e.errno.Error()
}

func (e *kernelError) Unwrap() error { return e.errno }

// Dump returns every route of ours (protocol, type unicast, metric; not
// the kernel's cached clones), IPv4 and IPv6, of every table.
func (k *Kernel) Dump() ([]Route, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	// Room for as many as the last dump found (a large slice grown by
	// append would be copied many times).
	out := make([]Route, 0, k.lastDump+k.lastDump/8)
	start := 0
	err := k.each(func(r Route) { out = append(out, r) },
		func(retry bool) {
			if retry {
				out = out[:start] // the family again: drop its first read
			}
			start = len(out)
		}, false)
	if err != nil {
		return nil, err
	}
	k.lastDump = len(out)
	return out, nil
}

// Each calls fn with every route of ours, as Dump lists them, without
// keeping them (a full table is read in the memory of a few batches of
// messages). A family's dump the kernel marks inconsistent is read again,
// so fn may see a route twice. The route's NextHops may be reused after
// fn returns.
func (k *Kernel) Each(fn func(Route)) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.each(fn, nil, true)
}

// each reads both families' routes of ours into fn; family is called
// before each read of a family (retry true when it is read again after
// the kernel marked it inconsistent); with reuse, the next hops' memory is
// reused after each fn. The caller holds k.mu.
func (k *Kernel) each(fn func(Route), family func(retry bool), reuse bool) error {
	if k.req == nil {
		return fmt.Errorf("fib: dump routes: %w", errClosed)
	}
	arena := make([]NextHop, 0, 8192)
	if reuse {
		inner := fn
		fn = func(r Route) {
			inner(r)
			arena = arena[:0]
		}
	}
	for _, fam := range []uint8{afInet, afInet6} {
		for try := 1; ; try++ {
			if family != nil {
				family(try > 1)
			}
			intr, err := k.dump(fam, fn, &arena)
			if err != nil {
				return fmt.Errorf("fib: dump routes: %w", err)
			}
			if !intr {
				break
			}
			if try == dumpTries {
				return fmt.Errorf("fib: dump routes: interrupted %d times by changes", dumpTries)
			}
		}
	}
	return nil
}

// dump calls fn with the routes of ours of family fam; intr reports that
// the kernel marked the dump inconsistent.
func (k *Kernel) dump(fam uint8, fn func(Route), arena *[]NextHop) (intr bool, err error) {
	k.seq++
	seq := k.seq
	proto := uint8(0)
	if k.strict {
		proto = Protocol
	}
	if err := k.req.send(appendDumpRequest(k.wbuf[:0], fam, proto, seq)); err != nil {
		return false, fmt.Errorf("send: %w", err)
	}
	for {
		n, err := k.req.recv(k.rbuf, true)
		if err != nil {
			return false, err
		}
		for b := k.rbuf[:n]; len(b) > 0; {
			typ, flags, mseq, body, rest, ok := nextMessage(b)
			if !ok {
				break
			}
			b = rest
			if mseq != seq {
				continue
			}
			intr = intr || flags&nlmFDumpIntr != 0
			switch typ {
			case nlmsgDone:
				if len(body) >= 4 && int32(ne.Uint32(body)) < 0 {
					return intr, &kernelError{errno: unix.Errno(-int32(ne.Uint32(body)))}
				}
				return intr, nil
			case nlmsgError:
				if errno, _, msg, ok := parseAck(body, flags); ok && errno != 0 {
					return intr, &kernelError{errno: unix.Errno(errno), msg: msg}
				}
			case rtmNewRoute:
				if len(body) < rtmsgLen || body[5] != Protocol {
					continue // filtered cheaply: not ours
				}
				if cap(*arena)-len(*arena) < maxNextHops {
					*arena = make([]NextHop, 0, 8192)
				}
				r, m, ok := parseRoute(body, arena)
				if ok && m.ours() {
					fn(r)
				}
			}
		}
	}
}

// Resolve returns how table reaches addr, as the kernel's own lookup
// finds it (`ip route get ADDR [vrf V]`): the gateway (addr itself when it
// is on a connected network) and the output device. The main table is
// looked up as the kernel forwards (its rules); another table through the
// VRF device of that table (the kernel has no lookup in a table by
// number). No route, a route that does not forward (unreachable,
// blackhole, prohibit, local), or a table no VRF device has, is an error
// wrapping ErrUnreachable.
func (k *Kernel) Resolve(table uint32, addr netip.Addr) (NextHop, error) {
	what := fmt.Sprintf("fib: resolve %s in table %d", addr, table)
	if !addr.IsValid() || addr.Zone() != "" || addr.Is4In6() {
		return NextHop{}, fmt.Errorf("%s: not an unzoned IPv4 or IPv6 address", what)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.req == nil {
		return NextHop{}, fmt.Errorf("%s: %w", what, errClosed)
	}
	oif := 0
	if table != MainTable {
		var err error
		if oif, err = k.vrfOfTable(table); err != nil {
			return NextHop{}, fmt.Errorf("%s: %w", what, err)
		}
		if oif == 0 {
			return NextHop{}, fmt.Errorf("%s: %w: no VRF device has the table", what, ErrUnreachable)
		}
	}
	if k.strict {
		// Strict checking refuses an RTA_OIF with RTM_F_LOOKUP_TABLE on
		// some kernels: the question goes unchecked.
		if err := k.req.setInt(unix.SOL_NETLINK, unix.NETLINK_GET_STRICT_CHK, 0); err != nil {
			return NextHop{}, fmt.Errorf("%s: %w", what, err)
		}
		defer k.req.setInt(unix.SOL_NETLINK, unix.NETLINK_GET_STRICT_CHK, 1)
	}
	var nh NextHop
	var rerr error
	err := k.request(appendGetRequest(k.wbuf[:0], oif, addr, k.nextSeq()), func(typ uint16, body []byte) bool {
		if typ != rtmNewRoute {
			return false
		}
		r, m, ok := parseRoute(body, nil)
		switch {
		case !ok:
			rerr = errors.New("malformed answer")
		case m.Type != rtnUnicast:
			rerr = fmt.Errorf("%w: a route of type %d", ErrUnreachable, m.Type)
		case r.Table != table:
			rerr = fmt.Errorf("%w: the kernel's lookup found a route in table %d", ErrUnreachable, r.Table)
		case len(r.NextHops) != 1 || r.NextHops[0].Ifindex == 0:
			rerr = fmt.Errorf("the answer has no single next hop: %s", r)
		default:
			nh = r.NextHops[0]
			if !nh.Gateway.IsValid() {
				nh.Gateway = addr // on a connected network
			}
		}
		return true
	})
	if err != nil {
		var kerr *kernelError
		if errors.As(err, &kerr) {
			switch kerr.errno {
			case unix.ENETUNREACH, unix.EHOSTUNREACH, unix.EACCES, unix.EINVAL:
				// EACCES: a prohibit route; EINVAL: a blackhole.
				return NextHop{}, fmt.Errorf("%s: %w: %w", what, ErrUnreachable, err)
			}
		}
		return NextHop{}, fmt.Errorf("%s: %w", what, err)
	}
	if rerr != nil {
		return NextHop{}, fmt.Errorf("%s: %w", what, rerr)
	}
	return nh, nil
}

func (k *Kernel) nextSeq() uint32 {
	k.seq++
	return k.seq
}

// request sends req (its sequence number k.seq) and hands each answer of
// that sequence number to fn until fn returns true, the end of a dump, or
// an error ack (returned as a *kernelError).
func (k *Kernel) request(req []byte, fn func(typ uint16, body []byte) bool) error {
	seq := k.seq
	if err := k.req.send(req); err != nil {
		return fmt.Errorf("send: %w", err)
	}
	for {
		n, err := k.req.recv(k.rbuf, true)
		if err != nil {
			return err
		}
		for b := k.rbuf[:n]; len(b) > 0; {
			typ, flags, mseq, body, rest, ok := nextMessage(b)
			if !ok {
				break
			}
			b = rest
			switch {
			case mseq != seq:
			case typ == nlmsgDone:
				return nil
			case typ == nlmsgError:
				if errno, _, msg, ok := parseAck(body, flags); ok && errno != 0 {
					return &kernelError{errno: unix.Errno(errno), msg: msg}
				}
				return nil
			case fn(typ, body):
				return nil
			}
		}
	}
}

// vrfOfTable returns the ifindex of the VRF device of table (0: none).
func (k *Kernel) vrfOfTable(table uint32) (int, error) {
	found := 0
	err := k.request(appendLinkDumpRequest(k.wbuf[:0], k.nextSeq()), func(typ uint16, body []byte) bool {
		if typ == rtmNewLink && found == 0 {
			if i, t, ok := parseVRF(body); ok && t == table {
				found = i
			}
		}
		return false
	})
	if err != nil {
		return 0, fmt.Errorf("list VRF devices: %w", err)
	}
	return found, nil
}

// Watch calls fn with each route notification of the kernel (IPv4 and
// IPv6, every table, anyone's route), and with Event{Lost: true} when
// notifications were lost; it returns when ctx ends (ctx.Err()) or on a
// socket error. It may run once per Kernel; fn runs on Watch's goroutine.
func (k *Kernel) Watch(ctx context.Context, fn func(Event)) error {
	k.watchMu.Lock()
	w := k.watch
	k.watch = nil
	closed := k.closed
	k.watchMu.Unlock()
	if w == nil {
		if closed {
			return fmt.Errorf("fib: watch routes: %w", errClosed)
		}
		return errors.New("fib: watch routes: Watch runs once per Kernel")
	}
	defer w.close()
	for _, g := range []int{rtnlgrpIPv4Route, rtnlgrpIPv6Route} {
		if err := w.setInt(unix.SOL_NETLINK, unix.NETLINK_ADD_MEMBERSHIP, g); err != nil {
			return fmt.Errorf("fib: watch routes: join group %d: %w", g, err)
		}
	}
	stop := context.AfterFunc(ctx, func() { _ = w.f.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	buf := make([]byte, 64<<10)
	for {
		n, err := w.recvNoDeadline(buf)
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.Is(err, unix.ENOBUFS):
			fn(Event{Lost: true})
			continue
		case err != nil:
			return fmt.Errorf("fib: watch routes: %w", err)
		}
		for b := buf[:n]; len(b) > 0; {
			typ, _, _, body, rest, ok := nextMessage(b)
			if !ok {
				break
			}
			b = rest
			if typ != rtmNewRoute && typ != rtmDelRoute {
				continue
			}
			r, m, ok := parseRoute(body, nil)
			if !ok || m.Flags&rtmFCloned != 0 {
				continue
			}
			fn(Event{Deleted: typ == rtmDelRoute, Protocol: m.Protocol, Type: m.Type, Metric: m.Metric, Route: r})
		}
	}
}

// nlSocket is a NETLINK_ROUTE socket on the runtime's poller (so a
// deadline or a close ends a wait).
type nlSocket struct {
	f  *os.File
	rc syscall.RawConn
}

// openSocket opens and binds a socket in the calling thread's network
// namespace, with the given buffer sizes (0: the default; forced beyond
// the sysctl limits when allowed, CAP_NET_ADMIN).
func openSocket(rcvbuf, sndbuf int) (*nlSocket, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, unix.NETLINK_ROUTE)
	if err != nil {
		return nil, err
	}
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("bind: %w", err)
	}
	for _, o := range []struct{ force, opt, v int }{{unix.SO_RCVBUFFORCE, unix.SO_RCVBUF, rcvbuf}, {unix.SO_SNDBUFFORCE, unix.SO_SNDBUF, sndbuf}} {
		if o.v > 0 && unix.SetsockoptInt(fd, unix.SOL_SOCKET, o.force, o.v) != nil {
			_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, o.opt, o.v)
		}
	}
	f := os.NewFile(uintptr(fd), "netlink")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, err
	}
	return &nlSocket{f: f, rc: rc}, nil
}

func (s *nlSocket) close() error { return s.f.Close() }

func (s *nlSocket) setInt(level, opt, v int) error {
	var err error
	if cerr := s.rc.Control(func(fd uintptr) { err = unix.SetsockoptInt(int(fd), level, opt, v) }); cerr != nil {
		return cerr
	}
	return err
}

func (s *nlSocket) getInt(level, opt int) (int, error) {
	var v int
	var err error
	if cerr := s.rc.Control(func(fd uintptr) { v, err = unix.GetsockoptInt(int(fd), level, opt) }); cerr != nil {
		return 0, cerr
	}
	return v, err
}

// send sends b (one or more requests) to the kernel in one sendmsg.
func (s *nlSocket) send(b []byte) error {
	var err error
	if werr := s.rc.Write(func(fd uintptr) bool {
		_, err = unix.Write(int(fd), b)
		return err != unix.EAGAIN
	}); werr != nil {
		return werr
	}
	return err
}

// recv reads the next datagram from the kernel into b, waiting up to
// recvTimeout when wait (else EAGAIN when none is queued). Datagrams of
// anyone else (a process may send to our port) are dropped.
func (s *nlSocket) recv(b []byte, wait bool) (int, error) {
	if !wait {
		return s.read(b, false)
	}
	if err := s.f.SetReadDeadline(time.Now().Add(recvTimeout)); err != nil {
		return 0, err
	}
	n, err := s.read(b, true)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return 0, fmt.Errorf("no answer from the kernel in %v: %w", recvTimeout, err)
	}
	return n, err
}

// recvNoDeadline is recv without a deadline of its own (Watch's: it
// waits until a notification or its context's end).
func (s *nlSocket) recvNoDeadline(b []byte) (int, error) { return s.read(b, true) }

func (s *nlSocket) read(b []byte, wait bool) (int, error) {
	var n int
	var err error
	for {
		rerr := s.rc.Read(func(fd uintptr) bool {
			var from unix.Sockaddr
			n, from, err = unix.Recvfrom(int(fd), b, 0)
			if err == unix.EAGAIN && wait {
				return false
			}
			if err == nil {
				if sa, ok := from.(*unix.SockaddrNetlink); !ok || sa.Pid != 0 {
					n = -1 // not from the kernel
				}
			}
			return true
		})
		if rerr != nil {
			return 0, rerr
		}
		if err != nil || n >= 0 {
			return n, err
		}
	}
}
