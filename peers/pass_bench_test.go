package peers

import (
	"context"
	"fmt"
	"io"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/keys"
	"github.com/authbgp/authbgpd/plugin"
	"github.com/authbgp/authbgpd/tcpsock"
)

// BenchmarkPass is the reconciler's own work in a pass at 1,000 TCP-MD5
// peers, all Established, with a socket layer that answers at once (the
// fake's look costs next to nothing): what a pass decides and tells,
// light (after session events) against full (GoBGP read back too), in the
// same loop.
func BenchmarkPass(b *testing.B) {
	const n = 1000
	var conf strings.Builder
	s := newFakeSockets()
	s.visible = true
	local := netip.MustParseAddrPort("[2001:db8::1]:179")
	for i := 0; i < n; i++ {
		a := netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 0, 1, 14: byte(i >> 8), 15: byte(i + 1)})
		secret := fmt.Sprintf("bench-secret-%04d", i)
		fmt.Fprintf(&conf, "[[peers]]\naddress = %q\nasn = 65002\npassword = %q\n", a, secret)
		s.socks = append(s.socks, tcpsock.SocketKeys{Local: local, Remote: netip.AddrPortFrom(a, 40000), Family: afInet6,
			Keys: []tcpsock.ObservedKey{{Prefix: netip.PrefixFrom(a, 128), Secret: keys.Secret(secret)}}})
	}
	m := New(Options{Config: cfg(b, conf.String()), Logger: quietLogger(io.Discard), Sockets: copyingSockets{s}, ReconcileEvery: time.Hour, ReconcileIdleEvery: time.Hour})
	fb := newFakeBGP()
	if err := m.start(context.Background(), fb); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = m.Stop(context.Background()) })
	for _, c := range s.socks {
		m.event(plugin.PeerEvent{Peer: c.Remote.Addr(), State: "established", Time: time.Now(), Local: local, Remote: c.Remote})
	}
	m.Reconcile(context.Background())
	time.Sleep(200 * time.Millisecond) // the kicked pass
	b.ReportAllocs()
	var light, full time.Duration
	for b.Loop() {
		t0 := time.Now()
		m.runPass(context.Background(), false)
		light += time.Since(t0)
		t0 = time.Now()
		m.runPass(context.Background(), true)
		full += time.Since(t0)
	}
	b.ReportMetric(float64(light)/float64(full), "light/full")
	b.ReportMetric(float64(light.Microseconds())/float64(b.N), "light-µs/op")
}

// copyingSockets observes copies of the fake's secrets, as the kernel's
// dump gives: each pass wipes what it observed.
type copyingSockets struct{ *fakeSockets }

func (c copyingSockets) Look(port uint16, _ bool) Look { return c.lookAt(c, port) }

func (c copyingSockets) Observe(port uint16) (Observed, error) {
	obs, err := c.fakeSockets.Observe(port)
	for i := range obs.Sockets {
		copied := make([]tcpsock.ObservedKey, len(obs.Sockets[i].Keys))
		for j, k := range obs.Sockets[i].Keys {
			copied[j] = tcpsock.ObservedKey{Prefix: k.Prefix, Secret: append(keys.Secret(nil), k.Secret...)}
		}
		obs.Sockets[i].Keys = copied
	}
	return obs, err
}
