package redact

import (
	"fmt"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/anypb"
)

// holdsSecret walks md like descMayHold but does not treat Any as a
// possible holder: it reports the secret fields md and its message fields
// have by themselves.
func holdsSecret(md protoreflect.MessageDescriptor, seen map[protoreflect.FullName]bool) []string {
	if seen[md.FullName()] || md.FullName() == anyName {
		return nil
	}
	seen[md.FullName()] = true
	var out []string
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		name := string(md.FullName()) + "." + string(fd.Name())
		if fd.IsMap() {
			if k := fd.MapValue().Kind(); k == protoreflect.StringKind || k == protoreflect.BytesKind {
				out = append(out, name+" (map of strings)")
			}
			fd = fd.MapValue()
		}
		switch fd.Kind() {
		case protoreflect.StringKind, protoreflect.BytesKind:
			if IsSecretName(string(fields.Get(i).Name())) {
				out = append(out, name)
			}
		case protoreflect.MessageKind, protoreflect.GroupKind:
			out = append(out, holdsSecret(fd.Message(), seen)...)
		}
	}
	return out
}

// TestRIBAnswersHoldNoSecret proves the premise of ribAnswer against
// GoBGP's own descriptors: the RIB answers have no secret field outside
// their Any payloads, and of all of GoBGP's API types only the peer and
// peer-group configurations (never a path attribute or NLRI, the only
// payloads GoBGP packs in a path's Any) have one.
func TestRIBAnswersHoldNoSecret(t *testing.T) {
	for _, m := range []proto.Message{&api.ListPathResponse{}, &api.GetTableResponse{}, &api.WatchEventResponse_TableEvent{}} {
		if s := holdsSecret(m.ProtoReflect().Descriptor(), map[protoreflect.FullName]bool{}); len(s) > 0 {
			t.Errorf("%s holds secret fields %v: ribAnswer must not skip it", m.ProtoReflect().Descriptor().FullName(), s)
		}
	}
	allowed := map[string]bool{} // type -> may hold a secret
	for _, n := range []string{"PeerConf", "PeerGroupConf", "Peer", "PeerGroup", "AddPeerRequest", "UpdatePeerRequest",
		"ListPeerResponse", "AddPeerGroupRequest", "UpdatePeerGroupRequest", "ListPeerGroupResponse",
		"WatchEventResponse", "WatchEventResponse.PeerEvent", "UpdatePeerGroupResponse", "PeerState", "PeerGroupState"} {
		allowed["apipb."+n] = true
	}
	n := 0
	protoregistry.GlobalTypes.RangeMessages(func(mt protoreflect.MessageType) bool {
		md := mt.Descriptor()
		if md.ParentFile().Package() != "apipb" {
			return true
		}
		n++
		if s := holdsSecret(md, map[protoreflect.FullName]bool{}); len(s) > 0 && !allowed[string(md.FullName())] {
			t.Errorf("GoBGP API type %s holds secret fields %v: if it can travel in a path's Any, ribAnswer is wrong", md.FullName(), s)
		}
		return true
	})
	if n < 100 {
		t.Fatalf("only %d GoBGP API types registered", n)
	}
}

// TestRIBAnswerPeerEventRedacted: a WatchEvent peer event is not a RIB
// answer; its password is redacted.
func TestRIBAnswerPeerEventRedacted(t *testing.T) {
	ev := &api.WatchEventResponse{Event: &api.WatchEventResponse_Peer{Peer: &api.WatchEventResponse_PeerEvent{
		Peer: &api.Peer{Conf: &api.PeerConf{NeighborAddress: "192.0.2.2", AuthPassword: "s3cret-in-event"}},
	}}}
	if ribAnswer(ev) {
		t.Fatal("a peer event counted as a RIB answer")
	}
	if got := Proto(ev).GetPeer().GetPeer().GetConf().GetAuthPassword(); got != Placeholder {
		t.Fatalf("password in a peer event = %q", got)
	}
	tab := &api.WatchEventResponse{Event: &api.WatchEventResponse_Table{Table: &api.WatchEventResponse_TableEvent{}}}
	if !ribAnswer(tab) {
		t.Fatal("a table event is not taken as a RIB answer")
	}
}

// ribResponse is one destination with paths as GoBGP streams it for
// `gobgp global rib`: an NLRI and origin, AS path, next-hop and community
// attributes.
func ribResponse(tb testing.TB, paths int) *api.ListPathResponse {
	tb.Helper()
	pack := func(m proto.Message) *anypb.Any {
		a, err := anypb.New(m)
		if err != nil {
			tb.Fatal(err)
		}
		return a
	}
	d := &api.Destination{Prefix: "198.51.100.0/24"}
	for i := 0; i < paths; i++ {
		d.Paths = append(d.Paths, &api.Path{
			Nlri: pack(&api.IPAddressPrefix{Prefix: "198.51.100.0", PrefixLen: 24}),
			Pattrs: []*anypb.Any{
				pack(&api.OriginAttribute{Origin: 0}),
				pack(&api.AsPathAttribute{Segments: []*api.AsSegment{{Type: 2, Numbers: []uint32{65002, 65010, uint32(64512 + i)}}}}),
				pack(&api.NextHopAttribute{NextHop: "192.0.2.2"}),
				pack(&api.CommunitiesAttribute{Communities: []uint32{65002<<16 | 100}}),
			},
			Family:     &api.Family{Afi: api.Family_AFI_IP, Safi: api.Family_SAFI_UNICAST},
			NeighborIp: "192.0.2.2",
			Best:       i == 0,
		})
	}
	return &api.ListPathResponse{Destination: d}
}

// BenchmarkRedactRIB: the cost redaction adds to each streamed RIB answer
// relative to marshalling it for the wire (x-marshal, timed interleaved in
// the same run), with the fast path (Proto now) and with the
// reflective walk Proto did before (walk).
func BenchmarkRedactRIB(b *testing.B) {
	for _, paths := range []int{1, 4, 16} {
		m := ribResponse(b, paths)
		for _, v := range []struct {
			name string
			fn   func()
		}{
			{"fast", func() { _ = Proto(m) }},
			{"walk", func() { _ = HasSecret(m) }},
		} {
			b.Run(fmt.Sprintf("paths-%d/%s", paths, v.name), func(b *testing.B) { benchAgainstMarshal(b, m, v.fn) })
		}
	}
}

// benchAgainstMarshal times fn against marshalling m for the wire, in
// interleaved chunks of the same run, and reports the ratio (x-marshal).
func benchAgainstMarshal(b *testing.B, m proto.Message, fn func()) {
	b.ReportAllocs()
	b.SetBytes(int64(proto.Size(m)))
	var el, base time.Duration
	const chunk = 256
	for done := 0; done < b.N; done += chunk {
		t0 := time.Now()
		for i := 0; i < chunk; i++ {
			fn()
		}
		t1 := time.Now()
		b.StopTimer()
		for i := 0; i < chunk; i++ {
			if _, err := proto.Marshal(m); err != nil {
				b.Fatal(err)
			}
		}
		t2 := time.Now()
		b.StartTimer()
		el += t1.Sub(t0)
		base += t2.Sub(t1)
	}
	b.ReportMetric(float64(el)/float64(base), "x-marshal")
}
