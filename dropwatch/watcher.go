package dropwatch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/kdrops"
	"github.com/authbgp/authbgpd/peerindex"
)

// Defaults of Options.
const (
	DefaultInterval = time.Second
	DefaultLogEvery = time.Minute
)

// ErrUnavailable: the Watcher has no Source (kdrops.Open failed).
var ErrUnavailable = errors.New("kernel drop counters unavailable")

// Source is where the counts come from; *kdrops.Counter is one. Read
// calls fn for every non-zero counter: n drops of k.Reason from k.Addr
// (for an IPv6 link-local address, arriving on interface k.IfIndex; 0:
// unknown), in total (cumulative, not since the last Read); the zero addr
// holds drops whose address was not recorded.
type Source interface {
	Read(fn func(k kdrops.Key, n uint64)) error
}

// tracepointer is the optional part of a Source that names what it counts
// (*kdrops.Counter has it).
type tracepointer interface{ Tracepoints() []string }

// misser is the optional part of a Source that counts the drops it could
// not count: the runs of its programs the kernel skipped, per reason,
// cumulative (*kdrops.Counter has it).
type misser interface {
	Missed() (map[kdrops.Reason]uint64, error)
}

// ifIndexer is the optional part of a Source that says why link-local
// drops come without their interface (*kdrops.Counter has it).
type ifIndexer interface{ IfIndexErr() error }

// Options tune a Watcher; the zero value is the defaults.
type Options struct {
	// Interval is how often Run polls the Source (default 1 s).
	Interval time.Duration
	// LogEvery is the per-address log rate limit (default 60 s): at most
	// one line per address per LogEvery, the next one summing what was
	// held back.
	LogEvery time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
	// OnDrops, when set, is called after each Poll for every (address,
	// reason) whose count moved, with the growth: peerID is the peer the
	// drops were counted for ("" for an address of no configured peer; the
	// zero address is never reported). It runs on the polling goroutine,
	// outside the Watcher's lock, and must not block.
	OnDrops func(peerID string, addr netip.Addr, r kdrops.Reason, delta uint64)
	// Baseline: the first successful Poll only records the Source's
	// counts, for a Source opened long before the Watcher (see the package
	// doc). Without it everything the Source counted is counted.
	Baseline bool
	// IfName names the interface of an ifindex, the zone of a link-local
	// address (default: net.InterfaceByIndex, in the calling thread's
	// network namespace: the daemon's). Names are cached (see ifNames).
	IfName func(ifindex int) (string, error)
}

// Watcher keeps the kernel's drops per peer. Its methods are safe for
// concurrent use.
type Watcher struct {
	src         Source // nil: unavailable
	unavailable string // the /status error when src is nil
	openErr     error
	tracepoints []string
	log         *logrus.Entry
	o           Options

	pollMu  sync.Mutex // one Poll at a time; guards buf and ifNames
	buf     []reading
	ifNames map[uint32]ifName
	ifGen   uint64 // bumped by Reload: the cached names are looked up again
	ifSeen  uint64 // the ifGen ifNames was filled in

	mu      sync.Mutex
	index   *peerindex.Index
	peers   map[string]*peerState // by peer ID
	last    map[kdrops.Key]uint64 // the Source's counts at the last Poll
	other   uint64
	logs    map[netip.Addr]*logState
	polled  bool   // a Poll succeeded
	readErr string // the last Poll's read error, "" when it succeeded
	// missed: the drops the kernel did not let the Source count (its
	// skipped program runs) since the first Poll (with Baseline) or since
	// the Source opened; missedAt is the Source's total at the last Poll.
	missed, missedAt uint64
	missedErr        bool // reading them failed (logged once)
}

// reading is one counter of a Read: key as read, addr the address it is
// attributed by (a link-local one zoned with its interface's name when
// that is known).
type reading struct {
	key  kdrops.Key
	addr netip.Addr
	r    kdrops.Reason
	n    uint64
}

// ifName is a cached interface name ("" with at: the lookup failed then,
// tried again a Window later).
type ifName struct {
	name string
	at   time.Time
}

// peerState is one configured peer's drops.
type peerState struct {
	id      string
	mode    string // config.AuthMD5, AuthTCPAO, AuthNone
	dynamic bool
	tally   // the peer's drops; a range's: the sum of its sessions
	// sessions are a range's addresses with drops (nil for static peers).
	sessions map[netip.Addr]*tally
}

// attribute returns the ID of the peer addr belongs to ("" for none) and
// whether that is a range, by the peer index's one rule
// (peerindex.Owners.Lookup), with what only dropwatch knows: a link-local
// address without a zone came without its interface (kdrops could not
// name it), and any interface's peer may have it, so it is no peer's.
func attribute(x *peerindex.Index, addr netip.Addr) (id string, dynamic bool) {
	if addr.Is6() && addr.IsLinkLocalUnicast() && addr.Zone() == "" {
		return "", false
	}
	p := x.Owner(addr)
	if p == nil {
		return "", false
	}
	return p.ID, p.IsDynamic()
}

