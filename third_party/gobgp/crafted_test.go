package gobgp_test

// Crafted messages from the 2026 GoBGP advisories (and the decoder bugs
// upstream's fuzzing found), each sent by a raw BGP peer over a real TCP
// session to an in-process GoBGP server of the carried copy: through its
// decoder, its FSM and its table, as a keyed peer's would be. Each case says
// what the fixed copy does with it (RFC 4271 and RFC 7606: a NOTIFICATION,
// treat-as-withdraw, or the route taken) and checks that the server, and
// another session beside the offending one, stay up.
//
// TestCraftedBeforeFixes (variant_test.go) runs the same cases on a copy
// with the recovery patch (0005) and none of the fixes: there every case
// marked Panics is a recovered panic that resets its session alone. This
// file and package crafted are copied into that module: it imports nothing
// else of authbgpd and no other test file of this package.

import (
	"context"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/osrg/gobgp/v3/pkg/log"
	"github.com/osrg/gobgp/v3/pkg/packet/bgp"
	"github.com/osrg/gobgp/v3/pkg/server"

	"github.com/authbgp/authbgpd/third_party/gobgp/crafted"
)

// beforeFixes is set in the module TestCraftedBeforeFixes builds: the copy
// there has the recovery patch and none of the fixes.
var beforeFixes = os.Getenv("CRAFTED_BEFORE_FIXES") == "1"

// rawNextHop is the raw peer's address, its routes' next hop.
var rawNextHop = [4]byte{127, 0, 0, 2}

// ---------------------------------------------------------------- the server

// recLogger keeps GoBGP's error lines (a recovered panic is one).
type recLogger struct {
	mu     sync.Mutex
	errors []string
}

func (l *recLogger) Panic(msg string, f log.Fields) { l.Error(msg, f) }
func (l *recLogger) Fatal(msg string, f log.Fields) { l.Error(msg, f) }
func (l *recLogger) Error(msg string, f log.Fields) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errors = append(l.errors, fmt.Sprintf("%s %v", msg, f))
}
func (*recLogger) Warn(string, log.Fields)  {}
func (*recLogger) Info(string, log.Fields)  {}
func (*recLogger) Debug(string, log.Fields) {}
func (*recLogger) SetLevel(log.LogLevel)    {}
func (*recLogger) GetLevel() log.LogLevel   { return log.ErrorLevel }

func (l *recLogger) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.errors)
}

// craftedServer is a GoBGP server on 127.0.0.1 with two passive eBGP
// neighbors, 127.0.0.2 (the raw peer that sends the crafted message) and
// 127.0.0.3 (a bystander), IPv4 and IPv6 unicast, as authbgpd configures
// them; with confed, AS 64501 is a member of its confederation. Its
// ReceiveErrorHook sends to recv; opts are more options of the server.
type craftedServer struct {
	s    *server.BgpServer
	port int
	log  *recLogger
	recv chan server.ReceiveError
}

func newCraftedServer(t *testing.T, confed bool, opts ...server.ServerOption) *craftedServer {
	t.Helper()
	ctx := context.Background()
	cs := &craftedServer{log: &recLogger{}, recv: make(chan server.ReceiveError, 16)}
	cs.s = server.NewBgpServer(append([]server.ServerOption{server.LoggerOption(cs.log), server.ReceiveErrorOption(func(e server.ReceiveError) {
		select {
		case cs.recv <- e:
		default:
		}
	})}, opts...)...)
	go cs.s.Serve()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cs.port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	g := &api.Global{Asn: 64500, RouterId: "192.0.2.1", ListenPort: int32(cs.port), ListenAddresses: []string{"127.0.0.1"}}
	if confed {
		g.Confederation = &api.Confederation{Enabled: true, Identifier: 65000, MemberAsList: []uint32{crafted.PeerAS}}
	}
	if err := cs.s.StartBgp(ctx, &api.StartBgpRequest{Global: g}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.s.StopBgp(context.Background(), &api.StopBgpRequest{}) })
	for _, n := range []string{"127.0.0.2", "127.0.0.3"} {
		if err := cs.s.AddPeer(ctx, &api.AddPeerRequest{Peer: &api.Peer{
			Conf:      &api.PeerConf{NeighborAddress: n, PeerAsn: crafted.PeerAS},
			Transport: &api.Transport{LocalAddress: "127.0.0.1", PassiveMode: true},
			AfiSafis: []*api.AfiSafi{
				{Config: &api.AfiSafiConfig{Family: &api.Family{Afi: api.Family_AFI_IP, Safi: api.Family_SAFI_UNICAST}, Enabled: true}},
				{Config: &api.AfiSafiConfig{Family: &api.Family{Afi: api.Family_AFI_IP6, Safi: api.Family_SAFI_UNICAST}, Enabled: true}},
			},
		}}); err != nil {
			t.Fatal(err)
		}
	}
	return cs
}

