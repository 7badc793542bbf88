package capture

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Capture is a live capture on one or more interfaces. Next must not be
// called concurrently with itself; Stats and Close may be called from any
// goroutine at any time.
type Capture struct {
	rings []ring
	// pfds polls the rings' sockets, then the wake-up eventfd (last).
	pfds []unix.PollFd
	efd  int

	closing atomic.Bool // set by Close; checked by Next between blocks

	// spec is what the rings' filters accept (SetHosts changes its hosts).
	spec filterSpec

	mu       sync.Mutex
	closed   bool // Close was called
	busy     bool // a Next is running: it releases the rings on return
	released bool // fds closed and rings unmapped
	stats    Stats

	unsupported atomic.Uint64
	linkErrors  atomic.Uint64
}

// ring is one socket and its memory-mapped TPACKET_V3 ring.
type ring struct {
	where     string // "interface eth0" or "all interfaces", for errors
	fd        int
	fr        framing // what the filter expects at the start of a frame
	mem       []byte
	blockSize int
	numBlocks int
	cur       int // next block to read
	c         *Capture
}

// Offsets in the TPACKET_V3 structures (linux/if_packet.h). They are the
// same on every architecture: all fields are naturally aligned.
const (
	// struct tpacket_block_desc: version, offset_to_priv, then
	// struct tpacket_hdr_v1.
	bdBlockStatus = 8
	bdNumPkts     = 12
	bdFirstPkt    = 16
	// struct tpacket3_hdr
	fhNextOffset = 0
	fhSec        = 4
	fhNsec       = 8
	fhSnaplen    = 12
	fhLen        = 16
	fhStatus     = 20
	fhMac        = 24
	fhVLANTCI    = 32
	fhVLANTPID   = 36
	fhSockaddr   = 48 // TPACKET_ALIGN(sizeof(struct tpacket3_hdr))
	// struct sockaddr_ll, after the frame header
	sllIfindex = fhSockaddr + 4
	sllHatype  = fhSockaddr + 8
	sllPkttype = fhSockaddr + 10
	sllEnd     = fhSockaddr + 20
)

var ne = binary.NativeEndian

// Open starts capturing. It needs CAP_NET_RAW in the calling thread's
// network namespace: the sockets belong to that namespace for their whole
// life, whichever thread reads them later.
func Open(opts Options) (*Capture, error) {
	if opts.Port == 0 {
		opts.Port = DefaultPort
	}
	if opts.BlockSize == 0 {
		opts.BlockSize = DefaultBlockSize
	}
	if opts.NumBlocks == 0 {
		opts.NumBlocks = DefaultNumBlocks
	}
	if opts.Timeout == 0 {
		opts.Timeout = DefaultTimeout
	}
	page := unix.Getpagesize()
	switch {
	case opts.BlockSize < 0 || opts.BlockSize%page != 0 || opts.BlockSize > 1<<30:
		return nil, fmt.Errorf("capture: BlockSize %d is not a multiple of the page size (%d) up to 1 GiB", opts.BlockSize, page)
	case opts.NumBlocks < 0 || opts.NumBlocks > 1<<16:
		return nil, fmt.Errorf("capture: NumBlocks %d out of range 1..65536", opts.NumBlocks)
	case opts.Timeout < 0:
		return nil, fmt.Errorf("capture: negative Timeout %v", opts.Timeout)
	}
	if n := uint64(opts.BlockSize) * uint64(opts.NumBlocks); n > 1<<40 || n > math.MaxInt {
		return nil, fmt.Errorf("capture: ring of %d x %d bytes is too large", opts.NumBlocks, opts.BlockSize)
	}

	hosts, err := hostSet(opts.Hosts)
	if err != nil {
		return nil, err
	}
	c := &Capture{efd: -1, spec: filterSpec{port: opts.Port, srv6: opts.SRv6, hosts: hosts}}
	names := opts.Interfaces
	if len(names) == 0 {
		names = []string{""}
	}
	seen := map[string]bool{}
	for _, name := range names {
		if seen[name] {
			continue
		}
		seen[name] = true
		if name == "" && len(opts.Interfaces) > 0 {
			c.release()
			return nil, errors.New("capture: empty interface name")
		}
		r, err := openRing(name, &opts, c.spec)
		if err != nil {
			c.release()
			return nil, err
		}
		r.c = c
		c.rings = append(c.rings, r)
	}
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		c.release()
		return nil, fmt.Errorf("capture: eventfd: %w", err)
	}
	c.efd = efd
	for _, r := range c.rings {
		c.pfds = append(c.pfds, unix.PollFd{Fd: int32(r.fd), Events: unix.POLLIN})
	}
	c.pfds = append(c.pfds, unix.PollFd{Fd: int32(efd), Events: unix.POLLIN})
	return c, nil
}

