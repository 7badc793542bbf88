//go:build linux

package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"golang.org/x/sys/unix"
	"google.golang.org/grpc/codes"
	grpcstatus "google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/authbgp/authbgpd/internal/netns"
)

// The fault soak's faults (soak_test.go). Each is bounded in time and
// runs on the test goroutine (the SYN flood of a reload burst excepted,
// which reports back to it).

// ---------------------------------------------------------------- gRPC

// soakCodeRE finds the status in what the gobgp CLI prints for an error.
var soakCodeRE = regexp.MustCompile(`code = (\w+) desc = (.*)`)

func soakCodeOf(name string) codes.Code {
	for c := codes.OK; c <= codes.Unauthenticated; c++ {
		if c.String() == name {
			return c
		}
	}
	return codes.Unknown
}

// soakReq is one gRPC request that must be refused.
type soakReq struct {
	what   string // how it was made, for the report
	target string // the address or range the refusal must name
	run    func(ctx context.Context) error
}

// cliReq runs the stock gobgp CLI against the router. Client-side
// failures (no answer within the CLI's one-second connect timeout on a
// loaded machine) are retried; an answer of the router is the result.
func (s *soak) cliReq(target string, args ...string) soakReq {
	return soakReq{what: "gobgp " + strings.Join(args, " "), target: target, run: func(ctx context.Context) error {
		for try := 0; ; try++ {
			out, err := s.r.CLI(ctx, args...)
			if err == nil {
				return nil
			}
			text := err.Error() + " " + out
			if m := soakCodeRE.FindStringSubmatch(text); m != nil {
				return grpcstatus.Error(soakCodeOf(m[1]), strings.TrimSpace(m[2]))
			}
			if try >= 2 {
				return fmt.Errorf("gobgp CLI: no answer from the router: %s", strings.TrimSpace(text))
			}
			time.Sleep(500 * time.Millisecond)
		}
	}}
}

// groupOf is the GoBGP peer group carrying the dynamic range pfx (from
// ListDynamicNeighbor; the manager's naming scheme when absent).
func soakGroupOf(ctx context.Context, c *perfAPI, pfx netip.Prefix) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if st, err := c.c.ListDynamicNeighbor(ctx, &api.ListDynamicNeighborRequest{}); err == nil {
		for {
			r, err := st.Recv()
			if err != nil {
				break
			}
			if p, err := netip.ParsePrefix(r.GetDynamicNeighbor().GetPrefix()); err == nil && p.Masked() == pfx {
				return r.GetDynamicNeighbor().GetPeerGroup()
			}
		}
	}
	return "authbgpd-dyn-" + strings.NewReplacer(".", "-", ":", "-", "/", "_").Replace(pfx.String())
}

// updatePeerReq is UpdatePeer of addr as GoBGP lists it, with password.
func soakUpdatePeerReq(c *perfAPI, addr netip.Addr, asn uint32, password, label string) soakReq {
	return soakReq{what: "UpdatePeer " + addr.String() + " " + label, target: addr.String(), run: func(ctx context.Context) error {
		p := &api.Peer{Conf: &api.PeerConf{NeighborAddress: addr.String(), PeerAsn: asn}}
		if ps, err := c.peers(ctx, addr.String()); err == nil && len(ps) == 1 {
			p = proto.Clone(ps[0]).(*api.Peer)
			p.State = nil
		}
		if p.Conf == nil {
			p.Conf = &api.PeerConf{NeighborAddress: addr.String(), PeerAsn: asn}
		}
		p.Conf.AuthPassword = password
		_, err := c.c.UpdatePeer(ctx, &api.UpdatePeerRequest{Peer: p})
		return err
	}}
}

