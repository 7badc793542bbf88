package plugin

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/osrg/gobgp/v3/pkg/config/oc"
	gobgplog "github.com/osrg/gobgp/v3/pkg/log"
	"github.com/sirupsen/logrus"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newTestLogger(w *syncBuffer, level logrus.Level, json bool) *logrus.Logger {
	l := logrus.New()
	l.SetOutput(w)
	l.SetLevel(level)
	if json {
		l.SetFormatter(&logrus.JSONFormatter{})
	} else {
		l.SetFormatter(&logrus.TextFormatter{DisableColors: true, DisableTimestamp: true})
	}
	l.ExitFunc = func(code int) { panic("logrus ExitFunc called") }
	return l
}

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
	r := RedactProto(p)
	if r == p {
		t.Fatal("RedactProto returned the original message although it holds a password")
	}
	if p.Conf.AuthPassword != pw || p.State.AuthPassword != pw {
		t.Fatal("RedactProto modified its argument")
	}
	if r.Conf.AuthPassword != Redacted || r.State.AuthPassword != Redacted {
		t.Fatalf("not redacted: %v", r)
	}
	if r.Conf.NeighborAddress != "192.0.2.2" || r.Conf.PeerAsn != 65002 {
		t.Fatalf("other fields lost: %v", r)
	}

	// No password: the same message comes back, empty stays empty.
	q := &api.Peer{Conf: &api.PeerConf{NeighborAddress: "192.0.2.3"}}
	if RedactProto(q) != q || q.Conf.AuthPassword != "" {
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
		out := RedactProto(m)
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
	if _, err := protoSecrets(&api.UpdatePeerRequest{Peer: r}); !errors.Is(err, errRedactedSecret) {
		t.Fatalf("protoSecrets on redacted peer: %v", err)
	}
	if s, err := protoSecrets(&api.AddPeerRequest{Peer: p}); err != nil || len(s) != 2 || s[0] != pw {
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
	s := &secretSet{} // no registered secrets: structural redaction only
	for _, val := range []any{n, &n, v, &v, []any{n}, map[string]oc.Neighbor{"a": n}} {
		out := s.scrubField("Key", val)
		for _, f := range []string{"%v", "%+v", "%#v"} {
			if str := sprintf(f, out); strings.Contains(str, pw) {
				t.Errorf("%T %s: password survives: %s", val, f, str)
			}
		}
	}
	if n.Config.AuthPassword != pw || v.Password != pw || string(v.Inner.AuthPassword) != pw || v.M["secret"] != pw {
		t.Fatal("scrubField modified the logged value")
	}
	if got := s.scrubField("AuthPassword", pw); got != Redacted {
		t.Fatalf("secret key not redacted: %v", got)
	}
	if got := s.scrubField("Key", "192.0.2.2"); got != "192.0.2.2" {
		t.Fatalf("plain value changed: %v", got)
	}
	if got := s.scrubField("Password", ""); got != "" {
		t.Fatalf("empty secret changed: %v", got)
	}

	// Registered secrets are scrubbed from any text.
	s.add(pw)
	if got := s.scrubField("Err", errors.New("bad key "+pw)); strings.Contains(sprintf("%v", got), pw) {
		t.Fatalf("error not scrubbed: %v", got)
	}
	type opaque struct{ x string }
	if got := s.scrubField("Data", opaque{pw}); strings.Contains(sprintf("%+v", got), pw) {
		t.Fatalf("unexported field not scrubbed: %v", got)
	}
}

// TestLogAdapterRedactsGoBGPConfigLogs drives the place where GoBGP v3.37.0
// logs whole neighbor and peer-group configs, AuthPassword included:
// pkg/config/oc UpdateNeighborConfig / UpdatePeerGroupConfig (Debug,
// "Key": oc.Neighbor / oc.PeerGroup).
func TestLogAdapterRedactsGoBGPConfigLogs(t *testing.T) {
	const pw = "c0nfig-l0g-pw"
	for _, json := range []bool{false, true} {
		var buf syncBuffer
		a := newLogAdapter(newTestLogger(&buf, logrus.DebugLevel, json), &secretSet{})
		n := func(pw string) oc.Neighbor {
			return oc.Neighbor{
				Config: oc.NeighborConfig{NeighborAddress: "192.0.2.2", PeerAs: 65002, AuthPassword: pw},
				State:  oc.NeighborState{NeighborAddress: "192.0.2.2", AuthPassword: pw},
			}
		}
		g := func(pw string) oc.PeerGroup {
			return oc.PeerGroup{Config: oc.PeerGroupConfig{PeerGroupName: "g", PeerAs: 65002, AuthPassword: pw}}
		}
		cur := &oc.BgpConfigSet{Neighbors: []oc.Neighbor{n(pw)}, PeerGroups: []oc.PeerGroup{g(pw)}}
		next := &oc.BgpConfigSet{Neighbors: []oc.Neighbor{n(pw + "-new")}, PeerGroups: []oc.PeerGroup{g(pw + "-new")}}
		if _, _, upd := oc.UpdateNeighborConfig(a, cur, next); len(upd) != 1 {
			t.Fatalf("UpdateNeighborConfig: %d updated", len(upd))
		}
		if _, _, upd := oc.UpdatePeerGroupConfig(a, cur, next); len(upd) != 1 {
			t.Fatalf("UpdatePeerGroupConfig: %d updated", len(upd))
		}
		out := buf.String()
		if !strings.Contains(out, "Current neighbor config") || !strings.Contains(out, "New peer-group config") {
			t.Fatalf("GoBGP did not log the configs:\n%s", out)
		}
		if strings.Contains(out, pw) {
			t.Fatalf("password in log (json=%v):\n%s", json, out)
		}
		if !strings.Contains(out, "192.0.2.2") || !strings.Contains(out, "redacted") {
			t.Fatalf("log lost the config or the placeholder (json=%v):\n%s", json, out)
		}
	}
}

func TestLogAdapterFatalDoesNotExit(t *testing.T) {
	var buf syncBuffer
	l := newTestLogger(&buf, logrus.InfoLevel, false)
	a := newLogAdapter(l, &secretSet{})
	var hooked []string
	a.onFatal = func(msg string, _ logrus.Fields) { hooked = append(hooked, msg) }
	a.Fatal("failed to listen grpc port", gobgplog.Fields{"Topic": "grpc", "Err": "address in use"})
	a.Panic("code logic bug", gobgplog.Fields{"Topic": "Peer", "Key": "192.0.2.2"})
	out := buf.String()
	for _, want := range []string{"level=error", "gobgp_level=fatal", "gobgp_level=panic", "failed to listen grpc port", "peer=192.0.2.2", "component=gobgp"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	if a.fatals.Load() != 2 || len(hooked) != 2 {
		t.Fatalf("fatals=%d hooked=%v", a.fatals.Load(), hooked)
	}

	// Level plumbing: GoBGP checks GetLevel before expensive debug logs.
	a.SetLevel(gobgplog.DebugLevel)
	if l.GetLevel() != logrus.DebugLevel || a.GetLevel() != gobgplog.DebugLevel {
		t.Fatalf("SetLevel(debug): logrus %v, adapter %v", l.GetLevel(), a.GetLevel())
	}
	a.SetLevel(gobgplog.FatalLevel)
	if l.GetLevel() != logrus.ErrorLevel {
		t.Fatalf("SetLevel(fatal) should clamp to error, got %v", l.GetLevel())
	}
	a.Info("hidden", nil)
	if strings.Contains(buf.String(), "hidden") {
		t.Fatal("info logged at error level")
	}
}

func sprintf(f string, v any) string { return fmt.Sprintf(f, v) }

// A secret that contains another must be scrubbed whole: the longer one is
// replaced first, whatever the order they were registered in (a map walk
// replaced the shorter first in most runs, leaving the longer's tail).
func TestScrubNestedSecrets(t *testing.T) {
	for i := 0; i < 50; i++ {
		s := &secretSet{}
		for _, v := range []string{"abcd", "xxabcdyyzz", "cdyy", "yyzz-tail-9"} {
			s.add(v)
		}
		out, ok := s.scrub("peer said xxabcdyyzz and abcd and yyzz-tail-9.")
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
