//go:build linux

package e2e

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/status"
)

// TestShadowOnDemand: with [shadow] mode = "on-demand" nothing is captured
// (no packet socket in the daemon's namespace) until the kernel drops a
// peer's segments; then that peer alone is captured, and a wrong-key FRR
// peer is diagnosed bad-digest within 10 s of FRR's start (before its
// first drop); when the window ends the packet sockets are gone again, the
// diagnosis stays, and the healthy peer was never captured.
func TestShadowOnDemand(t *testing.T) {
	testenv.RequireRoot(t)
	testenv.RequireBinary(t, "bgpd", "/usr/lib/frr")
	pair := newPair(t, "shod", false)
	tp, nsA, nsB := pair.Topology, pair.A, pair.B
	keyA, keyF := newSecret("odA"), newSecret("odF")
	const window = 6 * time.Second
	a := StartAuthbgpd(t, tp, nsA, abConfig(fmt.Sprintf("\n[shadow]\nmode = \"on-demand\"\non-demand-window = %q\n", window.String()),
		abPeer{addr: pairB4.String(), asn: 65002, src: "password-file", ref: "peer.key"}),
		AuthbgpdOptions{Files: map[string]string{"peer.key": keyA + "\n"}})
	st := a.Status()
	if k := st.KernelDrops; k == nil || !k.Available {
		testenv.Skip(t, fmt.Sprintf("the kernel's drop counters are unavailable here: %+v", k))
	}
	packetSockets := func() int {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/packet", a.cmd.Process.Pid))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(strings.TrimSpace(string(b)), "\n") // less the header line
	}
	if c := st.Capture; c == nil || c.Mode != "on-demand" || c.Running || len(c.OnDemand) != 0 {
		t.Fatalf("/status capture before any drop: %+v", c)
	}
	if n := packetSockets(); n != 0 {
		t.Fatalf("%d packet sockets in the daemon's namespace before any drop, want 0", n)
	}
	if p := a.Peer(pairB4.String()); p == nil || p.KernelDrops == nil || p.KernelDrops.BadDigest != 0 {
		t.Fatalf("the peer before FRR starts: %s", peerString(p))
	}

	started := time.Now()
	StartFRR(t, tp, nsB, PeerConfig{ASN: 65002, RouterID: pairB4, Neighbors: []Neighbor{{pairA4, 65001, keyF}}})
	var captured *status.CaptureDemand
	p := waitPeer(t, a, pairB4.String(), 10*time.Second-time.Since(started), "diagnosed bad-digest on demand", func(p *status.Peer) bool {
		if c := a.Status().Capture; c != nil && len(c.OnDemand) > 0 && captured == nil {
			captured = &c.OnDemand[0]
		}
		return p.Shadow != nil && p.Shadow.Diagnosis == "bad-digest"
	})
	t.Logf("bad-digest %v after FRR started: %s", time.Since(started).Round(time.Millisecond), peerString(p))
	if p.KernelDrops == nil || p.KernelDrops.BadDigest == 0 || p.KernelDrops.Diagnosis != "bad-digest" {
		t.Errorf("kernel_drops: %+v, want bad_digest counted and diagnosed", p.KernelDrops)
	}
	if captured == nil || captured.Address != pairB4.String() || !strings.Contains(captured.Why, "bad TCP-MD5 digest") {
		t.Errorf("/status capture.on_demand while diagnosing: %+v", captured)
	} else {
		t.Logf("captured on demand: %+v", *captured)
	}
	if !strings.Contains(a.Log(), "shadow: capturing "+pairB4.String()) {
		t.Errorf("no log line says the capture of %s started", pairB4)
	}

	// The window ends: the capture is closed, the diagnosis stays. (FRR
	// keeps failing: within the cool-down it is not captured again.)
	waitFor(t, 2*window, "the on-demand capture closed", func() error {
		if c := a.Status().Capture; c == nil || c.Running || len(c.OnDemand) != 0 {
			return fmt.Errorf("capture %+v", c)
		}
		if n := packetSockets(); n != 0 {
			return fmt.Errorf("%d packet sockets", n)
		}
		return nil
	})
	ended := time.Now()
	if p := a.Peer(pairB4.String()); p == nil || p.Shadow == nil || p.Shadow.Diagnosis != "bad-digest" {
		t.Errorf("after the capture ended: %s, want bad-digest kept", peerString(p))
	}
	if !strings.Contains(a.Log(), "shadow: capture of "+pairB4.String()+" ended") {
		t.Errorf("no log line says the capture of %s ended", pairB4)
	}
	t.Logf("capture closed %v after FRR started", ended.Sub(started).Round(time.Millisecond))
	assertNoSecrets(t, a, keyA, keyF)
}
