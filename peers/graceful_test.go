package peers

import (
	"io"
	"net/netip"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/config"
)

// A neighbor with graceful restart is added with the Restart State bit
// while the daemon restarts with its forwarding state (asked once), for
// the restart time from the first; never when it is not restarting, nor
// without graceful restart.
func TestMarkRestarting(t *testing.T) {
	for _, restarting := range []bool{true, false} {
		now := time.Unix(1_800_000_000, 0)
		asked := 0
		l := logrus.New()
		l.SetOutput(io.Discard)
		m := &Manager{now: func() time.Time { return now }, log: logrus.NewEntry(l),
			restart: restartState{ask: func() bool { asked++; return restarting }}}
		gr := func() *api.GracefulRestart { return &api.GracefulRestart{Enabled: true, RestartTime: 60} }
		off := &api.GracefulRestart{}
		m.markRestarting(off)
		m.markRestarting(nil)
		if off.LocalRestarting || asked != 0 {
			t.Errorf("restarting %v: a neighbor without graceful restart: LocalRestarting %v, asked %d times", restarting, off.LocalRestarting, asked)
		}
		first := gr()
		m.markRestarting(first)
		now = now.Add(59 * time.Second)
		within := gr()
		m.markRestarting(within)
		now = now.Add(2 * time.Second)
		after := gr()
		m.markRestarting(after)
		if first.LocalRestarting != restarting || within.LocalRestarting != restarting || after.LocalRestarting || asked != 1 {
			t.Errorf("restarting %v: LocalRestarting first %v, within the restart time %v, after it %v; asked %d times (want once)",
				restarting, first.LocalRestarting, within.LocalRestarting, after.LocalRestarting, asked)
		}
	}
}

// Graceful restart shapes the GoBGP neighbor: the capability with the N
// bit and the restart time, and every family's.
func TestGracefulRestartShape(t *testing.T) {
	p := &config.Peer{ASN: 65002, Families: []config.Family{config.IPv4Unicast, config.IPv6Unicast}, GracefulRestart: true, GracefulRestartTime: 90}
	p.Address = netip.MustParseAddr("192.0.2.2")
	ap, err := apiPeer(p, false)
	if err != nil {
		t.Fatal(err)
	}
	if g := ap.GracefulRestart; g == nil || !g.Enabled || !g.NotificationEnabled || g.RestartTime != 90 || g.LocalRestarting {
		t.Errorf("GracefulRestart %+v", g)
	}
	for _, af := range ap.AfiSafis {
		if !af.GetMpGracefulRestart().GetConfig().GetEnabled() {
			t.Errorf("family %v without graceful restart", af.Config.Family)
		}
	}
	p.GracefulRestart = false
	if ap, _ := apiPeer(p, false); ap.GracefulRestart != nil || ap.AfiSafis[0].MpGracefulRestart != nil {
		t.Errorf("graceful restart off: %+v", ap)
	}
}