// New returns a Watcher of x's peers (x nil: none) counting from src. src nil means
// the counters are unavailable and openErr says why (kdrops.Open's
// error): the Watcher then logs that once, Merge reports it, and nothing
// else happens. log may be nil.
func New(x *peerindex.Index, src Source, openErr error, log *logrus.Entry, o Options) *Watcher {
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.LogEvery <= 0 {
		o.LogEvery = DefaultLogEvery
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.IfName == nil {
		o.IfName = interfaceName
	}
	if log == nil {
		l := logrus.New()
		l.SetOutput(io.Discard)
		log = logrus.NewEntry(l)
	}
	w := &Watcher{src: src, log: log, o: o, last: map[kdrops.Key]uint64{}, logs: map[netip.Addr]*logState{}}
	if src == nil {
		w.openErr = openErr
		w.unavailable = unavailableText(openErr)
		l := log
		if openErr != nil {
			l = l.WithError(openErr)
		}
		l.Warn(w.unavailable + "; /status and the metrics have no per-peer kernel drops, nothing else is affected")
	} else {
		if tp, ok := src.(tracepointer); ok {
			w.tracepoints = tp.Tracepoints()
		}
		if ii, ok := src.(ifIndexer); ok {
			if err := ii.IfIndexErr(); err != nil {
				log.WithError(err).Warn("kernel drop counters: link-local drops come without their interface, " +
					"so no interface peer gets them (they count as drops of no peer); every other peer's are counted as before")
			}
		}
	}
	w.reload(x)
	return w
}

// unavailableText is the /status error for openErr.
func unavailableText(err error) string {
	const prefix = "kernel drop counters unavailable: "
	switch {
	case err == nil:
		return prefix + "not opened"
	case errors.Is(err, kdrops.ErrPermission):
		return prefix + "needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN): operation not permitted"
	}
	return prefix + strings.TrimPrefix(err.Error(), "kdrops: ")
}

// Available reports whether the Watcher has a Source.
func (w *Watcher) Available() bool { return w.src != nil }

// Reload makes the Watcher attribute drops with x's peers from now on.
// A peer x no longer has loses its counts (and its metric series); a
// peer kept keeps them.
func (w *Watcher) Reload(x *peerindex.Index) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.reload(x)
}

func (w *Watcher) reload(x *peerindex.Index) {
	if x == nil {
		x = peerindex.New(nil)
	}
	w.index = x
	w.ifGen++ // interfaces may have been renamed or made since
	old := w.peers
	w.peers = map[string]*peerState{}
	for i := range x.Peers() {
		p := &x.Peers()[i]
		id := p.ID
		if id == "" {
			continue
		}
		ps := old[id]
		if ps == nil || ps.dynamic != p.IsDynamic() {
			ps = &peerState{id: id, dynamic: p.IsDynamic()}
		}
		ps.mode = p.Mode
		if ps.dynamic {
			for a := range ps.sessions {
				if got, _ := attribute(x, a); got != id {
					delete(ps.sessions, a)
				}
			}
		}
		w.peers[id] = ps
	}
}

