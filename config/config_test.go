package config

import (
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// testNow is the clock used by parse in tests.
var testNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// testEnv is the environment used by parse in tests.
func testEnv(name string) (string, bool) {
	switch name {
	case "PEER_KEY":
		return "env-secret\n", true
	case "EMPTY":
		return "", true
	}
	return "", false
}

func parseTest(t *testing.T, name, data string) (*Config, error) {
	t.Helper()
	return parse(name, []byte(data), testEnv, testNow)
}

// G is a valid [global] table of 3 lines.
const G = "[global]\nasn = 65001\nrouter-id = \"192.0.2.1\"\n"

func errStrings(err error) []string {
	var out []string
	for _, e := range Errors(err) {
		out = append(out, e.Error())
	}
	return out
}

func TestBadConfigs(t *testing.T) {
	long81 := strings.Repeat("k", 81)
	long65 := strings.Repeat("h", 65)
	seg15 := `"fc00::1"` + strings.Repeat(`, "fc00::1"`, 14)
	cases := []struct {
		name string
		toml string
		want []string // substrings, each of one error
	}{
		{"unknown key in peers", G + `
[[peers]]
address = "192.0.2.2"
asn = 65002
pasword = "x"
`, []string{`r1.toml:8: unknown key "pasword" in [[peers]]`}},
		{"asn wrong type", "[global]\nrouter-id = \"192.0.2.1\"\nasn = \"65001\"\n",
			[]string{`r1.toml:3: asn: expected integer, got string`}},
		{"asn missing", "\n[global]\nrouter-id = \"192.0.2.1\"\n",
			[]string{`r1.toml:2: [global]: asn is missing`}},
		{"asn zero", "[global]\nasn = 0\nrouter-id = \"192.0.2.1\"\n",
			[]string{`r1.toml:2: asn: 0 is not a valid AS number`}},
		{"asn too large", "[global]\nasn = 4294967296\nrouter-id = \"192.0.2.1\"\n",
			[]string{`r1.toml:2: asn: 4294967296 is out of range 0..4294967295`}},
		{"no global at all", "[log]\nlevel = \"info\"\n",
			[]string{`r1.toml:1: [global]: asn is missing`, `r1.toml:1: ` + noHostRouterID}},
		{"router-id ipv6", "[global]\nasn = 1\nrouter-id = \"2001:db8::1\"\n",
			[]string{`r1.toml:3: router-id: 2001:db8::1 is not an IPv4 address`}},
		{"router-id garbage", "[global]\nasn = 1\nrouter-id = \"r1\"\n",
			[]string{`r1.toml:3: router-id: "r1" is not an IP address`}},
		{"router-id missing", "[global]\nasn = 1\n",
			[]string{`r1.toml:1: ` + noHostRouterID}},
		{"listen-port out of range", G + "listen-port = 70000\n",
			[]string{`r1.toml:4: listen-port: 70000 is out of range (1..65535, or -1 to not listen)`}},
		{"listen-port zero", G + "listen-port = 0\n",
			[]string{`r1.toml:4: listen-port: 0 is out of range`}},
		{"listen-port -2", G + "listen-port = -2\n",
			[]string{`r1.toml:4: listen-port: -2 is out of range`}},
		{"listen-addresses bad", G + "listen-addresses = [\"0.0.0.0\",\n  \"nope\"]\n",
			[]string{`r1.toml:5: listen-addresses: "nope" is not an IP address`}},
		{"listen-addresses empty", G + "listen-addresses = []\n",
			[]string{`r1.toml:4: listen-addresses: empty`}},
		{"duplicate peer address", G + `
[[peers]]
address = "192.0.2.2"
asn = 65002
[[peers]]
address = "192.0.2.2"
asn = 65003
`, []string{`r1.toml:9: address: duplicate peer 192.0.2.2 (also at line 6)`}},
		{"duplicate peer prefix", G + `
[[peers]]
prefix = "192.0.2.0/24"
asn = 65002
[[peers]]
prefix = "192.0.2.0/24"
asn = 65003
`, []string{`r1.toml:9: prefix: duplicate peer 192.0.2.0/24 (also at line 6)`}},
		{"address and prefix", G + `
[[peers]]
address = "192.0.2.2"
prefix = "192.0.2.0/24"
asn = 65002
`, []string{`r1.toml:7: prefix: set address or prefix, not both (address is at line 6)`}},
		{"none of address, prefix, interface", G + `
[[peers]]
asn = 65002
`, []string{`r1.toml:5: [[peers]]: address, prefix or interface is missing (exactly one is required)`}},
		{"bad address", G + "[[peers]]\naddress = \"192.0.2.300\"\nasn = 2\n",
			[]string{`r1.toml:5: address: "192.0.2.300" is not an IP address`}},
		{"prefix host bits", G + "[[peers]]\nprefix = \"192.0.2.1/24\"\nasn = 2\n",
			[]string{`r1.toml:5: prefix: 192.0.2.1/24 has host bits set (did you mean 192.0.2.0/24?)`}},
		{"prefix not passive", G + "[[peers]]\nprefix = \"192.0.2.0/24\"\nasn = 2\npassive = false\n",
			[]string{`r1.toml:7: passive: a prefix of dynamic neighbors is always passive`}},
		{"two password sources", G + `
[[peers]]
address = "192.0.2.2"
asn = 65002
password = "a"
password-file = "x"
`, []string{`r1.toml:9: password-file: only one of password, password-file, password-env, keychain may be set (password is at line 8)`}},
		{"env and keychain", G + `
[[keychains]]
name = "k"
[[keychains.keys]]
id = 1
secret-env = "PEER_KEY"
[[peers]]
address = "192.0.2.2"
asn = 65002
keychain = "k"
password-env = "PEER_KEY"
`, []string{`r1.toml:14: password-env: only one of password, password-file, password-env, keychain may be set (keychain is at line 13)`}},
		{"unknown keychain", G + "[[peers]]\naddress = \"192.0.2.2\"\nasn = 2\nkeychain = \"nope\"\n",
			[]string{`r1.toml:7: keychain: unknown keychain "nope"`}},
		{"keychain without keys", G + "[[keychains]]\nname = \"empty\"\n",
			[]string{`r1.toml:4: [[keychains]] "empty": has no keys`}},
		{"keychain without name", G + "[[keychains]]\n[[keychains.keys]]\nid = 1\nsecret-env = \"PEER_KEY\"\n",
			[]string{`r1.toml:4: [[keychains]]: name is missing`}},
		{"duplicate keychain", G + "[[keychains]]\nname = \"k\"\n[[keychains.keys]]\nid = 1\nsecret-env = \"PEER_KEY\"\n" +
			"[[keychains]]\nname = \"k\"\n[[keychains.keys]]\nid = 1\nsecret-env = \"PEER_KEY\"\n",
			[]string{`r1.toml:10: name: duplicate keychain "k" (also at line 5)`}},
		{"duplicate key id", G + `[[keychains]]
name = "k"
[[keychains.keys]]
id = 7
secret-env = "PEER_KEY"
[[keychains.keys]]
id = 7
secret-env = "PEER_KEY"
send-from = 2026-01-01T00:00:00Z
`, []string{`r1.toml:10: id: duplicate key id 7 in [[keychains]] "k" (also at line 7)`}},
		{"key id 256", G + "[[keychains]]\nname = \"k\"\n[[keychains.keys]]\nid = 256\nsecret-env = \"PEER_KEY\"\n",
			[]string{`r1.toml:7: id: 256 is out of range 0..255`}},
		{"key id negative", G + "[[keychains]]\nname = \"k\"\n[[keychains.keys]]\nid = -1\nsecret-env = \"PEER_KEY\"\n",
			[]string{`r1.toml:7: id: -1 is out of range 0..255`}},
		{"key id missing", G + "[[keychains]]\nname = \"k\"\n[[keychains.keys]]\nsecret-env = \"PEER_KEY\"\n",
			[]string{`r1.toml:6: [[keychains.keys]]: id is missing`}},
		{"key without secret", G + "[[keychains]]\nname = \"k\"\n[[keychains.keys]]\nid = 1\n",
			[]string{`r1.toml:6: [[keychains]] "k" key 1: no secret: set one of secret, secret-file, secret-env`}},
		{"empty inline secret", G + "[[keychains]]\nname = \"k\"\n[[keychains.keys]]\nid = 1\nsecret = \"\"\n",
			[]string{`r1.toml:8: secret: secret is empty`}},
		{"md5 secret too long", G + "[[peers]]\naddress = \"192.0.2.2\"\nasn = 2\npassword = \"" + long81 + "\"\n",
			[]string{`r1.toml:7: password: secret is 81 bytes, longer than 80`}},
		{"srv6 secret too long", G + "[[srv6.hmac-keys]]\nid = 1\nalgorithm = \"sha1\"\nsecret = \"" + long65 + "\"\n",
			[]string{`r1.toml:7: secret: secret is 65 bytes, longer than 64`}},
		{"send-from local", G + "[[keychains]]\nname = \"k\"\n[[keychains.keys]]\nid = 1\nsecret-env = \"PEER_KEY\"\nsend-from = 2026-01-01T00:00:00\n",
			[]string{`r1.toml:9: send-from: local date-time has no time zone offset`}},
		{"send-from garbage string", G + "[[keychains]]\nname = \"k\"\n[[keychains.keys]]\nid = 1\nsecret-env = \"PEER_KEY\"\nsend-from = \"tomorrow\"\n",
			[]string{`r1.toml:9: send-from: "tomorrow" is not an RFC 3339 date-time`}},
		{"send-from wrong type", G + "[[keychains]]\nname = \"k\"\n[[keychains.keys]]\nid = 1\nsecret-env = \"PEER_KEY\"\nsend-from = 5\n",
			[]string{`r1.toml:9: send-from: expected date-time, got integer`}},
		{"same send-from", G + `[[keychains]]
name = "k"
[[keychains.keys]]
id = 1
secret-env = "PEER_KEY"
send-from = 2026-01-01T00:00:00Z
[[keychains.keys]]
id = 2
secret-env = "PEER_KEY"
send-from = 2026-01-01T01:00:00+01:00
`, []string{`r1.toml:13: send-from: keys 1 (line 9) and 2 have the same send-from`}},
		{"two keys always valid", G + `[[keychains]]
name = "k"
[[keychains.keys]]
id = 1
secret-env = "PEER_KEY"
[[keychains.keys]]
id = 2
secret-env = "PEER_KEY"
`, []string{`r1.toml:9: [[keychains]] "k": keys 1 (line 6) and 2 both have no send-from`}},
		{"unknown family", G + "[[peers]]\naddress = \"192.0.2.2\"\nasn = 2\nfamilies = [\"ipv4-unicast\", \"l2vpn-evpn\"]\n",
			[]string{`r1.toml:7: families: unknown family "l2vpn-evpn"`}},
		{"families empty", G + "[[peers]]\naddress = \"192.0.2.2\"\nasn = 2\nfamilies = []\n",
			[]string{`r1.toml:7: families: empty`}},
		{"families element type", G + "[[peers]]\naddress = \"192.0.2.2\"\nasn = 2\nfamilies = [\n  \"ipv4-unicast\",\n  4,\n]\n",
			[]string{`r1.toml:9: families[1]: expected string, got integer`}},
		{"peer asn missing", G + "\n[[peers]]\naddress = \"192.0.2.2\"\n",
			[]string{`r1.toml:5: [[peers]] 192.0.2.2: asn is missing`}},
		{"peer asn zero", G + "[[peers]]\naddress = \"192.0.2.2\"\nasn = 0\n",
			[]string{`r1.toml:6: asn: 0 is not a valid AS number`}},
		{"multihop-ttl", G + "[[peers]]\naddress = \"192.0.2.2\"\nasn = 2\nmultihop-ttl = 256\n",
			[]string{`r1.toml:7: multihop-ttl: 256 is out of range 0..255`}},
		{"passive wrong type", G + "[[peers]]\naddress = \"192.0.2.2\"\nasn = 2\npassive = \"yes\"\n",
			[]string{`r1.toml:7: passive: expected boolean, got string`}},
		{"local-address family", G + "[[peers]]\naddress = \"192.0.2.2\"\nasn = 2\nlocal-address = \"2001:db8::1\"\n",
			[]string{`r1.toml:7: local-address: 2001:db8::1 is not of the peer's address family`}},
		{"password file missing", G + "[[peers]]\naddress = \"192.0.2.2\"\nasn = 2\npassword-file = \"testdata/does-not-exist\"\n",
			[]string{`r1.toml:7: password-file: cannot read secret file`}},
		{"password file is a directory", G + "[[peers]]\naddress = \"192.0.2.2\"\nasn = 2\npassword-file = \"testdata\"\n",
			[]string{`r1.toml:7: password-file: secret file testdata is not a regular file`}},
		{"password env unset", G + "[[peers]]\naddress = \"192.0.2.2\"\nasn = 2\npassword-env = \"NOPE_NOT_SET\"\n",
			[]string{`r1.toml:7: password-env: environment variable NOPE_NOT_SET is not set`}},
		{"password env empty", G + "[[peers]]\naddress = \"192.0.2.2\"\nasn = 2\npassword-env = \"EMPTY\"\n",
			[]string{`r1.toml:7: password-env: environment variable EMPTY is empty`}},
		{"password wrong type", G + "[[peers]]\naddress = \"192.0.2.2\"\nasn = 2\npassword = 1234\n",
			[]string{`r1.toml:7: password: expected string, got integer`}},
		{"log level", "[log]\nlevel = \"verbose\"\n" + G,
			[]string{`r1.toml:2: level: unknown log level "verbose" (want debug, info, warn, error)`}},
		{"log format", G + "[log]\nformat = \"xml\"\n",
			[]string{`r1.toml:5: format: unknown log format "xml" (want text, json)`}},
		{"api grpc", G + "[api]\ngrpc = \"localhost\"\n",
			[]string{`r1.toml:5: grpc: "localhost" is not HOST:PORT`}},
		{"api grpc remote", G + "[api]\ngrpc = \"0.0.0.0:50051\"\n",
			[]string{`r1.toml:5: grpc: "0.0.0.0:50051" listens outside loopback`}},
		{"api grpc unix relative", G + "[api]\ngrpc = \"unix://run/gobgp.sock\"\n",
			[]string{`r1.toml:5: grpc: "unix://run/gobgp.sock": a unix socket needs an absolute path`}},
		{"api same address", G + "[api]\ngrpc = \"127.0.0.1:1\"\nhttp = \"127.0.0.1:1\"\n",
			[]string{`r1.toml:6: http: same address as grpc`}},
		{"srv6 hmac id 0", G + "[[srv6.hmac-keys]]\nid = 0\nalgorithm = \"sha256\"\nsecret = \"x\"\n",
			[]string{`r1.toml:5: id: SRv6 HMAC key id 0 is invalid (1..4294967295)`}},
		{"srv6 hmac id duplicate", G + "[[srv6.hmac-keys]]\nid = 9\nalgorithm = \"sha256\"\nsecret = \"x\"\n" +
			"[[srv6.hmac-keys]]\nid = 9\nalgorithm = \"sha1\"\nsecret = \"y\"\n",
			[]string{`r1.toml:9: id: duplicate SRv6 HMAC key id 9 (also at line 5)`}},
		{"srv6 algorithm", G + "[[srv6.hmac-keys]]\nid = 9\nalgorithm = \"md5\"\nsecret = \"x\"\n",
			[]string{`r1.toml:6: algorithm: unknown algorithm "md5" (want sha1 or sha256)`}},
		{"srv6 algorithm missing", G + "[[srv6.hmac-keys]]\nid = 9\nsecret = \"x\"\n",
			[]string{`r1.toml:4: [[srv6.hmac-keys]] 9: algorithm is missing`}},
		{"policy segments empty", G + "[[srv6.policies]]\nname = \"p\"\ncolor = 1\nendpoint = \"2001:db8::3\"\nsegments = []\n",
			[]string{`r1.toml:8: segments: empty`}},
		{"policy segments missing", G + "[[srv6.policies]]\nname = \"p\"\ncolor = 1\nendpoint = \"2001:db8::3\"\n",
			[]string{`r1.toml:4: [[srv6.policies]] "p": segments is missing`}},
		{"policy too many segments", G + "[[srv6.policies]]\nname = \"p\"\ncolor = 1\nendpoint = \"2001:db8::3\"\nsegments = [" + seg15 + "]\n",
			[]string{`r1.toml:8: segments: 15 segments, at most 14`}},
		{"policy segment not ipv6", G + "[[srv6.policies]]\nname = \"p\"\ncolor = 1\nendpoint = \"2001:db8::3\"\nsegments = [\n  \"fc00::1\",\n  \"192.0.2.1\",\n]\n",
			[]string{`r1.toml:8: segments: 192.0.2.1 is not an IPv6 unicast address`}},
		{"policy segment garbage on its line", G + "[[srv6.policies]]\nname = \"p\"\ncolor = 1\nendpoint = \"2001:db8::3\"\nsegments = [\n  \"fc00::1\",\n  \"zz::\",\n]\n",
			[]string{`r1.toml:10: segments: "zz::" is not an IP address`}},
		{"policy hmac key unknown", G + "[[srv6.policies]]\nname = \"p\"\ncolor = 1\nendpoint = \"2001:db8::3\"\nsegments = [\"fc00::1\"]\nhmac-key-id = 42\n",
			[]string{`r1.toml:9: hmac-key-id: no [[srv6.hmac-keys]] with id 42`}},
		{"policy duplicate name", G + "[[srv6.policies]]\nname = \"p\"\ncolor = 1\nendpoint = \"2001:db8::3\"\nsegments = [\"fc00::1\"]\n" +
			"[[srv6.policies]]\nname = \"p\"\ncolor = 2\nendpoint = \"2001:db8::3\"\nsegments = [\"fc00::1\"]\n",
			[]string{`r1.toml:10: name: duplicate policy name "p" (also at line 5)`}},
		{"policy color missing", G + "[[srv6.policies]]\nname = \"p\"\nendpoint = \"2001:db8::3\"\nsegments = [\"fc00::1\"]\n",
			[]string{`r1.toml:4: [[srv6.policies]] "p": color is missing`}},
		{"policy headend not router id", G + "[[srv6.policies]]\nname = \"p\"\ncolor = 1\nendpoint = \"2001:db8::3\"\nsegments = [\"fc00::1\"]\nheadends = [\"2001:db8::9\"]\n",
			[]string{`r1.toml:9: headends: 2001:db8::9 is not a router ID`}},
		{"policy binding sid ipv4", G + "[[srv6.policies]]\nname = \"p\"\ncolor = 1\nendpoint = \"2001:db8::3\"\nsegments = [\"fc00::1\"]\nbinding-sid = \"192.0.2.9\"\n",
			[]string{`r1.toml:9: binding-sid: 192.0.2.9 is not an IPv6 address`}},
		{"headend without source", G + "[srv6.headend]\nenabled = true\n",
			[]string{`r1.toml:5: [srv6.headend]: enabled without source`}},
		{"headend source ipv4", G + "[srv6.headend]\nsource = \"192.0.2.1\"\n",
			[]string{`r1.toml:5: source: 192.0.2.1 is not an IPv6 unicast address`}},
		{"shadow interface name", G + "[shadow]\ninterfaces = [\"eth0\", \"a/b\"]\n",
			[]string{`r1.toml:5: interfaces: "a/b" is not an interface name`}},
		{"shadow workers too many", G + "[shadow]\nworkers = 65\n",
			[]string{`r1.toml:5: workers: 65 is out of range 0..64`}},
		{"shadow workers negative", G + "[shadow]\nworkers = -1\n",
			[]string{`r1.toml:5: workers: -1 is out of range 0..64`}},
		{"unknown top-level key", G + "bogus = 1\n",
			[]string{`r1.toml:4: unknown key "bogus" in [global]`}},
		{"unknown root key", "routers = 1\n" + G,
			[]string{`r1.toml:1: unknown key "routers"`}},
		{"unknown table", G + "[bgp]\nx = 1\n",
			[]string{`r1.toml:4: unknown key "bgp"`}},
		{"unknown key in keychain key", G + "[[keychains]]\nname = \"k\"\n[[keychains.keys]]\nid = 1\nsecret-env = \"PEER_KEY\"\nsend-to = 2026-01-01T00:00:00Z\n",
			[]string{`r1.toml:9: unknown key "send-to" in [[keychains.keys]]`}},
		{"unknown key in inline table", G + "[[keychains]]\nname = \"k\"\nkeys = [\n  {id = 1, secret-env = \"PEER_KEY\"},\n  {id = 2, secret-env = \"PEER_KEY\", colour = 1},\n]\n",
			[]string{`r1.toml:8: unknown key "colour" in [[keychains.keys]]`}},
		{"dotted key wrong type", "global.asn = \"x\"\nglobal.router-id = \"192.0.2.1\"\n",
			[]string{`r1.toml:1: asn: expected integer, got string`}},
		{"table expected", "global = 5\n",
			[]string{`r1.toml:1: global: expected table, got integer`}},
		{"array of tables expected", "peers = \"192.0.2.2\"\n" + G,
			[]string{`r1.toml:1: peers: expected array of tables ([[peers]]), got string`}},
		{"srv6 unknown key", G + "[srv6]\nhmac_keys = []\n",
			[]string{`r1.toml:5: unknown key "hmac_keys" in [srv6]`}},
		{"toml syntax", G + "[[peers]]\naddress = \"192.0.2.2\nasn = 2\n",
			[]string{`r1.toml:5: invalid TOML: `}},
		{"toml duplicate key", G + "asn = 65002\n",
			[]string{`r1.toml:4: invalid TOML: key asn is already defined`}},
		{"toml integer overflow", G + "listen-port = 99999999999999999999\n",
			[]string{`r1.toml:4: invalid TOML: `}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseTest(t, "r1.toml", tc.toml)
			if err == nil {
				t.Fatalf("no error; config %+v", c)
			}
			if c != nil {
				t.Errorf("config returned with an error")
			}
			got := errStrings(err)
			for _, w := range tc.want {
				if !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, w) }) {
					t.Errorf("no error contains %q; got:\n  %s", w, strings.Join(got, "\n  "))
				}
			}
			n := lineCount([]byte(tc.toml))
			for _, e := range Errors(err) {
				if e.File != "r1.toml" || e.Line < 1 || e.Line > n {
					t.Errorf("error %q: file %q line %d (file has %d lines)", e, e.File, e.Line, n)
				}
			}
			// Each line-tagged problem is reported once.
			seen := map[string]bool{}
			for _, s := range got {
				if seen[s] {
					t.Errorf("duplicate error %q", s)
				}
				seen[s] = true
			}
		})
	}
	if len(cases) < 25 {
		t.Fatalf("only %d cases", len(cases))
	}
}

