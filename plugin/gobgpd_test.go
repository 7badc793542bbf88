//go:build linux

package plugin

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/redact"
	api "github.com/osrg/gobgp/v3/api"
	"golang.org/x/sys/unix"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/anypb"
)

// gobgpd is Debian's gobgpd, started by a test on loopback.
type gobgpd struct {
	cmd  *exec.Cmd
	out  *syncBuffer
	api  string // host:port of its gRPC API
	gcli string
}

func startGobgpd(t *testing.T, config string) *gobgpd {
	t.Helper()
	bin := testenv.RequireBinary(t, "gobgpd")
	gcli := testenv.RequireBinary(t, "gobgp")
	dir := t.TempDir()
	cfg := filepath.Join(dir, "gobgpd.toml")
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	g := &gobgpd{out: &syncBuffer{}, api: fmt.Sprintf("127.0.0.1:%d", freePort(t)), gcli: gcli}
	g.cmd = exec.Command(bin, "-f", cfg, "-p", "-l", "debug", "--api-hosts", g.api, "--pprof-disable")
	g.cmd.Stdout, g.cmd.Stderr = g.out, g.out
	g.cmd.SysProcAttr = &unix.SysProcAttr{Setpgid: true, Pdeathsig: unix.SIGKILL}
	if err := g.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		netns.Stop(g.cmd) // by PID (its own process group)
		if t.Failed() {
			t.Logf("gobgpd output:\n%s", g.out.String())
		}
	})
	waitFor(t, 10*time.Second, "gobgpd API", func() bool {
		_, err := g.cli("global")
		return err == nil
	})
	return g
}

// cli runs Debian's gobgp CLI against gobgpd.
func (g *gobgpd) cli(args ...string) (string, error) {
	return runCLI(g.gcli, g.api, args...)
}

func runCLI(bin, addr string, args ...string) (string, error) {
	host, port, _ := strings.Cut(addr, ":")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, append([]string{"-u", host, "-p", port}, args...)...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("gobgp %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitEvent reads ch until an event matches.
func waitEvent(t *testing.T, ch <-chan PeerEvent, d time.Duration, what string, match func(PeerEvent) bool) PeerEvent {
	t.Helper()
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatalf("event channel closed while waiting for %s", what)
			}
			t.Logf("event: %+v", ev)
			if match(ev) {
				return ev
			}
		case <-timer.C:
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
	}
}

func tcpExt(t *testing.T) map[string]uint64 {
	t.Helper()
	f, err := os.Open("/proc/net/netstat")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[string]uint64{}
	sc := bufio.NewScanner(f)
	var names []string
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 || fs[0] != "TcpExt:" {
			continue
		}
		if names == nil {
			names = fs[1:]
			continue
		}
		for i, v := range fs[1:] {
			n, _ := strconv.ParseUint(v, 10, 64)
			m[names[i]] = n
		}
		names = nil
	}
	return m
}

func ipv4Path(t *testing.T, prefix, nexthop string) *api.Path {
	t.Helper()
	p := netip.MustParsePrefix(prefix)
	nlri, err := anypb.New(&api.IPAddressPrefix{Prefix: p.Addr().String(), PrefixLen: uint32(p.Bits())})
	if err != nil {
		t.Fatal(err)
	}
	origin, _ := anypb.New(&api.OriginAttribute{Origin: 0})
	nh, _ := anypb.New(&api.NextHopAttribute{NextHop: nexthop})
	return &api.Path{Family: ipv4Unicast, Nlri: nlri, Pattrs: []*anypb.Any{origin, nh}}
}

var ipv4Unicast = &api.Family{Afi: api.Family_AFI_IP, Safi: api.Family_SAFI_UNICAST}

func hasPrefix(dests []*api.Destination, prefix string) bool {
	for _, d := range dests {
		if d.Prefix == prefix {
			return true
		}
	}
	return false
}