// Run polls every Interval (the first time at once) until ctx is done. It
// returns at once when the Watcher is unavailable.
func (w *Watcher) Run(ctx context.Context) {
	if w.src == nil {
		return
	}
	t := time.NewTicker(w.o.Interval)
	defer t.Stop()
	for {
		_ = w.Poll()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// drop is one OnDrops call.
type drop struct {
	peer string
	addr netip.Addr
	r    kdrops.Reason
	n    uint64
}

// Poll reads the Source once and counts what grew. A read error keeps the
// last counts (Merge reports the error until a Poll succeeds).
func (w *Watcher) Poll() error {
	if w.src == nil {
		if w.openErr != nil {
			return fmt.Errorf("%w: %w", ErrUnavailable, w.openErr)
		}
		return ErrUnavailable
	}
	w.pollMu.Lock()
	defer w.pollMu.Unlock()
	now := w.o.Now()
	w.mu.Lock()
	gen := w.ifGen
	w.mu.Unlock()
	if gen != w.ifSeen {
		clear(w.ifNames)
		w.ifSeen = gen
	}
	w.buf = w.buf[:0]
	err := w.src.Read(func(k kdrops.Key, n uint64) {
		w.buf = append(w.buf, reading{key: k, addr: w.zoned(k, now), r: k.Reason, n: n})
	})

	missed, missErr := w.readMissed()

	w.mu.Lock()
	if err != nil {
		first := w.readErr == ""
		w.readErr = "kernel drop counters: read: " + strings.TrimPrefix(err.Error(), "kdrops: ")
		w.mu.Unlock()
		if first {
			w.log.WithError(err).Warn("kernel drop counters: read failed; the last counts stay")
		}
		return err
	}
	recovered := w.readErr != ""
	w.readErr = ""
	var drops []drop
	if w.o.Baseline && !w.polled {
		for _, rd := range w.buf {
			w.last[rd.key] = rd.n
		}
	} else {
		drops = w.count(now)
	}
	rise, missLog := w.countMissed(missed, missErr)
	w.polled = true
	lines := w.flushLogs(now)
	w.mu.Unlock()

	switch {
	case missLog && missErr != nil:
		w.log.WithError(missErr).Warn("kernel drop counters: cannot read how many runs the kernel skipped; counts may be short unseen")
	case rise > 0:
		w.log.WithField("skipped", rise).WithField("skipped_total", missed).
			Warn("kernel drop counters: the kernel skipped runs of the counting programs (its per-CPU recursion guard); per-peer counts are short by up to that many drops")
	}

	if recovered {
		w.log.Info("kernel drop counters: read again")
	}
	for _, l := range lines {
		l.emit(w.log)
	}
	if w.o.OnDrops != nil {
		for _, d := range drops {
			w.o.OnDrops(d.peer, d.addr, d.r, d.n)
		}
	}
	return nil
}

// readMissed returns the Source's skipped runs, all reasons summed (0
// without the optional interface).
func (w *Watcher) readMissed() (uint64, error) {
	m, ok := w.src.(misser)
	if !ok {
		return 0, nil
	}
	byReason, err := m.Missed()
	if err != nil {
		return 0, err
	}
	var n uint64
	for _, v := range byReason {
		n += v
	}
	return n, nil
}

// countMissed records the Source's skipped runs (total) after a
// successful Read and returns their rise since the last Poll, and whether
// a failure to read them is new (to be logged once). Called with w.mu.
func (w *Watcher) countMissed(total uint64, err error) (rise uint64, newErr bool) {
	if err != nil {
		newErr, w.missedErr = !w.missedErr, true
		return 0, newErr
	}
	w.missedErr = false
	if w.o.Baseline && !w.polled {
		w.missedAt = total
		return 0, false
	}
	if total > w.missedAt {
		rise = total - w.missedAt
	}
	w.missedAt = total
	w.missed += rise
	return rise, false
}

// count attributes the growth of w.buf's counters since the last Poll and
// returns it for OnDrops (addresses only).
func (w *Watcher) count(now time.Time) []drop {
	var drops []drop
	for _, rd := range w.buf {
		if !valid(rd.r) {
			continue
		}
		prev := w.last[rd.key]
		w.last[rd.key] = rd.n
		d := rd.n - prev
		if rd.n < prev { // the Source restarted: counted anew from 0
			d = rd.n
		}
		if d == 0 {
			continue
		}
		id, dynamic := attribute(w.index, rd.addr)
		ps := w.peers[id]
		switch {
		case ps == nil:
			w.other += d
		case dynamic:
			ps.add(rd.r, d, now)
			if ps.sessions == nil {
				ps.sessions = map[netip.Addr]*tally{}
			}
			s := ps.sessions[rd.addr]
			if s == nil {
				s = &tally{}
				ps.sessions[rd.addr] = s
			}
			s.add(rd.r, d, now)
		default:
			ps.add(rd.r, d, now)
		}
		w.hold(rd.addr, rd.r, d)
		if rd.addr.IsValid() {
			drops = append(drops, drop{peer: id, addr: rd.addr, r: rd.r, n: d})
		}
	}
	return drops
}

// zoned is the address k's drops are attributed by: k.Addr without zone,
// an IPv6 link-local one zoned with the name of interface k.IfIndex when
// that is known (unzoned otherwise: attributed to no peer). Names come from
// the cache; a miss looks the name up (a failed lookup is tried again a
// Window later). Called with pollMu held; allocates only on a miss.
func (w *Watcher) zoned(k kdrops.Key, now time.Time) netip.Addr {
	a := k.Addr.Unmap().WithZone("")
	if k.IfIndex == 0 || !a.Is6() || !a.IsLinkLocalUnicast() {
		return a
	}
	c, ok := w.ifNames[k.IfIndex]
	if !ok || c.name == "" && now.Sub(c.at) >= Window {
		name, err := w.o.IfName(int(k.IfIndex))
		if err != nil {
			name = ""
		}
		c = ifName{name: name, at: now}
		if w.ifNames == nil {
			w.ifNames = map[uint32]ifName{}
		}
		w.ifNames[k.IfIndex] = c
	}
	if c.name == "" {
		return a
	}
	return a.WithZone(c.name)
}

// interfaceName is the default Options.IfName.
func interfaceName(ifindex int) (string, error) {
	ifc, err := net.InterfaceByIndex(ifindex)
	if err != nil {
		return "", err
	}
	return ifc.Name, nil
}

var (
	_ Source    = (*kdrops.Counter)(nil)
	_ ifIndexer = (*kdrops.Counter)(nil)
)
