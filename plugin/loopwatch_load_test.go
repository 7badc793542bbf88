//go:build linux

package plugin

import (
	"context"
	"fmt"
	"io"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/sirupsen/logrus"
	"google.golang.org/protobuf/types/known/anypb"
)

// loadScale is the size of TestLoopWatchHeavyLoad: prefixes the session
// carries, and passive neighbors beside it (listed with their advertised
// counts, as /status's snapshot does). LOOPWATCH_SCALE="PREFIXES,PEERS"
// sets them (the measurement of docs/OPERATIONS.md, "Liveness").
func loadScale(t *testing.T) (prefixes, peers int) {
	prefixes, peers = 50_000, 200
	if raceEnabled {
		prefixes, peers = 10_000, 100
	}
	if v := os.Getenv("LOOPWATCH_SCALE"); v != "" {
		a, b, ok := strings.Cut(v, ",")
		p, err1 := strconv.Atoi(a)
		n, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || p < 1 || n < 0 {
			t.Fatalf("LOOPWATCH_SCALE=%q: want PREFIXES,PEERS", v)
		}
		prefixes, peers = p, n
	}
	return prefixes, peers
}

// prober asks GoBGP's loop GetBgp back to back (one at a time, as the
// watchdog does) and keeps the slowest answer of each phase of the work.
type prober struct {
	h       *Host
	phase   atomic.Pointer[string]
	mu      sync.Mutex
	slowest map[string]time.Duration
	order   []string
	quit    chan struct{}
	done    chan struct{}
}

func startProber(h *Host) *prober {
	p := &prober{h: h, slowest: map[string]time.Duration{}, quit: make(chan struct{}), done: make(chan struct{})}
	p.set("idle")
	go func() {
		defer close(p.done)
		for {
			select {
			case <-p.quit:
				return
			case <-time.After(2 * time.Millisecond):
			}
			ph := *p.phase.Load()
			start := time.Now()
			h.askGetBgp()
			took := time.Since(start)
			p.mu.Lock()
			p.slowest[ph] = max(p.slowest[ph], took)
			p.mu.Unlock()
		}
	}()
	return p
}

func (p *prober) set(phase string) {
	p.mu.Lock()
	if !slices.Contains(p.order, phase) {
		p.order = append(p.order, phase)
	}
	p.mu.Unlock()
	p.phase.Store(&phase)
}

// stop returns the phases in order with their slowest GetBgp.
func (p *prober) stop() (phases []string, slowest map[string]time.Duration) {
	close(p.quit)
	<-p.done
	return p.order, p.slowest
}

func quietLogger() *logrus.Logger {
	l := logrus.New()
	l.SetOutput(io.Discard)
	l.SetLevel(logrus.WarnLevel)
	l.ExitFunc = func(int) { panic("logrus ExitFunc called") }
	return l
}

// stallCounter counts the watchdog's stall reports.
type stallCounter struct{ n atomic.Int64 }

func (*stallCounter) Levels() []logrus.Level { return []logrus.Level{logrus.ErrorLevel} }
func (c *stallCounter) Fire(e *logrus.Entry) error {
	if strings.Contains(e.Message, "main loop has not answered") {
		c.n.Add(1)
	}
	return nil
}

// lookTally counts the watchdog's looks at the loop by state, and the
// longest run of looks that found it blocked at one place.
type lookTally struct {
	mu                 sync.Mutex
	states             map[string]int
	run, longest       int
	prevFrames, places string
}

func (l *lookTally) add(s loopSample) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.states == nil {
		l.states = map[string]int{}
	}
	l.states[s.state]++
	switch {
	case !s.blocked:
		l.run = 0
	case s.frames == l.prevFrames:
		l.run++
	default:
		l.run = 1
	}
	if l.run > l.longest {
		l.longest, l.places = l.run, s.state+" in "+s.where
	}
	l.prevFrames = s.frames
}

