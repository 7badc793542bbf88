package metrics

import (
	"errors"
	"testing"
)

// A configured peer that never reached Established has peer_up 0 from the
// first scrape; a peer no longer configured loses its series.
func TestReadPeers(t *testing.T) {
	m := New("dev")
	state := []PeerState{
		{Peer: "192.0.2.2"},
		{Peer: "192.0.2.3", Up: true, Prefixes: []FamilyPrefixes{{Family: "ipv4-unicast", Received: 5, Accepted: 4, Sent: 3}}},
		{Peer: "10.9.0.0/24"},
	}
	var readErr error
	if err := m.ReadPeers(func() ([]PeerState, error) { return state, readErr }); err != nil {
		t.Fatal(err)
	}
	if err := m.ReadPeers(func() ([]PeerState, error) { return nil, nil }); err == nil {
		t.Fatal("ReadPeers twice: no error")
	}
	mustValue(t, m, "authbgpd_peer_up", map[string]string{"peer": "192.0.2.2"}, 0)
	mustValue(t, m, "authbgpd_peer_up", map[string]string{"peer": "192.0.2.3"}, 1)
	mustValue(t, m, "authbgpd_peer_up", map[string]string{"peer": "10.9.0.0/24"}, 0)
	for dir, n := range map[string]float64{PrefixesReceived: 5, PrefixesAccepted: 4, PrefixesSent: 3} {
		mustValue(t, m, "authbgpd_peer_prefixes", map[string]string{"peer": "192.0.2.3", "family": "ipv4-unicast", "direction": dir}, n)
	}
	mustAbsent(t, m, "authbgpd_peer_prefixes", map[string]string{"peer": "192.0.2.2", "family": "ipv4-unicast", "direction": PrefixesReceived})

	// An event between scrapes shows; the next scrape says what GoBGP holds.
	m.SetPeerUp("192.0.2.2", true)
	state = state[1:]
	mustAbsent(t, m, "authbgpd_peer_up", map[string]string{"peer": "192.0.2.2"})
	mustValue(t, m, "authbgpd_peer_up", map[string]string{"peer": "192.0.2.3"}, 1)

	// A failed read keeps the last values and fails the prefixes only.
	readErr = errors.New("gobgp stopped")
	if _, err := m.Registry().Gather(); err == nil {
		t.Fatal("Gather: no error when the read fails")
	}
}

func TestKeyChangesStartAtZero(t *testing.T) {
	m := New("dev")
	m.SetKeyInstalled("192.0.2.2", false)
	mustValue(t, m, "authbgpd_md5_key_changes_total", map[string]string{"peer": "192.0.2.2"}, 0)
	m.KeyChanged("192.0.2.2")
	mustValue(t, m, "authbgpd_md5_key_changes_total", map[string]string{"peer": "192.0.2.2"}, 1)
}

func TestCaptureRunning(t *testing.T) {
	m := New("dev")
	mustAbsent(t, m, "authbgpd_shadow_capture_running", nil)
	running := false
	if err := m.ReadCaptureRunning(func() bool { return running }); err != nil {
		t.Fatal(err)
	}
	mustValue(t, m, "authbgpd_shadow_capture_running", nil, 0)
	running = true
	mustValue(t, m, "authbgpd_shadow_capture_running", nil, 1)
}

func TestBuildInfoLabels(t *testing.T) {
	m := New("authbgpd 1.4.0+abcdef123456 (gobgp v3.37.0, go1.26.8)")
	mustValue(t, m, "authbgpd_build_info", map[string]string{"version": "1.4.0+abcdef123456", "gobgp": "v3.37.0", "go": "go1.26.8"}, 1)
	for _, odd := range []string{"authbgpd 1.4", "authbgpd 1.4 (gobgp v3)"} {
		if v, _, _ := splitBanner(odd); v != odd {
			t.Errorf("splitBanner(%q) version = %q, want it whole", odd, v)
		}
	}
}
