package e2e

import (
	"context"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
)

func TestAuthbgpdSmokeFRR(t *testing.T) {
	testenv.RequireRoot(t)
	tp := netns.New(t, "smoke")
	nsA, nsB := tp.Add("a"), tp.Add("b")
	tp.Link(nsA, "eth0", []string{"192.0.2.1/24", "2001:db8::1/64"}, nsB, "eth0", []string{"192.0.2.2/24", "2001:db8::2/64"})
	const key = "smoke-key-1"
	cfg := fmt.Sprintf(`[global]
asn = 65001
router-id = "192.0.2.1"
[[peers]]
address = "192.0.2.2"
asn = 65002
password-file = "pw"
[[peers]]
address = "2001:db8::2"
asn = 65002
password-file = "pw"
`)
	a := StartAuthbgpd(t, tp, nsA, cfg, AuthbgpdOptions{Files: map[string]string{"pw": key + "\n"}})
	f := StartFRR(t, tp, nsB, PeerConfig{ASN: 65002, RouterID: netip.MustParseAddr("192.0.2.2"),
		Neighbors: []Neighbor{{netip.MustParseAddr("192.0.2.1"), 65001, key}, {netip.MustParseAddr("2001:db8::1"), 65001, key}},
		Networks:  []netip.Prefix{netip.MustParsePrefix("198.51.100.0/24"), netip.MustParsePrefix("2001:db8:100::/48")}})
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	for _, addr := range []string{"192.0.2.2", "2001:db8::2"} {
		if err := WaitSession(ctx, a, netip.MustParseAddr(addr), 1); err != nil {
			t.Fatal(err)
		}
	}
	_ = f
	t.Logf("status: %+v", a.Status())
	a.StopClean()
}
