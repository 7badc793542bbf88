package config

import (
	"strconv"
	"strings"
	"testing"
)

// aoAlgChain is a TCP-AO keychain with one key whose algorithm and
// mac-length lines the tests replace (lines 10 and 11).
const aoAlgChain = G + `
[[keychains]]
name = "ao"
type = "tcp-ao"
  [[keychains.keys]]
  id = 3
  algorithm = "hmac-sha-1-96"
  # mac-length
  secret = "AO-Alg-Secret"
[[peers]]
address = "192.0.2.2"
asn = 65002
keychain = "ao"
`

func aoAlgDoc(alg, macLen string) string {
	doc := strings.Replace(aoAlgChain, `algorithm = "hmac-sha-1-96"`, alg, 1)
	return strings.Replace(doc, "# mac-length", macLen, 1)
}

// TestTCPAOAlgorithmsAndMACLengths: every algorithm is taken with the
// default MAC length (12) and, except the -96 names, with 4 bytes up to its
// max (the smaller of its digest and the 16 Linux takes), and with no other
// length from 0 to 65 (a bound off by one, 17, fails here).
func TestTCPAOAlgorithmsAndMACLengths(t *testing.T) {
	for _, c := range []struct {
		alg  string
		max  int
		is96 bool
	}{
		{AlgHMACSHA196, 12, true}, {AlgAESCMAC96, 12, true}, {AlgHMACSHA1, 16, false}, {AlgAESCMAC, 16, false},
		{AlgHMACSHA224, 16, false}, {AlgHMACSHA256, 16, false}, {AlgHMACSHA384, 16, false}, {AlgHMACSHA512, 16, false},
	} {
		cfg, err := parseTest(t, "r1.toml", aoAlgDoc(`algorithm = "`+c.alg+`"`, ""))
		if err != nil {
			t.Fatalf("%s: %v", c.alg, err)
		}
		if k := cfg.Keychain("ao").Keys[0]; k.Algorithm != c.alg || k.MACLen != DefaultTCPAOMACLen {
			t.Fatalf("%s: key %+v", c.alg, k)
		}
		for n := 0; n <= 65; n++ {
			doc := aoAlgDoc(`algorithm = "`+c.alg+`"`, "mac-length = "+strconv.Itoa(n))
			cfg, err := parseTest(t, "r1.toml", doc)
			want := n == 12 || !c.is96 && n >= MinTCPAOMACLen && n <= c.max
			if (err == nil) != want {
				t.Errorf("%s, mac-length %d: %v, want ok %v", c.alg, n, err, want)
				continue
			}
			if err == nil && cfg.Keychain("ao").Keys[0].MACLen != n {
				t.Errorf("%s: mac-length %d read as %d", c.alg, n, cfg.Keychain("ao").Keys[0].MACLen)
			}
		}
	}
	if cfg, err := parseTest(t, "r1.toml", aoAlgDoc("", "")); err != nil || cfg.Keychain("ao").Keys[0].Algorithm != AlgHMACSHA196 || cfg.Keychain("ao").Keys[0].MACLen != 12 {
		t.Fatalf("defaults: %v", err)
	}
}

