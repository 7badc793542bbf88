//go:build linux

package shadow

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/metrics"
	"github.com/authbgp/authbgpd/peerindex"
	"github.com/authbgp/authbgpd/tcpsock"
)

// TestRunnerWorkers runs the live Runner with two workers (rings and
// checkers) in a namespace while eight keyed peers, at eight addresses,
// talk to it: the even ones with our key, the odd ones with a wrong one.
// Every peer must get its diagnosis and counts, whichever worker its
// address pair went to; both workers must have had peers (the fanout
// really split them); and, under the race detector, the workers must
// share nothing unguarded.
func TestRunnerWorkers(t *testing.T) {
	testenv.RequireRoot(t)
	tp := netns.New(t, "shrun")
	a, b := tp.Add("a"), tp.Add("b")
	tp.Link(a, "eth0", []string{"192.0.2.1/24"}, b, "eth0", []string{"192.0.2.2/24"})
	var toml strings.Builder
	toml.WriteString("[global]\nasn = 65001\nrouter-id = \"192.0.2.1\"\n[shadow]\nenabled = true\nworkers = 2\n")
	const n = 8
	peers := make([]netip.Addr, n)
	for i := range n {
		peers[i] = netip.AddrFrom4([4]byte{192, 0, 2, byte(10 + i)})
		netns.Run(t, "ip", "-n", b, "addr", "add", peers[i].String()+"/24", "dev", "eth0")
		fmt.Fprintf(&toml, "[[peers]]\naddress = %q\nasn = 65002\npassword = \"Secret-%d\"\n", peers[i], i)
	}
	cfg, err := config.Parse("r.toml", []byte(toml.String()))
	if err != nil {
		t.Fatal(err)
	}
	log := logrus.New()
	log.SetOutput(io.Discard)
	r := NewRunner(peerindex.New(cfg), log, metrics.New("test"), RunnerOptions{})
	if r.Workers() != 2 {
		t.Fatalf("%d workers, want 2", r.Workers())
	}
	if err := netns.Do(a, func() error { return r.Start(context.Background()) }); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Stop(context.Background()) })
	if st := r.CaptureStatus(); !st.Running || st.Workers != 2 || st.Error != "" {
		t.Fatalf("capture: %+v", st)
	}

	// Our listener holds every peer's key.
	var ln net.Listener
	if err := netns.Do(a, func() (err error) {
		lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
			for i, p := range peers {
				if err := tcpsock.SetKey(c, md5auth.AddrKey(p, []byte(fmt.Sprintf("Secret-%d", i)))); err != nil {
					return err
				}
			}
			return nil
		}}
		ln, err = lc.Listen(context.Background(), "tcp4", "192.0.2.1:179")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); io.Copy(c, c) }()
		}
	}()
	var wg sync.WaitGroup
	for i, p := range peers {
		secret := fmt.Sprintf("Secret-%d", i)
		if i%2 == 1 {
			secret = "Wrong-Key"
		}
		wg.Go(func() {
			// A wrong key: the SYNs are dropped; each attempt sends one.
			attempts := 1
			if i%2 == 1 {
				attempts = 4
			}
			for range attempts {
				var c net.Conn
				err := netns.Do(b, func() (err error) {
					d := net.Dialer{Timeout: 300 * time.Millisecond, LocalAddr: net.TCPAddrFromAddrPort(netip.AddrPortFrom(p, 0)),
						Control: func(_, _ string, rc syscall.RawConn) error {
							return tcpsock.SetKey(rc, md5auth.AddrKey(netip.MustParseAddr("192.0.2.1"), []byte(secret)))
						}}
					c, err = d.Dial("tcp4", "192.0.2.1:179")
					return err
				})
				if i%2 == 1 {
					if err == nil {
						c.Close()
						t.Errorf("%v: connected with a wrong key", p)
					}
					continue
				}
				if err != nil {
					t.Errorf("%v: %v", p, err)
					return
				}
				buf := make([]byte, 100)
				for range 5 {
					c.Write(buf)
					io.ReadFull(c, buf)
				}
				c.Close()
			}
		})
	}
	wg.Wait()

	deadline := time.Now().Add(5 * time.Second)
	for {
		reps := r.Reports()
		var wrong []string
		for i, p := range peers {
			want := DiagOK
			if i%2 == 1 {
				want = DiagBadDigest
			}
			rep, ok := reps[p.String()]
			switch {
			case !ok:
				wrong = append(wrong, fmt.Sprintf("%v: no report", p))
			case rep.Diagnosis != want:
				wrong = append(wrong, fmt.Sprintf("%v: %s, want %s", p, rep.Diagnosis, want))
			case want == DiagOK && (rep.Received.Valid < 5 || rep.Sent.Valid < 5 || rep.Received.BadDigest+rep.Sent.Invalid+rep.Sent.Unsigned != 0):
				wrong = append(wrong, fmt.Sprintf("%v: counts %+v %+v", p, rep.Received, rep.Sent))
			case want == DiagBadDigest && (rep.Received.BadDigest < 3 || rep.Received.Valid != 0):
				wrong = append(wrong, fmt.Sprintf("%v: counts %+v", p, rep.Received))
			}
		}
		if len(wrong) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 5 s:\n  %s", strings.Join(wrong, "\n  "))
		}
		time.Sleep(100 * time.Millisecond)
	}
	for i, c := range r.chks {
		if got := len(c.Reports(time.Now())); got == 0 {
			t.Errorf("worker %d saw no peer: the fanout did not split the address pairs", i)
		}
	}
}
