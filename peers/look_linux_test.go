package peers

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/authbgp/authbgpd/internal/testlog"
	"github.com/authbgp/authbgpd/tcpsock"

	"github.com/authbgp/authbgpd/internal/testenv"
)

// TestPassLooksOnce: a pass looks at the real sockets once — one walk of
// /proc/self/fd, one sock_diag dump — and every action uses that look: the
// start's pass putting 21 keys on the listener and keying both ends of an
// unsigned connection, an idle pass, and a reload changing 11 keys and
// re-keying the connection in place. (Before, each listener install and
// each connection re-key walked /proc/self/fd again: 24 walks at the
// start, 14 for the reload.)
func TestPassLooksOnce(t *testing.T) {
	testenv.RequireRoot(t)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	conf := fmt.Sprintf("listen-port = %d\nlisten-addresses = [\"127.0.0.1\"]\n", port)
	for i := range 20 {
		conf += fmt.Sprintf("[[peers]]\naddress = \"192.0.2.%d\"\nasn = 65002\npassword = \"Look-Key-One-%d\"\n", 10+i, i)
	}
	conf += "[[peers]]\naddress = \"127.0.0.1\"\nasn = 65003\npassword = \"Look-Conn-One\"\n"
	cl, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	sv, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer sv.Close()

	var logs testlog.Buffer
	m := New(Options{Config: cfg(t, conf), Logger: quietLogger(&logs), Sockets: tcpsock.ProcessSockets{}, ReconcileEvery: 1 << 40})
	b := newFakeBGP()
	looked := func(what string, wantPasses uint64) {
		t.Helper()
		m.mu.Lock()
		l, n := m.lastLook, m.passes
		m.mu.Unlock()
		if n != wantPasses || l != (lookCounts{walks: 1, dumps: 1}) {
			t.Fatalf("%s: pass %d walked /proc/self/fd %d times and dumped sock_diag %d times; want pass %d, 1 and 1", what, n, l.walks, l.dumps, wantPasses)
		}
	}
	if err := m.start(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	defer m.Stop(context.Background())
	looked("start (21 keys, an unsigned connection)", 1)
	if !strings.Contains(logs.String(), "carries no TCP-MD5 key") {
		t.Fatal("the pass did not act on the unsigned connection")
	}
	m.Reconcile(context.Background())
	looked("idle", 2)

	next := strings.Replace(conf, "Look-Conn-One", "Look-Conn-Two", 1)
	for i := range 10 {
		next = strings.Replace(next, fmt.Sprintf("Look-Key-One-%d\"", i), fmt.Sprintf("Look-Key-Two-%d\"", i), 1)
	}
	if _, err := m.Reload(context.Background(), cfg(t, next)); err != nil {
		t.Fatal(err)
	}
	looked("reload (11 keys changed)", 3)
	m.Reconcile(context.Background())
	looked("after the reload", 4)
	for _, ps := range m.Status() {
		if ps.Auth.Mode != "none" && (!ps.Auth.Installed || ps.Auth.Verified != "kernel") {
			t.Fatalf("%s: key not seen on the sockets after the reload: %+v", ps.Address, ps.Auth)
		}
	}
	if strings.Contains(logs.String(), "Look-") {
		t.Fatal("secret in logs")
	}
}
