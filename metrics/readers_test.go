package metrics

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/aocount"
)

// TestRead: every reader given is read at each scrape; a nil one leaves
// its metrics absent; a second Read is an error.
func TestRead(t *testing.T) {
	m := New("test")
	running := true
	loop := &fakeLoop{age: 300 * time.Millisecond}
	err := m.Read(Readers{
		KernelDrops: func() (KernelMD5Drops, error) {
			return KernelMD5Drops{BadDigest: 2, AO: &aocount.Counts{KeyNotFound: 3}}, nil
		},
		Peers: func() ([]PeerState, error) { return []PeerState{{Peer: "192.0.2.2", Up: true}}, nil },
		PeerKernelDrops: func() []PeerKernelDrops {
			return []PeerKernelDrops{{Peer: "192.0.2.2", Reason: "bad_digest", Count: 4}}
		},
		CaptureRunning: func() bool { return running },
		GoBGPLoop:      loop,
	})
	if err != nil {
		t.Fatal(err)
	}
	mustValue(t, m, "authbgpd_kernel_tcp_md5_drops_total", map[string]string{"reason": "bad_digest"}, 2)
	mustValue(t, m, "authbgpd_kernel_tcp_ao_segments_total", map[string]string{"reason": aocount.KeyNotFound}, 3)
	mustValue(t, m, "authbgpd_peer_up", map[string]string{"peer": "192.0.2.2"}, 1)
	mustValue(t, m, "authbgpd_peer_kernel_drops_total", map[string]string{"peer": "192.0.2.2", "reason": "bad_digest"}, 4)
	mustValue(t, m, "authbgpd_shadow_capture_running", map[string]string{}, 1)
	running = false
	mustValue(t, m, "authbgpd_shadow_capture_running", map[string]string{}, 0)
	mustValue(t, m, "authbgpd_gobgp_loop_last_answer_age_seconds", map[string]string{}, 0.3)
	mustValue(t, m, "authbgpd_gobgp_loop_stalled", map[string]string{}, 0)
	loop.age, loop.health = 6500*time.Millisecond, errors.New("gobgp: main loop has not answered for 6.5s")
	mustValue(t, m, "authbgpd_gobgp_loop_last_answer_age_seconds", map[string]string{}, 6.5)
	mustValue(t, m, "authbgpd_gobgp_loop_stalled", map[string]string{}, 1)
	if err := m.Read(Readers{Peers: func() ([]PeerState, error) { return nil, nil }}); err == nil || !strings.HasPrefix(err.Error(), "metrics: ") {
		t.Fatalf("a second Read: %v, want a metrics error", err)
	}

	off := New("test")
	if err := off.Read(Readers{}); err != nil {
		t.Fatal(err)
	}
	mustAbsent(t, off, "authbgpd_shadow_capture_running", map[string]string{})
	mustAbsent(t, off, "authbgpd_kernel_tcp_md5_drops_total", map[string]string{"reason": "bad_digest"})
	mustAbsent(t, off, "authbgpd_gobgp_loop_stalled", map[string]string{})
}

// TestReadAOAlgorithms: 1 for each keychain algorithm the kernel accepts,
// 0 for each it refused, read at each scrape; none when nothing is known.
func TestReadAOAlgorithms(t *testing.T) {
	m := New("test")
	accepted, refused := []string{"hmac-sha-1", "hmac-sha-256"}, []string{"hmac-sha-512"}
	if err := m.Read(Readers{AOAlgorithms: func() ([]string, []string) { return accepted, refused }}); err != nil {
		t.Fatal(err)
	}
	mustValue(t, m, "authbgpd_kernel_tcp_ao_algorithm", map[string]string{"algorithm": "hmac-sha-256"}, 1)
	mustValue(t, m, "authbgpd_kernel_tcp_ao_algorithm", map[string]string{"algorithm": "hmac-sha-512"}, 0)
	accepted, refused = nil, nil
	mustAbsent(t, m, "authbgpd_kernel_tcp_ao_algorithm", map[string]string{"algorithm": "hmac-sha-256"})
}

// fakeLoop stands for the watchdog of GoBGP's loop (*plugin.Host).
type fakeLoop struct {
	age    time.Duration
	health error
}

func (l *fakeLoop) LoopAnswerAge() time.Duration { return l.age }
func (l *fakeLoop) LoopHealth() error            { return l.health }
