package config

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
)

func hostAddr(iface string, up, loopback bool, a string) HostAddr {
	return HostAddr{Interface: iface, Up: up, Loopback: loopback, Addr: netip.MustParseAddr(a)}
}

var testHost = []HostAddr{
	hostAddr("lo", true, true, "127.0.0.1"),
	hostAddr("lo", true, true, "192.0.2.250"),
	hostAddr("lo", true, true, "::1"),
	hostAddr("eth1", true, false, "203.0.113.7"),
	hostAddr("eth0", true, false, "198.51.100.9"),
	hostAddr("eth0", true, false, "198.51.100.4"),
	hostAddr("eth0", true, false, "169.254.1.1"),
	hostAddr("eth0", true, false, "2001:db8::1"),
	hostAddr("down0", false, false, "192.0.2.1"),
	hostAddr("ll0", true, false, "169.254.0.1"),
}

func TestChooseRouterID(t *testing.T) {
	for _, tc := range []struct {
		iface, want, on string
	}{
		{"", "198.51.100.4", "eth0"},    // the lowest of the up, non-loopback interfaces
		{"eth1", "203.0.113.7", "eth1"}, // the named interface's
		{"lo", "192.0.2.250", "lo"},     // a named loopback: its address, never 127/8
	} {
		a, on, err := ChooseRouterID(testHost, tc.iface)
		if err != nil || a.String() != tc.want || on != tc.on {
			t.Errorf("%q: %v %s %v, want %s on %s", tc.iface, a, on, err, tc.want, tc.on)
		}
	}
	for _, iface := range []string{"down0", "ll0", "nope"} {
		if a, _, err := ChooseRouterID(testHost, iface); !errors.Is(err, ErrNoRouterID) || !strings.Contains(err.Error(), "interface "+iface) {
			t.Errorf("%s: %v %v", iface, a, err)
		}
	}
	if a, _, err := ChooseRouterID(append(testHost[:3:3], testHost[7:]...), ""); !errors.Is(err, ErrNoRouterID) {
		t.Errorf("only loopback, IPv6, link-local and down: %v %v", a, err)
	}
}

// withHostAddrs makes the host's addresses addrs (and err) for the test.
func withHostAddrs(t *testing.T, addrs []HostAddr, err error) {
	saved := listHostAddrs
	listHostAddrs = func() ([]HostAddr, error) { return addrs, err }
	t.Cleanup(func() { listHostAddrs = saved })
}

func TestRouterIDSources(t *testing.T) {
	withHostAddrs(t, testHost, nil)
	env := map[string]string{"NODE_IP": "192.0.2.77", "NODE_IP6": "2001:db8::7", "ZERO": "0.0.0.0", "EMPTY": "", "JUNK": "node-1"}
	good := []struct{ global, want, from string }{
		{`router-id = "192.0.2.1"`, "192.0.2.1", ""},
		{`router-id-env = "NODE_IP"`, "192.0.2.77", "environment variable NODE_IP"},
		{`router-id-interface = "eth1"`, "203.0.113.7", "interface eth1"},
		{``, "198.51.100.4", "interface eth0"},
	}
	for _, tc := range good {
		c, err := parseEnv(t, "[global]\nasn = 65001\n"+tc.global+"\n", env)
		if err != nil {
			t.Errorf("%q: %v", tc.global, err)
			continue
		}
		if c.Global.RouterID.String() != tc.want || c.Global.RouterIDFrom != tc.from {
			t.Errorf("%q: %s from %q", tc.global, c.Global.RouterID, c.Global.RouterIDFrom)
		}
	}
	bad := []struct{ global, want string }{
		{`router-id-env = "UNSET"`, "n.toml:3: router-id-env: environment variable UNSET is not set"},
		{`router-id-env = "EMPTY"`, "n.toml:3: router-id-env: environment variable EMPTY is empty"},
		{`router-id-env = ""`, "n.toml:3: router-id-env: empty variable name"},
		{`router-id-env = "JUNK"`, `n.toml:3: router-id-env: environment variable JUNK: "node-1" is not an IP address`},
		{`router-id-env = "NODE_IP6"`, "n.toml:3: router-id-env: environment variable NODE_IP6: 2001:db8::7 is not an IPv4 address other than 0.0.0.0"},
		{`router-id-env = "ZERO"`, "n.toml:3: router-id-env: environment variable ZERO: 0.0.0.0 is not an IPv4 address other than 0.0.0.0"},
		{`router-id-interface = "down0"`, "n.toml:3: router-id-interface: no address to take the router ID from: interface down0 is not up or has no IPv4 address (loopback and link-local addresses do not count); set router-id or router-id-env"},
		{`router-id-interface = "a/b"`, `n.toml:3: router-id-interface: "a/b" is not an interface name`},
		{"router-id = \"192.0.2.1\"\nrouter-id-env = \"NODE_IP\"", "n.toml:4: router-id-env: only one of router-id, router-id-env, router-id-interface may be set (router-id is at line 3)"},
	}
	for _, tc := range bad {
		_, err := parseEnv(t, "[global]\nasn = 65001\n"+tc.global+"\n", env)
		got := errStrings(err)
		if len(got) != 1 || !strings.HasPrefix(got[0], tc.want) {
			t.Errorf("%q: %q, want %q", tc.global, got, tc.want)
		}
	}
	withHostAddrs(t, nil, errors.New("netlink: permission denied"))
	_, err := parseEnv(t, "[global]\nasn = 65001\n", nil)
	if got := errStrings(err); len(got) != 1 || got[0] != "n.toml:1: router-id: cannot list the host's addresses to pick the router ID: netlink: permission denied; set router-id or router-id-env" {
		t.Errorf("listing fails: %q", got)
	}
}

// A router ID taken from the host that changes is a change of router-id:
// a reload refuses it (GoBGP keeps the one it started with).
func TestRouterIDFromHostReload(t *testing.T) {
	withHostAddrs(t, testHost, nil)
	a, err := parseEnv(t, "[global]\nasn = 65001\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	withHostAddrs(t, testHost[3:4], nil)
	b, err := parseEnv(t, "[global]\nasn = 65001\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	ch := Diff(a, b)
	if r := ch.Refusals(a, b); len(r) != 1 || r[0].Error() != "n.toml:1: global.router-id: 198.51.100.4 -> 203.0.113.7: needs a restart (a reload cannot change it)" {
		t.Errorf("refusals: %v", r)
	}
}
