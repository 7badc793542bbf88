package ndp

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"
)

// Errors of Resolve and of the Advertiser's State, matchable with errors.Is.
// The errors returned carry the interface name in their text.
var (
	// ErrNoNeighbor: no usable link-local neighbor on the interface yet
	// (the peer has not sent anything we heard, or not for a while).
	ErrNoNeighbor = errors.New("no IPv6 link-local neighbor")
	// ErrManyNeighbors: more than one usable link-local neighbor, so which
	// one is the peer cannot be told (an unnumbered link is point-to-point).
	ErrManyNeighbors = errors.New("more than one IPv6 link-local neighbor")
	// ErrNoInterface: the interface does not exist (in this network namespace).
	ErrNoInterface = errors.New("no such interface")
	// ErrNoLinkLocal: the interface has no usable link-local address yet
	// (none, or still tentative during duplicate address detection). The
	// Advertiser retries.
	ErrNoLinkLocal = errors.New("no usable IPv6 link-local address")
	// ErrDown: the interface is administratively down or has no carrier.
	ErrDown = errors.New("interface is down")
	// ErrUnsupported: this operating system is not Linux.
	ErrUnsupported = errors.New("ndp: not supported on this operating system (Linux only)")
)

// ifError is an error about one interface that matches its kind with errors.Is.
type ifError struct {
	kind error
	msg  string
	err  error // cause, may be nil
}

func (e *ifError) Error() string {
	if e.err != nil {
		return e.msg + ": " + e.err.Error()
	}
	return e.msg
}

func (e *ifError) Unwrap() []error {
	if e.err != nil {
		return []error{e.kind, e.err}
	}
	return []error{e.kind}
}

func ifErr(kind error, cause error, format string, args ...any) error {
	return &ifError{kind: kind, err: cause, msg: "ndp: " + fmt.Sprintf(format, args...)}
}

// DefaultInterval is how often an Advertiser sends an RA on each interface.
// FRR's zebra sends every 10 s on interfaces with unnumbered BGP neighbors.
const DefaultInterval = 10 * time.Second

// DefaultRetry is how soon an Advertiser tries again on an interface where
// the last attempt failed (no link-local address yet, down, ...), in case no
// kernel event says it became ready.
const DefaultRetry = time.Second

// Options configure an Advertiser; the zero value is the defaults.
type Options struct {
	// Interval between RAs on each interface (DefaultInterval if 0).
	Interval time.Duration
	// Retry after a failed attempt (DefaultRetry if 0, at most Interval).
	Retry time.Duration
}

func (o Options) withDefaults() Options {
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.Retry <= 0 {
		o.Retry = DefaultRetry
	}
	if o.Retry > o.Interval {
		o.Retry = o.Interval
	}
	return o
}

// IfState is what an Advertiser knows about one wanted interface.
type IfState struct {
	// Sent counts RAs sent on the interface since it was added.
	Sent uint64
	// LastSent is when the last RA was sent (zero: never).
	LastSent time.Time
	// Source is the link-local address the last RA was sent from.
	Source netip.Addr
	// LastAttempt is when an RA was last tried.
	LastAttempt time.Time
	// LastError is the error of the last attempt; nil when it succeeded.
	// It matches ErrNoInterface, ErrDown or ErrNoLinkLocal with errors.Is
	// for the usual transient reasons.
	LastError error
}

// neighbor is one entry of the kernel's neighbor table.
type neighbor struct {
	ifindex int32
	addr    netip.Addr // no zone
	lladdr  []byte
	state   uint16 // NUD_* bits
	flags   uint8  // NTF_* bits
}

// ifAddr is one address of an interface.
type ifAddr struct {
	ifindex uint32
	addr    netip.Addr
	prefix  uint8
	scope   uint8
	flags   uint32 // IFA_F_* (IFA_FLAGS when present)
}

// link is one interface.
type link struct {
	index  int32
	name   string
	flags  uint32 // IFF_*
	hwaddr []byte
}

