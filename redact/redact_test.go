package redact

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/osrg/gobgp/v3/pkg/config/oc"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

func TestIsSecretName(t *testing.T) {
	for _, n := range []string{"AuthPassword", "auth_password", "auth-password", "password", "Password", "secret", "SecretFile", "md5_key", "PreSharedKey"} {
		if !IsSecretName(n) {
			t.Errorf("IsSecretName(%q) = false", n)
		}
	}
	for _, n := range []string{"Key", "Topic", "NeighborAddress", "Err", "KeyID", "Data", "keepalive"} {
		if IsSecretName(n) {
			t.Errorf("IsSecretName(%q) = true", n)
		}
	}
}

func TestRedactProto(t *testing.T) {
	const pw = "pr0to-secret"
	p := &api.Peer{
		Conf:  &api.PeerConf{NeighborAddress: "192.0.2.2", PeerAsn: 65002, AuthPassword: pw},
		State: &api.PeerState{NeighborAddress: "192.0.2.2", AuthPassword: pw},
	}
	r := Proto(p)
	if r == p {
		t.Fatal("Proto returned the original message although it holds a password")
	}
	if p.Conf.AuthPassword != pw || p.State.AuthPassword != pw {
		t.Fatal("Proto modified its argument")
	}
	if r.Conf.AuthPassword != Placeholder || r.State.AuthPassword != Placeholder {
		t.Fatalf("not redacted: %v", r)
	}
	if r.Conf.NeighborAddress != "192.0.2.2" || r.Conf.PeerAsn != 65002 {
		t.Fatalf("other fields lost: %v", r)
	}

	// No password: the same message comes back, empty stays empty.
	q := &api.Peer{Conf: &api.PeerConf{NeighborAddress: "192.0.2.3"}}
	if Proto(q) != q || q.Conf.AuthPassword != "" {
		t.Fatal("message without a password was copied or changed")
	}

	// Nested in lists (ListPeerGroup-like answers) and in Any.
	g := &api.PeerGroup{Conf: &api.PeerGroupConf{PeerGroupName: "g", AuthPassword: pw}}
	any1, err := anypb.New(g)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []proto.Message{
		&api.ListPeerResponse{Peer: p},
		&api.ListPeerGroupResponse{PeerGroup: g},
		&api.AddPeerGroupRequest{PeerGroup: g},
		&api.Path{Pattrs: []*anypb.Any{any1}},
	} {
		out := Proto(m)
		b, _ := protojson.Marshal(out)
		if bytes.Contains(b, []byte(pw)) {
			t.Errorf("%T: password survives: %s", m, b)
		}
		if !bytes.Contains(b, []byte("redacted")) {
			t.Errorf("%T: no placeholder: %s", m, b)
		}
		if ob, _ := protojson.Marshal(m); !bytes.Contains(ob, []byte(pw)) {
			t.Errorf("%T: original was modified", m)
		}
	}

	// Types that cannot hold a secret are skipped without walking.
	for m, want := range map[proto.Message]bool{
		&api.Peer{}: true, &api.PeerGroup{}: true, &api.Path{}: true, // Path: via Any
		&api.IPAddressPrefix{}: false, &api.NextHopAttribute{}: false, &api.Family{}: false,
	} {
		if got := descMayHold(m.ProtoReflect().Descriptor()); got != want {
			t.Errorf("descMayHold(%T) = %v", m, got)
		}
	}

	// Writing a redacted object back is refused.
	if _, err := Secrets(&api.UpdatePeerRequest{Peer: r}); !errors.Is(err, ErrPlaceholder) {
		t.Fatalf("protoSecrets on redacted peer: %v", err)
	}
	if s, err := Secrets(&api.AddPeerRequest{Peer: p}); err != nil || len(s) != 2 || s[0] != pw {
		t.Fatalf("protoSecrets = %v, %v", s, err)
	}
}

type nested struct {
	Name     string
	Password string
	Inner    *struct{ AuthPassword []byte }
	M        map[string]any
	L        []oc.Neighbor
	hidden   string
}