// faultGRPC sends requests through the router's gRPC API that would
// create, change, delete or disable the key of a peer, a peer group or a
// dynamic neighbor: each must be refused with FailedPrecondition, its
// message naming the address (or range) and the config file.
func (s *soak) faultGRPC(c *perfAPI) {
	t := s.t
	ctx := context.Background()
	cfgName := filepath.Base(s.r.Config)
	r4, r6 := s.byID["198.51.100.64/26"], s.byID["2001:db8:d::1:0/112"]
	g4, g6 := soakGroupOf(ctx, c, r4.prefix), soakGroupOf(ctx, c, r6.prefix)
	inj := s.addSecret(newSecret("grpc"), "a key sent through the gRPC API")
	s.injected = append(s.injected, inj)
	follow := s.byID["192.0.2.15"]
	reqs := []soakReq{
		s.cliReq("192.0.2.11", "neighbor", "del", "192.0.2.11"),
		s.cliReq("192.0.2.12", "neighbor", "add", "192.0.2.12", "as", "65011"),
		s.cliReq("203.0.113.200", "neighbor", "add", "203.0.113.200", "as", "65099"),
		s.cliReq("198.51.100.90", "neighbor", "add", "198.51.100.90", "as", "65015"),
		soakUpdatePeerReq(c, netip.MustParseAddr("192.0.2.13"), 65011, "", "with an empty AuthPassword"),
		soakUpdatePeerReq(c, netip.MustParseAddr("192.0.2.14"), 65011, inj, "with another AuthPassword"),
		soakUpdatePeerReq(c, follow.addr, 65011, follow.keys[0], "with the keychain's older key"),
		{what: "DeletePeer 2001:db8:d::1:1 (a range session)", target: "2001:db8:d::1:1", run: func(ctx context.Context) error {
			_, err := c.c.DeletePeer(ctx, &api.DeletePeerRequest{Address: "2001:db8:d::1:1"})
			return err
		}},
		{what: "UpdatePeerGroup " + g6 + " with an AuthPassword", target: r6.id, run: func(ctx context.Context) error {
			g := &api.PeerGroup{Conf: &api.PeerGroupConf{PeerGroupName: g6, PeerAsn: r6.asn}}
			if st, err := c.c.ListPeerGroup(ctx, &api.ListPeerGroupRequest{PeerGroupName: g6}); err == nil {
				if r, err := st.Recv(); err == nil && r.GetPeerGroup().GetConf() != nil {
					g = proto.Clone(r.GetPeerGroup()).(*api.PeerGroup)
					g.Info = nil
				}
			}
			g.Conf.AuthPassword = inj
			_, err := c.c.UpdatePeerGroup(ctx, &api.UpdatePeerGroupRequest{PeerGroup: g})
			return err
		}},
		{what: "DeleteDynamicNeighbor " + r6.id, target: r6.id, run: func(ctx context.Context) error {
			_, err := c.c.DeleteDynamicNeighbor(ctx, &api.DeleteDynamicNeighborRequest{Prefix: r6.id, PeerGroup: g6})
			return err
		}},
		{what: "AddDynamicNeighbor 198.51.100.128/26 into " + g4, target: "198.51.100.128/26", run: func(ctx context.Context) error {
			_, err := c.c.AddDynamicNeighbor(ctx, &api.AddDynamicNeighborRequest{DynamicNeighbor: &api.DynamicNeighbor{Prefix: "198.51.100.128/26", PeerGroup: g4}})
			return err
		}},
		{what: "DeletePeerGroup " + g4, target: r4.id, run: func(ctx context.Context) error {
			_, err := c.c.DeletePeerGroup(ctx, &api.DeletePeerGroupRequest{Name: g4})
			return err
		}},
	}
	ok := 0
	for _, r := range reqs {
		rctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		err := r.run(rctx)
		cancel()
		s.fig.grpcTotal++
		st, _ := grpcstatus.FromError(err)
		switch {
		case err == nil:
			s.fig.grpcAccepted++
			if !slices.Contains(s.fig.grpcAcceptedList, r.what) {
				s.fig.grpcAcceptedList = append(s.fig.grpcAcceptedList, r.what)
				t.Errorf("gRPC %s: ACCEPTED; it must be refused with FailedPrecondition (the config owns the peer's key)", r.what)
			}
		case st.Code() == codes.FailedPrecondition && strings.Contains(st.Message(), r.target) && strings.Contains(st.Message(), cfgName):
			s.fig.grpcRefusedOK++
			ok++
		default:
			s.fig.grpcRefusedOther++
			what := fmt.Sprintf("%s: %v %q", r.what, st.Code(), st.Message())
			if !slices.Contains(s.fig.grpcOtherList, what) {
				s.fig.grpcOtherList = append(s.fig.grpcOtherList, what)
				t.Errorf("gRPC %s; want FailedPrecondition naming %s and %s", what, r.target, cfgName)
			}
		}
	}
	s.event(fmt.Sprintf("gRPC: %d requests, %d refused as expected", len(reqs), ok))
}

