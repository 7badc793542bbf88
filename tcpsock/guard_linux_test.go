package tcpsock

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strconv"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
)

// TestGuardProgram: one block per guard, jumps inside the program.
func TestGuardProgram(t *testing.T) {
	g := []Guard{{Addr: netip.MustParseAddr("fe80::2"), IfIndex: 3}, {Addr: netip.MustParseAddr("fe80::3"), IfIndex: 4}}
	p, err := GuardProgram(g)
	if err != nil {
		t.Fatal(err)
	}
	if len(p) != 2+12*len(g)+1 {
		t.Fatalf("%d instructions", len(p))
	}
	for i, ins := range p {
		if ins.Op&0x07 == 0x05 && i+1+int(ins.Jt) >= len(p) || ins.Op&0x07 == 0x05 && i+1+int(ins.Jf) >= len(p) {
			t.Fatalf("instruction %d jumps out of the program: %+v", i, ins)
		}
	}
	if _, err := GuardProgram([]Guard{{Addr: netip.MustParseAddr("192.0.2.2"), IfIndex: 3}}); err == nil {
		t.Fatal("an IPv4 guard was accepted")
	}
	many := make([]Guard, 22)
	for i := range many {
		many[i] = Guard{Addr: netip.MustParseAddr("fe80::2"), IfIndex: 3}
	}
	if _, err := GuardProgram(many); err == nil {
		t.Fatal("22 guards fit one filter's jump range")
	}
}

// TestGuardAdmitsOwnerOnly: a listener on [::] with a guard for fe80::2 on
// eth1 (put there through a Scan) takes a connection from fe80::2 arriving on eth1 and drops the SYNs
// of fe80::2 on eth2 (the far ends of two links with one address); without
// the guard both connect.
func TestGuardAdmitsOwnerOnly(t *testing.T) {
	testenv.RequireRoot(t)
	tp := netns.New(t, "guard")
	s, c1, c2 := tp.Add("s"), tp.Add("c1"), tp.Add("c2")
	tp.Link(s, "eth1", []string{"fe80::1/64"}, c1, "eth0", []string{"fe80::2/64"})
	tp.Link(s, "eth2", []string{"fe80::1/64"}, c2, "eth0", []string{"fe80::2/64"})
	l := listenEcho(t, s, "tcp6", netip.MustParseAddrPort("[::]:18190"))
	var eth1 int
	if err := netns.Do(s, func() error {
		ifi, err := net.InterfaceByName("eth1")
		if err == nil {
			eth1 = ifi.Index
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	_ = l
	// Through a look, as the reconciler puts them (Scan.SetListenerGuards).
	guard := func(g []Guard) error { return (ProcessSockets{}).Scan(18190).SetListenerGuards(g) }
	if err := (ProcessSockets{}).Scan(18191).SetListenerGuards(nil); !errors.Is(err, ErrSocketNotFound) {
		t.Fatalf("guards without a listener: %v, want ErrSocketNotFound", err)
	}
	dial := func(ns string) error {
		return netns.Do(ns, func() error {
			ifi, err := net.InterfaceByName("eth0")
			if err != nil {
				return err
			}
			zone := strconv.Itoa(ifi.Index) // numeric: the name cache is per process, not per namespace
			d := net.Dialer{Timeout: 2 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP("fe80::2"), Zone: zone}}
			conn, err := d.DialContext(context.Background(), "tcp6", "[fe80::1%"+zone+"]:18190")
			if err == nil {
				conn.Close()
			}
			return err
		})
	}
	for _, ns := range []string{c1, c2} {
		if err := dial(ns); err != nil {
			t.Fatalf("without a guard, %s cannot connect: %v", ns, err)
		}
	}
	if err := guard([]Guard{{Addr: netip.MustParseAddr("fe80::2"), IfIndex: eth1}}); err != nil {
		t.Fatal(err)
	}
	if err := dial(c1); err != nil {
		t.Fatalf("the owner's link cannot connect through the guard: %v", err)
	}
	if err := dial(c2); err == nil {
		t.Fatal("fe80::2 on the other link connected through the guard")
	}
	if err := guard(nil); err != nil {
		t.Fatal(err)
	}
	if err := dial(c2); err != nil {
		t.Fatalf("with the guard removed, c2 cannot connect: %v", err)
	}
}