// OpenFanout opens n captures (see Open) whose rings share the frames: the
// rings of each interface form one PACKET_FANOUT group, and the kernel
// hands each frame to the ring a hash of its IP address pair picks (see
// buildFanout), the same ring for both directions. Each capture is read by
// its own goroutine, so n of them use up to n CPUs, and each reader sees
// every frame of the address pairs it owns, in order. n ≤ 1 is Open.
//
// Frames that arrive while the rings are being joined (microseconds) may
// land in the first capture whatever their hash.
func OpenFanout(opts Options, n int) ([]*Capture, error) {
	if n <= 1 {
		c, err := Open(opts)
		if err != nil {
			return nil, err
		}
		return []*Capture{c}, nil
	}
	if n > MaxFanout {
		return nil, fmt.Errorf("capture: fanout of %d rings, at most %d", n, MaxFanout)
	}
	prog := buildFanout()
	caps := make([]*Capture, 0, n)
	var groups []int // the fanout group of each interface (ring index)
	fail := func(err error) ([]*Capture, error) {
		for _, c := range caps {
			c.Close()
		}
		return nil, err
	}
	for i := range n {
		c, err := Open(opts)
		if err != nil {
			return fail(err)
		}
		caps = append(caps, c)
		for j := range c.rings {
			r := &c.rings[j]
			if i == 0 {
				id, err := newFanout(r.fd, prog)
				if err != nil {
					return fail(fmt.Errorf("%w: %s: %w", ErrFanout, r.where, err))
				}
				groups = append(groups, id)
				continue
			}
			if err := unix.SetsockoptInt(r.fd, unix.SOL_PACKET, unix.PACKET_FANOUT, groups[j]|unix.PACKET_FANOUT_CBPF<<16); err != nil {
				return fail(fmt.Errorf("%w: %s: joining group %d: %w", ErrFanout, r.where, groups[j], err))
			}
		}
	}
	return caps, nil
}

// newFanout makes the socket fd the first member of a new fanout group
// (the kernel picks an unused id) that distributes by the classic BPF
// program prog, and returns the group's id.
func newFanout(fd int, prog []instruction) (int, error) {
	if err := unix.SetsockoptInt(fd, unix.SOL_PACKET, unix.PACKET_FANOUT, (unix.PACKET_FANOUT_CBPF|unix.PACKET_FANOUT_FLAG_UNIQUEID)<<16); err != nil {
		return 0, err
	}
	v, err := unix.GetsockoptInt(fd, unix.SOL_PACKET, unix.PACKET_FANOUT)
	if err != nil {
		return 0, fmt.Errorf("reading the group id: %w", err)
	}
	if err := setFilter(fd, unix.SOL_PACKET, unix.PACKET_FANOUT_DATA, prog); err != nil {
		return 0, fmt.Errorf("PACKET_FANOUT_DATA: %w", err)
	}
	return v & 0xffff, nil
}

// openRing opens a packet socket on interface name ("" for all) with its
// filter (spec) and ring, and binds it.
func openRing(name string, o *Options, spec filterSpec) (r ring, err error) {
	where := "all interfaces"
	if name != "" {
		where = "interface " + name
	}
	// Protocol 0: the socket receives nothing until bind, so no frame
	// gets into its receive queue before the filter and the ring are in
	// place. (A non-empty receive queue would also make poll report the
	// socket readable forever.)
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) {
			return r, fmt.Errorf("%w: socket(AF_PACKET) for %s: %w", ErrPermission, where, err)
		}
		return r, fmt.Errorf("capture: socket(AF_PACKET) for %s: %w", where, err)
	}
	r = ring{where: where, fd: fd, blockSize: o.BlockSize, numBlocks: o.NumBlocks}
	defer func() {
		if err != nil {
			r.close()
		}
	}()

	ifindex, fr, err := ifaceOf(fd, name)
	if err != nil {
		return r, err
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_PACKET, unix.PACKET_VERSION, unix.TPACKET_V3); err != nil {
		return r, fmt.Errorf("capture: %s: PACKET_VERSION TPACKET_V3: %w", where, err)
	}
	r.fr = fr
	if err := attachFilter(fd, buildFilterSpec(fr, spec)); err != nil {
		return r, fmt.Errorf("capture: %s: SO_ATTACH_FILTER: %w", where, err)
	}
	if err := r.mapRing(o); err != nil {
		return r, fmt.Errorf("capture: %s: %w", where, err)
	}
	sa := &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_ALL), Ifindex: ifindex}
	if err := unix.Bind(fd, sa); err != nil {
		return r, fmt.Errorf("capture: %s: bind: %w", where, err)
	}
	return r, nil
}

