package peers

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/internal/testlog"
	"github.com/authbgp/authbgpd/tcpsock"
)

// Fail closed on a re-key, through the real socket path (tcpsock.ProcessSockets,
// tcpsock's discovery and setsockopt), not a test hook: the peer's key
// installs at start, then a listener on which TCP-MD5 cannot work (a
// multipath TCP socket) appears on the BGP port; the reload that changes
// the key must hold the peer down and say why, never leave it up with a
// key that is not on every listener.
func TestRekeyFailsClosedOnRealSockets(t *testing.T) {
	if b, err := os.ReadFile("/proc/sys/net/mptcp/enabled"); err != nil || strings.TrimSpace(string(b)) != "1" {
		testenv.SkipKernelLacks(t, "MPTCP", fmt.Sprintf("net.mptcp.enabled: %v %q", err, b))
	}
	// A plain TCP listener on a free loopback port stands in for GoBGP's.
	plain, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	port := plain.Addr().(*net.TCPAddr).Port
	conf := fmt.Sprintf("listen-port = %d\nlisten-addresses = [\"127.0.0.1\"]\n", port) + `
[[peers]]
address = "192.0.2.2"
asn = 65002
password = "Real-Key-One"
`
	var logs testlog.Buffer
	c := cfg(t, conf)
	m := New(Options{Config: c, Logger: quietLogger(&logs), Sockets: tcpsock.ProcessSockets{}})
	b := newFakeBGP()
	if err := m.start(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	defer m.Stop(context.Background())
	if p := b.peer("192.0.2.2"); p == nil || p.Conf.AdminDown {
		t.Fatalf("peer must be up after its key installed: %+v", p)
	}

	// The MPTCP listener on the same port (another loopback address).
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, tcpsock.ProtoMPTCP)
	if err != nil {
		testenv.SkipKernelLacks(t, "MPTCP", err.Error())
	}
	defer unix.Close(fd)
	_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1)
	if err := unix.Bind(fd, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 2}}); err != nil {
		t.Fatal(err)
	}
	if err := unix.Listen(fd, 4); err != nil {
		t.Fatal(err)
	}

	_, err = m.Reload(context.Background(), cfg(t, strings.Replace(conf, "Real-Key-One", "Real-Key-Two", 1)))
	if err != nil && !errors.Is(err, ErrHeldDown) {
		t.Logf("reload: %v", err)
	}
	p := b.peer("192.0.2.2")
	if p == nil || !p.Conf.AdminDown {
		t.Fatalf("re-key that cannot be installed on every listener must hold the peer down: %+v", p)
	}
	var st *struct{ inst bool }
	for _, ps := range m.Status() {
		if ps.Address == "192.0.2.2" {
			st = &struct{ inst bool }{ps.Auth.Installed}
			if ps.State != "admin-down" || !strings.Contains(ps.Auth.Error, "multipath") {
				t.Fatalf("status: state %s, error %q", ps.State, ps.Auth.Error)
			}
		}
	}
	if st == nil || st.inst {
		t.Fatal("status must say the key is not installed")
	}
	if strings.Contains(logs.String(), "Real-Key") {
		t.Fatal("secret in logs")
	}
	if !strings.Contains(logs.String(), "fail closed") {
		t.Fatalf("no fail-closed error logged:\n%s", logs.String())
	}
}

// The kernel refuses a key on a plain TCP listener (not multipath TCP),
// through the real socket code (tcpsock.ProcessSockets, setsockopt): in a
// namespace whose net.core.optmem_max is too small for a new TCP-MD5 key
// the kernel answers ENOMEM. (Replacing a key of the same scope allocates
// nothing, so only new scopes can be refused this way.) A range refused at
// start stays out of GoBGP and comes once the retry installs its key; a
// static peer added later inside it whose key is refused is held down,
// and since the range's key still covers its address, an unsigned SYN from
// it is never answered.
func TestPlainListenerRefusalHoldsPeerDown(t *testing.T) {
	testenv.RequireRoot(t)
	tp := netns.NewPair(t, "pplr",
		netns.End{NS: "rtr", If: "p0", Addrs: []string{"192.0.2.1/24"}},
		netns.End{NS: "peer", If: "p1", Addrs: []string{"192.0.2.2/24"}})
	optmem := func(v string) {
		t.Helper()
		netns.Run(t, "ip", "netns", "exec", tp.A, "sysctl", "-q", "-w", "net.core.optmem_max="+v)
	}
	var ln net.Listener
	if err := netns.Do(tp.A, func() (err error) { ln, err = net.Listen("tcp4", "192.0.2.1:0"); return err }); err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	conf := fmt.Sprintf("listen-port = %d\nlisten-addresses = [\"192.0.2.1\"]\n", port) + `
[[peers]]
prefix = "192.0.2.0/24"
asn = 65010
password = "Range-Key-One"
`
	optmem("64")
	var logs testlog.Buffer
	m := New(Options{Config: cfg(t, conf), Logger: quietLogger(&logs), Sockets: tcpsock.ProcessSockets{}})
	b := newFakeBGP()
	if err := m.start(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	defer m.Stop(context.Background())
	refused := func(id, what string) {
		t.Helper()
		for _, ps := range m.Status() {
			if ps.Address == id && (ps.Auth.Installed || ps.State != "admin-down" || !strings.Contains(ps.Auth.Error, "cannot allocate memory")) {
				t.Fatalf("%s: status %+v", what, ps)
			}
		}
	}
	ranges := func() int { b.mu.Lock(); defer b.mu.Unlock(); return len(b.dyn) }
	if ranges() != 0 {
		t.Fatal("a range whose key the kernel refused reached GoBGP")
	}
	refused("192.0.2.0/24", "the kernel refused the range's key")

	optmem("20480")
	m.Reconcile(context.Background()) // the retry installs it and releases the range
	if ranges() != 1 {
		t.Fatal("the range did not come once its key installed")
	}

	optmem("64")
	if _, err := m.Reload(context.Background(), cfg(t, conf+`
[[peers]]
address = "192.0.2.2"
asn = 65002
password = "Plain-Key-Two"
`)); err != nil {
		t.Logf("reload: %v", err)
	}
	if p := b.peer("192.0.2.2"); p == nil || !p.Conf.AdminDown {
		t.Fatalf("a static peer whose key the kernel refused must be held down: %+v", p.GetConf())
	}
	refused("192.0.2.2", "the kernel refused the static peer's key")
	err := netns.Do(tp.B, func() error {
		c, err := net.DialTimeout("tcp4", fmt.Sprintf("192.0.2.1:%d", port), 1500*time.Millisecond)
		if err == nil {
			c.Close()
			return errors.New("an unsigned connection from the held-down peer was answered")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(logs.String(), "Key-One") || strings.Contains(logs.String(), "Key-Two") {
		t.Fatal("secret in logs")
	}
}