// ---------------------------------------------------------------- SYN flood

// soakFloodTarget is one source of unsigned SYNs: a keyed peer's address
// in its namespace, aiming at the router's address (port 179).
type soakFloodTarget struct {
	ns            string
	local, remote netip.Addr
}

type soakFloodResult struct {
	sent, dropped, refused, connected, errs int
	errList                                 []string
	answered                                map[string]int // "local→remote" → SYNs answered (refused or connected)
}

func (r *soakFloodResult) fail(err error) {
	r.errs++
	if len(r.errList) < 5 {
		r.errList = append(r.errList, err.Error())
	}
}

func (r *soakFloodResult) add(o soakFloodResult) {
	r.sent += o.sent
	r.dropped += o.dropped
	r.refused += o.refused
	r.connected += o.connected
	r.errs += o.errs
	r.errList = append(r.errList, o.errList...)
	for k, n := range o.answered {
		if r.answered == nil {
			r.answered = map[string]int{}
		}
		r.answered[k] += n
	}
}

func (r *soakFloodResult) answer(tg soakFloodTarget) {
	if r.answered == nil {
		r.answered = map[string]int{}
	}
	r.answered[tg.local.String()+"→"+tg.remote.String()]++
}

// floodTargets are the sessions (and the spare range addresses) of the
// peers ids (nil: all).
func (s *soak) floodTargets(ids map[string]bool) []soakFloodTarget {
	var out []soakFloodTarget
	for _, ss := range append(append([]soakSession(nil), s.sessions...), s.extra...) {
		if ids == nil || ids[ss.peerID] {
			out = append(out, soakFloodTarget{ns: s.speakers[ss.speaker].ns, local: ss.addr, remote: ss.remote})
		}
	}
	return out
}

// soakSYNFlood sends n unsigned SYNs, round-robin over targets: a
// non-blocking connect each, from a socket bound to the peer's address in
// its namespace, without a TCP-MD5 key. After 600 ms (before the first
// retransmission) it looks at each socket: still connecting means the
// router dropped the SYN (what must happen), a refusal means it answered
// with a RST, a connected socket means it completed the handshake. It
// calls no testing functions (it also runs beside a reload burst).
func soakSYNFlood(targets []soakFloodTarget, n int) soakFloodResult {
	var res soakFloodResult
	if len(targets) == 0 {
		return res
	}
	byNS := map[string][]soakFloodTarget{}
	var order []string
	for i := 0; i < n; i++ {
		tg := targets[i%len(targets)]
		if _, ok := byNS[tg.ns]; !ok {
			order = append(order, tg.ns)
		}
		byNS[tg.ns] = append(byNS[tg.ns], tg)
	}
	// One goroutine per namespace: each waits its 600 ms at the same time.
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, ns := range order {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var r soakFloodResult
			err := netns.Do(ns, func() error {
				var fds []int
				var fdTargets []soakFloodTarget
				defer func() {
					for _, fd := range fds {
						unix.Close(fd)
					}
				}()
				for _, tg := range byNS[ns] {
					fd, err := soakConnect(tg.local, tg.remote)
					if err != nil {
						r.fail(err)
						continue
					}
					fds = append(fds, fd)
					fdTargets = append(fdTargets, tg)
					r.sent++
				}
				time.Sleep(600 * time.Millisecond)
				for i, fd := range fds {
					pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
					_, err := unix.Poll(pfd, 0)
					for errors.Is(err, unix.EINTR) { // a signal (the Go runtime's preemption) interrupted it
						_, err = unix.Poll(pfd, 0)
					}
					if err != nil {
						r.fail(err)
						continue
					}
					if pfd[0].Revents == 0 {
						r.dropped++
						continue
					}
					switch e, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR); {
					case err != nil:
						r.fail(err)
					case e == 0:
						r.connected++
						r.answer(fdTargets[i])
					case unix.Errno(e) == unix.ECONNREFUSED:
						r.refused++
						r.answer(fdTargets[i])
					default:
						r.fail(fmt.Errorf("connect: %w", unix.Errno(e)))
					}
				}
				return nil
			})
			if err != nil {
				r.fail(err)
			}
			mu.Lock()
			res.add(r)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return res
}