// ifaceOf returns the index and link framing of interface name (0 and
// framingAny for "", all interfaces).
func ifaceOf(fd int, name string) (int, framing, error) {
	if name == "" {
		return 0, framingAny, nil
	}
	ifr, err := unix.NewIfreq(name)
	if err != nil {
		return 0, 0, fmt.Errorf("capture: interface %q: %w", name, err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFINDEX, ifr); err != nil {
		return 0, 0, fmt.Errorf("capture: interface %q: %w", name, err)
	}
	ifindex := int(ifr.Uint32())
	ifr, _ = unix.NewIfreq(name)
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFHWADDR, ifr); err != nil {
		return 0, 0, fmt.Errorf("capture: interface %q: device type: %w", name, err)
	}
	hatype := ifr.Uint16() // ifr_hwaddr.sa_family
	_, fr, ok := linkOf(hatype)
	if !ok {
		return 0, 0, fmt.Errorf("%w: interface %q has device type %d (ARPHRD_*)", ErrUnsupportedLink, name, hatype)
	}
	return ifindex, fr, nil
}

// attachFilter loads the classic BPF program prog onto fd.
func attachFilter(fd int, prog []instruction) error {
	return setFilter(fd, unix.SOL_SOCKET, unix.SO_ATTACH_FILTER, prog)
}

// setFilter passes the classic BPF program prog to socket option opt.
func setFilter(fd, level, opt int, prog []instruction) error {
	filter := make([]unix.SockFilter, len(prog))
	for i, in := range prog {
		filter[i] = unix.SockFilter{Code: in.Op, Jt: in.Jt, Jf: in.Jf, K: in.K}
	}
	fprog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	return unix.SetsockoptSockFprog(fd, level, opt, &fprog)
}

// mapRing sets up the TPACKET_V3 receive ring of r and maps it.
func (r *ring) mapRing(o *Options) error {
	tov := o.Timeout.Milliseconds()
	if tov < 1 {
		tov = 1
	}
	if tov > 1<<31 {
		tov = 1 << 31
	}
	req := unix.TpacketReq3{
		Block_size: uint32(o.BlockSize),
		Block_nr:   uint32(o.NumBlocks),
		// V3 frames are variable-sized; the kernel only checks that
		// frame_size*frame_nr matches the blocks.
		Frame_size:     uint32(o.BlockSize),
		Frame_nr:       uint32(o.NumBlocks),
		Retire_blk_tov: uint32(tov),
	}
	if err := unix.SetsockoptTpacketReq3(r.fd, unix.SOL_PACKET, unix.PACKET_RX_RING, &req); err != nil {
		return fmt.Errorf("PACKET_RX_RING (%d blocks of %d bytes): %w", o.NumBlocks, o.BlockSize, err)
	}
	mem, err := unix.Mmap(r.fd, 0, o.BlockSize*o.NumBlocks, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return fmt.Errorf("mmap ring: %w", err)
	}
	r.mem = mem
	return nil
}

func htons(v uint16) uint16 {
	var b [2]byte
	binary.BigEndian.PutUint16(b[:], v)
	return ne.Uint16(b[:])
}

func (r *ring) close() {
	if r.mem != nil {
		_ = unix.Munmap(r.mem)
		r.mem = nil
	}
	if r.fd >= 0 {
		_ = unix.Close(r.fd)
		r.fd = -1
	}
}

// Next waits until at least one ring block is ready, then calls fn for
// every frame of every ready block, releases the blocks to the kernel and
// returns nil. After Close it returns ErrClosed. A block is ready when it
// is full or Options.Timeout after its first frame.
//
// pkt.Data is valid only until fn returns. Next does not allocate.
func (c *Capture) Next(fn func(pkt Packet)) error { return c.NextBatch(fn, nil) }

