package plugin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/sirupsen/logrus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/authbgp/authbgpd/redact"
	"github.com/authbgp/authbgpd/tcpsock"
)

// freePort returns a TCP port that was free on 127.0.0.1 a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

type testHost struct {
	*Host
	logs *syncBuffer
}

// newTestHost creates (not starts) a Host logging at debug level into a
// buffer; it is stopped at cleanup.
func newTestHost(t testing.TB, opts Options) *testHost {
	t.Helper()
	logs := &syncBuffer{}
	if opts.Logger == nil {
		opts.Logger = newTestLogger(logs, logrus.DebugLevel, false)
	}
	if opts.ASN == 0 {
		opts.ASN = 65001
	}
	if opts.RouterID == "" {
		opts.RouterID = "192.0.2.1"
	}
	h, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		if err := h.Stop(ctx); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return &testHost{Host: h, logs: logs}
}

func grpcClient(t testing.TB, addr string) api.GobgpApiClient {
	t.Helper()
	conn, err := grpc.Dial(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return api.NewGobgpApiClient(conn)
}

func TestNewValidates(t *testing.T) {
	for _, o := range []Options{
		{ASN: 0, RouterID: "192.0.2.1"},
		{ASN: 1, RouterID: "2001:db8::1"},
		{ASN: 1, RouterID: "nope"},
		{ASN: 1, RouterID: "192.0.2.1", ListenPort: 70000},
		{ASN: 1, RouterID: "192.0.2.1", ListenAddresses: []string{"x"}},
	} {
		o.Logger = logrus.New()
		o.Logger.SetOutput(io.Discard)
		if h, err := New(o); err == nil {
			h.Stop(context.Background())
			t.Errorf("New(%+v) succeeded", o)
		}
	}
}

// fakePlugin records its calls in a shared log.
type fakePlugin struct {
	name      string
	log       *[]string
	mu        *sync.Mutex
	failStart error
	panicking bool
	failStop  error
	sawBGP    bool
}

func (p *fakePlugin) Name() string { return p.name }

func (p *fakePlugin) record(s string) {
	p.mu.Lock()
	*p.log = append(*p.log, s)
	p.mu.Unlock()
}

func (p *fakePlugin) Start(ctx context.Context, h *Host) error {
	p.record("start " + p.name)
	// GoBGP is up while plugins start.
	if _, err := h.ListPeer(ctx, ""); err == nil {
		p.sawBGP = true
	}
	if p.panicking {
		panic("boom")
	}
	return p.failStart
}

func (p *fakePlugin) Stop(ctx context.Context) error {
	p.record("stop " + p.name)
	return p.failStop
}

func TestPluginOrder(t *testing.T) {
	var log []string
	var mu sync.Mutex
	mk := func(n string) *fakePlugin { return &fakePlugin{name: n, log: &log, mu: &mu} }

	t.Run("ok", func(t *testing.T) {
		log = nil
		h := newTestHost(t, Options{ListenPort: -1})
		a, b, c := mk("a"), mk("b"), mk("c")
		c.failStop = errors.New("c stop failed")
		for _, p := range []Plugin{a, b, c} {
			h.Register(p)
		}
		if err := h.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		if !a.sawBGP || !c.sawBGP {
			t.Fatal("plugins started before GoBGP was up")
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Error("Register after Start did not panic")
				}
			}()
			h.Register(mk("late"))
		}()
		err := h.Stop(context.Background())
		if err == nil || !strings.Contains(err.Error(), "plugin c: stop: c stop failed") {
			t.Fatalf("Stop error = %v", err)
		}
		if got := strings.Join(log, ","); got != "start a,start b,start c,stop c,stop b,stop a" {
			t.Fatalf("order: %s", got)
		}
		if _, err := h.ListPeer(context.Background(), ""); !errors.Is(err, ErrNotRunning) {
			t.Fatalf("ListPeer after Stop: %v", err)
		}
		if err := h.Stop(context.Background()); err != nil {
			t.Fatalf("second Stop: %v", err)
		}
	})

	for _, tc := range []struct {
		name  string
		setup func(b *fakePlugin)
		want  string
	}{
		{"error", func(b *fakePlugin) { b.failStart = errors.New("no way") }, "plugin b: start: no way"},
		{"panic", func(b *fakePlugin) { b.panicking = true }, "plugin b: start: panic: boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log = nil
			h := newTestHost(t, Options{ListenPort: -1})
			a, b, c := mk("a"), mk("b"), mk("c")
			tc.setup(b)
			h.Register(a)
			h.Register(b)
			h.Register(c)
			err := h.Start(context.Background())
			if err == nil || err.Error() != tc.want {
				t.Fatalf("Start error = %v, want %q", err, tc.want)
			}
			if got := strings.Join(log, ","); got != "start a,start b,stop a" {
				t.Fatalf("order: %s", got)
			}
			if _, err := h.ListPeer(context.Background(), ""); !errors.Is(err, ErrNotRunning) {
				t.Fatalf("GoBGP still running after failed Start: %v", err)
			}
			if err := h.Start(context.Background()); err == nil {
				t.Fatal("restart after failed Start succeeded")
			}
		})
	}
}