// soakConnect starts an unsigned TCP connection from local to remote:179
// and returns the socket (connecting).
func soakConnect(local, remote netip.Addr) (int, error) {
	domain := unix.AF_INET
	if remote.Is6() {
		domain = unix.AF_INET6
	}
	fd, err := unix.Socket(domain, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, unix.IPPROTO_TCP)
	if err != nil {
		return -1, err
	}
	var la, ra unix.Sockaddr
	if remote.Is6() {
		la = &unix.SockaddrInet6{Addr: local.As16()}
		ra = &unix.SockaddrInet6{Addr: remote.As16(), Port: 179}
	} else {
		la = &unix.SockaddrInet4{Addr: local.As4()}
		ra = &unix.SockaddrInet4{Addr: remote.As4(), Port: 179}
	}
	if err := unix.Bind(fd, la); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("bind %s: %w", local, err)
	}
	if err := unix.Connect(fd, ra); err != nil && !errors.Is(err, unix.EINPROGRESS) {
		unix.Close(fd)
		return -1, fmt.Errorf("connect %s -> %s: %w", local, remote, err)
	}
	return fd, nil
}

// account adds a flood's result to the figures and fails t on a SYN that
// was answered.
func (s *soak) account(what string, r soakFloodResult) {
	f := &s.fig
	f.floodRounds++
	f.floodSent += r.sent
	f.floodDropped += r.dropped
	f.floodRefused += r.refused
	f.floodConnected += r.connected
	f.floodErrs += r.errs
	f.floodErrList = append(f.floodErrList, r.errList...)
	if r.connected > 0 {
		s.t.Errorf("SYN flood (%s): %d unsigned connections from keyed peer addresses COMPLETED the handshake (%v)", what, r.connected, r.answered)
	}
	if r.refused > 0 {
		s.t.Errorf("SYN flood (%s): %d unsigned SYNs from keyed peer addresses were answered with a RST; the kernel must drop them (%v)", what, r.refused, r.answered)
	}
	if r.errs > 0 {
		s.t.Errorf("SYN flood (%s): %d probes failed: %v", what, r.errs, r.errList)
	}
	s.event(fmt.Sprintf("SYN flood (%s): %d sent, %d dropped, %d refused, %d completed", what, r.sent, r.dropped, r.refused, r.connected))
}

func (s *soak) faultFlood(what string, targets []soakFloodTarget, n int) {
	s.account(what, soakSYNFlood(targets, n))
}

// ---------------------------------------------------------------- link flap

// faultFlap takes f3's link down for d, then up again.
func (s *soak) faultFlap(d time.Duration) {
	ns := s.speakers["f3"].ns
	netns.Run(s.t, "ip", "-n", ns, "link", "set", "eth0", "down")
	time.Sleep(d)
	netns.Run(s.t, "ip", "-n", ns, "link", "set", "eth0", "up")
	s.fig.flaps++
	s.fig.flapDown += d
	s.event(fmt.Sprintf("link flap: f3 down for %v", d))
}

// ---------------------------------------------------------------- kill -9, wrong key

