package tcpsock

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/md5auth"
)

// BenchmarkLook is the reconciler's look at the sockets (Scan, and a light
// pass's ScanLight) with a 1,000-peer speaker's shape: a listener holding
// 500 keys and 1,000 keyed connections (2,000 sockets of this process: both
// ends are here). Run as root, with `ulimit -n` above 2,100.
func BenchmarkLook(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("SKIP: needs root (reading keys back needs CAP_NET_ADMIN)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	port := uint16(ln.Addr().(*net.TCPAddr).Port)
	rc, err := ln.(*net.TCPListener).SyscallConn()
	if err != nil {
		b.Fatal(err)
	}
	loop := md5auth.AddrKey(netip.MustParseAddr("127.0.0.1"), []byte("bench-loopback"))
	for i := 0; i < 500; i++ {
		k := md5auth.AddrKey(netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}), []byte(fmt.Sprintf("bench-key-%03d", i)))
		if err := SetKey(rc, k); err != nil {
			b.Fatal(err)
		}
	}
	if err := SetKey(rc, loop); err != nil {
		b.Fatal(err)
	}
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
	}()
	d := net.Dialer{Timeout: 5 * time.Second, Control: func(_, _ string, c syscall.RawConn) error { return SetKey(c, loop) }}
	for i := 0; i < 1000; i++ {
		c, err := d.Dial("tcp", ln.Addr().String())
		if err != nil {
			b.Fatal(err)
		}
		s, err := ln.Accept()
		if err != nil {
			b.Fatal(err)
		}
		conns = append(conns, c, s)
	}
	// Each sub-benchmark times the light look against the full one in
	// the same loop (the machine's noise hits both), and reports the
	// ratio.
	look := func(light bool) time.Duration {
		t0 := time.Now()
		s := scanPort(port, light)
		if _, err := s.Observe(); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	b.Run("light-vs-full", func(b *testing.B) {
		b.ReportAllocs()
		var full, light time.Duration
		for b.Loop() {
			full += look(false)
			light += look(true)
		}
		b.ReportMetric(float64(light)/float64(full), "light/full")
		b.ReportMetric(float64(full.Microseconds())/float64(b.N), "full-µs/op")
		b.ReportMetric(float64(light.Microseconds())/float64(b.N), "light-µs/op")
	})
	b.Run("walk-vs-full", func(b *testing.B) {
		var full, walk time.Duration
		for b.Loop() {
			full += look(false)
			t0 := time.Now()
			if err := socketFds(func(int, uint64) bool { return true }); err != nil {
				b.Fatal(err)
			}
			walk += time.Since(t0)
		}
		b.ReportMetric(float64(walk)/float64(full), "walk/full")
	})
}
