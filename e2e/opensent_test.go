package e2e

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
)

// TestStuckOpenSent: the far end takes the connection our GoBGP dials and
// never answers on it (its end of it was lost), and dials us every 2.2 s,
// as a router with no session does. GoBGP, in OpenSent on the lost
// connection, closes each of those dials; left alone it would do so until
// its OpenSent hold timer fires (minutes). authbgpd restarts the neighbor
// after the second refused dial, and the far end's next dial is answered
// with GoBGP's OPEN.
func TestStuckOpenSent(t *testing.T) {
	testenv.RequireRoot(t)
	t.Parallel()
	pair := newPair(t, "stos", false)
	tp, nsA, nsB := pair.Topology, pair.A, pair.B
	local, remote := netip.AddrPortFrom(pairB4, 0), netip.AddrPortFrom(pairA4, 179)

	// The far end's listener: it keeps what our GoBGP dials, silent.
	var ln net.Listener
	if err := netns.Do(nsB, func() (err error) {
		ln, err = net.Listen("tcp4", netip.AddrPortFrom(pairB4, 179).String())
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var held []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	heldN := func() int { mu.Lock(); defer mu.Unlock(); return len(held) }

	a := StartAuthbgpd(t, tp, nsA, abConfig(noWatch, abPeer{addr: pairB4.String(), asn: 65002}), AuthbgpdOptions{})
	waitFor(t, 20*time.Second, "our GoBGP's dial taken by the far end", func() error {
		if heldN() == 0 {
			return errors.New("no connection yet")
		}
		if p := a.Peer(pairB4.String()); p == nil || p.State != "opensent" {
			return errors.New("GoBGP not in OpenSent: " + peerString(p))
		}
		return nil
	})

	// The far end dials: refused (closed without a word) while GoBGP is
	// stuck, answered with an OPEN once the neighbor was restarted.
	dial := func() (open bool, err error) {
		var c net.Conn
		if err := netns.Do(nsB, func() (err error) {
			d := net.Dialer{LocalAddr: net.TCPAddrFromAddrPort(local), Timeout: 2 * time.Second}
			c, err = d.Dial("tcp4", remote.String())
			return err
		}); err != nil {
			return false, err
		}
		defer c.Close()
		_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
		hdr := make([]byte, 19)
		if _, err := io.ReadFull(c, hdr); err != nil {
			return false, nil // closed (or silent): refused
		}
		if !bytes.Equal(hdr[:16], bytes.Repeat([]byte{0xff}, 16)) || hdr[18] != 1 {
			return false, errors.New("GoBGP sent something other than an OPEN")
		}
		return true, nil
	}
	t0 := time.Now()
	refused := 0
	for {
		open, err := dial()
		if err != nil {
			t.Fatal(err)
		}
		if open {
			break
		}
		refused++
		if time.Since(t0) > 30*time.Second {
			t.Fatalf("GoBGP still turns the far end's dials away %v after the first (%d refused); authbgpd's log:\n%s", time.Since(t0).Round(time.Second), refused, a.Log())
		}
		time.Sleep(2200 * time.Millisecond)
	}
	t.Logf("the far end's dial answered with an OPEN %.1f s after its first refused dial (%d refused)", time.Since(t0).Seconds(), refused)
	if refused < 2 {
		t.Errorf("%d dials refused before one was answered: the test did not see GoBGP stuck", refused)
	}
	if !strings.Contains(a.Log(), "session stuck in OpenSent") {
		t.Errorf("authbgpd's log lacks the restart of the stuck neighbor:\n%s", a.Log())
	}
}