// state is neighbor n's session state ("" if the server does not answer
// within 5 s).
func (cs *craftedServer) state(n string) api.PeerState_SessionState {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st := api.PeerState_UNKNOWN
	cs.s.ListPeer(ctx, &api.ListPeerRequest{Address: n}, func(p *api.Peer) {
		st = p.GetState().GetSessionState()
	})
	return st
}

func (cs *craftedServer) waitState(t *testing.T, n string, want api.PeerState_SessionState) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for cs.state(n) != want {
		if time.Now().After(deadline) {
			t.Fatalf("neighbor %s: not %v within 10 s (%v)", n, want, cs.state(n))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// adjIn is neighbor n's IPv4 unicast Adj-RIB-In: prefix → AS path.
// segmentString writes an AS_PATH segment as GoBGP's CLI does: a
// sequence's ASes, a set's in braces, a confederation sequence's in
// parentheses, a confederation set's in brackets; an empty sequence as
// "()" so that it shows.
func segmentString(seg *api.AsSegment) string {
	n := make([]string, len(seg.GetNumbers()))
	for i, a := range seg.GetNumbers() {
		n[i] = fmt.Sprint(a)
	}
	switch seg.GetType() {
	case api.AsSegment_AS_SET:
		return "{" + strings.Join(n, ",") + "}"
	case api.AsSegment_AS_CONFED_SEQUENCE:
		return "(" + strings.Join(n, " ") + ")"
	case api.AsSegment_AS_CONFED_SET:
		return "[" + strings.Join(n, ",") + "]"
	}
	if len(n) == 0 {
		return "()"
	}
	return strings.Join(n, " ")
}

func (cs *craftedServer) adjIn(t *testing.T, n string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := cs.s.ListPath(context.Background(), &api.ListPathRequest{
		TableType: api.TableType_ADJ_IN, Name: n,
		Family: &api.Family{Afi: api.Family_AFI_IP, Safi: api.Family_SAFI_UNICAST},
	}, func(d *api.Destination) {
		for _, p := range d.Paths {
			if p.GetIsWithdraw() {
				continue
			}
			var as []string
			for _, a := range p.GetPattrs() {
				var ap api.AsPathAttribute
				if a.UnmarshalTo(&ap) == nil {
					for _, seg := range ap.GetSegments() {
						as = append(as, segmentString(seg))
					}
				}
			}
			out[d.Prefix] = strings.Join(as, " ")
		}
	})
	if err != nil {
		t.Fatalf("ListPath adj-in %s: %v", n, err)
	}
	return out
}

// establish brings the raw peer at local up; with early, it sends early
// right after its OPEN instead, and returns without waiting.
func (cs *craftedServer) establish(t *testing.T, local string, id [4]byte, early []byte) *crafted.Peer {
	t.Helper()
	// GoBGP closes a connection from a neighbor whose FSM is still Idle.
	cs.waitState(t, local, api.PeerState_ACTIVE)
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}, Timeout: 5 * time.Second}
	c, err := d.Dial("tcp", net.JoinHostPort("127.0.0.1", fmt.Sprint(cs.port)))
	if err != nil {
		t.Fatalf("raw peer %s: %v", local, err)
	}
	t.Cleanup(func() { c.Close() })
	p := &crafted.Peer{Conn: c}
	if err := p.Handshake(crafted.Open(crafted.PeerAS, id), early); err != nil {
		t.Fatalf("raw peer %s: %v", local, err)
	}
	if early == nil {
		cs.waitState(t, local, api.PeerState_ESTABLISHED)
	}
	return p
}

// observe is what the server did after p sent its crafted message: a
// NOTIFICATION, or, when none came within 2 s, the state of the session
// and of its Adj-RIB-In, with the ReceiveErrors it reported.
func (cs *craftedServer) observe(t *testing.T, p *crafted.Peer) (crafted.Outcome, []server.ReceiveError) {
	t.Helper()
	code, sub, ok, err := p.Notification(2 * time.Second)
	if err != nil {
		t.Fatalf("the server ended the session: %v", err)
	}
	if ok {
		return crafted.ResetWith(code, sub), cs.received()
	}
	if st := cs.state("127.0.0.2"); st != api.PeerState_ESTABLISHED {
		t.Fatalf("no NOTIFICATION, and the session is %v", st)
	}
	var o crafted.Outcome
	o.ASPath, o.Taken = cs.adjIn(t, "127.0.0.2")[crafted.Prefix]
	errs := cs.received()
	for _, e := range errs {
		o.Handling = max(o.Handling, e.Handling)
	}
	return o, errs
}

