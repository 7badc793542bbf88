//go:build linux

package dropwatch

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/kdrops"
	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/status"
	"github.com/authbgp/authbgpd/tcpsock"
)

// TestKernelInterfacePeers runs the kernel path: a router R with links
// eth1 and eth2 whose far ends (namespaces p1, p2) both have fe80::2, and
// a Watcher of ifConfig (interface peers eth1 and eth2) on a real
// kdrops.Counter in R. A wrong-key SYN from fe80::2 on eth1 is eth1's
// peer's bad digest, not eth2's; an unsigned SYN from fe80::2 on eth2 is
// eth2's missing signature, not eth1's.
func TestKernelInterfacePeers(t *testing.T) {
	testenv.RequireRoot(t)
	tp := netns.New(t, "dwif")
	r, p1, p2 := tp.Add("r"), tp.Add("p1"), tp.Add("p2")
	tp.Link(r, "eth1", []string{"fe80::1/64"}, p1, "eth0", []string{"fe80::2/64"})
	tp.Link(r, "eth2", []string{"fe80::1/64"}, p2, "eth0", []string{"fe80::2/64"})

	var ctr *kdrops.Counter
	err := netns.Do(r, func() (err error) { ctr, err = kdrops.Open(); return err })
	if errors.Is(err, kdrops.ErrUnsupported) {
		testenv.SkipKernelLacks(t, "TCP authentication drop tracepoints (Linux 6.7) with BTF", err.Error())
	}
	if err != nil {
		t.Fatalf("kdrops.Open in %s: %v", r, err)
	}
	defer ctr.Close()
	if err := ctr.IfIndexErr(); err != nil {
		t.Fatalf("IfIndexErr = %v", err)
	}
	// The daemon names interfaces in its own namespace; here that is R's.
	ifName := func(i int) (name string, err error) {
		err = netns.Do(r, func() error {
			ifc, err := net.InterfaceByIndex(i)
			if err == nil {
				name = ifc.Name
			}
			return err
		})
		return name, err
	}
	l, _ := logtest.NewNullLogger()
	w := New(parse(t, ifConfig), ctr, nil, logrus.NewEntry(l), Options{IfName: ifName})

	ll1, ll2 := netip.MustParseAddr("fe80::1"), netip.MustParseAddr("fe80::2")
	var ln net.Listener
	if err := netns.Do(r, func() (err error) {
		var lc net.ListenConfig
		lc.SetMultipathTCP(false)
		ln, err = lc.Listen(context.Background(), "tcp6", "[::]:17279")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	rc, err := ln.(*net.TCPListener).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	if err := tcpsock.SetKey(rc, md5auth.AddrKey(ll2, []byte(secretMD5))); err != nil {
		t.Fatal(err)
	}

	// dial from fe80::2 in ns to fe80::1:17279 (numeric zones: Go's zone
	// cache is the process's, not the namespace's), signing with secret
	// unless nil; the SYNs must be dropped.
	dial := func(ns string, secret []byte) error {
		return netns.Do(ns, func() error {
			ifc, err := net.InterfaceByName("eth0")
			if err != nil {
				return err
			}
			z := strconv.Itoa(ifc.Index)
			d := net.Dialer{Timeout: 1500 * time.Millisecond, LocalAddr: &net.TCPAddr{IP: ll2.AsSlice(), Zone: z}}
			d.SetMultipathTCP(false)
			if secret != nil {
				d.Control = func(_, _ string, c syscall.RawConn) error { return tcpsock.SetKey(c, md5auth.AddrKey(ll1, secret)) }
			}
			c, err := d.Dial("tcp6", netip.AddrPortFrom(ll1.WithZone(z), 17279).String())
			if err == nil {
				c.Close()
				return errors.New("connected, want the SYNs dropped")
			}
			if ne := net.Error(nil); !errors.As(err, &ne) || !ne.Timeout() {
				return err
			}
			return nil
		})
	}
	if err := dial(p1, []byte("Dropwatch-Wrong-Key-Heron")); err != nil {
		t.Fatalf("wrong-key dial from p1 (eth1): %v", err)
	}
	if err := w.Poll(); err != nil {
		t.Fatal(err)
	}
	c1, c2 := peerCountsOf(w, "eth1"), peerCountsOf(w, "eth2")
	t.Logf("after a wrong-key SYN on eth1: eth1 %v, eth2 %v, other %d", c1, c2, otherOf(w))
	if c1[kdrops.BadDigest] == 0 || c1.total() != c1[kdrops.BadDigest] || c2.total() != 0 {
		t.Fatalf("eth1 %v, eth2 %v: want eth1's bad digests, nothing of eth2", c1, c2)
	}
	if err := dial(p2, nil); err != nil {
		t.Fatalf("unsigned dial from p2 (eth2): %v", err)
	}
	if err := w.Poll(); err != nil {
		t.Fatal(err)
	}
	d1, c2 := peerCountsOf(w, "eth1"), peerCountsOf(w, "eth2")
	t.Logf("after an unsigned SYN on eth2: eth1 %v, eth2 %v, other %d", d1, c2, otherOf(w))
	if d1 != c1 || c2[kdrops.Missing] == 0 || c2.total() != c2[kdrops.Missing] || otherOf(w) != 0 {
		t.Fatalf("eth1 %v, eth2 %v, other %d: want eth2's missing signatures, eth1 unchanged, none of no peer", d1, c2, otherOf(w))
	}

	st := status.Status{Peers: []status.Peer{
		{Address: "fe80::2%eth1", Interface: "eth1", Auth: status.Auth{Mode: config.AuthMD5}},
		{Address: "fe80::2%eth2", Interface: "eth2", Auth: status.Auth{Mode: config.AuthMD5}},
	}}
	w.Merge(&st)
	if kd := st.Peers[0].KernelDrops; kd == nil || kd.Diagnosis != DiagBadDigest || kd.Missing != 0 {
		t.Errorf("eth1 /status kernel_drops %+v, want bad-digest", kd)
	}
	if kd := st.Peers[1].KernelDrops; kd == nil || kd.Diagnosis != DiagMissing || kd.BadDigest != 0 {
		t.Errorf("eth2 /status kernel_drops %+v, want missing", kd)
	}
}

func peerCountsOf(w *Watcher, id string) counts {
	w.mu.Lock()
	defer w.mu.Unlock()
	if ps := w.peers[id]; ps != nil {
		return ps.counts
	}
	return counts{}
}

func otherOf(w *Watcher) uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.other
}
