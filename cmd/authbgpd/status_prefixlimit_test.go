package main

import (
	"strings"
	"testing"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/status"
)

// TestStatusPeerPrefixLimit: status PEER shows the peer's max-prefixes,
// its warning and how often it was exceeded, and a last error that was the
// limit's names the limit.
func TestStatusPeerPrefixLimit(t *testing.T) {
	fixNow(t)
	p := &status.Peer{Address: "192.0.2.2", ASN: 65002, State: "idle",
		LastError: &status.LastError{Reason: "notification-sent code 6(cease) subcode 1(maximum number of prefixes reached)",
			At: "2026-12-01T11:59:00Z", MaxPrefixes: 3},
		Families:    []status.Family{{Name: "ipv4-unicast"}},
		PrefixLimit: &status.PrefixLimit{MaxPrefixes: 3, WarningPct: 80, Exceeded: 2}}
	var b strings.Builder
	printPeer(&b, p, nil, nil)
	for _, want := range []string{
		"  last error: notification-sent code 6(cease) subcode 1(maximum number of prefixes reached) at 2026-12-01T11:59:00Z (1m0s ago)\n" +
			"    because of: more than max-prefixes 3 prefixes in a family\n",
		"  max-prefixes: 3 per family, warning at 80%; exceeded 2 time(s) since start\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output:\n%s\nlacks:\n%s", b.String(), want)
		}
	}
	b.Reset()
	printPeer(&b, &status.Peer{Address: "192.0.2.3", PrefixLimit: &status.PrefixLimit{Exceeded: 1}}, nil, nil)
	if want := "  max-prefixes: none; exceeded 1 time(s) since start\n"; !strings.Contains(b.String(), want) {
		t.Errorf("limit removed by a reload:\n%s\nlacks %q", b.String(), want)
	}
}

// TestPreviewInPlace: a change that is not a re-key and resets nothing (a
// static peer's max-prefixes) prints as in place; a reset as a reset.
func TestPreviewInPlace(t *testing.T) {
	var b strings.Builder
	printPreview(&b, &config.Preview{File: "r.toml", Changed: []config.PreviewChange{
		{Peer: "192.0.2.2", Fields: []string{"max-prefixes"}},
		{Peer: "198.51.100.0/24", Fields: []string{"max-prefixes"}, Reset: true},
	}})
	for _, want := range []string{
		"  change    192.0.2.2: max-prefixes (in place, no session reset)\n",
		"  change    198.51.100.0/24: max-prefixes (session reset)\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output:\n%s\nlacks %q", b.String(), want)
		}
	}
}
