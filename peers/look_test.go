package peers

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/testlog"
	"github.com/authbgp/authbgpd/keys"
	"github.com/authbgp/authbgpd/tcpsock"
)

// The real sockets and the fakes are the same kind of Sockets, whose
// passes act through one Look each (a *tcpsock.Scan for the real ones).
var (
	_ Sockets = tcpsock.ProcessSockets{}
	_ Look    = (*tcpsock.Scan)(nil)
	_ Sockets = (*fakeAO)(nil)
)

// TestFakesGoThePassLook: with a fake, as with the real sockets
// (TestPassLooksOnce), a pass looks once and every key operation of it,
// TCP-MD5 and TCP-AO, listeners and connections, goes through that look:
// the fakes run the production path. The start's pass keys the listeners,
// a reload re-keys them.
func TestFakesGoThePassLook(t *testing.T) {
	s := newFakeAO()
	s.visible, s.observe = true, true
	body := aoConfig(time.Now().Add(time.Hour))
	m := New(Options{Config: cfg(t, body), Logger: quietLogger(&testlog.Buffer{}), Sockets: s, ReconcileEvery: time.Hour, ReconcileIdleEvery: time.Hour})
	b := newFakeBGP()
	if err := m.start(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	defer m.Stop(context.Background())
	looked := func(what string) {
		t.Helper()
		m.mu.Lock()
		passes := m.passes
		m.mu.Unlock()
		looks, ops, stale := s.looks.Load(), s.ops.Load(), s.stale.Load()
		if uint64(looks) != passes || stale != 0 || ops == 0 {
			t.Fatalf("%s: %d passes made %d looks and %d key operations, %d of them through an old look; want a look per pass, and operations through it alone",
				what, passes, looks, ops, stale)
		}
		s.ops.Store(0)
	}
	looked("start")
	if len(s.listener("192.0.2.2/32").Keys) == 0 {
		t.Fatal("the start's pass put no TCP-AO key on the listeners")
	}
	if _, ok := s.key("192.0.2.3"); !ok {
		t.Fatal("the start's pass put no TCP-MD5 key on the listeners")
	}
	next := strings.Replace(strings.Replace(body, "Md5-Beside", "Md5-Beside-Two", 1), "AO-Test-One", "AO-Test-Uno", 1)
	if _, err := m.Reload(context.Background(), cfg(t, next)); err != nil {
		t.Fatal(err)
	}
	looked("reload")
	if k, _ := s.key("192.0.2.3"); k != "Md5-Beside-Two" || !s.listener("192.0.2.2/32").Keys[0].Secret.Equal(keys.Secret("AO-Test-Uno")) {
		t.Fatal("the reload's pass did not re-key the listeners")
	}
}
