package tcpsock

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/authbgp/authbgpd/aocount"
)

func TestParseNetstat(t *testing.T) {
	b, err := os.ReadFile("testdata/netstat.txt") // a real /proc/net/netstat (Linux 6.x)
	if err != nil {
		t.Fatal(err)
	}
	c, err := ParseNetstat(b)
	if err != nil {
		t.Fatal(err)
	}
	// The file's own figures, read independently of the parser.
	want := map[string]uint64{}
	lines := strings.Split(string(b), "\n")
	for i := 0; i+1 < len(lines); i++ {
		n, v := strings.Fields(lines[i]), strings.Fields(lines[i+1])
		if len(n) == 0 || n[0] != "TcpExt:" {
			continue
		}
		for j := range n {
			if strings.HasPrefix(n[j], "TCPMD5") {
				want[n[j]] = parseU(t, v[j])
			}
		}
		break
	}
	got := map[string]uint64{"TCPMD5NotFound": c.NotFound, "TCPMD5Unexpected": c.Unexpected, "TCPMD5Failure": c.Failure}
	for k, v := range got {
		if want[k] != v {
			t.Errorf("%s = %d, want %d", k, v, want[k])
		}
	}
}

func parseU(t *testing.T, s string) uint64 {
	var v uint64
	for _, r := range s {
		if r < '0' || r > '9' {
			t.Fatalf("not a number: %q", s)
		}
		v = v*10 + uint64(r-'0')
	}
	return v
}

func TestParseNetstatCases(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     KernelCounters
		err      error // errors.Is target; nil: no error
		anyErr   bool
	}{
		{name: "values", in: "TcpExt: A TCPMD5NotFound TCPMD5Unexpected TCPMD5Failure B\nTcpExt: 9 1 2 3 9\n", want: KernelCounters{NotFound: 1, Unexpected: 2, Failure: 3}},
		{name: "other sections first", in: "IpExt: TCPMD5Failure\nIpExt: 7\nTcpExt: TCPMD5Failure\nTcpExt: 5\n", want: KernelCounters{Failure: 5}},
		{name: "large", in: "TcpExt: TCPMD5Failure\nTcpExt: 18446744073709551615\n", want: KernelCounters{Failure: 1<<64 - 1}},
		{name: "no md5 counters", in: "TcpExt: A B\nTcpExt: 1 2\n", err: ErrNoMD5Counters},
		{name: "empty", in: "", err: ErrNoMD5Counters},
		{name: "names without values", in: "TcpExt: TCPMD5Failure\n", err: ErrNoMD5Counters},
		{name: "short values", in: "TcpExt: TCPMD5Failure TCPMD5NotFound\nTcpExt: 1\n", anyErr: true},
		{name: "not a number", in: "TcpExt: TCPMD5Failure\nTcpExt: x\n", anyErr: true},
		{name: "negative", in: "TcpExt: TCPMD5Failure\nTcpExt: -1\n", anyErr: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseNetstat([]byte(c.in))
			switch {
			case c.err != nil && !errors.Is(err, c.err):
				t.Fatalf("err = %v, want %v", err, c.err)
			case c.anyErr && err == nil:
				t.Fatalf("no error, got %+v", got)
			case c.err == nil && !c.anyErr && err != nil:
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

// FuzzParseNetstat: any input gives counters or an error, never both, and
// the counters are those of the last TcpExt value line naming them.
func FuzzParseNetstat(f *testing.F) {
	if b, err := os.ReadFile("testdata/netstat.txt"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("TcpExt: TCPMD5Failure\nTcpExt: 5\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ParseNetstat(b)
		if err != nil && c != (KernelCounters{}) {
			t.Fatalf("error %v with counters %+v", err, c)
		}
		if err == nil && !strings.Contains(string(b), "TCPMD5") {
			t.Fatalf("counters %+v from input without TCPMD5", c)
		}
	})
}

// TestParseNetstatTCPAO: the TCP-AO counters of a kernel with TCP-AO are
// read beside the TCP-MD5 ones; a kernel without them says so (HasAO).
func TestParseNetstatTCPAO(t *testing.T) {
	text := "TcpExt: SyncookiesSent TCPMD5NotFound TCPMD5Unexpected TCPMD5Failure TCPAORequired TCPAOBad TCPAOKeyNotFound TCPAOGood TCPAODroppedIcmps\n" +
		"TcpExt: 1 2 3 4 5 6 7 8 9\n"
	c, err := ParseNetstat([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if !c.HasAO || c.NotFound != 2 || c.Failure != 4 || c.AO != (aocount.Counts{Good: 8, Bad: 6, KeyNotFound: 7, AORequired: 5, DroppedICMP: 9}) {
		t.Fatalf("%+v", c)
	}
	c, err = ParseNetstat([]byte("TcpExt: TCPMD5NotFound TCPMD5Unexpected TCPMD5Failure\nTcpExt: 1 2 3\n"))
	if err != nil || c.HasAO {
		t.Fatalf("without TCP-AO: %+v %v", c, err)
	}
}

// TestKernelCountersSince: the growth since a start read, TCP-MD5 and
// TCP-AO alike; a counter below the start's counts from 0; without TCP-AO
// at start the TCP-AO counters are given whole.
func TestKernelCountersSince(t *testing.T) {
	start := KernelCounters{NotFound: 5, Unexpected: 2, Failure: 9, HasAO: true, AO: aocount.Counts{Good: 100, Bad: 1, DroppedICMP: 4}}
	now := KernelCounters{NotFound: 7, Unexpected: 2, Failure: 3, HasAO: true, AO: aocount.Counts{Good: 150, Bad: 3, KeyNotFound: 2, DroppedICMP: 4}}
	want := KernelCounters{NotFound: 2, Unexpected: 0, Failure: 3, HasAO: true, AO: aocount.Counts{Good: 50, Bad: 2, KeyNotFound: 2}}
	if got := now.Since(start); got != want {
		t.Fatalf("Since = %+v, want %+v", got, want)
	}
	noAO := KernelCounters{NotFound: 1}
	if got, want := now.Since(noAO), (KernelCounters{NotFound: 6, Unexpected: 2, Failure: 3, HasAO: true, AO: now.AO}); got != want {
		t.Fatalf("Since(a read without TCP-AO) = %+v, want %+v", got, want)
	}
	if got := noAO.Since(start); got.HasAO || got.AO != (aocount.Counts{}) {
		t.Fatalf("a read without TCP-AO has no TCP-AO growth: %+v", got)
	}
}
