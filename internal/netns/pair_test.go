//go:build linux

package netns_test

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
)

func TestNewPair(t *testing.T) {
	testenv.RequireRoot(t)
	p := netns.NewPair(t, "pair",
		netns.End{NS: "a", If: "eth0", Addrs: []string{"192.0.2.1/24", "2001:db8::1/64"}},
		netns.End{NS: "b", If: "veth-b", Addrs: []string{"192.0.2.2/24"}})
	if p.A == p.B || !strings.HasSuffix(p.A, "-a") || !strings.HasSuffix(p.B, "-b") {
		t.Fatalf("namespaces %q, %q", p.A, p.B)
	}
	if out := netns.Run(t, "ip", "-n", p.A, "addr", "show", "dev", "eth0"); !strings.Contains(out, "192.0.2.1/24") || !strings.Contains(out, "2001:db8::1/64") {
		t.Errorf("a eth0:\n%s", out)
	}
	if out := netns.Run(t, "ip", "-n", p.B, "addr", "show", "dev", "veth-b"); !strings.Contains(out, "192.0.2.2/24") {
		t.Errorf("b veth-b:\n%s", out)
	}
	var ln net.Listener
	if err := netns.Do(p.B, func() (err error) { ln, err = net.Listen("tcp", "192.0.2.2:0"); return err }); err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := netns.Do(p.A, func() error {
		c, err := net.DialTimeout("tcp", ln.Addr().String(), 5*time.Second)
		if err == nil {
			c.Close()
		}
		return err
	}); err != nil {
		t.Errorf("dial a -> b: %v", err)
	}
	p.Close()
	if out := netns.Run(t, "ip", "netns", "list"); strings.Contains(out, p.A) || strings.Contains(out, p.B) {
		t.Errorf("namespaces left after Close:\n%s", out)
	}
}
