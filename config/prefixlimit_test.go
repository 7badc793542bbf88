package config

import (
	"slices"
	"strings"
	"testing"
)

// TestPeerPrefixLimit: max-prefixes and max-prefixes-warning decode on a
// peer and a range, and bad values fail at their FILE:LINE naming the key.
func TestPeerPrefixLimit(t *testing.T) {
	const peer = "[[peers]]\naddress = \"192.0.2.2\"\nasn = 2\n"
	const rng = "[[peers]]\nprefix = \"198.51.100.0/24\"\nasn = 2\n"
	cases := []struct {
		name, doc string
		max       uint32
		warn      uint8
		err       string
	}{
		{"unset", peer, 0, 0, ""},
		{"limit", peer + "max-prefixes = 1000\n", 1000, 0, ""},
		{"limit and warning", peer + "max-prefixes = 10\nmax-prefixes-warning = 80\n", 10, 80, ""},
		{"range", rng + "max-prefixes = 5\nmax-prefixes-warning = 100\n", 5, 100, ""},
		{"largest", peer + "max-prefixes = 4294967295\n", 4294967295, 0, ""},
		{"zero", peer + "max-prefixes = 0\n", 0, 0, "r1.toml:7: max-prefixes: 0 is out of range 1..4294967295"},
		{"negative", peer + "max-prefixes = -1\n", 0, 0, "r1.toml:7: max-prefixes: -1 is out of range"},
		{"too big", peer + "max-prefixes = 4294967296\n", 0, 0, "r1.toml:7: max-prefixes: 4294967296 is out of range"},
		{"string", peer + "max-prefixes = \"10\"\n", 0, 0, "r1.toml:7: max-prefixes"},
		{"warning 0", peer + "max-prefixes = 10\nmax-prefixes-warning = 0\n", 0, 0, "r1.toml:8: max-prefixes-warning: 0 is out of range 1..100"},
		{"warning 101", peer + "max-prefixes = 10\nmax-prefixes-warning = 101\n", 0, 0, "r1.toml:8: max-prefixes-warning: 101 is out of range 1..100"},
		{"warning alone", peer + "max-prefixes-warning = 90\n", 0, 0, "r1.toml:7: max-prefixes-warning: 90% of what? set max-prefixes too"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseTest(t, "r1.toml", G+tc.doc)
			if tc.err != "" {
				if errs := errStrings(err); len(errs) != 1 || !strings.HasPrefix(errs[0], tc.err) {
					t.Fatalf("errors %q, want one starting %q", errs, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p := c.Peers[0]; p.MaxPrefixes != tc.max || p.MaxPrefixesWarning != tc.warn {
				t.Errorf("max-prefixes %d warning %d; want %d, %d", p.MaxPrefixes, p.MaxPrefixesWarning, tc.max, tc.warn)
			}
		})
	}
}

// TestDiffPrefixLimit: a limit change is a peer change, in place for a
// static peer (Reset false in the preview) and a reset for a range; with
// another change the session resets anyway.
func TestDiffPrefixLimit(t *testing.T) {
	const lim = "asn = 65002\nmax-prefixes = 10\n"
	old := mustParse(t, peerDoc(pA, pC))
	cases := []struct {
		name   string
		doc    string
		fields []string
		reset  bool
	}{
		{"static limit", peerDoc(strings.Replace(pA, "asn = 65002\n", lim, 1), pC), []string{"max-prefixes"}, false},
		{"static limit and warning", peerDoc(strings.Replace(pA, "asn = 65002\n", lim+"max-prefixes-warning = 75\n", 1), pC),
			[]string{"max-prefixes", "max-prefixes-warning"}, false},
		{"static limit and hold time", peerDoc(strings.Replace(pA, "asn = 65002\n", lim+"hold-time = 30\n", 1), pC),
			[]string{"hold-time", "keepalive-interval", "max-prefixes"}, true},
		{"range limit", peerDoc(pA, strings.Replace(pC, "asn = 65004\n", "asn = 65004\nmax-prefixes = 10\n", 1)), []string{"max-prefixes"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := NewPreview(old, mustParse(t, tc.doc))
			if len(p.Changed) != 1 || !slices.Equal(p.Changed[0].Fields, tc.fields) || p.Changed[0].Reset != tc.reset || p.Changed[0].Rekey {
				t.Fatalf("changed = %+v; want fields %q reset %v", p.Changed, tc.fields, tc.reset)
			}
		})
	}
}