// TestTCPAOMACLengthErrors: every invalid combination is an error at the
// mac-length line; secrets never appear.
func TestTCPAOMACLengthErrors(t *testing.T) {
	for _, c := range []struct {
		alg, macLen, want string
	}{
		{`algorithm = "hmac-sha-1-96"`, "mac-length = 16", `r1.toml:11: mac-length: hmac-sha-1-96 has a 12-byte MAC (RFC 5926), not 16; for another length use algorithm = "hmac-sha-1"`},
		{`algorithm = "aes-128-cmac-96"`, "mac-length = 4", `r1.toml:11: mac-length: aes-128-cmac-96 has a 12-byte MAC (RFC 5926), not 4; for another length use algorithm = "aes-128-cmac"`},
		{``, "mac-length = 10", `r1.toml:11: mac-length: hmac-sha-1-96 has a 12-byte MAC`},
		{`algorithm = "hmac-sha-256"`, "mac-length = 3", `r1.toml:11: mac-length: 3 is below 4 bytes`},
		{`algorithm = "hmac-sha-256"`, "mac-length = 0", `r1.toml:11: mac-length: 0 is below 4 bytes`},
		{`algorithm = "aes-128-cmac"`, "mac-length = 17", `r1.toml:11: mac-length: 17 is longer than the 16-byte digest of aes-128-cmac`},
		{`algorithm = "hmac-sha-1"`, "mac-length = 21", `r1.toml:11: mac-length: 21 is longer than the 20-byte digest of hmac-sha-1`},
		{`algorithm = "hmac-sha-256"`, "mac-length = 20", `r1.toml:11: mac-length: 20 is more than Linux takes (16: the TCP-AO option must fit a SYN)`},
		{`algorithm = "hmac-sha-512"`, "mac-length = 64", `r1.toml:11: mac-length: 64 is more than Linux takes`},
		{`algorithm = "hmac-sha-512"`, "mac-length = 256", `r1.toml:11: mac-length: 256 is out of range 0..255`},
		{`algorithm = "hmac-sha-256"`, `mac-length = "16"`, `r1.toml:11: mac-length: expected integer`},
	} {
		_, err := parseTest(t, "r1.toml", aoAlgDoc(c.alg, c.macLen))
		if err == nil {
			t.Errorf("%s %s: parsed", c.alg, c.macLen)
			continue
		}
		got := strings.Join(errStrings(err), "\n")
		if !strings.Contains(got, c.want) {
			t.Errorf("%s %s: missing %q in:\n%s", c.alg, c.macLen, c.want, got)
		}
		if strings.Contains(got, "AO-Alg-Secret") {
			t.Errorf("secret in errors:\n%s", got)
		}
	}
	// mac-length in a TCP-MD5 keychain.
	doc := strings.Replace(aoAlgDoc("", "mac-length = 12"), `type = "tcp-ao"`, `type = "md5"`, 1)
	if _, err := parseTest(t, "r1.toml", doc); err == nil || !strings.Contains(err.Error(), `r1.toml:11: mac-length: only keys of a keychain of type = "tcp-ao" have it`) {
		t.Errorf("md5 keychain with mac-length: %v", err)
	}
}

// TestTCPAORecvIDRange: a recv-id past 255 is refused at its line (the
// KeyID is one byte on the wire).
func TestTCPAORecvIDRange(t *testing.T) {
	for _, c := range []struct {
		line string
		ok   bool
	}{{"recv-id = 255", true}, {"recv-id = 0", true}, {"recv-id = 256", false}, {"recv-id = -1", false}} {
		_, err := parseTest(t, "r1.toml", aoAlgDoc(`algorithm = "hmac-sha-1-96"`, c.line))
		if (err == nil) != c.ok {
			t.Errorf("%s: %v, want ok %v", c.line, err, c.ok)
			continue
		}
		if !c.ok && !strings.Contains(err.Error(), "r1.toml:11: recv-id: "+strings.TrimPrefix(c.line, "recv-id = ")+" is out of range 0..255") {
			t.Errorf("%s: %v", c.line, err)
		}
	}
}

// TestTCPAOMACLengthDiff: a changed mac-length (or algorithm) is a key
// change.
func TestTCPAOMACLengthDiff(t *testing.T) {
	a := mustParse(t, aoAlgDoc(`algorithm = "hmac-sha-256"`, "mac-length = 12"))
	for _, b := range []string{
		aoAlgDoc(`algorithm = "hmac-sha-256"`, "mac-length = 16"),
		aoAlgDoc(`algorithm = "hmac-sha-384"`, "mac-length = 12"),
	} {
		ch := Diff(a, mustParse(t, b))
		if len(ch.Changed) != 1 || !ch.Changed[0].KeyChanged {
			t.Fatalf("%+v", ch.Changed)
		}
	}
	if ch := Diff(a, mustParse(t, aoAlgDoc(`algorithm = "hmac-sha-256"`, ""))); len(ch.Changed) != 0 {
		t.Fatalf("mac-length 12 and the default differ: %+v", ch.Changed)
	}
}