// TestDynamicNeighborUnknownGroup: GoBGP dereferences a nil peer group and
// takes the process down; the Host (and its gRPC API) must refuse instead.
func TestDynamicNeighborUnknownGroup(t *testing.T) {
	gaddr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	h := newTestHost(t, Options{ListenPort: int32(freePort(t)), ListenAddresses: []string{"127.0.0.1"}, GRPCAddr: gaddr})
	ctx := context.Background()
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	err := h.AddDynamicNeighbor(ctx, &api.DynamicNeighbor{Prefix: "192.0.2.0/24", PeerGroup: "nope"})
	if !errors.Is(err, ErrNoPeerGroup) || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("AddDynamicNeighbor(unknown group) = %v", err)
	}
	if err := h.DeleteDynamicNeighbor(ctx, "192.0.2.0/24", "nope"); !errors.Is(err, ErrNoPeerGroup) {
		t.Fatalf("DeleteDynamicNeighbor(unknown group) = %v", err)
	}
	if err := h.AddDynamicNeighbor(ctx, &api.DynamicNeighbor{Prefix: "192.0.2.0/24"}); !errors.Is(err, ErrNoPeerGroup) {
		t.Fatalf("AddDynamicNeighbor(no group) = %v", err)
	}
	if err := h.AddDynamicNeighbor(ctx, &api.DynamicNeighbor{Prefix: "bad", PeerGroup: "g"}); err == nil {
		t.Fatal("AddDynamicNeighbor(bad prefix) succeeded")
	}

	// A guard that lets everything through: the crash protection must
	// hold whatever the guard decides.
	h.SetAPIGuard(func(context.Context, any) error { return nil })
	c := grpcClient(t, gaddr)
	_, err = c.AddDynamicNeighbor(ctx, &api.AddDynamicNeighborRequest{DynamicNeighbor: &api.DynamicNeighbor{Prefix: "192.0.2.0/24", PeerGroup: "nope"}})
	if status.Code(err) != codes.NotFound {
		t.Fatalf("gRPC AddDynamicNeighbor(unknown group) = %v", err)
	}
	_, err = c.DeleteDynamicNeighbor(ctx, &api.DeleteDynamicNeighborRequest{Prefix: "192.0.2.0/24", PeerGroup: "nope"})
	if status.Code(err) != codes.NotFound {
		t.Fatalf("gRPC DeleteDynamicNeighbor(unknown group) = %v", err)
	}

	// Still alive, and the happy path works.
	const pw = "dyn-gr0up-pw"
	g := &api.PeerGroup{Conf: &api.PeerGroupConf{PeerGroupName: "g", PeerAsn: 65010, AuthPassword: pw}}
	if err := h.AddPeerGroup(ctx, g); err != nil {
		t.Fatal(err)
	}
	if err := h.AddDynamicNeighbor(ctx, &api.DynamicNeighbor{Prefix: "192.0.2.0/24", PeerGroup: "g"}); err != nil {
		t.Fatal(err)
	}
	dns, err := h.ListDynamicNeighbor(ctx, "g")
	if err != nil || len(dns) != 1 || dns[0].Prefix != "192.0.2.0/24" {
		t.Fatalf("ListDynamicNeighbor = %v, %v", dns, err)
	}
	gs, err := h.ListPeerGroup(ctx, "g")
	if err != nil || len(gs) != 1 || gs[0].Conf.AuthPassword != redact.Placeholder {
		t.Fatalf("ListPeerGroup = %v, %v", gs, err)
	}
	// A redacted group written back is refused, in process and over gRPC.
	if _, err := h.UpdatePeerGroup(ctx, gs[0]); !errors.Is(err, redact.ErrPlaceholder) {
		t.Fatalf("UpdatePeerGroup(redacted) = %v", err)
	}
	if _, err := c.UpdatePeerGroup(ctx, &api.UpdatePeerGroupRequest{PeerGroup: gs[0]}); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("gRPC UpdatePeerGroup(redacted) = %v", err)
	}
	if err := h.DeleteDynamicNeighbor(ctx, "192.0.2.0/24", "g"); err != nil {
		t.Fatal(err)
	}
	if err := h.DeletePeerGroup(ctx, "g"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(h.logs.String(), pw) {
		t.Fatalf("password in logs:\n%s", h.logs.String())
	}
}

func TestGRPCAddressInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, addr := range []string{
		l.Addr().String(), // caught before GoBGP tries
		"unix://" + t.TempDir() + "/no/such/dir/gobgp.sock", // GoBGP's own Fatal
	} {
		logs := &syncBuffer{}
		h, err := New(Options{ASN: 65001, RouterID: "192.0.2.1", ListenPort: -1, GRPCAddr: addr,
			Logger: newTestLogger(logs, logrus.InfoLevel, false)})
		if err == nil {
			h.Stop(context.Background())
			t.Fatalf("New with gRPC address %s succeeded", addr)
		}
		if !strings.Contains(err.Error(), "failed to listen grpc port") {
			t.Fatalf("error = %v", err)
		}
		t.Logf("%s: %v", addr, err)
		if strings.HasPrefix(addr, "unix://") && !strings.Contains(logs.String(), "gobgp_level=fatal") {
			// GoBGP logged a Fatal and the process is still here.
			t.Fatalf("no fatal log:\n%s", logs.String())
		}
	}
}

// TestListenersPlainTCP checks GoBGP's BGP listener found through
// /proc/self/fd is plain TCP (SO_PROTOCOL 6, not 262 = MPTCP): go.mod's
// `godebug multipathtcp=0` must reach the test binary too.
func TestListenersPlainTCP(t *testing.T) {
	port := freePort(t)
	h := newTestHost(t, Options{ListenPort: int32(port), ListenAddresses: []string{"127.0.0.1", "::1"}})
	if err := h.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	ls, err := h.Listeners()
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 2 {
		t.Fatalf("found %d listeners, want 2: %v", len(ls), ls)
	}
	for _, l := range ls {
		if l.Protocol != 6 || l.MPTCP() {
			t.Errorf("listener %v: SO_PROTOCOL %d, want 6 (TCP)", l.Addr, l.Protocol)
		}
		if int(l.Addr.Port()) != port {
			t.Errorf("listener %v: wrong port", l.Addr)
		}
	}
}

// TestStartRefusesMPTCP re-runs this test binary with GODEBUG
// multipathtcp=1 (overriding go.mod): Go then listens with MPTCP, TCP-MD5
// cannot work and Start must fail.
func TestStartRefusesMPTCP(t *testing.T) {
	if os.Getenv("PLUGIN_MPTCP_CHILD") == "1" {
		h := newTestHost(t, Options{ListenPort: int32(freePort(t)), ListenAddresses: []string{"127.0.0.1"}})
		err := h.Start(context.Background())
		if err == nil {
			ls, _ := h.Listeners()
			fmt.Printf("CHILD: Start succeeded, listeners %v\n", ls)
			return
		}
		var me *tcpsock.MultipathError
		fmt.Printf("CHILD: Start failed: %v (tcpsock.MultipathError: %v)\n", err, errors.As(err, &me))
		return
	}
	if b, err := os.ReadFile("/proc/sys/net/mptcp/enabled"); err != nil || strings.TrimSpace(string(b)) != "1" {
		t.Skipf("SKIP: kernel lacks MPTCP (net.mptcp.enabled): %v %q", err, b)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestStartRefusesMPTCP$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "PLUGIN_MPTCP_CHILD=1", "GODEBUG=multipathtcp=1")
	out, _ := cmd.CombinedOutput()
	s := string(out)
	switch {
	case strings.Contains(s, "CHILD: Start failed") && strings.Contains(s, "multipath TCP") && strings.Contains(s, "(tcpsock.MultipathError: true)"):
	case strings.Contains(s, "CHILD: Start succeeded, listeners []"):
		// Not a missing precondition: the kernel has MPTCP enabled (checked
		// above), and had Go fallen back to plain TCP the listener would be
		// listed (as TCP). Start succeeding with no listener found is the
		// very symptom of socket discovery losing multipath TCP sockets, so
		// that checkListeners has nothing to refuse.
		t.Fatalf("with GODEBUG=multipathtcp=1 Start succeeded and Listeners found no BGP listener at all: "+
			"socket discovery does not see multipath TCP sockets, so an MPTCP listener goes unrefused:\n%s", s)
	default:
		t.Fatalf("child output:\n%s", s)
	}
}