func (l *lookTally) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.states) == 0 {
		return "none"
	}
	var parts []string
	for st, n := range l.states {
		parts = append(parts, fmt.Sprintf("%s %d", st, n))
	}
	slices.Sort(parts)
	return fmt.Sprintf("%s; longest run blocked at one place: %d (%s)", strings.Join(parts, ", "), l.longest, l.places)
}

func prefixPath(i int, nexthop string) *api.Path {
	a := netip.AddrFrom4([4]byte{byte(10 + i>>16), byte(i >> 8), byte(i), 0})
	nlri, _ := anypb.New(&api.IPAddressPrefix{Prefix: a.String(), PrefixLen: 24})
	origin, _ := anypb.New(&api.OriginAttribute{Origin: 0})
	nh, _ := anypb.New(&api.NextHopAttribute{NextHop: nexthop})
	return &api.Path{Family: ipv4Unicast, Nlri: nlri, Pattrs: []*anypb.Any{origin, nh}}
}

func received(t *testing.T, h *Host, addr string) uint64 {
	ps, err := h.ListPeer(context.Background(), addr)
	if err != nil || len(ps) != 1 {
		t.Fatalf("ListPeer %s: %v (%d)", addr, err, len(ps))
	}
	for _, af := range ps[0].GetAfiSafis() {
		return af.GetState().GetReceived()
	}
	return 0
}