// TestEveryErrorAtOnce checks that problems in different places are all
// reported, sorted by line, and can be listed with errors.As.
func TestEveryErrorAtOnce(t *testing.T) {
	doc := `[global]
asn = "x"
router-id = "2001:db8::1"
listen-port = 0

[log]
level = "loud"

[[peers]]
address = "192.0.2.2"
pasword = "typo"

[[peers]]
address = "192.0.2.2"
asn = 65002
multihop-ttl = 300

[[srv6.hmac-keys]]
id = 0
algorithm = "md5"
secret = "x"
`
	_, err := parseTest(t, "r1.toml", doc)
	want := []string{
		`r1.toml:2: asn: expected integer, got string`,
		`r1.toml:3: router-id: 2001:db8::1 is not an IPv4 address`,
		`r1.toml:4: listen-port: 0 is out of range (1..65535, or -1 to not listen)`,
		`r1.toml:7: level: unknown log level "loud" (want debug, info, warn, error)`,
		`r1.toml:9: [[peers]] 192.0.2.2: asn is missing`,
		`r1.toml:11: unknown key "pasword" in [[peers]]`,
		`r1.toml:14: address: duplicate peer 192.0.2.2 (also at line 10)`,
		`r1.toml:16: multihop-ttl: 300 is out of range 0..255`,
		`r1.toml:19: id: SRv6 HMAC key id 0 is invalid (1..4294967295)`,
		`r1.toml:20: algorithm: unknown algorithm "md5" (want sha1 or sha256)`,
	}
	got := errStrings(err)
	if !slices.Equal(got, want) {
		t.Errorf("got:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if !strings.HasPrefix(err.Error(), want[0]+"\n") {
		t.Errorf("joined error does not start with the first error: %q", err)
	}
	var e *Error
	if !errors.As(err, &e) || e.Line != 2 {
		t.Errorf("errors.As: %v", e)
	}
}

const fullConfig = `[global]
asn = 65001
router-id = "192.0.2.1"
listen-port = 1179
listen-addresses = ["192.0.2.1", "2001:db8::1"]

[api]
grpc = ""
http = "[::1]:9180"

[log]
level = "debug"
format = "json"

[[keychains]]
name = "core"
  [[keychains.keys]]
  id = 1
  secret-env = "PEER_KEY"
  [[keychains.keys]]
  id = 2
  secret = "second-key"
  send-from = 2026-03-01T00:00:00Z

[[peers]]
address = "192.0.2.2"
asn = 65002
keychain = "core"
multihop-ttl = 2

[[peers]]
address = "2001:db8::2"
asn = 65002
password-env = "PEER_KEY"
families = ["ipv6-unicast", "ipv6-srpolicy"]

[[peers]]
prefix = "198.51.100.0/24"
asn = 65010

[[peers]]
address = "::ffff:203.0.113.5"
asn = 65020
local-address = "203.0.113.1"
passive = true

[shadow]
enabled = true
interfaces = ["eth0", "eth1"]
follow-peer-rollover = true
workers = 3

[srv6]
hmac-keys = [{id = 7, algorithm = "sha1", secret = "k7"}]

[[srv6.policies]]
name = "silver"
color = 200
endpoint = "192.0.2.9"
segments = ["fc00:0:2::1"]
hmac-key-id = 7

[srv6.headend]
enabled = true
source = "2001:db8:1::1"
steer-endpoint = false
`

func TestFullConfig(t *testing.T) {
	c, err := parseTest(t, "full.toml", fullConfig)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("re-validate: %v", err)
	}
	g := c.Global
	if g.ASN != 65001 || g.RouterID != netip.MustParseAddr("192.0.2.1") || g.ListenPort != 1179 ||
		!slices.Equal(g.ListenAddresses, []netip.Addr{netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("2001:db8::1")}) {
		t.Errorf("global: %+v", g)
	}
	if c.API.GRPC != "" || c.API.HTTP != "[::1]:9180" {
		t.Errorf("api: %+v", c.API)
	}
	if c.Log.Level != "debug" || c.Log.Format != "json" {
		t.Errorf("log: %+v", c.Log)
	}
	kc := c.Keychain("core")
	if kc == nil || len(kc.Keys) != 2 || kc.Line != 15 || kc.Keys[0].Line != 17 || kc.Keys[1].Line != 20 {
		t.Fatalf("keychain: %+v", kc)
	}
	if string(kc.Keys[0].Secret) != "env-secret" || kc.Keys[0].SecretSource != SourceSecretEnv || kc.Keys[0].SecretRef != "PEER_KEY" {
		t.Errorf("key 1 source %q ref %q", kc.Keys[0].SecretSource, kc.Keys[0].SecretRef)
	}
	if string(kc.Keys[1].Secret) != "second-key" || !kc.Keys[1].SendFrom.Equal(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("key 2: %+v", kc.Keys[1])
	}
	if len(c.Peers) != 4 {
		t.Fatalf("peers: %d", len(c.Peers))
	}
	p0, p1, p2, p3 := &c.Peers[0], &c.Peers[1], &c.Peers[2], &c.Peers[3]
	if p0.ID() != "192.0.2.2" || p0.Line != 25 || p0.LineOf("keychain") != 28 || p0.MultihopTTL != 2 ||
		p0.Passive || !slices.Equal(p0.Families, []Family{IPv4Unicast}) {
		t.Errorf("peer 0: %+v", p0)
	}
	if a := p0.Auth(); a != (Auth{Mode: AuthMD5, Source: SourceKeychain, Keychain: "core"}) {
		t.Errorf("peer 0 auth: %+v", a)
	}
	if sec, id, ok := c.PeerKey(p0, testNow); !ok || id != 2 || string(sec) != "second-key" {
		t.Errorf("peer 0 key now: %d %v", id, ok)
	}
	if sec, id, ok := c.PeerKey(p0, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)); !ok || id != 1 || string(sec) != "env-secret" {
		t.Errorf("peer 0 key in January: %d %v", id, ok)
	}
	if a := p1.Auth(); a != (Auth{Mode: AuthMD5, Source: SourcePasswordEnv}) || string(p1.Password) != "env-secret" {
		t.Errorf("peer 1 auth: %+v", a)
	}
	if !slices.Equal(p1.Families, []Family{IPv6Unicast, IPv6SRPolicy}) {
		t.Errorf("peer 1 families: %v", p1.Families)
	}
	if sec, id, ok := c.PeerKey(p1, testNow); !ok || id != -1 || string(sec) != "env-secret" {
		t.Errorf("peer 1 key: %d %v", id, ok)
	}
	if !p2.IsDynamic() || p2.ID() != "198.51.100.0/24" || !p2.Passive || !slices.Equal(p2.Families, []Family{IPv4Unicast}) {
		t.Errorf("peer 2: %+v", p2)
	}
	if a := p2.Auth(); a != (Auth{Mode: AuthNone}) {
		t.Errorf("peer 2 auth: %+v", a)
	}
	if _, _, ok := c.PeerKey(p2, testNow); ok {
		t.Errorf("peer 2 has a key")
	}
	if p3.ID() != "203.0.113.5" || !p3.Passive || p3.LocalAddress != netip.MustParseAddr("203.0.113.1") ||
		!slices.Equal(p3.Families, []Family{IPv4Unicast}) {
		t.Errorf("peer 3 (v4-mapped is unmapped): %+v", p3)
	}
	if c.Peer("2001:db8::2") != p1 || c.Peer("nope") != nil {
		t.Errorf("Config.Peer lookup")
	}
	s := c.Shadow
	if !s.Enabled || !s.FollowPeerRollover || !slices.Equal(s.Interfaces, []string{"eth0", "eth1"}) || s.Workers != 3 || s.WorkerCount() != 3 {
		t.Errorf("shadow: %+v", s)
	}
	if len(c.SRv6.HMACKeys) != 1 || c.SRv6.HMACKeys[0].ID != 7 || c.SRv6.HMACKeys[0].Algorithm != "sha1" ||
		string(c.SRv6.HMACKeys[0].Secret) != "k7" || c.SRv6.HMACKeys[0].Line != 54 {
		t.Errorf("hmac keys: %+v", c.SRv6.HMACKeys)
	}
	pol := c.SRv6.Policies[0]
	if pol.Name != "silver" || pol.Color != 200 || pol.Preference != DefaultPreference || pol.Distinguisher != 0 ||
		pol.BindingSID.IsValid() || pol.HMACKeyID != 7 || len(pol.Headends) != 0 || pol.Line != 56 {
		t.Errorf("policy: %+v", pol)
	}
	h := c.SRv6.Headend
	if !h.Enabled || h.Source != netip.MustParseAddr("2001:db8:1::1") || h.SteerEndpoint {
		t.Errorf("headend: %+v", h)
	}
	// Inline secrets warn; nothing else here does.
	var warns []string
	for _, w := range c.Warnings {
		warns = append(warns, w.String())
	}
	want := []string{
		`full.toml:22: secret: inline secrets are discouraged; use secret-file or secret-env`,
		`full.toml:54: secret: inline secrets are discouraged; use secret-file or secret-env`,
	}
	if !slices.Equal(warns, want) {
		t.Errorf("warnings:\n  %s", strings.Join(warns, "\n  "))
	}
	// Parsing again gives the same config.
	c2, err := parseTest(t, "full.toml", fullConfig)
	if err != nil {
		t.Fatal(err)
	}
	if ch := Diff(c, c2); !ch.Empty() || len(ch.Unchanged) != 4 {
		t.Errorf("diff of identical configs: %+v", ch)
	}
}