// TestPeerWithGobgpd peers a Host (127.0.0.1) with Debian's gobgpd
// (127.0.0.2), iBGP over TCP-MD5 on loopback, with non-standard ports, and checks
// events, route exchange, the stock CLI and gRPC clients against the Host's
// API, password redaction in answers and debug logs, wrong-key rejection,
// DeletePeer and the NOTIFICATION Cease sent by Stop.
func TestPeerWithGobgpd(t *testing.T) {
	const (
		pw      = "Sup3r-S3cret-MD5-pw"
		wrongPW = "Wr0ng-S3cret-MD5-pw"
		pw2     = "An0ther-S3cret-pw"
	)
	ctx := context.Background()
	hostPort, peerPort := freePort(t), freePort(t)
	grpcAddr := fmt.Sprintf("127.0.0.1:%d", freePort(t))

	h := newTestHost(t, Options{
		ListenPort:      int32(hostPort),
		ListenAddresses: []string{"127.0.0.1"},
		GRPCAddr:        grpcAddr,
	})
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	// This test drives GoBGP's own API through the Host; in authbgpd the
	// peers manager's guard refuses such requests (peers/guard.go).
	h.SetAPIGuard(func(context.Context, any) error { return nil })
	events, cancelEvents := h.Subscribe(256)
	defer cancelEvents()

	g := startGobgpd(t, fmt.Sprintf(`
[global.config]
  as = 65001
  router-id = "192.0.2.2"
  port = %d
  local-address-list = ["127.0.0.2"]

[[neighbors]]
  [neighbors.config]
    neighbor-address = "127.0.0.1"
    peer-as = 65001
    auth-password = %q
  [neighbors.transport.config]
    local-address = "127.0.0.2"
    remote-port = %d
  [neighbors.timers.config]
    connect-retry = 3
    idle-hold-time-after-reset = 1
  [[neighbors.afi-safis]]
    [neighbors.afi-safis.config]
      afi-safi-name = "ipv4-unicast"
`, peerPort, pw, hostPort))

	peer := func(password string) *api.Peer {
		return &api.Peer{
			Conf:      &api.PeerConf{NeighborAddress: "127.0.0.2", PeerAsn: 65001, AuthPassword: password},
			Transport: &api.Transport{LocalAddress: "127.0.0.1", RemotePort: uint32(peerPort)},
			Timers:    &api.Timers{Config: &api.TimersConfig{ConnectRetry: 3, IdleHoldTimeAfterReset: 1}},
			AfiSafis: []*api.AfiSafi{{Config: &api.AfiSafiConfig{
				Family: ipv4Unicast, Enabled: true}}},
		}
	}
	t0 := time.Now()
	if err := h.AddPeer(ctx, peer(pw)); err != nil {
		t.Fatal(err)
	}
	peerAddr := netip.MustParseAddr("127.0.0.2")
	up := waitEvent(t, events, 30*time.Second, "established", func(ev PeerEvent) bool {
		return ev.Peer == peerAddr && ev.State == "established"
	})
	t.Logf("established after %v", time.Since(t0))
	if up.Local.Addr() != netip.MustParseAddr("127.0.0.1") || up.Remote.Addr() != peerAddr ||
		(up.Local.Port() != uint16(hostPort) && up.Remote.Port() != uint16(peerPort)) || up.PeerASN != 65001 || up.AdminDown {
		t.Fatalf("established event: %+v", up)
	}

	// A late subscriber starts with the current state.
	late, cancelLate := h.Subscribe(1)
	if ev := <-late; ev.Peer != peerAddr || ev.State != "established" || ev.Local != up.Local || ev.Remote != up.Remote {
		t.Fatalf("initial event of a late subscriber: %+v", ev)
	}
	cancelLate()
	cancelLate()
	if _, ok := <-late; ok {
		t.Fatal("channel not closed by cancel")
	}
	// A subscriber that never reads must not block anything.
	_, cancelStuck := h.Subscribe(0)
	defer cancelStuck()

	// Routes: ours to gobgpd, gobgpd's to us.
	// iBGP (GoBGP rewrites eBGP next hops to the local address, and
	// Debian's gobgpd 3.10 treats a loopback next hop as a withdrawal).
	if _, err := h.AddPath(ctx, ipv4Path(t, "198.51.100.0/24", "192.0.2.1")); err != nil {
		t.Fatal(err)
	}
	if _, err := g.cli("global", "rib", "add", "203.0.113.0/24", "-a", "ipv4"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 15*time.Second, "gobgpd to learn 198.51.100.0/24", func() bool {
		out, _ := g.cli("global", "rib", "-a", "ipv4")
		return strings.Contains(out, "198.51.100.0/24")
	})
	waitFor(t, 15*time.Second, "the Host to learn 203.0.113.0/24", func() bool {
		d, err := h.ListPath(ctx, ipv4Unicast)
		return err == nil && hasPrefix(d, "203.0.113.0/24")
	})
	adjIn, err := h.ListPath(ctx, ipv4Unicast, FromTable(api.TableType_ADJ_IN, "127.0.0.2"))
	if err != nil || !hasPrefix(adjIn, "203.0.113.0/24") {
		t.Fatalf("adj-in of 127.0.0.2: %v, %v", adjIn, err)
	}

	// Debian's gobgp CLI against the Host's API.
	gcli := g.gcli
	out, err := runCLI(gcli, grpcAddr, "neighbor")
	if err != nil || !strings.Contains(out, "127.0.0.2") || !strings.Contains(out, "Establ") {
		t.Fatalf("gobgp neighbor: %v\n%s", err, out)
	}
	for _, args := range [][]string{{"neighbor", "127.0.0.2", "-j"}, {"neighbor", "-j"}, {"neighbor", "127.0.0.2"}} {
		out, err := runCLI(gcli, grpcAddr, args...)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out, pw) {
			t.Fatalf("gobgp %v shows the password:\n%s", args, out)
		}
		if args[len(args)-1] == "-j" {
			i := strings.Index(out, "redacted")
			if i < 0 {
				t.Errorf("gobgp %v: no redaction placeholder (does the CLI print auth_password?):\n%s", args, out)
			} else {
				t.Logf("gobgp %v: ...%s...", args, out[max(0, i-40):min(len(out), i+20)])
			}
		}
	}
	if _, err := runCLI(gcli, grpcAddr, "global", "rib", "add", "192.0.2.128/25", "-a", "ipv4"); err != nil {
		t.Fatal(err)
	}
	out, err = runCLI(gcli, grpcAddr, "global", "rib", "-a", "ipv4")
	if err != nil || !strings.Contains(out, "192.0.2.128/25") || !strings.Contains(out, "198.51.100.0/24") || !strings.Contains(out, "203.0.113.0/24") {
		t.Fatalf("gobgp global rib: %v\n%s", err, out)
	}

	// A real gRPC client: every answer redacted.
	c := grpcClient(t, grpcAddr)
	checkNoPW := func(what string, b []byte) {
		t.Helper()
		for _, s := range []string{pw, pw2, wrongPW} {
			if strings.Contains(string(b), s) {
				t.Fatalf("%s carries a password: %s", what, b)
			}
		}
	}
	lp, err := c.ListPeer(ctx, &api.ListPeerRequest{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		r, err := lp.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
		b, _ := protojson.Marshal(r)
		checkNoPW("ListPeer", b)
		if r.Peer.Conf.AuthPassword != redact.Placeholder {
			t.Fatalf("ListPeer conf password = %q", r.Peer.Conf.AuthPassword)
		}
		if r.Peer.State.SessionState != api.PeerState_ESTABLISHED {
			t.Fatalf("ListPeer state %v", r.Peer.State.SessionState)
		}
	}
	if n != 1 {
		t.Fatalf("ListPeer: %d peers", n)
	}
	inproc, err := h.ListPeer(ctx, "127.0.0.2")
	if err != nil || len(inproc) != 1 || inproc[0].Conf.AuthPassword != redact.Placeholder {
		t.Fatalf("in-process ListPeer: %v, %v", inproc, err)
	}
	if _, err := h.UpdatePeer(ctx, inproc[0]); err == nil {
		t.Fatal("UpdatePeer with a redacted password succeeded")
	}
	if _, err := c.UpdatePeer(ctx, &api.UpdatePeerRequest{Peer: inproc[0]}); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("gRPC UpdatePeer with a redacted password: %v", err)
	}
	// Peer groups and dynamic neighbors, over gRPC.
	if _, err := c.AddPeerGroup(ctx, &api.AddPeerGroupRequest{PeerGroup: &api.PeerGroup{Conf: &api.PeerGroupConf{
		PeerGroupName: "dyn", PeerAsn: 65003, AuthPassword: pw2}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddDynamicNeighbor(ctx, &api.AddDynamicNeighborRequest{DynamicNeighbor: &api.DynamicNeighbor{
		Prefix: "127.0.9.0/24", PeerGroup: "dyn"}}); err != nil {
		t.Fatal(err)
	}
	lg, err := c.ListPeerGroup(ctx, &api.ListPeerGroupRequest{PeerGroupName: "dyn"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := lg.Recv()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := protojson.Marshal(r)
	checkNoPW("ListPeerGroup", b)
	if r.PeerGroup.Conf.AuthPassword != redact.Placeholder {
		t.Fatalf("ListPeerGroup password = %q", r.PeerGroup.Conf.AuthPassword)
	}
	ld, err := c.ListDynamicNeighbor(ctx, &api.ListDynamicNeighborRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := ld.Recv(); err != nil || r.DynamicNeighbor.Prefix != "127.0.9.0/24" {
		t.Fatalf("ListDynamicNeighbor: %v %v", r, err)
	}
	out, err = runCLI(gcli, grpcAddr, "neighbor", "-j")
	if err != nil {
		t.Fatal(err)
	}
	checkNoPW("gobgp neighbor -j", []byte(out))
	wctx, wcancel := context.WithCancel(ctx)
	we, err := c.WatchEvent(wctx, &api.WatchEventRequest{Peer: &api.WatchEventRequest_Peer{}})
	if err != nil {
		t.Fatal(err)
	}
	sawInit := false
	for !sawInit {
		r, err := we.Recv()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := protojson.Marshal(r)
		checkNoPW("WatchEvent", b)
		if p := r.GetPeer(); p != nil && p.Type == api.WatchEventResponse_PeerEvent_INIT && p.Peer.State.NeighborAddress == "127.0.0.2" {
			sawInit = true
		}
	}
	wcancel()

	// Wrong key: the session goes down, the kernel drops gobgpd's signed
	// segments (TCPMD5Failure) and it does not come back.
	before := tcpExt(t)
	needsReset, err := h.UpdatePeer(ctx, peer(wrongPW))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("UpdatePeer(new password): needsSoftResetIn=%v", needsReset)
	waitEvent(t, events, 15*time.Second, "session down after key change", func(ev PeerEvent) bool {
		return ev.Peer == peerAddr && ev.State != "established"
	})
	waitFor(t, 20*time.Second, "TCPMD5Failure to grow", func() bool {
		return tcpExt(t)["TCPMD5Failure"] > before["TCPMD5Failure"]
	})
	if ps, _ := h.ListPeer(ctx, "127.0.0.2"); len(ps) == 1 && ps[0].State.SessionState == api.PeerState_ESTABLISHED {
		t.Fatal("established with the wrong key")
	}
	t.Logf("wrong key rejected by the kernel (TCPMD5Failure +%d); restoring the key", tcpExt(t)["TCPMD5Failure"]-before["TCPMD5Failure"])
	if _, err := h.UpdatePeer(ctx, peer(pw)); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, events, 30*time.Second, "established again with the right key", func(ev PeerEvent) bool {
		return ev.Peer == peerAddr && ev.State == "established"
	})

	// DisablePeer: Cease / Administrative Shutdown with a communication,
	// AdminDown in the events; EnablePeer brings the session back.
	if err := h.DisablePeer(ctx, "127.0.0.2", "maintenance window"); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, events, 10*time.Second, "admin down", func(ev PeerEvent) bool {
		return ev.Peer == peerAddr && ev.AdminDown && ev.State != "established"
	})
	waitFor(t, 10*time.Second, "gobgpd to report the shutdown communication", func() bool {
		for _, line := range strings.Split(g.out.String(), "\n") {
			if strings.Contains(line, "received notification") && strings.Contains(line, "Subcode=2") && strings.Contains(line, "maintenance window") {
				return true
			}
		}
		return false
	})
	if err := h.EnablePeer(ctx, "127.0.0.2"); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, events, 30*time.Second, "established after EnablePeer", func(ev PeerEvent) bool {
		return ev.Peer == peerAddr && ev.State == "established" && !ev.AdminDown
	})

	// DeletePeer of another (never established) peer.
	other := &api.Peer{Conf: &api.PeerConf{NeighborAddress: "127.0.0.3", PeerAsn: 65004, AuthPassword: pw2},
		Transport: &api.Transport{LocalAddress: "127.0.0.1", RemotePort: uint32(freePort(t))}}
	if err := h.AddPeer(ctx, other); err != nil {
		t.Fatal(err)
	}
	otherAddr := netip.MustParseAddr("127.0.0.3")
	waitEvent(t, events, 10*time.Second, "127.0.0.3 appears", func(ev PeerEvent) bool { return ev.Peer == otherAddr })
	if err := h.DeletePeer(ctx, "127.0.0.3"); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, events, 10*time.Second, "127.0.0.3 deleted", func(ev PeerEvent) bool { return ev.Peer == otherAddr && ev.Deleted })
	if ps, err := h.ListPeer(ctx, ""); err != nil || len(ps) != 1 {
		t.Fatalf("ListPeer after DeletePeer: %v %v", ps, err)
	}
	snap, cancelSnap := h.Subscribe(0)
	if ev := <-snap; ev.Peer != peerAddr {
		t.Fatalf("snapshot after delete: %+v", ev)
	}
	cancelSnap()
	if err := h.DeletePeer(ctx, "127.0.0.3"); err == nil {
		t.Fatal("second DeletePeer succeeded")
	}

	// Debug logs never show a password (AddPeer, UpdatePeer x2, peer
	// groups, dynamic neighbors, DeletePeer have all been logged).
	logs := h.logs.String()
	if !strings.Contains(logs, "level=debug") || !strings.Contains(logs, "127.0.0.2") {
		t.Fatalf("expected debug logs about the peer:\n%s", logs)
	}
	for _, s := range []string{pw, wrongPW, pw2} {
		if strings.Contains(logs, s) {
			t.Fatalf("password %q in the Host's logs:\n%s", s, logs)
		}
	}
	if h.FatalLogs() != 0 {
		t.Fatalf("GoBGP logged %d fatal errors", h.FatalLogs())
	}

	// Stop: gobgpd receives a NOTIFICATION Cease (subcode 3, Peer
	// De-configured) from StopBgp.
	sctx, scancel := context.WithTimeout(ctx, 15*time.Second)
	defer scancel()
	if err := h.Stop(sctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "gobgpd to report the Cease NOTIFICATION", func() bool {
		return notificationReceived(g.out.String())
	})
	for _, line := range strings.Split(g.out.String(), "\n") {
		if strings.Contains(line, "Peer Down") || strings.Contains(line, "received notification") {
			t.Logf("gobgpd: %s", line)
		}
	}
	for range events { // closed by Stop
	}
	t.Logf("dropped events: %d", h.DroppedEvents())
}

// notificationReceived finds gobgpd's log of a Cease / Peer De-configured
// NOTIFICATION from us.
func notificationReceived(log string) bool {
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "received notification") && strings.Contains(line, "Code=6") && strings.Contains(line, "Subcode=3") {
			return true
		}
		if strings.Contains(line, "Peer Down") && strings.Contains(line, "notification-received code 6(cease) subcode 3") {
			return true
		}
	}
	return false
}
