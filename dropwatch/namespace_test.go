package dropwatch

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/authbgp/authbgpd/aocount"
	"github.com/authbgp/authbgpd/status"
	"github.com/authbgp/authbgpd/tcpsock"
)

// reads is a fake tcpsock.ReadKernelCounters giving its reads in turn.
type reads struct {
	c   []tcpsock.KernelCounters
	err []error
	i   int
}

func (r *reads) read() (tcpsock.KernelCounters, error) {
	i := min(r.i, len(r.c)-1)
	r.i++
	var err error
	if i < len(r.err) {
		err = r.err[i]
	}
	if err != nil {
		return tcpsock.KernelCounters{}, err
	}
	return r.c[i], nil
}

// TestNamespaceStatus: /status kernel gives the counters and their growth
// since the start read, TCP-MD5 and TCP-AO, in the contract's JSON names.
func TestNamespaceStatus(t *testing.T) {
	r := &reads{c: []tcpsock.KernelCounters{
		{NotFound: 5, Unexpected: 1, Failure: 2, HasAO: true, AO: aocount.Counts{Good: 100, Bad: 1}},
		{NotFound: 7, Unexpected: 1, Failure: 5, HasAO: true, AO: aocount.Counts{Good: 150, Bad: 4, AORequired: 2}},
	}}
	n := NewNamespace(r.read)
	st := n.Status()
	want := &status.Kernel{
		MD5Drops:           status.Drops{Missing: 7, Unexpected: 1, BadDigest: 5},
		MD5DropsSinceStart: status.Drops{Missing: 2, BadDigest: 3},
		AO:                 &aocount.Counts{Good: 150, Bad: 4, AORequired: 2},
		AOSinceStart:       &aocount.Counts{Good: 50, Bad: 3, AORequired: 2},
	}
	got, _ := json.Marshal(st)
	w, _ := json.Marshal(want)
	if string(got) != string(w) {
		t.Fatalf("Status:\n%s\nwant:\n%s", got, w)
	}
	const wantJSON = `{"tcp_md5_drops":{"missing":7,"unexpected":1,"bad_digest":5},"tcp_md5_drops_since_start":{"missing":2,"unexpected":0,"bad_digest":3},` +
		`"tcp_ao":{"good":150,"bad":4,"key_not_found":0,"ao_required":2,"dropped_icmp":0},"tcp_ao_since_start":{"good":50,"bad":3,"key_not_found":0,"ao_required":2,"dropped_icmp":0}}`
	if string(got) != wantJSON {
		t.Fatalf("JSON %s, want %s", got, wantJSON)
	}
	m, err := n.Metrics()
	if err != nil || m.Missing != 7 || m.Unexpected != 1 || m.BadDigest != 5 || m.AO == nil || *m.AO != (aocount.Counts{Good: 150, Bad: 4, AORequired: 2}) {
		t.Fatalf("Metrics = %+v (AO %+v), %v", m, m.AO, err)
	}
}

// TestNamespaceNoAO: a kernel without TCP-AO has no tcp_ao in /status and
// no AO in the metrics.
func TestNamespaceNoAO(t *testing.T) {
	r := &reads{c: []tcpsock.KernelCounters{{NotFound: 1}, {NotFound: 3}}}
	n := NewNamespace(r.read)
	st := n.Status()
	if st == nil || st.AO != nil || st.AOSinceStart != nil || st.MD5DropsSinceStart.Missing != 2 {
		t.Fatalf("Status = %+v", st)
	}
	if m, err := n.Metrics(); err != nil || m.AO != nil || m.Missing != 3 {
		t.Fatalf("Metrics = %+v, %v", m, err)
	}
}

// TestNamespaceUnreadable: counters that cannot be read give no /status
// kernel and the metric's error; unreadable at start, "since start" is
// since the namespace was made.
func TestNamespaceUnreadable(t *testing.T) {
	boom := errors.New("no netstat")
	r := &reads{c: []tcpsock.KernelCounters{{}, {Failure: 4, HasAO: true, AO: aocount.Counts{Good: 9}}, {}, {}},
		err: []error{boom, nil, boom, boom}}
	n := NewNamespace(r.read)
	st := n.Status()
	if st == nil || st.MD5DropsSinceStart != st.MD5Drops || st.MD5Drops.BadDigest != 4 || *st.AOSinceStart != *st.AO || st.AO.Good != 9 {
		t.Fatalf("Status after an unreadable start = %+v", st)
	}
	if st := n.Status(); st != nil {
		t.Fatalf("Status of unreadable counters = %+v, want nil", st)
	}
	if _, err := n.Metrics(); !errors.Is(err, boom) {
		t.Fatalf("Metrics error = %v, want %v", err, boom)
	}
}
