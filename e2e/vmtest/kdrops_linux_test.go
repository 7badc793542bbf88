package vmtest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/kdrops"
)

// TestKernelDropsAO: on a kernel with TCP-AO, package kdrops counts the
// kernel's TCP-AO drops per peer and reason (the host's kernel has no
// TCP-AO: there only the TCP-MD5 reasons can be seen): clients without a
// key, with a wrong secret and with an unknown KeyID are counted as
// ao_required, ao_bad and ao_key_not_found, each exactly as the
// namespace's TcpExt counters moved (and the TCP-MD5 reasons as theirs);
// a good client is not counted at all.
func TestKernelDropsAO(t *testing.T) {
	requireVM(t)
	p := newAOPair(t)
	var ctr *kdrops.Counter
	if err := netns.Do(p.A, func() (err error) { ctr, err = kdrops.Open(); return err }); err != nil {
		t.Fatalf("kdrops.Open in the TCP-AO VM: %v", err)
	}
	defer ctr.Close()
	t.Logf("attached: %v", ctr.Tracepoints())
	for _, tp := range []string{"tcp_hash_ao_required", "tcp_ao_mismatch", "tcp_ao_key_not_found"} {
		found := false
		for _, a := range ctr.Tracepoints() {
			found = found || a == tp
		}
		if !found {
			t.Errorf("tracepoint %s not attached on a TCP-AO kernel", tp)
		}
	}
	secret := []byte("kdrops tcp-ao secret")
	srvKey := aoKey{peer: p.cli4, prefix: 32, alg: "hmac(sha1)", sndID: 1, rcvID: 1, secret: secret}
	good := aoKey{peer: p.srv4, prefix: 32, alg: "hmac(sha1)", sndID: 1, rcvID: 1, secret: secret}
	ln := p.listen(t, p.srv4, &srvKey)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	addr := ln.Addr().String()
	before := counters(t, p.A)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	c, err := p.dial(ctx, addr, &good)
	cancel()
	if err != nil {
		t.Fatalf("the keyed client: %v", err)
	}
	c.Close()
	wrong := good
	wrong.secret = []byte("not the kdrops secret")
	unknown := good
	unknown.sndID, unknown.rcvID = 9, 9
	for _, bad := range []struct {
		name    string
		key     *aoKey
		counter string
	}{
		{"no key", nil, "TCPAORequired"},
		{"wrong secret", &wrong, "TCPAOBad"},
		{"unknown KeyID", &unknown, "TCPAOKeyNotFound"},
	} {
		was := counters(t, p.A)[bad.counter]
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			c, err := p.dial(ctx, addr, bad.key)
			if err == nil {
				c.Close()
				err = errors.New("connected")
			} else {
				err = nil
			}
			errc <- err
		}()
		wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
		grew := netns.WaitFor(wctx, func() bool { return counters(t, p.A)[bad.counter] > was })
		wcancel()
		cancel()
		if err := <-errc; err != nil || !grew {
			t.Fatalf("client with %s: %v; TcpExt %s moved: %v", bad.name, err, bad.counter, grew)
		}
	}
	time.Sleep(500 * time.Millisecond) // no dial left: nothing more to drop
	after := counters(t, p.A)
	got, err := ctr.Counts()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("kdrops: %v", got)
	d := func(k string) uint64 { return after[k] - before[k] }
	for _, c := range []struct {
		r       kdrops.Reason
		counter string
	}{
		{kdrops.AORequired, "TCPAORequired"}, {kdrops.AOBad, "TCPAOBad"}, {kdrops.AOKeyNotFound, "TCPAOKeyNotFound"},
		{kdrops.Unexpected, "TCPMD5Unexpected"}, {kdrops.Missing, "TCPMD5NotFound"}, {kdrops.BadDigest, "TCPMD5Failure"},
	} {
		n := got[kdrops.Key{Addr: p.cli4, Reason: c.r}]
		t.Logf("%s from %s: %d; TcpExt %s +%d", c.r, p.cli4, n, c.counter, d(c.counter))
		if n != d(c.counter) {
			t.Errorf("%s from %s: %d, but TcpExt %s moved by %d", c.r, p.cli4, n, c.counter, d(c.counter))
		}
	}
	for k, n := range got {
		if k.Addr != p.cli4 {
			t.Errorf("counted %d drops from %s (%s): only %s dialed", n, k.Addr, k.Reason, p.cli4)
		}
	}
	if got[kdrops.Key{Addr: p.cli4, Reason: kdrops.AORequired}] == 0 || got[kdrops.Key{Addr: p.cli4, Reason: kdrops.AOBad}] == 0 ||
		got[kdrops.Key{Addr: p.cli4, Reason: kdrops.AOKeyNotFound}] == 0 {
		t.Errorf("not every TCP-AO reason counted: %v", got)
	}
}
