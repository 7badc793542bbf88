//go:build linux

package tcpsock

import (
	"testing"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/md5auth"
)

// TestReadKernelCounters provokes each of the three kernel drops in a
// namespace and reads them with ReadKernelCounters from inside it; the
// figures must match what the namespace's /proc/net/netstat says (read by
// another process) and rise by exactly the drops provoked.
func TestReadKernelCounters(t *testing.T) {
	tp := newTopo(t, "kc")
	read := func() KernelCounters {
		t.Helper()
		var c KernelCounters
		if err := netns.Do(tp.srv, func() (err error) { c, err = ReadKernelCounters(); return err }); err != nil {
			t.Fatal(err)
		}
		m := counters(t, tp.srv)
		if c.NotFound != m["TCPMD5NotFound"] || c.Unexpected != m["TCPMD5Unexpected"] || c.Failure != m["TCPMD5Failure"] {
			t.Fatalf("ReadKernelCounters = %+v, netstat of %s says %v/%v/%v", c, tp.srv, m["TCPMD5NotFound"], m["TCPMD5Unexpected"], m["TCPMD5Failure"])
		}
		return c
	}
	keyed := listenEcho(t, tp.srv, "tcp4", ap(srvV4, 17901))
	keyed.setKey(t, md5auth.AddrKey(cliV4, secretA))
	listenEcho(t, tp.srv, "tcp4", ap(srvV4, 17902)) // no key
	before := read()
	if err := dialFails(tp.cli, cliV4, ap(srvV4, 17901), nil); err != nil { // unsigned SYN to a keyed listener
		t.Fatal(err)
	}
	mid := read()
	if mid.NotFound <= before.NotFound || mid.Unexpected != before.Unexpected || mid.Failure != before.Failure {
		t.Errorf("after unsigned SYNs: %+v -> %+v, want only NotFound up", before, mid)
	}
	k := md5auth.AddrKey(srvV4, secretB)
	if err := dialFails(tp.cli, cliV4, ap(srvV4, 17902), &k); err != nil { // signed SYN, no key here
		t.Fatal(err)
	}
	wrong := md5auth.AddrKey(srvV4, secretX)
	if err := dialFails(tp.cli, cliV4, ap(srvV4, 17901), &wrong); err != nil { // wrong key
		t.Fatal(err)
	}
	after := read()
	if after.Unexpected <= mid.Unexpected || after.Failure <= mid.Failure {
		t.Errorf("after signed SYNs: %+v -> %+v, want Unexpected and Failure up", mid, after)
	}
	t.Logf("kernel TCP-MD5 drops: %+v -> %+v", before, after)
}