// TestLoopWatchHeavyLoad runs the heaviest normal work of GoBGP's loop we
// know, on a Host watched with the real LoopWatchPeriod and
// LoopWatchThreshold, and requires that the watchdog never reports a stall:
// a session (loopback, two Hosts) carrying PREFIXES routes comes up and
// receives them all, the RIB is listed whole (getRib runs in the loop), the
// neighbors (PEERS passive ones beside the session) are listed with their
// advertised counts (getBestFromLocal over the whole table per neighbor,
// 50 neighbors a turn: /status's snapshot does it), and the session goes
// down (its routes dropped in one turn). A GetBgp prober logs the slowest
// answer of each phase: the figures LoopWatchThreshold is set against.
func TestLoopWatchHeavyLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIP: heavy load (-short)")
	}
	nPrefixes, nPeers := loadScale(t)
	ctx := context.Background()
	port := freePort(t)
	stalls := &stallCounter{}
	rlog := quietLogger()
	rlog.AddHook(stalls)
	rcv := newTestHost(t, Options{ListenPort: int32(port), ListenAddresses: []string{"127.0.0.1"}, Logger: rlog})
	snd := newTestHost(t, Options{ASN: 65002, RouterID: "192.0.2.2", ListenPort: -1, Logger: quietLogger()})
	w := rcv.loop
	if w.period != LoopWatchPeriod || w.threshold != LoopWatchThreshold || w.busy != LoopWatchBusyThreshold {
		t.Fatal("the receiver's watchdog is not the daemon's")
	}
	var looks lookTally
	sample := w.sample
	w.sample = func() loopSample { s := sample(); looks.add(s); return s }
	for _, h := range []*testHost{rcv, snd} {
		if err := h.Start(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := rcv.AddPeer(ctx, &api.Peer{Conf: &api.PeerConf{NeighborAddress: "127.0.0.2", PeerAsn: 65002},
		Transport: &api.Transport{PassiveMode: true}}); err != nil {
		t.Fatal(err)
	}
	for i := range nPeers {
		if err := rcv.AddPeer(ctx, &api.Peer{Conf: &api.PeerConf{NeighborAddress: fmt.Sprintf("2001:db8:ff::%x", i+1), PeerAsn: 65003},
			Transport: &api.Transport{PassiveMode: true}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := snd.AddPeer(ctx, &api.Peer{Conf: &api.PeerConf{NeighborAddress: "127.0.0.1", PeerAsn: 65001},
		Transport: &api.Transport{LocalAddress: "127.0.0.2", RemotePort: uint32(port)},
		Timers:    &api.Timers{Config: &api.TimersConfig{ConnectRetry: 1}}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the session Established", func() bool {
		ps, err := rcv.ListPeer(ctx, "127.0.0.2")
		return err == nil && len(ps) == 1 && ps[0].GetState().GetSessionState() == api.PeerState_ESTABLISHED
	})

	p := startProber(rcv.Host)
	t0 := time.Now()
	p.set("transfer")
	var wg sync.WaitGroup
	const senders = 2
	for s := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := s; i < nPrefixes; i += senders {
				if _, err := snd.AddPath(ctx, prefixPath(i, "127.0.0.2")); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	waitFor(t, 10*time.Minute, "every prefix received", func() bool { return received(t, rcv.Host, "127.0.0.2") == uint64(nPrefixes) })
	t.Logf("transfer of %d prefixes: %v", nPrefixes, time.Since(t0).Round(time.Millisecond))

	p.set("list-path")
	n := 0
	t0 = time.Now()
	if err := rcv.bgp.ListPath(ctx, &api.ListPathRequest{TableType: api.TableType_GLOBAL, Family: ipv4Unicast},
		func(*api.Destination) { n++ }); err != nil || n != nPrefixes {
		t.Fatalf("ListPath: %v, %d destinations", err, n)
	}
	t.Logf("list-path: %v", time.Since(t0).Round(time.Millisecond))

	p.set("list-peer-advertised")
	t0 = time.Now()
	n = 0
	if err := rcv.bgp.ListPeer(ctx, &api.ListPeerRequest{EnableAdvertised: true}, func(*api.Peer) { n++ }); err != nil || n != nPeers+1 {
		t.Fatalf("ListPeer: %v, %d neighbors", err, n)
	}
	t.Logf("list-peer-advertised (%d neighbors): %v", n, time.Since(t0).Round(time.Millisecond))

	p.set("session-down")
	t0 = time.Now()
	if err := snd.DeletePeer(ctx, "127.0.0.1"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Minute, "the session down", func() bool {
		ps, err := rcv.ListPeer(ctx, "127.0.0.2")
		return err == nil && len(ps) == 1 && ps[0].GetState().GetSessionState() != api.PeerState_ESTABLISHED
	})
	time.Sleep(2 * LoopWatchPeriod) // its routes dropped; the watchdog's questions after it
	n = 0
	if err := rcv.bgp.ListPath(ctx, &api.ListPathRequest{TableType: api.TableType_GLOBAL, Family: ipv4Unicast},
		func(*api.Destination) { n++ }); err != nil || n != 0 {
		t.Errorf("after the session went down: %v, %d destinations left", err, n)
	}
	t.Logf("session-down: %v", time.Since(t0).Round(time.Millisecond))

	phases, slowest := p.stop()
	var worst time.Duration
	for _, ph := range phases {
		t.Logf("slowest GetBgp, %-22s %8.1f ms", ph+":", float64(slowest[ph].Microseconds())/1000)
		worst = max(worst, slowest[ph])
	}
	w.mu.Lock()
	wdSlowest, answers := w.slowest, w.answers
	w.mu.Unlock()
	t.Logf("%d prefixes, %d neighbors: slowest GetBgp %.1f ms (the watchdog's own %d questions: %.1f ms); thresholds %v blocked, %v busy",
		nPrefixes, nPeers+1, float64(worst.Microseconds())/1000, answers, float64(wdSlowest.Microseconds())/1000, LoopWatchThreshold, LoopWatchBusyThreshold)
	t.Logf("the watchdog's looks at the loop during overdue questions: %s", looks.String())
	if n := stalls.n.Load(); n != 0 {
		t.Errorf("the watchdog reported %d stalls under normal heavy work (slowest GetBgp %v, threshold %v)", n, worst, LoopWatchThreshold)
	}
	if answers == 0 {
		t.Error("the watchdog asked nothing")
	}
}
