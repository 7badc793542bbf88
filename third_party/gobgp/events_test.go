package gobgp_test

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/osrg/gobgp/v3/pkg/packet/bgp"
	"github.com/osrg/gobgp/v3/pkg/server"

	"github.com/authbgp/authbgpd/third_party/gobgp/crafted"
)

// fsmEvents records what a server's FSMEventHook is told.
type fsmEvents struct {
	mu  sync.Mutex
	got []server.FSMEvent
}

func (e *fsmEvents) add(ev server.FSMEvent) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.got = append(e.got, ev)
}

// eventString is an FSMEvent in a few words ("refused BGP_FSM_IDLE",
// "sent 2/2 BGP_FSM_OPENSENT", "down BGP_FSM_ESTABLISHED: <reason>").
func eventString(ev server.FSMEvent) string {
	var s string
	switch ev.Type {
	case server.FSMEventConnectionRefused:
		s = "refused"
	case server.FSMEventNotificationSent:
		s = fmt.Sprintf("sent %d/%d", ev.Code, ev.Subcode)
	case server.FSMEventNotificationReceived:
		s = fmt.Sprintf("received %d/%d", ev.Code, ev.Subcode)
	case server.FSMEventPeerDown:
		s = "down"
	default:
		s = fmt.Sprintf("type %d", ev.Type)
	}
	s = ev.Neighbor + " " + s + " " + ev.State.String()
	if ev.Reason != "" {
		s += ": " + ev.Reason
	}
	return s
}

// wait waits up to 10 s until the events told are want, and fails if they
// are not.
func (e *fsmEvents) wait(t *testing.T, want []string) {
	t.Helper()
	var got []string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		e.mu.Lock()
		got = got[:0]
		for _, ev := range e.got {
			got = append(got, eventString(ev))
		}
		e.mu.Unlock()
		if slices.Equal(got, want) || len(got) > len(want) || time.Now().After(deadline) {
			break
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("events:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// TestFSMEvents checks what patches/0027 is carried for: the server tells
// its FSMEventHook, with the FSM's state, each connection it accepted and
// closed (Idle, OpenSent, Established: the last two its collision
// handling), each NOTIFICATION sent (from OpenSent and from Established)
// and received, and each session's end with its reason. A raw peer drives
// one neighbor through all of them; the server's idle hold (5 s after a
// session's end) makes the test take about 10 s.
func TestFSMEvents(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits out two idle holds (10 s)")
	}
	var evs fsmEvents
	cs := newCraftedServer(t, false, server.FSMEventOption(evs.add))
	const n = "127.0.0.2"
	id := [4]byte{192, 0, 2, 2}
	dial := func() *crafted.Peer {
		t.Helper()
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(n)}, Timeout: 5 * time.Second}
		c, err := d.Dial("tcp", net.JoinHostPort("127.0.0.1", fmt.Sprint(cs.port)))
		if err != nil {
			t.Fatalf("raw peer %s: %v", n, err)
		}
		t.Cleanup(func() { c.Close() })
		return &crafted.Peer{Conn: c}
	}
	// closed waits until the server closes p's connection.
	closed := func(p *crafted.Peer) {
		t.Helper()
		if _, _, ok, err := p.Notification(5 * time.Second); ok || err == nil {
			t.Fatalf("the server kept a connection it should have closed (NOTIFICATION %v, %v)", ok, err)
		}
	}
	var want []string
	expect := func(evs ...string) {
		for _, e := range evs {
			want = append(want, n+" "+e)
		}
	}

	// An OPEN from the wrong AS: a NOTIFICATION sent from OpenSent.
	cs.waitState(t, n, api.PeerState_ACTIVE)
	p := dial()
	if err := p.Send(crafted.Open(64999, id)); err != nil {
		t.Fatal(err)
	}
	if code, sub, ok, err := p.Notification(5 * time.Second); !ok || code != bgp.BGP_ERROR_OPEN_MESSAGE_ERROR || sub != bgp.BGP_ERROR_SUB_BAD_PEER_AS {
		t.Fatalf("an OPEN from the wrong AS: NOTIFICATION %d/%d %v %v", code, sub, ok, err)
	}
	expect("sent 2/2 BGP_FSM_OPENSENT")
	evs.wait(t, want)

	// The FSM is Idle now, for its idle hold: it refuses a connection.
	cs.waitState(t, n, api.PeerState_IDLE)
	closed(dial())
	expect("refused BGP_FSM_IDLE")
	evs.wait(t, want)

	// A connection in OpenSent: the FSM refuses a second one (a collision,
	// in which the first connection wins).
	cs.waitState(t, n, api.PeerState_ACTIVE)
	p = dial()
	cs.waitState(t, n, api.PeerState_OPENSENT)
	closed(dial())
	expect("refused BGP_FSM_OPENSENT")
	evs.wait(t, want)

	// Established: the same.
	if err := p.Handshake(crafted.Open(crafted.PeerAS, id), nil); err != nil {
		t.Fatal(err)
	}
	cs.waitState(t, n, api.PeerState_ESTABLISHED)
	closed(dial())
	expect("refused BGP_FSM_ESTABLISHED")
	evs.wait(t, want)

	// The peer resets the session: a NOTIFICATION received, and the
	// session's end.
	if err := p.Send(crafted.Msg(bgp.BGP_MSG_NOTIFICATION, []byte{bgp.BGP_ERROR_CEASE, bgp.BGP_ERROR_SUB_ADMINISTRATIVE_RESET})); err != nil {
		t.Fatal(err)
	}
	expect("received 6/4 BGP_FSM_ESTABLISHED", "down BGP_FSM_ESTABLISHED: notification-received code 6(cease) subcode 4(administrative reset)")
	evs.wait(t, want)

	// The server resets it: a NOTIFICATION sent from Established.
	cs.waitState(t, n, api.PeerState_ACTIVE)
	p = dial()
	if err := p.Handshake(crafted.Open(crafted.PeerAS, id), nil); err != nil {
		t.Fatal(err)
	}
	cs.waitState(t, n, api.PeerState_ESTABLISHED)
	if err := cs.s.ResetPeer(context.Background(), &api.ResetPeerRequest{Address: n}); err != nil {
		t.Fatal(err)
	}
	if code, sub, ok, err := p.Notification(5 * time.Second); !ok || code != bgp.BGP_ERROR_CEASE || sub != bgp.BGP_ERROR_SUB_ADMINISTRATIVE_RESET {
		t.Fatalf("ResetPeer: NOTIFICATION %d/%d %v %v", code, sub, ok, err)
	}
	expect("sent 6/4 BGP_FSM_ESTABLISHED", "down BGP_FSM_ESTABLISHED: notification-sent code 6(cease) subcode 4(administrative reset)")
	evs.wait(t, want)
}