// NextBatch is Next with b.Begin called before the first frame of each
// ring block and b.End after its last (b nil: none), so that what fn
// needs locked is locked once per block rather than once per frame.
func (c *Capture) NextBatch(fn func(pkt Packet), b Batcher) error {
	if err := c.enter(); err != nil {
		return err
	}
	defer c.leave()
	for {
		if c.closing.Load() {
			return ErrClosed
		}
		blocks := 0
		for i := range c.rings {
			blocks += c.rings[i].drain(fn, b)
		}
		if blocks > 0 {
			return nil
		}
		if _, err := unix.Poll(c.pfds, -1); err != nil {
			if err == unix.EINTR {
				continue
			}
			return fmt.Errorf("capture: poll: %w", err)
		}
		if c.pfds[len(c.pfds)-1].Revents != 0 {
			return ErrClosed
		}
		for i := range c.rings {
			if c.pfds[i].Revents&unix.POLLERR != 0 {
				// E.g. ENETDOWN: the interface went down. Reading
				// SO_ERROR clears it (or poll would spin); the kernel
				// hooks the socket up again when the interface
				// comes back.
				_, _ = unix.GetsockoptInt(c.rings[i].fd, unix.SOL_SOCKET, unix.SO_ERROR)
				c.linkErrors.Add(1)
			}
		}
	}
}

func (c *Capture) enter() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	if c.busy {
		return errors.New("capture: concurrent calls to Next")
	}
	c.busy = true
	return nil
}

func (c *Capture) leave() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.busy = false
	if c.closed {
		c.release()
	}
}

// drain hands the frames of every ready block to fn and returns the number
// of blocks it released.
func (r *ring) drain(fn func(Packet), b Batcher) int {
	n := 0
	for n < r.numBlocks {
		block := r.mem[r.cur*r.blockSize : (r.cur+1)*r.blockSize : (r.cur+1)*r.blockSize]
		status := (*uint32)(unsafe.Pointer(&block[bdBlockStatus]))
		if atomic.LoadUint32(status)&unix.TP_STATUS_USER == 0 {
			break
		}
		r.block(block, status, fn, b)
		r.cur++
		if r.cur == r.numBlocks {
			r.cur = 0
		}
		n++
	}
	return n
}

// block hands the frames of one block to fn, then gives the block back to
// the kernel (even if fn panics, so that the ring does not stall).
func (r *ring) block(block []byte, status *uint32, fn func(Packet), b Batcher) {
	defer atomic.StoreUint32(status, unix.TP_STATUS_KERNEL)
	if b != nil {
		b.Begin()
		defer b.End()
	}
	num := ne.Uint32(block[bdNumPkts:])
	off := int(ne.Uint32(block[bdFirstPkt:]))
	for range num {
		if off < 0 || off > len(block)-sllEnd {
			return // corrupt block: never seen, but never trust offsets
		}
		h := block[off:]
		snap := int(ne.Uint32(h[fhSnaplen:]))
		mac := int(ne.Uint16(h[fhMac:]))
		next := int(ne.Uint32(h[fhNextOffset:]))
		if mac > len(h) || snap > len(h)-mac {
			return
		}
		link, _, ok := linkOf(ne.Uint16(h[sllHatype:]))
		if ok {
			st := ne.Uint32(h[fhStatus:])
			wire := int(ne.Uint32(h[fhLen:]))
			p := Packet{
				Data:      h[mac : mac+snap : mac+snap],
				LinkType:  link,
				IfIndex:   int(int32(ne.Uint32(h[sllIfindex:]))),
				Outgoing:  h[sllPkttype] == unix.PACKET_OUTGOING,
				Time:      time.Unix(int64(ne.Uint32(h[fhSec:])), int64(ne.Uint32(h[fhNsec:]))),
				Length:    wire,
				Truncated: snap < wire,
			}
			if st&unix.TP_STATUS_VLAN_VALID != 0 {
				p.VLANValid = true
				p.VLANTCI = uint16(ne.Uint32(h[fhVLANTCI:]))
				if st&unix.TP_STATUS_VLAN_TPID_VALID != 0 {
					p.VLANTPID = ne.Uint16(h[fhVLANTPID:])
				}
			}
			fn(p)
		} else {
			r.c.unsupported.Add(1)
		}
		if next == 0 {
			return
		}
		off += next
	}
}

