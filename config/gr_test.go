package config

import (
	"strings"
	"testing"
)

const grDoc = `[global]
asn = 65001
router-id = "192.0.2.1"
graceful-restart = true
graceful-restart-time = 90

[[peers]]
address = "192.0.2.2"
asn = 65002

[[peers]]
address = "192.0.2.3"
asn = 65003
graceful-restart = false
`

// [global] graceful-restart is every peer's unless it says otherwise; the
// restart time is [global]'s; absent, graceful restart is off and the
// time 120 s.
func TestGracefulRestartKeys(t *testing.T) {
	c := mustParse(t, grDoc)
	if p := c.Peers[0]; !p.GracefulRestart || p.GracefulRestartTime != 90 {
		t.Errorf("peer 1: graceful restart %v, time %d; want true, 90", p.GracefulRestart, p.GracefulRestartTime)
	}
	if p := c.Peers[1]; p.GracefulRestart {
		t.Errorf("peer 2 (graceful-restart = false): graceful restart on")
	}
	if !c.GracefulRestartAny() {
		t.Error("GracefulRestartAny: false")
	}
	plain := mustParse(t, strings.NewReplacer("graceful-restart = true\ngraceful-restart-time = 90\n", "", "graceful-restart = false\n", "").Replace(grDoc))
	if plain.GracefulRestartAny() || plain.Global.GracefulRestartTime != DefaultGracefulRestartTime {
		t.Errorf("without the keys: any %v, time %d", plain.GracefulRestartAny(), plain.Global.GracefulRestartTime)
	}
	// A peer's own graceful-restart without [global]'s.
	own := mustParse(t, strings.NewReplacer("graceful-restart = true\ngraceful-restart-time = 90\n", "", "graceful-restart = false", "graceful-restart = true").Replace(grDoc))
	if own.Peers[0].GracefulRestart || !own.Peers[1].GracefulRestart || own.Peers[1].GracefulRestartTime != DefaultGracefulRestartTime {
		t.Errorf("peer's own: %v %v %d", own.Peers[0].GracefulRestart, own.Peers[1].GracefulRestart, own.Peers[1].GracefulRestartTime)
	}
}

// A restart time outside RFC 4724's 12 bits, or a value of the wrong
// type, is an error at its line.
func TestGracefulRestartBad(t *testing.T) {
	for _, bad := range []struct{ from, to, want string }{
		{"graceful-restart-time = 90", "graceful-restart-time = 0", "r1.toml:5"},
		{"graceful-restart-time = 90", "graceful-restart-time = 4096", "r1.toml:5"},
		{"graceful-restart = true", `graceful-restart = "yes"`, "r1.toml:4"},
		{"graceful-restart = false", "graceful-restart = 1", "r1.toml:14"},
	} {
		_, err := parseTest(t, "r1.toml", strings.Replace(grDoc, bad.from, bad.to, 1))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: error %v, want one at %s", bad.to, err, bad.want)
		}
	}
}

// A change of a peer's graceful restart is a change of the peer (its
// session is reset to negotiate it again); of the time, only with it on.
func TestGracefulRestartDiff(t *testing.T) {
	a := mustParse(t, grDoc)
	b := mustParse(t, strings.Replace(grDoc, "graceful-restart-time = 90", "graceful-restart-time = 100", 1))
	ch := Diff(a, b)
	if len(ch.Changed) != 1 || ch.Changed[0].ID != "192.0.2.2" {
		t.Errorf("time changed: %+v", ch.Changed)
	}
}