// Neighbor states (NUD_*) and address flags, as in linux/neighbour.h and
// linux/if_addr.h; defined here so the pure code builds everywhere.
const (
	nudIncomplete = 0x01
	nudReachable  = 0x02
	nudStale      = 0x04
	nudDelay      = 0x08
	nudProbe      = 0x10
	nudFailed     = 0x20
	nudNoARP      = 0x40
	nudPermanent  = 0x80

	ifaFDADFailed = 0x08
	ifaFTentative = 0x40

	iffUp      = 0x1
	iffRunning = 0x40
)

// nudString names a neighbor state for error messages.
func nudString(s uint16) string {
	if s == 0 {
		return "NONE"
	}
	names := []string{"INCOMPLETE", "REACHABLE", "STALE", "DELAY", "PROBE", "FAILED", "NOARP", "PERMANENT"}
	var out []string
	for i, n := range names {
		if s&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return strings.Join(out, "|")
}

// usable reports whether a neighbor entry in state s counts as a peer.
//
// GoBGP counts every entry that is not NUD_FAILED. We also leave out
// NUD_INCOMPLETE and NUD_NONE: such an entry has no link-layer address, it
// only says that *we* tried to reach the address and nobody has answered
// (yet: INCOMPLETE turns FAILED after about 3 s). One stray packet to a
// wrong fe80:: address (a ping, a dial to a peer that left) would otherwise
// make the real peer ambiguous (ErrManyNeighbors) or, alone, be taken for
// the peer. TestIncompleteNotCounted shows the entry.
//
// NUD_NOARP is kept, as in GoBGP: on a link without neighbor discovery
// (IFF_NOARP: tun, GRE) every entry is NOARP, the real peer's too, so
// leaving them out would make unnumbered peers impossible there; Ethernet
// links, the ones fabrics use, have no NOARP unicast entries.
func usable(s uint16) bool {
	return s&(nudFailed|nudIncomplete) == 0 && s != 0
}

// pickNeighbor applies GoBGP's rule to the neighbors of interface ifindex:
// exactly one usable (see usable) link-local unicast neighbor that is not
// one of the interface's own addresses. The result has ifname as its zone.
func pickNeighbor(ifname string, ifindex int32, neighs []neighbor, own []ifAddr) (netip.Addr, error) {
	mine := map[netip.Addr]bool{}
	for _, a := range own {
		if int64(a.ifindex) == int64(ifindex) {
			mine[a.addr] = true
		}
	}
	var found []netip.Addr
	seen := map[netip.Addr]bool{}
	for _, n := range neighs {
		if n.ifindex != ifindex || !n.addr.Is6() || n.addr.Is4In6() || !n.addr.IsLinkLocalUnicast() {
			continue
		}
		if mine[n.addr] || !usable(n.state) || seen[n.addr] {
			continue
		}
		seen[n.addr] = true
		found = append(found, n.addr)
	}
	switch len(found) {
	case 0:
		return netip.Addr{}, ifErr(ErrNoNeighbor, nil, "no IPv6 link-local neighbor on %s yet", ifname)
	case 1:
		return found[0].WithZone(ifname), nil
	}
	list := make([]string, len(found))
	for i, a := range found {
		list[i] = a.String()
	}
	return netip.Addr{}, ifErr(ErrManyNeighbors, nil,
		"%d IPv6 link-local neighbors on %s (%s): an unnumbered link is point-to-point, so the peer cannot be told apart",
		len(found), ifname, strings.Join(list, ", "))
}

// pickSource returns the link-local address an RA on ifindex is sent from:
// the first link-local unicast address that is neither tentative nor
// failed duplicate address detection.
func pickSource(ifindex int32, addrs []ifAddr) (netip.Addr, bool) {
	for _, a := range addrs {
		if int64(a.ifindex) != int64(ifindex) || !a.addr.Is6() || !a.addr.IsLinkLocalUnicast() {
			continue
		}
		if a.flags&(ifaFTentative|ifaFDADFailed) != 0 {
			continue
		}
		return a.addr, true
	}
	return netip.Addr{}, false
}
