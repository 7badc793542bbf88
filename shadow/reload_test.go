package shadow

import (
	"io"
	"net/netip"
	"slices"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/metrics"
	"github.com/authbgp/authbgpd/peerindex"
)

const reloadBase = "[global]\nasn = 65001\nrouter-id = \"192.0.2.1\"\n[[peers]]\naddress = \"192.0.2.2\"\nasn = 65002\npassword = \"Secret-Alpha\"\n"

const reloadChain = `
[[keychains]]
name = "core"
  [[keychains.keys]]
  id = 1
  secret = "Chain-Key-One"
  [[keychains.keys]]
  id = 2
  secret = "Chain-Key-Two"
  send-from = 2030-01-01T00:00:00Z
[[peers]]
address = "192.0.2.3"
asn = 65003
keychain = "core"
[[peers]]
address = "192.0.2.4"
asn = 65004
`

func parseConf(t *testing.T, s string) *config.Config {
	t.Helper()
	c, err := config.Parse("r.toml", []byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// segmentPeers lists the peers that have authbgpd_md5_segments_total series.
func segmentPeers(t *testing.T, m *metrics.Metrics) []string {
	t.Helper()
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range fams {
		if f.GetName() != "authbgpd_md5_segments_total" {
			continue
		}
		for _, mt := range f.GetMetric() {
			for _, l := range mt.GetLabel() {
				if l.GetName() == "peer" && !slices.Contains(out, l.GetValue()) {
					out = append(out, l.GetValue())
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestReloadMakesSeriesAndPins: the Runner makes its keyed peers' segment
// series exist at 0 when made and at each reload (an unkeyed peer gets
// none). The keychain key the peers manager installed is pinned in every
// worker's checker once: a pin for a peer the reload has not brought yet
// (the manager installs a new peer's key first) waits for it, a kept
// peer's pin holds across later reloads, a removed peer's is forgotten,
// and a reload itself pins nothing (pins come from the peers manager's
// snapshots, Apply, only).
func TestReloadMakesSeriesAndPins(t *testing.T) {
	l := logrus.New()
	l.SetOutput(io.Discard)
	m := metrics.New("test")
	base := parseConf(t, reloadBase)
	base.Shadow.Workers = 2
	r := NewRunner(peerindex.New(base), l, m, RunnerOptions{})
	if got := segmentPeers(t, m); !slices.Equal(got, []string{"192.0.2.2"}) {
		t.Fatalf("series after NewRunner: %v", got)
	}
	pinned := func(what string, want int) {
		t.Helper()
		if len(r.chks) != 2 {
			t.Fatalf("%d checkers, want 2", len(r.chks))
		}
		for i, c := range r.chks {
			c.mu.Lock()
			p := c.lookup(netip.MustParseAddr("192.0.2.3"))
			got := -2 // absent
			if p != nil {
				got = p.Pinned
			}
			c.mu.Unlock()
			if got != want {
				t.Errorf("%s: checker %d: 192.0.2.3 pinned %d, want %d", what, i, got, want)
			}
		}
	}
	// The manager installed key 2 of the peer the reload adds.
	r.Apply(&peerindex.Snapshot{Keys: map[string]peerindex.KeyInUse{"192.0.2.3": {KeyID: 2, Keychain: true, Installed: true}}})
	r.Reload(peerindex.New(parseConf(t, reloadBase+reloadChain)))
	if got := segmentPeers(t, m); !slices.Equal(got, []string{"192.0.2.2", "192.0.2.3"}) {
		t.Fatalf("series after Reload: %v", got)
	}
	pinned("the reload that adds the peer", 2)
	r.Reload(peerindex.New(parseConf(t, reloadBase+reloadChain+"\n[shadow]\nfollow-peer-rollover = false\n")))
	pinned("a later reload that keeps it", 2)
	r.Reload(peerindex.New(parseConf(t, reloadBase)))
	pinned("a reload that removes it", -2)
	r.Reload(peerindex.New(parseConf(t, reloadBase+reloadChain)))
	pinned("added again, its old pin forgotten", -1)
}
