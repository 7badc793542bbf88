package metrics

import (
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestPeerKernelDrops(t *testing.T) {
	m := New("test")
	var mu sync.Mutex
	series := []PeerKernelDrops{
		{"192.0.2.2", "bad_digest", 0}, {"192.0.2.2", "missing", 0}, {"192.0.2.2", "unexpected", 0}, {"192.0.2.2", "bad_option", 0},
	}
	read := func() []PeerKernelDrops {
		mu.Lock()
		defer mu.Unlock()
		return append([]PeerKernelDrops(nil), series...)
	}
	if err := m.ReadPeerKernelDrops(read); err != nil {
		t.Fatal(err)
	}
	if err := m.ReadPeerKernelDrops(read); err == nil {
		t.Error("a second ReadPeerKernelDrops registered a duplicate collector")
	}
	// Every series read is there from the first scrape, at 0.
	head := `
# HELP authbgpd_peer_kernel_drops_total Segments the kernel itself dropped from the peer for TCP-MD5/TCP-AO since the daemon started (counted with eBPF on the kernel's drop tracepoints), by reason: bad_digest, missing, unexpected, bad_option, ao_bad, ao_key_not_found, ao_required. A dynamic range sums its sessions.
# TYPE authbgpd_peer_kernel_drops_total counter
`
	want := head + `authbgpd_peer_kernel_drops_total{peer="192.0.2.2",reason="bad_digest"} 0
authbgpd_peer_kernel_drops_total{peer="192.0.2.2",reason="bad_option"} 0
authbgpd_peer_kernel_drops_total{peer="192.0.2.2",reason="missing"} 0
authbgpd_peer_kernel_drops_total{peer="192.0.2.2",reason="unexpected"} 0
`
	if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(want), "authbgpd_peer_kernel_drops_total"); err != nil {
		t.Fatal(err)
	}
	// Read again at each scrape: counts move, a new peer appears, a
	// series no longer returned goes.
	mu.Lock()
	series = []PeerKernelDrops{
		{"192.0.2.2", "bad_digest", 7}, {"192.0.2.2", "missing", 0}, {"192.0.2.2", "unexpected", 0}, {"192.0.2.2", "bad_option", 1},
		{"192.0.2.0/24", "ao_key_not_found", 3},
	}
	mu.Unlock()
	want = head + `authbgpd_peer_kernel_drops_total{peer="192.0.2.0/24",reason="ao_key_not_found"} 3
authbgpd_peer_kernel_drops_total{peer="192.0.2.2",reason="bad_digest"} 7
authbgpd_peer_kernel_drops_total{peer="192.0.2.2",reason="bad_option"} 1
authbgpd_peer_kernel_drops_total{peer="192.0.2.2",reason="missing"} 0
authbgpd_peer_kernel_drops_total{peer="192.0.2.2",reason="unexpected"} 0
`
	if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(want), "authbgpd_peer_kernel_drops_total"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	series = series[4:]
	mu.Unlock()
	mustAbsent(t, m, "authbgpd_peer_kernel_drops_total", map[string]string{"peer": "192.0.2.2", "reason": "bad_digest"})
	mustValue(t, m, "authbgpd_peer_kernel_drops_total", map[string]string{"peer": "192.0.2.0/24", "reason": "ao_key_not_found"}, 3)

	problems, err := testutil.GatherAndLint(m.Registry(), "authbgpd_peer_kernel_drops_total")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}

	var nilm *Metrics
	if err := nilm.ReadPeerKernelDrops(read); err != nil {
		t.Fatal(err)
	}
}
