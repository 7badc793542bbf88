package shadow

import (
	"fmt"
	"io"
	"net/netip"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/peerindex"
)

// TestHistoryBounded: repeats are not changes, the last historyLen
// changes are kept oldest first, and /status gets them with times.
func TestHistoryBounded(t *testing.T) {
	var h history
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	h.add("192.0.2.2", DiagOK, t0)
	h.add("192.0.2.2", DiagOK, t0.Add(time.Second))
	if got := h.get("192.0.2.2"); len(got) != 1 || !got[0].At.Equal(t0) {
		t.Fatalf("a repeat counted as a change: %+v", got)
	}
	for i := 1; i <= 2*historyLen; i++ {
		d := DiagBadDigest
		if i%2 == 0 {
			d = DiagOK
		}
		h.add("192.0.2.2", d, t0.Add(time.Duration(i)*time.Minute))
	}
	got := h.get("192.0.2.2")
	if len(got) != historyLen {
		t.Fatalf("kept %d changes, want %d", len(got), historyLen)
	}
	if last := got[len(got)-1]; last.Diagnosis != DiagOK || !last.At.Equal(t0.Add(2*historyLen*time.Minute)) {
		t.Errorf("last change %+v", last)
	}
	st := historyOf(got)
	if want := fmt.Sprintf("2026-12-01T12:%02d:00Z", historyLen+1); st[0].At != want || st[0].Diagnosis != DiagBadDigest {
		t.Errorf("oldest kept %+v, want bad-digest at %s", st[0], want)
	}
	if h.get("192.0.2.3") != nil || historyOf(nil) != nil {
		t.Error("a peer without changes has a history")
	}
	for i := range 2 * historyPeers {
		h.add(fmt.Sprintf("10.%d.%d.1", i>>8, i&255), DiagOK, t0)
	}
	if len(h.m) != historyPeers {
		t.Errorf("%d addresses kept, want at most %d", len(h.m), historyPeers)
	}
}

// TestReportsCarryHistory: every diagnosis change the checker announces
// (logged or held by the log's rate limit) is in the history /status gets.
func TestReportsCarryHistory(t *testing.T) {
	c, err := config.Parse("r.toml", []byte("[global]\nasn = 65001\nrouter-id = \"192.0.2.1\"\n[[peers]]\naddress = \"192.0.2.2\"\nasn = 65002\npassword = \"Secret-Alpha\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	l := logrus.New()
	l.SetOutput(io.Discard)
	r := NewRunner(peerindex.New(c), l, nil, RunnerOptions{})
	a := netip.MustParseAddr("192.0.2.2")
	r.onChange(PeerReport{Address: a, PeerID: "192.0.2.2", Diagnosis: DiagMissing})
	r.onChange(PeerReport{Address: a, PeerID: "192.0.2.2", Diagnosis: DiagOK}) // held by the rate limit
	got := r.hist.get("192.0.2.2")
	if len(got) != 2 || got[0].Diagnosis != DiagMissing || got[1].Diagnosis != DiagOK {
		t.Fatalf("history %+v", got)
	}
	if s := StatusOf(PeerReport{History: got}); len(s.History) != 2 || s.History[1].Diagnosis != DiagOK {
		t.Errorf("status history %+v", s.History)
	}
}
