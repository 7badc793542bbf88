package redact

import (
	"slices"
	"strings"
	"testing"

	api "github.com/osrg/gobgp/v3/api"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/anypb"
)

// anyFields lists the google.protobuf.Any fields reachable from md.
func anyFields(md protoreflect.MessageDescriptor, seen map[protoreflect.FullName]bool) []string {
	if seen[md.FullName()] {
		return nil
	}
	seen[md.FullName()] = true
	var out []string
	for i := 0; i < md.Fields().Len(); i++ {
		fd := md.Fields().Get(i)
		if fd.IsMap() {
			fd = fd.MapValue()
		}
		if fd.Message() == nil {
			continue
		}
		if fd.Message().FullName() == anyName {
			out = append(out, string(md.FullName())+"."+string(fd.Name()))
			continue
		}
		out = append(out, anyFields(fd.Message(), seen)...)
	}
	return out
}

// TestPeerHoldsOnlyItsPassword proves redactPeer's premises against GoBGP's
// descriptors: conf.auth_password is api.Peer's only secret field, no Any
// can hide another, and redactPeer's copy names every field of api.Peer.
func TestPeerHoldsOnlyItsPassword(t *testing.T) {
	md := (&api.Peer{}).ProtoReflect().Descriptor()
	if s := holdsSecret(md, map[protoreflect.FullName]bool{}); !slices.Equal(s, []string{"apipb.PeerConf.auth_password", "apipb.PeerState.auth_password"}) {
		t.Fatalf("api.Peer's secret fields are %v: redactPeer redacts only conf.auth_password and state.auth_password", s)
	}
	// The only Any fields are the capabilities GoBGP packs (apiutil
	// MarshalCapabilities: its *Capability types), none of which has a
	// secret field.
	if a := anyFields(md, map[protoreflect.FullName]bool{}); !slices.Equal(a, []string{"apipb.PeerState.remote_cap", "apipb.PeerState.local_cap"}) {
		t.Fatalf("api.Peer holds Any fields %v, which may carry secrets: redactPeer cannot skip the walk", a)
	}
	caps := 0
	protoregistry.GlobalTypes.RangeMessages(func(mt protoreflect.MessageType) bool {
		d := mt.Descriptor()
		if d.ParentFile().Package() == "apipb" && strings.HasSuffix(string(d.Name()), "Capability") {
			caps++
			if s := holdsSecret(d, map[protoreflect.FullName]bool{}); len(s) > 0 {
				t.Errorf("capability %s holds secret fields %v", d.FullName(), s)
			}
			if a := anyFields(d, map[protoreflect.FullName]bool{}); len(a) > 0 {
				t.Errorf("capability %s holds Any fields %v", d.FullName(), a)
			}
		}
		return true
	})
	if caps < 10 {
		t.Fatalf("only %d capability types registered", caps)
	}
	// The wrappers peerAnswer rebuilds have no other field.
	for _, w := range []struct {
		m      proto.Message
		fields []string
	}{
		{&api.ListPeerResponse{}, []string{"peer"}},
		{&api.WatchEventResponse_PeerEvent{}, []string{"type", "peer"}},
		{&api.WatchEventResponse{}, []string{"peer", "table"}},
	} {
		var got []string
		fs := w.m.ProtoReflect().Descriptor().Fields()
		for i := 0; i < fs.Len(); i++ {
			got = append(got, string(fs.Get(i).Name()))
		}
		if !slices.Equal(got, w.fields) {
			t.Errorf("%s has fields %v, peerAnswer copies %v", w.m.ProtoReflect().Descriptor().FullName(), got, w.fields)
		}
	}
	// Every field set: the copy must carry them all.
	p := &api.Peer{}
	m := p.ProtoReflect()
	for i := 0; i < md.Fields().Len(); i++ {
		fd := md.Fields().Get(i)
		if fd.IsList() {
			l := m.Mutable(fd).List()
			l.Append(l.NewElement())
			continue
		}
		m.Set(fd, m.NewField(fd))
	}
	p.Conf.AuthPassword, p.State.AuthPassword = "peer-secret", "state-secret"
	c := redactPeer(p)
	if p.Conf.AuthPassword != "peer-secret" || p.State.AuthPassword != "state-secret" {
		t.Fatal("redactPeer modified its argument")
	}
	want := proto.CloneOf(p)
	want.Conf.AuthPassword, want.State.AuthPassword = Placeholder, Placeholder
	if !proto.Equal(c, want) {
		t.Fatalf("redactPeer dropped fields:\n got %v\nwant %v", c, want)
	}
}

