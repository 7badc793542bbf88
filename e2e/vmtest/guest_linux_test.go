package vmtest

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
)

// TestGuestPeers: the programs later BGP tests run against are in the
// guest (the host's root filesystem) and start there.
func TestGuestPeers(t *testing.T) {
	requireVM(t)
	for _, p := range []struct {
		name  string
		dirs  []string
		args  []string
		want  string
		stdin string
	}{
		{"bgpd", []string{"/usr/lib/frr"}, []string{"--version"}, "bgpd version", ""},
		{"exabgp", []string{"/usr/sbin"}, []string{"--version"}, "ExaBGP", ""},
		{"tcpdump", []string{"/usr/sbin", "/usr/bin"}, []string{"--version"}, "tcpdump version", ""},
	} {
		t.Run(p.name, func(t *testing.T) {
			path := testenv.RequireBinary(t, p.name, p.dirs...)
			out, err := exec.Command(path, p.args...).CombinedOutput()
			if err != nil || !strings.Contains(string(out), p.want) {
				t.Fatalf("%s %s: %v\n%s", path, strings.Join(p.args, " "), err, out)
			}
			t.Logf("%s: %s", path, strings.SplitN(strings.TrimSpace(string(out)), "\n", 2)[0])
		})
	}
}

// TestGuestVRF: VRF devices (CONFIG_NET_VRF) can be made and enslave a veth.
func TestGuestVRF(t *testing.T) {
	requireVM(t)
	p := netns.NewPair(t, "vrf",
		netns.End{NS: "a", If: "eth0", Addrs: []string{"192.0.2.1/24"}},
		netns.End{NS: "b", If: "eth0", Addrs: []string{"192.0.2.2/24"}})
	netns.Run(t, "ip", "-n", p.A, "link", "add", "blue", "type", "vrf", "table", "10")
	netns.Run(t, "ip", "-n", p.A, "link", "set", "blue", "up")
	netns.Run(t, "ip", "-n", p.A, "link", "set", "eth0", "master", "blue")
	out := netns.Run(t, "ip", "-n", p.A, "-d", "link", "show", "blue")
	if !strings.Contains(out, "vrf table 10") {
		t.Fatalf("VRF blue:\n%s", out)
	}
	routes := netns.Run(t, "ip", "-n", p.A, "route", "show", "vrf", "blue")
	if !strings.Contains(routes, "192.0.2.0/24") {
		t.Fatalf("the connected route did not move into VRF blue:\n%s", routes)
	}
	t.Logf("VRF blue (table 10) holds eth0: %s", strings.TrimSpace(routes))
}

// TestGuestTracepoints: the tcp:tcp_hash_* and tcp:tcp_ao_* tracepoints the
// design relies on are in tracefs.
func TestGuestTracepoints(t *testing.T) {
	requireVM(t)
	dir := "/sys/kernel/tracing/events/tcp"
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("tracefs: %v", err)
	}
	have := map[string]bool{}
	for _, e := range ents {
		have[e.Name()] = true
	}
	for _, want := range []string{
		"tcp_hash_md5_mismatch", "tcp_hash_md5_required", "tcp_hash_md5_unexpected",
		"tcp_hash_bad_header", "tcp_hash_ao_required", "tcp_ao_handshake_failure",
		"tcp_ao_wrong_maclen", "tcp_ao_mismatch", "tcp_ao_key_not_found",
		"tcp_ao_rnext_request", "tcp_ao_synack_no_key", "tcp_ao_snd_sne_update",
		"tcp_ao_rcv_sne_update",
	} {
		if !have[want] {
			t.Errorf("no tracepoint tcp:%s in %s", want, dir)
		}
	}
}
