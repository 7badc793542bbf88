package ndp

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Advertiser sends IPv6 Router Advertisements on a set of interfaces (see
// the package documentation). Its methods are safe for concurrent use.
//
// Its sockets belong to the network namespace of the thread that called
// NewAdvertiser, for its whole life.
type Advertiser struct {
	opts Options

	icmp   int      // raw ICMPv6 socket
	rt     *rtnl    // requests; used by run only
	events *os.File // rtnetlink link and IPv6 address notifications

	setc  chan []string
	kickc chan string
	quit  chan struct{}
	wg    sync.WaitGroup
	once  sync.Once

	mu    sync.Mutex
	state map[string]IfState
}

// NewAdvertiser opens the sockets (this needs CAP_NET_RAW) and starts an
// Advertiser with no interfaces; Set gives it some. Close stops it.
func NewAdvertiser(opts Options) (*Advertiser, error) {
	a := &Advertiser{
		opts:  opts.withDefaults(),
		icmp:  -1,
		setc:  make(chan []string),
		kickc: make(chan string, 16),
		quit:  make(chan struct{}),
		state: map[string]IfState{},
	}
	var err error
	if a.icmp, err = openICMP(); err != nil {
		return nil, err
	}
	if a.rt, err = dialRTNL(); err != nil {
		unix.Close(a.icmp)
		return nil, err
	}
	if a.events, err = openEvents(); err != nil {
		a.rt.close()
		unix.Close(a.icmp)
		return nil, err
	}
	evc := make(chan []byte, 64)
	a.wg.Add(2)
	go a.read(evc)
	go a.run(evc)
	return a, nil
}

// openICMP opens the raw ICMPv6 socket RAs are sent on: hop limit 255 (RFC
// 4861 receivers drop NDP packets with any other), no loopback of our own
// multicast, and a filter that blocks every incoming ICMPv6 message (we never
// read, so nothing may queue up).
func openICMP() (int, error) {
	fd, err := unix.Socket(unix.AF_INET6, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.IPPROTO_ICMPV6)
	if err != nil {
		return -1, fmt.Errorf("ndp: ICMPv6 raw socket (needs CAP_NET_RAW): %w", err)
	}
	var filt unix.ICMPv6Filter
	for i := range filt.Data {
		filt.Data[i] = ^uint32(0) // a set bit blocks that type
	}
	for _, o := range []struct {
		name string
		set  func() error
	}{
		{"ICMP6_FILTER", func() error { return unix.SetsockoptICMPv6Filter(fd, unix.IPPROTO_ICMPV6, unix.ICMPV6_FILTER, &filt) }},
		{"IPV6_MULTICAST_HOPS", func() error { return unix.SetsockoptInt(fd, unix.IPPROTO_IPV6, unix.IPV6_MULTICAST_HOPS, 255) }},
		{"IPV6_UNICAST_HOPS", func() error { return unix.SetsockoptInt(fd, unix.IPPROTO_IPV6, unix.IPV6_UNICAST_HOPS, 255) }},
		{"IPV6_MULTICAST_LOOP", func() error { return unix.SetsockoptInt(fd, unix.IPPROTO_IPV6, unix.IPV6_MULTICAST_LOOP, 0) }},
	} {
		if err := o.set(); err != nil {
			unix.Close(fd)
			return -1, fmt.Errorf("ndp: ICMPv6 socket %s: %w", o.name, err)
		}
	}
	return fd, nil
}

// openEvents subscribes to link and IPv6 address changes, on a non-blocking
// socket wrapped in an os.File so that Close wakes a blocked Read.
func openEvents() (*os.File, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, unix.NETLINK_ROUTE)
	if err != nil {
		return nil, fmt.Errorf("ndp: rtnetlink socket: %w", err)
	}
	groups := uint32(1<<(unix.RTNLGRP_LINK-1) | 1<<(unix.RTNLGRP_IPV6_IFADDR-1))
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK, Groups: groups}); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("ndp: rtnetlink subscribe: %w", err)
	}
	return os.NewFile(uintptr(fd), "rtnetlink-events"), nil
}

// read forwards notification datagrams to run until the socket is closed.
// A lost notification (ENOBUFS) only delays a send to the next retry.
func (a *Advertiser) read(evc chan<- []byte) {
	defer a.wg.Done()
	buf := make([]byte, 1<<16)
	for {
		n, err := a.events.Read(buf)
		if err != nil {
			if errors.Is(err, unix.ENOBUFS) || errors.Is(err, unix.EINTR) {
				continue
			}
			return // closed
		}
		select {
		case evc <- append([]byte(nil), buf[:n]...):
		case <-a.quit:
			return
		}
	}
}

// Set makes ifnames the whole set of interfaces to advertise on: new ones
// get an RA at once, ones not named any more are dropped (with their state).
func (a *Advertiser) Set(ifnames []string) {
	cp := append([]string(nil), ifnames...)
	select {
	case a.setc <- cp:
	case <-a.quit:
	}
}

// Kick sends an RA on ifname now, if it is in the set.
func (a *Advertiser) Kick(ifname string) {
	select {
	case a.kickc <- ifname:
	case <-a.quit:
	}
}

// State returns the state of every interface in the set.
func (a *Advertiser) State() map[string]IfState {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make(map[string]IfState, len(a.state))
	for k, v := range a.state {
		out[k] = v
	}
	return out
}

