package peers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"
	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/md5auth"
)

// Fail closed on a re-key, through the real socket path (SystemSockets,
// md5auth's discovery and setsockopt), not a test hook: the peer's key
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
	var logs strings.Builder
	c := cfg(t, conf)
	m := New(Options{Config: c, Logger: quietLogger(&logs), Sockets: SystemSockets{}})
	b := newFakeBGP()
	if err := m.start(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	defer m.Stop(context.Background())
	if p := b.peer("192.0.2.2"); p == nil || p.Conf.AdminDown {
		t.Fatalf("peer must be up after its key installed: %+v", p)
	}

	// The MPTCP listener on the same port (another loopback address).
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, md5auth.ProtoMPTCP)
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

func quietLogger(w io.Writer) *logrus.Logger {
	l := logrus.New()
	l.SetOutput(w)
	l.SetLevel(logrus.DebugLevel)
	return l
}
