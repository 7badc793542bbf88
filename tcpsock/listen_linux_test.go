//go:build linux

package tcpsock

import (
	"context"
	"net"
	"net/netip"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/md5auth"
)

const portListenKeys = 18011

// TestListenKeysFirstSYN: a listener keyed through ListenKeys in its
// ListenConfig's Control (as GoBGP's listener hook does, patch 0035)
// refuses an unsigned SYN from the first moment it listens: a peer that
// dials unsigned in a loop from before the listener exists until after
// is never accepted, and a signed dial is.
func TestListenKeysFirstSYN(t *testing.T) {
	t.Parallel()
	tp := newTopo(t, "lkeys")
	dst := ap(srvV4, portListenKeys)
	var accepted, tries atomic.Int64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { // the unsigned peer, dialing from before the listen
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			tries.Add(1)
			_ = netns.Do(tp.cli, func() error {
				d := net.Dialer{Timeout: 100 * time.Millisecond, LocalAddr: &net.TCPAddr{IP: cliV4.AsSlice()}}
				c, err := d.Dial("tcp4", dst.String())
				if err == nil {
					accepted.Add(1)
					_ = c.Close()
				}
				return nil
			})
			time.Sleep(5 * time.Millisecond)
		}
	}()
	time.Sleep(200 * time.Millisecond)
	var l net.Listener
	err := netns.Do(tp.srv, func() (err error) {
		var lc net.ListenConfig
		lc.SetMultipathTCP(false)
		lc.Control = func(_, address string, rc syscall.RawConn) error {
			return ProcessSockets{}.ListenKeys(rc, netip.MustParseAddrPort(address), []md5auth.Key{md5auth.AddrKey(cliV4, secretA)}, nil)
		}
		l, err = lc.Listen(context.Background(), "tcp4", dst.String())
		return err
	})
	if err != nil {
		noSecret(t, err)
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	time.Sleep(time.Second)
	close(stop)
	<-done
	if n := accepted.Load(); n != 0 {
		t.Fatalf("%d of %d unsigned dials were accepted by a listener keyed before listen", n, tries.Load())
	}
	c, err := dial(tp.cli, cliV4, dst, keyPtr(md5auth.AddrKey(srvV4, secretA)))
	noSecret(t, err)
	if err != nil {
		t.Fatalf("signed dial: %v", err)
	}
	_ = c.Close()
	t.Logf("%d unsigned dials, none accepted", tries.Load())
}