// TestGRPCInterceptors drives the interceptors directly: redaction of unary
// answers and streamed messages, refusal of redacted passwords, and a
// handler panic turned into an error.
func TestGRPCInterceptors(t *testing.T) {
	h := newTestHost(t, Options{ListenPort: -1})
	ctx := context.Background()
	const pw = "interc3ptor-pw"
	info := &grpc.UnaryServerInfo{FullMethod: "/apipb.GobgpApi/Test"}
	h.RegisterSecret(pw) // as AddPeer would

	resp, err := h.unaryInterceptor(ctx, &api.GetBgpRequest{}, info, func(ctx context.Context, req any) (any, error) {
		return &api.ListPeerResponse{Peer: &api.Peer{Conf: &api.PeerConf{AuthPassword: pw}}}, nil
	})
	if err != nil || resp.(*api.ListPeerResponse).Peer.Conf.AuthPassword != redact.Placeholder {
		t.Fatalf("unary answer: %v, %v", resp, err)
	}
	_, err = h.unaryInterceptor(ctx, &api.AddPeerRequest{Peer: &api.Peer{Conf: &api.PeerConf{AuthPassword: redact.Placeholder}}}, info,
		func(ctx context.Context, req any) (any, error) { t.Fatal("handler called"); return nil, nil })
	if status.Code(err) != codes.InvalidArgument {
		t.Fatalf("redacted password accepted: %v", err)
	}
	_, err = h.unaryInterceptor(ctx, &api.GetBgpRequest{}, info, func(ctx context.Context, req any) (any, error) {
		panic("nil pointer in GoBGP " + pw)
	})
	if status.Code(err) != codes.Internal {
		t.Fatalf("panic not recovered: %v", err)
	}
	sinfo := &grpc.StreamServerInfo{FullMethod: "/apipb.GobgpApi/ListPeer"}
	ss := &fakeStream{}
	err = h.streamInterceptor(nil, ss, sinfo, func(srv any, s grpc.ServerStream) error {
		return s.SendMsg(&api.ListPeerGroupResponse{PeerGroup: &api.PeerGroup{Conf: &api.PeerGroupConf{AuthPassword: pw}}})
	})
	if err != nil || len(ss.sent) != 1 || ss.sent[0].(*api.ListPeerGroupResponse).PeerGroup.Conf.AuthPassword != redact.Placeholder {
		t.Fatalf("stream: %v %v", ss.sent, err)
	}
	err = h.streamInterceptor(nil, ss, sinfo, func(srv any, s grpc.ServerStream) error { panic("boom") })
	if status.Code(err) != codes.Internal {
		t.Fatalf("stream panic not recovered: %v", err)
	}
	if strings.Contains(h.logs.String(), pw) {
		t.Fatalf("secret in logs:\n%s", h.logs.String())
	}
}

type fakeStream struct {
	grpc.ServerStream
	sent []any
}

func (f *fakeStream) SendMsg(m any) error      { f.sent = append(f.sent, m); return nil }
func (f *fakeStream) Context() context.Context { return context.Background() }

// TestPeersAndPasswords: one walk gives the redacted peers and, in
// process only, the password GoBGP holds for each.
func TestPeersAndPasswords(t *testing.T) {
	h := newTestHost(t, Options{ListenPort: -1})
	ctx := context.Background()
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	const pw = "p4ss-for-192.0.2.2"
	for _, p := range []*api.Peer{
		{Conf: &api.PeerConf{NeighborAddress: "192.0.2.2", PeerAsn: 65002, AuthPassword: pw}},
		{Conf: &api.PeerConf{NeighborAddress: "192.0.2.3", PeerAsn: 65003}},
	} {
		if err := h.AddPeer(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	ps, pws, err := h.PeersAndPasswords(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || len(pws) != 2 {
		t.Fatalf("%d peers, %d passwords", len(ps), len(pws))
	}
	for i, p := range ps {
		switch p.GetConf().GetNeighborAddress() {
		case "192.0.2.2":
			if string(pws[i]) != pw {
				t.Fatal("password of 192.0.2.2 not returned")
			}
		case "192.0.2.3":
			if len(pws[i]) != 0 {
				t.Fatalf("unkeyed peer: %d bytes", len(pws[i]))
			}
		}
	}
	for _, p := range ps {
		if s := p.GetConf().GetAuthPassword(); s != "" && s != redact.Placeholder {
			t.Fatalf("peer %s answered with its password", p.GetConf().GetNeighborAddress())
		}
	}
	// The other in-process answers holding peers are redacted too.
	states, _, err := h.PeerStates(ctx, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	listed, err := h.ListPeer(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for what, ps := range map[string][]*api.Peer{"PeerStates": states, "ListPeer": listed} {
		if len(ps) != 2 {
			t.Fatalf("%s: %d peers", what, len(ps))
		}
		for _, p := range ps {
			want := ""
			if p.GetConf().GetNeighborAddress() == "192.0.2.2" {
				want = redact.Placeholder
			}
			if p.GetConf().GetAuthPassword() != want {
				t.Errorf("%s: peer %s answered with a password that is not %q", what, p.GetConf().GetNeighborAddress(), want)
			}
		}
	}
	if _, _, err := newTestHost(t, Options{ListenPort: -1}).PeersAndPasswords(ctx); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("not running: %v", err)
	}
}