// TestRedactPeerAgreesWithTheWalk: on peers and ListPeer answers the fast
// path gives what the reflective walk gives.
func TestRedactPeerAgreesWithTheWalk(t *testing.T) {
	for _, pw := range [][2]string{{"", ""}, {"s3cret-peer", ""}, {"", "s3cret-state"}, {"s3cret-peer", "s3cret-state"}, {Placeholder, ""}} {
		p := &api.Peer{
			Conf:     &api.PeerConf{NeighborAddress: "192.0.2.2", PeerAsn: 65002, AuthPassword: pw[0], Description: "edge"},
			State:    &api.PeerState{NeighborAddress: "192.0.2.2", SessionState: api.PeerState_ESTABLISHED, AuthPassword: pw[1]},
			AfiSafis: []*api.AfiSafi{{Config: &api.AfiSafiConfig{Family: &api.Family{Afi: api.Family_AFI_IP, Safi: api.Family_SAFI_UNICAST}, Enabled: true}}},
		}
		walk := proto.CloneOf(p)
		protoVisit(walk.ProtoReflect(), redactFn, 0)
		ev := &api.WatchEventResponse{Event: &api.WatchEventResponse_Peer{Peer: &api.WatchEventResponse_PeerEvent{Type: api.WatchEventResponse_PeerEvent_STATE, Peer: p}}}
		for _, m := range []proto.Message{p, &api.ListPeerResponse{Peer: p}, ev} {
			got := Proto(m)
			gp, _ := got.(*api.Peer)
			switch r := got.(type) {
			case *api.ListPeerResponse:
				gp = r.GetPeer()
			case *api.WatchEventResponse:
				gp = r.GetPeer().GetPeer()
				if r.GetPeer().GetType() != api.WatchEventResponse_PeerEvent_STATE {
					t.Errorf("event type lost: %v", r)
				}
			}
			if !proto.Equal(gp, walk) {
				t.Errorf("password %q: fast path %v, walk %v", pw, gp, walk)
			}
		}
		if p.Conf.AuthPassword != pw[0] || p.State.AuthPassword != pw[1] {
			t.Fatal("Proto modified the peer")
		}
	}
}

// BenchmarkRedactPeer: redacting one keyed neighbor as ListPeer answers it
// (conf, state with capabilities and message counters, two families,
// timers, transport), by the fast path and by the reflective walk, each
// against marshalling the same peer in the same run (x-marshal).
func BenchmarkRedactPeer(b *testing.B) {
	caps := []*anypb.Any{}
	for _, c := range []proto.Message{&api.RouteRefreshCapability{}, &api.FourOctetASNCapability{Asn: 65002},
		&api.MultiProtocolCapability{Family: &api.Family{Afi: api.Family_AFI_IP, Safi: api.Family_SAFI_UNICAST}}} {
		a, err := anypb.New(c)
		if err != nil {
			b.Fatal(err)
		}
		caps = append(caps, a)
	}
	fam := func(afi api.Family_Afi) *api.AfiSafi {
		return &api.AfiSafi{Config: &api.AfiSafiConfig{Family: &api.Family{Afi: afi, Safi: api.Family_SAFI_UNICAST}, Enabled: true},
			State: &api.AfiSafiState{Family: &api.Family{Afi: afi, Safi: api.Family_SAFI_UNICAST}, Enabled: true, Received: 100, Accepted: 100}}
	}
	p := &api.Peer{
		Conf: &api.PeerConf{NeighborAddress: "2001:db8::2", PeerAsn: 65002, AuthPassword: "perf-static-key-1", LocalAsn: 65001},
		State: &api.PeerState{NeighborAddress: "2001:db8::2", PeerAsn: 65002, SessionState: api.PeerState_ESTABLISHED,
			RemoteCap: caps, LocalCap: caps, RouterId: "192.0.2.250",
			Messages: &api.Messages{Received: &api.Message{Total: 1000, Keepalive: 900, Update: 99, Open: 1}, Sent: &api.Message{Total: 1000}}},
		Timers:    &api.Timers{Config: &api.TimersConfig{HoldTime: 90, KeepaliveInterval: 30, ConnectRetry: 10}, State: &api.TimersState{NegotiatedHoldTime: 90}},
		Transport: &api.Transport{LocalAddress: "2001:db8::1", LocalPort: 179, RemotePort: 40000},
		AfiSafis:  []*api.AfiSafi{fam(api.Family_AFI_IP), fam(api.Family_AFI_IP6)},
	}
	for _, v := range []struct {
		name string
		fn   func()
	}{
		{"fast", func() { _ = Proto(p) }},
		{"walk", func() {
			c := proto.CloneOf(p)
			if HasSecret(c) {
				protoVisit(c.ProtoReflect(), redactFn, 0)
			}
		}},
	} {
		b.Run(v.name, func(b *testing.B) { benchAgainstMarshal(b, p, v.fn) })
	}
}