func TestDefaults(t *testing.T) {
	c, err := parseTest(t, "min.toml", G+"[[peers]]\naddress = \"2001:db8::2\"\nasn = 65002\n[[peers]]\nprefix = \"10.0.0.0/8\"\nasn = 65003\n")
	if err != nil {
		t.Fatal(err)
	}
	if c.Global.ListenPort != 179 || !slices.Equal(c.Global.ListenAddresses, DefaultListenAddresses()) {
		t.Errorf("global defaults: %+v", c.Global)
	}
	if c.API.GRPC != "127.0.0.1:50051" || c.API.HTTP != "127.0.0.1:9179" {
		t.Errorf("api defaults: %+v", c.API)
	}
	if c.Log.Level != "info" || c.Log.Format != "text" {
		t.Errorf("log defaults: %+v", c.Log)
	}
	if c.Shadow.Enabled || c.Shadow.FollowPeerRollover || len(c.Shadow.Interfaces) != 0 || c.Shadow.Workers != 0 ||
		c.Shadow.WorkerCount() != min(runtime.GOMAXPROCS(0), AutoShadowWorkers) {
		t.Errorf("shadow defaults: %+v", c.Shadow)
	}
	if c.SRv6.Headend.Enabled || !c.SRv6.Headend.SteerEndpoint {
		t.Errorf("headend defaults: %+v", c.SRv6.Headend)
	}
	if p := c.Peers[0]; !slices.Equal(p.Families, []Family{IPv6Unicast}) || p.Passive || p.MultihopTTL != 0 || p.LocalAddress.IsValid() {
		t.Errorf("peer defaults: %+v", p)
	}
	if p := c.Peers[1]; !slices.Equal(p.Families, []Family{IPv4Unicast}) || !p.Passive {
		t.Errorf("dynamic peer defaults: %+v", p)
	}
	if len(c.Warnings) != 0 {
		t.Errorf("warnings: %v", c.Warnings)
	}

	// "" turns the API servers off; -1 does not listen (and then no
	// listen address is fine).
	c, err = parseTest(t, "off.toml", G+"listen-port = -1\nlisten-addresses = []\n[api]\ngrpc = \"\"\nhttp = \"\"\n")
	if err != nil {
		t.Fatal(err)
	}
	if c.API.GRPC != "" || c.API.HTTP != "" || c.Global.ListenPort != -1 {
		t.Errorf("off: %+v %+v", c.API, c.Global)
	}

	// The gRPC API on a unix socket, or outside loopback with the opt-in.
	for _, api := range []string{"grpc = \"unix:///run/authbgpd/gobgp.sock\"\n", "grpc = \"[::]:50051\"\ngrpc-allow-remote = true\n", "grpc = \"localhost:50051\"\n", "grpc = \"[::1]:1\"\n"} {
		if _, err := parseTest(t, "api.toml", G+"[api]\n"+api); err != nil {
			t.Errorf("%q: %v", api, err)
		}
	}

	// An empty file is only missing [global].
	_, err = parseTest(t, "empty.toml", "")
	if got := errStrings(err); !slices.Equal(got, []string{"empty.toml:1: " + noHostRouterID, "empty.toml:1: [global]: asn is missing"}) {
		t.Errorf("empty file: %q", got)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r1.toml")
	if err := os.WriteFile(path, []byte(G+"[[peers]]\naddress = \"192.0.2.2\"\nasn = 2\npassword-file = \"peer.key\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "peer.key"), []byte("from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	p := c.Peers[0]
	if string(p.Password) != "from-file" || p.PasswordRef != filepath.Join(dir, "peer.key") || c.File != path || c.Dir != dir {
		t.Errorf("peer: %+v, file %q dir %q", p, c.File, c.Dir)
	}
	_, err = Load(filepath.Join(dir, "missing.toml"))
	var e *Error
	if !errors.As(err, &e) || e.File != filepath.Join(dir, "missing.toml") || !strings.Contains(e.Msg, "no such file") {
		t.Errorf("missing file: %v", err)
	}
}

// TestValidateInCode checks Validate on a Config built without a file.
func TestValidateInCode(t *testing.T) {
	c := &Config{
		File:   "code",
		Global: Global{ASN: 1, RouterID: netip.MustParseAddr("192.0.2.1"), ListenPort: 179, ListenAddresses: DefaultListenAddresses()},
		API:    API{GRPC: DefaultGRPC, HTTP: DefaultHTTP},
		Log:    Log{Level: "info", Format: "text"},
		Peers: []Peer{{
			Address: netip.MustParseAddr("192.0.2.2"), ASN: 2, Families: []Family{IPv4Unicast},
			PasswordSource: SourcePassword, Password: Secret("x"),
		}},
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	c.Peers[0].Keychain = "k"
	c.Peers[0].Password = nil
	c.Global.ASN = 0
	got := errStrings(c.Validate())
	want := []string{
		"code: [global]: asn is missing",
		"code: keychain: only one of password, password-file, password-env, keychain may be set",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q", got)
	}
}