// faultKillWrongKey kills f2's FRR with SIGKILL, restarts it with a wrong
// key on every session, watches for window that none comes up (the router
// says bad-digest), then gives FRR the right keys.
func (s *soak) faultKillWrongKey(window time.Duration) {
	t := s.t
	sp := s.speakers["f2"]
	if err := sp.kill9(); err != nil {
		t.Errorf("kill -9: %v", err)
		return
	}
	killed := time.Now()
	s.fig.kills++
	wrong := s.addSecret(newSecret("wrong"), "f2's wrong key")
	right := map[netip.Addr]string{}
	for i := range sp.cfg.nbrs {
		right[sp.cfg.nbrs[i].remote] = sp.cfg.nbrs[i].key
		sp.cfg.nbrs[i].key = wrong
	}
	sp.start(t, s.tp)
	restarted := time.Now()
	s.fig.wrongWindows++
	seen := map[string]bool{}
	stale := map[netip.Addr]bool{}
	for deadline := restarted.Add(window); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		st, err := s.status()
		if err != nil {
			continue
		}
		by := soakByAddr(st)
		for _, ss := range s.sessions {
			if ss.speaker != "f2" {
				continue
			}
			p := by[ss.addr]
			if p == nil {
				continue
			}
			if p.Shadow != nil {
				k := ss.addr.String() + " " + p.Shadow.Diagnosis
				if !seen[k] {
					seen[k] = true
					s.fig.wrongDiagnoses[p.Shadow.Diagnosis]++
				}
			}
			if p.State != Established {
				continue
			}
			if time.Duration(p.UptimeSeconds)*time.Second >= time.Since(killed)-time.Second {
				// The session of before the kill, not yet noticed dead.
				if !stale[ss.addr] {
					stale[ss.addr] = true
					s.fig.wrongStale++
				}
				continue
			}
			s.fig.wrongEstablished++
			t.Errorf("wrong-key window: the router has %s Established (uptime %d s) with FRR on a wrong key", ss.addr, p.UptimeSeconds)
		}
	}
	for remote, st := range sp.states() {
		if st == Established {
			s.fig.wrongEstablished++
			t.Errorf("wrong-key window: FRR (f2) has its session with %s Established on a wrong key", remote)
		}
	}
	bad := 0
	for k := range seen {
		if strings.HasSuffix(k, " bad-digest") {
			bad++
		}
	}
	if bad == 0 {
		t.Errorf("wrong-key window: the shadow checker diagnosed bad-digest for none of f2's sessions within %v (seen: %v)", window, seen)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := sp.setKeys(ctx, right); err != nil {
		t.Errorf("f2: giving FRR the right keys: %v", err)
	}
	s.fig.fixes = append(s.fig.fixes, time.Now())
	s.event(fmt.Sprintf("kill -9 f2's FRR, restart with a wrong key: %v of it, bad-digest on %d of %d sessions (%d stale); right keys given", window, bad, len(sp.cfg.nbrs), len(stale)))
}

// ---------------------------------------------------------------- reload burst

