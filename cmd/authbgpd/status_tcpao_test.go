package main

import (
	"strings"
	"testing"
)

// aoStatusFixture has two TCP-AO peers: one whose MACs are bad, one that
// sends a KeyID we hold no key for, as the shadow checker reports them.
const aoStatusFixture = `{
  "router_id": "192.0.2.1", "asn": 65001,
  "peers": [
    {"address": "192.0.2.6", "asn": 65006, "state": "active", "uptime_seconds": 0,
     "auth": {"mode": "tcp-ao", "source": "keychain", "keychain": "ao-core", "key_id": 1, "installed": true, "error": ""},
     "shadow": {"diagnosis": "bad-mac", "peer_key_id": null,
                "segments": {"valid": 2, "bad_digest": 0, "missing": 0, "unexpected": 0, "bad_mac": 5, "unknown_key": 0, "no_handshake": 1},
                "key_ids": [{"key_id": 1, "rnext_key_id": 2, "segments": 7}],
                "sent": {"valid": 3, "invalid": 0, "unsigned": 0, "no_handshake": 0}}},
    {"address": "192.0.2.7", "asn": 65007, "state": "active", "uptime_seconds": 0,
     "auth": {"mode": "tcp-ao", "source": "keychain", "keychain": "ao-core", "key_id": 1, "installed": true, "error": ""},
     "shadow": {"diagnosis": "unknown-key", "peer_key_id": 9,
                "segments": {"valid": 0, "bad_digest": 0, "missing": 0, "unexpected": 0, "bad_mac": 0, "unknown_key": 4, "no_handshake": 0},
                "key_ids": [{"key_id": 9, "rnext_key_id": 9, "segments": 4}]}}
  ],
  "srv6": {"hmac_keys": [], "policies": []}
}`

// TestStatusTableTCPAO: the table shows TCP-AO peers' diagnoses (with the
// unknown KeyID) and counts their bad MACs under BAD; the detail view has
// the TCP-AO counters and the KeyID pairs.
func TestStatusTableTCPAO(t *testing.T) {
	fixNow(t)
	ts, _ := fixtureServer(t, aoStatusFixture)
	rc, out, errs := runStatus("--api", hostPort(ts))
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, errs)
	}
	want := `router-id 192.0.2.1  asn 65001
capture: off (no shadow checker)
PEER       ASN    STATE   UP/DOWN  RCVD  ACC  SENT  AUTH    KEY  INSTALLED  DIAGNOSIS       VALID  BAD  MISSING  UNEXPECTED  KERNEL-DROPS  LAST-ERROR  ERROR
192.0.2.6  65006  active  -        -     -    -     tcp-ao  1    yes        bad-mac         2      5    0        0           -             -
192.0.2.7  65007  active  -        -     -    -     tcp-ao  1    yes        unknown-key(9)  0      0    0        0           -             -
`
	if out != want {
		t.Errorf("table:\n%s\nwant:\n%s", out, want)
	}
	rc, out, errs = runStatus("--api", hostPort(ts), "192.0.2.6")
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, errs)
	}
	for _, s := range []string{
		"  auth: tcp-ao from keychain ao-core, key 1, installed yes",
		"  shadow: diagnosis bad-mac; received valid 2, bad-mac 5, missing 0, unknown-key 0, unexpected 0, no-handshake 1; sent valid 3, invalid 0, unsigned 0, no-handshake 0\n",
		"  TCP-AO KeyID/RNextKeyID received: 1/2 (7 segments)\n",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("detail lacks %q:\n%s", s, out)
		}
	}
}
