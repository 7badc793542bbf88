package dropwatch

import (
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/authbgp/authbgpd/kdrops"
	"github.com/authbgp/authbgpd/metrics"
)

// TestMetrics: wired to the metrics package, every keyed peer's series
// are there from the first scrape at 0 (the TCP-MD5 reasons for TCP-MD5
// peers, all seven for TCP-AO ones, none for unkeyed peers), then count;
// a range sums its sessions.
func TestMetrics(t *testing.T) {
	r := newRig(t, Options{})
	m := metrics.New("test")
	if err := m.ReadPeerKernelDrops(r.w.MetricSeries); err != nil {
		t.Fatal(err)
	}
	md5 := func(peer string, bd, miss, unexp, opt int) []string {
		return []string{
			series(peer, "bad_digest", bd), series(peer, "bad_option", opt),
			series(peer, "missing", miss), series(peer, "unexpected", unexp),
		}
	}
	ao := []string{
		series("192.0.2.6", "ao_bad", 0), series("192.0.2.6", "ao_key_not_found", 0), series("192.0.2.6", "ao_required", 0),
	}
	ao = append(ao, md5("192.0.2.6", 0, 0, 0, 0)...)
	var want []string
	want = append(want, md5("192.0.2.2", 0, 0, 0, 0)...)
	want = append(want, ao...)
	want = append(want, md5("198.51.100.0/24", 0, 0, 0, 0)...)
	want = append(want, md5("198.51.100.128/25", 0, 0, 0, 0)...)
	want = append(want, md5("2001:db8::2", 0, 0, 0, 0)...)
	compare(t, m, want)

	r.src.add("192.0.2.2", kdrops.BadDigest, 4)
	r.src.add("198.51.100.7", kdrops.Missing, 2)
	r.src.add("198.51.100.8", kdrops.Missing, 3)
	r.src.add("192.0.2.9", kdrops.Unexpected, 1)  // unkeyed: a series once it moves
	r.src.add("203.0.113.5", kdrops.BadDigest, 6) // no peer: no series
	r.poll(t)
	want = nil
	want = append(want, md5("192.0.2.2", 4, 0, 0, 0)...)
	want = append(want, ao...)
	want = append(want, series("192.0.2.9", "unexpected", 1))
	want = append(want, md5("198.51.100.0/24", 0, 5, 0, 0)...)
	want = append(want, md5("198.51.100.128/25", 0, 0, 0, 0)...)
	want = append(want, md5("2001:db8::2", 0, 0, 0, 0)...)
	compare(t, m, want)
}

func series(peer, reason string, n int) string {
	return `authbgpd_peer_kernel_drops_total{peer="` + peer + `",reason="` + reason + `"} ` + strconv.Itoa(n)
}

func compare(t *testing.T, m *metrics.Metrics, lines []string) {
	t.Helper()
	sort.Strings(lines)
	exp := "# HELP authbgpd_peer_kernel_drops_total Segments the kernel itself dropped from the peer for TCP-MD5/TCP-AO since the daemon started (counted with eBPF on the kernel's drop tracepoints), by reason: bad_digest, missing, unexpected, bad_option, ao_bad, ao_key_not_found, ao_required. A dynamic range sums its sessions.\n" +
		"# TYPE authbgpd_peer_kernel_drops_total counter\n" + strings.Join(lines, "\n") + "\n"
	if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(exp), "authbgpd_peer_kernel_drops_total"); err != nil {
		t.Fatal(err)
	}
}