// faultReloadBurst reloads the router n times over d, each reload with a
// new key for one of the re-keyed peers (round-robin), whose speaker
// follows half a step later. A SYN flood at those peers' addresses runs
// beside it.
func (s *soak) faultReloadBurst(n int, d time.Duration) {
	t := s.t
	targets := []*soakPeer{s.byID["192.0.2.75"], s.byID["198.51.100.100"], s.byID["198.51.100.64/26"]}
	ids := map[string]bool{}
	for _, p := range targets {
		ids[p.id] = true
	}
	step := d / time.Duration(n)
	start := time.Now()
	flood := make(chan soakFloodResult, 1)
	go func() {
		time.Sleep(d / 3)
		flood <- soakSYNFlood(s.floodTargets(ids), 200)
	}()

	// One worker per speaker applies the far end's changes at their time
	// (vtysh and birdc take longer than a step on a loaded machine); a
	// worker that falls behind merges what was queued meanwhile, the
	// latest key winning.
	type job struct {
		keys     map[netip.Addr]string // the speaker's neighbor (router address) → key
		sessions []netip.Addr
		at       time.Time
	}
	var (
		mu      sync.Mutex
		wg      sync.WaitGroup
		changes = map[netip.Addr][]time.Time{} // session → its far-end key changes
		applied int
		queues  = map[string]chan job{}
	)
	for _, p := range targets {
		for _, ss := range p.sessions {
			if queues[ss.speaker] != nil {
				continue
			}
			ch := make(chan job, n)
			queues[ss.speaker] = ch
			sp := s.speakers[ss.speaker]
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range ch {
					keys := map[netip.Addr]string{}
					sessions := map[netip.Addr]bool{}
					merge := func(j job) {
						for r, k := range j.keys {
							keys[r] = k
						}
						for _, a := range j.sessions {
							sessions[a] = true
						}
					}
					merge(j)
					at := j.at
				drain:
					for {
						select {
						case j2, ok := <-ch:
							if !ok {
								break drain
							}
							merge(j2)
							at = j2.at
						default:
							break drain
						}
					}
					if w := time.Until(at); w > 0 {
						time.Sleep(w)
					}
					ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
					err := sp.setKeys(ctx, keys)
					cancel()
					now := time.Now()
					mu.Lock()
					applied++
					if err != nil {
						s.fig.speakerUpdateErrs++
						t.Errorf("reload burst: %s: changing keys: %v", sp.cfg.name, err)
					}
					for a := range sessions {
						changes[a] = append(changes[a], now)
					}
					mu.Unlock()
				}
			}()
		}
	}

	dir := filepath.Dir(s.r.Config)
	for i := 0; i < n; i++ {
		if w := time.Until(start.Add(time.Duration(i) * step)); w > 0 {
			time.Sleep(w)
		}
		p := targets[i%len(targets)]
		k := s.addSecret(newSecret("rk"), fmt.Sprintf("%s key #%d", p.id, len(p.keys)))
		p.keys = append(p.keys, k)
		switch p.src {
		case "password":
			p.ref = k
		case "password-file":
			if err := soakWriteFile(filepath.Join(dir, p.ref), k+"\n"); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("soak: cannot re-key %s (%s)", p.id, p.src)
		}
		if err := s.reload(); err != nil {
			t.Fatalf("reload: %v", err)
		}
		s.fig.burstReloads++
		bySpeaker := map[string]job{}
		for _, ss := range p.sessions {
			j := bySpeaker[ss.speaker]
			if j.keys == nil {
				j = job{keys: map[netip.Addr]string{}, at: time.Now().Add(step / 2)}
			}
			j.keys[ss.remote] = k
			j.sessions = append(j.sessions, ss.addr)
			bySpeaker[ss.speaker] = j
		}
		for name, j := range bySpeaker {
			queues[name] <- j
		}
	}
	reloadsTook := time.Since(start)
	for _, ch := range queues {
		close(ch)
	}
	wg.Wait()
	s.account("beside a reload burst", <-flood)
	mu.Lock()
	s.fig.speakerApplies += applied
	mu.Unlock()
	s.fig.bursts++
	s.fig.burstTook = append(s.fig.burstTook, reloadsTook.Round(10*time.Millisecond))
	s.fig.burstEnds = append(s.fig.burstEnds, time.Now())
	s.fig.burstChanges = append(s.fig.burstChanges, changes)
	lastKey := map[netip.Addr]string{}
	for _, p := range targets {
		for _, ss := range p.sessions {
			lastKey[ss.addr] = p.keys[len(p.keys)-1]
		}
	}
	s.fig.burstKeys = append(s.fig.burstKeys, lastKey)
	s.event(fmt.Sprintf("reload burst: %d reloads in %v, new keys for %s %s and %s; the speakers applied them in %d updates, done %v after the first reload",
		n, reloadsTook.Round(10*time.Millisecond), targets[0].id, targets[1].id, targets[2].id, applied, time.Since(start).Round(10*time.Millisecond)))
}