// Stats returns the counters since Open. The kernel resets its counters
// each time they are read; Stats adds them up. After Close it returns the
// final counts.
func (c *Capture) Stats() (Stats, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var err error
	if !c.released {
		err = c.collect()
	}
	s := c.stats
	s.Unsupported = c.unsupported.Load()
	s.LinkErrors = c.linkErrors.Load()
	return s, err
}

// collect adds the kernel's counters to c.stats. c.mu is held.
func (c *Capture) collect() error {
	var errs []error
	for i := range c.rings {
		r := &c.rings[i]
		st, err := unix.GetsockoptTpacketStatsV3(r.fd, unix.SOL_PACKET, unix.PACKET_STATISTICS)
		if err != nil {
			errs = append(errs, fmt.Errorf("capture: PACKET_STATISTICS: %w", err))
			continue
		}
		c.stats.Packets += uint64(st.Packets)
		c.stats.Drops += uint64(st.Drops)
		c.stats.FreezeQueue += uint64(st.Freeze_q_cnt)
	}
	return errors.Join(errs...)
}

// SetHosts replaces the set of host addresses c captures the segments of
// (see Options.Hosts; empty: every host again) on every socket of c, by
// attaching a new filter program to each (SO_ATTACH_FILTER once more): the
// kernel swaps a socket's program atomically, and the sockets, their rings,
// the frames already in them and the counters stay. Frames that reached a
// ring before the change are still delivered, whatever the new set says;
// with several sockets (interfaces) a frame arriving during the change
// (microseconds) may meet the old program on one socket and the new on
// another. If a socket refuses the new program, the ones already changed
// get the old one back and c keeps the old set. After Close it returns
// ErrClosed.
func (c *Capture) SetHosts(hosts []netip.Addr) error {
	set, err := hostSet(hosts)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	next := c.spec
	next.hosts = set
	for i := range c.rings {
		r := &c.rings[i]
		if err := attachFilter(r.fd, buildFilterSpec(r.fr, next)); err != nil {
			for j := range i {
				_ = attachFilter(c.rings[j].fd, buildFilterSpec(c.rings[j].fr, c.spec))
			}
			return fmt.Errorf("capture: %s: SO_ATTACH_FILTER: %w", r.where, err)
		}
	}
	c.spec = next
	return nil
}

// InterfaceName returns the name of interface ifindex (Packet.IfIndex) in
// the network namespace c captures in (the one its sockets were made in,
// whichever thread asks). It may be called from Next's callback. After
// Close it returns ErrClosed.
func (c *Capture) InterfaceName(ifindex int) (string, error) {
	if ifindex <= 0 || ifindex > math.MaxInt32 {
		return "", fmt.Errorf("capture: interface index %d", ifindex)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.released || len(c.rings) == 0 {
		return "", ErrClosed
	}
	ifr, err := unix.NewIfreq("")
	if err != nil {
		return "", err
	}
	ifr.SetUint32(uint32(ifindex))
	if err := unix.IoctlIfreq(c.rings[0].fd, unix.SIOCGIFNAME, ifr); err != nil {
		return "", fmt.Errorf("capture: interface index %d: %w", ifindex, err)
	}
	return ifr.Name(), nil
}

// Hosts returns the host set c captures (empty: every host).
func (c *Capture) Hosts() []netip.Addr {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.spec.hosts)
}

// Close stops the capture. A Next blocked waiting for frames returns
// ErrClosed at once; if a Next is running (Close may even be called from
// its callback), the rings are unmapped and the sockets closed when it
// returns, otherwise before Close returns.
func (c *Capture) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	c.closing.Store(true)
	err := c.collect()
	var one [8]byte
	ne.PutUint64(one[:], 1)
	if _, werr := unix.Write(c.efd, one[:]); werr != nil && err == nil {
		err = fmt.Errorf("capture: waking the reader: %w", werr)
	}
	if !c.busy {
		c.release()
	}
	return err
}

// release unmaps the rings and closes the sockets. c.mu is held (or c is
// not shared yet).
func (c *Capture) release() {
	if c.released {
		return
	}
	c.released = true
	for i := range c.rings {
		c.rings[i].close()
	}
	if c.efd >= 0 {
		_ = unix.Close(c.efd)
		c.efd = -1
	}
}