// received drains the ReceiveErrors reported for the raw peer so far.
func (cs *craftedServer) received() []server.ReceiveError {
	var out []server.ReceiveError
	for len(cs.recv) > 0 {
		if e := <-cs.recv; e.Neighbor == "127.0.0.2" {
			out = append(out, e)
		}
	}
	return out
}

// TestCraftedUpdates sends each crafted message to a server of its own,
// from a raw peer beside an established bystander session.
func TestCraftedUpdates(t *testing.T) {
	for _, c := range crafted.Cases(rawNextHop) {
		if c.Injected && !beforeFixes {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			// The decoder alone: never a panic.
			func() {
				defer func() {
					if r := recover(); r != nil && !(beforeFixes && c.Panics) {
						t.Errorf("%s: bgp.ParseBGPMessage panicked: %v", c.Source, r)
					}
				}()
				_, err := bgp.ParseBGPMessage(c.Message, &bgp.MarshallingOption{})
				if (err == nil) != c.DecodeOK && !beforeFixes {
					t.Errorf("%s: bgp.ParseBGPMessage: error %v, want an error: %v", c.Source, err, !c.DecodeOK)
				}
			}()

			cs := newCraftedServer(t, c.Confed)
			bystander := cs.establish(t, "127.0.0.3", [4]byte{192, 0, 2, 3}, nil)
			var p *crafted.Peer
			if c.BeforeUp {
				p = cs.establish(t, "127.0.0.2", [4]byte{192, 0, 2, 2}, c.Message)
			} else {
				p = cs.establish(t, "127.0.0.2", [4]byte{192, 0, 2, 2}, nil)
				if err := p.Send(c.Message); err != nil {
					t.Fatal(err)
				}
			}
			got, errs := cs.observe(t, p)
			if os.Getenv("CRAFTED_DEBUG") != "" {
				t.Logf("receive errors: %+v", errs)
			}

			want := c.Want
			if beforeFixes && c.Before != nil {
				want = *c.Before
			}
			if beforeFixes && c.Panics {
				code := uint8(bgp.BGP_ERROR_MESSAGE_HEADER_ERROR)
				if c.Message[18] == bgp.BGP_MSG_UPDATE {
					code = bgp.BGP_ERROR_UPDATE_MESSAGE_ERROR
				}
				want = crafted.ResetWith(code, 0)
			}
			if got != want {
				t.Errorf("%s: %s, want %s", c.Source, got, want)
			}
			if len(errs) > 1 {
				t.Errorf("%s: one message reported %d times: %+v", c.Source, len(errs), errs)
			}
			if c.Reason != "" && !beforeFixes && !slices.ContainsFunc(errs, func(e server.ReceiveError) bool { return strings.Contains(e.Reason, c.Reason) }) {
				t.Errorf("%s: reported %+v, want a reason with %q", c.Source, errs, c.Reason)
			}
			var panicked []string
			for _, l := range cs.log.lines() {
				if strings.Contains(l, "recovered a panic") {
					panicked = append(panicked, l)
				}
			}
			if wantPanic := beforeFixes && c.Panics; (len(panicked) > 0) != wantPanic {
				t.Errorf("%s: recovered panics %q, want one: %v", c.Source, panicked, wantPanic)
			}
			if c.Injected && !slices.ContainsFunc(panicked, func(l string) bool {
				return strings.Contains(l, "Location:github.com/osrg/gobgp/v3/pkg/packet/bgp.(*PathAttributeOrigin).DecodeFromBytes (bgp.go:") &&
					strings.Contains(l, "Key:127.0.0.2") && strings.Contains(l, "injected decoder panic")
			}) {
				t.Errorf("%s: the log %q does not name the neighbor, the panic and its location", c.Source, panicked)
			}

			// The server still answers, and the bystander's session is
			// still up and still carries routes.
			if st := cs.state("127.0.0.3"); st != api.PeerState_ESTABLISHED {
				t.Fatalf("the bystander session is %v after the crafted message", st)
			}
			path := crafted.ASPath
			if c.Confed {
				path = crafted.ASPathOf(bgp.BGP_ASPATH_ATTR_TYPE_CONFED_SEQ, crafted.PeerAS)
			}
			if err := bystander.Send(crafted.Update(nil, crafted.Cat(crafted.Origin, path, crafted.NextHop([4]byte{127, 0, 0, 3})), crafted.NLRI24(203, 0, 113))); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(5 * time.Second)
			for cs.adjIn(t, "127.0.0.3")["203.0.113.0/24"] == "" {
				if time.Now().After(deadline) {
					t.Fatal("the bystander's route was not taken within 5 s")
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}
