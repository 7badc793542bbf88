package config

import (
	"slices"
	"strings"
	"testing"
)

// TestPeerTimers: hold-time and keepalive-interval decode, default, and
// fail validation at their FILE:LINE.
func TestPeerTimers(t *testing.T) {
	const peer = "[[peers]]\naddress = \"192.0.2.2\"\nasn = 2\n"
	cases := []struct {
		name, extra     string
		hold, keepalive uint16
		err             string
	}{
		{"defaults", "", 90, 30, ""},
		{"both", "hold-time = 9\nkeepalive-interval = 3\n", 9, 3, ""},
		{"hold only: a third", "hold-time = 30\n", 30, 10, ""},
		{"keepalive only", "keepalive-interval = 10\n", 90, 10, ""},
		{"hold 0", "hold-time = 0\n", 0, 0, "r1.toml:7: hold-time: 0 (no hold timer) is not supported"},
		{"hold 2", "hold-time = 2\n", 0, 0, "r1.toml:7: hold-time: 2: want at least 3 seconds"},
		{"keepalive 0", "keepalive-interval = 0\n", 0, 0, "r1.toml:7: keepalive-interval: 0:"},
		{"keepalive = hold", "hold-time = 9\nkeepalive-interval = 9\n", 0, 0, "r1.toml:8: keepalive-interval: 9 must be less than hold-time 9"},
		{"keepalive over default hold", "keepalive-interval = 120\n", 0, 0, "r1.toml:7: keepalive-interval: 120 must be less than hold-time 90"},
		{"range", "hold-time = 70000\n", 0, 0, "r1.toml:7: hold-time: 70000 is out of range"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseTest(t, "r1.toml", G+peer+tc.extra)
			if tc.err != "" {
				if errs := errStrings(err); len(errs) != 1 || !strings.HasPrefix(errs[0], tc.err) {
					t.Fatalf("errors %q, want one starting %q", errs, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if h, k := c.Peers[0].Timers(); h != tc.hold || k != tc.keepalive {
				t.Errorf("Timers() = %d, %d; want %d, %d", h, k, tc.hold, tc.keepalive)
			}
		})
	}
}

// TestDiffTimers: a timer change is a peer change that resets the session.
func TestDiffTimers(t *testing.T) {
	old := mustParse(t, peerDoc(pA))
	next := mustParse(t, peerDoc(strings.Replace(pA, "asn = 65002\n", "asn = 65002\nhold-time = 9\n", 1)))
	p := NewPreview(old, next)
	if len(p.Changed) != 1 || !slices.Equal(p.Changed[0].Fields, []string{"hold-time", "keepalive-interval"}) ||
		!p.Changed[0].Reset || p.Changed[0].Rekey {
		t.Fatalf("changed = %+v", p.Changed)
	}
	// The default written out is no change.
	same := mustParse(t, peerDoc(strings.Replace(pA, "asn = 65002\n", "asn = 65002\nhold-time = 90\nkeepalive-interval = 30\n", 1)))
	if ch := Diff(old, same); !ch.Empty() {
		t.Errorf("explicit defaults: %+v", ch.Changed)
	}
}
