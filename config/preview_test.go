package config

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestPreview: each refusal names FILE:LINE and the key; a re-key never
// shows the secret; other changes are listed.
func TestPreview(t *testing.T) {
	old := mustParse(t, peerDoc(pA, pB))
	newDoc := strings.Replace(peerDoc(strings.Replace(pA, "pw-a", "pw-new-secret", 1), pC),
		"asn = 65001\nrouter-id = \"192.0.2.1\"\n", "asn = 65001\nrouter-id = \"192.0.2.9\"\nlisten-port = 1179\n", 1)
	next := mustParse(t, newDoc)
	p := NewPreview(old, next)
	if p.OK() {
		t.Fatal("preview of a router-id change is OK")
	}
	want := []Refusal{
		{File: "r1.toml", Line: 3, Key: "global.router-id", Message: "r1.toml:3: global.router-id: 192.0.2.1 -> 192.0.2.9: needs a restart (a reload cannot change it)"},
		{File: "r1.toml", Line: 4, Key: "global.listen-port", Message: "r1.toml:4: global.listen-port: 179 -> 1179: needs a restart (a reload cannot change it)"},
	}
	if len(p.Refused) != len(want) {
		t.Fatalf("refused = %+v", p.Refused)
	}
	for i := range want {
		if p.Refused[i] != want[i] {
			t.Errorf("refused[%d] = %+v, want %+v", i, p.Refused[i], want[i])
		}
	}
	if strings.Join(p.Added, ",") != "198.51.100.0/24" || strings.Join(p.Removed, ",") != "192.0.2.3" {
		t.Errorf("added %q removed %q", p.Added, p.Removed)
	}
	if len(p.Changed) != 1 || !p.Changed[0].Rekey || p.Changed[0].Reset {
		t.Errorf("changed = %+v", p.Changed)
	}
	b, _ := json.Marshal(p)
	for _, sec := range []string{"pw-a", "pw-new-secret", "core-1"} {
		if strings.Contains(string(b), sec) {
			t.Errorf("preview JSON holds secret %q: %s", sec, b)
		}
	}
}

// TestPreviewMechanismSwitch: moving a peer between TCP-MD5 and TCP-AO
// is announced as a session reset, not an in-place re-key; a change of
// TCP-AO keys is in place.
func TestPreviewMechanismSwitch(t *testing.T) {
	doc := func(auth string, secret string) string {
		return "[global]\nasn = 65001\nrouter-id = \"192.0.2.1\"\n\n" +
			"[[keychains]]\nname = \"ao\"\ntype = \"tcp-ao\"\n  [[keychains.keys]]\n  id = 1\n  send-id = 1\n  recv-id = 1\n" +
			"  algorithm = \"hmac-sha-1-96\"\n  secret = \"" + secret + "\"\n\n" +
			"[[peers]]\naddress = \"192.0.2.2\"\nasn = 65002\n" + auth + "\n"
	}
	md5 := mustParse(t, doc(`password = "md5-secret"`, "ao-secret-one"))
	ao := mustParse(t, doc(`keychain = "ao"`, "ao-secret-one"))
	ao2 := mustParse(t, doc(`keychain = "ao"`, "ao-secret-two"))
	for _, c := range []struct {
		name      string
		old, next *Config
		reset     bool
	}{{"md5-to-ao", md5, ao, true}, {"ao-to-md5", ao, md5, true}, {"ao-keys", ao, ao2, false}} {
		p := NewPreview(c.old, c.next)
		if len(p.Changed) != 1 || !p.Changed[0].Rekey || p.Changed[0].Reset != c.reset {
			t.Errorf("%s: changed = %+v, want a re-key with reset %v", c.name, p.Changed, c.reset)
		}
	}
}

// TestRejectedPreview: a file that does not load is refused with its errors.
func TestRejectedPreview(t *testing.T) {
	_, err := parseTest(t, "r1.toml", G+"[[peers]]\naddress = \"192.0.2.2\"\n")
	p := RejectedPreview("r1.toml", err)
	if p.OK() || len(p.Refused) != 1 || p.Refused[0].Line != 4 || !strings.HasPrefix(p.Refused[0].Message, "r1.toml:4: ") {
		t.Fatalf("refused = %+v", p.Refused)
	}
}

// TestPreviewPlanRefusals: refusals the plan's maker found beyond the
// config (a TCP-AO algorithm the kernel does not offer) follow the
// config's own in the preview, as given, and make it refused.
func TestPreviewPlanRefusals(t *testing.T) {
	old := mustParse(t, peerDoc(pA, pB))
	next := mustParse(t, strings.Replace(peerDoc(pA, pB), "router-id = \"192.0.2.1\"", "router-id = \"192.0.2.9\"", 1))
	pl := PlanReload(old, next)
	kernel := NewRefusal(&Error{File: "r1.toml", Line: 12, Msg: `keychains "ao" key 2: algorithm = "hmac-sha-512": not offered`}, "keychains.keys.algorithm")
	pl.Refused = []Refusal{kernel}
	p := pl.Preview(old)
	if p.OK() || len(p.Refused) != 2 || p.Refused[0].Key != "global.router-id" || p.Refused[1] != kernel ||
		kernel.Message != `r1.toml:12: keychains "ao" key 2: algorithm = "hmac-sha-512": not offered` {
		t.Fatalf("refused = %+v", p.Refused)
	}
	pl = PlanReload(old, old)
	pl.Refused = []Refusal{kernel}
	if p := pl.Preview(old); p.OK() || len(p.Refused) != 1 {
		t.Errorf("a plan refusal alone: %+v", p.Refused)
	}
}

// TestPreviewReadds: the peers the reconciler's planner re-adds (Plan.Readds)
// show as reset, a peer the diff does not see changed included.
func TestPreviewReadds(t *testing.T) {
	old := mustParse(t, peerDoc(pA, pB))
	next := mustParse(t, peerDoc(strings.Replace(pA, "pw-a", "pw-new-secret", 1), pB))
	pl := PlanReload(old, next)
	if p := pl.Preview(old); len(p.Changed) != 1 || p.Changed[0].Reset {
		t.Fatalf("without the planner: changed = %+v", p.Changed)
	}
	pl.Readds = []string{"192.0.2.2", "192.0.2.3"}
	p := pl.Preview(old)
	if len(p.Changed) != 2 || !p.Changed[0].Reset || !p.Changed[0].Rekey || p.Changed[1].Peer != "192.0.2.3" || !p.Changed[1].Reset || p.Changed[1].Fields == nil {
		t.Fatalf("changed = %+v", p.Changed)
	}
}