// Close stops the Advertiser and waits for its goroutines; it sends nothing
// more (no final RA: lifetime 0 already says we are not a router to use).
func (a *Advertiser) Close() error {
	a.once.Do(func() {
		close(a.quit)
		a.events.Close() // wakes read
		a.wg.Wait()
		a.rt.close()
		unix.Close(a.icmp)
	})
	return nil
}

// ifc is run's record of one wanted interface.
type ifc struct {
	next  time.Time // when to try next
	index int32     // from the last lookup, 0 if none
	up    bool      // up and running at the last lookup or event
	ok    bool      // the last attempt sent an RA
}

func (a *Advertiser) run(evc <-chan []byte) {
	defer a.wg.Done()
	ifs := map[string]*ifc{}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		now := time.Now()
		for name, c := range ifs {
			if !c.next.After(now) {
				a.attempt(name, c)
			}
		}
		wait := time.Hour
		for _, c := range ifs {
			if d := time.Until(c.next); d < wait {
				wait = d
			}
		}
		timer.Reset(max(wait, 0))
		select {
		case <-a.quit:
			return
		case names := <-a.setc:
			want := map[string]bool{}
			for _, n := range names {
				want[n] = true
				if ifs[n] == nil {
					ifs[n] = &ifc{next: time.Now()}
				}
			}
			a.mu.Lock()
			for n := range ifs {
				if !want[n] {
					delete(ifs, n)
					delete(a.state, n)
				} else if _, ok := a.state[n]; !ok {
					a.state[n] = IfState{}
				}
			}
			a.mu.Unlock()
		case n := <-a.kickc:
			if c := ifs[n]; c != nil {
				c.next = time.Now()
			}
		case b := <-evc:
			a.event(ifs, b)
		case <-timer.C:
		}
	}
}

// event reacts to a notification: an interface that came up (or appeared
// up) or an interface that got an address while the last attempt on it
// failed is tried at once.
func (a *Advertiser) event(ifs map[string]*ifc, b []byte) {
	d, _ := parseDump(b) // use what parsed; a bad message only delays
	now := time.Now()
	for _, l := range d.links {
		c := ifs[l.name]
		if c == nil {
			continue
		}
		up := l.flags&(iffUp|iffRunning) == iffUp|iffRunning
		if up && (!c.up || !c.ok) {
			c.next = now
		}
		c.up = up
		c.index = l.index
	}
	for _, ad := range d.addrs {
		for _, c := range ifs {
			if !c.ok && c.index != 0 && int64(c.index) == int64(ad.ifindex) {
				c.next = now
			}
		}
	}
}

// attempt sends one RA on name and records the outcome.
func (a *Advertiser) attempt(name string, c *ifc) {
	now := time.Now()
	src, err := a.send(name, c)
	c.ok = err == nil
	if c.ok {
		c.next = now.Add(a.opts.Interval)
	} else {
		c.next = now.Add(a.opts.Retry)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	st := a.state[name]
	st.LastAttempt, st.LastError = now, err
	if err == nil {
		st.Sent++
		st.LastSent, st.Source = now, src
	}
	a.state[name] = st
}

// send looks the interface up afresh (it may have been re-created) and
// sends an RA from its link-local address.
func (a *Advertiser) send(name string, c *ifc) (netip.Addr, error) {
	l, err := a.rt.linkByName(name)
	if err != nil {
		c.index, c.up = 0, false
		return netip.Addr{}, err
	}
	c.index = l.index
	c.up = l.flags&(iffUp|iffRunning) == iffUp|iffRunning
	if !c.up {
		return netip.Addr{}, ifErr(ErrDown, nil, "%s is down (or has no carrier)", name)
	}
	addrs, err := a.rt.addrs(l.index)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("ndp: addresses of %s: %w", name, err)
	}
	src, ok := pickSource(l.index, addrs)
	if !ok {
		return netip.Addr{}, ifErr(ErrNoLinkLocal, nil, "no usable IPv6 link-local address on %s yet (none, or tentative during duplicate address detection)", name)
	}
	msg := encodeRA(l.hwaddr)
	if err := sendFrom(a.icmp, msg, src, l.index); err != nil {
		return netip.Addr{}, fmt.Errorf("ndp: send RA on %s from %s: %w", name, src, err)
	}
	return src, nil
}

// allNodes is ff02::1.
var allNodes = [16]byte{0xff, 0x02, 15: 1}

// sendFrom sends msg to ff02::1 on ifindex with source address src (an
// IPV6_PKTINFO control message), so one socket serves every interface.
func sendFrom(fd int, msg []byte, src netip.Addr, ifindex int32) error {
	pi := unix.Inet6Pktinfo{Addr: src.As16(), Ifindex: uint32(ifindex)}
	oob := make([]byte, unix.CmsgSpace(unix.SizeofInet6Pktinfo))
	h := (*unix.Cmsghdr)(unsafe.Pointer(&oob[0]))
	h.Level, h.Type = unix.IPPROTO_IPV6, unix.IPV6_PKTINFO
	h.SetLen(unix.CmsgLen(unix.SizeofInet6Pktinfo))
	copy(oob[unix.CmsgLen(0):], unsafe.Slice((*byte)(unsafe.Pointer(&pi)), unix.SizeofInet6Pktinfo))
	to := &unix.SockaddrInet6{Addr: allNodes, ZoneId: uint32(ifindex)}
	for {
		err := unix.Sendmsg(fd, msg, oob, to, 0)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}