func TestScrubFieldStructs(t *testing.T) {
	const pw = "structur4l-pw"
	n := oc.Neighbor{
		Config: oc.NeighborConfig{NeighborAddress: "192.0.2.2", PeerAs: 65002, AuthPassword: pw},
		State:  oc.NeighborState{NeighborAddress: "192.0.2.2", AuthPassword: pw},
	}
	v := nested{
		Name:     "x",
		Password: pw,
		Inner:    &struct{ AuthPassword []byte }{[]byte(pw)},
		M:        map[string]any{"secret": pw, "other": n},
		L:        []oc.Neighbor{n},
		hidden:   "h",
	}
	s := &Set{} // no registered secrets: structural redaction only
	for _, val := range []any{n, &n, v, &v, []any{n}, map[string]oc.Neighbor{"a": n}} {
		out := s.Field("Key", val)
		for _, f := range []string{"%v", "%+v", "%#v"} {
			if str := sprintf(f, out); strings.Contains(str, pw) {
				t.Errorf("%T %s: password survives: %s", val, f, str)
			}
		}
	}
	if n.Config.AuthPassword != pw || v.Password != pw || string(v.Inner.AuthPassword) != pw || v.M["secret"] != pw {
		t.Fatal("Field modified the logged value")
	}
	if got := s.Field("AuthPassword", pw); got != Placeholder {
		t.Fatalf("secret key not redacted: %v", got)
	}
	if got := s.Field("Key", "192.0.2.2"); got != "192.0.2.2" {
		t.Fatalf("plain value changed: %v", got)
	}
	if got := s.Field("Password", ""); got != "" {
		t.Fatalf("empty secret changed: %v", got)
	}

	// Registered secrets are scrubbed from any text.
	s.Add(pw)
	if got := s.Field("Data", "peer sent "+pw); got != "peer sent "+Placeholder {
		t.Fatalf("string not scrubbed: %v", got != "peer sent "+pw)
	}
	if got := s.Field("Err", errors.New("bad key "+pw)); strings.Contains(sprintf("%v", got), pw) {
		t.Fatalf("error not scrubbed: %v", got)
	}
	type opaque struct{ x string }
	if got := s.Field("Data", opaque{pw}); strings.Contains(sprintf("%+v", got), pw) {
		t.Fatalf("unexported field not scrubbed: %v", got)
	}
}

func sprintf(f string, v any) string { return fmt.Sprintf(f, v) }

// A secret that contains another must be scrubbed whole: the longer one is
// replaced first, whatever the order they were registered in (a map walk
// replaced the shorter first in most runs, leaving the longer's tail).
func TestScrubNestedSecrets(t *testing.T) {
	for i := 0; i < 50; i++ {
		s := &Set{}
		for _, v := range []string{"abcd", "xxabcdyyzz", "cdyy", "yyzz-tail-9"} {
			s.Add(v)
		}
		out, ok := s.Scrub("peer said xxabcdyyzz and abcd and yyzz-tail-9.")
		if !ok {
			t.Fatal("nothing scrubbed")
		}
		for _, frag := range []string{"abcd", "xx", "yyzz", "tail-9", "cdyy"} {
			if strings.Contains(out, frag) {
				t.Fatalf("run %d: %q left in %q", i, frag, out)
			}
		}
	}
}

// TestValue: Value copies what it redacts and returns the rest as is.
func TestValue(t *testing.T) {
	const pw = "v4lue-secret"
	n := &oc.Neighbor{Config: oc.NeighborConfig{NeighborAddress: "192.0.2.2", AuthPassword: pw}}
	out, changed := Value(n)
	if !changed || out == any(n) {
		t.Fatalf("Value(%T) = changed %v, same %v", n, changed, out == any(n))
	}
	if got := out.(*oc.Neighbor).Config; got.AuthPassword != Placeholder || got.NeighborAddress != "192.0.2.2" {
		t.Fatalf("Value gave address %q and a password of %d bytes, want the placeholder", got.NeighborAddress, len(got.AuthPassword))
	}
	if n.Config.AuthPassword != pw {
		t.Fatal("Value modified its argument")
	}
	// A []byte secret, behind a pointer.
	inner := &struct{ Secret []byte }{[]byte(pw)}
	if out, changed := Value(inner); !changed || string(out.(*struct{ Secret []byte }).Secret) != Placeholder {
		t.Fatalf("Value: []byte secret not redacted (changed %v)", changed)
	}
	// A protobuf message inside a Go value is redacted as Proto does it,
	// inside its Any payloads too (which reflection cannot see into).
	g, err := anypb.New(&api.PeerGroup{Conf: &api.PeerGroupConf{PeerGroupName: "g", AuthPassword: pw}})
	if err != nil {
		t.Fatal(err)
	}
	holder := struct{ Path *api.Path }{&api.Path{Pattrs: []*anypb.Any{g}}}
	out, changed = Value(holder)
	b, _ := protojson.Marshal(out.(struct{ Path *api.Path }).Path)
	if !changed || bytes.Contains(b, []byte(pw)) || !bytes.Contains(b, []byte("redacted")) {
		t.Fatalf("Value: secret in an Any payload not redacted (changed %v, leaked %v)", changed, bytes.Contains(b, []byte(pw)))
	}
	plain := map[string]any{"peer": "192.0.2.2", "asn": 65002}
	if out, changed := Value(plain); changed || sprintf("%v", out) != sprintf("%v", plain) {
		t.Fatalf("Value changed a value without secrets: %v, %v", out, changed)
	}
}
